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

/// A context with its persistent pipeline cache in `dir`, or `None` without an adapter
/// (which fails instead with `NOISEGRAPH_REQUIRE_GPU=1`).
fn context_caching_in(dir: &std::path::Path) -> Option<noisegraph::GpuContext> {
    gpu()?;
    Some(noisegraph::GpuContext::with_cache_dir(Some(dir.to_path_buf())).expect("a context"))
}

fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_pipeline_cache_persists_between_contexts() {
    use noisegraph::gpu::{PipelineCacheSave, PipelineCacheState};
    let dir = scratch_dir("pipeline-cache-persists");
    let Some(first) = context_caching_in(&dir) else {
        return;
    };
    let graph = warped(3, 4.0, 0.5, 0.3, 0.0);
    let view = View::image(16, 16);
    let run = |ctx: &noisegraph::GpuContext| {
        ctx.run(&Plan::new(&graph, None).unwrap(), &view, &generic())
            .unwrap()
    };
    let PipelineCacheState::Empty {
        path,
        ignored: None,
    } = first.pipeline_cache_state().clone()
    else {
        // Only Vulkan has a pipeline cache wgpu can keep.
        assert_eq!(
            first.pipeline_cache_state(),
            &PipelineCacheState::Unsupported
        );
        return;
    };
    let expected = run(&first);
    let saved = first.save_pipeline_cache().unwrap();
    let second = context_caching_in(&dir).unwrap();
    match saved {
        PipelineCacheSave::Written { loaded, bytes, .. } => {
            assert_eq!(loaded, 0, "started without pipelines");
            assert_eq!(
                second.pipeline_cache_state(),
                &PipelineCacheState::Loaded {
                    path: path.clone(),
                    bytes
                }
            );
            assert_eq!(run(&second).data, expected.data);
            assert_eq!(
                second.save_pipeline_cache().unwrap(),
                PipelineCacheSave::Hit { bytes },
                "the same graph again: every pipeline from the cache"
            );
        }
        PipelineCacheSave::DriverStoresNothing => {
            // The driver keeps nothing in the cache (lavapipe before Mesa 23.1): no file.
            assert!(!path.exists(), "{}", path.display());
            assert_eq!(run(&second).data, expected.data);
        }
        other => panic!("after compiling pipelines: {other:?}"),
    }
}

#[test]
fn a_damaged_or_foreign_pipeline_cache_is_ignored_never_trusted() {
    use noisegraph::gpu::PipelineCacheState;
    let dir = scratch_dir("pipeline-cache-damaged");
    let Some(ctx) = context_caching_in(&dir) else {
        return;
    };
    let PipelineCacheState::Empty { path, .. } = ctx.pipeline_cache_state().clone() else {
        return; // no pipeline cache on this backend
    };
    let graph = warped(5, 3.0, 0.5, 0.2, 1.0);
    let view = View::image(16, 16);
    let expected = ctx
        .run(&Plan::new(&graph, None).unwrap(), &view, &generic())
        .unwrap();
    let noise: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    // Files our own checks reject, and one that passes them (a whole file of our format)
    // holding data that is not the driver's: wgpu's header check must turn it away.
    let files: [(&str, Option<Vec<u8>>); 4] = [
        ("random bytes", Some(noise.clone())),
        ("empty", Some(Vec::new())),
        ("truncated", None),
        ("whole file, foreign data", None),
    ];
    for (what, bytes) in files {
        match (what, bytes) {
            (_, Some(bytes)) => std::fs::write(&path, bytes).unwrap(),
            ("truncated", None) => {
                noisegraph::cache::write(&path, b"pipeline", &noise).unwrap();
                let whole = std::fs::read(&path).unwrap();
                std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
            }
            _ => noisegraph::cache::write(&path, b"pipeline", &noise).unwrap(),
        }
        let ctx = noisegraph::GpuContext::with_cache_dir(Some(dir.clone())).expect("a context");
        let state = ctx.pipeline_cache_state().clone();
        if what == "whole file, foreign data" {
            assert!(
                matches!(state, PipelineCacheState::Loaded { .. }),
                "{what}: {state:?}"
            );
        } else {
            assert!(
                matches!(
                    state,
                    PipelineCacheState::Empty {
                        ignored: Some(_),
                        ..
                    }
                ),
                "{what}: {state:?}"
            );
        }
        let out = ctx
            .run(&Plan::new(&graph, None).unwrap(), &view, &generic())
            .unwrap();
        assert_eq!(out.data, expected.data, "{what}");
        ctx.save_pipeline_cache().unwrap();
    }
}
