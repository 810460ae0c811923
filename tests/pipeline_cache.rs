//! Pipelines are cached by shader source: the same graph compiled twice, or re-run with
//! other numbers (seed, frequency, gain, amplitude, origin, z), creates no new pipeline.

mod common;
use common::gpu;
use noisegraph::gpu::Specialize;
use noisegraph::{NoiseGraph, Plan, RunOptions, View};

/// Generic kernels only: specialized ones (compiled from a repeated run's numbers) are
/// tested in tests/specialize.rs.
fn generic() -> RunOptions {
    RunOptions {
        specialize: Specialize::Never,
        ..RunOptions::default()
    }
}
use serde_json::json;

fn warped(seed: u32, freq: f64, gain: f64, amplitude: f64, z: f64) -> NoiseGraph {
    NoiseGraph::from_value(&json!({
        "seed": seed, "output": "w",
        "nodes": [
            {"id": "p", "type": "perlin", "frequency": freq, "dims": 3, "z": z},
            {"id": "f", "type": "fbm", "source": "p", "octaves": 5, "gain": gain},
            {"id": "dx", "type": "fbm", "source": "p", "octaves": 3, "seed_offset": 31},
            {"id": "dy", "type": "fbm", "source": "p", "octaves": 3, "seed_offset": 37},
            {"id": "dz", "type": "fbm", "source": "p", "octaves": 3, "seed_offset": 41},
            {"id": "w", "type": "warp", "source": "f", "displace": ["dx", "dy", "dz"], "amplitude": amplitude}
        ]
    }))
    .unwrap()
}

#[test]
fn changing_numbers_reuses_every_pipeline() {
    let Some(ctx) = gpu() else { return };
    let view = View::image(32, 32);
    let run = |g: &NoiseGraph, view: &View| {
        ctx.run(&Plan::new(g, None).unwrap(), view, &generic())
            .unwrap()
    };
    let first = run(&warped(1, 4.0, 0.5, 0.3, 0.0), &view);
    let after_first = ctx.pipeline_creations();
    assert!(after_first >= 1);
    let again = run(&warped(1, 4.0, 0.5, 0.3, 0.0), &view);
    assert_eq!(first.data, again.data);
    assert_eq!(
        ctx.pipeline_creations(),
        after_first,
        "same graph twice: no new pipeline"
    );
    let variants = [
        warped(2, 4.0, 0.5, 0.3, 0.0),
        warped(1, 7.5, 0.5, 0.3, 0.0),
        warped(1, 4.0, 0.7, 0.3, 0.0),
        warped(1, 4.0, 0.5, 0.9, 0.0),
        warped(1, 4.0, 0.5, 0.3, 2.5),
    ];
    for g in &variants {
        let out = run(g, &view);
        assert!(
            out.max_abs_diff(&first) > 1e-3,
            "the number changed the output"
        );
    }
    let moved = run(&variants[0], &view.with_origin([1e5, -3.0, 7.0]));
    assert!(moved.max_abs_diff(&first) > 1e-3);
    assert_eq!(
        ctx.pipeline_creations(),
        after_first,
        "numbers travel in uniforms"
    );
    // A structural change (another family) does compile a new pipeline.
    let other = NoiseGraph::from_value(&json!({"seed": 1, "output": "v", "nodes": [
        {"id": "v", "type": "value", "frequency": 4.0, "fade": "cubic"}]}))
    .unwrap();
    run(&other, &view);
    assert!(ctx.pipeline_creations() > after_first);
}

#[test]
fn pooled_textures_never_leak_between_runs() {
    // Runs take their textures and staging buffers from a pool shared by every thread on the
    // context. Two threads alternate graphs of the same size (so they compete for the same
    // pooled textures); every run must reproduce its graph's first result exactly.
    let Some(ctx) = gpu() else { return };
    let view = View::image(40, 24);
    let graphs = [
        warped(5, 3.0, 0.5, 0.4, 0.25),
        warped(6, 7.0, 0.6, 0.2, 0.5),
    ];
    let plans: Vec<Plan> = graphs.iter().map(|g| Plan::new(g, None).unwrap()).collect();
    let reference: Vec<_> = plans
        .iter()
        .map(|p| ctx.run(p, &view, &generic()).unwrap().data)
        .collect();
    assert_ne!(reference[0], reference[1]);
    std::thread::scope(|s| {
        for t in 0..2 {
            let (ctx, plans, reference, view) = (&ctx, &plans, &reference, &view);
            s.spawn(move || {
                for i in 0..12 {
                    let which = (i + t) % 2;
                    let got = ctx.run(&plans[which], view, &generic()).unwrap();
                    assert_eq!(got.data, reference[which], "thread {t} run {i}");
                }
            });
        }
    });
}
