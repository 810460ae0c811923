//! GPU vs CPU parity for value, Perlin and simplex in 2D and 3D, every fade and gradient set.

mod common;
use common::*;
use serde_json::json;

#[test]
fn value_parity() {
    for dims in [2, 3] {
        for fade in ["linear", "cubic", "quintic"] {
            assert_parity_node(
                json!({"type": "value", "frequency": 7.3, "dims": dims, "z": 0.37, "fade": fade}),
                &format!("value {dims}D {fade}"),
            );
        }
    }
}

#[test]
fn perlin_parity() {
    for dims in [2, 3] {
        for fade in ["linear", "cubic", "quintic"] {
            for gradients in ["improved", "random"] {
                assert_parity_node(
                    json!({"type": "perlin", "frequency": axes(&[9.1, 5.7], dims), "dims": dims, "z": 1.61,
                           "fade": fade, "gradients": gradients}),
                    &format!("perlin {dims}D {fade} {gradients}"),
                );
            }
        }
    }
}

#[test]
fn simplex_parity() {
    for dims in [2, 3] {
        assert_parity_node(
            json!({"type": "simplex", "frequency": 11.0, "dims": dims, "z": 0.73, "offset": axes(&[0.25, -3.5], dims)}),
            &format!("simplex {dims}D"),
        );
    }
}

#[test]
fn volume_parity() {
    let Some(ctx) = gpu() else { return };
    for family in ["value", "perlin", "simplex"] {
        let graph = single_node(99, json!({"type": family, "frequency": 5.0, "dims": 3}));
        assert_parity_view(
            &ctx,
            &graph,
            &noisegraph::View::volume(17, 9, 5),
            &format!("{family} volume"),
        );
    }
}
