//! The cache folder from the command line: `bake --backend auto` keeps the adapter probe's
//! answer when it leads to the CPU path and probes again when the drivers may have changed;
//! GPU bakes report the pipelines they compiled and what the persistent pipeline cache did;
//! damaged cache files are ignored, never trusted.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_cache")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

const GRAPH: &str = r#"{"seed": 4, "output": "f", "nodes": [
    {"id": "p", "type": "perlin", "frequency": 4},
    {"id": "f", "type": "fbm", "source": "p", "octaves": 3}]}"#;

/// Runs the tool with its cache folder `cache` (and `env`), returning success and stderr.
/// `NOISEGRAPH_REQUIRE_GPU` is removed: with it the probe always runs.
fn tool(dir: &Path, cache: &Path, env: &[(&str, &str)], args: &[&str]) -> (bool, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_noisegraph"));
    cmd.args(args)
        .current_dir(dir)
        .env("NOISEGRAPH_CACHE_DIR", cache)
        .env_remove("NOISEGRAPH_REQUIRE_GPU");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    eprintln!("$ noisegraph {}\n{stderr}", args.join(" "));
    (
        out.status.success(),
        stderr + &String::from_utf8_lossy(&out.stdout),
    )
}

#[test]
fn auto_keeps_a_cpu_answer_and_probes_again_when_the_drivers_may_differ() {
    let dir = workdir("auto");
    let cache = dir.join("cache");
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    let bake = |env: &[(&str, &str)]| {
        let (ok, stderr) = tool(
            &dir,
            &cache,
            env,
            &["bake", "g.json", "-o", "g.npy", "--size", "32x32"],
        );
        assert!(ok, "{stderr}");
        stderr
    };
    let file = cache.join("adapter-probe");
    let first = bake(&[]);
    if first.contains("GPU: ") {
        // A real GPU: nothing is kept, the probe opens it every time.
        assert!(!file.exists());
        return;
    }
    const CACHED: &str = "adapter probe answer from the cache";
    assert!(!first.contains(CACHED), "{first}");
    assert!(file.exists(), "the CPU answer is kept");
    let second = bake(&[]);
    assert!(second.contains(CACHED), "{second}");
    // The same reason either way.
    let suffix = format!(" ({CACHED}; `noisegraph info` probes again)");
    let reason = |s: &str| {
        let line = s.lines().find(|l| l.starts_with("noisegraph: ")).unwrap();
        line.replace(&suffix, "")
    };
    assert_eq!(reason(&first), reason(&second));
    // A variable the loaders read: the answer may differ, so the probe runs again.
    let changed = bake(&[("CUDA_VISIBLE_DEVICES", "0")]);
    assert!(!changed.contains(CACHED), "{changed}");
    // A damaged cache file is probed past, not trusted.
    std::fs::write(&file, b"NGCACHE1adapters garbage").unwrap();
    let damaged = bake(&[]);
    assert!(!damaged.contains(CACHED), "{damaged}");
    assert!(bake(&[]).contains(CACHED));
    // A GPU required: always the probe.
    let (ok, required) = tool(
        &dir,
        &cache,
        &[("NOISEGRAPH_REQUIRE_GPU", "1")],
        &["bake", "g.json", "-o", "r.npy", "--size", "8x8"],
    );
    assert!(!required.contains(CACHED), "{required}");
    let _ = ok; // without any adapter a required GPU fails, which is not this test's concern
}

#[test]
fn gpu_bakes_report_their_pipelines_and_the_pipeline_cache() {
    if common::gpu().is_none() {
        return;
    }
    let dir = workdir("pipelines");
    let cache = dir.join("cache");
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    let args = [
        "bake",
        "g.json",
        "-o",
        "g.npy",
        "--size",
        "32x32",
        "--backend",
        "gpu",
    ];
    let (ok, first) = tool(&dir, &cache, &[], &args);
    assert!(ok, "{first}");
    let summary = first.lines().find(|l| l.contains(" written, ")).unwrap();
    assert!(summary.contains("pipelines compiled in"), "{summary}");
    let outcomes = [
        "pipeline cache miss",
        "pipeline cache not kept by this driver",
        "no pipeline cache",
    ];
    assert!(outcomes.iter().any(|o| summary.contains(o)), "{summary}");
    let first_missed = summary.contains("pipeline cache miss");
    let (ok, second) = tool(&dir, &cache, &[], &args);
    assert!(ok, "{second}");
    let summary = second.lines().find(|l| l.contains(" written, ")).unwrap();
    if first_missed {
        // What the first bake saved, the second one used.
        assert!(summary.contains("pipeline cache hit"), "{summary}");
    } else {
        let outcomes = [
            "pipeline cache not kept by this driver",
            "no pipeline cache",
        ];
        assert!(outcomes.iter().any(|o| summary.contains(o)), "{summary}");
    }

    // `info` names the cache file; a damaged one is reported as ignored, and bakes still run.
    let (ok, info) = tool(&dir, &cache, &[], &["info"]);
    assert!(ok, "{info}");
    if first_missed {
        assert!(info.contains(" KiB loaded)"), "{info}");
    }
    let line = info
        .lines()
        .find(|l| l.contains("pipeline cache:"))
        .unwrap();
    if let Some(path) = line
        .split("pipeline cache: ")
        .nth(1)
        .and_then(|rest| rest.split(" (").next())
        .filter(|p| p.starts_with('/'))
    {
        std::fs::write(path, b"not a pipeline cache").unwrap();
        let (ok, info) = tool(&dir, &cache, &[], &["info"]);
        assert!(ok, "{info}");
        assert!(
            info.contains("ignored: not a noisegraph cache file"),
            "{info}"
        );
        let (ok, again) = tool(&dir, &cache, &[], &args);
        assert!(ok, "{again}");
    }
}
