//! The `noisegraph bake` command end to end: GPU and CPU bakes of every family agree, and
//! bad input exits with code 2, names the problem and writes nothing.

mod common;
use std::path::{Path, PathBuf};
use std::process::Command;

use noisegraph::io::read_npy;

fn tool() -> Command {
    Command::new(env!("CARGO_BIN_EXE_noisegraph"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_bake")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn every_family_bakes_the_same_npy_on_gpu_and_cpu() {
    if common::gpu().is_none() {
        return;
    }
    let dir = scratch("families");
    for fam in noisegraph::family::registry() {
        for &dims in fam.dims() {
            let graph = write(
                &dir,
                &format!("{}{dims}.json", fam.name()),
                &format!(
                    r#"{{"seed": 31337, "output": "n", "nodes": [{{"id": "n", "type": "{}", "frequency": 5.5, "dims": {dims}, "z": 0.25, "w": 0.5}}]}}"#,
                    fam.name()
                ),
            );
            let mut fields = Vec::new();
            for backend in ["gpu", "cpu"] {
                let out = dir.join(format!("{}{dims}_{backend}.npy", fam.name()));
                let run = tool()
                    .args(["bake", graph.to_str().unwrap(), "-o", out.to_str().unwrap()])
                    .args(["--size", "97x61", "--backend", backend])
                    .output()
                    .unwrap();
                assert!(
                    run.status.success(),
                    "{} {dims}D {backend}: {}",
                    fam.name(),
                    String::from_utf8_lossy(&run.stderr)
                );
                let stderr = String::from_utf8_lossy(&run.stderr);
                assert!(
                    stderr.contains(if backend == "gpu" { "GPU" } else { "CPU" }),
                    "says which path: {stderr}"
                );
                fields.push(read_npy(&out).unwrap());
            }
            assert_eq!((fields[0].width, fields[0].height), (97, 61));
            let diff = fields[0].max_abs_diff(&fields[1]);
            let allowed = fam.discontinuity_allowance(dims, &Default::default());
            let over = fields[0]
                .data
                .iter()
                .zip(&fields[1].data)
                .filter(|(a, b)| (*a - *b).abs() > 1e-4)
                .count();
            assert!(
                diff <= 1e-4
                    || (allowed > 0.0 && over as f64 <= allowed * fields[0].data.len() as f64),
                "{} {dims}D: gpu vs cpu npy differ by {diff}",
                fam.name()
            );
        }
    }
}

#[test]
fn png_png16_and_npy_outputs_are_written() {
    let dir = scratch("formats");
    let graph = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/terrain.json");
    for (name, format) in [
        ("a.png", None),
        ("b.png", Some("png16")),
        ("c.npy", None),
        ("d.exr", None),
    ] {
        let out = dir.join(name);
        let mut cmd = tool();
        cmd.args([
            "bake",
            graph,
            "-o",
            out.to_str().unwrap(),
            "--size",
            "40x30",
            "--backend",
            "cpu",
        ]);
        if let Some(f) = format {
            cmd.args(["--format", f]);
        }
        let run = cmd.output().unwrap();
        assert!(
            run.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(out.metadata().unwrap().len() > 100);
    }
    let img = image::open(dir.join("b.png")).unwrap();
    assert_eq!(img.color(), image::ColorType::L16);
    assert_eq!((img.width(), img.height()), (40, 30));
    let img = image::open(dir.join("a.png")).unwrap();
    assert_eq!(img.color(), image::ColorType::L8);
    let npy = read_npy(&dir.join("c.npy")).unwrap();
    assert_eq!((npy.width, npy.height, npy.depth), (40, 30, 1));
}

#[test]
fn bad_input_exits_2_names_the_problem_and_writes_nothing() {
    let dir = scratch("bad");
    let perlin = |freq: &str| {
        format!(
            r#"{{"seed": 1, "output": "n", "nodes": [{{"id": "n", "type": "perlin", "frequency": {freq}}}]}}"#
        )
    };
    let cases: Vec<(String, Vec<&str>, &str)> = vec![
        ("{ not json".into(), vec![], "not valid JSON"),
        (
            r#"{"output": "n", "nodes": [{"id": "n", "type": "perlinn"}]}"#.into(),
            vec![],
            "unknown node type",
        ),
        (perlin("0"), vec![], "frequency"),
        (perlin("-3"), vec![], "frequency"),
        (perlin("NaN"), vec![], "frequency"),
        (perlin("Infinity"), vec![], "frequency"),
        (perlin("1e400"), vec![], "frequency"),
        (perlin("4"), vec!["--size", "0x16"], "--size"),
        (perlin("4"), vec!["--size", "16x-3"], "--size"),
        (perlin("4"), vec!["--size", "9999999x9999999"], "size"),
        (
            perlin("4"),
            vec!["--size", "9999999x9999999", "--backend", "cpu"],
            "size",
        ),
        (perlin("4"), vec!["--format", "webp"], "format"),
        (perlin("4"), vec!["--node", "nope"], "nope"),
    ];
    for (i, (graph, extra, words)) in cases.iter().enumerate() {
        let g = write(&dir, &format!("g{i}.json"), graph);
        let out = dir.join(format!("out{i}.png"));
        let run = tool()
            .args(["bake", g.to_str().unwrap(), "-o", out.to_str().unwrap()])
            .args(extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "case {i} ({words}): {stderr}");
        assert!(
            stderr.contains(words),
            "case {i}: '{words}' not in: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "case {i}: {stderr}");
        assert!(!out.exists(), "case {i}: no output file");
    }
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".json"))
        .collect();
    assert!(leftovers.is_empty(), "no partial files: {leftovers:?}");
    // A missing graph file is bad input too.
    let run = tool()
        .args(["bake", "/nonexistent/g.json", "-o", "x.png"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
}

/// `--backend auto` runs a real GPU when there is one, and the CPU reference path when the
/// only adapter is a CPU adapter (lavapipe: slower on the same cores) or there is none, and
/// says which and why; `--backend gpu` always runs on the adapter.
#[test]
fn auto_backend_skips_cpu_adapters_and_says_why() {
    use noisegraph::{Backend, Executor};
    let adapter = noisegraph::gpu::default_adapter_info();
    let (executor, note) = Executor::choose(Backend::Auto).unwrap();
    let dir = scratch("auto");
    let graph = write(
        &dir,
        "g.json",
        r#"{"seed": 3, "output": "n", "nodes": [{"id": "n", "type": "perlin", "frequency": 4}]}"#,
    );
    let bake = |backend: &str| {
        let run = tool()
            .args(["bake", graph.to_str().unwrap(), "-o"])
            .arg(dir.join(format!("{backend}.npy")))
            .args(["--size", "33x17", "--backend", backend])
            .output()
            .unwrap();
        assert!(run.status.success(), "{backend}: {run:?}");
        String::from_utf8_lossy(&run.stderr).into_owned()
    };
    let stderr = bake("auto");
    match &adapter {
        Ok(info) if info.device_type == wgpu::DeviceType::Cpu => {
            assert!(matches!(executor, Executor::Cpu), "{}", info.name);
            let note = note.expect("a reason");
            assert!(
                note.contains(&info.name) && note.contains("CPU adapter"),
                "{note}"
            );
            assert!(stderr.contains(&note), "{stderr}");
            assert!(
                stderr.contains("CPU reference path (") && !stderr.contains("GPU: "),
                "{stderr}"
            );
        }
        Ok(info) => {
            assert!(matches!(executor, Executor::Gpu(_)), "{}", info.name);
            assert!(note.is_none());
            assert!(stderr.contains("GPU: "), "{stderr}");
        }
        Err(_) => {
            assert!(!noisegraph::gpu::gpu_required(), "no adapter");
            assert!(matches!(executor, Executor::Cpu));
            assert!(note.expect("a reason").contains("no GPU adapter"));
        }
    }
    if let Ok(info) = &adapter {
        let stderr = bake("gpu");
        assert!(stderr.contains(&format!("GPU: {}", info.name)), "{stderr}");
    }
}
