//! The remaps and blends of the graph (`pow`, `smoothstep`, `quantize`, `terrace`,
//! `smooth_min`, `smooth_max`, `select`): point-wise operations past `OP_CONSTANT`, each with
//! its value and derivative written once here and once in WGSL. Twin of
//! `shaders/lib/shaping.wgsl`; `combine_op` and `combine_op_grad` (`ops.rs`) hand these codes
//! on to [`shaping_op`] and [`shaping_op_grad`], so the grid, point queries and the WGSL
//! export all run them.
//!
//! The constants `k` are precomputed by `PointwiseOp::code_and_constants` (reciprocals
//! included), so both paths do the same operations. Crease conventions (the module docs of
//! `ops.rs`): sign(0) = 0, the mean of the two sides; `pow` with exponent < 1 takes slope 0
//! at a = 0; `quantize` has slope 0 everywhere; a hard `select` (falloff 0) takes b's
//! gradient at control = threshold.

use super::grad::{sign, NoiseGrad};
use crate::twin::floor;

/// Point-wise op: |a|^k.x with a's sign (`pow`; k.y = k.x - 1).
pub const OP_POW: u32 = 11;
/// Point-wise op: the cubic smoothstep of a from k.x over 1 / k.y (`smoothstep`).
pub const OP_SMOOTHSTEP: u32 = 12;
/// Point-wise op: floor(a * k.x) * k.y (`quantize`: k.x = 1 / step, k.y = step).
pub const OP_QUANTIZE: u32 = 13;
/// Point-wise op: steps of k.y with smoothed risers (`terrace`: k = [1 / step, step,
/// 1 - smoothness, 1 / smoothness]).
pub const OP_TERRACE: u32 = 14;
/// Point-wise op: polynomial smooth minimum of a and b (`smooth_min`: k = [k, 1 / k or 0]).
pub const OP_SMOOTH_MIN: u32 = 15;
/// Point-wise op: polynomial smooth maximum of a and b (`smooth_max`: k = [k, 1 / k or 0]).
pub const OP_SMOOTH_MAX: u32 = 16;
/// Point-wise op: a where c is below a threshold, b above, blended across a falloff
/// (`select`: k = [threshold, threshold - falloff, 1 / (2 falloff) or 0]).
pub const OP_SELECT: u32 = 17;

/// Point-wise op: a cubic spline through control points (`curve`). It reads a table of
/// pieces, not the constants `k`: every path evaluates it with [`super::curve`] (never
/// through [`shaping_op`]).
pub const OP_CURVE: u32 = 18;

/// The op code constants of this file, with their names (emitted into the WGSL by
/// `ops::wgsl_constants`).
pub const SHAPING_CONSTANTS: &[(&str, u32)] = &[
    ("OP_POW", OP_POW),
    ("OP_SMOOTHSTEP", OP_SMOOTHSTEP),
    ("OP_QUANTIZE", OP_QUANTIZE),
    ("OP_TERRACE", OP_TERRACE),
    ("OP_SMOOTH_MIN", OP_SMOOTH_MIN),
    ("OP_SMOOTH_MAX", OP_SMOOTH_MAX),
    ("OP_SELECT", OP_SELECT),
    ("OP_CURVE", OP_CURVE),
];

/// The cubic 3t^2 - 2t^3 of t in [0, 1].
#[inline(always)]
fn cubic_step(t: f32) -> f32 {
    t * t * (3.0 - 2.0 * t)
}

/// d [`cubic_step`] / dt.
#[inline(always)]
fn cubic_step_slope(t: f32) -> f32 {
    6.0 * t * (1.0 - t)
}

/// |a|^e with a's sign (0 at a = 0, where WGSL's `pow` is undefined).
#[inline(always)]
fn signed_pow(a: f32, e: f32) -> f32 {
    let m = a.abs();
    if m == 0.0 {
        return 0.0;
    }
    sign(a) * m.powf(e)
}

/// Where a terrace sample sits: (the step's floor, the riser's parameter u in [0, 1]).
#[inline(always)]
fn terrace_parts(a: f32, k: [f32; 4]) -> (f32, f32) {
    let q = a * k[0];
    let f = floor(q);
    let u = ((q - f - k[2]) * k[3]).clamp(0.0, 1.0);
    (f, u)
}

/// The polynomial smooth minimum's bump h in [0, 1] (0 where |a - b| >= k).
#[inline(always)]
fn smooth_bump(a: f32, b: f32, k: [f32; 4]) -> f32 {
    (k[0] - (a - b).abs()).max(0.0) * k[1]
}

/// The weight of b in a `select` by the control value c.
#[inline(always)]
fn select_weight(c: f32, k: [f32; 4]) -> f32 {
    cubic_step(((c - k[1]) * k[2]).clamp(0.0, 1.0))
}

/// The value of a remap or blend (`op` one of this file's codes).
#[inline(always)]
pub fn shaping_op(op: u32, a: f32, b: f32, c: f32, k: [f32; 4]) -> f32 {
    match op {
        OP_POW => signed_pow(a, k[0]),
        OP_SMOOTHSTEP => cubic_step(((a - k[0]) * k[1]).clamp(0.0, 1.0)),
        OP_QUANTIZE => floor(a * k[0]) * k[1],
        OP_TERRACE => {
            let (f, u) = terrace_parts(a, k);
            (f + cubic_step(u)) * k[1]
        }
        OP_SMOOTH_MIN => {
            let h = smooth_bump(a, b, k);
            a.min(b) - h * h * k[0] * 0.25
        }
        OP_SMOOTH_MAX => {
            let h = smooth_bump(a, b, k);
            a.max(b) + h * h * k[0] * 0.25
        }
        OP_SELECT => {
            if k[2] == 0.0 {
                if c >= k[0] {
                    b
                } else {
                    a
                }
            } else {
                a + (b - a) * select_weight(c, k)
            }
        }
        _ => 0.0,
    }
}

/// [`shaping_op`] with gradients: the value is `shaping_op`'s (bit for bit), the gradient its
/// derivative by the chain rule, with the crease conventions of the module docs.
#[inline(always)]
pub fn shaping_op_grad(
    op: u32,
    a: NoiseGrad,
    b: NoiseGrad,
    c: NoiseGrad,
    k: [f32; 4],
) -> NoiseGrad {
    let value = shaping_op(op, a.value, b.value, c.value, k);
    let scaled = |g: &NoiseGrad, s: f32| [g.d[0] * s, g.d[1] * s, g.d[2] * s, g.d[3] * s];
    let d = match op {
        OP_POW => {
            let m = a.value.abs();
            // e |a|^(e - 1); at a = 0 the slope is 1 for e = 1 and 0 otherwise (the
            // crease convention for e < 1, the true slope for e > 1).
            let slope = if m == 0.0 {
                if k[1] == 0.0 {
                    1.0
                } else {
                    0.0
                }
            } else {
                k[0] * m.powf(k[1])
            };
            scaled(&a, slope)
        }
        OP_SMOOTHSTEP => {
            let t = ((a.value - k[0]) * k[1]).clamp(0.0, 1.0);
            scaled(&a, cubic_step_slope(t) * k[1])
        }
        OP_QUANTIZE => [0.0; 4],
        OP_TERRACE => {
            let (_, u) = terrace_parts(a.value, k);
            // d/da of (f + cubic(u)) * step: cubic'(u) / smoothness (step / step = 1).
            scaled(&a, cubic_step_slope(u) * k[3])
        }
        OP_SMOOTH_MIN | OP_SMOOTH_MAX => {
            let h = smooth_bump(a.value, b.value, k);
            let s = sign(a.value - b.value);
            // The mean of the two gradients, moved towards the smaller (larger) input's by
            // (1 - h): a's on a's side, b's on b's, the mean on a tie.
            let lean = if op == OP_SMOOTH_MIN {
                -0.5 * s * (1.0 - h)
            } else {
                0.5 * s * (1.0 - h)
            };
            let mut d = [0.0; 4];
            for (i, di) in d.iter_mut().enumerate() {
                *di = 0.5 * (a.d[i] + b.d[i]) + lean * (a.d[i] - b.d[i]);
            }
            d
        }
        OP_SELECT => {
            if k[2] == 0.0 {
                if c.value >= k[0] {
                    b.d
                } else {
                    a.d
                }
            } else {
                let t = ((c.value - k[1]) * k[2]).clamp(0.0, 1.0);
                let w = cubic_step(t);
                let dw = (b.value - a.value) * cubic_step_slope(t) * k[2];
                let mut d = [0.0; 4];
                for (i, di) in d.iter_mut().enumerate() {
                    *di = a.d[i] + (b.d[i] - a.d[i]) * w + dw * c.d[i];
                }
                d
            }
        }
        _ => [0.0; 4],
    };
    NoiseGrad { value, d }
}
