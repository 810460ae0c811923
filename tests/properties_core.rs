//! Properties of value, Perlin and simplex noise that follow from their constructions.

mod common;
use common::*;
use noisegraph::family::lookup;
use noisegraph::twin::hash::{hash_2d, hash_3d, hash_to_signed, seed_hash};
use noisegraph::View;
use serde_json::json;

/// frequency = size: every pixel lands exactly on a lattice point.
fn lattice_view(n: u32) -> View {
    View::image(n, n)
}

#[test]
fn perlin_is_exactly_zero_at_every_lattice_point() {
    for dims in [2, 3] {
        for fade in ["linear", "cubic", "quintic"] {
            for gradients in ["improved", "random"] {
                let g = single_node(
                    42,
                    json!({"type": "perlin", "frequency": 32, "dims": dims, "z": 3.0,
                           "fade": fade, "gradients": gradients}),
                );
                let cpu = cpu_field(&g, &lattice_view(32));
                assert!(
                    cpu.data.iter().all(|&v| v == 0.0),
                    "CPU {dims}D {fade} {gradients}"
                );
                if let Some(gpu) = gpu_field(&g, &lattice_view(32)) {
                    assert!(
                        gpu.data.iter().all(|&v| v == 0.0),
                        "GPU {dims}D {fade} {gradients}"
                    );
                }
                // ... and not zero between lattice points.
                let between = cpu_field(
                    &g,
                    &View::image(32, 32).with_origin([0.37 / 32.0, 0.61 / 32.0, 0.0]),
                );
                assert!(between.data.iter().filter(|v| v.abs() > 1e-3).count() > 900);
            }
        }
    }
}

#[test]
fn value_noise_equals_its_hashed_corner_at_lattice_points() {
    for seed in [0u32, 99, 123456789] {
        for dims in [2u32, 3] {
            let g = single_node(
                seed,
                json!({"type": "value", "frequency": 16, "dims": dims, "z": 0.0}),
            );
            let cpu = cpu_field(&g, &lattice_view(16));
            let gpu = gpu_field(&g, &lattice_view(16));
            let sh = seed_hash(seed);
            for y in 0..16 {
                for x in 0..16 {
                    let expected = if dims == 2 {
                        hash_to_signed(hash_2d([x, y], sh))
                    } else {
                        hash_to_signed(hash_3d([x, y, 0], sh))
                    };
                    assert_eq!(cpu.get(x as u32, y as u32, 0), expected);
                    if let Some(gpu) = &gpu {
                        assert_eq!(gpu.get(x as u32, y as u32, 0), expected);
                    }
                }
            }
        }
    }
}

#[test]
fn documented_ranges_hold_over_a_million_samples() {
    for (family, dims, tight) in [
        ("value", 2, 0.95),
        ("value", 3, 0.95),
        ("perlin", 2, 0.6),
        ("perlin", 3, 0.6),
        ("simplex", 2, 0.85),
        ("simplex", 3, 0.75),
    ] {
        let g = single_node(
            7,
            json!({"type": family, "frequency": 331.7, "dims": dims, "z": 0.3}),
        );
        let field = cpu_field(&g, &View::image(1000, 1000));
        let node = match &g.nodes[0].kind {
            noisegraph::graph::NodeKind::Family(f) => f.clone(),
            _ => unreachable!(),
        };
        let (lo, hi) = lookup(family).unwrap().range(dims, &node.params);
        let (min, max) = field.min_max().unwrap();
        assert!(
            min >= lo && max <= hi,
            "{family} {dims}D: [{min}, {max}] outside [{lo}, {hi}]"
        );
        // The documented range is not loose: the samples come close to it.
        assert!(
            max.max(-min) >= tight * hi,
            "{family} {dims}D: max |n| {} vs bound {hi}",
            max.max(-min)
        );
    }
}

#[test]
fn same_seed_is_bit_identical_and_another_seed_differs() {
    for family in ["value", "perlin", "simplex"] {
        let node = json!({"type": family, "frequency": 6.0});
        let view = View::image(64, 32);
        let a = cpu_field(&single_node(5, node.clone()), &view);
        let b = cpu_field(&single_node(5, node.clone()), &view);
        let c = cpu_field(&single_node(6, node.clone()), &view);
        assert_eq!(a.data, b.data, "{family} CPU");
        assert!(
            a.max_abs_diff(&c) > 0.1,
            "{family} CPU: seed changes output"
        );
        if let (Some(ga), Some(gb), Some(gc)) = (
            gpu_field(&single_node(5, node.clone()), &view),
            gpu_field(&single_node(5, node.clone()), &view),
            gpu_field(&single_node(6, node.clone()), &view),
        ) {
            assert_eq!(ga.data, gb.data, "{family} GPU");
            assert!(
                ga.max_abs_diff(&gc) > 0.1,
                "{family} GPU: seed changes output"
            );
        }
    }
}
