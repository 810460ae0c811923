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
    // Every other combination of a flag with a format that cannot hold what it asks for.
    let s = |v: &[&str]| -> Vec<String> { v.iter().map(|a| a.to_string()).collect() };
    let more: Vec<(Vec<String>, &str)> = vec![
        (s(&["a.png", "--field", "gradient"]), "--field gradient"),
        (
            s(&["a.png", "--format", "png16", "--field", "curl"]),
            "--field curl",
        ),
        (s(&["a.r32", "--field", "gradient"]), "--field gradient"),
        (s(&["a.r16", "--field", "gradient"]), "--field gradient"),
        (s(&["a.tif", "--normal-map", "central"]), "--normal-map"),
        (s(&["a.r16", "--normal-map", "central"]), "--normal-map"),
        (s(&["a.r32", "--normal-map", "analytic"]), "--normal-map"),
        (s(&["a.tif", "--exr-half"]), "--exr-half"),
        (s(&["a.r16", "--exr-half"]), "--exr-half"),
        (s(&["a.r32", "--exr-half"]), "--exr-half"),
        (
            s(&["a.png", "--format", "png16", "--exr-half"]),
            "--exr-half",
        ),
        (
            s(&["a.png", "--normal-map", "central", "--exr-half"]),
            "--exr-half",
        ),
        (s(&["a.npy", "--ramp", "magma"]), "--ramp"),
        (s(&["a.tif", "--ramp", "terrain"]), "--ramp"),
        (s(&["a.r32", "--ramp", "grayscale"]), "--ramp"),
        (
            s(&["a.png", "--field", "gradient", "--ramp", "magma"]),
            "--field gradient",
        ),
        (
            s(&["a.png", "--normal-map", "central", "--ramp", "magma"]),
            "--ramp",
        ),
        (
            s(&["a.png", "--channels", "r=terrain,g=base", "--ramp", "magma"]),
            "--ramp",
        ),
        (
            s(&["a.png", "--channels", "r=terrain", "--exr-half"]),
            "--exr-half",
        ),
        (
            s(&["a.r16", "--channels", "r=terrain,g=base"]),
            "--channels",
        ),
        (
            s(&["a.exr", "--png-compression", "best"]),
            "--png-compression",
        ),
        (
            s(&["a.tif", "--png-compression", "fast"]),
            "--png-compression",
        ),
        (
            s(&["a.png", "--exr-compression", "piz"]),
            "--exr-compression",
        ),
        (
            s(&["a.npy", "--exr-compression", "zip"]),
            "--exr-compression",
        ),
    ];
    let cases = cases
        .into_iter()
        .chain(more.into_iter().map(|(mut rest, flag)| {
            rest[0] = out(&rest[0]);
            (rest, flag)
        }));
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
    // The same through a manifest's fields: in a batch the entry fails (naming the field),
    // writes nothing, and the others are baked; the batch exits 3.
    let manifests = dir.with_extension("manifests");
    let _ = std::fs::remove_dir_all(&manifests);
    std::fs::create_dir_all(&manifests).unwrap();
    let batch_out = manifests.join("out");
    for (entry, flag) in [
        (
            serde_json::json!({ "output": "a.tif", "field": "gradient" }),
            "--field gradient",
        ),
        (
            serde_json::json!({ "output": "a.r16", "channels": "r=terrain,g=base" }),
            "--channels",
        ),
        (
            serde_json::json!({ "output": "a.exr", "channels": "r=terrain", "field": "curl" }),
            "--channels",
        ),
        (
            serde_json::json!({ "output": "a.png", "format": "png16", "field": "curl" }),
            "--field curl",
        ),
    ] {
        let _ = std::fs::remove_dir_all(&batch_out);
        let mut bad = entry.clone();
        bad["graph"] = GRAPH.into();
        bad["size"] = "16x16".into();
        let good = serde_json::json!({ "graph": GRAPH, "output": "good.npy", "size": "16x16" });
        let manifest = manifests.join("jobs.json");
        std::fs::write(&manifest, serde_json::json!([good, bad]).to_string()).unwrap();
        let (code, stderr) = bake(&[
            "--manifest",
            manifest.to_str().unwrap(),
            "-o",
            batch_out.to_str().unwrap(),
        ]);
        assert_eq!(code, Some(3), "{entry}: {stderr}");
        assert!(
            stderr.contains(flag),
            "{entry} should name {flag}: {stderr}"
        );
        assert_eq!(listing(&batch_out), ["good.npy"], "{entry}");
    }
    // A batch's compression flags apply to its PNG and EXR outputs, unused by the others.
    let _ = std::fs::remove_dir_all(&batch_out);
    let manifest = manifests.join("mixed.json");
    std::fs::write(
        &manifest,
        serde_json::json!([
            { "graph": GRAPH, "output": "a.png", "size": "16x16" },
            { "graph": GRAPH, "output": "a.exr", "size": "16x16" },
        ])
        .to_string(),
    )
    .unwrap();
    let (code, stderr) = bake(&[
        "--manifest",
        manifest.to_str().unwrap(),
        "-o",
        batch_out.to_str().unwrap(),
        "--png-compression",
        "best",
        "--exr-compression",
        "piz",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(listing(&batch_out), ["a.exr", "a.png"]);
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

/// The files in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every streamed format, interrupted by SIGINT or SIGTERM while its encoder is writing
/// (the temporary file has bytes on disk): the process exits 128 + the signal and the folder
/// holds nothing, neither a file under the final name nor a temporary one.
#[cfg(unix)]
#[test]
fn interrupted_bakes_of_every_streamed_format_leave_nothing() {
    use std::time::{Duration, Instant};
    let cases: [(&str, &[&str]); 6] = [
        ("big.png", &["--format", "png16"]),
        ("big.exr", &[]),
        ("big.tif", &[]),
        ("big.r16", &[]),
        ("big.r32", &[]),
        ("big.png", &["--channels", "r=terrain,g=base,b=normal.x"]),
    ];
    for (i, (name, extra)) in cases.iter().enumerate() {
        let (signal, code) = if i % 2 == 0 {
            ("-INT", 130)
        } else {
            ("-TERM", 143)
        };
        let dir = scratch(&format!("interrupt{i}"));
        let mut child = tool()
            .args(["bake", GRAPH, "-o", name, "--size", "3000x3000"])
            .args(["--tile", "256", "--stitch", "--backend", "cpu"])
            .args(*extra)
            .current_dir(&dir)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let start = Instant::now();
        // Mid-file: the temporary file exists and the encoder has put bytes in it.
        loop {
            let writing = std::fs::read_dir(&dir).unwrap().any(|e| {
                let e = e.unwrap();
                e.file_name().to_string_lossy().ends_with(".partial")
                    && e.metadata().is_ok_and(|m| m.len() > 0)
            });
            if writing {
                break;
            }
            assert!(
                start.elapsed().as_secs() < 120,
                "{name} {extra:?}: nothing written"
            );
            assert!(
                child.try_wait().unwrap().is_none(),
                "{name} {extra:?}: the bake finished before it could be interrupted"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
        let sent = Command::new("kill")
            .args([signal, &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{name} {extra:?} {signal}");
        assert_eq!(
            listing(&dir),
            Vec::<String>::new(),
            "{name} {extra:?} {signal}: left behind"
        );
    }
}

/// `noisegraph gallery --ramp NAME` colours every panel through the ramp (as `bake --ramp`);
/// a bad ramp exits 2 naming the flag and writes nothing.
#[test]
fn the_gallery_takes_a_colour_ramp() {
    let dir = scratch("gallery_ramp");
    let gallery = |name: &str, ramp: &str| {
        tool()
            .args(["gallery", "-o", dir.join(name).to_str().unwrap()])
            .args(["--cell", "16", "--columns", "4", "--backend", "cpu"])
            .args(["--ramp", ramp])
            .output()
            .unwrap()
    };
    let ran = gallery("magma.png", "magma");
    assert_eq!(
        ran.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let img = image::open(dir.join("magma.png")).unwrap().to_rgb8();
    // The first panel: 4 px of padding, 14 px of label above it.
    let ramp = Ramp::parse("magma").unwrap();
    // Every colour of the ramp (it moves well under a level per step at this sampling).
    let on_ramp: std::collections::HashSet<[u8; 3]> = (0..=1 << 16)
        .map(|i| ramp.rgb8(i as f32 / 65536.0))
        .collect();
    let mut coloured = 0;
    for y in 18..34 {
        for x in 4..20 {
            let p = img.get_pixel(x, y).0;
            assert!(
                on_ramp.contains(&p),
                "({x}, {y}) = {p:?} is not a magma colour"
            );
            coloured += usize::from(p[0] != p[1] || p[1] != p[2]);
        }
    }
    assert!(coloured > 200, "{coloured} of 256 pixels coloured");
    let bad = gallery("bad.png", "#12");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--ramp"));
    assert!(!dir.join("bad.png").exists());
}

/// Whether GDAL's command-line tools (`gdalinfo`, `gdal_translate`) run; with
/// `NOISEGRAPH_REQUIRE_READERS=1` (CI) their absence fails the test instead of skipping it.
fn gdal() -> bool {
    let found = ["gdalinfo", "gdal_translate"].iter().all(|tool| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    assert!(
        found || std::env::var("NOISEGRAPH_REQUIRE_READERS").as_deref() != Ok("1"),
        "NOISEGRAPH_REQUIRE_READERS=1 but GDAL's gdalinfo and gdal_translate do not run (apt-get install gdal-bin)"
    );
    if !found {
        eprintln!("no GDAL (gdalinfo, gdal_translate): GDAL checks skipped");
    }
    found
}

/// A float32 TIFF as GDAL reads it: `gdalinfo -json`'s size, band type and compression,
/// and the samples `gdal_translate` writes out as raw little-endian float32 (ENVI).
fn read_with_gdal(tif: &Path) -> ([u64; 2], String, String, Vec<f32>) {
    let info = Command::new("gdalinfo")
        .arg("-json")
        .arg(tif)
        .output()
        .unwrap();
    assert!(info.status.success(), "gdalinfo {}", tif.display());
    let info: serde_json::Value = serde_json::from_slice(&info.stdout).unwrap();
    let size = [
        info["size"][0].as_u64().unwrap(),
        info["size"][1].as_u64().unwrap(),
    ];
    let raw = tif.with_extension("gdal.raw");
    let ran = Command::new("gdal_translate")
        .args(["-q", "-of", "ENVI", "-ot", "Float32"])
        .arg(tif)
        .arg(&raw)
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "gdal_translate {}: {}",
        tif.display(),
        String::from_utf8_lossy(&ran.stderr)
    );
    // ENVI's header says the byte order: 0 is little-endian.
    let header = std::fs::read_to_string(raw.with_extension("hdr")).unwrap();
    assert!(header.contains("byte order = 0"), "{header}");
    let data = std::fs::read(&raw)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (
        size,
        info["bands"][0]["type"].as_str().unwrap_or("").to_string(),
        info["metadata"]["IMAGE_STRUCTURE"]["COMPRESSION"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        data,
    )
}

/// The `.tif`, whole and as a tile's own file, read by GDAL: its size, float32 samples,
/// deflate compression, and exactly the `.npy` bake's values (the tile: its part of them).
#[test]
fn tiff_whole_and_tiles_are_read_by_gdal_as_the_npy_values() {
    let dir = scratch("gdal");
    let (reference, _) = reference(&dir, SIZE);
    let tif = dir.join("whole.tif");
    bake_ok(&[GRAPH, "-o", tif.to_str().unwrap(), "--size", SIZE]);
    let tiles = dir.join("t.tif");
    bake_ok(&[
        GRAPH,
        "-o",
        tiles.to_str().unwrap(),
        "--size",
        SIZE,
        "--tile",
        "64",
    ]);
    if !gdal() {
        return;
    }
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let (size, kind, compression, data) = read_with_gdal(&tif);
    assert_eq!(size, [203, 141]);
    assert_eq!(kind, "Float32");
    assert_eq!(compression, "DEFLATE");
    assert_eq!(
        bits(&data),
        bits(&reference),
        "GDAL reads the .npy's values"
    );
    // Tile row 1, column 2: x 128..192, y 64..128 of the view.
    let (size, kind, _, data) = read_with_gdal(&dir.join("t_r01_c02.tif"));
    assert_eq!((size, kind.as_str()), ([64, 64], "Float32"));
    let part: Vec<f32> = (64..128)
        .flat_map(|y| reference[y * 203 + 128..y * 203 + 192].to_vec())
        .collect();
    assert_eq!(
        bits(&data),
        bits(&part),
        "the tile holds its part of the view"
    );
    // The corner tile: 203 - 192 = 11 by 141 - 128 = 13 pixels.
    let (size, _, _, data) = read_with_gdal(&dir.join("t_r02_c03.tif"));
    assert_eq!(size, [11, 13]);
    let corner: Vec<f32> = (128..141)
        .flat_map(|y| reference[y * 203 + 192..y * 203 + 203].to_vec())
        .collect();
    assert_eq!(bits(&data), bits(&corner));
}
