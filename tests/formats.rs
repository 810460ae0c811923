//! Every output format, read back by independent readers: PNG and TIFF by Pillow (libpng,
//! libtiff; 16-bit colour PNGs by pypng, as Pillow narrows them), EXR by the OpenEXR library,
//! through `tests/readers/decode.py`. Each decoded file
//! must hold exactly the levels or values the tool meant: the `.npy` bake of the same view,
//! mapped as the format maps it. Also: tiles, `--stitch` and `--resume` in the new formats,
//! and the combinations that cannot work exit 2 naming the flag and write nothing.
//!
//! The readers need a Python with Pillow, pypng, NumPy and OpenEXR: `NOISEGRAPH_PYTHON` names it
//! (CI makes a virtual environment, see `.ci/run`), else `python3` is tried. Without one the
//! reader checks are skipped with a note, unless `NOISEGRAPH_REQUIRE_READERS=1` (set by CI),
//! which makes them fail.

use std::path::{Path, PathBuf};
use std::process::Command;

use noisegraph::io::{gray16, gray8, normalize, read_npy, Ramp};

const GRAPH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/terrain.json");
/// Not a multiple of any block, strip or band height.
const SIZE: &str = "203x141";

fn tool() -> Command {
    Command::new(env!("CARGO_BIN_EXE_noisegraph"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("formats")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `noisegraph bake` with `args`; returns the exit code and stderr.
fn bake(args: &[&str]) -> (Option<i32>, String) {
    let out = tool()
        .arg("bake")
        .args(args)
        .args(["--backend", "cpu"])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn bake_ok(args: &[&str]) {
    let (code, stderr) = bake(args);
    assert_eq!(code, Some(0), "bake {args:?}: {stderr}");
}

/// The Python that has the readers, or `None` (skipped) when there is none.
fn python() -> Option<PathBuf> {
    let python = std::env::var_os("NOISEGRAPH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"));
    let found = Command::new(&python)
        .args(["-c", "import PIL, png, numpy, OpenEXR"])
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some(python);
    }
    assert!(
        std::env::var("NOISEGRAPH_REQUIRE_READERS").as_deref() != Ok("1"),
        "NOISEGRAPH_REQUIRE_READERS=1 but {} lacks Pillow, pypng, NumPy or OpenEXR",
        python.display()
    );
    eprintln!("no Python with Pillow, pypng, NumPy and OpenEXR: reader checks skipped");
    None
}

/// A file decoded by the independent readers: its samples and what the reader said.
struct Decoded {
    data: Vec<f32>,
    shape: Vec<usize>,
    info: serde_json::Value,
}

fn decode(python: &Path, file: &Path) -> Decoded {
    let out = file.with_extension("decoded.npy");
    let run = Command::new(python)
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/readers/decode.py"
        ))
        .arg(file)
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "decoding {}: {}",
        file.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let shape = info["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect();
    Decoded {
        data: read_npy_any(&out),
        shape,
        info,
    }
}

/// The float32 samples of a `.npy` of any shape, in C order.
fn read_npy_any(path: &Path) -> Vec<f32> {
    let bytes = std::fs::read(path).unwrap();
    let header_len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    bytes[10 + header_len..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The reference bake: the `.npy` of the view and its min..max (the `--normalize minmax`
/// range every mapped format below uses).
fn reference(dir: &Path, size: &str) -> (Vec<f32>, (f32, f32)) {
    let npy = dir.join("ref.npy");
    bake_ok(&[GRAPH, "-o", npy.to_str().unwrap(), "--size", size]);
    let data = read_npy(&npy).unwrap().data;
    let lo = data.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = data.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    (data, (lo, hi))
}

#[test]
fn png_levels_decoded_by_libpng_are_exactly_the_mapped_values() {
    let dir = scratch("png");
    let (values, range) = reference(&dir, SIZE);
    let Some(python) = python() else { return };
    for level in ["fast", "default", "best"] {
        for (format, mode) in [("png", "L"), ("png16", "I;16")] {
            let file = dir.join(format!("{format}_{level}.png"));
            bake_ok(&[
                GRAPH,
                "-o",
                file.to_str().unwrap(),
                "--size",
                SIZE,
                "--format",
                format,
                "--normalize",
                "minmax",
                "--png-compression",
                level,
            ]);
            let decoded = decode(&python, &file);
            assert_eq!(decoded.info["mode"], mode, "{format} {level}");
            assert_eq!(decoded.shape, [141, 203]);
            let expected: Vec<f32> = values
                .iter()
                .map(|&v| {
                    if format == "png" {
                        f32::from(gray8(v, range))
                    } else {
                        f32::from(gray16(v, range))
                    }
                })
                .collect();
            assert_eq!(decoded.data, expected, "{format} {level}");
        }
    }
}

#[test]
fn png_bands_deflated_in_parallel_join_into_one_valid_stream() {
    // Large enough for several bands, each cut into pieces deflated on their own.
    let dir = scratch("png_bands");
    let size = "1500x3000";
    let (values, range) = reference(&dir, size);
    let Some(python) = python() else { return };
    let file = dir.join("big.png");
    bake_ok(&[
        GRAPH,
        "-o",
        file.to_str().unwrap(),
        "--size",
        size,
        "--format",
        "png16",
        "--normalize",
        "minmax",
    ]);
    let decoded = decode(&python, &file);
    let expected: Vec<f32> = values
        .iter()
        .map(|&v| f32::from(gray16(v, range)))
        .collect();
    assert_eq!(decoded.data.len(), expected.len());
    assert!(decoded.data == expected, "16-bit levels differ");
    // zlib checks the stream's Adler-32 and that nothing follows its end.
    let check = Command::new(&python)
        .args([
            "-c",
            "import sys, zlib, struct\n\
             b = open(sys.argv[1], 'rb').read(); i = 8; idat = b''\n\
             while i < len(b):\n\
             \x20   n = struct.unpack('>I', b[i:i+4])[0]; t = b[i+4:i+8]\n\
             \x20   idat += b[i+8:i+8+n] if t == b'IDAT' else b''; i += 12 + n\n\
             d = zlib.decompressobj(); raw = d.decompress(idat)\n\
             assert d.eof and not d.unused_data, 'stream not ended exactly'\n\
             print(len(raw))",
        ])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&check.stdout).trim(),
        (3000 * (1 + 1500 * 2)).to_string()
    );
}

#[test]
fn exr_is_one_channel_y_read_by_openexr_in_every_compression() {
    let dir = scratch("exr");
    let (values, _) = reference(&dir, SIZE);
    let Some(python) = python() else { return };
    for compression in ["zip", "piz", "rle", "none"] {
        for half in [false, true] {
            let file = dir.join(format!("{compression}_{half}.exr"));
            let mut args = vec![
                GRAPH,
                "-o",
                file.to_str().unwrap(),
                "--size",
                SIZE,
                "--exr-compression",
                compression,
            ];
            if half {
                args.push("--exr-half");
            }
            bake_ok(&args);
            let decoded = decode(&python, &file);
            assert_eq!(decoded.info["channels"], serde_json::json!(["Y"]));
            assert_eq!(
                decoded.info["dtype"],
                serde_json::json!([if half { "float16" } else { "float32" }])
            );
            let named = decoded.info["compression"].as_str().unwrap().to_lowercase();
            let expected_name = match compression {
                "none" => "no_compression",
                other => other,
            };
            assert!(named.contains(expected_name), "{named} for {compression}");
            let expected: Vec<f32> = if half {
                values
                    .iter()
                    .map(|&v| exr::prelude::f16::from_f32(v).to_f32())
                    .collect()
            } else {
                values.clone()
            };
            assert_eq!(decoded.data, expected, "{compression} half={half}");
        }
    }
}

#[test]
fn gradient_exr_has_named_channels_read_by_openexr() {
    let dir = scratch("exr_gradient");
    let Some(python) = python() else { return };
    let npy = dir.join("g.npy");
    let exr = dir.join("g.exr");
    for out in [&npy, &exr] {
        bake_ok(&[
            GRAPH,
            "-o",
            out.to_str().unwrap(),
            "--size",
            SIZE,
            "--field",
            "gradient",
        ]);
    }
    let decoded = decode(&python, &exr);
    // OpenEXR lists channels sorted by name, as the file stores them.
    assert_eq!(
        decoded.info["channels"],
        serde_json::json!(["gradient.x", "gradient.y", "value"])
    );
    let reference = read_npy_any(&npy);
    let reordered: Vec<f32> = reference
        .chunks_exact(3)
        .flat_map(|p| [p[1], p[2], p[0]])
        .collect();
    assert_eq!(decoded.data, reordered);
}

#[test]
fn tiff_raw_and_ramp_outputs_hold_the_values_meant() {
    let dir = scratch("tif_raw_ramp");
    let (values, range) = reference(&dir, SIZE);
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let minmax = ["--normalize", "minmax"];
    bake_ok(&[GRAPH, "-o", &out("h.tif"), "--size", SIZE]);
    bake_ok(&[GRAPH, "-o", &out("h.r32"), "--size", SIZE]);
    bake_ok(&[&[GRAPH, "-o", &out("h.r16"), "--size", SIZE][..], &minmax].concat());
    bake_ok(
        &[
            &[
                GRAPH,
                "-o",
                &out("h16.png"),
                "--format",
                "png16",
                "--size",
                SIZE,
            ][..],
            &minmax,
        ]
        .concat(),
    );
    bake_ok(
        &[
            &[
                GRAPH,
                "-o",
                &out("ramp.png"),
                "--ramp",
                "magma",
                "--size",
                SIZE,
            ][..],
            &minmax,
        ]
        .concat(),
    );

    // .r32: the .npy's values, little-endian, rows top to bottom, nothing else.
    let r32 = std::fs::read(dir.join("h.r32")).unwrap();
    let r32: Vec<f32> = r32
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(r32, values);
    // .r16: the 16-bit PNG's levels, little-endian.
    let r16 = std::fs::read(dir.join("h.r16")).unwrap();
    let r16: Vec<u16> = r16
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let expected16: Vec<u16> = values.iter().map(|&v| gray16(v, range)).collect();
    assert_eq!(r16, expected16);

    let Some(python) = python() else { return };
    let png16 = decode(&python, &dir.join("h16.png"));
    assert_eq!(
        png16.data,
        r16.iter().map(|&v| f32::from(v)).collect::<Vec<_>>(),
        ".r16 and the 16-bit PNG hold the same levels"
    );
    let tif = decode(&python, &dir.join("h.tif"));
    assert_eq!(tif.info["mode"], "F");
    assert_eq!(tif.info["compression"], "tiff_adobe_deflate");
    assert_eq!(tif.shape, [141, 203]);
    assert_eq!(tif.data, values);
    let ramp = decode(&python, &dir.join("ramp.png"));
    assert_eq!(ramp.info["mode"], "RGB");
    let magma = Ramp::parse("magma").unwrap();
    let expected: Vec<f32> = values
        .iter()
        .flat_map(|&v| magma.rgb8(normalize(v, range)).map(f32::from))
        .collect();
    assert_eq!(ramp.data, expected);
}

#[test]
fn new_formats_tile_stitch_and_resume() {
    let dir = scratch("tiles");
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();
    bake_ok(&[GRAPH, "-o", &out("whole.r32"), "--size", "100x70"]);
    bake_ok(&[GRAPH, "-o", &out("whole.exr"), "--size", "100x70"]);
    for ext in ["r32", "exr", "tif", "r16"] {
        let stitched = out(&format!("stitched.{ext}"));
        bake_ok(&[
            GRAPH, "-o", &stitched, "--size", "100x70", "--tile", "32", "--stitch",
        ]);
        if ext == "r32" {
            assert_eq!(
                std::fs::read(&stitched).unwrap(),
                std::fs::read(out("whole.r32")).unwrap()
            );
        }
        let tiles = out(&format!("t.{ext}"));
        bake_ok(&[GRAPH, "-o", &tiles, "--size", "100x70", "--tile", "32"]);
        let tile = dir.join(format!("t_r02_c03.{ext}"));
        assert!(tile.is_file(), "{}", tile.display());
        let (code, stderr) = bake(&[
            GRAPH, "-o", &tiles, "--size", "100x70", "--tile", "32", "--resume",
        ]);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(
            stderr.contains("0 tile(s) of 12 written") || stderr.contains("12 skipped"),
            "{ext}: {stderr}"
        );
    }
    // The corner tile of a raw file is 100 - 96 = 4 by 70 - 64 = 6 pixels of f32.
    assert_eq!(
        std::fs::metadata(dir.join("t_r02_c03.r32")).unwrap().len(),
        4 * 6 * 4
    );
    let stitched = exr::prelude::read_all_flat_layers_from_file(out("stitched.exr")).unwrap();
    let whole = exr::prelude::read_all_flat_layers_from_file(out("whole.exr")).unwrap();
    assert_eq!(
        stitched.layer_data[0].channel_data.list[0].sample_data,
        whole.layer_data[0].channel_data.list[0].sample_data
    );
    // --resume re-bakes a raw file of the wrong length.
    std::fs::write(out("whole.r32"), b"short").unwrap();
    let (code, stderr) = bake(&[
        GRAPH,
        "-o",
        &out("whole.r32"),
        "--size",
        "100x70",
        "--resume",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stderr.contains("already there"), "{stderr}");
    assert_eq!(
        std::fs::metadata(out("whole.r32")).unwrap().len(),
        100 * 70 * 4
    );
}

#[test]
fn combinations_that_cannot_work_exit_2_naming_the_flag_and_write_nothing() {
    let dir = scratch("refusals");
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec![out("a.png"), "--exr-half".into()], "--exr-half"),
        (vec![out("a.npy"), "--exr-half".into()], "--exr-half"),
        (
            vec![out("a.exr"), "--ramp".into(), "magma".into()],
            "--ramp",
        ),
        (
            vec![out("a.r16"), "--ramp".into(), "magma".into()],
            "--ramp",
        ),
        (
            vec![
                out("a.png"),
                "--format".into(),
                "png16".into(),
                "--ramp".into(),
                "magma".into(),
            ],
            "--ramp",
        ),
        (vec![out("a.png"), "--ramp".into(), "nope".into()], "--ramp"),
        (
            vec![out("a.tif"), "--field".into(), "gradient".into()],
            "--field gradient",
        ),
        (
            vec![out("a.r16"), "--field".into(), "curl".into()],
            "--field curl",
        ),
        (
            vec![out("a.png"), "--png-compression".into(), "max".into()],
            "--png-compression",
        ),
        (
            vec![out("a.exr"), "--exr-compression".into(), "b44".into()],
            "--exr-compression",
        ),
    ];
    for (rest, flag) in cases {
        let mut args: Vec<String> =
            vec![GRAPH.into(), "--size".into(), "16x16".into(), "-o".into()];
        args.extend(rest);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, stderr) = bake(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(flag),
            "{args:?} should name {flag}: {stderr}"
        );
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "{args:?} wrote something"
        );
    }
}

#[test]
fn each_packed_channel_equals_that_nodes_own_file() {
    let dir = scratch("packing");
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let size = ["--size", SIZE];
    let packed = "r=terrain,g=base,b=normal.x";
    // PNG16 packing against each node's own 16-bit PNG and the normal map's.
    bake_ok(
        &[
            &[
                GRAPH,
                "-o",
                &out("packed.png"),
                "--format",
                "png16",
                "--channels",
                packed,
            ][..],
            &size,
        ]
        .concat(),
    );
    bake_ok(
        &[
            &[GRAPH, "-o", &out("terrain.png"), "--format", "png16"][..],
            &size,
        ]
        .concat(),
    );
    bake_ok(
        &[
            &[
                GRAPH,
                "-o",
                &out("base.png"),
                "--format",
                "png16",
                "--node",
                "base",
            ][..],
            &size,
        ]
        .concat(),
    );
    bake_ok(
        &[
            &[
                GRAPH,
                "-o",
                &out("normal.png"),
                "--format",
                "png16",
                "--normal-map",
                "analytic",
            ][..],
            &size,
        ]
        .concat(),
    );
    // EXR packing against the .npy of each node and of the normal map.
    bake_ok(
        &[
            &[
                GRAPH,
                "-o",
                &out("packed.exr"),
                "--channels",
                "r=terrain,g=base,a=normal.z",
            ][..],
            &size,
        ]
        .concat(),
    );
    bake_ok(&[&[GRAPH, "-o", &out("terrain.npy")][..], &size].concat());
    bake_ok(
        &[
            &[GRAPH, "-o", &out("base.npy"), "--node", "base"][..],
            &size,
        ]
        .concat(),
    );
    bake_ok(
        &[
            &[GRAPH, "-o", &out("normal.npy"), "--normal-map", "analytic"][..],
            &size,
        ]
        .concat(),
    );
    // The same through a manifest, with --normalize minmax and a range given for one channel.
    let manifest = dir.join("jobs.json");
    std::fs::write(
        &manifest,
        serde_json::json!([
            { "graph": GRAPH, "output": "m.png", "size": SIZE, "normalize": "minmax",
              "channels": "r=terrain,g=base:-2:2" },
            { "graph": GRAPH, "output": "mt.png", "size": SIZE, "normalize": "minmax" },
        ])
        .to_string(),
    )
    .unwrap();
    bake_ok(&[
        "--manifest",
        manifest.to_str().unwrap(),
        "-o",
        dir.to_str().unwrap(),
    ]);

    let npy = |name: &str| read_npy_any(&dir.join(name));
    let Some(python) = python() else { return };
    let channel = |d: &Decoded, c: usize| -> Vec<f32> {
        let n = d.shape[2];
        d.data.iter().skip(c).step_by(n).copied().collect()
    };
    let png = decode(&python, &dir.join("packed.png"));
    assert_eq!(png.info["mode"], "3 channels, 16-bit");
    assert_eq!(png.shape, [141, 203, 3]);
    let normal = decode(&python, &dir.join("normal.png"));
    assert_eq!(
        channel(&png, 0),
        decode(&python, &dir.join("terrain.png")).data
    );
    assert_eq!(
        channel(&png, 1),
        decode(&python, &dir.join("base.png")).data
    );
    assert_eq!(channel(&png, 2), channel(&normal, 0));

    let exr = decode(&python, &dir.join("packed.exr"));
    assert_eq!(exr.info["channels"], serde_json::json!(["A", "G", "R"]));
    assert_eq!(channel(&exr, 2), npy("terrain.npy"));
    assert_eq!(channel(&exr, 1), npy("base.npy"));
    let normals = npy("normal.npy");
    assert_eq!(
        channel(&exr, 0),
        normals
            .iter()
            .skip(2)
            .step_by(4)
            .copied()
            .collect::<Vec<_>>()
    );

    let m = decode(&python, &dir.join("m.png"));
    assert_eq!(m.info["mode"], "RGB");
    assert_eq!(channel(&m, 0), decode(&python, &dir.join("mt.png")).data);
    let base = npy("base.npy");
    let expected: Vec<f32> = base
        .iter()
        .map(|&v| f32::from(gray8(v, (-2.0, 2.0))))
        .collect();
    assert_eq!(channel(&m, 1), expected);
    assert!(
        channel(&m, 2).iter().all(|&v| v == 0.0),
        "a missing channel is 0"
    );
}

#[test]
fn packing_refusals_name_the_flag() {
    let dir = scratch("packing_refusals");
    let out = |name: &str| dir.join(name).to_str().unwrap().to_string();
    for (args, part) in [
        (
            vec![
                "-o".to_string(),
                out("a.tif"),
                "--channels".into(),
                "r=terrain,g=base".into(),
            ],
            "--channels",
        ),
        (
            vec![
                "-o".into(),
                out("a.png"),
                "--channels".into(),
                "r=nope".into(),
            ],
            "nope",
        ),
        (
            vec![
                "-o".into(),
                out("a.png"),
                "--channels".into(),
                "q=terrain".into(),
            ],
            "--channels",
        ),
        (
            vec![
                "-o".into(),
                out("a.png"),
                "--channels".into(),
                "r=terrain".into(),
                "--ramp".into(),
                "magma".into(),
            ],
            "--ramp",
        ),
        (
            vec![
                "-o".into(),
                out("a.exr"),
                "--channels".into(),
                "r=terrain".into(),
                "--field".into(),
                "gradient".into(),
            ],
            "--channels",
        ),
    ] {
        let mut all: Vec<String> = vec![GRAPH.into(), "--size".into(), "16x16".into()];
        all.extend(args);
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let (code, stderr) = bake(&all);
        assert_eq!(code, Some(2), "{all:?}: {stderr}");
        assert!(
            stderr.contains(part),
            "{all:?} should name {part}: {stderr}"
        );
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "{all:?} wrote something"
        );
    }
}
