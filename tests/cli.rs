//! The `noisegraph` tool end to end: the built binary run in temporary folders.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use noisegraph::io::read_npy;

/// A fresh, empty folder for one test.
fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
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
fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const GRAPH: &str = r#"{"seed": 9, "output": "w", "nodes": [
    {"id": "b", "type": "perlin", "frequency": 5.0},
    {"id": "f", "type": "fbm", "source": "b", "octaves": 4},
    {"id": "dx", "type": "fbm", "source": "b", "octaves": 3, "seed_offset": 3},
    {"id": "dy", "type": "fbm", "source": "b", "octaves": 3, "seed_offset": 4},
    {"id": "w", "type": "warp", "source": "f", "displace": ["dx", "dy"], "amplitude": 0.2}]}"#;

fn write_graph(dir: &Path, name: &str) {
    std::fs::write(dir.join(name), GRAPH).unwrap();
}

/// Files in `dir` (names only, sorted), hidden temporaries included.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn manifest_failures_are_counted_and_the_rest_run() {
    let dir = workdir("manifest");
    write_graph(&dir, "g.json");
    std::fs::create_dir(dir.join("out")).unwrap();
    std::fs::write(dir.join("out/blocker"), "a file where a folder should be").unwrap();
    let manifest = serde_json::json!([
        { "graph": "g.json", "output": "good.png", "size": [40, 30] },
        { "graph": "missing.json", "output": "missing.png" },
        { "graph": "g.json", "output": "blocker/x.png" },
        { "graph": "g.json", "output": "../escape.png" },
        { "graph": "g.json", "output": dir.join("abs.png").to_string_lossy() },
        { "graph": "g.json", "output": "weird.gif", "size": "8x8" },
        { "graph": "g.json", "output": "fmt.png", "format": "webp" },
        { "preset": "clouds", "output": "sub/clouds.npy", "size": "24x20", "origin": [1e6, -3.5] },
    ]);
    std::fs::write(dir.join("jobs.json"), manifest.to_string()).unwrap();
    let out = run(
        &dir,
        &[
            "bake",
            "--manifest",
            "jobs.json",
            "-o",
            "out",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(3), "exit code 3: some jobs failed");
    let err = stderr(&out);
    for needle in [
        "entry 1",
        "missing.json",
        "entry 2",
        "blocker",
        "entry 3",
        "..",
        "entry 4",
        "absolute",
        "entry 5",
        "gif",
        "entry 6",
        "webp",
        "6 failed",
    ] {
        assert!(err.contains(needle), "stderr lacks '{needle}'");
    }
    let good = image::open(dir.join("out/good.png")).unwrap();
    assert_eq!((good.width(), good.height()), (40, 30));
    let clouds = read_npy(&dir.join("out/sub/clouds.npy")).unwrap();
    assert_eq!((clouds.width, clouds.height), (24, 20));
    assert!(!dir.join("escape.png").exists() && !dir.join("abs.png").exists());
    assert_eq!(listing(&dir.join("out")), ["blocker", "good.png", "sub"]);
}

#[test]
fn several_graphs_bake_into_the_output_folder() {
    let dir = workdir("several");
    write_graph(&dir, "a.json");
    write_graph(&dir, "b.json");
    let out = run(
        &dir,
        &[
            "bake",
            "a.json",
            "b.json",
            "--preset",
            "wood",
            "-o",
            "maps",
            "--size",
            "16x12",
            "--format",
            "png16",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(listing(&dir.join("maps")), ["a.png", "b.png", "wood.png"]);
    let img = image::open(dir.join("maps/wood.png")).unwrap();
    assert_eq!(img.color(), image::ColorType::L16);
}

#[test]
fn bad_shards_are_refused_before_anything_runs() {
    let dir = workdir("shards_bad");
    write_graph(&dir, "g.json");
    for shard in ["3/2", "0/0", "2/2", "x/2", "1"] {
        let out = run(
            &dir,
            &[
                "bake", "g.json", "-o", "o.png", "--tile", "8", "--shard", shard,
            ],
        );
        assert_eq!(out.status.code(), Some(2), "--shard {shard}");
        assert!(stderr(&out).contains("--shard"), "--shard {shard}");
    }
    assert_eq!(listing(&dir), ["g.json"]);
}

#[test]
fn shards_together_bake_every_tile_exactly_once() {
    let dir = workdir("shards");
    write_graph(&dir, "g.json");
    let shards = 5;
    let mut seen: Vec<String> = Vec::new();
    for i in 0..shards {
        let folder = format!("s{i}");
        std::fs::create_dir(dir.join(&folder)).unwrap();
        let out = run(
            &dir,
            &[
                "bake",
                "g.json",
                "-o",
                &format!("{folder}/map.npy"),
                "--size",
                "100x70",
                "--tile",
                "32",
                "--shard",
                &format!("{i}/{shards}"),
                "--backend",
                "cpu",
            ],
        );
        assert_eq!(out.status.code(), Some(0));
        let names = listing(&dir.join(&folder));
        assert!(
            !names.is_empty() && names.len() <= 3,
            "shard {i}: {names:?}"
        );
        seen.extend(names);
    }
    // A whole output is one unit: exactly one of two shards bakes it.
    for (shard, written) in [("0/2", true), ("1/2", false)] {
        let out = run(
            &dir,
            &[
                "bake",
                "g.json",
                "-o",
                "whole.png",
                "--size",
                "8x8",
                "--shard",
                shard,
                "--backend",
                "cpu",
            ],
        );
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(dir.join("whole.png").exists(), written, "shard {shard}");
        let _ = std::fs::remove_file(dir.join("whole.png"));
    }
    seen.sort();
    let mut expected: Vec<String> = (0..3)
        .flat_map(|r| (0..4).map(move |c| format!("map_r{r:02}_c{c:02}.npy")))
        .collect();
    expected.sort();
    assert_eq!(seen, expected, "every tile exactly once");
}

/// The tiles of a bake, as files or stitched, hold exactly the whole bake's bytes.
fn check_stitching(dir: &Path, backend: &str) {
    write_graph(dir, "g.json");
    let size = ["--size", "75x41", "--backend", backend];
    let whole = run(
        dir,
        &[&["bake", "g.json", "-o", "whole.npy"], &size[..]].concat(),
    );
    assert_eq!(whole.status.code(), Some(0));
    let stitched = run(
        dir,
        &[
            &[
                "bake",
                "g.json",
                "-o",
                "stitched.npy",
                "--tile",
                "16",
                "--stitch",
            ],
            &size[..],
        ]
        .concat(),
    );
    assert_eq!(stitched.status.code(), Some(0));
    let whole_bytes = std::fs::read(dir.join("whole.npy")).unwrap();
    assert!(
        whole_bytes == std::fs::read(dir.join("stitched.npy")).unwrap(),
        "stitched tiles differ from the single bake"
    );
    std::fs::create_dir(dir.join("tiles")).unwrap();
    let tiled = run(
        dir,
        &[
            &["bake", "g.json", "-o", "tiles/t.npy", "--tile", "16"],
            &size[..],
        ]
        .concat(),
    );
    assert_eq!(tiled.status.code(), Some(0));
    let whole = read_npy(&dir.join("whole.npy")).unwrap();
    let mut covered = 0;
    for r in 0..3u32 {
        for c in 0..5u32 {
            let tile = read_npy(&dir.join(format!("tiles/t_r{r:02}_c{c:02}.npy"))).unwrap();
            for y in 0..tile.height {
                for x in 0..tile.width {
                    let v = whole.get(c * 16 + x, r * 16 + y, 0);
                    assert_eq!(
                        tile.get(x, y, 0).to_bits(),
                        v.to_bits(),
                        "tile r{r} c{c} at {x},{y}"
                    );
                    covered += 1;
                }
            }
        }
    }
    assert_eq!(covered, 75 * 41);
}

#[test]
fn stitched_tiles_equal_a_single_bake_bit_for_bit_cpu() {
    check_stitching(&workdir("stitch_cpu"), "cpu");
}

#[test]
fn stitched_tiles_equal_a_single_bake_bit_for_bit_gpu() {
    if common::gpu().is_none() {
        return;
    }
    check_stitching(&workdir("stitch_gpu"), "gpu");
}

/// Issue 18's reproductions on the GPU path: each job baked whole, with `--tile N --stitch`,
/// and split into shards I/N (each shard its own process, so its own run history) holds the
/// same bits, for a cellular preset, a graph of warps and one of point-wise nodes.
#[test]
fn gpu_tiles_and_every_shard_split_equal_the_whole_bake_bit_for_bit() {
    if common::gpu().is_none() {
        return;
    }
    let mountains = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/mountains.json");
    let jobs: [(&str, Vec<&str>, &str, u32); 3] = [
        ("cells", vec!["--preset", "cells"], "1000x700", 256),
        ("mountains", vec![mountains], "420x300", 128),
        ("marble", vec!["--preset", "marble"], "420x300", 128),
    ];
    for (name, source, size, edge) in jobs {
        let dir = workdir(&format!("gpu_bits_{name}"));
        let edge_text = edge.to_string();
        let bake = |output: &str, extra: &[&str]| {
            let args = [
                &["bake"],
                &source[..],
                &["-o", output, "--size", size, "--backend", "gpu"],
                extra,
            ]
            .concat();
            let out = run(&dir, &args);
            assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        };
        bake("whole.npy", &[]);
        bake("stitched.npy", &["--tile", &edge_text, "--stitch"]);
        let whole_bytes = std::fs::read(dir.join("whole.npy")).unwrap();
        assert!(
            whole_bytes == std::fs::read(dir.join("stitched.npy")).unwrap(),
            "{name}: stitched tiles differ from the whole bake"
        );
        let whole = read_npy(&dir.join("whole.npy")).unwrap();
        for shards in [1usize, 2, 3] {
            let folder = format!("n{shards}");
            std::fs::create_dir(dir.join(&folder)).unwrap();
            for i in 0..shards {
                let shard = format!("{i}/{shards}");
                let output = format!("{folder}/t.npy");
                bake(&output, &["--tile", &edge_text, "--shard", &shard]);
            }
            let mut covered = 0u64;
            for file in listing(&dir.join(&folder)) {
                // t_rRR_cCC.npy
                let r: u32 = file[3..5].parse().unwrap();
                let c: u32 = file[7..9].parse().unwrap();
                let tile = read_npy(&dir.join(&folder).join(&file)).unwrap();
                for y in 0..tile.height {
                    for x in 0..tile.width {
                        let (a, b) = (tile.get(x, y, 0), whole.get(c * edge + x, r * edge + y, 0));
                        assert!(
                            a.to_bits() == b.to_bits(),
                            "{name}, {shards} shards: tile r{r} c{c} pixel ({x}, {y}) is {a:e}, the whole bake {b:e}"
                        );
                        covered += 1;
                    }
                }
            }
            assert_eq!(
                covered,
                u64::from(whole.width) * u64::from(whole.height),
                "{name}, {shards} shards: every pixel in exactly one tile"
            );
        }
    }
}

#[test]
fn large_outputs_are_tiled_automatically_and_streamed() {
    // 4200 x 4100 is over the automatic tiling threshold (2^24 pixels): 5 x 5 tiles of
    // 1024, written band by band; a cheap graph keeps it quick.
    let dir = workdir("auto_tile");
    std::fs::write(
        dir.join("v.json"),
        r#"{"seed": 1, "output": "v", "nodes": [{"id": "v", "type": "value", "frequency": 3}]}"#,
    )
    .unwrap();
    let out = run(
        &dir,
        &[
            "bake",
            "v.json",
            "-o",
            "big.png",
            "--size",
            "4200x4100",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("25 tiles of 1024x1024 px"),
        "tiled automatically"
    );
    let img = image::open(dir.join("big.png")).unwrap();
    assert_eq!((img.width(), img.height()), (4200, 4100));
}

#[test]
fn large_cpu_bakes_are_written_band_by_band_equal_to_one_run() {
    // 2048 x 2049 (over 2^22 pixels) on the CPU path: baked in whole-width bands of 1024
    // rows, each written while the next is baked; the files equal those written from one
    // in-process run, byte for byte, as npy and as an 8-bit PNG of the graph's range.
    use noisegraph::io::{write_field, Format};
    let dir = workdir("cpu_bands");
    let json = r#"{"seed": 6, "output": "f", "nodes": [
        {"id": "p", "type": "perlin", "frequency": 7},
        {"id": "f", "type": "fbm", "source": "p", "octaves": 2}]}"#;
    std::fs::write(dir.join("g.json"), json).unwrap();
    let graph = noisegraph::NoiseGraph::from_json(json).unwrap();
    let view = noisegraph::View::image(2048, 2049);
    let plan = noisegraph::Plan::new(&graph, None).unwrap();
    let whole = noisegraph::engine::run_cpu(&plan, &view, &Default::default()).unwrap();
    for (file, format) in [("g.npy", Format::Npy), ("g.png", Format::Png)] {
        let out = run(
            &dir,
            &[
                "bake",
                "g.json",
                "-o",
                file,
                "--size",
                "2048x2049",
                "--backend",
                "cpu",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{file}");
        assert!(
            stderr(&out).contains("3 tiles of 2048x1024 px"),
            "{file}: baked in bands"
        );
        let expected = dir.join(format!("single.{}", format.name()));
        write_field(&whole, &expected, format, graph.range_of("f")).unwrap();
        assert!(
            std::fs::read(dir.join(file)).unwrap() == std::fs::read(&expected).unwrap(),
            "{file}: the banded bake equals one run"
        );
    }
}

#[test]
fn resume_skips_whole_outputs_and_redoes_truncated_ones() {
    let dir = workdir("resume");
    write_graph(&dir, "g.json");
    let args = [
        "bake",
        "g.json",
        "-o",
        "m.npy",
        "--size",
        "40x20",
        "--backend",
        "cpu",
        "--resume",
    ];
    assert_eq!(run(&dir, &args).status.code(), Some(0));
    let first = std::fs::read(dir.join("m.npy")).unwrap();
    // Whole: skipped (a marker byte past the data would be overwritten by a new bake, but the
    // length check must then call it incomplete, so mark by modification time instead).
    let before = std::fs::metadata(dir.join("m.npy"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = run(&dir, &args);
    assert!(stderr(&again).contains("skipped") && stderr(&again).contains("1 skipped"));
    assert_eq!(
        std::fs::metadata(dir.join("m.npy"))
            .unwrap()
            .modified()
            .unwrap(),
        before
    );
    // Truncated: baked again.
    std::fs::write(dir.join("m.npy"), &first[..first.len() / 2]).unwrap();
    let redo = run(&dir, &args);
    assert!(stderr(&redo).contains("1 written"));
    assert_eq!(std::fs::read(dir.join("m.npy")).unwrap(), first);
    // Tiles: remove one tile and truncate another; only those two are baked again.
    let tiled = [
        "bake",
        "g.json",
        "-o",
        "t.png",
        "--size",
        "40x20",
        "--tile",
        "10",
        "--backend",
        "cpu",
        "--resume",
    ];
    assert_eq!(run(&dir, &tiled).status.code(), Some(0));
    std::fs::remove_file(dir.join("t_r00_c01.png")).unwrap();
    let t = std::fs::read(dir.join("t_r01_c02.png")).unwrap();
    std::fs::write(dir.join("t_r01_c02.png"), &t[..t.len() - 5]).unwrap();
    let out = run(&dir, &tiled);
    assert!(stderr(&out).contains("2 tile(s) of 8 written, 6 already there"));
}

#[test]
fn a_killed_bake_leaves_nothing_under_the_final_name() {
    let dir = workdir("atomic_kill");
    write_graph(&dir, "g.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_noisegraph"))
        .args([
            "bake",
            "g.json",
            "-o",
            "big.npy",
            "--size",
            "3000x3000",
            "--tile",
            "256",
            "--stitch",
            "--backend",
            "cpu",
        ])
        .current_dir(&dir)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let partial = loop {
        let found = listing(&dir).into_iter().find(|n| n.ends_with(".partial"));
        if let Some(p) = found {
            break p;
        }
        assert!(start.elapsed().as_secs() < 60, "no temporary file appeared");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the bake finished before it could be killed"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(partial.starts_with(".big.npy."));
    assert!(!dir.join("big.npy").exists(), "a killed bake left big.npy");
}

#[test]
fn a_failed_bake_leaves_no_file_at_all() {
    let dir = workdir("atomic_error");
    write_graph(&dir, "g.json");
    // The output's final name is a folder: refused before anything is written.
    std::fs::create_dir(dir.join("taken.npy")).unwrap();
    std::fs::write(dir.join("taken.npy/keep"), "x").unwrap();
    let out = run(
        &dir,
        &[
            "bake",
            "g.json",
            "-o",
            "taken.npy",
            "--size",
            "8x8",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));
    assert_eq!(
        listing(&dir),
        ["g.json", "taken.npy"],
        "no temporary file left behind"
    );
    assert_eq!(listing(&dir.join("taken.npy")), ["keep"]);
}

#[test]
fn bad_input_exits_2_with_a_message() {
    let dir = workdir("bad_input");
    write_graph(&dir, "g.json");
    for (args, needle) in [
        (vec!["bake", "nope.json", "-o", "x.png"], "nope.json"),
        (vec!["bake", "g.json", "-o", "x.gif"], "extension"),
        (
            vec!["bake", "g.json", "-o", "x.png", "--format", "jpeg"],
            "jpeg",
        ),
        (
            vec!["bake", "g.json", "-o", "x.png", "--size", "0x4"],
            "--size",
        ),
        (
            vec!["bake", "g.json", "-o", "no/such/x.png"],
            "does not exist",
        ),
        (vec!["bake", "g.json", "-o", "x.png", "--node", "zz"], "zz"),
        (
            vec!["bake", "g.json", "-o", "x.png", "--normalize", "log"],
            "log",
        ),
        (vec!["bake", "g.json", "-o", "x.png", "--tile", "0"], "tile"),
        (vec!["bake", "g.json", "-o", "x.png", "--stitch"], "stitch"),
        (
            vec![
                "bake",
                "g.json",
                "-o",
                "x.png",
                "--tile",
                "4",
                "--normalize",
                "minmax",
            ],
            "minmax",
        ),
        (vec!["bake", "--preset", "nope", "-o", "x.png"], "terrain"),
        (vec!["bake", "g.json", "g.json"], "output folder"),
        (
            vec!["bake", "g.json", "-o", "x.png", "--size", "9999999x16"],
            "size",
        ),
        (
            vec![
                "bake",
                "g.json",
                "-o",
                "x.npy",
                "--size",
                "300000x300000",
                "--backend",
                "cpu",
            ],
            "size",
        ),
        (vec!["analyze", "g.json"], "npy"),
        (vec!["analyze", "missing.npy"], "missing.npy"),
    ] {
        let out = run(&dir, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains(needle),
            "{args:?}: stderr lacks '{needle}'"
        );
    }
    assert_eq!(listing(&dir), ["g.json"]);
}

#[test]
fn minmax_png_spans_black_to_white_when_tiled() {
    let dir = workdir("minmax");
    write_graph(&dir, "g.json");
    let out = run(
        &dir,
        &[
            "bake",
            "g.json",
            "-o",
            "m.png",
            "--size",
            "50x30",
            "--tile",
            "16",
            "--stitch",
            "--normalize",
            "minmax",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let img = image::open(dir.join("m.png")).unwrap().to_luma8();
    let lo = img.pixels().map(|p| p.0[0]).min().unwrap();
    let hi = img.pixels().map(|p| p.0[0]).max().unwrap();
    assert_eq!((lo, hi), (0, 255));
}

#[test]
fn analyze_reports_statistics_spectrum_and_plots() {
    let dir = workdir("analyze");
    write_graph(&dir, "g.json");
    assert_eq!(
        run(
            &dir,
            &[
                "bake",
                "g.json",
                "-o",
                "f.npy",
                "--size",
                "64x48",
                "--backend",
                "cpu"
            ]
        )
        .status
        .code(),
        Some(0)
    );
    let out = run(
        &dir,
        &[
            "analyze", "f.npy", "--plot", "plot.png", "--view", "slope", "--bins", "8",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    let field = read_npy(&dir.join("f.npy")).unwrap();
    let s = noisegraph::analysis::stats(&field.data, 8);
    for line in [
        format!("mean: {:.6}", s.mean),
        format!("std: {:.6}", s.std),
        format!("min: {:.6}", s.min),
        format!("max: {:.6}", s.max),
    ] {
        assert!(text.contains(&line), "missing '{line}'");
    }
    let bins: u64 = text
        .lines()
        .filter(|l| l.trim_start().starts_with('['))
        .map(|l| {
            l.split(')')
                .nth(1)
                .unwrap()
                .split_whitespace()
                .next()
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum();
    assert_eq!(bins, 64 * 48, "histogram counts every sample");
    let anisotropy = noisegraph::analysis::power_spectrum(&field, 0).anisotropy();
    assert!(text.contains("radial power spectrum") && text.contains(&format!("{anisotropy:.4}")));
    let plot = image::open(dir.join("plot.png")).unwrap();
    assert!(plot.width() > 400 && plot.height() > 200);
    let slope = image::open(dir.join("f_slope.png")).unwrap();
    assert_eq!((slope.width(), slope.height()), (64, 48));
    let curv = run(
        &dir,
        &["analyze", "f.npy", "--view", "curvature", "-o", "c.png"],
    );
    assert_eq!(curv.status.code(), Some(0));
    assert!(dir.join("c.png").exists());
    let bad = run(&dir, &["analyze", "f.npy", "--view", "sharpness"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn gallery_has_a_labelled_panel_per_family_and_operator() {
    let dir = workdir("gallery");
    let out = run(
        &dir,
        &[
            "gallery",
            "-o",
            "g.png",
            "--cell",
            "32",
            "--columns",
            "4",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    // One per family, 12 variants (OpenSimplex2 smooth, simplex and OpenSimplex2 in 3D and
    // 4D, 3 cellular returns, 3 metrics, Perlin 1985), 8 operators, 8 remaps and blends
    // (curve among them), the fractals of issue 31 (pingpong, hybrid, hetero, a
    // derivative-weighted fbm), and its 4 mappings (transform, sphere, torus, cylinder).
    let panels = noisegraph::family::registry().len() + 12 + 8 + 8 + 4 + 4;
    assert!(stderr(&out).contains(&format!("{panels} panels")));
    let img = image::open(dir.join("g.png")).unwrap();
    let rows = (panels as u32).div_ceil(4);
    assert_eq!((img.width(), img.height()), (4 * 36 + 4, rows * 50 + 4));
    assert!(!stderr(&out).contains("error"), "every panel baked");
}

#[test]
fn presets_are_listed_and_bakeable() {
    let dir = workdir("presets");
    let out = run(&dir, &["presets"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), noisegraph::presets::PRESETS.len());
    for p in noisegraph::presets::PRESETS {
        assert!(text
            .lines()
            .any(|l| l.starts_with(p.name) && l.contains(p.description)));
    }
    let bake = run(
        &dir,
        &[
            "bake",
            "--preset",
            "marble",
            "-o",
            "m.exr",
            "--size",
            "20x10",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(bake.status.code(), Some(0));
    let exr = exr::meta::MetaData::read_from_file(dir.join("m.exr"), false).unwrap();
    assert_eq!(exr.headers[0].layer_size.x(), 20);
}

#[test]
fn parity_prints_a_table_per_stage() {
    let dir = workdir("parity");
    write_graph(&dir, "g.json");
    let missing = run(&dir, &["parity", "nope.json"]);
    assert_eq!(missing.status.code(), Some(2));
    if common::gpu().is_none() {
        return;
    }
    let out = run(&dir, &["parity", "g.json", "--size", "33x17"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.contains("max abs err") && text.contains("verdict"));
    for stage in ["dx", "dy", "w"] {
        assert!(
            text.lines().any(|l| l.starts_with(stage)
                && l.contains("perlin")
                && l.trim_end().ends_with("ok")),
            "stage {stage}"
        );
    }
    assert!(text.contains("3 of 3 stages within tolerance"));
}

#[test]
fn shards_split_a_manifest_of_whole_outputs_and_tiled_ones() {
    let dir = workdir("shards_manifest");
    write_graph(&dir, "g.json");
    let manifest = serde_json::json!([
        { "graph": "g.json", "output": "a.npy", "size": "8x8" },
        { "graph": "g.json", "output": "t.npy", "size": "20x8", "tile": 8 },
        { "preset": "cells", "output": "b.png", "size": "8x8" },
    ]);
    std::fs::write(dir.join("jobs.json"), manifest.to_string()).unwrap();
    let mut all: Vec<String> = Vec::new();
    for i in 0..2 {
        let folder = format!("s{i}");
        let out = run(
            &dir,
            &[
                "bake",
                "--manifest",
                "jobs.json",
                "-o",
                &folder,
                "--shard",
                &format!("{i}/2"),
                "--backend",
                "cpu",
            ],
        );
        assert_eq!(out.status.code(), Some(0));
        all.extend(listing(&dir.join(&folder)));
    }
    all.sort();
    // Five units (a, the three tiles of t, b), shared round-robin: each exactly once.
    assert_eq!(
        all,
        [
            "a.npy",
            "b.png",
            "t_r00_c00.npy",
            "t_r00_c01.npy",
            "t_r00_c02.npy"
        ]
    );
}

#[test]
fn info_and_the_bake_summary_name_the_cpu_vector_width() {
    // The width is the widest this CPU has, capped by NOISEGRAPH_CPU_VECTOR.
    use noisegraph::vector::{VectorWidth, VECTOR_WIDTH_ENV};
    let dir = workdir("vector_width");
    write_graph(&dir, "g.json");
    for cap in [None, Some(VectorWidth::Baseline)] {
        let expected = match cap {
            Some(w) => w,
            None => *VectorWidth::supported().last().unwrap(),
        };
        let mut info = Command::new(env!("CARGO_BIN_EXE_noisegraph"));
        let mut bake = Command::new(env!("CARGO_BIN_EXE_noisegraph"));
        bake.args(["bake", "g.json", "-o", "g.npy", "--size", "16x16"])
            .args(["--backend", "cpu"])
            .current_dir(&dir);
        info.arg("info").current_dir(&dir);
        for cmd in [&mut info, &mut bake] {
            match cap {
                Some(w) => cmd.env(VECTOR_WIDTH_ENV, w.name()),
                None => cmd.env_remove(VECTOR_WIDTH_ENV),
            };
        }
        let info = info.output().unwrap();
        let text = stdout(&info);
        let line = text
            .lines()
            .find(|l| l.starts_with("CPU path: "))
            .unwrap_or_else(|| panic!("no CPU path line in {text}"));
        assert!(
            line.contains(&format!("{expected} loops")),
            "{line} (expected {expected})"
        );
        let bake = bake.output().unwrap();
        assert!(bake.status.success(), "{}", stderr(&bake));
        assert!(
            stderr(&bake).contains(&format!("threads, {expected} loops)")),
            "{}",
            stderr(&bake)
        );
    }
}
