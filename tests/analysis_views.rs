//! Slope and curvature views: a cubic fade's creases show along lattice lines in the
//! Laplacian, a quintic's do not (Perlin 2002), and both views measure what they claim.

mod common;

use noisegraph::analysis::{derivative_view, DerivativeView};
use noisegraph::engine::run_cpu;
use noisegraph::{Field, Plan, RunOptions, View};

/// Value noise with `fade`, 8 cells across 256 pixels: lattice lines every 32 pixels.
fn value_noise(fade: &str) -> Field {
    let graph = common::single_node(
        11,
        serde_json::json!({ "type": "value", "frequency": 8.0, "fade": fade }),
    );
    let plan = Plan::new(&graph, None).unwrap();
    run_cpu(&plan, &View::image(256, 256), &RunOptions::default()).unwrap()
}

/// Mean |L(x+1, y) - L(x, y)| of the Laplacian L across the lattice lines (x + 1 = 32k)
/// divided by the same away from them: how strongly the curvature jumps at the cell walls.
fn crease_ratio(field: &Field) -> f64 {
    let lap = derivative_view(field, 0, DerivativeView::Curvature);
    let (mut at, mut n_at, mut away, mut n_away) = (0.0, 0, 0.0, 0);
    for y in 1..lap.height - 1 {
        for x in 2..lap.width - 3 {
            let jump = (lap.get(x + 1, y, 0) - lap.get(x, y, 0)).abs() as f64;
            let to_line = (x as i64 + 1)
                .rem_euclid(32)
                .min(32 - (x as i64 + 1).rem_euclid(32));
            if to_line == 0 {
                at += jump;
                n_at += 1;
            } else if to_line >= 4 {
                away += jump;
                n_away += 1;
            }
        }
    }
    (at / n_at as f64) / (away / n_away as f64)
}

#[test]
fn cubic_fade_creases_show_in_the_curvature_and_quintic_ones_do_not() {
    let cubic = crease_ratio(&value_noise("cubic"));
    let quintic = crease_ratio(&value_noise("quintic"));
    eprintln!("crease ratio: cubic {cubic:.2}, quintic {quintic:.2}");
    // A quintic's third derivative is largest at the cell walls too, so its ratio is not 1,
    // but only a cubic's second derivative jumps there.
    assert!(
        cubic > 3.5 && cubic > 2.0 * quintic,
        "cubic {cubic}, quintic {quintic}"
    );
    assert!(quintic < 2.2, "quintic: {quintic}");
}

#[test]
fn slope_and_curvature_of_known_surfaces() {
    // A ramp of 0.5 per pixel along x: slope 0.5 everywhere, curvature 0 inside.
    let (w, h) = (9u32, 7u32);
    let ramp = Field::new(w, h, 1, (0..w * h).map(|i| (i % w) as f32 * 0.5).collect());
    let slope = derivative_view(&ramp, 0, DerivativeView::Slope);
    assert!(slope.data.iter().all(|&s| (s - 0.5).abs() < 1e-6));
    let curv = derivative_view(&ramp, 0, DerivativeView::Curvature);
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            assert!(curv.get(x, y, 0).abs() < 1e-6);
        }
    }
    // A paraboloid x^2 + y^2 has Laplacian 4 (in pixel units) inside.
    let bowl = Field::new(
        w,
        h,
        1,
        (0..w * h)
            .map(|i| ((i % w) as f32).powi(2) + ((i / w) as f32).powi(2))
            .collect(),
    );
    let curv = derivative_view(&bowl, 0, DerivativeView::Curvature);
    assert!((curv.get(4, 3, 0) - 4.0).abs() < 1e-4);
}
