//! Warp fusion on a warped preset: the time of a bake with fused and unfused plans, on the
//! GPU (dispatch only, from recording to the device finishing) and on the CPU reference
//! path. Medians of 5 runs after a warm-up.
//!
//! `cargo run --release --example fusion_bench [preset] [size]` (default: marble 1024).

use std::time::{Duration, Instant};

use noisegraph::engine::run_cpu;
use noisegraph::graph::PlanOptions;
use noisegraph::{GpuContext, NoiseGraph, Plan, RunOptions, View};

const RUNS: usize = 5;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> noisegraph::Result<()> {
    let mut args = std::env::args().skip(1);
    let preset = args.next().unwrap_or_else(|| "marble".into());
    let size: u32 = args.next().map_or(1024, |s| s.parse().expect("size"));
    let path = format!(
        "{}/crates/noisegraph/src/presets/{preset}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("preset file");
    let graph = NoiseGraph::from_json(&text)?;
    let view = View::image(size, size);
    let options = RunOptions::default();
    let plans = [
        (
            "unfused",
            Plan::with_options(&graph, None, PlanOptions { fuse: false })?,
        ),
        (
            "fused",
            Plan::with_options(&graph, None, PlanOptions { fuse: true })?,
        ),
    ];
    println!("{preset} at {size}x{size}, median of {RUNS} runs");
    let gpu = GpuContext::new().ok();
    let mut gpu_ms = Vec::new();
    let mut cpu_ms = Vec::new();
    for (name, plan) in &plans {
        if let Some(ctx) = &gpu {
            ctx.run_timed(plan, &view, &options)?; // warm-up: pipelines
            let times = (0..RUNS)
                .map(|_| {
                    ctx.run_timed(plan, &view, &options)
                        .map(|(_, t)| t.dispatch)
                })
                .collect::<noisegraph::Result<Vec<_>>>()?;
            gpu_ms.push(median(times).as_secs_f64() * 1e3);
        }
        run_cpu(plan, &view, &options)?; // warm-up: thread pool
        let times = (0..RUNS)
            .map(|_| {
                let start = Instant::now();
                run_cpu(plan, &view, &options).map(|_| start.elapsed())
            })
            .collect::<noisegraph::Result<Vec<_>>>()?;
        cpu_ms.push(median(times).as_secs_f64() * 1e3);
        println!("  {name}: {} stages", plan.stages.len());
    }
    if let Some(ctx) = &gpu {
        println!(
            "  GPU ({}): unfused {:.1} ms, fused {:.1} ms, speed-up {:.2}x",
            ctx.describe(),
            gpu_ms[0],
            gpu_ms[1],
            gpu_ms[0] / gpu_ms[1]
        );
    }
    println!(
        "  CPU ({} threads): unfused {:.1} ms, fused {:.1} ms, speed-up {:.2}x",
        rayon::current_num_threads(),
        cpu_ms[0],
        cpu_ms[1],
        cpu_ms[0] / cpu_ms[1]
    );
    Ok(())
}
