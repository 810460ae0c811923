//! The octave step of the fractals whose octaves depend on the earlier ones: Musgrave's hybrid
//! multifractal and heterogeneous terrain ("Texturing & Modeling", 3rd ed., ch. 16) and the
//! derivative-weighted sum (Quilez) of fbm, ridged and billow. Twin of
//! `shaders/lib/multifractal.wgsl` (the formulas are in its header): the grid's stages
//! (`engine::multifractal`), point queries and the exported graph functions all run these,
//! octave after octave, from [`Multifractal::START`].

use super::grad::NoiseGrad;
use super::ops::{fractal_remap, fractal_remap_slope, FRACTAL_HETERO, FRACTAL_HYBRID};

/// The step, in lattice units, of the central differences of a family's exact gradient that
/// give the derivative-weighted fractals' gradient form the noise's second derivatives.
pub const HESSIAN_STEP: f32 = 1.0 / 128.0;

/// A pixel's state between octaves (twin of the WGSL `Multifractal`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Multifractal {
    /// The running sum.
    pub sum: f32,
    /// Hybrid's weight; hetero's first-octave flag (1, then 0).
    pub weight: f32,
    /// The sum of the octaves' noise gradients in their lattice coordinates.
    pub slopes: [f32; 4],
}

impl Multifractal {
    /// The state before the first octave (`multifractal_start`).
    pub const START: Multifractal = Multifractal {
        sum: 0.0,
        weight: 1.0,
        slopes: [0.0; 4],
    };
}

/// `x . y`, in the order of the WGSL `dot` as written out.
#[inline(always)]
fn dot(x: [f32; 4], y: [f32; 4]) -> f32 {
    x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3]
}

/// One octave (`multifractal_octave`): `n` its sample and `nd` its gradient with respect to
/// its lattice coordinates (read by the derivative weight only), `amp` its amplitude.
#[inline(always)]
pub fn multifractal_octave(
    s: Multifractal,
    n: f32,
    nd: [f32; 4],
    amp: f32,
    kind: u32,
    offset: f32,
    weighting: f32,
) -> Multifractal {
    if kind == FRACTAL_HYBRID {
        let signal = (n + offset) * amp;
        return Multifractal {
            sum: s.sum + s.weight * signal,
            weight: (s.weight * signal).clamp(0.0, 1.0),
            slopes: s.slopes,
        };
    }
    if kind == FRACTAL_HETERO {
        let signal = (n + offset) * amp;
        let sum = if s.weight > 0.5 {
            signal
        } else {
            s.sum + signal * s.sum
        };
        return Multifractal {
            sum,
            weight: 0.0,
            slopes: s.slopes,
        };
    }
    let slopes = [
        s.slopes[0] + nd[0],
        s.slopes[1] + nd[1],
        s.slopes[2] + nd[2],
        s.slopes[3] + nd[3],
    ];
    let divisor = 1.0 + weighting * dot(slopes, slopes);
    Multifractal {
        sum: s.sum + amp * fractal_remap(n, kind) / divisor,
        weight: s.weight,
        slopes,
    }
}

/// The state with its gradient with respect to the position p (twin of `MultifractalGrad`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MultifractalGrad {
    /// The running sum and its gradient.
    pub sum: NoiseGrad,
    /// Hybrid's weight (hetero's flag) and its gradient.
    pub weight: NoiseGrad,
    /// The sum of the octaves' noise gradients in their lattice coordinates.
    pub slopes: [f32; 4],
    /// `slopes_d[b]`: d slopes / d p_b.
    pub slopes_d: [[f32; 4]; 4],
}

impl MultifractalGrad {
    /// The state before the first octave (`multifractal_grad_start`).
    pub const START: MultifractalGrad = MultifractalGrad {
        sum: NoiseGrad {
            value: 0.0,
            d: [0.0; 4],
        },
        weight: NoiseGrad {
            value: 1.0,
            d: [0.0; 4],
        },
        slopes: [0.0; 4],
        slopes_d: [[0.0; 4]; 4],
    };
}

/// `[f(0), f(1), f(2), f(3)]`, inlined.
#[inline(always)]
fn each(f: impl Fn(usize) -> f32) -> [f32; 4] {
    [f(0), f(1), f(2), f(3)]
}

/// [`multifractal_octave`] with gradients (`multifractal_octave_grad`): `n` holds the sample
/// and d n / d p, `nd` is d n / d local and `hd[b]` its derivative along p_b (read by the
/// derivative weight only). The value is `multifractal_octave`'s, bit for bit. Hybrid's clamp
/// passes the gradient on [0, 1], ends included.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn multifractal_octave_grad(
    s: MultifractalGrad,
    n: NoiseGrad,
    nd: [f32; 4],
    hd: &[[f32; 4]; 4],
    amp: f32,
    kind: u32,
    offset: f32,
    weighting: f32,
) -> MultifractalGrad {
    if kind == FRACTAL_HYBRID {
        let signal = (n.value + offset) * amp;
        let ds = each(|b| n.d[b] * amp);
        let sum = NoiseGrad {
            value: s.sum.value + s.weight.value * signal,
            d: each(|b| s.sum.d[b] + s.weight.d[b] * signal + ds[b] * s.weight.value),
        };
        let w = s.weight.value * signal;
        let inside = (0.0..=1.0).contains(&w);
        let dw = each(|b| {
            if inside {
                s.weight.d[b] * signal + ds[b] * s.weight.value
            } else {
                0.0
            }
        });
        return MultifractalGrad {
            sum,
            weight: NoiseGrad {
                value: w.clamp(0.0, 1.0),
                d: dw,
            },
            ..s
        };
    }
    if kind == FRACTAL_HETERO {
        let signal = (n.value + offset) * amp;
        let ds = each(|b| n.d[b] * amp);
        let sum = if s.weight.value > 0.5 {
            NoiseGrad {
                value: signal,
                d: ds,
            }
        } else {
            NoiseGrad {
                value: s.sum.value + signal * s.sum.value,
                d: each(|b| s.sum.d[b] + ds[b] * s.sum.value + s.sum.d[b] * signal),
            }
        };
        return MultifractalGrad {
            sum,
            weight: NoiseGrad::default(),
            ..s
        };
    }
    let slopes = each(|a| s.slopes[a] + nd[a]);
    let slopes_d: [[f32; 4]; 4] = std::array::from_fn(|b| each(|a| s.slopes_d[b][a] + hd[b][a]));
    let divisor = 1.0 + weighting * dot(slopes, slopes);
    let term = amp * fractal_remap(n.value, kind);
    let slope = amp * fractal_remap_slope(n.value, kind);
    let dd = each(|b| 2.0 * weighting * dot(slopes, slopes_d[b]));
    let d =
        each(|b| s.sum.d[b] + (slope * n.d[b]) / divisor - (term * dd[b]) / (divisor * divisor));
    MultifractalGrad {
        sum: NoiseGrad {
            value: s.sum.value + term / divisor,
            d,
        },
        weight: s.weight,
        slopes,
        slopes_d,
    }
}

/// Column `a` of the Hessian of a family's noise by central differences of its exact
/// gradient (`hessian_column`): `gp`, `gm` the gradients at the positions `step` apart along
/// axis a.
#[inline(always)]
pub fn hessian_column(gp: [f32; 4], gm: [f32; 4], step: f32) -> [f32; 4] {
    each(|i| (gp[i] - gm[i]) / step)
}

/// The Hessian of the noise at `local` (column a: d nd / d local_a, 0 past `dims`) from the
/// family's gradient `grad` (d n / d local at a position), by [`hessian_column`] with
/// [`HESSIAN_STEP`]: what the generated `octave_hessian` computes.
#[inline(always)]
pub fn octave_hessian(
    dims: u32,
    local: [f32; 4],
    grad: impl Fn([f32; 4]) -> [f32; 4],
) -> [[f32; 4]; 4] {
    let mut h = [[0.0; 4]; 4];
    for (a, column) in h.iter_mut().enumerate().take(dims as usize) {
        let (mut lp, mut lm) = (local, local);
        lp[a] = local[a] + HESSIAN_STEP;
        lm[a] = local[a] - HESSIAN_STEP;
        *column = hessian_column(grad(lp), grad(lm), lp[a] - lm[a]);
    }
    h
}

/// `h * j` column by column: `out[b] = sum over a of h[a] * j[b][a]` (the WGSL `h * j` of two
/// `mat4x4`): d nd / d p from the Hessian and d local / d p (`j[b]`: d local / d p_b).
#[inline(always)]
pub fn hessian_along(h: &[[f32; 4]; 4], j: &[[f32; 4]; 4]) -> [[f32; 4]; 4] {
    std::array::from_fn(|b| {
        each(|i| h[0][i] * j[b][0] + h[1][i] * j[b][1] + h[2][i] * j[b][2] + h[3][i] * j[b][3])
    })
}
