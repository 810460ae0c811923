//! The CPU path on the workloads of `cargo bench --bench compare`, timed by CPU time as well
//! as wall time, so that runs on a busy machine can still be compared:
//! `cargo run --release --example cpu_bench -- [threads] [runs] [workload...]` prints the
//! median and the lowest wall time and the lowest CPU time of `runs` runs after a warm-up.
//! `NOISEGRAPH_CPU_VECTOR=avx2` (or `baseline`) holds the sample loops to a narrower unit.

use std::time::Instant;

use noisegraph::engine::run_cpu;
use noisegraph::{NoiseGraph, Plan, RunOptions, View};

/// CPU time of the whole process (all threads), in seconds.
fn process_cpu_seconds() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `ts` is a valid timespec; the clock id is Linux's.
    unsafe { clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.sec as f64 + ts.nsec as f64 * 1e-9
}

fn graph(family: &str, dims: u32, frequency: f64, octaves: u32) -> NoiseGraph {
    let fractal = if octaves > 1 {
        format!(
            r#", {{"id": "f", "type": "fbm", "source": "n", "octaves": {octaves}, "lacunarity": 2.0, "gain": 0.5}}"#
        )
    } else {
        String::new()
    };
    let output = if octaves > 1 { "f" } else { "n" };
    NoiseGraph::from_json(&format!(
        r#"{{"seed": 1337, "output": "{output}", "nodes": [{{"id": "n", "type": "{family}", "frequency": {frequency}, "dims": {dims}}}{fractal}]}}"#
    ))
    .expect("benchmark graph")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let threads: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(1);
    let runs: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5).max(1);
    let only: Vec<&str> = args.iter().skip(2).map(String::as_str).collect();
    let n = 2048;
    let workloads = [
        ("fbm", graph("perlin", 2, 32.0, 8), View::image(n, n)),
        ("value", graph("value", 2, 32.0, 1), View::image(n, n)),
        ("perlin", graph("perlin", 2, 32.0, 1), View::image(n, n)),
        ("simplex", graph("simplex", 2, 32.0, 1), View::image(n, n)),
        ("cellular", graph("cellular", 2, 32.0, 1), View::image(n, n)),
        (
            "perlin3d",
            graph("perlin", 3, 8.0, 1),
            View::volume(128, 128, 128),
        ),
    ];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    println!(
        "vector width {}, {threads} threads, median/min of {runs} runs",
        noisegraph::vector::vector_width()
    );
    for (name, g, view) in &workloads {
        if !only.is_empty() && !only.contains(name) {
            continue;
        }
        let plan = Plan::new(g, None).unwrap();
        let mut walls = Vec::new();
        let mut best_cpu = f64::MAX;
        for run in 0..runs + 1 {
            let (wall, cpu) = pool.install(|| {
                let t = Instant::now();
                let c = process_cpu_seconds();
                std::hint::black_box(run_cpu(&plan, view, &RunOptions::default()).unwrap());
                (t.elapsed().as_secs_f64(), process_cpu_seconds() - c)
            });
            if run > 0 {
                walls.push(wall);
                best_cpu = best_cpu.min(cpu);
            }
        }
        walls.sort_by(f64::total_cmp);
        println!(
            "{name:>9}: wall median {:7.2} ms min {:7.2} ms, cpu min {:7.2} ms",
            walls[walls.len() / 2] * 1e3,
            walls[0] * 1e3,
            best_cpu * 1e3
        );
    }
}
