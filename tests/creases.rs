//! One convention at creases, on every path. For each node kind with a crease (ridged, billow,
//! pingpong, hybrid's weight clamp, abs, min, max, clamp; pow below 1, quantize, smooth_min with k = 0, a hard select) and the
//! C0 lattice lines of a family (value noise with the linear fade), at lattice points, on lattice lines and where inputs tie, three gradients agree: a
//! point query's (`PointQuery`, what `noisegraph sample --gradient` runs), a one-pixel
//! gradient bake's at the point (bit for bit), and the exported `NAME_grad` run in a user's
//! compute shader on the GPU in WGSL, GLSL 4.50, GLSL ES 3.00 (its text in a GLSL 4.50 compute
//! shader) and HLSL (the last three compiled by glslang to SPIR-V; lavapipe in CI; within the
//! parity tolerance, scaled by the
//! frequency). The convention is the grid's: sign(0) = 0 (slope 0 where ridged, billow or abs
//! meet 0), `a`'s gradient where min / max inputs tie, clamp's bounds inside.

mod common;
use common::{glslang, gpu};

use noisegraph::export::{export_shader, Language, ShaderOptions};
use noisegraph::query::PointQuery;
use noisegraph::{Executor, GpuContext, NoiseGraph, Plan, RunOptions, View};
use serde_json::{json, Value};
use wgpu::util::DeviceExt;

/// The README's example: ridged Perlin, frequency 4, seed 7, one octave.
const PERLIN: &str = r#"{ "id": "p", "type": "perlin", "frequency": 4 }"#;

/// Graphs whose output `out` has a crease at the lattice points of `p` (where Perlin is 0) or
/// wherever its inputs tie.
fn cases() -> Vec<(&'static str, NoiseGraph)> {
    let p: Value = serde_json::from_str(PERLIN).unwrap();
    let q = json!({ "id": "q", "type": "perlin", "frequency": 4 });
    let zero = json!({ "id": "zero", "type": "constant", "value": 0 });
    let graph = |out: Value, extra: &[&Value]| {
        let mut nodes = vec![p.clone()];
        nodes.extend(extra.iter().map(|v| (*v).clone()));
        nodes.push(out);
        NoiseGraph::from_value(&json!({ "seed": 7, "output": "out", "nodes": nodes })).unwrap()
    };
    vec![
        (
            "ridged",
            graph(
                json!({ "id": "out", "type": "ridged", "source": "p", "octaves": 1 }),
                &[],
            ),
        ),
        (
            "billow",
            graph(
                json!({ "id": "out", "type": "billow", "source": "p", "octaves": 1 }),
                &[],
            ),
        ),
        (
            "pingpong (folds where Perlin is 0)",
            graph(
                json!({ "id": "out", "type": "pingpong", "source": "p", "octaves": 1 }),
                &[],
            ),
        ),
        (
            "hybrid (its weight clamps at 0 where Perlin is 0)",
            graph(
                json!({ "id": "out", "type": "hybrid", "source": "p", "octaves": 2, "signal_offset": 0 }),
                &[],
            ),
        ),
        (
            "abs",
            graph(json!({ "id": "out", "type": "abs", "source": "p" }), &[]),
        ),
        (
            "min (ties with 0 at lattice points)",
            graph(
                json!({ "id": "out", "type": "min", "inputs": ["p", "zero"] }),
                &[&zero],
            ),
        ),
        (
            "max (ties with 0 at lattice points)",
            graph(
                json!({ "id": "out", "type": "max", "inputs": ["zero", "p"] }),
                &[&zero],
            ),
        ),
        (
            "min (tied everywhere)",
            graph(
                json!({ "id": "out", "type": "min", "inputs": ["p", "q"] }),
                &[&q],
            ),
        ),
        (
            "max (tied everywhere)",
            graph(
                json!({ "id": "out", "type": "max", "inputs": ["q", "p"] }),
                &[&q],
            ),
        ),
        (
            "clamp (lower bound at lattice points)",
            graph(
                json!({ "id": "out", "type": "clamp", "source": "p", "min": 0, "max": 1 }),
                &[],
            ),
        ),
        (
            "clamp (upper bound at lattice points)",
            graph(
                json!({ "id": "out", "type": "clamp", "source": "p", "min": -1, "max": 0 }),
                &[],
            ),
        ),
        (
            "pow 0.5 (a = 0 at lattice points)",
            graph(
                json!({ "id": "out", "type": "pow", "source": "p", "exponent": 0.5 }),
                &[],
            ),
        ),
        (
            "quantize (a jump at 0, at lattice points)",
            graph(
                json!({ "id": "out", "type": "quantize", "source": "p", "step": 0.25 }),
                &[],
            ),
        ),
        (
            "smooth_min k 0 (tied everywhere)",
            graph(
                json!({ "id": "out", "type": "smooth_min", "inputs": ["p", "q"], "k": 0 }),
                &[&q],
            ),
        ),
        (
            "select hard (control 0 at lattice points)",
            graph(
                json!({ "id": "out", "type": "select", "inputs": ["q", "zero", "p"] }),
                &[&q, &zero],
            ),
        ),
        (
            "value, linear fade (C0 on lattice lines)",
            NoiseGraph::from_value(&json!({ "seed": 7, "output": "out", "nodes": [
                { "id": "out", "type": "value", "frequency": 4, "fade": "linear" }] }))
            .unwrap(),
        ),
    ]
}

/// Lattice points of frequency 4, points on its lattice lines, and one point off them.
const POINTS: &[[f64; 2]] = &[
    [0.0, 0.0],
    [0.25, 0.5],
    [-0.75, 1.25],
    [0.5, -0.25],
    [0.25, 0.371_1],
    [-0.5, 0.123_4],
    [0.678_9, 0.75],
    [0.123_4, 0.567_8],
];

fn is_lattice_point(p: [f64; 2]) -> bool {
    p.iter().all(|x| (x * 4.0).fract() == 0.0)
}

/// The gradient bake of one pixel at `p` on the CPU path: (value, d/dx, d/dy).
fn baked(graph: &NoiseGraph, p: [f64; 2]) -> [f32; 3] {
    let plan = Plan::new(graph, None).unwrap();
    let view = View::image(1, 1)
        .with_origin([p[0], p[1], 0.0])
        .with_extent([0.01, 0.01, 1.0]);
    let field = Executor::Cpu
        .run_gradient(&plan, &view, &RunOptions::default())
        .unwrap();
    let t = field.get(0, 0, 0);
    [t[0], t[1], t[2]]
}

/// The point query at every point: (value, d/dx, d/dy) each.
fn queried(graph: &NoiseGraph) -> Vec<[f32; 3]> {
    let query = PointQuery::new(graph, None).unwrap();
    let positions: Vec<f64> = POINTS.iter().flatten().copied().collect();
    let g = query.gradients(&positions).unwrap();
    g.chunks(3).map(|c| [c[0], c[1], c[2]]).collect()
}

/// The user's compute shader around the exported `crease_grad` in `language`: it reads
/// the points and writes (value, d/dx, d/dy) of each.
fn user_shader(graph: &NoiseGraph, language: Language) -> wgpu::ShaderSource<'static> {
    let export = export_shader(graph, &ShaderOptions::new("crease", language)).unwrap();
    let n = POINTS.len();
    match language {
        Language::Wgsl => {
            assert!(
                export.tables.is_none(),
                "these graphs need no table binding"
            );
            wgpu::ShaderSource::Wgsl(
                format!(
                    "{}
@group(0) @binding(0) var<storage, read> user_points: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> user_out: array<f32>;

@compute @workgroup_size(64, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if (i >= {n}u) {{
        return;
    }}
    let r = crease_grad(user_points[i]);
    user_out[3u * i] = r.value;
    user_out[3u * i + 1u] = r.d.x;
    user_out[3u * i + 2u] = r.d.y;
}}
",
                    export.source
                )
                .into(),
            )
        }
        // GLSL ES 3.00's text runs on lavapipe as the body of a GLSL 4.50 compute shader
        // (Vulkan takes no ES 3.00 shaders; naga writes the same functions for both, the ES
        // ones with their tables as constant arrays).
        Language::Glsl | Language::GlslEs => {
            let user = format!(
                "#version 450
#extension GL_GOOGLE_include_directive : require
layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer UserPoints {{ vec2 user_points[]; }};
layout(std430, set = 0, binding = 1) buffer UserOut {{ float user_out[]; }};
#include \"crease.glsl\"
void main() {{
    uint i = gl_GlobalInvocationID.x;
    if (i >= {n}u) {{
        return;
    }}
    crease_NoiseGrad r = crease_grad(user_points[i]);
    user_out[3u * i] = r.value;
    user_out[3u * i + 1u] = r.d.x;
    user_out[3u * i + 2u] = r.d.y;
}}
"
            );
            let words = glslang::spirv(
                "crease",
                &[("user.comp", &user), ("crease.glsl", &export.source)],
                false,
            )
            .unwrap();
            wgpu::ShaderSource::SpirV(words.into())
        }
        Language::Hlsl => {
            let user = format!(
                "[[vk::binding(0, 0)]] StructuredBuffer<float2> user_points;
[[vk::binding(1, 0)]] RWStructuredBuffer<float> user_out;
#include \"crease.hlsl\"
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {{
    uint i = id.x;
    if (i >= {n}u) {{
        return;
    }}
    crease_NoiseGrad r = crease_grad(user_points[i]);
    user_out[3u * i] = r.value;
    user_out[3u * i + 1u] = r.d.x;
    user_out[3u * i + 2u] = r.d.y;
}}
"
            );
            let words = glslang::spirv(
                "crease",
                &[("user.hlsl", &user), ("crease.hlsl", &export.source)],
                true,
            )
            .unwrap();
            wgpu::ShaderSource::SpirV(words.into())
        }
        _ => unreachable!("the languages this machine runs"),
    }
}

/// The exported `crease_grad` in `language` evaluated at every point by a user's compute
/// shader.
fn exported(ctx: &GpuContext, graph: &NoiseGraph, language: Language) -> Vec<[f32; 3]> {
    let source = user_shader(graph, language);
    let device = ctx.device();
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("user shader"),
        source,
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("user shader"),
        layout: None,
        module: &shader,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        panic!("user shader: {e}");
    }
    let points: Vec<f32> = POINTS.iter().flatten().map(|&x| x as f32).collect();
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&points),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let count = POINTS.len() * 3;
    // Poisoned with NaN: a point the shader does not write fails.
    let out = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&vec![f32::NAN; count]),
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (count * 4) as u64,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: input.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: out.as_entire_binding(),
            },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    encoder.copy_buffer_to_buffer(&out, 0, &readback, 0, (count * 4) as u64);
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
    bytemuck::cast_slice::<u8, f32>(&mapped)
        .chunks(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect()
}

#[test]
fn the_readme_example_has_a_flat_ridge_on_every_path() {
    let (_, ridged) = &cases()[0];
    let query = PointQuery::new(ridged, None).unwrap();
    let g = query.gradients(&[0.0, 0.0]).unwrap();
    assert_eq!(
        &g[..],
        &[1.0, 0.0, 0.0],
        "ridged at (0, 0): value 1, slope 0"
    );
    assert_eq!(baked(ridged, [0.0, 0.0]), [1.0, 0.0, 0.0]);
}

#[test]
fn point_queries_and_one_pixel_bakes_agree_at_creases() {
    for (name, graph) in cases() {
        let queried = queried(&graph);
        for (p, q) in POINTS.iter().zip(&queried) {
            let b = baked(&graph, *p);
            assert_eq!(
                q.map(f32::to_bits),
                b.map(f32::to_bits),
                "{name} at {p:?}: query {q:?}, bake {b:?}"
            );
            assert!(q.iter().all(|v| v.is_finite()), "{name} at {p:?}: {q:?}");
        }
        // At lattice points Perlin is 0: ridged, billow and abs have slope 0 there
        // (sign(0) = 0); min / max / clamp pass `a`'s gradient on a tie and p's within the
        // bounds, bounds included; smooth_min with k = 0 the mean of its tied inputs'.
        let lattice: Vec<&[f32; 3]> = POINTS
            .iter()
            .zip(&queried)
            .filter(|(p, _)| is_lattice_point(**p))
            .map(|(_, q)| q)
            .collect();
        for q in lattice {
            let flat = q[1] == 0.0 && q[2] == 0.0;
            // max's first input is the constant: on the tie its gradient, 0, is taken.
            match name {
                "ridged" | "billow" | "abs" => assert!(flat, "{name}: {q:?}"),
                // pow below 1 takes slope 0 at a = 0, quantize is flat everywhere, a hard
                // select takes b (the constant) where the control (p) is at the threshold.
                n if n.starts_with("pow") || n.starts_with("quantize") => {
                    assert!(flat, "{name}: {q:?}")
                }
                n if n.starts_with("select hard") => assert!(flat, "{name}: b's gradient ({q:?})"),
                n if n.starts_with("max (ties with 0") => {
                    assert!(flat, "{name}: a's gradient ({q:?})")
                }
                n if n.starts_with("value") => {}
                _ => assert!(!flat, "{name}: the input's gradient passes ({q:?})"),
            }
        }
    }
}

#[test]
fn the_exported_gradient_agrees_at_creases_on_the_gpu() {
    let Some(ctx) = gpu() else {
        return;
    };
    for (name, graph) in cases() {
        let queried = queried(&graph);
        // WGSL as written; GLSL 4.50, GLSL ES 3.00's text and HLSL compiled by glslang to
        // SPIR-V.
        for language in [
            Language::Wgsl,
            Language::Glsl,
            Language::GlslEs,
            Language::Hlsl,
        ] {
            let exported = exported(&ctx, &graph, language);
            for ((p, q), e) in POINTS.iter().zip(&queried).zip(&exported) {
                // The parity tolerance on values; gradients carry the frequency (4).
                let tolerance = [1e-4, 4e-4, 4e-4];
                for c in 0..3 {
                    assert!(
                        (q[c] - e[c]).abs() <= tolerance[c] * q[c].abs().max(1.0),
                        "{name} ({language}) at {p:?}: query {q:?}, exported {e:?}"
                    );
                }
                // The convention itself, not only closeness: a flat crease is exactly flat.
                if q[1] == 0.0 && q[2] == 0.0 {
                    assert!(
                        e[1] == 0.0 && e[2] == 0.0,
                        "{name} ({language}) at {p:?}: query {q:?}, exported {e:?}"
                    );
                }
            }
        }
    }
}
