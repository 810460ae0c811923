//! `noisegraph sample` and `noisegraph wgsl` end to end: the built binary run in temporary
//! folders, its outputs checked against the library's point queries and bakes, and its bad
//! inputs refused with exit code 2, a message naming the problem and no output file.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use noisegraph::query::{PointQuery, MAX_POINTS};
use noisegraph::{Executor, NoiseGraph, View};

const GRAPH: &str = r#"{"seed": 5, "output": "f", "nodes": [
    {"id": "b", "type": "perlin", "frequency": 3.0},
    {"id": "f", "type": "fbm", "source": "b", "octaves": 8}]}"#;

fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_points")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    dir
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_noisegraph"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    eprintln!(
        "$ noisegraph {}\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A `.npy` file of `descr` with `shape` and raw little-endian `body`.
fn write_npy_raw(path: &Path, descr: &str, shape: &str, body: &[u8]) {
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let total = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(total.div_ceil(64) * 64 - total));
    dict.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    bytes.extend_from_slice(dict.as_bytes());
    bytes.extend_from_slice(body);
    std::fs::write(path, bytes).unwrap();
}

fn write_points_f64(path: &Path, points: &[f64], dims: usize) {
    let body: Vec<u8> = points.iter().flat_map(|v| v.to_le_bytes()).collect();
    write_npy_raw(
        path,
        "<f8",
        &format!("({}, {dims})", points.len() / dims),
        &body,
    );
}

/// Reads a float32 `.npy` as (shape, data).
fn read_f32(path: &Path) -> (Vec<usize>, Vec<f32>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x93NUMPY\x01\x00");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = std::str::from_utf8(&bytes[10..10 + len]).unwrap();
    assert!(header.contains("'descr': '<f4'"), "{header}");
    let shape: Vec<usize> = header
        .split("'shape': (")
        .nth(1)
        .unwrap()
        .split(')')
        .next()
        .unwrap()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let data = bytes[10 + len..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (shape, data)
}

/// Scattered points, some far from the origin.
fn points(n: usize) -> Vec<f64> {
    (0..n * 2)
        .map(|i| {
            let t = i as f64 * 0.618_033_988_749_895;
            (t.fract() - 0.5) * if i % 7 == 0 { 2.0e6 } else { 3.0 }
        })
        .collect()
}

#[test]
fn sample_writes_the_point_queries_values_and_gradients() {
    let dir = workdir("values");
    let pts = points(500);
    write_points_f64(&dir.join("pts.npy"), &pts, 2);
    let graph = NoiseGraph::from_json(GRAPH).unwrap();
    let query = PointQuery::new(&graph, None).unwrap();

    let out = run(
        &dir,
        &[
            "sample",
            "g.json",
            "--points",
            "pts.npy",
            "-o",
            "v.npy",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (shape, data) = read_f32(&dir.join("v.npy"));
    assert_eq!(shape, vec![500]);
    assert_eq!(data, query.values(&pts).unwrap());

    let out = run(
        &dir,
        &[
            "sample",
            "g.json",
            "--points",
            "pts.npy",
            "-o",
            "g.npy",
            "--gradient",
            "--node",
            "b",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (shape, data) = read_f32(&dir.join("g.npy"));
    assert_eq!(shape, vec![500, 3]);
    let base = PointQuery::new(&graph, Some("b")).unwrap();
    assert_eq!(data, base.gradients(&pts).unwrap());
    assert!(
        data.chunks(3).any(|g| g[1].abs() > 0.1),
        "gradients are not all 0"
    );
}

#[test]
fn sample_at_a_bakes_pixel_positions_gives_its_pixels() {
    let dir = workdir("pixels");
    // float32 input: pixel (x, y) of a 16x8 view over [0, 2) x [0, 1) lies at (x, y) / 8.
    let (w, h) = (16u32, 8u32);
    let mut body = Vec::new();
    for y in 0..h {
        for x in 0..w {
            body.extend_from_slice(&(x as f32 / 8.0).to_le_bytes());
            body.extend_from_slice(&(y as f32 / 8.0).to_le_bytes());
        }
    }
    write_npy_raw(
        &dir.join("pts.npy"),
        "<f4",
        &format!("({}, 2)", w * h),
        &body,
    );
    let out = run(
        &dir,
        &[
            "sample",
            "g.json",
            "--points",
            "pts.npy",
            "-o",
            "v.npy",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (_, data) = read_f32(&dir.join("v.npy"));
    let graph = NoiseGraph::from_json(GRAPH).unwrap();
    let mut view = View::image(w, h);
    view.extent = [2.0, 1.0, 1.0];
    let bake = Executor::Cpu.bake(&graph, None, &view).unwrap();
    // The points are the pixels' positions `origin + (x * extent) / size` (exact in f32
    // here), where the bake samples its pixels: the same numbers, bit for bit.
    assert_eq!(data, bake.data);
    // At pixel coordinates of the view, the library gives the bake bit for bit.
    let pixels: Vec<f64> = (0..h)
        .flat_map(|y| (0..w).flat_map(move |x| [x as f64, y as f64]))
        .collect();
    let in_view = PointQuery::new(&graph, None)
        .unwrap()
        .values_in_view(&view, &pixels)
        .unwrap();
    assert_eq!(in_view, bake.data);
}

#[test]
fn sample_on_the_gpu_agrees_with_the_cpu() {
    if common::gpu().is_none() {
        return;
    }
    let dir = workdir("gpu");
    let pts = points(300);
    write_points_f64(&dir.join("pts.npy"), &pts, 2);
    let out = run(
        &dir,
        &[
            "sample",
            "g.json",
            "--points",
            "pts.npy",
            "-o",
            "v.npy",
            "--gradient",
            "--node",
            "b",
            "--backend",
            "gpu",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (shape, data) = read_f32(&dir.join("v.npy"));
    assert_eq!(shape, vec![300, 3]);
    let graph = NoiseGraph::from_json(GRAPH).unwrap();
    let cpu = PointQuery::new(&graph, Some("b"))
        .unwrap()
        .gradients(&pts)
        .unwrap();
    for (i, (g, c)) in data.chunks(3).zip(cpu.chunks(3)).enumerate() {
        assert!(
            (g[0] - c[0]).abs() <= 1e-4,
            "point {i}: value {} vs {}",
            g[0],
            c[0]
        );
        for k in 1..3 {
            assert!(
                (g[k] - c[k]).abs() <= 1e-3 * (1.0 + c[k].abs()),
                "point {i}: {g:?} vs {c:?}"
            );
        }
    }
}

/// Each bad input exits 2 with a message containing `says`, and writes no output.
fn assert_refused(dir: &Path, args: &[&str], says: &str) {
    let out = run(dir, args);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(says),
        "'{says}' not in: {}",
        stderr(&out)
    );
    assert!(!dir.join("v.npy").exists(), "an output was written");
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("v.npy"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn sample_refuses_bad_points_and_writes_nothing() {
    let dir = workdir("bad");
    let args = |pts: &'static str| -> Vec<&'static str> {
        vec![
            "sample",
            "g.json",
            "--points",
            pts,
            "-o",
            "v.npy",
            "--backend",
            "cpu",
        ]
    };
    // A 3-column array for a 2D node.
    write_points_f64(&dir.join("three.npy"), &[0.5; 12], 3);
    assert_refused(&dir, &args("three.npy"), "(N, 2)");
    // One column: shape (N,).
    let body: Vec<u8> = [0.5f64; 4].iter().flat_map(|v| v.to_le_bytes()).collect();
    write_npy_raw(&dir.join("flat.npy"), "<f8", "(4,)", &body);
    assert_refused(&dir, &args("flat.npy"), "(N, 2)");
    // Integers.
    write_npy_raw(&dir.join("int.npy"), "<i4", "(2, 2)", &[0u8; 16]);
    assert_refused(&dir, &args("int.npy"), "dtype '<i4'");
    // Big-endian floats.
    write_npy_raw(&dir.join("be.npy"), ">f8", "(2, 2)", &[0u8; 32]);
    assert_refused(&dir, &args("be.npy"), "dtype '>f8'");
    // NaN in point 2.
    write_points_f64(
        &dir.join("nan.npy"),
        &[0.0, 0.0, 1.0, 1.0, 0.5, f64::NAN],
        2,
    );
    assert_refused(
        &dir,
        &args("nan.npy"),
        "point 2 has a non-finite coordinate",
    );
    // Infinity.
    write_points_f64(&dir.join("inf.npy"), &[f64::INFINITY, 0.0], 2);
    assert_refused(&dir, &args("inf.npy"), "non-finite");
    // More points than one query takes: refused from the header, before reading the data.
    write_npy_raw(
        &dir.join("huge.npy"),
        "<f8",
        &format!("({}, 2)", MAX_POINTS + 1),
        &[0u8; 64],
    );
    assert_refused(&dir, &args("huge.npy"), "exceed the limit");
    // A file shorter than its shape.
    write_npy_raw(&dir.join("short.npy"), "<f8", "(10, 2)", &[0u8; 64]);
    assert_refused(&dir, &args("short.npy"), "shorter than its shape");
    // Not a .npy at all.
    std::fs::write(dir.join("text.npy"), "x,y\n0,0\n").unwrap();
    assert_refused(&dir, &args("text.npy"), "not a .npy file");
    // Missing, or a folder: bad input naming the file, not an I/O failure (exit 1).
    assert_refused(&dir, &args("no-such.npy"), "--points no-such.npy");
    std::fs::create_dir_all(dir.join("folder.npy")).unwrap();
    assert_refused(&dir, &args("folder.npy"), "folder.npy");
    write_points_f64(&dir.join("ok.npy"), &[0.25, 0.5], 2);
    assert_refused(
        &dir,
        &[
            "sample", "g.json", "--points", "ok.npy", "-o", "v.npy", "--node", "nope",
        ],
        "nope",
    );
    assert_refused(
        &dir,
        &["sample", "g.json", "--points", "ok.npy", "-o", "v.txt"],
        ".npy",
    );
    // A missing graph file or manifest, likewise.
    assert_refused(
        &dir,
        &[
            "sample",
            "no-such.json",
            "--points",
            "ok.npy",
            "-o",
            "v.npy",
        ],
        "graph file no-such.json",
    );
    assert_refused(
        &dir,
        &["bake", "--manifest", "no-such.json", "-o", "v.npy"],
        "manifest no-such.json",
    );
}

#[test]
fn wgsl_writes_a_module_that_validates_alone_and_in_a_users_shader() {
    let dir = workdir("wgsl");
    let out = run(
        &dir,
        &["wgsl", "g.json", "-o", "height.wgsl", "--name", "height"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let module = std::fs::read_to_string(dir.join("height.wgsl")).unwrap();
    assert!(module.contains("fn height(p: vec2<f32>) -> f32"));
    assert!(module.contains("fn height_precise("));
    assert!(module.contains("fn height_grad("));
    assert!(
        !module.contains("@binding"),
        "a Perlin fBm needs no binding"
    );
    validate(&module);
    // The library call writes the same text.
    let graph = NoiseGraph::from_json(GRAPH).unwrap();
    let lib = noisegraph::export::wgsl::export_wgsl(
        &graph,
        &noisegraph::export::wgsl::WgslOptions::new("height"),
    )
    .unwrap();
    assert_eq!(lib.source, module);
    // Pasted into a user's compute shader that has its own `main`, `hash` and `params`.
    let user = format!(
        "{module}\n\
         struct Params {{ size: vec2<u32> }}\n\
         @group(0) @binding(0) var<uniform> params: Params;\n\
         @group(0) @binding(1) var<storage, read_write> out: array<f32>;\n\
         fn hash(x: u32) -> u32 {{ return x * 747796405u; }}\n\
         @compute @workgroup_size(8, 8)\n\
         fn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
             let p = vec2<f32>(id.xy) / vec2<f32>(params.size);\n\
             let g = height_grad(p);\n\
             out[id.y * params.size.x + id.x] = height(p) + g.d.x * 0.0 + f32(hash(id.x) & 1u) * 0.0;\n\
         }}\n"
    );
    validate(&user);

    // A node: the fBm's base.
    let out = run(
        &dir,
        &[
            "wgsl",
            "g.json",
            "-o",
            "base.wgsl",
            "--name",
            "base",
            "--node",
            "b",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    validate(&std::fs::read_to_string(dir.join("base.wgsl")).unwrap());
}

#[test]
fn wgsl_writes_the_table_a_large_family_reads() {
    let dir = workdir("wgsl_tables");
    // Wavelet's default 128 x 128 tile is too large to inline as a constant.
    let graph_text = r#"{"seed": 2, "output": "w", "nodes": [
        {"id": "w", "type": "wavelet", "frequency": 4.0}]}"#;
    std::fs::write(dir.join("w.json"), graph_text).unwrap();
    let out = run(
        &dir,
        &[
            "wgsl",
            "w.json",
            "-o",
            "w.wgsl",
            "--name",
            "ripple",
            "--table-binding",
            "2,5",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("@group(2) @binding(5)"),
        "{}",
        stderr(&out)
    );
    let graph = NoiseGraph::from_json(graph_text).unwrap();
    let mut options = noisegraph::export::wgsl::WgslOptions::new("ripple");
    options.table_binding = [2, 5];
    let lib = noisegraph::export::wgsl::export_wgsl(&graph, &options).unwrap();
    let module = std::fs::read_to_string(dir.join("w.wgsl")).unwrap();
    assert_eq!(module, lib.source);
    validate(&module);
    let tables = lib
        .tables
        .expect("a 128 x 128 tile goes to the storage binding");
    assert!(module.contains("@group(2) @binding(5) var<storage, read> ripple_tables: array<f32>;"));
    let bytes = std::fs::read(dir.join("w.tables.bin")).unwrap();
    let data: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(data, tables.data);
}

#[test]
fn wgsl_refuses_bad_names_and_nodes() {
    let dir = workdir("wgsl_bad");
    for (args, says) in [
        (
            vec!["wgsl", "g.json", "-o", "x.wgsl", "--name", "loop"],
            "name 'loop'",
        ),
        (
            vec!["wgsl", "g.json", "-o", "x.wgsl", "--name", "9a"],
            "name '9a'",
        ),
        (
            vec!["wgsl", "g.json", "-o", "x.wgsl", "--node", "nope"],
            "nope",
        ),
        (
            vec!["wgsl", "g.json", "-o", "x.wgsl", "--table-binding", "1"],
            "--table-binding",
        ),
    ] {
        let out = run(&dir, &args);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(says),
            "'{says}' not in {}",
            stderr(&out)
        );
        assert!(!dir.join("x.wgsl").exists());
    }
}

fn validate(source: &str) {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{}", e.emit_to_string(source)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{e:?}"));
}

/// `noisegraph sample` at the pixel positions of a `noisegraph bake` (`origin + (x * extent)
/// / size`, computed in f64) writes the bake's pixels bit for bit on the CPU path, values and
/// gradients, for a fractal, a warp (simplex, fused), OpenSimplex2 and cellular graphs, at
/// origin 0, near 1e6 and at the farthest of a few origins toward the limit of lattice
/// positions (2^40 cells) that the graph accepts.
#[test]
fn sample_at_a_cli_bakes_pixel_positions_writes_its_pixels_bit_for_bit() {
    const WARPED: &str = r#"{"seed": 21, "output": "w", "nodes": [
        {"id": "s", "type": "simplex", "frequency": 2.0},
        {"id": "f", "type": "ridged", "source": "s", "octaves": 4},
        {"id": "p", "type": "perlin", "frequency": 1.5, "offset": [5.2, 1.3]},
        {"id": "q", "type": "fbm", "source": "p", "octaves": 3},
        {"id": "w", "type": "warp", "source": "f", "displace": ["q", "q"], "amplitude": 0.3}]}"#;
    const OPENSIMPLEX2: &str = r#"{"seed": 8, "output": "f", "nodes": [
        {"id": "s", "type": "opensimplex2", "frequency": 2.5},
        {"id": "f", "type": "fbm", "source": "s", "octaves": 5}]}"#;
    const CELLULAR: &str = r#"{"seed": 3, "output": "c", "nodes": [
        {"id": "c", "type": "cellular", "frequency": 6.0, "return": "f2_minus_f1"}]}"#;
    let (w, h) = (33u32, 17u32);
    let extent = [0.731, 0.517];
    for (label, graph) in [
        ("fbm", GRAPH),
        ("warped", WARPED),
        ("opensimplex2", OPENSIMPLEX2),
        ("cellular", CELLULAR),
    ] {
        // The farthest origin the graph's limits accept (the bound of lattice positions,
        // 2^40 cells of its highest octave, or of a coordinate, 2^40).
        let plan = noisegraph::Plan::new(&NoiseGraph::from_json(graph).unwrap(), None).unwrap();
        let at = |o: f64| [o + 0.5, -o * 0.5 - 0.25];
        let far = [1.0e12, 4.0e11, 1.0e11, 4.0e10, 1.0e10, 4.0e9, 1.0e9]
            .into_iter()
            .map(at)
            .find(|&o| {
                let view = View::image(w, h)
                    .with_origin([o[0], o[1], 0.0])
                    .with_extent([extent[0], extent[1], 1.0]);
                plan.check_view(&view).is_ok()
            })
            .expect("a far origin the graph accepts");
        for origin in [[0.0, 0.0], [1.0e6 + 0.371, -1.0e6 + 0.813], far] {
            let dir = workdir(&format!("bake_pixels_{label}_{}", origin[0] as u64));
            std::fs::write(dir.join("g.json"), graph).unwrap();
            let mut pts = Vec::new();
            for y in 0..h {
                for x in 0..w {
                    pts.push(origin[0] + (x as f64 * extent[0]) / w as f64);
                    pts.push(origin[1] + (y as f64 * extent[1]) / h as f64);
                }
            }
            write_points_f64(&dir.join("pts.npy"), &pts, 2);
            let size = format!("{w}x{h}");
            let at = format!("{},{}", origin[0], origin[1]);
            let ext = format!("{},{}", extent[0], extent[1]);
            for gradient in [false, true] {
                let mut bake = vec![
                    "bake",
                    "g.json",
                    "-o",
                    "b.npy",
                    "--size",
                    &size,
                    "--origin",
                    &at,
                    "--extent",
                    &ext,
                    "--backend",
                    "cpu",
                ];
                let mut sample = vec![
                    "sample",
                    "g.json",
                    "--points",
                    "pts.npy",
                    "-o",
                    "v.npy",
                    "--backend",
                    "cpu",
                ];
                if gradient {
                    bake.extend(["--output", "gradient"]);
                    sample.push("--gradient");
                }
                let out = run(&dir, &bake);
                assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
                let out = run(&dir, &sample);
                assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
                let (_, baked) = read_f32(&dir.join("b.npy"));
                let (_, sampled) = read_f32(&dir.join("v.npy"));
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(
                    bits(&sampled),
                    bits(&baked),
                    "{label} at {origin:?}, gradient {gradient}"
                );
            }
        }
    }
}
