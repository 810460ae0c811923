//! The contract of the WGSL export, on the GPU (lavapipe in CI): a user-style compute shader
//! (its own bindings and entry point, not the engine's stage template) that includes an
//! exported module and evaluates it at every pixel of a view returns the CPU bake within the
//! parity tolerance (1e-4; the families' documented discontinuity allowances aside), for every
//! family, the example graphs and the presets: `name(p)` near the origin, `name_precise(cell,
//! local)` at 1e6. Gradients (`name_grad`) agree with the CPU point query's.

mod common;
use common::user_shader::{check_gradients, check_values, execute, pipeline, report, run};
use common::{catalog, gpu};

use noisegraph::engine::run_cpu;
use noisegraph::export::wgsl::{export_wgsl, split_position, WgslOptions};
use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::{NoiseGraph, Plan, View};
use wgpu::util::DeviceExt;

/// The user's half of the shader: its uniforms, its output buffer and its entry point, which
/// writes the value and (with gradients) the gradient of every pixel.
fn user_shader(dims: u32, gradient: bool) -> String {
    let swizzle = ["", "", "xy", "xyz", "xyzw"][dims as usize];
    let width = if gradient { 1 + dims } else { 1 };
    let (simple, precise) = if gradient {
        ("height_grad", "height_grad_precise")
    } else {
        ("height", "height_precise")
    };
    let store = if gradient {
        let mut s = String::from("user_out[i] = r.value;\n");
        for a in 0..dims as usize {
            s.push_str(&format!("    user_out[i + {}u] = r.d[{a}];\n", a + 1));
        }
        s
    } else {
        "user_out[i] = r;\n".to_string()
    };
    format!(
        "
struct UserParams {{ origin: vec4<f32>, step: vec4<f32>, cell: vec4<i32>, size: vec4<u32> }}
@group(0) @binding(0) var<uniform> user_params: UserParams;
@group(0) @binding(1) var<storage, read_write> user_out: array<f32>;

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    if (id.x >= user_params.size.x || id.y >= user_params.size.y) {{
        return;
    }}
    // origin + pixel * extent / size, the position a bake samples pixel (x, y) at.
    let p = user_params.origin + vec4<f32>(f32(id.x), f32(id.y), 0.0, 0.0) * user_params.step;
    let i = (id.y * user_params.size.x + id.x) * {width}u;
    if (user_params.size.z == 0u) {{
        let r = {simple}(p.{swizzle});
        {store}
    }} else {{
        let r = {precise}(user_params.cell.{swizzle}, p.{swizzle});
        {store}
    }}
}}
"
    )
}

#[test]
fn a_user_shader_with_the_exported_module_returns_the_cpu_bake() {
    let Some(ctx) = gpu() else { return };
    let mut failures = Vec::new();
    for case in catalog::all() {
        let mut options = WgslOptions::new("height");
        options.table_binding = [1, 0];
        let module = export_wgsl(&case.graph, &options).unwrap();
        let source = format!("{}\n{}", module.source, user_shader(module.dims, false));
        let pipeline = pipeline(&ctx, wgpu::ShaderSource::Wgsl(source.into()));
        let tables = module.tables.as_ref().map(|t| t.data.as_slice());
        let lines = check_values(&case.label, &case.graph, |view, precise| {
            run(&ctx, &pipeline, tables, view, precise, 1)
        });
        report(lines, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_exported_gradient_agrees_with_the_cpu_point_query() {
    let Some(ctx) = gpu() else { return };
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in catalog::all() {
        let mut options = WgslOptions::new("height");
        options.table_binding = [1, 0];
        let module = export_wgsl(&case.graph, &options).unwrap();
        if module.no_gradient.is_some() {
            continue;
        }
        checked += 1;
        let dims = module.dims as usize;
        let source = format!("{}\n{}", module.source, user_shader(module.dims, true));
        let pipeline = pipeline(&ctx, wgpu::ShaderSource::Wgsl(source.into()));
        let tables = module.tables.as_ref().map(|t| t.data.as_slice());
        let lines = check_gradients(&case.label, &case.graph, dims, |view, precise| {
            run(&ctx, &pipeline, tables, view, precise, 1 + dims)
        });
        report(lines, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 20);
}

/// A user shader that evaluates `height_precise` at one (cell, local) pair per pixel, split
/// on the host from the pixel's f64 position.
fn user_points_shader(dims: u32) -> String {
    let swizzle = ["", "", "xy", "xyz", "xyzw"][dims as usize];
    format!(
        "
@group(0) @binding(0) var<storage, read> user_cells: array<vec4<i32>>;
@group(0) @binding(1) var<storage, read_write> user_out: array<f32>;
@group(0) @binding(2) var<storage, read> user_locals: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> user_size: vec4<u32>;

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    if (id.x >= user_size.x || id.y >= user_size.y) {{
        return;
    }}
    let i = id.y * user_size.x + id.x;
    user_out[i] = height_precise(user_cells[i].{swizzle}, user_locals[i].{swizzle});
}}
"
    )
}

/// The precise form at a bake's pixel positions, each `origin + (x * extent) / size` in f64
/// split on the host into cell and local (`split_position`): within the parity tolerance of
/// the CPU bake near the origin, near 1e6 and out to the precise form's limit (2^31), for 2D
/// and 3D graphs of several families and fractals. (Each octave splits `cell + local` in
/// fixed point, as a CPU bake splits the pixel's f64 position.)
#[test]
fn the_precise_form_at_a_bakes_pixel_positions_returns_its_pixels() {
    let Some(ctx) = gpu() else { return };
    let graphs = [
        (
            2,
            r#"{"seed": 7, "output": "f", "nodes": [
            {"id": "b", "type": "perlin", "frequency": 32},
            {"id": "f", "type": "fbm", "source": "b", "octaves": 8}]}"#,
        ),
        (
            2,
            r#"{"seed": 3, "output": "f", "nodes": [
            {"id": "b", "type": "simplex", "frequency": 5},
            {"id": "f", "type": "ridged", "source": "b", "octaves": 5}]}"#,
        ),
        (
            2,
            r#"{"seed": 9, "output": "b", "nodes": [
            {"id": "b", "type": "value", "frequency": 17.3}]}"#,
        ),
        (
            3,
            r#"{"seed": 5, "output": "f", "nodes": [
            {"id": "b", "type": "perlin", "dims": 3, "frequency": 6},
            {"id": "f", "type": "billow", "source": "b", "octaves": 4}]}"#,
        ),
    ];
    let device = ctx.device();
    let (mut failures, mut checked) = (Vec::new(), 0);
    for (dims, json) in graphs {
        let graph = NoiseGraph::from_json(json).unwrap();
        let module = export_wgsl(&graph, &WgslOptions::new("height")).unwrap();
        let source = format!("{}\n{}", module.source, user_points_shader(dims));
        let pipeline = pipeline(&ctx, wgpu::ShaderSource::Wgsl(source.into()));
        let plan = Plan::new(&graph, None).unwrap();
        // The precise form's cells are i32 input cells: its limit is |p| < 2^31.
        for origin in [0.0, 1.0e6 + 0.371, 1.0e8 + 0.5, 2.1e9 + 0.5] {
            let view = View::image(45, 29)
                .with_origin([origin, -origin * 0.5 - 0.25, 0.5])
                .with_extent([0.731, 0.517, 1.0]);
            if plan.check_view(&view).is_err() {
                continue;
            }
            checked += 1;
            let cpu = run_cpu(&plan, &view, &Default::default()).unwrap();
            let (mut cells, mut locals) = (Vec::new(), Vec::new());
            for y in 0..view.size[1] {
                for x in 0..view.size[0] {
                    let p = [x, y, 0].map(|v| v as f64);
                    let at: Vec<f64> = (0..3)
                        .map(|a| view.origin[a] + (p[a] * view.extent[a]) / view.size[a] as f64)
                        .collect();
                    let (c, l) = split_position(&at).unwrap();
                    cells.extend([c[0], c[1], c[2], 0]);
                    locals.extend([l[0], l[1], l[2], 0.0]);
                }
            }
            let count = view.pixel_count() as usize;
            let storage = |bytes: &[u8], usage| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: None,
                    contents: bytes,
                    usage,
                })
            };
            let cells = storage(bytemuck::cast_slice(&cells), wgpu::BufferUsages::STORAGE);
            let locals = storage(bytemuck::cast_slice(&locals), wgpu::BufferUsages::STORAGE);
            let size = storage(
                bytemuck::cast_slice(&[view.size[0], view.size[1], 0, 0]),
                wgpu::BufferUsages::UNIFORM,
            );
            let out = storage(
                bytemuck::cast_slice(&vec![f32::NAN; count]),
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            );
            let entries = [
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: cells.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: out.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: locals.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: size.as_entire_binding(),
                },
            ];
            let groups = [view.size[0].div_ceil(8), view.size[1].div_ceil(8), 1];
            let gpu = execute(&ctx, &pipeline, None, &entries, &out, count, groups);
            let max = gpu
                .iter()
                .zip(&cpu.data)
                .map(|(a, b)| (a - b).abs())
                .fold(
                    0.0f32,
                    |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) },
                );
            println!("{json:.40} at {origin:e}: max {max:e}");
            if max > PARITY_TOLERANCE {
                failures.push(format!(
                    "dims {dims} graph {json} at origin {origin:e}: max {max:e}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 10, "{checked} views checked");
}
