//! Specialized kernels (octave parameters compiled in, `RunOptions::specialize`) compute what
//! the generic kernels compute (the same operations on the same numbers; constant folding may
//! round one differently by an ulp), are chosen by the default policy from the job alone (a
//! large job on a CPU adapter), never from run history, stay bounded in number, and never
//! serve a `CompiledGraph`.

mod common;
use std::sync::Arc;

use noisegraph::gpu::{Specialize, MAX_SPECIALIZED, SPECIALIZE_MIN_WORK};
use noisegraph::{CompiledGraph, GpuContext, NoiseGraph, Plan, RunOptions, View};
use serde_json::json;

/// A context of its own, so that no other test's runs move the pipeline counts.
fn fresh() -> Option<Arc<GpuContext>> {
    let shared = common::gpu()?;
    Some(Arc::new(GpuContext::from_device(
        shared.device().clone(),
        shared.queue().clone(),
    )))
}

fn options(specialize: Specialize) -> RunOptions {
    RunOptions {
        specialize,
        ..RunOptions::default()
    }
}

fn fbm(family: serde_json::Value, kind: &str, octaves: u32) -> NoiseGraph {
    // Tileable sources need an integer lacunarity.
    let lacunarity = if family.get("period").is_some() {
        2.0
    } else {
        2.1
    };
    NoiseGraph::from_value(&json!({
        "seed": 77, "output": "f",
        "nodes": [
            family,
            {"id": "f", "type": kind, "source": "n", "octaves": octaves, "lacunarity": lacunarity, "gain": 0.55}
        ]
    }))
    .unwrap()
}

fn graphs() -> Vec<(&'static str, NoiseGraph, View)> {
    let image = View::image(67, 45).with_origin([1.0e5, -321.25, 0.0]);
    let mut cases = vec![
        (
            "perlin fbm",
            fbm(
                json!({"id": "n", "type": "perlin", "frequency": 5}),
                "fbm",
                8,
            ),
            image,
        ),
        (
            "value ridged, tileable",
            fbm(
                json!({"id": "n", "type": "value", "frequency": 4, "period": 4}),
                "ridged",
                5,
            ),
            View::image(64, 64),
        ),
        (
            "simplex billow",
            fbm(
                json!({"id": "n", "type": "simplex", "frequency": 3}),
                "billow",
                4,
            ),
            image,
        ),
        (
            "cellular fbm",
            fbm(
                json!({"id": "n", "type": "cellular", "frequency": 6, "metric": "manhattan", "return": "f2_minus_f1"}),
                "fbm",
                3,
            ),
            image,
        ),
        (
            "gabor (auxiliary data)",
            fbm(
                json!({"id": "n", "type": "gabor", "frequency": 4}),
                "fbm",
                2,
            ),
            View::image(40, 33),
        ),
        (
            "perlin 3D volume",
            fbm(
                json!({"id": "n", "type": "perlin", "frequency": 3, "dims": 3}),
                "fbm",
                4,
            ),
            View::volume(19, 17, 9).with_origin([2.5, 0.0, -7.0]),
        ),
    ];
    for preset in ["marble", "swirl"] {
        cases.push((
            preset,
            noisegraph::presets::graph(preset).unwrap(),
            View::image(61, 52),
        ));
    }
    cases
}

#[test]
fn specialized_kernels_compute_what_generic_kernels_compute() {
    let Some(ctx) = fresh() else { return };
    let mut checked = 0;
    for (name, graph, view) in graphs() {
        let plan = Plan::new(&graph, None).unwrap();
        for budget in [1u64 << 27, 3 * view.pixel_count()] {
            let run = |specialize| {
                let mut o = options(specialize);
                o.octave_budget = budget;
                ctx.run(&plan, &view, &o).unwrap()
            };
            let generic = run(Specialize::Never);
            let specialized = run(Specialize::Always);
            let diff = specialized.max_abs_diff(&generic);
            assert!(
                diff <= 1e-6,
                "{name} (octave budget {budget}): specialized differs from generic by {diff}"
            );
            assert!(generic.data.iter().all(|v| v.is_finite()), "{name}");
            checked += 1;
        }
    }
    assert!(ctx.pipelines().specialized_len() > 0);
    assert_eq!(checked, 16);
}

#[test]
fn the_default_policy_does_not_depend_on_run_history() {
    let Some(ctx) = fresh() else { return };
    let graph = fbm(
        json!({"id": "n", "type": "perlin", "frequency": 4}),
        "fbm",
        6,
    );
    let plan = Plan::new(&graph, None).unwrap();
    let view = View::image(50, 30);
    let first = ctx.run(&plan, &view, &RunOptions::default()).unwrap();
    let creations = ctx.pipeline_creations();
    // A small job stays generic however often it runs: repeats compile nothing and give the
    // same bits.
    for _ in 0..3 {
        let again = ctx.run(&plan, &view, &RunOptions::default()).unwrap();
        assert_eq!(again.data, first.data);
    }
    assert_eq!(ctx.pipelines().specialized_len(), 0);
    assert_eq!(ctx.pipeline_creations(), creations);
    // Another origin is other numbers, and the same generic pipeline.
    let moved = view.with_origin([3.0, 4.0, 0.0]);
    ctx.run(&plan, &moved, &RunOptions::default()).unwrap();
    assert_eq!(ctx.pipeline_creations(), creations);
    // Always: specialized from the first run, and the same kernel again on repeats.
    ctx.run(&plan, &moved, &options(Specialize::Always))
        .unwrap();
    let with_specialized = ctx.pipeline_creations();
    assert_eq!(with_specialized, creations + 1);
    ctx.run(&plan, &moved, &options(Specialize::Always))
        .unwrap();
    assert_eq!(ctx.pipeline_creations(), with_specialized);
    assert_eq!(ctx.pipelines().specialized_len(), 1);
}

#[test]
fn large_jobs_on_cpu_adapters_specialize_from_their_first_run() {
    let Some(ctx) = fresh() else { return };
    let cpu_adapter = ctx.adapter_info().device_type == wgpu::DeviceType::Cpu;
    // 16 octaves: 2048 x 2048 is exactly the threshold, one row less is under it.
    let graph = fbm(
        json!({"id": "n", "type": "value", "frequency": 4}),
        "fbm",
        16,
    );
    let plan = Plan::new(&graph, None).unwrap();
    let under = View::image(2048, 2047);
    assert!(under.pixel_count() * 16 < SPECIALIZE_MIN_WORK);
    ctx.run(&plan, &under, &RunOptions::default()).unwrap();
    assert_eq!(
        ctx.pipelines().specialized_len(),
        0,
        "a job under the threshold is generic"
    );
    let at = View::image(2048, 2048);
    assert_eq!(at.pixel_count() * 16, SPECIALIZE_MIN_WORK);
    let first = ctx.run(&plan, &at, &RunOptions::default()).unwrap();
    assert_eq!(
        ctx.pipelines().specialized_len(),
        usize::from(cpu_adapter),
        "on {}: a job at the threshold is specialized only on a CPU adapter",
        ctx.describe()
    );
    let generic = ctx.run(&plan, &at, &options(Specialize::Never)).unwrap();
    let worst = first
        .data
        .iter()
        .zip(&generic.data)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(worst <= 1e-6, "specialized and generic differ by {worst}");
}

#[test]
fn specialized_pipelines_are_bounded() {
    let Some(ctx) = fresh() else { return };
    let graph = fbm(
        json!({"id": "n", "type": "value", "frequency": 2}),
        "fbm",
        2,
    );
    let plan = Plan::new(&graph, None).unwrap();
    for i in 0..MAX_SPECIALIZED + 4 {
        let view = View::image(8, 8).with_origin([i as f64 * 0.37, 0.0, 0.0]);
        ctx.run(&plan, &view, &options(Specialize::Always)).unwrap();
    }
    assert_eq!(ctx.pipelines().specialized_len(), MAX_SPECIALIZED);
    // One generic kernel at most besides them (none was asked for here).
    assert!(ctx.pipelines().len() <= MAX_SPECIALIZED + 1);
}

#[test]
fn compiled_graphs_read_their_numbers_from_uniforms() {
    let Some(ctx) = fresh() else { return };
    let graph = fbm(
        json!({"id": "n", "type": "perlin", "frequency": 4}),
        "fbm",
        4,
    );
    let view = View::image(32, 32);
    let mut compiled =
        CompiledGraph::with_options(&ctx, &graph, None, view, &options(Specialize::Always))
            .unwrap();
    let target = compiled.create_target();
    for frame in 0..3 {
        compiled.set_time(frame as f64 * 0.25).unwrap();
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        compiled.record(&mut encoder, &target).unwrap();
        ctx.queue().submit(Some(encoder.finish()));
        compiled.read_target(&target).unwrap();
    }
    assert_eq!(ctx.pipelines().specialized_len(), 0);
}
