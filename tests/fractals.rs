//! The fractals of issue 31 (`pingpong`): GPU against CPU in value and gradient form, the
//! exact gradient against central differences, point queries against bake pixels, the
//! documented range, and the remap itself against FastNoise2's formula. (Its crease
//! convention is checked with the others in tests/creases.rs.)

mod common;
use common::{assert_parity_view, gpu};

use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::query::PointQuery;
use noisegraph::{Executor, NoiseGraph, Plan, RunOptions, View};
use serde_json::json;

/// A pingpong fractal of `family` (frequency 3), 4 octaves.
fn pingpong(family: &str, seed: u32) -> NoiseGraph {
    NoiseGraph::from_value(&json!({ "seed": seed, "output": "out", "nodes": [
        { "id": "base", "type": family, "frequency": 3 },
        { "id": "out", "type": "pingpong", "source": "base", "octaves": 4 }
    ]}))
    .unwrap()
}

const FAMILIES: &[&str] = &["perlin", "simplex", "opensimplex2", "value"];

fn view() -> View {
    View::image(96, 80).with_origin([0.3, -0.7, 0.0])
}

#[test]
fn pingpong_matches_fastnoise2s_formula() {
    use noisegraph::twin::lib::ops::{fractal_remap, FRACTAL_PINGPONG};
    for i in -100..=100 {
        let n = i as f32 / 100.0;
        // FastNoise2: PingPong((n + 1) * strength), strength 2, then (x - 0.5) * 2.
        let t = (n + 1.0) * 2.0;
        let t = t - (t * 0.5).floor() * 2.0;
        let folded = if t < 1.0 { t } else { 2.0 - t };
        assert_eq!(
            fractal_remap(n, FRACTAL_PINGPONG),
            (folded - 0.5) * 2.0,
            "n = {n}"
        );
    }
}

#[test]
fn pingpong_stays_in_its_documented_range() {
    for family in FAMILIES {
        let graph = pingpong(family, 7);
        let field = common::cpu_field(&graph, &view());
        let (lo, hi) = field.min_max().unwrap();
        assert!(lo >= -1.0 && hi <= 1.0, "{family}: {lo}..{hi}");
        assert!(hi - lo > 0.5, "{family}: folds show ({lo}..{hi})");
        assert_eq!(graph.range_of("out"), (-1.0, 1.0));
    }
}

#[test]
fn pingpong_gpu_matches_cpu_in_value_form() {
    let Some(ctx) = gpu() else { return };
    for family in FAMILIES {
        for seed in [1, 1337] {
            assert_parity_view(&ctx, &pingpong(family, seed), &view(), family);
        }
    }
}

#[test]
fn pingpong_gpu_matches_cpu_in_gradient_form() {
    let Some(ctx) = gpu() else { return };
    for family in FAMILIES {
        let graph = pingpong(family, 3);
        let plan = Plan::new(&graph, None).unwrap();
        let options = RunOptions::default();
        let cpu = Executor::Cpu
            .run_gradient(&plan, &view(), &options)
            .unwrap();
        let gpu = ctx.run_gradient(&plan, &view(), &options).unwrap();
        // A sample next to a fold may round to the other side on one path: its slope then
        // flips sign. Such pixels are rare; the values agree everywhere.
        let mut flipped = 0;
        for (c, g) in cpu.data.iter().zip(&gpu.data) {
            assert!(
                (c[0] - g[0]).abs() <= PARITY_TOLERANCE,
                "{family}: {c:?} {g:?}"
            );
            let scale = c[1].abs().max(c[2].abs()).max(1.0);
            if (1..3).any(|a| (c[a] - g[a]).abs() > 1e-4 * scale * 24.0) {
                flipped += 1;
            }
        }
        assert!(
            flipped * 1000 <= cpu.data.len(),
            "{family}: {flipped} pixels differ"
        );
    }
}

/// Median |analytic - central difference| and median |analytic| over a view's pixels.
fn central_difference_error(graph: &NoiseGraph, h: f64) -> (f64, f64) {
    let plan = Plan::new(graph, None).unwrap();
    let view = View::image(48, 40).with_origin([0.13, 0.41, 0.0]);
    let options = RunOptions::default();
    let g = Executor::Cpu.run_gradient(&plan, &view, &options).unwrap();
    let mut errors = Vec::new();
    let mut sizes = Vec::new();
    for a in 0..2 {
        let shifted = |sign: f64| {
            let mut origin = view.origin;
            origin[a] += sign * h;
            Executor::Cpu
                .run(&plan, &view.with_origin(origin), &options)
                .unwrap()
                .data
        };
        let (lo, hi) = (shifted(-1.0), shifted(1.0));
        for (i, s) in g.data.iter().enumerate() {
            let cd = (hi[i] as f64 - lo[i] as f64) / (2.0 * h);
            errors.push((s[a + 1] as f64 - cd).abs());
            sizes.push((s[a + 1] as f64).abs());
        }
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (median(errors), median(sizes))
}

#[test]
fn pingpong_gradient_matches_central_differences() {
    for family in FAMILIES {
        let graph = pingpong(family, 11);
        let (coarse, _) = central_difference_error(&graph, 0.001);
        let (fine, size) = central_difference_error(&graph, 0.0005);
        assert!(
            fine < 0.01 * size,
            "{family}: median error {fine} against median slope {size}"
        );
        assert!(
            coarse > 3.0 * fine || fine < 1e-3 * size,
            "{family}: second order ({coarse} -> {fine})"
        );
    }
}

#[test]
fn pingpong_point_queries_equal_bake_pixels() {
    let view = View::image(16, 12).with_origin([2.5, -1.25, 0.0]);
    for family in FAMILIES {
        let graph = pingpong(family, 5);
        let field = common::cpu_field(&graph, &view);
        let query = PointQuery::new(&graph, None).unwrap();
        let pixels: Vec<f64> = (0..12)
            .flat_map(|y| (0..16).flat_map(move |x| [x as f64, y as f64]))
            .collect();
        let values = query.values_in_view(&view, &pixels).unwrap();
        for (i, v) in values.iter().enumerate() {
            assert_eq!(v.to_bits(), field.data[i].to_bits(), "{family} pixel {i}");
        }
    }
}
