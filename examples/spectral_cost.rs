//! Cost per sample of the spectral families against Perlin: median wall time of several bakes
//! on the GPU path (whatever adapter wgpu finds, including readback) and on the CPU path.
//!
//!     cargo run --release --example spectral_cost -- [gpu_size] [cpu_size] [runs]

use std::time::Instant;

use noisegraph::gpu::RunOptions;
use noisegraph::{GpuContext, NoiseGraph, Plan, View};
use serde_json::json;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time_runs(runs: usize, mut f: impl FnMut()) -> f64 {
    f(); // warm-up: pipeline compilation, wavelet tile
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64()
            })
            .collect(),
    )
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let gpu_size = *args.first().unwrap_or(&1024) as u32;
    let cpu_size = *args.get(1).unwrap_or(&512) as u32;
    let runs = *args.get(2).unwrap_or(&5);
    let nodes = [
        ("perlin", json!({"type": "perlin"})),
        ("gabor", json!({"type": "gabor"})),
        ("phasor", json!({"type": "phasor"})),
        ("wave", json!({"type": "wave"})),
        ("wave-256", json!({"type": "wave", "waves": 256})),
        ("wavelet", json!({"type": "wavelet"})),
    ];
    let ctx = GpuContext::new().ok();
    if let Some(ctx) = &ctx {
        println!("GPU: {}", ctx.describe());
    }
    println!("CPU: {} threads", rayon::current_num_threads());
    println!("family     gpu {gpu_size}^2 ms  ns/sample  x perlin | cpu {cpu_size}^2 ms  ns/sample  x perlin");
    let mut base = (0.0, 0.0);
    for (name, node) in nodes {
        let mut node = node;
        node["id"] = json!("n");
        node["frequency"] = json!(8.0);
        let graph = NoiseGraph::from_value(&json!({"seed": 1, "output": "n", "nodes": [node]}))
            .expect("graph");
        let plan = Plan::new(&graph, None).expect("plan");
        let gpu_view = View::image(gpu_size, gpu_size);
        let cpu_view = View::image(cpu_size, cpu_size);
        let options = RunOptions::default();
        let gpu = ctx.as_ref().map_or(f64::NAN, |ctx| {
            time_runs(runs, || {
                ctx.run(&plan, &gpu_view, &options).expect("gpu bake");
            })
        });
        let cpu = time_runs(runs, || {
            noisegraph::engine::run_cpu(&plan, &cpu_view, &options).expect("cpu bake");
        });
        let gpu_ns = gpu * 1e9 / gpu_view.pixel_count() as f64;
        let cpu_ns = cpu * 1e9 / cpu_view.pixel_count() as f64;
        if name == "perlin" {
            base = (gpu_ns, cpu_ns);
        }
        println!(
            "{name:<10} {:>14.1} {:>10.2} {:>9.1} | {:>14.1} {:>10.2} {:>9.1}",
            gpu * 1e3,
            gpu_ns,
            gpu_ns / base.0,
            cpu * 1e3,
            cpu_ns,
            cpu_ns / base.1
        );
    }
}
