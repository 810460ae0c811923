//! On the GPU path a bake's bits are a function of the job (graph, view, tile, backend), never
//! of what ran before in the process: tiles stitched equal the whole bake, and every split of
//! the tiles into shards (each shard a process of a job array, with its own run history)
//! bakes the same tiles, bit for bit, for graphs with warps, point-wise nodes and cellular.

mod common;
use std::sync::Arc;

use noisegraph::gpu::{Specialize, SPECIALIZE_MIN_WORK};
use noisegraph::{Field, GpuContext, NoiseGraph, Plan, RunOptions, View};

/// A context of its own on the shared device: a process with no run history.
fn fresh() -> Option<Arc<GpuContext>> {
    let shared = common::gpu()?;
    Some(Arc::new(GpuContext::from_device(
        shared.device().clone(),
        shared.queue().clone(),
    )))
}

fn jobs() -> Vec<(&'static str, NoiseGraph)> {
    let mountains = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/mountains.json"
    ))
    .unwrap();
    vec![
        (
            "cells (cellular)",
            noisegraph::presets::graph("cells").unwrap(),
        ),
        (
            "marble (warps)",
            noisegraph::presets::graph("marble").unwrap(),
        ),
        (
            "mountains (point-wise)",
            NoiseGraph::from_json(&mountains).unwrap(),
        ),
    ]
}

/// The tiles of a `size` view cut into `edge`-pixel squares, row by row.
fn tiles(view: &View, edge: u32) -> Vec<View> {
    let mut out = Vec::new();
    for y in (0..view.size[1]).step_by(edge as usize) {
        for x in (0..view.size[0]).step_by(edge as usize) {
            out.push(view.tile([x, y, 0], [edge, edge, 1]));
        }
    }
    out
}

/// Asserts that `tile` holds exactly the whole bake's pixels under it.
fn assert_tile_matches(name: &str, whole: &Field, tile_view: &View, tile: &Field) {
    let [ox, oy, _] = tile_view.pixel_offset();
    for y in 0..tile.height {
        for x in 0..tile.width {
            let (a, b) = (tile.get(x, y, 0), whole.get(ox + x, oy + y, 0));
            assert!(
                a.to_bits() == b.to_bits(),
                "{name}: tile at ({ox}, {oy}) pixel ({x}, {y}) is {a:e}, the whole bake {b:e}"
            );
        }
    }
}

#[test]
fn tiles_and_shards_equal_the_whole_bake_whatever_ran_before() {
    let Some(shared) = fresh() else { return };
    let view = View::image(300, 200);
    for (name, graph) in jobs() {
        let plan = Plan::new(&graph, None).unwrap();
        let options = RunOptions::default();
        // The whole bake first in a fresh process, then again after its tiles ran.
        let whole = fresh().unwrap().run(&plan, &view, &options).unwrap();
        let tiles = tiles(&view, 64);
        for tile in &tiles {
            let field = shared.run(&plan, tile, &options).unwrap();
            assert_tile_matches(name, &whole, tile, &field);
        }
        let again = shared.run(&plan, &view, &options).unwrap();
        assert_eq!(
            again.data, whole.data,
            "{name}: the whole bake after its tiles"
        );
        // Shards I/N for several N: each shard a fresh process that bakes its tiles in order.
        for n in [2usize, 3, 5] {
            for i in 0..n {
                let process = fresh().unwrap();
                for tile in tiles.iter().skip(i).step_by(n) {
                    let field = process.run(&plan, tile, &options).unwrap();
                    assert_tile_matches(&format!("{name}, shard {i}/{n}"), &whole, tile, &field);
                }
            }
        }
    }
    assert!(shared.pipeline_creations() > 0);
}

#[test]
fn both_kernel_forms_stitch_bit_for_bit() {
    let Some(ctx) = fresh() else { return };
    let view = View::image(150, 90).with_origin([1.0e5, -3.25, 0.0]);
    for (name, graph) in jobs() {
        let plan = Plan::new(&graph, None).unwrap();
        for specialize in [Specialize::Never, Specialize::Always] {
            let options = RunOptions {
                specialize,
                ..RunOptions::default()
            };
            let whole = ctx.run(&plan, &view, &options).unwrap();
            for tile in tiles(&view, 40).iter().rev() {
                let field = ctx.run(&plan, tile, &options).unwrap();
                assert_tile_matches(&format!("{name} {specialize:?}"), &whole, tile, &field);
            }
        }
    }
}

#[test]
fn split_octave_passes_do_not_change_the_bits() {
    let Some(ctx) = fresh() else { return };
    let view = View::image(120, 70);
    for (name, graph) in jobs() {
        let plan = Plan::new(&graph, None).unwrap();
        let run = |budget: u64| {
            let options = RunOptions {
                octave_budget: budget,
                ..RunOptions::default()
            };
            ctx.run(&plan, &view, &options).unwrap()
        };
        let single = run(1 << 27);
        for budget in [view.pixel_count(), 3 * view.pixel_count()] {
            assert_eq!(
                run(budget).data,
                single.data,
                "{name}: octaves split {budget} samples per pass"
            );
        }
    }
}

#[test]
fn a_large_job_on_a_cpu_adapter_uses_one_kernel_form_for_all_its_tiles() {
    let Some(ctx) = fresh() else { return };
    // 16 octaves over 2048 x 2048: the work from which a CPU adapter specializes. Two tiles
    // baked in fresh processes (the first and the last of the grid) equal the same pixels of
    // a bake of the whole image's top-left and bottom-right corners through tiles too.
    let graph = NoiseGraph::from_json(
        r#"{"seed": 4, "output": "f", "nodes": [{"id": "n", "type": "value", "frequency": 16},
            {"id": "f", "type": "fbm", "source": "n", "octaves": 16}]}"#,
    )
    .unwrap();
    let plan = Plan::new(&graph, None).unwrap();
    let view = View::image(2048, 2048);
    assert_eq!(view.pixel_count() * 16, SPECIALIZE_MIN_WORK);
    let options = RunOptions::default();
    let corners = [
        view.tile([0, 0, 0], [64, 48, 1]),
        view.tile([2048 - 64, 2048 - 48, 0], [64, 48, 1]),
    ];
    // One process bakes both corners, after a small unrelated run of the same graph.
    ctx.run(&plan, &View::image(64, 48), &options).unwrap();
    let together: Vec<Field> = corners
        .iter()
        .map(|t| ctx.run(&plan, t, &options).unwrap())
        .collect();
    for (tile, field) in corners.iter().zip(&together) {
        let alone = fresh().unwrap().run(&plan, tile, &options).unwrap();
        assert_eq!(alone.data, field.data, "tile at {:?}", tile.pixel_offset());
    }
    let cpu_adapter = ctx.adapter_info().device_type == wgpu::DeviceType::Cpu;
    assert_eq!(
        ctx.pipelines().specialized_len() > 0,
        cpu_adapter,
        "on {}: the whole image's work decides the kernel form",
        ctx.describe()
    );
}
