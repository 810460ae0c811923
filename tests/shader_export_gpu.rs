//! The contract of the GLSL and HLSL exports, on the GPU (lavapipe in CI), as for WGSL
//! (tests/wgsl_export_gpu.rs): a user-style compute shader (its own uniforms, output buffer,
//! entry point and its own functions named `hash`, `fade`, `lerp`, `noise` and `fbm`) that
//! includes the exported files, compiled by glslang to SPIR-V (GLSL 4.50; HLSL through
//! glslang's HLSL front end, `-D -e main`) and loaded by wgpu (naga's SPIR-V front end),
//! returns the CPU bake within the parity tolerance (the documented allowances aside) for
//! every graph of the catalog (every family in every dims, the variants, the examples and
//! the presets): `NAME(p)` near the origin and `NAME_precise(cell, local)` at 1e6;
//! `NAME_grad` and `NAME_grad_precise` agree with the CPU point query. An export with a table
//! buffer gets its data bound where the export was told to declare it.
//!
//! The shader's structure allows [`BATCH`] exports in one shader (each under its own name,
//! a switch on the graph, one dispatch over graph x view). Without a GPU the shaders are
//! still compiled.

mod common;
use common::user_shader::{check_gradients, check_values, dispatch, pipeline, report, views};
use common::{catalog, glslang, gpu};

use noisegraph::export::wgsl::split_position;
use noisegraph::export::{export_shader, Language, ShaderExport, ShaderOptions};
use noisegraph::NoiseGraph;

/// Graphs per shader (those without a table buffer; each with one runs alone). One: LLVM's
/// compile time grows faster than the code, and 4 graphs in one shader took lavapipe minutes
/// where the same 4 in 4 shaders took seconds.
const BATCH: usize = 1;
/// Floats written per pixel: the value form's value, then the gradient form's value and
/// derivatives x y z w (zero when the export has no gradient).
const WIDTH: usize = 6;

/// The user's own functions, named as noise code often names them.
fn user_functions(language: Language) -> String {
    let vec2 = if language == Language::Hlsl {
        "float2"
    } else {
        "vec2"
    };
    format!(
        "uint hash(uint x) {{ return x * 747796405u + 2891336453u; }}\n\
         float fade(float t) {{ return t * t * (3.0 - 2.0 * t); }}\n\
         float lerp(float a, float b, float t) {{ return a + t * (b - a); }}\n\
         float noise({vec2} p) {{ return fade(p.x) + float(hash(1u)); }}\n\
         float fbm({vec2} p) {{ return noise(p) * 0.5; }}\n"
    )
}

/// The user's uniforms: the near view's origin, the far view's origin split into cell and
/// local, the pixel step and the size.
#[repr(C)]
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct BatchParams {
    near_origin: [f32; 4],
    far_local: [f32; 4],
    far_cell: [i32; 4],
    step: [f32; 4],
    size: [u32; 4],
}

fn params() -> BatchParams {
    let [(near, precise_near), (far, precise_far)] = views();
    assert!(
        !precise_near && precise_far,
        "views(): the simple form, then the precise"
    );
    let mut p = BatchParams {
        near_origin: [0.0; 4],
        far_local: [0.0; 4],
        far_cell: [0; 4],
        step: [0.0; 4],
        size: [near.size[0], near.size[1], 0, 0],
    };
    assert_eq!((near.size, near.extent), (far.size, far.extent));
    for a in 0..3 {
        p.near_origin[a] = near.origin[a] as f32;
        let (cell, local) = split_position(&[far.origin[a]]).unwrap();
        p.far_cell[a] = cell[0];
        p.far_local[a] = local[0];
        if a < 2 {
            p.step[a] = (near.extent[a] / near.size[a] as f64) as f32;
        }
    }
    p
}

/// One graph of a batch, exported as `g<index>_noise`.
struct Entry {
    label: String,
    graph: NoiseGraph,
    export: ShaderExport,
}

/// The switch case of graph `index`: sets `v` (the value form) and `r` (the gradient form)
/// at the position `p` (the simple forms) or `c + p` (the precise forms).
fn case(index: usize, entry: &Entry) -> String {
    let n = &entry.export.name;
    let swizzle = &"xyzw"[..entry.export.dims as usize];
    let mut s = format!("        case {index}u:\n            if (far) {{\n");
    s.push_str(&format!(
        "                v = {n}_precise(c.{swizzle}, p.{swizzle});\n"
    ));
    if entry.export.no_gradient.is_none() {
        s.push_str(&format!(
            "                {n}_NoiseGrad g = {n}_grad_precise(c.{swizzle}, p.{swizzle});\n\
             \x20               gv = g.value; gd = g.d;\n"
        ));
    }
    s.push_str(&format!(
        "            }} else {{\n                v = {n}(p.{swizzle});\n"
    ));
    if entry.export.no_gradient.is_none() {
        s.push_str(&format!(
            "                {n}_NoiseGrad g = {n}_grad(p.{swizzle});\n\
             \x20               gv = g.value; gd = g.d;\n"
        ));
    }
    s.push_str("            }\n            break;\n");
    s
}

/// The body both languages share (their syntax agrees here but for the vector types).
fn body(entries: &[Entry], vec4: &str, ivec4: &str) -> String {
    let cases: String = entries
        .iter()
        .enumerate()
        .map(|(i, e)| case(i, e))
        .collect();
    format!(
        "    if (id.x >= user_params.size.x || id.y >= user_params.size.y) {{
        return;
    }}
    uint graph = id.z / 2u;
    bool far = (id.z % 2u) == 1u;
    // origin + pixel * extent / size, the position a bake samples pixel (x, y) at (the
    // far view's origin split on the host into cell and local).
    {vec4} p = (far ? user_params.far_local : user_params.near_origin)
        + {vec4}(float(id.x), float(id.y), 0.0, 0.0) * user_params.step;
    {ivec4} c = user_params.far_cell;
    float v = 0.0;
    float gv = 0.0;
    {vec4} gd = {vec4}(0.0, 0.0, 0.0, 0.0);
    switch (graph) {{
{cases}        default:
            break;
    }}
    uint i = ((id.z * user_params.size.y + id.y) * user_params.size.x + id.x) * {WIDTH}u;
    user_out[i] = v;
    user_out[i + 1u] = gv;
    user_out[i + 2u] = gd.x;
    user_out[i + 3u] = gd.y;
    user_out[i + 4u] = gd.z;
    user_out[i + 5u] = gd.w;
"
    )
}

/// The user's shader: its uniforms and output, its own functions, the `#include`s of the
/// exports and its entry point.
fn user_shader(entries: &[Entry], language: Language) -> String {
    let includes: String = (0..entries.len())
        .map(|i| format!("#include \"g{i}.{}\"\n", extension(language)))
        .collect();
    let functions = user_functions(language);
    match language {
        Language::Hlsl => format!(
            "struct UserParams {{ float4 near_origin; float4 far_local; int4 far_cell; float4 step; uint4 size; }};
[[vk::binding(0, 0)]] ConstantBuffer<UserParams> user_params;
[[vk::binding(1, 0)]] RWStructuredBuffer<float> user_out;
{functions}
{includes}
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {{
{}}}
",
            body(entries, "float4", "int4")
        ),
        _ => format!(
            "#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(std140, set = 0, binding = 0) uniform UserParams {{
    vec4 near_origin; vec4 far_local; ivec4 far_cell; vec4 step; uvec4 size;
}} user_params;
layout(std430, set = 0, binding = 1) buffer UserOut {{ float user_out[]; }};
{functions}
{includes}
void main() {{
    uvec3 id = gl_GlobalInvocationID;
{}}}
",
            body(entries, "vec4", "ivec4")
        ),
    }
}

fn extension(language: Language) -> &'static str {
    match language {
        Language::Hlsl => "hlsl",
        _ => "glsl",
    }
}

/// Compiles and runs one batch, adding its failed lines to `failures`.
fn run_batch(language: Language, entries: &[Entry], failures: &mut Vec<String>) {
    let user = user_shader(entries, language);
    let files: Vec<(String, String)> = std::iter::once((
        if language == Language::Hlsl {
            "user.hlsl".to_string()
        } else {
            "user.comp".to_string()
        },
        user,
    ))
    .chain(entries.iter().enumerate().map(|(i, e)| {
        (
            format!("g{i}.{}", extension(language)),
            e.export.source.clone(),
        )
    }))
    .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let labels: Vec<&str> = entries.iter().map(|e| e.label.as_str()).collect();
    let words = glslang::spirv("batch", &refs, language == Language::Hlsl)
        .unwrap_or_else(|e| panic!("{language} batch {labels:?}: {e}"));
    let Some(ctx) = gpu() else { return };
    let pipeline = pipeline(&ctx, wgpu::ShaderSource::SpirV(words.into()));
    let params = params();
    let pixels = (params.size[0] * params.size[1]) as usize;
    let groups = [
        params.size[0].div_ceil(8),
        params.size[1].div_ceil(8),
        2 * entries.len() as u32,
    ];
    let tables = entries[0].export.tables.as_ref().map(|t| t.data.as_slice());
    let out = dispatch(
        &ctx,
        &pipeline,
        bytemuck::bytes_of(&params),
        tables,
        2 * entries.len() * pixels * WIDTH,
        groups,
    );
    // The floats graph `g` wrote over view `precise`.
    let written = |g: usize, precise: bool| {
        let z = 2 * g + precise as usize;
        &out[z * pixels * WIDTH..(z + 1) * pixels * WIDTH]
    };
    for (g, entry) in entries.iter().enumerate() {
        let label = format!("{} {language}", entry.label);
        let lines = check_values(&label, &entry.graph, |_, precise| {
            written(g, precise).chunks(WIDTH).map(|c| c[0]).collect()
        });
        report(lines, failures);
        if entry.export.no_gradient.is_none() {
            let dims = entry.export.dims as usize;
            let lines = check_gradients(&label, &entry.graph, dims, |_, precise| {
                written(g, precise)
                    .chunks(WIDTH)
                    .flat_map(|c| c[1..2 + dims].to_vec())
                    .collect()
            });
            report(lines, failures);
        }
    }
}

fn contract(language: Language) {
    let mut alone = Vec::new();
    let mut batched: Vec<Vec<Entry>> = Vec::new();
    for case in catalog::all() {
        // A graph with a table buffer runs alone: the buffer's binding is one per shader.
        let probe = export_shader(&case.graph, &options("probe_noise", language))
            .unwrap_or_else(|e| panic!("{}: {e}", case.label));
        let index = if probe.tables.is_some() {
            0
        } else {
            if batched.last().is_none_or(|b| b.len() == BATCH) {
                batched.push(Vec::new());
            }
            batched.last().unwrap().len()
        };
        let export = export_shader(&case.graph, &options(&format!("g{index}_noise"), language))
            .unwrap_or_else(|e| panic!("{}: {e}", case.label));
        let entry = Entry {
            label: case.label,
            graph: case.graph,
            export,
        };
        if entry.export.tables.is_some() {
            alone.push(vec![entry]);
        } else {
            batched.last_mut().unwrap().push(entry);
        }
    }
    let batches: Vec<Vec<Entry>> = batched.into_iter().chain(alone).collect();
    let graphs: usize = batches.iter().map(Vec::len).sum();
    let gradients = batches
        .iter()
        .flatten()
        .filter(|e| e.export.no_gradient.is_none())
        .count();
    println!(
        "{language}: {graphs} graphs ({gradients} with a gradient) in {} shaders",
        batches.len()
    );
    let mut failures = Vec::new();
    for batch in &batches {
        let start = std::time::Instant::now();
        run_batch(language, batch, &mut failures);
        let labels: Vec<&str> = batch.iter().map(|e| e.label.as_str()).collect();
        println!(
            "{language} batch {labels:?}: {:.1} s",
            start.elapsed().as_secs_f64()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The export of a graph as `name`, its table buffer (if any) at group 1 binding 0, where
/// `dispatch` binds it.
fn options(name: &str, language: Language) -> ShaderOptions {
    ShaderOptions {
        table_binding: [1, 0],
        ..ShaderOptions::new(name, language)
    }
}

#[test]
fn a_glsl_compute_shader_with_the_exported_code_returns_the_cpu_bake_and_gradient() {
    contract(Language::Glsl);
}

#[test]
fn an_hlsl_compute_shader_with_the_exported_code_returns_the_cpu_bake_and_gradient() {
    contract(Language::Hlsl);
}
