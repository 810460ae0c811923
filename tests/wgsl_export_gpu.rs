//! The contract of the WGSL export, on the GPU (lavapipe in CI): a user-style compute shader
//! (its own bindings and entry point, not the engine's stage template) that includes an
//! exported module and evaluates it at every pixel of a view returns the CPU bake within the
//! parity tolerance (1e-4; the families' documented discontinuity allowances aside), for every
//! family, the example graphs and the presets: `name(p)` near the origin, `name_precise(cell,
//! local)` at 1e6. Gradients (`name_grad`) agree with the CPU point query's.

mod common;
use common::user_shader::{check_gradients, check_values, pipeline, report, run};
use common::{catalog, gpu};

use noisegraph::export::wgsl::{export_wgsl, WgslOptions};

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
