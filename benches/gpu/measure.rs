//! The four kinds of measurement: a plan through the executor, point queries, a
//! whole-process bake with the `noisegraph` binary, and the frames of an embedded
//! `CompiledGraph`. Each runs once to warm up (pipelines compiled, memory touched), then
//! `reps` times; the row holds the medians.

use std::path::Path;
use std::time::{Duration, Instant};

use noisegraph::gpu::{GpuPoint, GpuPointQuery, RunOptions, Specialize};
use noisegraph::{CompiledGraph, FieldForm, NoiseGraph, Plan, View};
use rayon::prelude::*;
use wgpu::util::DeviceExt;

use crate::cost::{plan_cost, point_cost};
use crate::report::{median, ms, Row};
use crate::timer::Bench;

type Result<T> = std::result::Result<T, String>;

fn err(e: noisegraph::Error) -> String {
    e.to_string()
}

pub fn size_label(view: &View) -> String {
    let [w, h, d] = view.size;
    if view.is_volume() {
        format!("{w}x{h}x{d}")
    } else {
        format!("{w}x{h}")
    }
}

/// A plan run through `GpuContext::encode_plan_in` between timestamps, then its target read
/// back (`read_field`, or `read_rgba` in gradient form) and its textures recycled. As in
/// `GpuContext::run`, a split stage's partial-sum texture is made (and zero-filled) per run.
pub fn plan(
    bench: &Bench,
    workload: &str,
    graph: &NoiseGraph,
    view: View,
    form: FieldForm,
    specialize: Specialize,
    reps: usize,
) -> Result<Row> {
    let plan = Plan::new(graph, None).map_err(err)?;
    let options = RunOptions {
        specialize,
        ..RunOptions::default()
    };
    let ctx = &bench.ctx;
    let (mut kernel, mut record, mut wait, mut readback) = (vec![], vec![], vec![], vec![]);
    let mut checksum = 0.0f64;
    for rep in 0..=reps {
        let mut recorded = Duration::ZERO;
        let (output, timed) = bench.time(|encoder| {
            let start = Instant::now();
            let out = ctx.encode_plan_in(encoder, &plan, &view, &options, form);
            recorded = start.elapsed();
            out
        })?;
        let target = &output.textures[plan.target];
        let start = Instant::now();
        checksum = match form {
            FieldForm::Value => ctx.read_field(target).map_err(err)?.data[0] as f64,
            FieldForm::Gradient => ctx.read_rgba(target).map_err(err)?[0][0] as f64,
        };
        let read = start.elapsed();
        // The next repetition reuses the textures, as `GpuContext::run` does: a fresh texture
        // would add wgpu's zero-fill to the kernel time.
        ctx.recycle(output);
        if rep > 0 {
            kernel.extend(timed.kernel.map(ms));
            record.push(ms(recorded));
            wait.push(ms(timed.submit_wait));
            readback.push(ms(read));
        }
    }
    if !checksum.is_finite() {
        return Err(format!("{workload}: the first sample is {checksum}"));
    }
    let record = median(record);
    let wait = median(wait);
    let readback = median(readback);
    Ok(Row {
        workload: workload.into(),
        size: size_label(&view),
        samples: view.pixel_count(),
        repetitions: reps,
        kernel_ms: (!kernel.is_empty()).then(|| median(kernel)),
        record_ms: Some(record),
        submit_wait_ms: Some(wait),
        upload_ms: None,
        readback_ms: Some(readback),
        total_ms: Some(record + wait + readback),
        cost: Some(plan_cost(&plan, &view, &options, form)?),
        note: match specialize {
            Specialize::Never => "generic kernels".into(),
            Specialize::Always => "specialized kernels".into(),
            Specialize::Auto => String::new(),
        },
        roofline: None,
    })
}

/// `n` deterministic pseudo-random 2D positions in [0, 1)^2 (xorshift64*).
pub fn random_positions(n: usize) -> Vec<f64> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    (0..2 * n)
        .map(|_| {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// Point queries of `n` random 2D points: the host split and upload, the kernels
/// (`GpuPointQuery::record` in batches of at most `max_points_per_record`) between
/// timestamps, the readback, and `GpuPointQuery::run` end to end.
pub fn points(bench: &Bench, graph: &NoiseGraph, n: usize, reps: usize) -> Result<Row> {
    let query = GpuPointQuery::new(bench.ctx.clone(), graph, None, false).map_err(err)?;
    let positions = random_positions(n);
    let device = bench.device();
    let limits = bench.ctx.limits();
    let point_bytes = std::mem::size_of::<GpuPoint>() as u64;
    let batch = query
        .max_points_per_record()
        .min(limits.max_buffer_size / point_bytes)
        .max(1) as usize;
    let end_to_end_reps = if n > 4 << 20 { 1 } else { reps };
    let mut end_to_end = Vec::new();
    for rep in 0..=end_to_end_reps {
        let start = Instant::now();
        let values = query.run(&positions).map_err(err)?;
        if rep > 0 {
            end_to_end.push(ms(start.elapsed()));
        }
        if values.len() != n || !values[0].is_finite() {
            return Err(format!(
                "point query: {} values, first {}",
                values.len(),
                values[0]
            ));
        }
    }
    // Split and upload (timed together: what `run` does before the kernel).
    let start = Instant::now();
    let split: Vec<GpuPoint> = positions
        .par_chunks(2)
        .map(GpuPoint::split)
        .collect::<noisegraph::Result<_>>()
        .map_err(err)?;
    let batches: Vec<(wgpu::Buffer, wgpu::Buffer, u32)> = split
        .chunks(batch)
        .map(|points| {
            let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("gpu bench points"),
                contents: bytemuck::cast_slice(points),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let out = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpu bench values"),
                size: 4 * points.len() as u64,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            (input, out, points.len() as u32)
        })
        .collect();
    let ((), _) = bench.time(|_| Ok(()))?;
    let upload = ms(start.elapsed());
    drop(split);
    let (mut kernel, mut record, mut wait) = (vec![], vec![], vec![]);
    for rep in 0..=reps {
        let mut recorded = Duration::ZERO;
        let ((), timed) = bench.time(|encoder| {
            let start = Instant::now();
            for (input, out, count) in &batches {
                query.record(encoder, input, out, *count)?;
            }
            recorded = start.elapsed();
            Ok(())
        })?;
        if rep > 0 {
            kernel.extend(timed.kernel.map(ms));
            record.push(ms(recorded));
            wait.push(ms(timed.submit_wait));
        }
    }
    let start = Instant::now();
    let mut values: Vec<f32> = Vec::with_capacity(n);
    for (_, out, count) in &batches {
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpu bench readback"),
            size: out.size(),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        bench.time(|encoder| {
            encoder.copy_buffer_to_buffer(out, 0, &staging, 0, out.size());
            Ok(())
        })?;
        let slice = staging.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("waiting for the readback: {e}"))?;
        let view = slice
            .get_mapped_range()
            .map_err(|e| format!("reading the values: {e:?}"))?;
        values.extend_from_slice(&bytemuck::cast_slice::<u8, f32>(&view)[..*count as usize]);
    }
    let readback = ms(start.elapsed());
    if values.len() != n || !values[n - 1].is_finite() {
        return Err("point query readback: wrong values".into());
    }
    Ok(Row {
        workload: "point query, fBm 8 oct. Perlin 2D".into(),
        size: format!("{} points", points_label(n)),
        samples: n as u64,
        repetitions: reps,
        kernel_ms: (!kernel.is_empty()).then(|| median(kernel)),
        record_ms: Some(median(record)),
        submit_wait_ms: Some(median(wait)),
        upload_ms: Some(upload),
        readback_ms: Some(readback),
        total_ms: Some(median(end_to_end)),
        cost: Some(point_cost(&query, false)?),
        note: format!(
            "upload: host split + buffers; total: GpuPointQuery::run ({} batch(es))",
            batches.len()
        ),
        roofline: None,
    })
}

fn points_label(n: usize) -> String {
    if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{}M", n >> 20)
    } else if n.is_multiple_of(1000) {
        format!("{}k", n / 1000)
    } else {
        n.to_string()
    }
}

/// Removes a scratch folder however the measurement ends.
struct RemoveOnDrop<'a>(&'a Path);

impl Drop for RemoveOnDrop<'_> {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(self.0);
    }
}

/// `noisegraph bake GRAPH -o SCRATCH/bake.npy --size WxH --backend gpu` as a whole process:
/// the first run with an empty pipeline cache (cold), then `reps` runs (warm cache). `scratch`
/// holds the graph, the cache and the output, and is removed afterwards.
pub fn bake(exe: &Path, graph_json: &str, size: u32, reps: usize, scratch: &Path) -> Result<Row> {
    std::fs::create_dir_all(scratch).map_err(|e| format!("{}: {e}", scratch.display()))?;
    let _cleanup = RemoveOnDrop(scratch);
    let graph_path = scratch.join("bake-graph.json");
    std::fs::write(&graph_path, graph_json).map_err(|e| e.to_string())?;
    let cache = scratch.join("pipeline-cache");
    let _ = std::fs::remove_dir_all(&cache);
    let output = scratch.join("bake.npy");
    let run = || -> Result<f64> {
        let start = Instant::now();
        let status = std::process::Command::new(exe)
            .arg("bake")
            .arg(&graph_path)
            .arg("-o")
            .arg(&output)
            .args(["--size", &format!("{size}x{size}"), "--backend", "gpu"])
            .env("NOISEGRAPH_CACHE_DIR", &cache)
            .status()
            .map_err(|e| format!("{}: {e}", exe.display()))?;
        let elapsed = ms(start.elapsed());
        if !status.success() {
            return Err(format!("noisegraph bake failed: {status}"));
        }
        Ok(elapsed)
    };
    let cold = run()?;
    let warm: Vec<f64> = (0..reps).map(|_| run()).collect::<Result<_>>()?;
    let bytes = std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0);
    Ok(Row {
        workload: "whole-process bake, fBm 8 oct. Perlin 2D (npy)".into(),
        size: format!("{size}x{size}"),
        samples: size as u64 * size as u64,
        repetitions: reps,
        total_ms: Some(median(warm)),
        note: format!(
            "`noisegraph bake --backend gpu`, {:.0} MiB written; first run (empty pipeline cache) {cold:.0} ms",
            bytes as f64 / (1 << 20) as f64
        ),
        ..Row::default()
    })
}

/// The frames of an embedded `CompiledGraph`: each frame sets the time, records into a
/// fresh encoder (between timestamps), submits and waits.
pub fn frames(bench: &Bench, graph: &NoiseGraph, view: View, frames: usize) -> Result<Row> {
    let mut compiled = CompiledGraph::new(&bench.ctx, graph, None, view).map_err(err)?;
    let target = compiled.create_target();
    let (mut kernel, mut record, mut wait) = (vec![], vec![], vec![]);
    for frame in 0..=frames {
        let mut recorded = Duration::ZERO;
        let ((), timed) = bench.time(|encoder| {
            let start = Instant::now();
            compiled.set_time(frame as f64 / 60.0)?;
            compiled.record(encoder, &target)?;
            recorded = start.elapsed();
            Ok(())
        })?;
        if frame > 0 {
            kernel.extend(timed.kernel.map(ms));
            record.push(ms(recorded));
            wait.push(ms(timed.submit_wait));
        }
    }
    let record = median(record);
    let wait = median(wait);
    let plan = compiled.plan().clone();
    Ok(Row {
        workload: "CompiledGraph frame, fBm 8 oct. Perlin 3D, time moving".into(),
        size: size_label(&view),
        samples: view.pixel_count(),
        repetitions: frames,
        kernel_ms: (!kernel.is_empty()).then(|| median(kernel)),
        record_ms: Some(record),
        submit_wait_ms: Some(wait),
        total_ms: Some(record + wait),
        cost: Some(plan_cost(
            &plan,
            &view,
            &RunOptions::default(),
            FieldForm::Value,
        )?),
        note: "per frame: set_time + record (host), submit, wait; no readback".into(),
        ..Row::default()
    })
}
