//! The GPU benchmark (`benches/gpu/run.sh`, or `cargo bench --bench gpu -- [--quick]`): the
//! compare workloads, the spectral families, value + gradient, point queries, a
//! whole-process bake and the frames of an embedded `CompiledGraph`, on whatever adapter
//! wgpu finds; kernel times from timestamp queries, apart from upload and readback; a
//! roofline per workload (operations per sample counted from the kernels' naga IR, bytes
//! moved, fractions of the peaks given with `--peak-flops` and `--peak-bw`). Writes
//! `gpu-bench.md` (the table for BENCHMARKS.md) and `gpu-bench.json` to `--out DIR`.

mod cost;
mod measure;
mod ops;
mod report;
mod timer;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use noisegraph::gpu::Specialize;
use noisegraph::{FieldForm, NoiseGraph, View};

use report::{Report, Roofline};
use timer::Bench;

/// An H200's peaks: fp32 (no tensor cores) and HBM3e bandwidth.
const H200_PEAK_FLOPS: f64 = 60e12;
const H200_PEAK_BW: f64 = 4.8e12;

#[derive(Parser)]
#[command(about = "noisegraph GPU benchmark: kernel times, roofline, Markdown and JSON")]
struct Args {
    /// The short version (smaller sizes, fewer repetitions): CI runs it on lavapipe.
    #[arg(long)]
    quick: bool,
    /// Folder for gpu-bench.md and gpu-bench.json.
    #[arg(long, value_name = "DIR", default_value = "target/gpu-bench")]
    out: PathBuf,
    /// The `noisegraph` binary the whole-process bake runs (default: the one cargo built
    /// with this bench, else `noisegraph` beside this executable).
    #[arg(long, value_name = "PATH")]
    noisegraph: Option<PathBuf>,
    /// The commit the figures are of (default: `git rev-parse --short HEAD` here).
    #[arg(long)]
    commit: Option<String>,
    /// The adapter's peak operations per second (fp32 FLOP/s), e.g. 60e12 for an H200
    /// (the default when the adapter's name says H200; otherwise the roofline is "n/a").
    #[arg(long, value_name = "OP/S", value_parser = positive_rate, allow_hyphen_values = true)]
    peak_flops: Option<f64>,
    /// The adapter's peak memory bandwidth in bytes per second, e.g. 4.8e12 for an H200.
    #[arg(long, value_name = "B/S", value_parser = positive_rate, allow_hyphen_values = true)]
    peak_bw: Option<f64>,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
}

/// A peak rate: a finite number above 0 (`60e12`); clap reports anything else as a usage
/// error (exit status 2).
fn positive_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!(
            "a peak rate is a number above 0, such as 60e12 (got '{text}')"
        )),
    }
}

/// Sizes and repetitions of a run.
struct Scale {
    reps: usize,
    /// The 2D images of the single-octave families, the first fBm and value + gradient.
    image: u32,
    /// The large fBm.
    large: u32,
    volume: u32,
    spectral: u32,
    points: Vec<usize>,
    bake: u32,
    bake_reps: usize,
    frame: [u32; 2],
    frames: usize,
}

impl Scale {
    fn new(quick: bool) -> Scale {
        if quick {
            Scale {
                reps: 3,
                image: 512,
                large: 1024,
                volume: 64,
                spectral: 256,
                points: vec![1 << 20],
                bake: 1024,
                bake_reps: 1,
                frame: [640, 360],
                frames: 10,
            }
        } else {
            Scale {
                reps: 7,
                image: 2048,
                large: 8192,
                volume: 256,
                spectral: 2048,
                points: vec![1 << 20, 64 << 20],
                bake: 8192,
                bake_reps: 3,
                frame: [1920, 1080],
                frames: 60,
            }
        }
    }
}

/// A graph of one family node (`dims`, `frequency` cells across the view), summed over
/// `octaves` by an fBm node (lacunarity 2, gain 0.5) when more than one.
fn graph_json(family: &str, dims: u32, frequency: f64, octaves: u32) -> String {
    let fractal = if octaves > 1 {
        format!(
            r#", {{"id": "f", "type": "fbm", "source": "n", "octaves": {octaves}, "lacunarity": 2.0, "gain": 0.5}}"#
        )
    } else {
        String::new()
    };
    let output = if octaves > 1 { "f" } else { "n" };
    format!(
        r#"{{"seed": 1337, "output": "{output}", "nodes": [{{"id": "n", "type": "{family}", "frequency": {frequency}, "dims": {dims}}}{fractal}]}}"#
    )
}

fn graph(family: &str, dims: u32, frequency: f64, octaves: u32) -> NoiseGraph {
    NoiseGraph::from_json(&graph_json(family, dims, frequency, octaves)).expect("bench graph")
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gpu bench: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One workload of the run.
enum Job {
    Plan {
        name: String,
        graph: NoiseGraph,
        view: View,
        form: FieldForm,
        specialize: Specialize,
    },
    Points(usize),
    Bake(u32),
    Frames([u32; 2]),
}

impl Job {
    fn label(&self) -> String {
        match self {
            Job::Plan { name, view, .. } => format!("{name} {}", measure::size_label(view)),
            Job::Points(n) => format!("point query, {n} points"),
            Job::Bake(n) => format!("whole-process bake {n}x{n}"),
            Job::Frames([w, h]) => format!("CompiledGraph frame {w}x{h}"),
        }
    }
}

/// The run's workloads, in order. Frequencies keep the compare bench's 1/64 cycle per pixel
/// in 2D and 1/16 per voxel.
fn jobs(scale: &Scale) -> Vec<Job> {
    let plan = |name: &str, graph, view, form, specialize| Job::Plan {
        name: name.into(),
        graph,
        view,
        form,
        specialize,
    };
    let mut jobs = Vec::new();
    for n in [scale.image, scale.large] {
        for specialize in [Specialize::Never, Specialize::Always] {
            jobs.push(plan(
                "fBm 8 oct. Perlin 2D",
                graph("perlin", 2, n as f64 / 64.0, 8),
                View::image(n, n),
                FieldForm::Value,
                specialize,
            ));
        }
    }
    let n = scale.image;
    for family in ["value", "perlin", "simplex", "cellular"] {
        jobs.push(plan(
            &format!("1 oct. {family} 2D"),
            graph(family, 2, n as f64 / 64.0, 1),
            View::image(n, n),
            FieldForm::Value,
            Specialize::Auto,
        ));
    }
    let m = scale.volume;
    jobs.push(plan(
        "1 oct. Perlin 3D",
        graph("perlin", 3, m as f64 / 16.0, 1),
        View::volume(m, m, m),
        FieldForm::Value,
        Specialize::Auto,
    ));
    let s = scale.spectral;
    for family in ["gabor", "phasor", "wave", "wavelet"] {
        jobs.push(plan(
            &format!("1 oct. {family} 2D"),
            graph(family, 2, s as f64 / 64.0, 1),
            View::image(s, s),
            FieldForm::Value,
            Specialize::Auto,
        ));
    }
    for (form, name) in [
        (FieldForm::Value, "fBm 8 oct. Perlin 2D, value"),
        (
            FieldForm::Gradient,
            "fBm 8 oct. Perlin 2D, value + gradient",
        ),
    ] {
        jobs.push(plan(
            name,
            graph("perlin", 2, n as f64 / 64.0, 8),
            View::image(n, n),
            form,
            Specialize::Auto,
        ));
    }
    jobs.extend(scale.points.iter().map(|&count| Job::Points(count)));
    jobs.push(Job::Bake(scale.bake));
    jobs.push(Job::Frames(scale.frame));
    jobs
}

fn run(args: &Args) -> Result<(), String> {
    let bench = Bench::open()?;
    let a = &bench.adapter;
    println!(
        "adapter: {} ({}, {}), vendor {:#06x} device {:#06x}\ndriver: {} {}",
        a.name, a.backend, a.device_type, a.vendor, a.device, a.driver, a.driver_info
    );
    println!(
        "kernel time: {}",
        match a.timestamp_period_ns {
            Some(p) => format!("timestamp queries ({p} ns per tick)"),
            None => "n/a (the adapter has no TIMESTAMP_QUERY): submit + device.poll wait".into(),
        }
    );
    let h200 = a.name.contains("H200");
    let roofline = Roofline {
        peak_ops_per_s: args.peak_flops.or(h200.then_some(H200_PEAK_FLOPS)),
        peak_bytes_per_s: args.peak_bw.or(h200.then_some(H200_PEAK_BW)),
    };
    let scale = Scale::new(args.quick);
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let noisegraph = noisegraph_binary(args)?;
    // The bake's output (256 MiB at 8192²) goes to a temporary folder, not to --out (which
    // may be copied back from a device machine), and is deleted afterwards.
    let scratch = std::env::temp_dir().join(format!("noisegraph-gpu-bench-{}", std::process::id()));
    let mut report = Report {
        adapter: bench.adapter.clone(),
        roofline,
        quick: args.quick,
        build: if cfg!(debug_assertions) {
            "test profile".into()
        } else {
            "release".into()
        },
        commit: args
            .commit
            .clone()
            .unwrap_or_else(|| git(&["rev-parse", "--short", "HEAD"])),
        date_utc: utc_now(),
        cpu_threads: rayon::current_num_threads(),
        rows: Vec::new(),
        failures: Vec::new(),
    };
    let reps = scale.reps;
    for job in jobs(&scale) {
        let label = job.label();
        let result = match &job {
            Job::Plan {
                name,
                graph,
                view,
                form,
                specialize,
            } => measure::plan(&bench, name, graph, *view, *form, *specialize, reps),
            Job::Points(n) => measure::points(&bench, &graph("perlin", 2, 4.0, 8), *n, reps),
            Job::Bake(n) => measure::bake(
                &noisegraph,
                &graph_json("perlin", 2, *n as f64 / 64.0, 8),
                *n,
                scale.bake_reps,
                &scratch,
            ),
            Job::Frames([w, h]) => measure::frames(
                &bench,
                &graph("perlin", 3, *w as f64 / 64.0, 8),
                View::image(*w, *h),
                scale.frames,
            ),
        };
        match result {
            Ok(mut row) => {
                roofline.apply(&mut row);
                eprintln!(
                    "  {label}: kernel {} ms, total {} ms",
                    row.kernel_ms.map_or("n/a".into(), |v| format!("{v:.3}")),
                    row.total_ms.map_or("n/a".into(), |v| format!("{v:.1}"))
                );
                report.rows.push(row);
            }
            // The other workloads still run: a device machine's call is not wasted.
            Err(e) => {
                eprintln!("  {label}: FAILED: {e}");
                report.failures.push(format!("{label}: {e}"));
            }
        }
        // Written after every workload: a run stopped at its time limit keeps what it measured.
        write_report(&report, &args.out)?;
    }
    println!("\n{}", report.markdown());
    for path in ["gpu-bench.md", "gpu-bench.json"] {
        eprintln!("written to {}", args.out.join(path).display());
    }
    match report.failures.len() {
        0 => Ok(()),
        n => Err(format!(
            "{n} workload(s) failed:\n{}",
            report.failures.join("\n")
        )),
    }
}

fn write_report(report: &Report, out: &std::path::Path) -> Result<(), String> {
    let json = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    for (name, text) in [
        ("gpu-bench.md", report.markdown()),
        ("gpu-bench.json", json),
    ] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// `--noisegraph`, else the binary cargo built with this bench, else `noisegraph` beside
/// this executable (a prebuilt copy, see run.sh).
fn noisegraph_binary(args: &Args) -> Result<PathBuf, String> {
    if let Some(path) = &args.noisegraph {
        return Ok(path.clone());
    }
    let built = PathBuf::from(env!("CARGO_BIN_EXE_noisegraph"));
    if built.is_file() {
        return Ok(built);
    }
    let beside = std::env::current_exe()
        .map_err(|e| e.to_string())?
        .with_file_name("noisegraph");
    if beside.is_file() {
        Ok(beside)
    } else {
        Err(format!(
            "no noisegraph binary at {} or {}: pass --noisegraph PATH",
            built.display(),
            beside.display()
        ))
    }
}

/// `git ARGS` in the current folder, or "unknown" (a copy without .git).
fn git(args: &[&str]) -> String {
    std::process::Command::new("git")
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// The time now as `YYYY-MM-DD HH:MM` (UTC), from the system clock.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}",
        rest / 3600,
        rest % 3600 / 60
    )
}
