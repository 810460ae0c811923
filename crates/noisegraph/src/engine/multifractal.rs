//! The CPU executor of a generate stage whose fractal carries a state from octave to octave
//! (hybrid, hetero, a derivative weight): the twin of the octave sums `gpu::assemble`
//! generates for such stages (`multifractal_term`, `multifractal_term_grad`,
//! `octave_hessian`), each octave a step of `twin::lib::multifractal` from the state of the
//! one before. Such a stage runs in one octave pass (`GenerateStage::octave_passes`) and reads
//! its displacements from fields (the planner fuses no chain into it): unwarped in value
//! form a row at a time through the family's row samplers where it has them, else pixel by
//! pixel through its point samplers (the same bits either way). Each pixel sits at its exact
//! position (`StagePositions`), as in every other CPU stage; in a mapped stage (below
//! `transform`, `sphere`, `torus`, `cylinder` or `cube_face`) that is the pixel's mapped
//! position, and the gradient goes through the map's Jacobian by the chain rule (as
//! `engine::mapped` does).

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::mapped::mapped_octave_gradient;
use super::stage::{octave_gradient, Displaced};
use crate::graph::position::{PixelLanes, StagePositions};
use crate::graph::{OctaveUniform, StageUniform};
use crate::twin::lib::mapping::mapped_local_jacobian;
use crate::twin::lib::multifractal::{
    hessian_along, multifractal_octave, multifractal_octave_grad, octave_hessian, Multifractal,
    MultifractalGrad,
};
use crate::twin::lib::ops::{
    FRACTAL_BILLOW, FRACTAL_FBM, FRACTAL_HETERO, FRACTAL_HYBRID, FRACTAL_RIDGED,
};
use crate::twin::sample::{
    GradRowSampler, GradSampler, GradSamples, NoiseGrad, RowSampler, SamplePoint, Sampler,
};

/// The family samplers a stateful stage runs with: the plain one, and the gradient one
/// (needed by a derivative weight in value form, and by every gradient run), and their row
/// samplers where the family has them (unwarped stages in value form then run a row at a
/// time: the same bits).
pub struct StateSamplers<'a> {
    /// The plain point sampler.
    pub value: &'a Sampler,
    /// The gradient point sampler, when the family has one.
    pub grad: Option<&'a GradSampler>,
    /// The plain row sampler, when the family has one.
    pub rows: Option<&'a RowSampler>,
    /// The gradient row sampler, when the family has one.
    pub grad_rows: Option<&'a GradRowSampler>,
}

/// A row's states between octaves, one array per field of [`Multifractal`] (so the steps'
/// loop vectorizes).
#[derive(Default)]
struct RowStates {
    sum: Vec<f32>,
    weight: Vec<f32>,
    slopes: [Vec<f32>; 4],
}

impl RowStates {
    fn start(&mut self, n: usize) {
        let s = Multifractal::START;
        self.sum.clear();
        self.sum.resize(n, s.sum);
        self.weight.clear();
        self.weight.resize(n, s.weight);
        for (a, v) in self.slopes.iter_mut().enumerate() {
            v.clear();
            v.resize(n, s.slopes[a]);
        }
    }
}

/// One octave's step over a row: `noise` its samples and `nd` their gradients (a derivative
/// weight only), as [`multifractal_octave`] takes them per pixel; the kind chosen once outside
/// the loop.
fn step_row(
    states: &mut RowStates,
    noise: &[f32],
    nd: Option<[&[f32]; 4]>,
    amp: f32,
    kind: u32,
    offset: f32,
    weighting: f32,
) {
    #[inline(always)]
    fn step<const KIND: u32>(
        states: &mut RowStates,
        noise: &[f32],
        nd: Option<[&[f32]; 4]>,
        amp: f32,
        offset: f32,
        weighting: f32,
    ) {
        let n = states.sum.len();
        let (sum, weight) = (&mut states.sum[..n], &mut states.weight[..n]);
        let [s0, s1, s2, s3] = &mut states.slopes;
        let (s0, s1, s2, s3) = (&mut s0[..n], &mut s1[..n], &mut s2[..n], &mut s3[..n]);
        let noise = &noise[..n];
        let zero = [0.0f32; 4];
        for i in 0..n {
            let s = Multifractal {
                sum: sum[i],
                weight: weight[i],
                slopes: [s0[i], s1[i], s2[i], s3[i]],
            };
            let d = nd.map_or(zero, |d| [d[0][i], d[1][i], d[2][i], d[3][i]]);
            let r = multifractal_octave(s, noise[i], d, amp, KIND, offset, weighting);
            sum[i] = r.sum;
            weight[i] = r.weight;
            [s0[i], s1[i], s2[i], s3[i]] = r.slopes;
        }
    }
    crate::twin::vectorized(
        #[inline(always)]
        || match kind {
            FRACTAL_HYBRID => step::<FRACTAL_HYBRID>(states, noise, nd, amp, offset, weighting),
            FRACTAL_HETERO => step::<FRACTAL_HETERO>(states, noise, nd, amp, offset, weighting),
            FRACTAL_RIDGED => step::<FRACTAL_RIDGED>(states, noise, nd, amp, offset, weighting),
            FRACTAL_BILLOW => step::<FRACTAL_BILLOW>(states, noise, nd, amp, offset, weighting),
            _ => step::<FRACTAL_FBM>(states, noise, nd, amp, offset, weighting),
        },
    )
}

/// [`run_generate`] of an unwarped stage on a separable lattice a row at a time through the
/// family's row samplers (`grad_rows` under a derivative weight, else `rows`).
fn run_rows(
    u: &StageUniform,
    positions: &StagePositions,
    samplers: &StateSamplers,
    out: &mut [MaybeUninit<f32>],
) {
    let kind = u.mode[0];
    let [norm, offset, weighting, _] = u.scalars;
    let [width, height, _, count] = u.size;
    #[derive(Default)]
    struct Scratch {
        states: RowStates,
        noise: Vec<f32>,
        grads: GradSamples,
    }
    out.par_chunks_mut(width as usize)
        .enumerate()
        .for_each_init(Scratch::default, |scratch, (row, line)| {
            let n = line.len();
            let yz = row_yz(row, height);
            let Scratch {
                states,
                noise,
                grads,
            } = scratch;
            states.start(n);
            for k in 0..count {
                let o = &u.octaves[k as usize];
                let r = positions.sample_row(o, k, yz, 0..n);
                match (samplers.grad_rows, samplers.rows) {
                    (Some(grad_rows), _) if weighting != 0.0 => {
                        grads.resize(n);
                        grad_rows(&r, grads);
                        let d = grads.d.each_ref().map(Vec::as_slice);
                        step_row(
                            states,
                            &grads.value,
                            Some(d),
                            o.amp,
                            kind,
                            offset,
                            weighting,
                        );
                    }
                    (_, Some(rows)) => {
                        noise.resize(n, 0.0);
                        rows(&r, noise);
                        step_row(states, noise, None, o.amp, kind, offset, weighting);
                    }
                    _ => unreachable!("run_rows runs with the samplers it needs"),
                }
            }
            for (v, &s) in line.iter_mut().zip(&states.sum) {
                v.write(s * norm);
            }
        });
}

/// Row `row` of a run of `height` rows: its y and z.
#[inline(always)]
fn row_yz(row: usize, height: u32) -> [usize; 2] {
    [row % height as usize, row / height as usize]
}

/// Pixel `i`'s sample point of octave `o` in `lanes`, its offset `local`.
#[inline(always)]
fn point(o: &OctaveUniform, lanes: &PixelLanes, i: usize, local: [f32; 4]) -> SamplePoint {
    SamplePoint {
        cell: std::array::from_fn(|a| lanes.cells[a][i]),
        local,
        seed: o.seed,
        period: o.period,
    }
}

/// Pixel `i`'s offset in `lanes`.
#[inline(always)]
fn local_of(lanes: &PixelLanes, i: usize) -> [f32; 4] {
    std::array::from_fn(|a| lanes.local[a][i])
}

/// Runs a stateful generate stage (every octave, finalized) into `out`, writing every sample;
/// `displace` holds one field per warped axis (none when unwarped).
pub fn run_generate(
    u: &StageUniform,
    positions: &StagePositions,
    samplers: StateSamplers,
    displace: &[&[f32]],
    out: &mut [MaybeUninit<f32>],
) {
    let kind = u.mode[0];
    let [norm, offset, weighting, _] = u.scalars;
    let [width, height, _, count] = u.size;
    let by_rows = if weighting != 0.0 {
        samplers.grad_rows.is_some()
    } else {
        samplers.rows.is_some()
    };
    if displace.is_empty() && by_rows && positions.separable() {
        return run_rows(u, positions, &samplers, out);
    }
    let width = width as usize;
    out.par_chunks_mut(width).enumerate().for_each_init(
        || (PixelLanes::default(), Vec::new()),
        |(lanes, states), (row, line)| {
            let n = line.len();
            let at = row * width;
            let d: Vec<&[f32]> = displace.iter().map(|f| &f[at..at + n]).collect();
            states.clear();
            states.resize(n, Multifractal::START);
            for k in 0..count {
                let o = &u.octaves[k as usize];
                positions.octave_points(o, k, row_yz(row, height), 0..n, &d, lanes);
                for (i, s) in states.iter_mut().enumerate() {
                    let at = point(o, lanes, i, local_of(lanes, i));
                    *s = match samplers.grad.filter(|_| weighting != 0.0) {
                        Some(grad) => {
                            let n = grad(&at);
                            multifractal_octave(*s, n.value, n.d, o.amp, kind, offset, weighting)
                        }
                        None => {
                            let n = (samplers.value)(&at);
                            multifractal_octave(*s, n, [0.0; 4], o.amp, kind, offset, weighting)
                        }
                    };
                }
            }
            for (v, s) in line.iter_mut().zip(states.iter()) {
                v.write(s.sum * norm);
            }
        },
    );
}

/// Runs a stateful generate stage in gradient form into `out` (`[value, d/dx, d/dy, d/dz]`
/// per sample): the twin of `multifractal_term_grad`. `displace` holds one gradient field per
/// warped axis; `dims` is the family's (the Hessian's columns).
pub fn run_generate_grad(
    u: &StageUniform,
    positions: &StagePositions,
    grad: &GradSampler,
    dims: u32,
    displace: &[&[[f32; 4]]],
    out: &mut [[f32; 4]],
) {
    let kind = u.mode[0];
    let [norm, offset, weighting, _] = u.scalars;
    let [width, height, _, count] = u.size;
    let width = width as usize;
    let warped = !displace.is_empty();
    let mapped = u.mapping.is_mapped();
    out.par_chunks_mut(width).enumerate().for_each_init(
        || (PixelLanes::default(), Vec::new(), Vec::new(), Vec::new()),
        |(lanes, states, warps, d), (row, line)| {
            let n = line.len();
            let at = row * width;
            warps.clear();
            warps.extend((0..n).map(|i| {
                let mut w = Displaced::default();
                for (a, field) in displace.iter().enumerate() {
                    let [v, dx, dy, dz] = field[at + i];
                    w.d[a] = v;
                    w.dx[a] = dx;
                    w.dy[a] = dy;
                    w.dz[a] = dz;
                }
                w
            }));
            // The row's displacement per warped axis, as `StagePositions::octave_points` adds it.
            d.clear();
            d.resize(displace.len(), Vec::new());
            for (a, axis) in d.iter_mut().enumerate() {
                axis.extend(warps.iter().map(|w: &Displaced| w.d[a]));
            }
            let d: Vec<&[f32]> = d.iter().map(Vec::as_slice).collect();
            states.clear();
            states.resize(n, MultifractalGrad::START);
            for k in 0..count {
                let o = &u.octaves[k as usize];
                positions.octave_points(o, k, row_yz(row, height), 0..n, &d, lanes);
                for (i, s) in states.iter_mut().enumerate() {
                    let w = &warps[i];
                    let local = local_of(lanes, i);
                    let nv = grad(&point(o, lanes, i, local));
                    // A mapped stage's d s / d p at the pixel, for the chain rule through the map.
                    let map_j = mapped.then(|| {
                        let [j0, j1, j2, _] = lanes.map.jacobian[i];
                        [j0, j1, j2]
                    });
                    let g = match &map_j {
                        Some(j) => mapped_octave_gradient(nv.d, o, j, warped.then_some(w)),
                        None => octave_gradient(nv.d, o, warped.then_some(w)),
                    };
                    let dn = NoiseGrad {
                        value: nv.value,
                        d: [g[0], g[1], g[2], 0.0],
                    };
                    let hd = if weighting != 0.0 {
                        let h = octave_hessian(dims, local, |l| grad(&point(o, lanes, i, l)).d);
                        // d local / d p_b: the frequency on axis b plus the warp's Jacobian.
                        let along = |b: usize, jd: [f32; 4]| -> [f32; 4] {
                            std::array::from_fn(|a| {
                                let f = if a == b { o.freq[b] } else { 0.0 };
                                f + o.warp[a] * jd[a]
                            })
                        };
                        let j = match &map_j {
                            Some(m) => {
                                mapped_local_jacobian(o.step, o.warp, m, &[w.dx, w.dy, w.dz])
                            }
                            None => [along(0, w.dx), along(1, w.dy), along(2, w.dz), [0.0; 4]],
                        };
                        hessian_along(&h, &j)
                    } else {
                        [[0.0; 4]; 4]
                    };
                    *s =
                        multifractal_octave_grad(*s, dn, nv.d, &hd, o.amp, kind, offset, weighting);
                }
            }
            for (texel, s) in line.iter_mut().zip(states.iter()) {
                let t = [s.sum.value, s.sum.d[0], s.sum.d[1], s.sum.d[2]];
                *texel = t.map(|v| v * norm);
            }
        },
    );
}
