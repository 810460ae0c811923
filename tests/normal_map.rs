//! The normal-map pass: exact on planes (borders included), wrap versus clamp, GPU-vs-CPU
//! parity in every output format, bad textures refused, height scale changed per frame.

mod common;

use noisegraph::gpu::{normal_map_cpu, Border, NormalMapFormat, NormalMapOptions, NormalMapPass};
use noisegraph::{CompiledGraph, Field, View};
use serde_json::json;

fn options(
    format: NormalMapFormat,
    border: Border,
    scale: f32,
    spacing: [f32; 2],
) -> NormalMapOptions {
    NormalMapOptions {
        format,
        border,
        height_scale: scale,
        spacing,
    }
}

fn plane(width: u32, height: u32, a: f32, b: f32) -> Field {
    let data = (0..height)
        .flat_map(|y| (0..width).map(move |x| a * x as f32 + b * y as f32))
        .collect();
    Field::new(width, height, 1, data)
}

#[test]
fn a_plane_has_one_normal_everywhere_borders_included() {
    let (a, b, scale, spacing) = (0.3f32, -0.2f32, 2.0f32, [0.5f32, 0.25f32]);
    let field = plane(9, 6, a, b);
    let normals = normal_map_cpu(
        &field,
        &options(NormalMapFormat::Rgba32Float, Border::Clamp, scale, spacing),
    )
    .expect("normals");
    let (gx, gy) = (scale * a / spacing[0], scale * b / spacing[1]);
    let len = (gx * gx + gy * gy + 1.0).sqrt();
    let expected = [-gx / len, -gy / len, 1.0 / len];
    for (i, n) in normals.iter().enumerate() {
        for c in 0..3 {
            assert!(
                (n[c] - expected[c]).abs() < 1e-5,
                "pixel {i}: {n:?} vs {expected:?}"
            );
        }
        assert_eq!(n[3], field.data[i], "w carries the height");
    }
}

#[test]
fn wrap_sees_across_the_edge_and_clamp_does_not() {
    // A single raised pixel at x = 0: its wrapped neighbour is x = width - 1.
    let mut field = Field::new(8, 1, 1, vec![0.0; 8]);
    field.data[0] = 1.0;
    let at = |border| {
        normal_map_cpu(
            &field,
            &options(NormalMapFormat::Rgba32Float, border, 1.0, [1.0, 1.0]),
        )
        .expect("normals")[7]
    };
    let wrapped = at(Border::Wrap);
    let clamped = at(Border::Clamp);
    assert!(
        wrapped[0] < -0.1,
        "slope up toward x = 0 across the edge: {wrapped:?}"
    );
    assert_eq!(clamped[..3], [0.0, 0.0, 1.0], "flat at the clamped edge");
    // Unorm encoding: (n * 0.5 + 0.5, 1).
    let unorm = normal_map_cpu(
        &field,
        &options(NormalMapFormat::Rgba8Unorm, Border::Clamp, 1.0, [1.0, 1.0]),
    )
    .expect("normals")[7];
    assert_eq!(unorm, [0.5, 0.5, 1.0, 1.0]);
}

/// The GPU pass against its CPU twin on a noise field, in every format and border.
#[test]
fn gpu_normal_map_matches_cpu_twin() {
    let Some(ctx) = common::gpu() else { return };
    let graph = common::single_node(9, json!({ "type": "perlin", "frequency": 6 }));
    for [w, h] in common::PARITY_SIZES {
        let view = View::image(w, h);
        let mut noise = CompiledGraph::new(&ctx, &graph, None, view).expect("compile");
        let height = noise.create_target();
        for format in NormalMapFormat::ALL {
            for border in [Border::Clamp, Border::Wrap] {
                let opts = NormalMapOptions {
                    format,
                    border,
                    height_scale: 0.05,
                    ..NormalMapOptions::for_view(&view)
                };
                let mut pass = NormalMapPass::new(&ctx, [w, h], opts).expect("pass");
                let out = pass.create_output();
                let mut encoder = ctx.device().create_command_encoder(&Default::default());
                noise.record(&mut encoder, &height).expect("noise");
                pass.record(&mut encoder, &height, &out).expect("normals");
                ctx.queue().submit(Some(encoder.finish()));
                let field = noise.read_target(&height).expect("height");
                let gpu = ctx.read_rgba(&out).expect("readback");
                let cpu = normal_map_cpu(&field, &opts).expect("cpu");
                // f32 parity, then the quantization step of the stored format.
                let tolerance = match format {
                    NormalMapFormat::Rgba32Float => noisegraph::parity::PARITY_TOLERANCE,
                    NormalMapFormat::Rgba16Float => 1e-3,
                    NormalMapFormat::Rgba8Unorm => 0.5 / 255.0 + 1e-4,
                };
                let worst = gpu
                    .iter()
                    .zip(&cpu)
                    .flat_map(|(g, c)| g.iter().zip(c).map(|(a, b)| (a - b).abs()))
                    .fold(
                        0.0f32,
                        |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) },
                    );
                assert!(
                    worst <= tolerance,
                    "{w}x{h} {format:?} {border:?}: max |gpu - cpu| = {worst:e}"
                );
            }
        }
    }
}

#[test]
fn bad_textures_are_refused_and_height_scale_needs_no_pipeline() {
    let Some(shared) = common::gpu() else { return };
    // A context of its own, so the pipeline counter sees only this test.
    let ctx = std::sync::Arc::new(noisegraph::GpuContext::from_device(
        shared.device().clone(),
        shared.queue().clone(),
    ));
    let graph = common::single_node(2, json!({ "type": "value", "frequency": 5 }));
    let view = View::image(24, 20);
    let mut noise = CompiledGraph::new(&ctx, &graph, None, view).expect("compile");
    let height = noise.create_target();
    let opts = NormalMapOptions::for_view(&view);
    let mut pass = NormalMapPass::new(&ctx, [24, 20], opts).expect("pass");
    let out = pass.create_output();

    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let err = pass
        .record(&mut encoder, &out, &out)
        .expect_err("normals are no height field");
    assert!(
        err.to_string()
            .contains("height texture: format is Rgba16Float, needs R32Float"),
        "{err}"
    );
    let err = pass
        .record(&mut encoder, &height, &height)
        .expect_err("a height field is no normal map");
    assert!(
        err.to_string()
            .contains("normal map texture: format is R32Float, needs Rgba16Float"),
        "{err}"
    );
    assert!(NormalMapPass::new(
        &ctx,
        [24, 20],
        NormalMapOptions {
            spacing: [0.0, 1.0],
            ..opts
        }
    )
    .is_err());

    noise.record(&mut encoder, &height).expect("noise");
    pass.record(&mut encoder, &height, &out).expect("normals");
    ctx.queue().submit(Some(encoder.finish()));
    let flat = ctx.read_rgba(&out).expect("readback");
    let creations = ctx.pipeline_creations();
    pass.set_height_scale(5.0).expect("scale");
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    pass.record(&mut encoder, &height, &out).expect("normals");
    ctx.queue().submit(Some(encoder.finish()));
    let steep = ctx.read_rgba(&out).expect("readback");
    assert_eq!(
        ctx.pipeline_creations(),
        creations,
        "a new height scale compiles nothing"
    );
    let mean_nz = |n: &[[f32; 4]]| n.iter().map(|t| t[2]).sum::<f32>() / n.len() as f32;
    assert!(
        mean_nz(&steep) < mean_nz(&flat),
        "a larger height scale tilts the normals: {} vs {}",
        mean_nz(&steep),
        mean_nz(&flat)
    );
}
