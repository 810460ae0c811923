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

use report::{Report, Roofline, Row};
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
    #[arg(long, value_name = "OP/S")]
    peak_flops: Option<f64>,
    /// The adapter's peak memory bandwidth in bytes per second, e.g. 4.8e12 for an H200.
    #[arg(long, value_name = "B/S")]
    peak_bw: Option<f64>,
    /// Passed by `cargo bench`; ignored.
    #[arg(long, hide = true)]
    bench: bool,
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
    let out = &args.out;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;

    let mut rows: Vec<Row> = Vec::new();
    let mut push = |row: Row| {
        let mut row = row;
        roofline.apply(&mut row);
        eprintln!(
            "  {} {}: kernel {} ms, total {} ms",
            row.workload,
            row.size,
            row.kernel_ms.map_or("n/a".into(), |v| format!("{v:.3}")),
            row.total_ms.map_or("n/a".into(), |v| format!("{v:.1}"))
        );
        rows.push(row);
    };
    let reps = scale.reps;
    // Frequencies keep the compare bench's 1/64 cycle per pixel in 2D and 1/16 per voxel.
    for n in [scale.image, scale.large] {
        let g = graph("perlin", 2, n as f64 / 64.0, 8);
        for specialize in [Specialize::Never, Specialize::Always] {
            push(measure::plan(
                &bench,
                "fBm 8 oct. Perlin 2D",
                &g,
                View::image(n, n),
                FieldForm::Value,
                specialize,
                reps,
            )?);
        }
    }
    for family in ["value", "perlin", "simplex", "cellular"] {
        let n = scale.image;
        push(measure::plan(
            &bench,
            &format!("1 oct. {family} 2D"),
            &graph(family, 2, n as f64 / 64.0, 1),
            View::image(n, n),
            FieldForm::Value,
            Specialize::Auto,
            reps,
        )?);
    }
    let m = scale.volume;
    push(measure::plan(
        &bench,
        "1 oct. Perlin 3D",
        &graph("perlin", 3, m as f64 / 16.0, 1),
        View::volume(m, m, m),
        FieldForm::Value,
        Specialize::Auto,
        reps,
    )?);
    for family in ["gabor", "phasor", "wave", "wavelet"] {
        let n = scale.spectral;
        push(measure::plan(
            &bench,
            &format!("1 oct. {family} 2D"),
            &graph(family, 2, n as f64 / 64.0, 1),
            View::image(n, n),
            FieldForm::Value,
            Specialize::Auto,
            reps,
        )?);
    }
    let n = scale.image;
    let fbm = graph("perlin", 2, n as f64 / 64.0, 8);
    for (form, name) in [
        (FieldForm::Value, "fBm 8 oct. Perlin 2D, value"),
        (
            FieldForm::Gradient,
            "fBm 8 oct. Perlin 2D, value + gradient",
        ),
    ] {
        push(measure::plan(
            &bench,
            name,
            &fbm,
            View::image(n, n),
            form,
            Specialize::Auto,
            reps,
        )?);
    }
    let point_graph = graph("perlin", 2, 4.0, 8);
    for &count in &scale.points {
        push(measure::points(&bench, &point_graph, count, reps)?);
    }
    // The bake's output (256 MiB at 8192²) goes to a temporary folder, not to --out (which
    // may be copied back from a device machine), and is deleted after each run.
    let scratch = std::env::temp_dir().join(format!("noisegraph-gpu-bench-{}", std::process::id()));
    let b = scale.bake;
    push(measure::bake(
        &noisegraph_binary(args)?,
        &graph_json("perlin", 2, b as f64 / 64.0, 8),
        b,
        scale.bake_reps,
        &scratch,
    )?);
    let [w, h] = scale.frame;
    push(measure::frames(
        &bench,
        &graph("perlin", 3, w as f64 / 64.0, 8),
        View::image(w, h),
        scale.frames,
    )?);

    let report = Report {
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
        rows,
    };
    let markdown = report.markdown();
    println!("\n{markdown}");
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    for (name, text) in [("gpu-bench.md", &markdown), ("gpu-bench.json", &json)] {
        let path = out.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("written to {}", path.display());
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
