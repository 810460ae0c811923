//! The cost of exact gradients: a value bake against a value + gradient bake of the same
//! plan, on the CPU reference path and on the GPU (readback included: one f32 per pixel
//! against four), in interleaved pairs after warm-ups (pipelines, specialized kernels, the
//! thread pool). Prints the medians of each and the median of the per-pair ratios.
//!
//! `cargo run --release --example gradient_bench [runs] [size]` (default: 7 runs, 2048):
//! an 8-octave Perlin fBm and the marble preset.

use std::time::Instant;

use noisegraph::engine::{run_cpu, run_cpu_gradient};
use noisegraph::{GpuContext, NoiseGraph, Plan, RunOptions, View};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `runs` interleaved pairs of (value, gradient) bakes: (median value ms, median
/// gradient ms, median ratio).
fn pairs(
    runs: usize,
    mut value: impl FnMut() -> noisegraph::Result<()>,
    mut gradient: impl FnMut() -> noisegraph::Result<()>,
) -> noisegraph::Result<(f64, f64, f64)> {
    let time = |f: &mut dyn FnMut() -> noisegraph::Result<()>| -> noisegraph::Result<f64> {
        let start = Instant::now();
        f()?;
        Ok(start.elapsed().as_secs_f64() * 1e3)
    };
    // Warm-ups: thread pool, pipelines, then the specialized kernels of repeated runs.
    for _ in 0..2 {
        value()?;
        gradient()?;
    }
    let (mut v, mut g, mut r) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let a = time(&mut value)?;
        let b = time(&mut gradient)?;
        v.push(a);
        g.push(b);
        r.push(b / a);
    }
    Ok((median(v), median(g), median(r)))
}

fn main() -> noisegraph::Result<()> {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().map_or(7, |s| s.parse().expect("runs"));
    let size: u32 = args.next().map_or(2048, |s| s.parse().expect("size"));
    let fbm = NoiseGraph::from_json(
        r#"{"seed": 1337, "output": "f", "nodes": [
            {"id": "n", "type": "perlin", "frequency": 4},
            {"id": "f", "type": "fbm", "source": "n", "octaves": 8}]}"#,
    )?;
    let marble = noisegraph::presets::graph("marble")?;
    let view = View::image(size, size);
    let options = RunOptions::default();
    let gpu = GpuContext::new().ok();
    println!(
        "value vs value + gradient bakes at {size}x{size}, median of {runs} interleaved pairs"
    );
    for (name, graph) in [("perlin fbm 8 octaves", &fbm), ("marble preset", &marble)] {
        let plan = Plan::new(graph, None)?;
        let (v, g, r) = pairs(
            runs,
            || run_cpu(&plan, &view, &options).map(|_| ()),
            || run_cpu_gradient(&plan, &view, &options).map(|_| ()),
        )?;
        println!(
            "  {name}, CPU ({} threads): value {v:.1} ms, gradient {g:.1} ms, ratio {r:.2}",
            rayon::current_num_threads()
        );
        if let Some(ctx) = &gpu {
            let (v, g, r) = pairs(
                runs,
                || ctx.run(&plan, &view, &options).map(|_| ()),
                || ctx.run_gradient(&plan, &view, &options).map(|_| ()),
            )?;
            println!(
                "  {name}, GPU ({}), readback included: value {v:.1} ms, gradient {g:.1} ms, ratio {r:.2}",
                ctx.describe()
            );
        }
    }
    Ok(())
}
