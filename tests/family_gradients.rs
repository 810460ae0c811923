//! The families' gradient forms: against central differences of their plain samplers (value
//! bit for bit, second-order convergence), and on the GPU against their CPU twins, point by
//! point, through the family probe (`GpuContext::probe_family_grad`, `tests/common`'s
//! `assert_family_grad_parity`).

mod common;

use noisegraph::family::{NoiseGrad, SamplePoint};
use noisegraph::gpu::FamilyProbe;
use serde_json::{json, Value};

/// Relative tolerance of the lattice families' gradients (value, Perlin, simplex): the same
/// operations on both paths, so the derivatives differ only by f32 rounding and fused
/// multiply-adds, a few ulps of the largest term (measured: under 1e-6 of the gradient's
/// scale); 1e-5 leaves room for other drivers while a wrong term (a missed corner, a wrong
/// fade slope) is of the order of the gradient itself.
const LATTICE_RELATIVE: f32 = 1e-5;

/// The harness on the families that had gradient forms first: GPU plain and gradient forms
/// against the CPU twins at points spread over several cells, far cells and seeds.
#[test]
fn probe_matches_the_cpu_twins_of_the_lattice_gradients() {
    let Some(ctx) = common::gpu() else { return };
    let mut cases = vec![("simplex", json!({}))];
    for fade in ["linear", "cubic", "quintic"] {
        cases.push(("value", json!({ "fade": fade })));
        for gradients in ["improved", "random"] {
            cases.push(("perlin", json!({ "fade": fade, "gradients": gradients })));
        }
    }
    for (family, extra) in cases {
        for dims in [2u32, 3] {
            let mut node = json!({ "type": family, "dims": dims, "frequency": 4 });
            for (k, v) in extra.as_object().expect("object") {
                node[k] = v.clone();
            }
            let label = format!("{family} {extra} {dims}D");
            let probe = common::family_probe(7, node);
            let points = common::probe_points(4096, dims, 3.0);
            let plain_gpu = ctx.probe_family(&probe, &points).expect("plain probe");
            let plain_cpu = probe.cpu(&points);
            let worst = plain_gpu
                .iter()
                .zip(&plain_cpu)
                .map(|(g, c)| (g - c).abs())
                .fold(
                    0.0f32,
                    |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) },
                );
            assert!(
                worst <= noisegraph::parity::PARITY_TOLERANCE,
                "{label}: plain form max |gpu - cpu| = {worst:e}"
            );
            let parity =
                common::assert_family_grad_parity(&label, &probe, &points, LATTICE_RELATIVE, 0.0)
                    .expect("GPU present");
            assert!(parity.grad_scale > 0.1, "{label}: gradients are not all 0");
        }
    }
}

/// The probe's kernel assembles and validates (naga) for every family in every dims, plain
/// and gradient form, with every value of each choice parameter in turn, and with its
/// auxiliary table bound where it has one.
#[test]
fn probe_sources_validate_for_every_family() {
    use noisegraph::family::ParamKind;
    use noisegraph::gpu::assemble::{probe_source, validate_wgsl};
    for family in noisegraph::family::registry() {
        for &dims in family.dims() {
            let mut nodes = vec![json!({ "type": family.name(), "dims": dims })];
            for spec in family.params() {
                if let ParamKind::Choice { options, .. } = spec.kind {
                    for option in options {
                        let mut node = nodes[0].clone();
                        node[spec.name] = json!(option);
                        nodes.push(node);
                    }
                }
            }
            for node in nodes {
                let probe = common::family_probe(3, node.clone());
                let aux = !probe.aux.is_empty();
                for gradient in [false, true] {
                    let Some(source) = probe_source(*family, dims, &probe.params, gradient, aux)
                    else {
                        assert!(gradient, "{node}: the plain form always assembles");
                        continue;
                    };
                    validate_wgsl(&source)
                        .unwrap_or_else(|e| panic!("{node} gradient={gradient}:\n{e}"));
                }
            }
        }
    }
}

/// A family variant with a gradient form: (type, extra JSON fields, label, its frequency in
/// cycles per lattice cell, which sets the length unit of the finite-difference test).
struct Variant {
    family: &'static str,
    extra: Value,
    label: String,
    cycles_per_cell: f64,
    /// The fine spacing in units u (see the test): 0.002, but 0.01 for wave noise, whose
    /// phases come from n . local with |n| up to 2^18 in f32, a noise floor of a few 1e-7
    /// turns that a finer difference would amplify past the tolerance.
    fine: f64,
}

/// The gradient forms of this test file: every cellular return and metric, gabor and phasor
/// (every profile) in both orientations, wave with every profile, wavelet.
fn variants() -> Vec<Variant> {
    let mut v = Vec::new();
    let mut push = |family: &'static str, extra: Value, cycles_per_cell: f64| {
        let label = format!("{family} {extra}");
        let fine = if family == "wave" { 1e-2 } else { 2e-3 };
        v.push(Variant {
            family,
            extra,
            label,
            cycles_per_cell,
            fine,
        })
    };
    for ret in ["f1", "f2", "f2_minus_f1", "cell_value"] {
        for metric in ["euclidean", "euclidean_squared", "manhattan", "chebyshev"] {
            push("cellular", json!({ "return": ret, "metric": metric }), 1.0);
        }
    }
    for orientation in ["anisotropic", "isotropic"] {
        push("gabor", json!({ "orientation": orientation }), 2.0);
        for profile in ["sine", "triangle", "sawtooth", "square"] {
            push(
                "phasor",
                json!({ "orientation": orientation, "profile": profile }),
                2.0,
            );
        }
    }
    for profile in ["none", "sine", "triangle", "sawtooth", "square"] {
        push("wave", json!({ "profile": profile }), 2.0);
    }
    push(
        "wave",
        json!({ "orientation": "directional", "exponent": 2 }),
        2.0,
    );
    push("wavelet", json!({}), 1.0);
    v
}

fn probe_of(variant: &Variant, dims: u32, seed: u32) -> FamilyProbe {
    let mut node = json!({ "type": variant.family, "dims": dims, "frequency": 3 });
    for (k, v) in variant.extra.as_object().expect("object") {
        node[k] = v.clone();
    }
    common::family_probe(seed, node)
}

/// The Euclidean length of the first `dims` components.
fn norm(v: &[f64], dims: usize) -> f64 {
    v[..dims].iter().map(|c| c * c).sum::<f64>().sqrt()
}

/// Every gradient form against central differences of its family's plain sampler, at points
/// spread over several cells (far cells included), per axis:
/// - the value is the plain sampler's, bit for bit;
/// - at a fine spacing h = 0.002 u (wave: 0.01 u; u = 1 / (2 pi f) cells, f the variant's cycles per cell)
///   99.9% of points agree within 2e-3 relative (|fd - d| / max(|d|, the median |d|));
/// - second order: at spacings H = 0.08 u and H / 2 the errors fall about 4 times (the
///   median ratio lies in [3.3, 4.8]); where the field is a polynomial of degree 2 or less
///   along the stencil (Manhattan and Chebyshev distances, squared Euclidean, flat cell
///   values, the square profile) the difference is exact (error under 1e-5 at H), and then
///   at least a quarter of the stencils must be.
///
/// A stencil that crosses a documented non-smooth set (cellular borders and ties, the
/// distance kinks of each metric, the envelope's cut at the Gabor truncation radius, a phasor
/// singular point, a triangle crest, a sawtooth or square jump, the B-spline knots of wavelet
/// noise) has no finite difference to compare with and is skipped, and counted: it is
/// recognised by the analytic gradient along the stencil jumping (its second difference over
/// the fine stencil above max(1e-3, 50 (h / u)^2) of |d|, or its fourth difference over 9
/// points of the coarse one above 3e-5 of the median |d|, where a smooth field gives about
/// (h / u)^2 and 2e-7), or by the plain values jumping (their second difference over the
/// fine stencil above max(1e-4, 50 (h / u)^2) u |d|, their fourth difference over the coarse
/// one above 3e-5 u |d|; smooth: (h / u)^2 and 3e-6), |d| being the larger of the point's
/// and the median. A wrong derivative is smooth where the field is, so it is not skipped but
/// caught by the comparison; the skipped fraction is bounded per family.
#[test]
fn derivatives_match_central_differences_and_converge_at_second_order() {
    const POINTS: usize = 1500;
    for variant in variants() {
        for dims in [2u32, 3] {
            let label = format!("{} {dims}D", variant.label);
            let probe = probe_of(&variant, dims, 11);
            let plain =
                probe
                    .family
                    .cpu_sampler(dims, &probe.params, probe.uniforms, probe.aux.clone());
            let grad = probe
                .family
                .cpu_grad_sampler(dims, &probe.params, probe.uniforms, probe.aux.clone())
                .unwrap_or_else(|| panic!("{label} has a gradient form"));
            let points = common::probe_points(POINTS, dims, 3.0);
            let grads: Vec<NoiseGrad> = points.iter().map(&grad).collect();
            for (p, g) in points.iter().zip(&grads) {
                assert_eq!(
                    g.value.to_bits(),
                    plain(p).to_bits(),
                    "{label}: the gradient form's value is the plain sampler's at {p:?}"
                );
            }
            let scale = (common::median_gradient(&grads) as f64).max(1e-3);
            let unit = 1.0 / (std::f64::consts::TAU * variant.cycles_per_cell);
            let (fine, coarse) = (variant.fine * unit, 0.08 * unit);
            // What a smooth field's second difference over the fine stencil reaches, relative
            // to |d| (gradient) and u |d| (value): (h / u)^2, with room for the local
            // frequency exceeding the variant's.
            let smooth_second = 50.0 * variant.fine * variant.fine;
            let (grad_second, value_second) = (smooth_second.max(1e-3), smooth_second.max(1e-4));
            let n = dims as usize;
            let moved = |p: &SamplePoint, axis: usize, by: f64| {
                let mut q = *p;
                q.local[axis] = (p.local[axis] as f64 + by) as f32;
                q
            };
            // The central difference along `axis` over the steps f32 actually took.
            let central = |p: &SamplePoint, axis: usize, h: f64| {
                let (lo, hi) = (moved(p, axis, -h), moved(p, axis, h));
                let span = hi.local[axis] as f64 - lo.local[axis] as f64;
                (plain(&hi) as f64 - plain(&lo) as f64) / span
            };
            let grad_along = |p: &SamplePoint, axis: usize, by: f64| -> Vec<f64> {
                grad(&moved(p, axis, by)).d[..n]
                    .iter()
                    .map(|&v| v as f64)
                    .collect()
            };
            let (mut fine_errors, mut fine_skipped) = (Vec::new(), 0usize);
            let (mut ratios, mut exact, mut coarse_skipped) = (Vec::new(), 0usize, 0usize);
            for (p, g) in points.iter().zip(&grads) {
                let d: Vec<f64> = g.d[..n].iter().map(|&v| v as f64).collect();
                let denominator = norm(&d, n).max(scale);
                // Fine: the whole gradient at once, every axis's stencil smooth.
                let mut smooth = true;
                for axis in 0..n {
                    let (lo, hi) = (grad_along(p, axis, -fine), grad_along(p, axis, fine));
                    let second = (0..n)
                        .map(|c| (hi[c] - 2.0 * d[c] + lo[c]).abs())
                        .fold(0.0, f64::max);
                    smooth &= second <= grad_second * denominator;
                }
                // A jump of the value itself (a cell_value border, a sawtooth or square
                // jump) shows in the second difference of the plain values.
                for axis in 0..n {
                    let (lo, hi) = (moved(p, axis, -fine), moved(p, axis, fine));
                    let second = plain(&hi) as f64 - 2.0 * g.value as f64 + plain(&lo) as f64;
                    smooth &= second.abs() <= value_second * unit * denominator;
                }
                if smooth {
                    let fd: Vec<f64> = (0..n).map(|a| central(p, a, fine)).collect();
                    let diff: Vec<f64> = (0..n).map(|a| fd[a] - d[a]).collect();
                    fine_errors.push(norm(&diff, n) / denominator);
                } else {
                    fine_skipped += 1;
                }
                // Coarse: each axis on its own.
                for (axis, d_axis) in d.iter().enumerate() {
                    let scan: Vec<f64> = (-4..=4)
                        .map(|k| grad_along(p, axis, coarse * k as f64 / 4.0)[axis])
                        .collect();
                    let fourth = scan
                        .windows(5)
                        .map(|w| (w[0] - 4.0 * w[1] + 6.0 * w[2] - 4.0 * w[3] + w[4]).abs())
                        .fold(0.0, f64::max);
                    let values: Vec<f64> = (-2..=2)
                        .map(|k| plain(&moved(p, axis, coarse * k as f64 / 2.0)) as f64)
                        .collect();
                    let value_fourth = (values[0] - 4.0 * values[1] + 6.0 * values[2]
                        - 4.0 * values[3]
                        + values[4])
                        .abs();
                    if fourth > 3e-5 * scale || value_fourth > 3e-5 * unit * scale {
                        coarse_skipped += 1;
                        continue;
                    }
                    let e1 = (central(p, axis, coarse) - d_axis).abs() / denominator;
                    let e2 = (central(p, axis, coarse / 2.0) - d_axis).abs() / denominator;
                    if e1 < 1e-5 {
                        exact += 1;
                    } else {
                        ratios.push(e1 / e2);
                    }
                }
            }
            fine_errors.sort_by(f64::total_cmp);
            ratios.sort_by(f64::total_cmp);
            let p999 = fine_errors[(fine_errors.len() as f64 * 0.999) as usize - 1];
            let fine_fraction = fine_skipped as f64 / POINTS as f64;
            let stencils = POINTS * n;
            let coarse_fraction = coarse_skipped as f64 / stencils as f64;
            let median_ratio = ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN);
            eprintln!(
                "{label}: fine p99.9 {p999:.1e} ({:.2}% skipped); coarse: {} stencils, {:.1}% skipped, {exact} exact, median error ratio {median_ratio:.2}",
                100.0 * fine_fraction,
                ratios.len(),
                100.0 * coarse_fraction
            );
            assert!(
                p999 < 2e-3,
                "{label}: 99.9% of points within 2e-3 of the central difference, but p99.9 = {p999:e}"
            );
            assert!(
                fine_fraction <= max_skipped(variant.family, dims),
                "{label}: {fine_skipped} of {POINTS} fine stencils look non-smooth"
            );
            if ratios.len() >= 50 {
                assert!(
                    (3.3..=4.8).contains(&median_ratio),
                    "{label}: halving the spacing divided the error by {median_ratio} (second order: 4)"
                );
            } else {
                assert!(
                    exact >= stencils / 4,
                    "{label}: only {} smooth stencils at H and {exact} exact ones",
                    ratios.len()
                );
            }
        }
    }
}

/// The most fine stencils a family may skip as non-smooth: its non-smooth set's length (area
/// in 3D) per cell times the stencil's width, with room. Cellular: Voronoi borders and each
/// metric's kinks; gabor and phasor: the truncation circles (spheres) of 16 impulses per
/// cell, radius 0.98 cells, and a phasor's singular points; wave profiles: singular points.
fn max_skipped(family: &str, dims: u32) -> f64 {
    match (family, dims) {
        ("cellular", _) => 0.02,
        ("gabor" | "phasor", 2) => 0.05,
        ("gabor" | "phasor", _) => 0.08,
        ("wave", _) => 0.08,
        _ => 0.02,
    }
}

/// The GPU's gradient forms against their CPU twins at 4096 points: values within the
/// parity tolerance (1e-4), derivatives within 1e-4 of the median |d|, the value contract's
/// precision in the gradient's units (both paths run the same operations, so the
/// derivatives differ by rounding: measured at most 7e-6 of the scale away from the
/// non-smooth sets). Where the two paths round a near tie or a near singular point
/// differently they may take different one-sided slopes: cellular (ties), phasor and wave
/// profiles (singular points, where the phase's gradient is ill-conditioned) may put 0.1% of
/// points over, as their values may.
#[test]
fn gpu_gradient_forms_match_their_cpu_twins() {
    if common::gpu().is_none() {
        return;
    }
    for variant in variants() {
        for dims in [2u32, 3] {
            let label = format!("{} {dims}D", variant.label);
            let probe = probe_of(&variant, dims, 5);
            let points = common::probe_points(4096, dims, 3.0);
            let allowance = match variant.family {
                "cellular" | "phasor" => 0.001,
                "wave" if variant.extra.get("profile").is_some_and(|p| p != "none") => 0.001,
                _ => 0.0,
            };
            common::assert_family_grad_parity(&label, &probe, &points, 1e-4, allowance);
        }
    }
}
