//! Point queries on the GPU: the exported module behind a compute entry point agrees with
//! the CPU point query (near the origin and at 1e6, mapped nodes near the origin only; values
//! within the parity tolerance, gradients within their tolerance), the record form writes a
//! caller's buffer with the same numbers, and bad input is refused before anything runs.

mod common;
use common::{catalog, gpu};

use noisegraph::gpu::{GpuPoint, GpuPointQuery};
use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::query::PointQuery;
use noisegraph::{Backend, Executor};
use wgpu::util::DeviceExt;

fn positions(dims: usize, n: usize, centre: f64, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..n * dims)
        .map(|i| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            if i % dims == 3 {
                0.0
            } else {
                centre + (s >> 11) as f64 / (1u64 << 53) as f64 * 3.0
            }
        })
        .collect()
}

#[test]
fn gpu_queries_agree_with_the_cpu_near_and_far() {
    let Some(ctx) = gpu() else { return };
    let mut failures = Vec::new();
    for case in catalog::all() {
        let cpu = PointQuery::new(&case.graph, None).unwrap();
        let query = GpuPointQuery::new(ctx.clone(), &case.graph, None, false).unwrap();
        assert_eq!(query.dims(), cpu.dims());
        let dims = cpu.dims() as usize;
        // A mapped node's exported precise form joins the cell to the local part in f32
        // (README.md, Mappings), so it agrees with the CPU query (which maps in f64) near the
        // origin only: the mapped catalog graphs run there.
        let centres: &[f64] = if catalog::has_mapping(&case.graph) {
            &[0.0]
        } else {
            &[0.0, 1.0e6, -3.0e7]
        };
        for &centre in centres {
            let pts = positions(dims, 500, centre, 17);
            let want = cpu.values(&pts).unwrap();
            let got = query.run(&pts).unwrap();
            assert_eq!(got.len(), want.len());
            let over = got
                .iter()
                .zip(&want)
                .filter(|(a, b)| {
                    let d = (*a - *b).abs();
                    d.is_nan() || d > PARITY_TOLERANCE
                })
                .count();
            let allowed = if catalog::has_seams(&case.graph) {
                catalog::SEAM_ALLOWANCE
            } else {
                0.0
            };
            if over as f64 > allowed * want.len() as f64 {
                failures.push(format!("{} at {centre}: {over} of 500 over", case.label));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn gpu_gradients_agree_with_the_cpu() {
    let Some(ctx) = gpu() else { return };
    let mut checked = 0;
    for case in catalog::all() {
        let cpu = PointQuery::new(&case.graph, None).unwrap();
        if cpu.check_gradient().is_err() {
            let err = GpuPointQuery::new(ctx.clone(), &case.graph, None, true)
                .err()
                .expect("refused")
                .to_string();
            assert!(err.contains("cannot be differentiated"), "{err}");
            continue;
        }
        checked += 1;
        let query = GpuPointQuery::new(ctx.clone(), &case.graph, None, true).unwrap();
        let dims = cpu.dims() as usize;
        assert_eq!(query.output_width(), 1 + dims);
        // Near the origin for a mapped node (see the test above), else at 1e6.
        let centre = if catalog::has_mapping(&case.graph) {
            0.0
        } else {
            1.0e6
        };
        let pts = positions(dims, 300, centre, 5);
        let want = cpu.gradients(&pts).unwrap();
        let got = query.run(&pts).unwrap();
        let scale = want
            .chunks(1 + dims)
            .flat_map(|c| c[1..].iter().map(|v| v.abs()))
            .fold(1.0f32, f32::max);
        let off = got
            .chunks(1 + dims)
            .zip(want.chunks(1 + dims))
            .filter(|(g, c)| {
                (g[0] - c[0]).abs() > PARITY_TOLERANCE
                    || (1..=dims).any(|a| (g[a] - c[a]).abs() > 1e-3 * scale)
            })
            .count();
        assert!(off * 100 <= 300, "{}: {off} of 300 off", case.label);
    }
    assert!(checked >= 20);
}

#[test]
fn record_writes_a_callers_buffer() {
    let Some(ctx) = gpu() else { return };
    let graph = &catalog::presets_and_examples()[0].graph;
    let query = GpuPointQuery::new(ctx.clone(), graph, None, false).unwrap();
    let pts = positions(2, 1000, 12.0, 9);
    let split: Vec<GpuPoint> = pts.chunks(2).map(|p| GpuPoint::split(p).unwrap()).collect();
    let device = ctx.device();
    let points = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&split),
        usage: wgpu::BufferUsages::STORAGE,
    });
    // The caller's output: larger than needed, other data after the results untouched.
    let out = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&vec![-7.0f32; 1200]),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let staging = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 1200 * 4,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    query.record(&mut encoder, &points, &out, 1000).unwrap();
    encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, 1200 * 4);
    let index = ctx.queue().submit(Some(encoder.finish()));
    let slice = staging.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        })
        .unwrap();
    let mapped = slice.get_mapped_range().expect("mapped");
    let got: &[f32] = bytemuck::cast_slice(&mapped);
    let run = query.run(&pts).unwrap();
    assert_eq!(
        &got[..1000],
        run.as_slice(),
        "record and run give the same numbers"
    );
    assert!(
        got[1000..].iter().all(|&v| v == -7.0),
        "nothing past the results"
    );
    // Refused before recording: a buffer without STORAGE, one too small.
    let mut encoder = device.create_command_encoder(&Default::default());
    let err = query
        .record(&mut encoder, &staging, &out, 10)
        .unwrap_err()
        .to_string();
    assert!(err.contains("lacks STORAGE"), "{err}");
    let err = query
        .record(&mut encoder, &points, &out, 1001)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("points buffer") && err.contains("1001 points"),
        "{err}"
    );
}

#[test]
fn positions_past_the_i32_cells_are_refused() {
    let Some(ctx) = gpu() else { return };
    let graph = &catalog::families()[2].graph;
    let query = GpuPointQuery::new(ctx, graph, None, false).unwrap();
    let err = query.run(&[0.0, 3.0e9]).unwrap_err().to_string();
    assert!(err.contains("axis y") && err.contains("2^31"), "{err}");
    let err = query.run(&[0.0, f64::NAN]).unwrap_err().to_string();
    assert!(err.contains("non-finite"), "{err}");
    assert!(query.run(&[]).unwrap().is_empty());
}

#[test]
fn the_executor_samples_on_both_paths() {
    let Some(_) = gpu() else { return };
    let graph = &catalog::presets_and_examples()[1].graph;
    let pts = positions(2, 64, 0.0, 1);
    let cpu = Executor::new(Backend::Cpu)
        .unwrap()
        .sample_points(graph, None, &pts, true)
        .unwrap();
    let gpu = Executor::new(Backend::Gpu)
        .unwrap()
        .sample_points(graph, None, &pts, true)
        .unwrap();
    assert_eq!(cpu.len(), 64 * 3);
    for (a, b) in cpu.chunks(3).zip(gpu.chunks(3)) {
        assert!((a[0] - b[0]).abs() <= PARITY_TOLERANCE, "{a:?} vs {b:?}");
    }
}
