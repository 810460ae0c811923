//! Embedding in a renderer's frame: a compiled graph records into the caller's encoder and
//! target, per-frame parameters change without new pipelines, bad targets and short device
//! limits are refused before anything is recorded, and two graphs share a device across
//! threads.

mod common;

use std::sync::Arc;

use noisegraph::gpu::TargetView;
use noisegraph::{
    CompiledGraph, Error, GpuContext, MissingLimit, NodeParam, NoiseGraph, RunOptions,
    TargetProblem, View,
};
use serde_json::json;

/// A warped 3D fBm: one fused stage (the warp evaluating its three displacements inline).
fn warped(seed: u32, z: f64, frequency: f64, amplitude: f64) -> NoiseGraph {
    NoiseGraph::from_value(&json!({
        "seed": seed,
        "output": "terrain",
        "nodes": [
            { "id": "base", "type": "perlin", "dims": 3, "frequency": frequency, "z": z },
            { "id": "fbm", "type": "fbm", "source": "base", "octaves": 4 },
            { "id": "qx", "type": "fbm", "source": "base", "octaves": 2, "seed_offset": 31 },
            { "id": "qy", "type": "fbm", "source": "base", "octaves": 2, "seed_offset": 37 },
            { "id": "qz", "type": "fbm", "source": "base", "octaves": 2, "seed_offset": 41 },
            { "id": "terrain", "type": "warp", "source": "fbm", "displace": ["qx", "qy", "qz"], "amplitude": amplitude }
        ]
    }))
    .expect("valid graph")
}

/// A context of its own on the shared device, so its pipeline counter sees only this test.
fn fresh_context(shared: &GpuContext) -> Arc<GpuContext> {
    Arc::new(GpuContext::from_device(
        shared.device().clone(),
        shared.queue().clone(),
    ))
}

fn submit_frame(
    ctx: &GpuContext,
    graph: &mut CompiledGraph,
    target: &wgpu::Texture,
) -> noisegraph::Result<()> {
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    graph.record(&mut encoder, target)?;
    ctx.queue().submit(Some(encoder.finish()));
    Ok(())
}

fn assert_close(gpu: &noisegraph::Field, cpu: &noisegraph::Field, label: &str) {
    let diff = gpu.max_abs_diff(cpu);
    assert!(
        diff <= noisegraph::parity::PARITY_TOLERANCE,
        "{label}: max |gpu - cpu| = {diff:e}"
    );
}

#[test]
fn recorded_graph_matches_the_cpu_path() {
    let Some(shared) = common::gpu() else { return };
    let graph = warped(5, 0.25, 3.0, 0.3);
    let view = View::image(67, 45);
    let mut compiled = CompiledGraph::new(&shared, &graph, None, view).expect("compile");
    let target = compiled.create_target();
    submit_frame(&shared, &mut compiled, &target).expect("record");
    let gpu = compiled.read_target(&target).expect("readback");
    assert_close(&gpu, &common::cpu_field(&graph, &view), "warped graph");
}

#[test]
fn hundred_frames_of_new_parameters_create_no_pipeline() {
    let Some(shared) = common::gpu() else { return };
    let ctx = fresh_context(&shared);
    let view = View::image(48, 40);
    let mut compiled =
        CompiledGraph::new(&ctx, &warped(1, 0.0, 4.0, 0.4), None, view).expect("compile");
    let target = compiled.create_target();
    submit_frame(&ctx, &mut compiled, &target).expect("first frame");
    let after_first = ctx.pipeline_creations();
    assert!(after_first > 0, "the first frame compiled pipelines");
    let mut previous = compiled.read_target(&target).expect("readback");
    let mut changed_frames = 0;
    for frame in 1..=100u32 {
        let t = frame as f64;
        compiled.set_time(t * 0.01).expect("time");
        compiled.set_seed(1 + frame / 10).expect("seed");
        compiled
            .set_node_param("base", NodeParam::Frequency(4.0 + t * 0.01))
            .expect("frequency");
        compiled
            .set_node_param("terrain", NodeParam::Amplitude(0.4 - t * 0.001))
            .expect("amplitude");
        compiled
            .set_origin([t * 0.003, -t * 0.002, 0.0])
            .expect("origin");
        submit_frame(&ctx, &mut compiled, &target).expect("frame");
        if frame % 25 == 0 {
            let field = compiled.read_target(&target).expect("readback");
            changed_frames += usize::from(field.max_abs_diff(&previous) > 1e-3);
            previous = field;
        }
    }
    assert_eq!(
        ctx.pipeline_creations(),
        after_first,
        "no pipeline may be created after the first frame"
    );
    assert_eq!(
        changed_frames, 4,
        "every sampled frame differs from the last"
    );
}

#[test]
fn per_frame_parameters_equal_a_graph_built_with_them() {
    let Some(shared) = common::gpu() else { return };
    let view = View::image(50, 37);
    let mut compiled =
        CompiledGraph::new(&shared, &warped(1, 0.1, 4.0, 0.4), None, view).expect("compile");
    let target = compiled.create_target();
    submit_frame(&shared, &mut compiled, &target).expect("first frame");
    compiled.set_time(0.6).expect("time");
    compiled.set_seed(99).expect("seed");
    compiled
        .set_node_param("base", NodeParam::Frequency(5.5))
        .expect("frequency");
    compiled
        .set_node_param("terrain", NodeParam::Amplitude(0.15))
        .expect("amplitude");
    compiled
        .set_node_param("fbm", NodeParam::Gain(0.6))
        .expect("gain");
    compiled.set_origin([3.0, -2.5, 0.0]).expect("origin");
    submit_frame(&shared, &mut compiled, &target).expect("second frame");
    let gpu = compiled.read_target(&target).expect("readback");

    // The same numbers written into the graph: time adds to the 3D node's z.
    let mut expected = warped(99, 0.1 + 0.6, 5.5, 0.15);
    for node in &mut expected.nodes {
        if let noisegraph::graph::NodeKind::Fractal(f) = &mut node.kind {
            if node.id == "fbm" {
                f.gain = 0.6;
            }
        }
    }
    let expected_view = view.with_origin([3.0, -2.5, 0.0]);
    assert_close(
        &gpu,
        &common::cpu_field(&expected, &expected_view),
        "updated parameters",
    );
}

#[test]
fn bad_targets_are_refused_before_recording() {
    let Some(ctx) = common::gpu() else { return };
    let view = View::image(32, 16);
    let mut compiled =
        CompiledGraph::new(&ctx, &warped(3, 0.0, 2.0, 0.2), None, view).expect("compile");
    let make = |format, size: [u32; 3], usage, dimension| {
        ctx.device().create_texture(&wgpu::TextureDescriptor {
            label: Some("bad target"),
            size: wgpu::Extent3d {
                width: size[0],
                height: size[1],
                depth_or_array_layers: size[2],
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension,
            format,
            usage,
            view_formats: &[],
        })
    };
    let good_usage = CompiledGraph::TARGET_USAGE;
    use wgpu::{TextureDimension as D, TextureFormat as F, TextureUsages as U};
    let cases = [
        (
            make(F::Rgba8Unorm, [32, 16, 1], good_usage, D::D2),
            "format is Rgba8Unorm, needs R32Float",
            TargetProblem::Format {
                expected: vec![F::R32Float],
                found: F::Rgba8Unorm,
            },
        ),
        (
            make(F::R32Float, [16, 32, 1], good_usage, D::D2),
            "size is 16x32x1, needs 32x16x1",
            TargetProblem::Size {
                expected: [32, 16, 1],
                found: [16, 32, 1],
                mip_level: 0,
            },
        ),
        (
            make(
                F::R32Float,
                [32, 16, 1],
                U::TEXTURE_BINDING | U::COPY_SRC,
                D::D2,
            ),
            "lacks STORAGE_BINDING",
            TargetProblem::Usage {
                needed: U::STORAGE_BINDING,
                found: U::TEXTURE_BINDING | U::COPY_SRC,
            },
        ),
        (
            make(F::R32Float, [32, 16, 1], good_usage, D::D3),
            "dimension is D3, needs D2",
            TargetProblem::Dimension {
                expected: D::D2,
                found: D::D3,
            },
        ),
    ];
    for (texture, expected, problem) in cases {
        let scope = ctx.device().push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        let err = compiled
            .record(&mut encoder, &texture)
            .expect_err("a bad target is refused");
        match &err {
            Error::WrongTarget { role, problems } => {
                assert_eq!(*role, "target");
                assert_eq!(problems, &vec![problem], "{err}");
            }
            other => panic!("expected Error::WrongTarget, got {other:?}"),
        }
        assert!(
            err.to_string().contains(expected),
            "error '{err}' should say '{expected}'"
        );
        // Nothing was recorded: the encoder still finishes and submits cleanly.
        ctx.queue().submit(Some(encoder.finish()));
        assert!(
            pollster::block_on(scope.pop()).is_none(),
            "the refused record left a validation error"
        );
    }
}

#[test]
fn bad_per_frame_parameters_name_node_and_field() {
    let Some(ctx) = common::gpu() else { return };
    let mut compiled = CompiledGraph::new(
        &ctx,
        &warped(3, 0.0, 2.0, 0.2),
        Some("qx"),
        View::image(8, 8),
    )
    .expect("compile");
    let cases: [(&str, NodeParam, &str); 5] = [
        (
            "nope",
            NodeParam::Frequency(2.0),
            "node 'nope' is not in the graph",
        ),
        (
            "base",
            NodeParam::Frequency(0.0),
            "node 'base', field 'frequency'",
        ),
        (
            "base",
            NodeParam::Amplitude(1.0),
            "node 'base', field 'amplitude'",
        ),
        ("qx", NodeParam::Z(1.0), "node 'qx', field 'z'"),
        (
            "terrain",
            NodeParam::Amplitude(1.0),
            "not evaluated by the compiled output 'qx'",
        ),
    ];
    for (node, param, expected) in cases {
        let err = compiled.set_node_param(node, param).expect_err("refused");
        assert!(
            err.to_string().contains(expected),
            "error '{err}' should say '{expected}'"
        );
    }
    assert!(compiled.set_time(f64::NAN).is_err());
    assert!(compiled.set_origin([0.0, f64::INFINITY, 0.0]).is_err());
}

/// A device on the same adapter with some limits lowered, as a renderer might have.
fn limited_context(adjust: impl FnOnce(&mut wgpu::Limits)) -> Option<Arc<GpuContext>> {
    common::gpu()?;
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).ok()?;
    let mut limits = adapter.limits();
    adjust(&mut limits);
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("limited"),
        required_limits: limits,
        ..Default::default()
    }))
    .expect("a device with lower limits");
    Some(Arc::new(GpuContext::from_device(device, queue)))
}

#[test]
fn short_device_limits_are_named() {
    let Some(ctx) = limited_context(|l| {
        l.max_texture_dimension_2d = 64;
        l.max_sampled_textures_per_shader_stage = 1;
        l.max_uniform_buffers_per_shader_stage = 2;
    }) else {
        return;
    };
    let graph = warped(3, 0.0, 2.0, 0.2);
    let err = CompiledGraph::new(&ctx, &graph, None, View::image(128, 8))
        .err()
        .expect("too wide for the device");
    match &err {
        Error::DeviceLimits { missing, .. } => assert!(
            missing.contains(&MissingLimit {
                name: "max_texture_dimension_2d",
                needed: 128,
                available: 64
            }),
            "{err}"
        ),
        other => panic!("expected Error::DeviceLimits, got {other:?}"),
    }
    assert!(
        err.to_string()
            .contains("max_texture_dimension_2d = 64 (needs 128)"),
        "{err}"
    );

    let err = CompiledGraph::new(&ctx, &graph, None, View::image(16, 8))
        .err()
        .expect("the fused warp binds four uniform buffers");
    assert!(
        err.to_string()
            .contains("max_uniform_buffers_per_shader_stage = 2 (needs 4)"),
        "{err}"
    );
    // What fits, runs: a single displacement-free node on the same device.
    let plain = common::single_node(3, json!({ "type": "perlin", "frequency": 3 }));
    let view = View::image(16, 8);
    let mut compiled = CompiledGraph::new(&ctx, &plain, None, view).expect("fits");
    let target = compiled.create_target();
    submit_frame(&ctx, &mut compiled, &target).expect("record");
    assert_close(
        &compiled.read_target(&target).expect("readback"),
        &common::cpu_field(&plain, &view),
        "limited device",
    );
}

#[test]
fn two_graphs_run_on_one_device_from_two_threads() {
    let Some(ctx) = common::gpu() else { return };
    let graphs = [
        warped(11, 0.3, 3.0, 0.25),
        common::single_node(
            42,
            json!({ "type": "simplex", "dims": 3, "frequency": 6, "z": 0.5 }),
        ),
    ];
    let view = View::image(61, 29);
    std::thread::scope(|scope| {
        let handles: Vec<_> = graphs
            .iter()
            .map(|graph| {
                let ctx = ctx.clone();
                scope.spawn(move || {
                    let mut compiled =
                        CompiledGraph::new(&ctx, graph, None, view).expect("compile");
                    let target = compiled.create_target();
                    for frame in 0..5 {
                        compiled.set_time(frame as f64 * 0.1).expect("time");
                        submit_frame(&ctx, &mut compiled, &target).expect("frame");
                    }
                    let gpu = compiled.read_target(&target).expect("readback");
                    (gpu, compiled.time())
                })
            })
            .collect();
        for (graph, handle) in graphs.iter().zip(handles) {
            let (gpu, time) = handle.join().expect("thread");
            let mut expected = graph.clone();
            for node in &mut expected.nodes {
                if let noisegraph::graph::NodeKind::Family(f) = &mut node.kind {
                    f.z += time;
                }
            }
            assert_close(&gpu, &common::cpu_field(&expected, &view), &graph.output);
        }
    });
}

#[test]
fn volume_targets_record_too() {
    let Some(ctx) = common::gpu() else { return };
    let graph = common::single_node(8, json!({ "type": "perlin", "dims": 3, "frequency": 3 }));
    let view = View::volume(17, 9, 5);
    let mut compiled = CompiledGraph::new(&ctx, &graph, None, view).expect("compile");
    let target = compiled.create_target();
    assert_eq!(target.dimension(), wgpu::TextureDimension::D3);
    submit_frame(&ctx, &mut compiled, &target).expect("record");
    assert_close(
        &compiled.read_target(&target).expect("readback"),
        &common::cpu_field(&graph, &view),
        "volume",
    );
}

#[test]
fn split_octaves_ping_pong_through_the_callers_target() {
    let Some(ctx) = common::gpu() else { return };
    let graph = NoiseGraph::from_value(&json!({
        "seed": 4, "output": "fbm",
        "nodes": [
            { "id": "base", "type": "perlin", "dims": 3, "frequency": 2, "z": 0.2 },
            { "id": "fbm", "type": "ridged", "source": "base", "octaves": 5 }
        ]
    }))
    .expect("valid");
    let view = View::image(23, 19);
    // One octave per pass: five passes, the target read back as the partial sum.
    let options = noisegraph::RunOptions {
        octave_budget: view.pixel_count(),
        ..Default::default()
    };
    let mut compiled =
        CompiledGraph::with_options(&ctx, &graph, None, view, &options).expect("compile");
    assert!(compiled
        .required_target_usage()
        .contains(wgpu::TextureUsages::TEXTURE_BINDING));
    let storage_only = ctx.device().create_texture(&wgpu::TextureDescriptor {
        usage: wgpu::TextureUsages::STORAGE_BINDING,
        ..compiled.target_descriptor()
    });
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let err = compiled
        .record(&mut encoder, &storage_only)
        .expect_err("split octaves read the target back");
    assert!(err.to_string().contains("lacks TEXTURE_BINDING"), "{err}");
    drop(encoder);
    let target = compiled.create_target();
    submit_frame(&ctx, &mut compiled, &target).expect("record");
    assert_close(
        &compiled.read_target(&target).expect("readback"),
        &common::cpu_field(&graph, &view),
        "split octaves",
    );
}

#[test]
fn the_plan_and_cpu_reference_follow_every_per_frame_parameter() {
    let Some(ctx) = common::gpu() else { return };
    let graph = warped(2, 0.1, 3.0, 0.3);
    let view = View::image(41, 23);
    let mut compiled = CompiledGraph::new(&ctx, &graph, None, view).expect("compile");
    let target = compiled.create_target();
    let at_zero = compiled.cpu_reference().expect("cpu reference");
    compiled.set_time(0.7).expect("time");
    compiled.set_seed(77).expect("seed");
    compiled
        .set_node_param("base", NodeParam::Z(0.2))
        .expect("z");
    // Time adds to the node's own z, in the warp's stage and in its fused displacements.
    let noisegraph::graph::StageKind::Generate(g) = &compiled.plan().stages[0].kind else {
        panic!("the warp is a generate stage");
    };
    assert!((g.source.z - 0.9).abs() < 1e-12, "z = {}", g.source.z);
    assert_eq!(compiled.plan().seed, 77);
    // A second time replaces the first rather than adding to it.
    compiled.set_time(0.5).expect("time");
    compiled.set_time(0.7).expect("time");
    submit_frame(&ctx, &mut compiled, &target).expect("record");
    let gpu = compiled.read_target(&target).expect("readback");
    let reference = compiled.cpu_reference().expect("cpu reference");
    assert_close(&gpu, &reference, "cpu_reference of the frame");
    let from_plan =
        noisegraph::engine::run_cpu(compiled.plan(), compiled.view(), &RunOptions::default())
            .expect("cpu run");
    assert_eq!(from_plan, reference, "cpu_reference runs plan() on view()");
    assert!(
        gpu.max_abs_diff(&at_zero) > 1e-2,
        "the frame moved away from time 0"
    );
}

/// An R32Float 2D texture of `layers` array layers and `mips` mip levels, `size` at level 0.
fn layered_texture(ctx: &GpuContext, size: [u32; 2], layers: u32, mips: u32) -> wgpu::Texture {
    ctx.device().create_texture(&wgpu::TextureDescriptor {
        label: Some("layered target"),
        size: wgpu::Extent3d {
            width: size[0],
            height: size[1],
            depth_or_array_layers: layers,
        },
        mip_level_count: mips,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: wgpu::TextureFormat::R32Float,
        usage: CompiledGraph::TARGET_USAGE,
        view_formats: &[],
    })
}

#[test]
fn one_layer_and_mip_level_of_a_texture_is_a_target() {
    let Some(ctx) = common::gpu() else { return };
    let graph = warped(6, 0.0, 3.0, 0.3);
    // Mip level 1 of a 2x-sized texture has the view's size: 29x17 from 58x35.
    let view = View::image(29, 17);
    let mut compiled = CompiledGraph::new(&ctx, &graph, None, view).expect("compile");
    let tiles = layered_texture(&ctx, [58, 35], 3, 2);
    let layer = |l: u32| {
        TargetView::new(&tiles)
            .with_array_layer(l)
            .with_mip_level(1)
    };
    assert_eq!(layer(2).size(), [29, 17, 1]);
    // Two frames into two layers of one submission need two graphs (see the type's docs).
    let mut second = CompiledGraph::new(&ctx, &graph, None, view).expect("compile");
    second.set_time(0.4).expect("time");
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    compiled.record(&mut encoder, layer(2)).expect("layer 2");
    second.record(&mut encoder, layer(0)).expect("layer 0");
    ctx.queue().submit(Some(encoder.finish()));
    assert_close(
        &compiled.read_target(layer(2)).expect("read layer 2"),
        &compiled.cpu_reference().expect("cpu"),
        "layer 2, mip 1",
    );
    assert_close(
        &second.read_target(layer(0)).expect("read layer 0"),
        &second.cpu_reference().expect("cpu"),
        "layer 0, mip 1 at time 0.4",
    );
    // Layer 1 was never written: it still holds the zeros of a new texture.
    let untouched = compiled.read_target(layer(1)).expect("read layer 1");
    assert!(untouched.data.iter().all(|&v| v == 0.0));

    // The rules: the level's size, an existing level and layer.
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let wrong: [(TargetView, TargetProblem); 3] = [
        (
            TargetView::new(&tiles).with_array_layer(1),
            TargetProblem::Size {
                expected: [29, 17, 1],
                found: [58, 35, 1],
                mip_level: 0,
            },
        ),
        (
            layer(3),
            TargetProblem::ArrayLayer {
                requested: 3,
                count: 3,
            },
        ),
        (
            TargetView::new(&tiles).with_mip_level(2),
            TargetProblem::MipLevel {
                requested: 2,
                count: 2,
            },
        ),
    ];
    for (target, problem) in wrong {
        match compiled.record(&mut encoder, target) {
            Err(Error::WrongTarget { problems, .. }) => assert_eq!(problems, vec![problem]),
            other => panic!("expected Error::WrongTarget, got {other:?}"),
        }
    }
    let message = compiled
        .record(&mut encoder, TargetView::new(&tiles))
        .expect_err("mip 0 is twice the view's size")
        .to_string();
    assert_eq!(message, "target texture: size is 58x35x1, needs 29x17x1");
}

/// A device of its own, on a wgpu instance of its own.
fn device_of_another_instance() -> Option<(wgpu::Device, wgpu::Queue)> {
    common::gpu()?;
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).ok()?;
    Some(
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("another device"),
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .expect("a second device"),
    )
}

fn assert_wrong_device(result: noisegraph::Result<impl std::fmt::Debug>, label: &str) {
    match result {
        Err(Error::WrongTarget { problems, .. }) => {
            assert_eq!(problems, vec![TargetProblem::Device], "{label}")
        }
        other => panic!("{label}: expected a wrong-device error, got {other:?}"),
    }
}

/// Counts the errors that reach a device's uncaptured-error handler (a renderer's own).
fn count_uncaptured(device: &wgpu::Device) -> Arc<std::sync::atomic::AtomicUsize> {
    let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = count.clone();
    device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
        eprintln!("uncaptured on the caller's device: {e}");
        seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }));
    count
}

#[test]
fn targets_of_another_device_are_refused() {
    let Some(shared) = common::gpu() else { return };
    let Some((device_b, queue_b)) = device_of_another_instance() else {
        return;
    };
    let graph = warped(8, 0.0, 2.0, 0.2);
    let view = View::image(16, 12);
    // Two devices of one instance, and a device of another instance.
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&Default::default())).expect("adapter");
    let open = || {
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            required_limits: adapter.limits(),
            ..Default::default()
        }))
        .expect("device")
    };
    let (device_a, queue_a) = open();
    let (sibling, _sibling_queue) = open();
    // The callers' devices have handlers of their own: the engine's checks must not reach
    // them (before, asking the texture for a view it lacks raised two errors there).
    let raised = [count_uncaptured(&sibling), count_uncaptured(&device_b)];
    let ctx_a = Arc::new(GpuContext::from_device(device_a, queue_a));
    let mut compiled = CompiledGraph::new(&ctx_a, &graph, None, view).expect("compile");
    let descriptor = compiled.target_descriptor();
    // Whether wgpu 30 can tell the texture's device apart: always within one instance; for
    // another instance only when the texture's id names no texture of this one (the README).
    let others = [
        (
            "a device of the same instance",
            sibling.create_texture(&descriptor),
            true,
        ),
        (
            "a device of another instance",
            device_b.create_texture(&descriptor),
            false,
        ),
        (
            "the shared test device",
            shared.device().create_texture(&descriptor),
            false,
        ),
    ];
    let own = compiled.create_target();
    for (label, texture, told_apart) in &others {
        let scope = ctx_a
            .device()
            .push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = ctx_a.device().create_command_encoder(&Default::default());
        let results = [
            compiled.record(&mut encoder, texture).map(|_| ()),
            // Also after the graph has bound a target of its own (the cache compares textures).
            compiled.record(&mut encoder, &own).map(|_| ()),
            compiled.record(&mut encoder, texture).map(|_| ()),
            compiled.read_target(texture).map(|_| ()),
        ];
        for (i, result) in results.into_iter().enumerate() {
            match result {
                _ if i == 1 => result.expect("own target"),
                Ok(()) if !told_apart => {}
                result => assert_wrong_device(result, label),
            }
        }
        drop(encoder);
        assert!(
            pollster::block_on(scope.pop()).is_none(),
            "{label}: refusing the target left a validation error"
        );
    }
    for count in &raised {
        assert_eq!(
            count.load(std::sync::atomic::Ordering::SeqCst),
            0,
            "an error reached a caller's device"
        );
    }
    // The graph still runs on its own target.
    submit_frame(&ctx_a, &mut compiled, &own).expect("record");
    assert_close(
        &compiled.read_target(&own).expect("readback"),
        &compiled.cpu_reference().expect("cpu"),
        "after refusals",
    );
    drop(queue_b);
}

#[test]
fn requirements_say_what_to_ask_the_device_for() {
    let Some(_) = common::gpu() else { return };
    let graph = warped(3, 0.0, 2.0, 0.2);
    let view = View::image(300, 40);
    let needs = CompiledGraph::requirements(&graph, None, &view, &RunOptions::default())
        .expect("requirements");
    assert_eq!(needs.features(), wgpu::Features::empty());
    // The fused warp binds its own uniforms and those of its three displacement chains.
    assert_eq!(needs.limit("max_uniform_buffers_per_shader_stage"), Some(4));
    assert_eq!(needs.limit("max_texture_dimension_2d"), Some(300));
    let mut low = wgpu::Limits::downlevel_defaults();
    low.max_uniform_buffers_per_shader_stage = 2;
    low.max_texture_dimension_2d = 256;
    let missing = needs.missing(&low);
    let names: Vec<&str> = missing.iter().map(|m| m.name).collect();
    assert_eq!(
        names,
        [
            "max_texture_dimension_2d",
            "max_uniform_buffers_per_shader_stage"
        ]
    );
    let raised = needs.raise(low.clone());
    assert!(needs.missing(&raised).is_empty());
    assert_eq!(raised.max_uniform_buffers_per_shader_stage, 4);
    // wgpu's default limits run every preset up to 8192 x 8192 (the README says so).
    for preset in noisegraph::presets::PRESETS {
        let graph = noisegraph::presets::graph(preset.name).expect("preset");
        let big = View::image(8192, 8192);
        let needs = CompiledGraph::requirements(&graph, None, &big, &RunOptions::default())
            .expect("requirements");
        assert_eq!(
            needs.missing(&wgpu::Limits::default()),
            vec![],
            "preset {}",
            preset.name
        );
    }

    // A device created with exactly the raised limits runs the graph; one with the low
    // limits is refused with the same list.
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&Default::default())).expect("adapter");
    let device_with = |limits: wgpu::Limits| {
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            required_features: needs.features(),
            required_limits: limits,
            ..Default::default()
        }))
        .expect("device");
        Arc::new(GpuContext::from_device(device, queue))
    };
    let ctx = device_with(raised);
    let mut compiled = CompiledGraph::new(&ctx, &graph, None, view).expect("fits");
    let target = compiled.create_target();
    submit_frame(&ctx, &mut compiled, &target).expect("record");
    assert_close(
        &compiled.read_target(&target).expect("readback"),
        &compiled.cpu_reference().expect("cpu"),
        "device with the required limits",
    );
    let short = device_with(low);
    match CompiledGraph::new(&short, &graph, None, view) {
        Err(Error::DeviceLimits { missing: got, .. }) => assert_eq!(got, missing),
        Err(other) => panic!("expected Error::DeviceLimits, got {other:?}"),
        Ok(_) => panic!("a device with too low limits compiled the graph"),
    }
}

/// `encode_plan` into a caller's encoder, submitted and waited for; the target read back.
fn encoded_run(
    ctx: &GpuContext,
    graph: &NoiseGraph,
    view: &View,
) -> (noisegraph::gpu::GpuStageOutput, noisegraph::Field) {
    let plan = noisegraph::Plan::new(graph, None).unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let output = ctx
        .encode_plan(&mut encoder, &plan, view, &RunOptions::default())
        .unwrap();
    ctx.queue().submit(Some(encoder.finish()));
    let field = ctx.read_field(&output.textures[plan.target]).unwrap();
    (output, field)
}

#[test]
fn recycled_textures_serve_the_next_encode_plan() {
    let Some(shared) = common::gpu() else { return };
    let ctx = fresh_context(&shared);
    let graph = warped(5, 0.25, 3.0, 0.2);
    let view = View::image(33, 17);
    let (first, field) = encoded_run(&ctx, &graph, &view);
    let recycled = first.textures.clone();
    ctx.recycle(first);
    let (second, again) = encoded_run(&ctx, &graph, &view);
    assert!(
        second.textures.iter().all(|t| recycled.contains(t)),
        "the second run made new textures"
    );
    assert_eq!(
        field.data, again.data,
        "a recycled texture changed the result"
    );
    // Textures of another size are not taken.
    ctx.recycle(second);
    let (other, _) = encoded_run(&ctx, &graph, &View::image(16, 16));
    assert!(other.textures.iter().all(|t| !recycled.contains(t)));
}
