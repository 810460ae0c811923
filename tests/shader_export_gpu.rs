//! The contract of the GLSL and HLSL exports, on the GPU (lavapipe in CI), as for WGSL
//! (tests/wgsl_export_gpu.rs): a user-style compute shader (its own uniforms, output buffer,
//! entry point and its own functions named `hash`, `fade`, `lerp`, `noise` and `fbm`) that
//! includes the exported file, compiled by glslang to SPIR-V (GLSL 4.50; HLSL through
//! glslang's HLSL front end) and loaded by wgpu (naga's SPIR-V front end), returns the CPU
//! bake within the parity tolerance for every family, the examples and the presets: `NAME(p)`
//! near the origin and `NAME_precise(cell, local)` at 1e6; `NAME_grad` agrees with the CPU
//! point query. Without a GPU the shaders are still compiled.

mod common;
use common::user_shader::{check_gradients, check_values, pipeline, report, run};
use common::{catalog, glslang, gpu};

use noisegraph::export::{export_shader, Language, ShaderExport, ShaderOptions};

/// The user's own functions, named as noise code often names them.
fn user_functions(language: Language, dims: u32) -> String {
    let (vec, uint) = match language {
        Language::Hlsl => (format!("float{dims}"), "uint"),
        _ => (
            if dims == 1 {
                "float".into()
            } else {
                format!("vec{dims}")
            },
            "uint",
        ),
    };
    format!(
        "{uint} hash({uint} x) {{ return x * 747796405u + 2891336453u; }}\n\
         float fade(float t) {{ return t * t * (3.0 - 2.0 * t); }}\n\
         float lerp(float a, float b, float t) {{ return a + t * (b - a); }}\n\
         float noise({vec} p) {{ return fade(p.x) + float(hash(1u)); }}\n\
         float fbm({vec} p) {{ return noise(p) * 0.5; }}\n"
    )
}

/// The store of one pixel's result `r` (a float, or the gradient struct).
fn store(dims: u32, gradient: bool) -> String {
    if gradient {
        let mut s = String::from("user_out[i] = r.value;\n");
        for a in 0..dims as usize {
            s.push_str(&format!("        user_out[i + {}u] = r.d[{a}];\n", a + 1));
        }
        s
    } else {
        "user_out[i] = r;\n".to_string()
    }
}

/// A GLSL 4.50 compute shader that `#include`s `height.glsl`.
fn glsl_user_shader(dims: u32, gradient: bool) -> String {
    let swizzle = &"xyzw"[..dims as usize];
    let width = if gradient { 1 + dims } else { 1 };
    let (ty, simple, precise) = if gradient {
        ("height_NoiseGrad", "height_grad", "height_grad_precise")
    } else {
        ("float", "height", "height_precise")
    };
    format!(
        "#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(std140, set = 0, binding = 0) uniform UserParams {{
    vec4 origin; vec4 step; ivec4 cell; uvec4 size;
}} user_params;
layout(std430, set = 0, binding = 1) buffer UserOut {{ float user_out[]; }};
{functions}
#include \"height.glsl\"

void main() {{
    uvec3 id = gl_GlobalInvocationID;
    if (id.x >= user_params.size.x || id.y >= user_params.size.y) {{
        return;
    }}
    // origin + pixel * extent / size, the position a bake samples pixel (x, y) at.
    vec4 p = user_params.origin + vec4(float(id.x), float(id.y), 0.0, 0.0) * user_params.step;
    uint i = (id.y * user_params.size.x + id.x) * {width}u;
    {ty} r;
    if (user_params.size.z == 0u) {{
        r = {simple}(p.{swizzle});
    }} else {{
        r = {precise}(user_params.cell.{swizzle}, p.{swizzle});
    }}
    {store}
}}
",
        functions = user_functions(Language::Glsl, dims),
        store = store(dims, gradient)
    )
}

/// An HLSL compute shader that `#include`s `height.hlsl`.
fn hlsl_user_shader(dims: u32, gradient: bool) -> String {
    let swizzle = &"xyzw"[..dims as usize];
    let width = if gradient { 1 + dims } else { 1 };
    let (ty, simple, precise) = if gradient {
        ("height_NoiseGrad", "height_grad", "height_grad_precise")
    } else {
        ("float", "height", "height_precise")
    };
    format!(
        "struct UserParams {{ float4 origin; float4 step; int4 cell; uint4 size; }};
[[vk::binding(0, 0)]] ConstantBuffer<UserParams> user_params;
[[vk::binding(1, 0)]] RWStructuredBuffer<float> user_out;
{functions}
#include \"height.hlsl\"

[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {{
    if (id.x >= user_params.size.x || id.y >= user_params.size.y) {{
        return;
    }}
    float4 p = user_params.origin + float4(float(id.x), float(id.y), 0.0, 0.0) * user_params.step;
    uint i = (id.y * user_params.size.x + id.x) * {width}u;
    {ty} r;
    if (user_params.size.z == 0u) {{
        r = {simple}(p.{swizzle});
    }} else {{
        r = {precise}(user_params.cell.{swizzle}, p.{swizzle});
    }}
    {store}
}}
",
        functions = user_functions(Language::Hlsl, dims),
        store = store(dims, gradient)
    )
}

/// The user shader for `export`, compiled to SPIR-V by glslang.
fn compile(label: &str, export: &ShaderExport, gradient: bool) -> Vec<u32> {
    let (shader, include, hlsl) = match export.language {
        Language::Hlsl => (
            ("user.hlsl", hlsl_user_shader(export.dims, gradient)),
            "height.hlsl",
            true,
        ),
        _ => (
            ("user.comp", glsl_user_shader(export.dims, gradient)),
            "height.glsl",
            false,
        ),
    };
    glslang::spirv(
        label,
        &[(shader.0, &shader.1), (include, &export.source)],
        hlsl,
    )
    .unwrap_or_else(|e| panic!("{label} ({}): {e}", export.language))
}

fn contract(language: Language, gradient: bool) {
    let ctx = gpu();
    let mut failures = Vec::new();
    let mut checked = 0;
    for case in catalog::all() {
        let export = export_shader(&case.graph, &ShaderOptions::new("height", language))
            .unwrap_or_else(|e| panic!("{}: {e}", case.label));
        if gradient && export.no_gradient.is_some() {
            continue;
        }
        checked += 1;
        let words = compile(&case.label, &export, gradient);
        let Some(ctx) = &ctx else { continue };
        let pipeline = pipeline(ctx, wgpu::ShaderSource::SpirV(words.into()));
        let label = format!("{} {language}", case.label);
        let dims = export.dims as usize;
        let lines = if gradient {
            check_gradients(&label, &case.graph, dims, |view, precise| {
                run(ctx, &pipeline, None, view, precise, 1 + dims)
            })
        } else {
            check_values(&label, &case.graph, |view, precise| {
                run(ctx, &pipeline, None, view, precise, 1)
            })
        };
        report(lines, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 20, "only {checked} graphs checked");
}

#[test]
fn a_glsl_compute_shader_with_the_exported_code_returns_the_cpu_bake() {
    contract(Language::Glsl, false);
}

#[test]
fn the_glsl_gradient_agrees_with_the_cpu_point_query() {
    contract(Language::Glsl, true);
}

#[test]
fn an_hlsl_compute_shader_with_the_exported_code_returns_the_cpu_bake() {
    contract(Language::Hlsl, false);
}

#[test]
fn the_hlsl_gradient_agrees_with_the_cpu_point_query() {
    contract(Language::Hlsl, true);
}
