//! The gradient forms of simplex (2D, 3D, 4D) and OpenSimplex2 (fast and smooth, 2D, 3D, 4D):
//! their values are the plain samplers' bit for bit, their derivatives are the limit of
//! central differences of the plain sampler (converging at second order), and the WGSL forms
//! agree with the CPU twins (the family probe).

mod common;

use noisegraph::family::SamplePoint;
use noisegraph::gpu::FamilyProbe;
use serde_json::{json, Value};

/// (family, extra parameters, dims) of every variant checked here.
fn variants() -> Vec<(&'static str, Value, u32)> {
    let mut v = Vec::new();
    for dims in [2u32, 3, 4] {
        v.push(("simplex", json!({}), dims));
        for variant in ["fast", "smooth"] {
            v.push(("opensimplex2", json!({ "variant": variant }), dims));
        }
    }
    v
}

fn probe_of(family: &str, extra: &Value, dims: u32) -> FamilyProbe {
    let mut node = json!({ "type": family, "dims": dims });
    for (k, val) in extra.as_object().expect("object") {
        node[k] = val.clone();
    }
    common::family_probe(5, node)
}

/// `p` moved by `h` along `axis` (the offset added in f64, then rounded once).
fn moved(p: &SamplePoint, axis: usize, h: f64) -> SamplePoint {
    let mut q = *p;
    q.local[axis] = (p.local[axis] as f64 + h) as f32;
    q
}

/// The root-mean-square difference between the analytic derivatives and central differences
/// of the plain sampler with step `h` (the steps f32 actually took), relative to the root
/// mean square of the analytic derivatives, over every point and axis.
fn central_difference_error(
    probe: &FamilyProbe,
    points: &[SamplePoint],
    analytic: &[[f32; 4]],
    dims: usize,
    h: f64,
) -> f64 {
    let mut shifted = Vec::with_capacity(points.len() * dims * 2);
    for p in points {
        for a in 0..dims {
            shifted.push(moved(p, a, -h));
            shifted.push(moved(p, a, h));
        }
    }
    let values = probe.cpu(&shifted);
    let (mut diff2, mut norm2) = (0.0f64, 0.0f64);
    for (i, d) in analytic.iter().enumerate() {
        for (a, &da) in d.iter().enumerate().take(dims) {
            let k = 2 * (i * dims + a);
            let step = shifted[k + 1].local[a] as f64 - shifted[k].local[a] as f64;
            let fd = (values[k + 1] as f64 - values[k] as f64) / step;
            diff2 += (da as f64 - fd).powi(2);
            norm2 += (da as f64).powi(2);
        }
    }
    (diff2 / norm2).sqrt()
}

/// Values bit for bit the plain sampler's; derivatives against central differences at steps
/// h = 0.04, 0.02 and 0.01 of a lattice unit: each halving of h divides the error by about 4
/// (second order: a wrong derivative would leave an error that does not shrink), and at
/// h = 0.01 the error is under 2e-3 of the gradient's size (measured 6e-4 to 1e-3). The kernels have no non-smooth
/// points (every term is (r^2 - |d|^2)^4 (g . d), three times differentiable at its edge).
#[test]
fn derivatives_are_the_limit_of_central_differences() {
    for (family, extra, dims) in variants() {
        let label = format!("{family} {extra} {dims}D");
        let probe = probe_of(family, &extra, dims);
        let points = common::probe_points(3000, dims, 3.0);
        let grads = probe.cpu_grad(&points).expect("gradient form");
        let plain = probe.cpu(&points);
        for (i, (g, v)) in grads.iter().zip(&plain).enumerate() {
            assert_eq!(
                g.value.to_bits(),
                v.to_bits(),
                "{label}: point {i}: the gradient form's value is the plain sampler's"
            );
            assert!(
                g.d[dims as usize..].iter().all(|&d| d == 0.0),
                "{label}: derivatives past the dims are 0: {g:?}"
            );
        }
        let analytic: Vec<[f32; 4]> = grads.iter().map(|g| g.d).collect();
        let errors: Vec<f64> = [0.04, 0.02, 0.01]
            .iter()
            .map(|&h| central_difference_error(&probe, &points, &analytic, dims as usize, h))
            .collect();
        let ratios = [errors[0] / errors[1], errors[1] / errors[2]];
        eprintln!(
            "{label}: relative error of central differences at h = 0.04, 0.02, 0.01: {:.2e}, {:.2e}, {:.2e} (ratios {:.2}, {:.2})",
            errors[0], errors[1], errors[2], ratios[0], ratios[1]
        );
        for r in ratios {
            assert!(
                (3.3..4.7).contains(&r),
                "{label}: halving h divided the error by {r} (errors {errors:?}), not about 4"
            );
        }
        assert!(errors[2] < 2e-3, "{label}: errors {errors:?}");
    }
}

/// Relative tolerance of these families' GPU gradients: the same operations on both paths
/// (the lattice transforms' transposes included), so the derivatives differ by f32 rounding
/// and fused multiply-adds, a few ulps of the largest term (measured below 1e-6 of the
/// gradient's scale, as for value, Perlin and simplex in tests/family_gradients.rs); a
/// wrong term or a wrong transform is of the order of the gradient itself.
const RELATIVE: f32 = 1e-5;

/// The WGSL gradient forms against the CPU twins, point by point (plain forms too).
#[test]
fn gpu_gradient_forms_match_cpu_twins() {
    let Some(ctx) = common::gpu() else { return };
    for (family, extra, dims) in variants() {
        let label = format!("{family} {extra} {dims}D");
        let probe = probe_of(family, &extra, dims);
        let points = common::probe_points(4096, dims, 3.0);
        let gpu = ctx.probe_family(&probe, &points).expect("plain probe");
        let cpu = probe.cpu(&points);
        let worst = gpu
            .iter()
            .zip(&cpu)
            .map(|(g, c)| (g - c).abs())
            .fold(
                0.0f32,
                |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) },
            );
        assert!(
            worst <= noisegraph::parity::PARITY_TOLERANCE,
            "{label}: plain form max |gpu - cpu| = {worst:e}"
        );
        let parity = common::assert_family_grad_parity(&label, &probe, &points, RELATIVE, 0.0)
            .expect("GPU present");
        assert!(parity.grad_scale > 0.1, "{label}: gradients are not all 0");
    }
}
