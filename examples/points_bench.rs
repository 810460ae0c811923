//! Point queries against grid bakes: N random 2D points through an 8-octave Perlin fBm on the
//! CPU path (and, with a GPU adapter, through the GPU point query, upload and readback
//! included), beside a CPU bake of the same graph, in Msamples/s (points or pixels per
//! second). Medians of 7 runs after a warm-up.
//!
//! `cargo run --release --example points_bench [points] [bake size]` (default: 1000000 2048).

use std::time::{Duration, Instant};

use std::sync::Arc;

use noisegraph::engine::run_cpu;
use noisegraph::gpu::{GpuPoint, GpuPointQuery};
use noisegraph::query::PointQuery;
use noisegraph::{GpuContext, NoiseGraph, Plan, View};

const RUNS: usize = 7;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time(mut f: impl FnMut()) -> Duration {
    f(); // warm-up
    median(
        (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed()
            })
            .collect(),
    )
}

fn rate(count: usize, t: Duration) -> f64 {
    count as f64 / t.as_secs_f64() / 1e6
}

fn main() -> noisegraph::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .map_or(1_000_000, |s| s.parse().expect("points"));
    let size: u32 = args.next().map_or(2048, |s| s.parse().expect("size"));
    let graph = NoiseGraph::from_json(
        r#"{"seed": 1337, "output": "fbm", "nodes": [
            {"id": "base", "type": "perlin", "frequency": 4.0},
            {"id": "fbm", "type": "fbm", "source": "base", "octaves": 8}]}"#,
    )?;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let positions: Vec<f64> = (0..2 * n)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    println!(
        "8-octave Perlin fBm, {} threads, median of {RUNS} runs",
        rayon::current_num_threads()
    );
    let plan = Plan::new(&graph, None)?;
    let view = View::image(size, size);
    let pixels = view.pixel_count() as usize;
    let query = PointQuery::new(&graph, None)?;
    let mut out = vec![0.0f32; n];
    // Bake and query alternate, so that the load of a shared machine weighs on both alike;
    // the ratio is taken within each pair.
    let bake = || {
        run_cpu(&plan, &view, &Default::default()).expect("bake");
    };
    bake();
    query.values_into(&positions, &mut out).expect("query");
    let (mut bakes, mut queries, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let t = Instant::now();
        bake();
        let b = t.elapsed();
        let t = Instant::now();
        query.values_into(&positions, &mut out).expect("query");
        let q = t.elapsed();
        ratios.push(rate(n, q) / rate(pixels, b));
        bakes.push(b);
        queries.push(q);
    }
    ratios.sort_by(f64::total_cmp);
    let (bake, points) = (median(bakes), median(queries));
    println!(
        "CPU bake {size}x{size}:          {:8.2} ms  {:7.1} Msamples/s",
        bake.as_secs_f64() * 1e3,
        rate(pixels, bake)
    );
    println!(
        "CPU query, {n} random points: {:8.2} ms  {:7.1} Msamples/s  (pairs: {:.2} to {:.2} of the bake's rate, median {:.2})",
        points.as_secs_f64() * 1e3,
        rate(n, points),
        ratios[0],
        ratios[RUNS - 1],
        ratios[RUNS / 2]
    );
    if std::env::var("POINTS_BENCH_VALUES_ONLY").is_ok() {
        return Ok(());
    }
    let mut grads = vec![0.0f32; 3 * n];
    let gradients = time(|| query.gradients_into(&positions, &mut grads).expect("query"));
    println!(
        "CPU query with gradients:        {:8.2} ms  {:7.1} Msamples/s",
        gradients.as_secs_f64() * 1e3,
        rate(n, gradients)
    );
    gpu(&graph, &positions)
}

/// The GPU point query: `run` (split on the host, upload, dispatch, readback) and the
/// dispatch alone on points already on the device (`record`, submitted and waited for).
fn gpu(graph: &NoiseGraph, positions: &[f64]) -> noisegraph::Result<()> {
    let ctx = match GpuContext::new() {
        Ok(ctx) => Arc::new(ctx),
        Err(e) => {
            println!("GPU: none ({e})");
            return Ok(());
        }
    };
    let n = positions.len() / 2;
    let query = GpuPointQuery::new(ctx.clone(), graph, None, false)?;
    let run = time(|| {
        query.run(positions).expect("GPU query");
    });
    println!(
        "GPU query ({}), upload + readback: {:8.2} ms  {:7.1} Msamples/s",
        ctx.describe(),
        run.as_secs_f64() * 1e3,
        rate(n, run)
    );
    use wgpu::util::DeviceExt;
    let device = ctx.device();
    let points: Vec<GpuPoint> = positions
        .chunks(2)
        .map(|p| GpuPoint::split(p).expect("split"))
        .collect();
    let points = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("points"),
        contents: bytemuck::cast_slice(&points),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let out = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("values"),
        size: 4 * n as u64,
        usage: wgpu::BufferUsages::STORAGE,
        mapped_at_creation: false,
    });
    let dispatch = time(|| {
        let mut encoder = device.create_command_encoder(&Default::default());
        query
            .record(&mut encoder, &points, &out, n as u32)
            .expect("record");
        ctx.queue().submit(Some(encoder.finish()));
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .expect("wait");
    });
    println!(
        "GPU query, dispatch only (record): {:8.2} ms  {:7.1} Msamples/s",
        dispatch.as_secs_f64() * 1e3,
        rate(n, dispatch)
    );
    Ok(())
}
