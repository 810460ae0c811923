//! Analytic normals against central differences: the GPU time of an 8-octave fBm Perlin
//! normal map made in one analytic pass, and made as a height stage followed by the
//! central-difference pass; then the angle between the two maps. Median of 5 runs after a
//! warm-up, from recording to the device finishing.
//!
//! `cargo run --release --example analytic_normals [size]` (default 1024).

use std::sync::Arc;
use std::time::{Duration, Instant};

use noisegraph::gpu::{AnalyticNormalPass, NormalMapFormat, NormalMapOptions, NormalMapPass};
use noisegraph::{CompiledGraph, GpuContext, NoiseGraph, View};

const RUNS: usize = 5;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Records with `record`, submits and waits, `RUNS` times after one warm-up.
fn time(ctx: &GpuContext, mut record: impl FnMut(&mut wgpu::CommandEncoder)) -> Duration {
    let mut runs = Vec::new();
    for i in 0..=RUNS {
        let start = Instant::now();
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        record(&mut encoder);
        let index = ctx.queue().submit(Some(encoder.finish()));
        ctx.device()
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .expect("device finished");
        if i > 0 {
            runs.push(start.elapsed());
        }
    }
    median(runs)
}

fn main() -> noisegraph::Result<()> {
    let size: u32 = std::env::args()
        .nth(1)
        .map_or(1024, |s| s.parse().expect("size"));
    let graph = NoiseGraph::from_json(
        r#"{"seed": 7, "output": "terrain", "nodes": [
            {"id": "n", "type": "perlin", "frequency": 4},
            {"id": "terrain", "type": "fbm", "source": "n", "octaves": 8}]}"#,
    )?;
    let ctx = Arc::new(GpuContext::new()?);
    let view = View::image(size, size);
    let options = NormalMapOptions {
        format: NormalMapFormat::Rgba16Float,
        height_scale: 0.05,
        ..NormalMapOptions::for_view(&view)
    };

    let mut analytic = AnalyticNormalPass::new(&ctx, &graph, None, view, options)?;
    let analytic_out = analytic.create_output();
    let t_analytic = time(&ctx, |e| analytic.record(e, &analytic_out).expect("record"));

    let mut noise = CompiledGraph::new(&ctx, &graph, None, view)?;
    let height = noise.create_target();
    let mut central = NormalMapPass::new(&ctx, [size, size], options)?;
    let central_out = central.create_output();
    let t_height = time(&ctx, |e| noise.record(e, &height).expect("record"));
    let t_both = time(&ctx, |e| {
        noise.record(e, &height).expect("record");
        central.record(e, &height, &central_out).expect("record");
    });

    let a = ctx.read_rgba(&analytic_out)?;
    let c = ctx.read_rgba(&central_out)?;
    let mut angles: Vec<f64> = Vec::new();
    for y in 1..size - 1 {
        for x in 1..size - 1 {
            let i = (y * size + x) as usize;
            let dot: f64 = (0..3).map(|k| a[i][k] as f64 * c[i][k] as f64).sum();
            let la: f64 = (0..3).map(|k| (a[i][k] as f64).powi(2)).sum::<f64>().sqrt();
            let lc: f64 = (0..3).map(|k| (c[i][k] as f64).powi(2)).sum::<f64>().sqrt();
            angles.push((dot / (la * lc)).clamp(-1.0, 1.0).acos().to_degrees());
        }
    }
    let mean = angles.iter().sum::<f64>() / angles.len() as f64;
    let max = angles.iter().cloned().fold(0.0, f64::max);

    println!("{}", ctx.describe());
    println!("{size}x{size}, 8-octave fBm Perlin, Rgba16Float, median of {RUNS} runs");
    println!("analytic normal pass:            {:8.2} ms", ms(t_analytic));
    println!("height stage alone:              {:8.2} ms", ms(t_height));
    println!("height stage + central pass:     {:8.2} ms", ms(t_both));
    println!("angle analytic vs central: mean {mean:.4} deg, max {max:.3} deg");
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
