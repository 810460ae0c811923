//! Origins are f64 and split per octave into an integer cell and an f32 fraction, so a bake
//! far from the origin is as smooth as one at 0, and adjacent regions join exactly.

mod common;
use noisegraph::engine::run_cpu;
use noisegraph::{Field, NoiseGraph, Plan, RunOptions, View};
use serde_json::json;

fn terrain(family: &str) -> NoiseGraph {
    NoiseGraph::from_value(&json!({"seed": 77, "output": "f", "nodes": [
        {"id": "p", "type": family, "frequency": 8.0},
        {"id": "f", "type": "fbm", "source": "p", "octaves": 6}
    ]}))
    .unwrap()
}

fn bake(g: &NoiseGraph, view: &View) -> Field {
    run_cpu(&Plan::new(g, None).unwrap(), view, &RunOptions::default()).unwrap()
}

/// Mean absolute difference between horizontally neighbouring pixels.
fn neighbour_difference(f: &Field) -> f64 {
    let w = f.width as usize;
    let mut sum = 0.0;
    let mut n = 0;
    for row in f.data.chunks(w) {
        for pair in row.windows(2) {
            sum += (pair[1] - pair[0]).abs() as f64;
            n += 1;
        }
    }
    sum / n as f64
}

#[test]
fn a_tile_at_a_million_is_as_smooth_as_one_at_zero() {
    for family in ["value", "perlin", "simplex"] {
        let g = terrain(family);
        // Enough cells that region-to-region variation stays well under the 5% margin.
        let view = View::image(1024, 1024).with_extent([4.0, 4.0, 1.0]);
        let near = bake(&g, &view);
        let far = bake(&g, &view.with_origin([1e6, 1e6, 0.0]));
        let (a, b) = (neighbour_difference(&near), neighbour_difference(&far));
        assert!((a - b).abs() / a < 0.05, "{family}: {a} at 0 vs {b} at 1e6");
        assert!(
            far.max_abs_diff(&near) > 0.01,
            "{family}: a different region"
        );
        if let Some(gpu) = common::gpu_field(&g, &view.with_origin([1e6, 1e6, 0.0])) {
            assert!(gpu.max_abs_diff(&far) <= 1e-4, "{family}: GPU at 1e6");
        }
    }
}

#[test]
fn side_by_side_bakes_join_into_the_wide_one() {
    for family in ["value", "perlin", "simplex"] {
        let g = terrain(family);
        let wide = bake(&g, &View::image(256, 128).with_extent([2.0, 1.0, 1.0]));
        let left = bake(&g, &View::image(128, 128));
        let right = bake(&g, &View::image(128, 128).with_origin([1.0, 0.0, 0.0]));
        let mut worst = 0.0f32;
        for y in 0..128 {
            for x in 0..128 {
                worst = worst.max((wide.get(x, y, 0) - left.get(x, y, 0)).abs());
                worst = worst.max((wide.get(x + 128, y, 0) - right.get(x, y, 0)).abs());
            }
        }
        assert!(
            worst <= 1e-4,
            "{family}: [0,2]x[0,1] vs [0,1] | [1,2]: {worst}"
        );
    }
}

/// A CPU twin never overflows, whatever its input: a sample far past f32's precision (a view
/// extent of 1e15, where `local` reaches 1e15) and cells at the i32 limits give a number, the
/// lattice offsets wrapping like the hash assumes (issue 18: OpenSimplex2 3D added to a
/// saturated offset, "attempt to add with overflow" in debug builds). The same points twice
/// give the same bits.
#[test]
fn huge_local_coordinates_do_not_overflow() {
    use noisegraph::family::SamplePoint;
    let locals = [1.0e15f32, -1.0e15, 3.0e9, -2.5e14, 8.5e6, f32::MAX / 4.0];
    let cells = [
        [0; 4],
        [i32::MAX; 4],
        [i32::MIN; 4],
        [i32::MAX, i32::MIN, 1, -1],
    ];
    for family in noisegraph::family::registry() {
        for &dims in family.dims() {
            let probe = common::family_probe(3, json!({ "type": family.name(), "dims": dims }));
            let mut points = Vec::new();
            for (i, &l) in locals.iter().enumerate() {
                for cell in cells {
                    let mut local = [0.25f32; 4];
                    local[i % dims as usize] = l;
                    local[(i + 1) % dims as usize] = -l * 0.5;
                    points.push(SamplePoint {
                        cell,
                        local,
                        seed: 17,
                        period: [0; 4],
                    });
                }
            }
            let first = probe.cpu(&points);
            let again = probe.cpu(&points);
            for (a, b) in first.iter().zip(&again) {
                assert_eq!(a.to_bits(), b.to_bits(), "{} {dims}D", family.name());
            }
            if let Some(grads) = probe.cpu_grad(&points) {
                for (g, v) in grads.iter().zip(&first) {
                    assert_eq!(g.value.to_bits(), v.to_bits(), "{} {dims}D", family.name());
                }
            }
        }
    }
}
