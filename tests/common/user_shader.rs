//! The harness of the shader-export contract tests (WGSL, GLSL, HLSL): a user-style compute
//! shader's uniforms and output buffer, running it over a view, and comparing what it wrote
//! with the CPU bake (values) and the CPU point query (gradients).

use noisegraph::engine::run_cpu;
use noisegraph::export::wgsl::split_position;
use noisegraph::graph::StageKind;
use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::query::PointQuery;
use noisegraph::{GpuContext, NoiseGraph, Plan, View};
use wgpu::util::DeviceExt;

use super::catalog;

#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct UserParams {
    pub origin: [f32; 4],
    pub step: [f32; 4],
    pub cell: [i32; 4],
    pub size: [u32; 4],
}

/// Runs the user shader `pipeline` over `view` (the simple form, or the precise form with the
/// origin split on the host), returning `width` numbers per pixel.
pub fn run(
    ctx: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    tables: Option<&[f32]>,
    view: &View,
    precise: bool,
    width: usize,
) -> Vec<f32> {
    let mut params = UserParams {
        origin: [0.0; 4],
        step: [0.0; 4],
        cell: [0; 4],
        size: [view.size[0], view.size[1], precise as u32, 0],
    };
    for a in 0..3 {
        params.step[a] = if a < 2 {
            (view.extent[a] / view.size[a] as f64) as f32
        } else {
            0.0
        };
        if precise {
            let (cell, local) = split_position(&[view.origin[a]]).unwrap();
            params.cell[a] = cell[0];
            params.origin[a] = local[0];
        } else {
            params.origin[a] = view.origin[a] as f32;
        }
    }
    let groups = [view.size[0].div_ceil(8), view.size[1].div_ceil(8), 1];
    let count = view.pixel_count() as usize * width;
    dispatch(
        ctx,
        pipeline,
        bytemuck::bytes_of(&params),
        tables,
        count,
        groups,
    )
}

/// Runs `pipeline` with `uniform` at group 0 binding 0, an output of `count` floats
/// (poisoned with NaN, so that a value the shader does not write fails) at binding 1 and
/// `tables` (if any) at group 1 binding 0, over `groups` workgroups; returns the output.
pub fn dispatch(
    ctx: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    uniform: &[u8],
    tables: Option<&[f32]>,
    count: usize,
    groups: [u32; 3],
) -> Vec<f32> {
    let device = ctx.device();
    let uniform = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: uniform,
        usage: wgpu::BufferUsages::UNIFORM,
    });
    let out = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&vec![f32::NAN; count]),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let entries = [
        wgpu::BindGroupEntry {
            binding: 0,
            resource: uniform.as_entire_binding(),
        },
        wgpu::BindGroupEntry {
            binding: 1,
            resource: out.as_entire_binding(),
        },
    ];
    execute(ctx, pipeline, tables, &entries, &out, count, groups)
}

pub fn pipeline(ctx: &GpuContext, source: wgpu::ShaderSource) -> wgpu::ComputePipeline {
    let device = ctx.device();
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("user shader"),
        source,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("user shader"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        panic!("user shader: {e}");
    }
    pipeline
}

/// The largest fraction of pixels a graph may have over the tolerance: the largest
/// documented discontinuity allowance of its families.
pub fn allowance(graph: &NoiseGraph) -> f64 {
    let plan = Plan::new(graph, None).unwrap();
    plan.stages
        .iter()
        .filter_map(|s| match &s.kind {
            StageKind::Generate(g) => {
                Some(g.family.discontinuity_allowance(g.dims(), &g.source.params))
            }
            StageKind::Combine { .. } => None,
        })
        .fold(0.0, f64::max)
}

pub fn views() -> [(View, bool); 2] {
    let near = View::image(61, 37)
        .with_origin([0.1, -0.3, 0.0])
        .with_extent([1.5, 1.0, 1.0]);
    // The precise form at 1e6 (the user splits the origin on the host).
    let far = near.with_origin([1.0e6 + 0.25, -2.0e5 - 0.5, 0.0]);
    [(near, false), (far, true)]
}

/// The line of a view that is not compared: the precise form at 1e6 of a graph with a
/// mapping, which joins the mapped position in f32 (README.md, Mappings), so it is no closer
/// to the CPU bake there than the simple form would be; its near view is compared.
fn mapped_far_view(label: &str, graph: &NoiseGraph, precise: bool) -> Option<String> {
    (precise && catalog::has_mapping(graph)).then(|| {
        format!("{label} (precise form at 1e6): not compared, a mapped node's precise form joins its position in f32")
    })
}

/// Compares the values a user shader wrote over `views()` (`gpu(view, precise)`, one float
/// per pixel) with the CPU bake of `graph`; returns one line per view and whether it failed.
pub fn check_values(
    label: &str,
    graph: &NoiseGraph,
    mut gpu: impl FnMut(&View, bool) -> Vec<f32>,
) -> Vec<(String, bool)> {
    let mut lines = Vec::new();
    let plan = Plan::new(graph, None).unwrap();
    for (view, precise) in views() {
        let gpu = gpu(&view, precise);
        if let Some(line) = mapped_far_view(label, graph, precise) {
            lines.push((line, false));
            continue;
        }
        let cpu = run_cpu(&plan, &view, &Default::default()).unwrap();
        let diffs: Vec<f32> = gpu
            .iter()
            .zip(&cpu.data)
            .map(|(a, b)| {
                let d = (a - b).abs();
                if d.is_nan() {
                    f32::INFINITY
                } else {
                    d
                }
            })
            .collect();
        let over = diffs.iter().filter(|&&d| d > PARITY_TOLERANCE).count();
        let max = diffs.iter().copied().fold(0.0, f32::max);
        let mut allowed = allowance(graph);
        if catalog::has_seams(graph) {
            allowed = allowed.max(catalog::SEAM_ALLOWANCE);
        }
        let line = format!(
            "{label} ({}): {over} of {} pixels over {PARITY_TOLERANCE} (max {max:e}, allowed fraction {allowed})",
            if precise { "precise form at 1e6" } else { "near the origin" },
            diffs.len()
        );
        let failed = !(over as f64 <= allowed * diffs.len() as f64 && max.is_finite())
            || diffs.len() != cpu.data.len();
        lines.push((line, failed));
    }
    lines
}

/// Gradient components may differ by this fraction of the field's largest component.
pub const GRADIENT_TOLERANCE: f32 = 1e-3;
/// The fraction of pixels whose gradient may differ more: kinks and seams.
pub const KINK_ALLOWANCE: f64 = 0.01;

/// Compares the values and gradients a user shader wrote over `views()` (`gpu(view,
/// precise)`, 1 + dims floats per pixel) with the CPU point query of `graph`.
pub fn check_gradients(
    label: &str,
    graph: &NoiseGraph,
    dims: usize,
    mut gpu: impl FnMut(&View, bool) -> Vec<f32>,
) -> Vec<(String, bool)> {
    let mut lines = Vec::new();
    let query = PointQuery::new(graph, None).unwrap();
    for (view, precise) in views() {
        let gpu = gpu(&view, precise);
        if let Some(line) = mapped_far_view(label, graph, precise) {
            lines.push((line, false));
            continue;
        }
        let pixels: Vec<f64> = (0..view.size[1])
            .flat_map(|y| (0..view.size[0]).flat_map(move |x| [x as f64, y as f64]))
            .collect();
        let cpu = query.gradients_in_view(&view, &pixels).unwrap();
        // The gradient's scale: its largest component over the view. High octaves'
        // gradients are large and vary fast, so the last bits of a position (which the
        // two paths compute differently) move them relative to that scale.
        let scale = cpu
            .chunks(1 + dims)
            .flat_map(|c| c[1..].iter().map(|v| v.abs()))
            .fold(1.0f32, f32::max);
        let mut off = 0;
        let mut worst = 0.0f32;
        for (g, c) in gpu.chunks(1 + dims).zip(cpu.chunks(1 + dims)) {
            let value_ok = (g[0] - c[0]).abs() <= PARITY_TOLERANCE;
            let error = (1..=dims).map(|a| (g[a] - c[a]).abs()).fold(0.0, f32::max) / scale;
            worst = worst.max(error);
            off += usize::from(!(value_ok && error <= GRADIENT_TOLERANCE));
        }
        // Kinks (ridged crests, abs, min / max) flip the one-sided gradient where the two
        // paths' values straddle them, and simplex seams do the same to the value.
        let n = gpu.len() / (1 + dims);
        let line = format!(
            "{label} ({}): {off} of {n} pixels off, worst gradient error {worst:e} of the scale {scale}",
            if precise { "precise" } else { "simple" }
        );
        let failed = off as f64 > KINK_ALLOWANCE * n as f64 || gpu.len() != cpu.len();
        lines.push((line, failed));
    }
    lines
}

/// Prints the lines of a check and collects the failed ones.
pub fn report(lines: Vec<(String, bool)>, failures: &mut Vec<String>) {
    for (line, failed) in lines {
        println!("{line}");
        if failed {
            failures.push(line);
        }
    }
}

/// Runs `pipeline` with group 0 bound to `entries` and `tables` (if any) at group 1 binding
/// 0, over `groups` workgroups, and reads `count` floats back from `out`.
pub fn execute(
    ctx: &GpuContext,
    pipeline: &wgpu::ComputePipeline,
    tables: Option<&[f32]>,
    entries: &[wgpu::BindGroupEntry],
    out: &wgpu::Buffer,
    count: usize,
    groups: [u32; 3],
) -> Vec<f32> {
    let device = ctx.device();
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (count * 4) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let group0 = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries,
    });
    let table_buffer = tables.map(|t| {
        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(t),
            usage: wgpu::BufferUsages::STORAGE,
        })
    });
    let group1 = table_buffer.as_ref().map(|b| {
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(1),
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: b.as_entire_binding(),
            }],
        })
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &group0, &[]);
        if let Some(g) = &group1 {
            pass.set_bind_group(1, g, &[]);
        }
        pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
    }
    encoder.copy_buffer_to_buffer(out, 0, &readback, 0, (count * 4) as u64);
    let index = ctx.queue().submit(Some(encoder.finish()));
    let slice = readback.slice(..);
    slice.map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        })
        .expect("poll");
    let mapped = slice.get_mapped_range().expect("mapped");
    bytemuck::cast_slice::<u8, f32>(&mapped).to_vec()
}
