//! The families' gradient forms on the GPU against their CPU twins, point by point, through
//! the family probe (`GpuContext::probe_family_grad`, `tests/common`'s
//! `assert_family_grad_parity`).

mod common;

use serde_json::json;

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
/// and gradient form, with its auxiliary table bound where it has one.
#[test]
fn probe_sources_validate_for_every_family() {
    use noisegraph::gpu::assemble::{probe_source, validate_wgsl};
    for family in noisegraph::family::registry() {
        for &dims in family.dims() {
            let probe = common::family_probe(3, json!({ "type": family.name(), "dims": dims }));
            let aux = !probe.aux.is_empty();
            for gradient in [false, true] {
                let Some(source) = probe_source(*family, dims, &probe.params, gradient, aux) else {
                    assert!(
                        gradient,
                        "{} {dims}D: the plain form always assembles",
                        family.name()
                    );
                    continue;
                };
                validate_wgsl(&source).unwrap_or_else(|e| {
                    panic!("{} {dims}D gradient={gradient}:\n{e}", family.name())
                });
            }
        }
    }
}
