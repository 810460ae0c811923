//! Views beyond a device's texture limits: the GPU path bakes them in pieces that stitch bit
//! for bit, the command-line tool bakes the deep volumes that used to panic, and a run that
//! fails inside its error scopes pops them in order (no "Mismatched pop_error_scope" panic).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use noisegraph::{Error, GpuContext, NoiseGraph, Plan, RunOptions, View};

/// A context on a device of its own whose 2D and 3D texture limits are `max_2d` and `max_3d`.
fn small_device(max_2d: u32, max_3d: u32) -> Option<GpuContext> {
    common::gpu()?;
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).ok()?;
    let limits = wgpu::Limits {
        max_texture_dimension_2d: max_2d,
        max_texture_dimension_3d: max_3d,
        ..adapter.limits()
    };
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("small textures"),
        required_limits: limits,
        ..Default::default()
    }))
    .expect("a device with lower limits");
    Some(GpuContext::from_device(device, queue))
}

fn warped_volume() -> NoiseGraph {
    NoiseGraph::from_json(
        r#"{"seed": 11, "output": "w", "nodes": [
            {"id": "b", "type": "perlin", "dims": 3, "frequency": 3},
            {"id": "f", "type": "fbm", "source": "b", "octaves": 4},
            {"id": "dx", "type": "simplex", "dims": 3, "frequency": 2, "seed_offset": 1},
            {"id": "dy", "type": "value", "dims": 3, "frequency": 2, "seed_offset": 2},
            {"id": "dz", "type": "perlin", "dims": 3, "frequency": 2, "seed_offset": 3},
            {"id": "w", "type": "warp", "source": "f", "displace": ["dx", "dy", "dz"], "amplitude": 0.2}]}"#,
    )
    .expect("graph")
}

#[test]
fn views_beyond_the_texture_limits_bake_in_pieces_bit_for_bit() {
    let Some(whole) = common::gpu() else { return };
    let Some(small) = small_device(64, 16) else {
        return;
    };
    assert_eq!(small.limits().max_texture_dimension_3d, 16);
    let graph = warped_volume();
    let plan = Plan::new(&graph, None).expect("plan");
    let options = RunOptions::default();
    // Deeper, wider and taller than 16, a tile of a larger view, and an image wider than 64.
    let views = [
        View::volume(3, 2, 100),
        View::volume(37, 5, 18).with_origin([0.5, -2.0, 1e3]),
        View::volume(40, 40, 40).tile([3, 1, 2], [20, 17, 33]),
        View::image(150, 9),
    ];
    for view in views {
        let expected = whole.run(&plan, &view, &options).expect("one run");
        let pieces = small.run(&plan, &view, &options).expect("in pieces");
        assert_eq!(pieces, expected, "{view:?}");
        let expected = whole.run_gradient(&plan, &view, &options).expect("one run");
        let pieces = small
            .run_gradient(&plan, &view, &options)
            .expect("in pieces");
        assert_eq!(pieces, expected, "gradient form of {view:?}");
    }
}

#[test]
fn a_run_that_fails_inside_its_error_scopes_pops_them_in_order() {
    let Some(ctx) = common::gpu() else { return };
    // Refused in gradient form (3D simplex with the classic falloff jumps, so it has no
    // gradient) after the run's scopes are pushed: the refusal comes back, and the device
    // takes the next run.
    let graph = NoiseGraph::from_json(
        r#"{"seed": 2, "output": "c", "nodes": [{"id": "c", "type": "simplex", "dims": 3, "falloff": "classic"}]}"#,
    )
    .expect("graph");
    let plan = Plan::new(&graph, None).expect("plan");
    let view = View::volume(9, 7, 3);
    match ctx.run_gradient(&plan, &view, &RunOptions::default()) {
        Err(Error::InvalidRequest(m)) => assert!(m.contains("'c'"), "{m}"),
        other => panic!("expected a refusal naming the node, got {other:?}"),
    }
    let field = ctx
        .run(&plan, &view, &RunOptions::default())
        .expect("the next run");
    assert!(field.data.iter().all(|v| v.is_finite()));
}

fn workdir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("device_limits_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn bake(dir: &Path, size: &str, backend: &str, out: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_noisegraph"))
        .current_dir(dir)
        .args([
            "bake",
            "g.json",
            "-o",
            out,
            "--size",
            size,
            "--backend",
            backend,
        ])
        .output()
        .expect("run noisegraph")
}

#[test]
fn deep_volumes_bake_on_the_gpu_path() {
    if common::gpu().is_none() {
        return;
    }
    let dir = workdir("deep");
    std::fs::write(
        dir.join("g.json"),
        r#"{"seed": 5, "output": "n", "nodes": [{"id": "n", "type": "perlin", "dims": 3, "frequency": 4}]}"#,
    )
    .unwrap();
    // Deeper than any device's 3D textures allow (WebGPU's default is 2048).
    for size in ["1x1x65536", "3x1x10000"] {
        let gpu = bake(&dir, size, "gpu", "gpu.npy");
        let err = String::from_utf8_lossy(&gpu.stderr);
        assert_eq!(gpu.status.code(), Some(0), "{size}: {err}");
        assert!(bake(&dir, size, "cpu", "cpu.npy").status.success());
        let a = noisegraph::io::read_npy(&dir.join("gpu.npy")).expect("gpu bake");
        let b = noisegraph::io::read_npy(&dir.join("cpu.npy")).expect("cpu bake");
        assert_eq!((a.width, a.height, a.depth), (b.width, b.height, b.depth));
        let worst = a
            .data
            .iter()
            .zip(&b.data)
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, f32::max);
        assert!(worst <= 1e-4, "{size}: GPU and CPU differ by {worst}");
    }
}
