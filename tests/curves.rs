//! The `curve` remap of issue 31: GPU against CPU within the parity tolerance (values and
//! gradients, images and a volume), the exact gradient against central differences,
//! continuity scans on both paths (through the points and past the ends), the identity (a
//! curve through points on y = x is its source, bit for bit on the CPU and the GPU, gradient
//! included), `noisegraph sample` (with `--gradient`) against the grid, and bad `points`
//! refused with exit code 2 naming the node and the field. The catalog
//! (`tests/common/catalog.rs`) runs it through point queries and the shader exports.

mod common;
use common::gradient_check::{assert_second_order, cpu_gradient, cpu_value, gradient_scale};

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use noisegraph::graph::{gradient_plan, NodeKind};
use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::query::PointQuery;
use noisegraph::twin::lib::curve::curve_grad;
use noisegraph::twin::lib::grad::NoiseGrad;
use noisegraph::{GradientField, NoiseGraph, Plan, RunOptions, View};
use serde_json::{json, Value};

/// Sources (fBm of Perlin in [-1, 1], simplex, a 3D simplex), then `out`.
fn graph(seed: u32, out: Value) -> NoiseGraph {
    let mut out = out;
    out["id"] = json!("out");
    NoiseGraph::from_value(&json!({ "seed": seed, "output": "out", "nodes": [
        { "id": "p", "type": "perlin", "frequency": 3 },
        { "id": "a", "type": "fbm", "source": "p", "octaves": 3 },
        { "id": "b", "type": "simplex", "frequency": 2.5, "seed_offset": 3 },
        { "id": "v", "type": "simplex", "dims": 3, "frequency": 2.0, "seed_offset": 7 },
        out
    ]}))
    .unwrap_or_else(|e| panic!("test graph: {e}"))
}

/// How much channel `c` of pixel `i` of a gradient field moves over the GPU's position
/// rounding: the sources here are simplex, whose GPU kernels add `pixel x step` in f32 to the
/// origin's exact split where the CPU splits each pixel's exact position (README.md, "Point
/// queries"), one f32 rounding of the offset apart, about 1e-5 of a pixel on these views. Near
/// a curve's extremum the gradient turns fast (the curve's second derivative times the
/// source's gradient), so that rounding moves it by more than the plain tolerance: this
/// allows the change over 1e-4 of a pixel, from the field's own differences to its
/// neighbours (x and y).
fn position_slack(field: &[[f32; 4]], [w, h]: [u32; 2], i: usize, c: usize) -> f32 {
    let (w, h) = (w as usize, h as usize);
    let (x, y) = (i % w, (i / w) % h);
    let at = |dx: isize, dy: isize| {
        let xx = (x as isize + dx).clamp(0, w as isize - 1) as usize;
        let yy = (y as isize + dy).clamp(0, h as isize - 1) as usize;
        field[i - x - y * w + xx + yy * w][c]
    };
    let change = (at(1, 0) - at(-1, 0))
        .abs()
        .max((at(0, 1) - at(0, -1)).abs());
    change * 1e-4
}

/// Curves in both modes: points inside the sources' range, a flat stretch, points past it
/// (so samples fall on both extensions), the fewest points (a line), the most.
fn cases() -> Vec<(&'static str, Value)> {
    let many: Vec<[f64; 2]> = (0..32)
        .map(|i| {
            let x = -0.8 + 1.6 * f64::from(i) / 31.0;
            [x, (3.0 * x).sin() * 0.7]
        })
        .collect();
    vec![
        (
            "monotone terrain",
            json!({ "type": "curve", "source": "a",
                    "points": [[-0.6, -0.9], [-0.1, -0.2], [0.05, 0.3], [0.3, 0.32], [0.6, 1.0]] }),
        ),
        (
            "monotone with a flat stretch and a fall",
            json!({ "type": "curve", "source": "b",
                    "points": [[-0.5, 0.2], [-0.2, 0.2], [0.1, 0.8], [0.5, -0.4]] }),
        ),
        (
            "free",
            json!({ "type": "curve", "source": "a", "mode": "free",
                    "points": [[-0.7, 0.1], [-0.2, -0.7], [0.2, 0.6], [0.7, -0.2]] }),
        ),
        (
            "free, two points",
            json!({ "type": "curve", "source": "b", "mode": "free",
                    "points": [[-0.25, 0.5], [0.75, -1.5]] }),
        ),
        (
            "free, 32 points",
            json!({ "type": "curve", "source": "b", "mode": "free", "points": many }),
        ),
    ]
}

/// Values within 1e-4 on every parity size and seed (stage by stage), a 3D volume too;
/// gradients within 1e-4 of the gradient scale on every pixel.
#[test]
fn gpu_matches_the_cpu_twin() {
    let Some(ctx) = common::gpu() else { return };
    let mut all = cases();
    all.push((
        "monotone on a volume",
        json!({ "type": "curve", "source": "v",
                "points": [[-0.5, -1.0], [0.0, 0.1], [0.4, 0.2], [0.8, 0.9]] }),
    ));
    for (label, node) in all {
        let volume = label.contains("volume");
        for seed in common::PARITY_SEEDS {
            let g = graph(seed, node.clone());
            if volume {
                let view = View::volume(33, 17, 3).with_origin([0.4, -1.1, 0.2]);
                common::assert_parity_view(&ctx, &g, &view, &format!("{label} seed {seed}"));
            } else {
                for [w, h] in common::PARITY_SIZES {
                    let view = View::image(w, h).with_origin([-1.3, 0.7, 0.0]);
                    common::assert_parity_view(&ctx, &g, &view, &format!("{label} seed {seed}"));
                }
            }
            let view = if volume {
                View::volume(21, 13, 2).with_origin([2.1, -0.4, 0.3])
            } else {
                View::image(129, 67).with_origin([2.1, -0.4, 0.0])
            };
            let plan = gradient_plan(&g, None).expect("gradient plan");
            let gpu = ctx
                .run_gradient(&plan, &view, &RunOptions::default())
                .expect("gpu gradient");
            let cpu = cpu_gradient(&g, &view);
            let scale = gradient_scale(&cpu);
            let [w, h, _] = view.size;
            for (i, (a, b)) in gpu.data.iter().zip(&cpu.data).enumerate() {
                for c in 0..4 {
                    let limit = if c == 0 {
                        PARITY_TOLERANCE
                    } else {
                        PARITY_TOLERANCE * scale.max(b[c].abs())
                            + position_slack(&cpu.data, [w, h], i, c)
                    };
                    let d = (a[c] - b[c]).abs();
                    assert!(
                        d <= limit,
                        "{label} seed {seed}: pixel {i} channel {c}: GPU {} CPU {}",
                        a[c],
                        b[c]
                    );
                }
            }
        }
    }
}

/// The exact gradient against central differences: converging at second order (halving the
/// step divides the median error by more than 3) and under 1% of the typical gradient.
#[test]
fn gradients_match_central_differences() {
    let view = View::image(40, 36)
        .with_origin([0.31, -0.73, 0.0])
        .with_extent([0.5, 0.45, 1.0]);
    let h = 0.002;
    for (label, node) in cases() {
        assert_second_order(label, &graph(11, node), &view, h);
    }
}

/// The largest first difference of a fine scan along x relative to what the analytic slope
/// allows: |v[i + 1] - v[i]| / (h * max(|slope| at i, i + 1) * 1.5 + 1e-5). Above 1 only
/// where the field jumps.
fn worst_step(graph: &NoiseGraph, gpu: bool) -> f64 {
    let n = 4096u32;
    let view = View::image(n, 1)
        .with_origin([1.0e3 + 0.37, -2.0e3 + 0.61, 0.0])
        .with_extent([2.0, 1e-3, 1.0]);
    let h = 2.0 / f64::from(n);
    let values = if gpu {
        let ctx = common::gpu().expect("gpu");
        let plan = Plan::new(graph, None).expect("plan");
        ctx.run(&plan, &view, &RunOptions::default())
            .expect("gpu")
            .data
    } else {
        cpu_value(graph, &view)
    };
    let slope = cpu_gradient(graph, &view);
    let mut worst = 0.0f64;
    for i in 0..n as usize - 1 {
        let step = (f64::from(values[i + 1]) - f64::from(values[i])).abs();
        let s = f64::from(slope.data[i][1])
            .abs()
            .max(f64::from(slope.data[i + 1][1]).abs());
        worst = worst.max(step / (h * s * 1.5 + 1e-5));
    }
    worst
}

/// No jump on either path (a fine scan crossing points and both extensions), and the pieces
/// meet: on both sides of every point (the ends included, where the extensions start) the
/// values agree within 1e-5 and the slopes within 1e-4, relative to the slope.
#[test]
fn curves_are_continuous() {
    let gpu = common::gpu().is_some();
    for (label, node) in cases() {
        let g = graph(29, node.clone());
        let cpu = worst_step(&g, false);
        eprintln!("{label}: worst step ratio {cpu:.3} (CPU)");
        assert!(cpu <= 1.0, "{label}: a jump on the CPU path ({cpu})");
        if gpu {
            let on_gpu = worst_step(&g, true);
            assert!(on_gpu <= 1.0, "{label}: a jump on the GPU path ({on_gpu})");
        }
        // The pieces meet at every point: the twin's value and slope (as the gradient of an
        // input of slope 1) one ulp below and above x; the curve passes through the point.
        let Some(NodeKind::Pointwise(p)) = g.node("out").map(|n| &n.kind) else {
            panic!("{label}: not a point-wise node")
        };
        let (table, count) = p.op.curve_table().expect("a curve");
        let pieces = &table[..2 * count as usize];
        let points: Vec<[f64; 2]> = serde_json::from_value(node["points"].clone()).unwrap();
        let at = |a: f32| {
            let r = curve_grad(
                NoiseGrad {
                    value: a,
                    d: [1.0, 0.0, 0.0, 0.0],
                },
                pieces,
            );
            (r.value, r.d[0])
        };
        for (i, point) in points.iter().enumerate() {
            let x = point[0] as f32;
            let ((vb, sb), (va, sa)) = (at(x.next_down()), at(x.next_up()));
            let scale = 1.0 + sb.abs().max(sa.abs());
            assert!(
                (vb - va).abs() <= 1e-5 * scale,
                "{label}: point {i}: {vb} below, {va} above"
            );
            assert!(
                (sb - sa).abs() <= 1e-4 * scale,
                "{label}: point {i}: slope {sb} below, {sa} above"
            );
            assert!(
                (f64::from(at(x).0) - point[1]).abs() <= 1e-5 * (1.0 + point[1].abs()),
                "{label}: point {i}: the curve gives {}, not {}",
                at(x).0,
                point[1]
            );
        }
    }
}

/// A curve through points on y = x, in either mode, is its source: bit for bit on the CPU and
/// on the GPU, values and gradients, and in point queries (every piece reduces to 1 * a + 0
/// exactly; only a -0 may come out +0).
#[test]
fn identity_points_give_the_source() {
    let view = View::image(97, 61).with_origin([-3.3, 1.9, 0.0]);
    let source = graph(7, json!({ "type": "scale_bias", "source": "a" }));
    for (mode, points) in [
        ("monotone", json!([[-1.0, -1.0], [1.0, 1.0]])),
        (
            "monotone",
            json!([
                [-2.0, -2.0],
                [-0.3, -0.3],
                [0.1, 0.1],
                [0.7, 0.7],
                [3.0, 3.0]
            ]),
        ),
        (
            "free",
            json!([[-0.45, -0.45], [-0.3, -0.3], [0.125, 0.125], [0.2, 0.2]]),
        ),
    ] {
        let label = format!("{mode} {points}");
        let curve = graph(
            7,
            json!({ "type": "curve", "source": "a", "mode": mode, "points": points }),
        );
        let same = |a: &[f32], b: &[f32], what: &str| {
            assert_eq!(a.len(), b.len());
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                // m a + b with m = 1, b = 0 gives +0 for a = -0: the one bit that may differ.
                let same = x.to_bits() == y.to_bits() || (*x == 0.0 && *y == 0.0);
                assert!(same, "{label}: {what}: sample {i}: {x} against {y}");
            }
        };
        same(
            &cpu_value(&curve, &view),
            &cpu_value(&source, &view),
            "CPU value",
        );
        let flat = |g: &GradientField| g.data.iter().flatten().copied().collect::<Vec<f32>>();
        same(
            &flat(&cpu_gradient(&curve, &view)),
            &flat(&cpu_gradient(&source, &view)),
            "CPU gradient",
        );
        if let (Some(a), Some(b)) = (
            common::gpu_field(&curve, &view),
            common::gpu_field(&source, &view),
        ) {
            same(&a.data, &b.data, "GPU value");
        }
        let coords: Vec<f64> = (0..200)
            .flat_map(|i| [f64::from(i) * 0.037 - 3.0, f64::from(i) * -0.021 + 1.0])
            .collect();
        let points_of = |g: &NoiseGraph| {
            let q = PointQuery::new(g, None).expect("query");
            (
                q.values(&coords).expect("values"),
                q.gradients(&coords).expect("gradients"),
            )
        };
        let ((cv, cg), (sv, sg)) = (points_of(&curve), points_of(&source));
        same(&cv, &sv, "point values");
        same(&cg, &sg, "point gradients");
    }
}

fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("curves")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn noisegraph(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_noisegraph"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

/// A float64 `.npy` of shape (n, 2).
fn write_points(path: &Path, coords: &[f64]) {
    let mut dict = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, 2), }}",
        coords.len() / 2
    );
    let total = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(total.div_ceil(64) * 64 - total));
    dict.push('\n');
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    bytes.extend_from_slice(dict.as_bytes());
    bytes.extend(coords.iter().flat_map(|v| v.to_le_bytes()));
    std::fs::write(path, bytes).unwrap();
}

/// The float32 data of a `.npy`.
fn read_f32(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap();
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    bytes[10 + len..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// `noisegraph sample --gradient` at a bake's pixel positions gives the bake's values and
/// gradients (within 1e-5: a point's position is computed another way than a pixel's).
#[test]
fn sample_gives_the_grid_values_and_gradients() {
    let dir = workdir("sample");
    let (label, node) = cases().remove(0);
    let mut curve = node;
    curve["id"] = json!("out");
    let text = json!({ "seed": 3, "output": "out", "nodes": [
        { "id": "p", "type": "perlin", "frequency": 3 },
        { "id": "a", "type": "fbm", "source": "p", "octaves": 3 }, curve ]});
    std::fs::write(dir.join("g.json"), text.to_string()).unwrap();
    let g = NoiseGraph::from_value(&text).unwrap();
    let view = View::image(24, 16).with_origin([0.25, -0.5, 0.0]);
    let grid = cpu_gradient(&g, &view);
    let mut coords = Vec::new();
    for y in 0..16 {
        for x in 0..24 {
            coords.push(0.25 + f64::from(x) / 24.0);
            coords.push(-0.5 + f64::from(y) / 16.0);
        }
    }
    write_points(&dir.join("pts.npy"), &coords);
    for backend in ["cpu", "auto"] {
        let out = noisegraph(
            &dir,
            &[
                "sample",
                "g.json",
                "--points",
                "pts.npy",
                "-o",
                "out.npy",
                "--gradient",
                "--backend",
                backend,
            ],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let got = read_f32(&dir.join("out.npy"));
        assert_eq!(got.len(), 3 * grid.data.len());
        for (i, (row, px)) in got.chunks_exact(3).zip(&grid.data).enumerate() {
            for c in 0..3 {
                assert!(
                    (row[c] - px[c]).abs() <= 1e-4 * (1.0 + px[c].abs()),
                    "{label} {backend}: point {i} channel {c}: {} against the bake's {}",
                    row[c],
                    px[c]
                );
            }
        }
    }
}

/// Bad `points`: exit code 2, the message naming the node, the field and what is wrong
/// (the index of the point, the limit), and no output.
#[test]
fn bad_points_exit_2_naming_the_node_and_field() {
    let dir = workdir("bad");
    let too_many: Vec<[f64; 2]> = (0..33).map(|i| [f64::from(i), 0.0]).collect();
    for (name, points, needle) in [
        (
            "unsorted",
            json!([[0.0, 0.0], [0.5, 1.0], [0.4, 0.2]]),
            "point 2",
        ),
        ("repeated x", json!([[0.0, 0.0], [0.0, 1.0]]), "point 1"),
        ("too many", json!(too_many), "at most 32"),
        ("too few", json!([[0.0, 0.0]]), "at least 2"),
        ("none", json!([]), "at least 2"),
        ("not pairs", json!([[0.0, 0.0], [1.0]]), "point 1"),
        ("not a list", json!("0,0,1,1"), "list of [x, y]"),
        ("too large", json!([[0.0, 0.0], [1.0, 1e9]]), "point 1"),
        ("too close", json!([[1000.0, 0.0], [1000.001, 1.0]]), "gap"),
    ] {
        let text = json!({ "seed": 1, "output": "c", "nodes": [
            { "id": "p", "type": "perlin" },
            { "id": "c", "type": "curve", "source": "p", "points": points } ]});
        std::fs::write(dir.join("g.json"), text.to_string()).unwrap();
        check_refused(&dir, name, needle);
    }
    // Non-finite numbers as some writers emit them (bare NaN, Infinity).
    for (name, points, needle) in [
        ("NaN", "[[0, 0], [NaN, 1]]", "point 1: x"),
        ("Infinity", "[[0, 0], [1, -Infinity]]", "point 1: y"),
    ] {
        let text = format!(
            r#"{{"seed": 1, "output": "c", "nodes": [{{"id": "p", "type": "perlin"}},
                {{"id": "c", "type": "curve", "source": "p", "points": {points}}}]}}"#
        );
        std::fs::write(dir.join("g.json"), text).unwrap();
        check_refused(&dir, name, needle);
    }
    let text = json!({ "seed": 1, "output": "c", "nodes": [
        { "id": "p", "type": "perlin" },
        { "id": "c", "type": "curve", "source": "p", "mode": "linear" } ]});
    std::fs::write(dir.join("g.json"), text.to_string()).unwrap();
    check_refused(&dir, "mode", "monotone, free");
}

fn check_refused(dir: &Path, name: &str, needle: &str) {
    let _ = std::fs::remove_file(dir.join("x.png"));
    let out = noisegraph(dir, &["bake", "g.json", "-o", "x.png", "--size", "8x8"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: {err}");
    let field = if name == "mode" { "mode" } else { "points" };
    assert!(
        err.contains("'c'") && err.contains(field) && err.contains(needle),
        "{name}: {err}"
    );
    assert!(!dir.join("x.png").exists(), "{name}: an output was written");
}
