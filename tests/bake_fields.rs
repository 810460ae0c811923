//! Every field `bake` writes (value, gradient, curl) goes through one stage loop in the engine
//! and one job runner in the tool: the same memory checks, `--resume` (stale temporaries
//! cleared, whole files skipped), automatic row bands and streaming for each. `--field` names
//! the field; `--output`, its old spelling, still works.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use noisegraph::engine::{run_cpu_gradient_stages, run_cpu_stages};
use noisegraph::{NoiseGraph, Plan, RunOptions, View};

fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("bake_fields")
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
        "$ noisegraph {}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A `.npy` file's shape and float32 samples.
fn read_npy(path: &Path) -> (Vec<usize>, Vec<f32>) {
    let bytes = std::fs::read(path).expect("npy file");
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let text = String::from_utf8_lossy(&bytes[10..10 + header]).to_string();
    let shape = text
        .split("'shape': (")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .expect("shape")
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().expect("dimension"))
        .collect();
    let data = bytes[10 + header..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (shape, data)
}

const GRAPH: &str = r#"{"seed": 5, "output": "f", "nodes": [
    {"id": "p", "type": "perlin", "frequency": 6},
    {"id": "f", "type": "fbm", "source": "p", "octaves": 2}]}"#;

fn graph_dir(name: &str) -> PathBuf {
    let dir = workdir(name);
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    dir
}

#[test]
fn field_and_its_old_spelling_output_bake_the_same_file() {
    let dir = graph_dir("spellings");
    let view = View::image(24, 20);
    let graph = NoiseGraph::from_json(GRAPH).unwrap();
    let expected = noisegraph::Executor::new(noisegraph::Backend::Cpu)
        .unwrap()
        .bake_gradient(&graph, None, &view)
        .unwrap()
        .interleaved(3);
    for (file, flag) in [("new.npy", "--field"), ("old.npy", "--output")] {
        let out = run(
            &dir,
            &[
                "bake",
                "g.json",
                "-o",
                file,
                "--size",
                "24x20",
                flag,
                "gradient",
                "--backend",
                "cpu",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{flag}: {}", stderr(&out));
        let (shape, data) = read_npy(&dir.join(file));
        assert_eq!(shape, vec![20, 24, 3], "{flag}");
        assert_eq!(data, expected, "{flag}");
    }
    // An unknown field is refused under either spelling, naming the fields there are.
    for flag in ["--field", "--output"] {
        let out = run(&dir, &["bake", "g.json", "-o", "x.npy", flag, "slope"]);
        assert_eq!(out.status.code(), Some(2), "{flag}");
        assert!(
            stderr(&out).contains("value, gradient, curl"),
            "{}",
            stderr(&out)
        );
    }
    assert!(!dir.join("x.npy").exists());
    // --help documents --field; the old spelling is not offered there.
    let help = Command::new(env!("CARGO_BIN_EXE_noisegraph"))
        .args(["bake", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(help.contains("--field <value|gradient|curl>"), "{help}");
    assert!(!help.contains("--output <"), "{help}");
}

#[test]
fn a_manifest_entry_names_its_field() {
    let dir = graph_dir("manifest");
    let jobs = serde_json::json!([
        {"graph": "g.json", "output": "v.npy", "size": [16, 12]},
        {"graph": "g.json", "output": "g.npy", "size": [16, 12], "field": "gradient"},
        {"graph": "g.json", "output": "c.npy", "size": [16, 12], "field": "curl"},
        {"graph": "g.json", "output": "bad.npy", "field": "slope"},
    ]);
    std::fs::write(dir.join("jobs.json"), jobs.to_string()).unwrap();
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
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains("entry 3") && err.contains("field: unknown field 'slope'"),
        "{err}"
    );
    assert_eq!(read_npy(&dir.join("out/v.npy")).0, vec![12, 16]);
    assert_eq!(read_npy(&dir.join("out/g.npy")).0, vec![12, 16, 3]);
    assert_eq!(read_npy(&dir.join("out/c.npy")).0, vec![12, 16, 2]);
    assert!(!dir.join("out/bad.npy").exists());
}

#[cfg(target_os = "linux")]
#[test]
fn resume_clears_stale_temporaries_and_skips_whole_files_of_every_field() {
    for field in ["value", "gradient", "curl"] {
        let dir = graph_dir(&format!("resume_{field}"));
        // Left by killed bakes (no such process), and one of a live process (pid 1).
        std::fs::write(dir.join(".g.npy.99999999.partial"), "stale").unwrap();
        std::fs::write(dir.join(".t_r00_c01.npy.99999998.partial"), "stale").unwrap();
        std::fs::write(dir.join(".g.npy.1.partial"), "live").unwrap();
        let bake = |out: &str, tiles: &[&str]| {
            let mut args = vec![
                "bake",
                "g.json",
                "-o",
                out,
                "--size",
                "32x24",
                "--field",
                field,
                "--backend",
                "cpu",
                "--resume",
            ];
            args.extend_from_slice(tiles);
            run(&dir, &args)
        };
        let first = bake("g.npy", &[]);
        assert_eq!(first.status.code(), Some(0), "{field}: {}", stderr(&first));
        let files = listing(&dir);
        assert!(
            !files.contains(&".g.npy.99999999.partial".to_string()),
            "{field}: {files:?}"
        );
        assert!(
            files.contains(&".g.npy.1.partial".to_string()),
            "{field}: {files:?}"
        );
        let again = bake("g.npy", &[]);
        assert!(
            stderr(&again).contains("already there, skipped"),
            "{field}: {}",
            stderr(&again)
        );
        let tiled = bake("t.npy", &["--tile", "16"]);
        assert_eq!(tiled.status.code(), Some(0), "{field}: {}", stderr(&tiled));
        assert!(
            !listing(&dir).contains(&".t_r00_c01.npy.99999998.partial".to_string()),
            "{field}: {:?}",
            listing(&dir)
        );
        let tiled_again = bake("t.npy", &["--tile", "16"]);
        assert!(
            stderr(&tiled_again).contains("0 tile(s) of 4 written, 4 already there"),
            "{field}: {}",
            stderr(&tiled_again)
        );
    }
}

#[test]
fn large_gradient_bakes_stream_in_row_bands_like_value_bakes() {
    // 2048 x 2049 (over 2^22 pixels) on the CPU path: baked in whole-width bands of 1024
    // rows, each written while the next is baked, for the value and the gradient alike; the
    // gradient file equals one in-process run.
    let dir = graph_dir("bands");
    let graph = NoiseGraph::from_json(GRAPH).unwrap();
    for field in ["value", "gradient"] {
        let file = format!("{field}.npy");
        let out = run(
            &dir,
            &[
                "bake",
                "g.json",
                "-o",
                &file,
                "--size",
                "2048x2049",
                "--field",
                field,
                "--backend",
                "cpu",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{field}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("3 tiles of 2048x1024 px"),
            "{field}: baked in bands: {}",
            stderr(&out)
        );
    }
    let plan = noisegraph::graph::gradient_plan(&graph, None).unwrap();
    let whole = noisegraph::engine::run_cpu_gradient(
        &plan,
        &View::image(2048, 2049),
        &RunOptions::default(),
    )
    .unwrap();
    let (shape, data) = read_npy(&dir.join("gradient.npy"));
    assert_eq!(shape, vec![2049, 2048, 3]);
    assert!(
        data == whole.interleaved(3),
        "the banded gradient equals one run"
    );
}

/// `bake g.json -o g.npy --size SIZE --field FIELD` in `dir` with the process's address
/// space limited to `kib` KiB (`ulimit -v`).
#[cfg(target_os = "linux")]
fn bake_with_address_space(dir: &Path, kib: u64, size: &str, field: &str) -> Output {
    let script = format!(
        "ulimit -v {kib} && exec '{}' bake g.json -o g.npy --size {size} --field {field} --backend cpu",
        env!("CARGO_BIN_EXE_noisegraph")
    );
    Command::new("sh")
        .args(["-c", &script])
        .current_dir(dir)
        .output()
        .unwrap()
}

#[cfg(target_os = "linux")]
#[test]
fn gradient_and_curl_bakes_beyond_memory_are_errors_like_value_bakes() {
    let dir = workdir("memory");
    std::fs::write(
        dir.join("g.json"),
        r#"{"output": "n", "nodes": [{"id": "n", "type": "perlin", "dims": 3}]}"#,
    )
    .unwrap();
    // 2 GiB of address space: a 1024 x 1024 x 600 value field (2.4 GiB) and a 1024 x 1024 x
    // 150 gradient field (2.4 GiB) cannot be allocated; an error, not an abort.
    for (field, size) in [
        ("value", "1024x1024x600"),
        ("gradient", "1024x1024x150"),
        ("curl", "1024x1024x150"),
    ] {
        let out = bake_with_address_space(&dir, 2_000_000, size, field);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{field}: {err}");
        assert!(err.contains("size:") && err.contains("allocate"), "{err}");
        assert_eq!(listing(&dir), ["g.json"], "{field}");
    }
}

/// A chain of `count` point-wise ops over one noise: `count + 1` stages.
fn chain(count: usize) -> NoiseGraph {
    let mut nodes = vec![serde_json::json!({"id": "n0", "type": "perlin", "dims": 3})];
    for i in 1..=count {
        nodes.push(serde_json::json!({
            "id": format!("n{i}"), "type": "neg", "source": format!("n{}", i - 1)
        }));
    }
    let json = serde_json::json!({"output": format!("n{count}"), "nodes": nodes});
    NoiseGraph::from_json(&json.to_string()).unwrap()
}

#[test]
fn both_forms_refuse_a_run_beyond_the_memory_available_before_allocating() {
    let Some(available) = noisegraph::memory::available_bytes() else {
        return; // not Linux: no figure to check against
    };
    // 2^27 samples: 512 MiB per value field, 2 GiB per gradient field; enough stages that
    // even the value form's fields exceed what is available.
    let view = View::volume(512, 512, 512);
    let per_field = view.pixel_count() * 4;
    let graph = chain((available / per_field) as usize + 1);
    let plan = Plan::new(&graph, None).unwrap();
    assert!(
        (plan.stages.len() as u64 + 1) * per_field > available,
        "{} stages",
        plan.stages.len()
    );
    let all: Vec<usize> = vec![plan.target];
    let value = run_cpu_stages(&plan, &view, &RunOptions::default(), &all).unwrap_err();
    let gradient = run_cpu_gradient_stages(&plan, &view, &RunOptions::default(), &all)
        .unwrap_err()
        .to_string();
    let value = value.to_string();
    for (form, e) in [("field(s)", &value), ("gradient field(s)", &gradient)] {
        assert!(
            e.contains(form) && e.contains("needs about") && e.contains("available"),
            "{e}"
        );
    }
}
