//! CPU bakes for gradient checks, and the exact gradient against central differences of the
//! value bake (the node test files share these).

use noisegraph::engine::{run_cpu, run_cpu_gradient};
use noisegraph::graph::gradient_plan;
use noisegraph::{GradientField, NoiseGraph, Plan, RunOptions, View};

/// The CPU path's value bake.
pub fn cpu_value(graph: &NoiseGraph, view: &View) -> Vec<f32> {
    let plan = Plan::new(graph, None).expect("plan");
    run_cpu(&plan, view, &RunOptions::default())
        .expect("value bake")
        .data
}

/// The CPU path's gradient bake.
pub fn cpu_gradient(graph: &NoiseGraph, view: &View) -> GradientField {
    let plan = gradient_plan(graph, None).expect("gradient plan");
    run_cpu_gradient(&plan, view, &RunOptions::default()).expect("gradient bake")
}

/// The middle element (upper median) of `v`.
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The size the GPU-vs-CPU gradient checks scale their tolerance by: the median of a 2D
/// gradient field's |(d/dx, d/dy)|, at least 1.
pub fn gradient_scale(field: &GradientField) -> f32 {
    median(
        field
            .data
            .iter()
            .map(|s| f64::from(s[1].hypot(s[2])))
            .collect(),
    )
    .max(1.0) as f32
}

/// (median |analytic - central difference| over pixels and the x and y axes, median
/// |gradient|), the differences taken by moving the view's origin by `h` either way.
pub fn central_difference_error(
    graph: &NoiseGraph,
    view: &View,
    g: &GradientField,
    h: f64,
) -> (f64, f64) {
    let mut errors = Vec::new();
    let mut sizes = Vec::new();
    for axis in 0..2 {
        let shifted = |sign: f64| {
            let mut origin = view.origin;
            origin[axis] += sign * h;
            cpu_value(graph, &view.with_origin(origin))
        };
        let (lo, hi) = (shifted(-1.0), shifted(1.0));
        for (i, s) in g.data.iter().enumerate() {
            let cd = (f64::from(hi[i]) - f64::from(lo[i])) / (2.0 * h);
            errors.push((f64::from(s[axis + 1]) - cd).abs());
            sizes.push(f64::from(s[axis + 1]).abs());
        }
    }
    (median(errors), median(sizes))
}

/// The exact gradient of `graph` over `view` against central differences at steps `h` and
/// `h / 2`: the field not flat (median |gradient| over 0.005) and, unless the error is already
/// at rounding (2e-5 of the gradient), converging at second order (halving the step divides
/// the median error by more than 3) to under 1% of the typical gradient.
pub fn assert_second_order(label: &str, graph: &NoiseGraph, view: &View, h: f64) {
    let grad = cpu_gradient(graph, view);
    let (coarse, size) = central_difference_error(graph, view, &grad, h);
    let (fine, _) = central_difference_error(graph, view, &grad, h / 2.0);
    eprintln!("{label}: median |gradient| {size:.3}, error {coarse:.2e} -> {fine:.2e}");
    assert!(size > 0.005, "{label}: a flat test field ({size})");
    let exact = 2e-5 * size.max(1.0);
    if coarse > exact || fine > exact {
        assert!(
            coarse / fine > 3.0,
            "{label}: halving the step divided the error by {}",
            coarse / fine
        );
        assert!(fine < 0.01 * size, "{label}: error {fine:e} against {size}");
    }
}
