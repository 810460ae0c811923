//! GPU vs CPU parity for simplex 4D, simplex's classic falloff (3D, 4D), OpenSimplex2 (fast and smooth, 2D/3D/4D), cellular
//! (every return type and metric, 2D and 3D) and tileable value / Perlin / cellular.

mod common;
use common::*;
use serde_json::json;

#[test]
fn simplex_4d_parity() {
    assert_parity_node(
        json!({"type": "simplex", "frequency": 11.0, "dims": 4, "z": 0.73, "w": 0.41, "offset": [0.25, -3.5, 0.0, 2.0]}),
        "simplex 4D",
    );
}

#[test]
fn simplex_classic_falloff_parity() {
    for dims in [3, 4] {
        assert_parity_node(
            json!({"type": "simplex", "falloff": "classic", "frequency": 9.0, "dims": dims,
                   "z": 0.73, "w": 0.41, "offset": axes(&[0.25, -3.5], dims)}),
            &format!("simplex {dims}D classic"),
        );
    }
}

#[test]
fn opensimplex2_parity() {
    for dims in [2, 3, 4] {
        for variant in ["fast", "smooth"] {
            assert_parity_node(
                json!({"type": "opensimplex2", "variant": variant, "frequency": axes(&[9.7, 6.3], dims), "dims": dims,
                       "z": 0.37, "w": 1.9, "offset": axes(&[0.5, -2.25], dims)}),
                &format!("opensimplex2 {dims}D {variant}"),
            );
        }
    }
}

#[test]
fn opensimplex2_far_from_the_origin_parity() {
    for dims in [2, 3, 4] {
        for variant in ["fast", "smooth"] {
            assert_parity_node(
                json!({"type": "opensimplex2", "variant": variant, "frequency": 6.0, "dims": dims,
                       "z": 3.0e5, "w": -7.0e5, "offset": axes(&[1.0e6, -2.5e5], dims)}),
                &format!("opensimplex2 {dims}D {variant} far"),
            );
        }
    }
}

#[test]
fn cellular_parity() {
    for dims in [2, 3] {
        for ret in ["f1", "f2", "f2_minus_f1", "cell_value"] {
            for metric in ["euclidean", "euclidean_squared", "manhattan", "chebyshev"] {
                assert_parity_node(
                    json!({"type": "cellular", "return": ret, "metric": metric, "jitter": 0.85,
                           "frequency": axes(&[7.3, 5.1], dims), "dims": dims, "z": 0.61}),
                    &format!("cellular {dims}D {ret} {metric}"),
                );
            }
        }
    }
}

#[test]
fn tileable_parity() {
    for dims in [2, 3] {
        for family in ["value", "perlin", "cellular"] {
            assert_parity_node(
                json!({"type": family, "frequency": 6.0, "period": 6, "dims": dims, "z": 0.4,
                       "offset": axes(&[-3.0, 7.5], dims)}),
                &format!("{family} {dims}D period 6"),
            );
        }
    }
}

#[test]
fn lattice_volume_parity() {
    let Some(ctx) = gpu() else { return };
    let nodes = [
        json!({"type": "opensimplex2", "variant": "fast", "frequency": 5.0, "dims": 3}),
        json!({"type": "opensimplex2", "variant": "smooth", "frequency": 5.0, "dims": 3}),
        json!({"type": "cellular", "metric": "manhattan", "return": "f2", "frequency": 4.0, "dims": 3}),
        json!({"type": "cellular", "frequency": 4.0, "period": 4, "dims": 3}),
    ];
    for node in nodes {
        let graph = single_node(99, node.clone());
        assert_parity_view(
            &ctx,
            &graph,
            &noisegraph::View::volume(17, 9, 5),
            &format!("{node} volume"),
        );
    }
}

#[test]
fn fractal_and_4d_warp_parity() {
    let Some(ctx) = gpu() else { return };
    let graph = noisegraph::NoiseGraph::from_value(&json!({
        "seed": 5,
        "output": "warped",
        "nodes": [
            {"id": "base", "type": "simplex", "dims": 4, "frequency": 3.0, "z": 0.2, "w": 0.9},
            {"id": "os", "type": "opensimplex2", "variant": "smooth", "dims": 4, "frequency": 2.0},
            {"id": "cell", "type": "cellular", "frequency": 3.0},
            {"id": "fbm", "type": "fbm", "source": "os", "octaves": 4},
            {"id": "ridge", "type": "ridged", "source": "cell", "octaves": 3},
            {"id": "warped", "type": "warp", "source": "base", "displace": ["fbm", "ridge", "fbm", "ridge"], "amplitude": 0.2}
        ]
    }))
    .expect("graph");
    for [w, h] in PARITY_SIZES {
        assert_parity_view(
            &ctx,
            &graph,
            &noisegraph::View::image(w, h),
            "fbm/ridged + 4D warp",
        );
    }
}
