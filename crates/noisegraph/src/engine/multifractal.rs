//! The CPU executor of a generate stage whose fractal carries a state from octave to octave
//! (hybrid, hetero, a derivative weight): the twin of the octave sums `gpu::assemble`
//! generates for such stages (`multifractal_term`, `multifractal_term_grad`,
//! `octave_hessian`), each octave a step of `twin::lib::multifractal` from the state of the
//! one before. Such a stage runs in one octave pass (`GenerateStage::octave_passes`) and reads
//! its displacements from fields (the planner fuses no chain into it), pixel by pixel through
//! the family's point samplers.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::stage::{octave_gradient, Displaced};
use crate::graph::{OctaveUniform, StageUniform};
use crate::twin::lib::multifractal::{
    hessian_along, multifractal_octave, multifractal_octave_grad, octave_hessian, Multifractal,
    MultifractalGrad,
};
use crate::twin::sample::{GradSampler, NoiseGrad, SamplePoint, Sampler};

/// The family samplers a stateful stage runs with: the plain one, and the gradient one
/// (needed by a derivative weight in value form, and by every gradient run).
pub struct StateSamplers<'a> {
    /// The plain point sampler.
    pub value: &'a Sampler,
    /// The gradient point sampler, when the family has one.
    pub grad: Option<&'a GradSampler>,
}

/// Pixel position of sample `i` of a stage's field (twin of the template's `pix`): the pixel
/// index plus the run's pixel offset, in integers, then as f32.
#[inline(always)]
fn pixel(u: &StageUniform, i: usize) -> [f32; 4] {
    let [width, height, _, _] = u.size;
    let (width, height) = (width as usize, height as usize);
    let [ox, oy, oz, _] = u.pixel_offset;
    let x = (i % width) as u32 + ox;
    let y = ((i / width) % height) as u32 + oy;
    let z = (i / (width * height)) as u32 + oz;
    [x as f32, y as f32, z as f32, 0.0]
}

/// The octave's sample position at pixel `pix` displaced by `d` (twin of `octave_local`: no
/// warp term in an unwarped stage).
#[inline(always)]
fn octave_local(o: &OctaveUniform, pix: [f32; 4], d: Option<[f32; 4]>) -> [f32; 4] {
    match d {
        Some(d) => std::array::from_fn(|a| o.local[a] + pix[a] * o.step[a] + d[a] * o.warp[a]),
        None => std::array::from_fn(|a| o.local[a] + pix[a] * o.step[a]),
    }
}

fn point(o: &OctaveUniform, local: [f32; 4]) -> SamplePoint {
    SamplePoint {
        cell: o.cell,
        local,
        seed: o.seed,
        period: o.period,
    }
}

/// Runs a stateful generate stage (every octave, finalized) into `out`, writing every sample;
/// `displace` holds one field per warped axis (none when unwarped).
pub fn run_generate(
    u: &StageUniform,
    samplers: StateSamplers,
    displace: &[&[f32]],
    out: &mut [MaybeUninit<f32>],
) {
    let kind = u.mode[0];
    let [norm, offset, weighting, _] = u.scalars;
    let count = u.size[3];
    out.par_iter_mut().enumerate().for_each(|(i, value)| {
        let pix = pixel(u, i);
        let d = (!displace.is_empty()).then(|| {
            let mut d = [0.0f32; 4];
            for (a, field) in displace.iter().enumerate() {
                d[a] = field[i];
            }
            d
        });
        let mut s = Multifractal::START;
        for k in 0..count {
            let o = &u.octaves[k as usize];
            let at = point(o, octave_local(o, pix, d));
            s = match samplers.grad.filter(|_| weighting != 0.0) {
                Some(grad) => {
                    let n = grad(&at);
                    multifractal_octave(s, n.value, n.d, o.amp, kind, offset, weighting)
                }
                None => {
                    let n = (samplers.value)(&at);
                    multifractal_octave(s, n, [0.0; 4], o.amp, kind, offset, weighting)
                }
            };
        }
        value.write(s.sum * norm);
    });
}

/// Runs a stateful generate stage in gradient form into `out` (`[value, d/dx, d/dy, d/dz]`
/// per sample): the twin of `multifractal_term_grad`. `displace` holds one gradient field per
/// warped axis; `dims` is the family's (the Hessian's columns).
pub fn run_generate_grad(
    u: &StageUniform,
    grad: &GradSampler,
    dims: u32,
    displace: &[&[[f32; 4]]],
    out: &mut [[f32; 4]],
) {
    let kind = u.mode[0];
    let [norm, offset, weighting, _] = u.scalars;
    let count = u.size[3];
    out.par_iter_mut().enumerate().for_each(|(i, texel)| {
        let pix = pixel(u, i);
        let mut w = Displaced::default();
        for (a, field) in displace.iter().enumerate() {
            let [v, dx, dy, dz] = field[i];
            w.d[a] = v;
            w.dx[a] = dx;
            w.dy[a] = dy;
            w.dz[a] = dz;
        }
        let warped = !displace.is_empty();
        let mut s = MultifractalGrad::START;
        for k in 0..count {
            let o = &u.octaves[k as usize];
            let local = octave_local(o, pix, warped.then_some(w.d));
            let n = grad(&point(o, local));
            let g = octave_gradient(n.d, o, warped.then_some(&w));
            let dn = NoiseGrad {
                value: n.value,
                d: [g[0], g[1], g[2], 0.0],
            };
            let hd = if weighting != 0.0 {
                let h = octave_hessian(dims, local, |l| grad(&point(o, l)).d);
                // d local / d p_b: the frequency on axis b plus the warp's Jacobian.
                let along = |b: usize, jd: [f32; 4]| -> [f32; 4] {
                    std::array::from_fn(|a| {
                        let f = if a == b { o.freq[b] } else { 0.0 };
                        f + o.warp[a] * jd[a]
                    })
                };
                let j = [along(0, w.dx), along(1, w.dy), along(2, w.dz), [0.0; 4]];
                hessian_along(&h, &j)
            } else {
                [[0.0; 4]; 4]
            };
            s = multifractal_octave_grad(s, dn, n.d, &hd, o.amp, kind, offset, weighting);
        }
        let t = [s.sum.value, s.sum.d[0], s.sum.d[1], s.sum.d[2]];
        *texel = t.map(|v| v * norm);
    });
}
