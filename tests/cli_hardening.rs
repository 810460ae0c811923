//! The `noisegraph` tool under hostile conditions: exit codes scripts can rely on, inputs that
//! never end, outputs that are not files or lead elsewhere, signals, stale temporaries, too
//! little memory, and headless machines.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn workdir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_hardening")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_noisegraph"));
    c.args(args).current_dir(dir);
    c
}

fn run(dir: &Path, args: &[&str]) -> Output {
    let out = command(dir, args).output().expect("the binary runs");
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

const GRAPH: &str = r#"{"seed": 3, "output": "f", "nodes": [
    {"id": "p", "type": "perlin", "frequency": 4},
    {"id": "f", "type": "fbm", "source": "p", "octaves": 3}]}"#;

#[test]
fn exit_codes_tell_success_bad_input_failed_jobs_and_internal_failures_apart() {
    let dir = workdir("exit_codes");
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    std::fs::write(dir.join("bad.json"), r#"{"output": "n", "nodes": []}"#).unwrap();
    let ok = run(
        &dir,
        &[
            "bake",
            "g.json",
            "-o",
            "g.npy",
            "--size",
            "8x8",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(ok.status.code(), Some(0));
    let bad = run(
        &dir,
        &[
            "bake",
            "bad.json",
            "-o",
            "b.npy",
            "--size",
            "8x8",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(bad.status.code(), Some(2), "bad input");
    let jobs = serde_json::json!([
        {"graph": "g.json", "output": "a.npy", "size": [8, 8]},
        {"graph": "bad.json", "output": "b.npy"},
        {"graph": "missing.json", "output": "c.npy"},
    ]);
    std::fs::write(dir.join("jobs.json"), jobs.to_string()).unwrap();
    let batch = run(
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
    assert_eq!(batch.status.code(), Some(3), "some jobs failed");
    assert!(
        stderr(&batch).contains("1 written, 0 skipped, 2 failed"),
        "{}",
        stderr(&batch)
    );
    assert!(dir.join("out/a.npy").exists());
    // Several graphs on the command line are a batch too.
    let several = run(
        &dir,
        &[
            "bake",
            "g.json",
            "bad.json",
            "-o",
            "maps",
            "--size",
            "8x8",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(several.status.code(), Some(3), "one of two graphs failed");
    assert!(
        stderr(&several).contains("1 failed"),
        "{}",
        stderr(&several)
    );
    assert!(dir.join("maps/g.png").exists());
    if Path::new("/proc/self").exists() {
        // Creating a file under /proc fails for any user: an I/O failure, not bad input.
        let io = run(
            &dir,
            &[
                "bake",
                "g.json",
                "-o",
                "/proc/g.npy",
                "--size",
                "8x8",
                "--backend",
                "cpu",
            ],
        );
        assert_eq!(io.status.code(), Some(1), "an I/O failure");
    }
    for args in [&["--help"][..], &["bake", "--help"]] {
        let help = run(&dir, args);
        let text = String::from_utf8_lossy(&help.stdout);
        for words in [
            "Exit codes",
            "0    success",
            "1    ",
            "2    usage or bad input",
            "3    a batch",
            "130",
            "143",
        ] {
            assert!(text.contains(words), "{args:?} lacks '{words}'");
        }
    }
}

#[test]
fn negative_flags_reach_validation_and_name_the_flag() {
    let dir = workdir("negative_flags");
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    for (flag, value, words) in [
        ("--extent", "-1", "extent"),
        ("--tile", "-1", "--tile"),
        ("--size", "-4x4", "--size"),
        ("--height-scale", "-1e38", "--height-scale"),
    ] {
        let mut args = vec![
            "bake",
            "g.json",
            "-o",
            "x.npy",
            "--backend",
            "cpu",
            flag,
            value,
        ];
        if flag == "--height-scale" {
            args.extend(["--normal-map", "central", "--size", "16x16"]);
        }
        let out = run(&dir, &args);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let err = stderr(&out);
        assert!(err.contains(words), "{flag} {value}: {err}");
        assert!(!err.contains("unexpected argument"), "{err}");
        assert!(!err.contains("invalid request"), "{err}");
    }
    assert_eq!(listing(&dir), ["g.json"]);
}

#[test]
fn endless_input_files_are_refused_quickly() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let dir = workdir("endless");
    for args in [
        vec!["bake", "/dev/zero", "-o", "x.npy", "--backend", "cpu"],
        vec![
            "bake",
            "--manifest",
            "/dev/zero",
            "-o",
            "out",
            "--backend",
            "cpu",
        ],
    ] {
        let start = Instant::now();
        let out = run(&dir, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&out).contains("larger than the limit"),
            "{}",
            stderr(&out)
        );
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "{:?}",
            start.elapsed()
        );
    }
    assert!(listing(&dir).is_empty(), "no output folder made");
}

#[cfg(unix)]
#[test]
fn outputs_that_are_not_regular_files_are_left_alone() {
    use std::os::unix::fs::FileTypeExt;
    let dir = workdir("not_regular");
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    let made = Command::new("mkfifo").arg(dir.join("pipe.npy")).status();
    if !made.is_ok_and(|s| s.success()) {
        return; // no mkfifo here
    }
    let out = run(
        &dir,
        &[
            "bake",
            "g.json",
            "-o",
            "pipe.npy",
            "--size",
            "8x8",
            "--backend",
            "cpu",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not a regular file"),
        "{}",
        stderr(&out)
    );
    let kind = std::fs::symlink_metadata(dir.join("pipe.npy"))
        .unwrap()
        .file_type();
    assert!(kind.is_fifo(), "the fifo is still a fifo");
    assert_eq!(listing(&dir), ["g.json", "pipe.npy"]);
}

#[cfg(unix)]
#[test]
fn manifest_outputs_stay_inside_the_output_folder_through_links() {
    let dir = workdir("links");
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    std::fs::create_dir_all(dir.join("elsewhere")).unwrap();
    std::os::unix::fs::symlink("../elsewhere", dir.join("out/link")).unwrap();
    std::fs::create_dir_all(dir.join("out/real")).unwrap();
    std::os::unix::fs::symlink("real", dir.join("out/inner")).unwrap();
    let jobs = serde_json::json!([
        {"graph": "g.json", "output": "link/x.npy", "size": [8, 8]},
        {"graph": "g.json", "output": "link/deeper/y.npy", "size": [8, 8]},
        {"graph": "g.json", "output": "inner/z.npy", "size": [8, 8]},
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
    assert_eq!(out.status.code(), Some(3));
    assert!(
        stderr(&out).contains("leaves the output folder"),
        "{}",
        stderr(&out)
    );
    assert!(
        listing(&dir.join("elsewhere")).is_empty(),
        "nothing written outside"
    );
    // A link that stays inside the folder is fine.
    assert!(dir.join("out/real/z.npy").exists());
}

#[test]
fn a_bad_manifest_creates_no_output_folder() {
    let dir = workdir("bad_manifest");
    std::fs::write(dir.join("jobs.json"), "[{\"graph\": ").unwrap();
    std::fs::write(dir.join("list.json"), "{\"graph\": \"g.json\"}").unwrap();
    for manifest in ["jobs.json", "list.json", "missing.json"] {
        let out = run(
            &dir,
            &[
                "bake",
                "--manifest",
                manifest,
                "-o",
                "out",
                "--backend",
                "cpu",
            ],
        );
        assert_eq!(out.status.code(), Some(2), "{manifest}");
        assert!(!dir.join("out").exists(), "{manifest}: -o made");
    }
}

/// Starts a long bake, waits for its temporary file, sends `signal` and returns the exit
/// code and the folder's listing.
#[cfg(unix)]
fn interrupt_bake(name: &str, signal: &str) -> (Option<i32>, Vec<String>) {
    let dir = workdir(name);
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    let mut child = command(
        &dir,
        &[
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
        ],
    )
    .stderr(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let start = Instant::now();
    while !listing(&dir).iter().any(|n| n.ends_with(".partial")) {
        assert!(start.elapsed().as_secs() < 60, "no temporary file appeared");
        assert!(
            child.try_wait().unwrap().is_none(),
            "the bake finished too soon"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let sent = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = child.wait().unwrap();
    (status.code(), listing(&dir))
}

#[cfg(unix)]
#[test]
fn interrupted_bakes_remove_their_unfinished_files() {
    for (signal, code) in [("-INT", 130), ("-TERM", 143), ("-HUP", 129)] {
        let (status, files) = interrupt_bake(&format!("signal{signal}"), signal);
        assert_eq!(status, Some(code), "{signal}");
        assert_eq!(files, ["g.json"], "{signal}: nothing left behind");
    }
}

#[test]
fn resume_clears_stale_temporaries_of_dead_bakes() {
    if !Path::new("/proc/self").exists() {
        return; // liveness is read from /proc
    }
    let dir = workdir("stale");
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    // No process can have a pid above the kernel's maximum (at most 2^22).
    std::fs::write(dir.join(".g.npy.99999999.partial"), "stale").unwrap();
    std::fs::write(dir.join(".g_r00_c00.npy.99999998.partial"), "stale").unwrap();
    // Pid 1 runs: its file may be in use and stays.
    std::fs::write(dir.join(".g.npy.1.partial"), "live").unwrap();
    std::fs::write(dir.join(".other.npy.99999999.partial"), "not ours").unwrap();
    let args = [
        "bake",
        "g.json",
        "-o",
        "g.npy",
        "--size",
        "8x8",
        "--backend",
        "cpu",
        "--resume",
    ];
    assert_eq!(run(&dir, &args).status.code(), Some(0));
    let tiled = [&args[..], &["--tile", "4"]].concat();
    assert_eq!(run(&dir, &tiled).status.code(), Some(0));
    let files = listing(&dir);
    assert!(
        !files.contains(&".g.npy.99999999.partial".to_string()),
        "{files:?}"
    );
    assert!(
        !files.contains(&".g_r00_c00.npy.99999998.partial".to_string()),
        "{files:?}"
    );
    assert!(files.contains(&".g.npy.1.partial".to_string()), "{files:?}");
    assert!(
        files.contains(&".other.npy.99999999.partial".to_string()),
        "{files:?}"
    );
}

#[test]
fn resume_rebakes_an_exr_of_another_size() {
    let dir = workdir("exr_resume");
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    let bake = |size: &str| {
        run(
            &dir,
            &[
                "bake",
                "g.json",
                "-o",
                "g.exr",
                "--size",
                size,
                "--backend",
                "cpu",
                "--resume",
            ],
        )
    };
    assert_eq!(bake("32x32").status.code(), Some(0));
    let again = bake("64x64");
    assert_eq!(again.status.code(), Some(0));
    assert!(
        !stderr(&again).contains("already there"),
        "{}",
        stderr(&again)
    );
    let exr = exr::meta::MetaData::read_from_file(dir.join("g.exr"), false).unwrap();
    assert_eq!(exr.headers[0].layer_size, exr::math::Vec2(64, 64));
    let same = bake("64x64");
    assert!(
        stderr(&same).contains("already there, skipped"),
        "{}",
        stderr(&same)
    );
}

/// `bake g.json -o v.npy --size SIZE --backend BACKEND` in `dir` with the process's address
/// space limited to `kib` KiB (`ulimit -v`).
#[cfg(unix)]
fn bake_with_address_space(dir: &Path, kib: u64, size: &str, backend: &str) -> Output {
    let script = format!(
        "ulimit -v {kib} && exec '{}' bake g.json -o v.npy --size {size} --backend {backend}",
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
fn a_cpu_bake_beyond_memory_is_an_error_not_an_abort() {
    let dir = workdir("memory");
    std::fs::write(
        dir.join("g.json"),
        r#"{"output": "n", "nodes": [{"id": "n", "type": "perlin", "dims": 3}]}"#,
    )
    .unwrap();
    // 2 GiB of address space: a 1024 x 1024 x 600 field (2.4 GiB) cannot be allocated.
    let out = bake_with_address_space(&dir, 2_000_000, "1024x1024x600", "cpu");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("size:") && err.contains("allocate"), "{err}");
    assert_eq!(listing(&dir), ["g.json"]);
}

#[cfg(unix)]
#[test]
fn a_gpu_bake_beyond_device_memory_is_an_error_not_a_panic() {
    let dir = workdir("gpu_memory");
    std::fs::write(
        dir.join("g.json"),
        r#"{"output": "n", "nodes": [{"id": "n", "type": "perlin", "dims": 3}]}"#,
    )
    .unwrap();
    // A 4 GiB 3D texture in 4 GB of address space: a CPU adapter (lavapipe) cannot allocate
    // it, and neither can a GPU of less memory; wgpu reports it as out of memory.
    let out = bake_with_address_space(&dir, 4_000_000, "1024x1024x1024", "gpu");
    let err = stderr(&out);
    if err.contains("no GPU adapter") && !noisegraph::gpu::gpu_required() {
        return;
    }
    if out.status.code() == Some(0) {
        // A device with the memory to spare baked it: nothing to check on this machine.
        return;
    }
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("out of memory") && err.contains("--tile"),
        "{err}"
    );
    assert_eq!(listing(&dir), ["g.json"]);
}

#[test]
fn headless_runs_print_no_display_noise() {
    let dir = workdir("headless");
    std::fs::write(dir.join("g.json"), GRAPH).unwrap();
    let out = command(
        &dir,
        &[
            "bake",
            "g.json",
            "-o",
            "g.png",
            "--size",
            "8x8",
            "--backend",
            "auto",
        ],
    )
    .env_remove("XDG_RUNTIME_DIR")
    .env_remove("WAYLAND_DISPLAY")
    .env_remove("DISPLAY")
    .env_remove("NODEVICE_SELECT")
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        !stderr(&out).contains("XDG_RUNTIME_DIR"),
        "{}",
        stderr(&out)
    );
    assert!(
        !stderr(&out).to_lowercase().contains("error"),
        "{}",
        stderr(&out)
    );
    // `info` still lists the adapters of every backend (GL included), without the noise.
    let info = command(&dir, &["info"])
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("DISPLAY")
        .env_remove("NODEVICE_SELECT")
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&info.stdout).into_owned();
    assert!(
        !stderr(&info).contains("XDG_RUNTIME_DIR"),
        "{}",
        stderr(&info)
    );
    if noisegraph::gpu::gpu_required() {
        assert_eq!(info.status.code(), Some(0), "{}", stderr(&info));
        assert!(listed.contains("adapters found"), "{listed}");
    }
}
