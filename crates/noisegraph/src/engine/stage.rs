//! The CPU executor of a stage. Twin of `shaders/stage.wgsl` (the octave loop, remap, warp
//! and store, in value and gradient form) and of the combine entry point in
//! `shaders/combine.wgsl`, except for where a pixel sits: here each pixel's f64 position is
//! split per octave as a point query splits a point (`crate::graph::position`), where the
//! kernel adds `pixel x step` in f32 to the origin's split.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use crate::graph::position::{PixelLanes, StagePositions};
use crate::graph::{CombineUniform, OctaveUniform, StageUniform};
use crate::twin::combine::combine_grad_op;
use crate::twin::lib::curve::{curve_grad, curve_value};
use crate::twin::lib::ops::combine_op;
use crate::twin::sample::{
    GradPointsSampler, GradRowSampler, GradSamples, NoiseGrad, PointsSampler, RowSampler, Sampler,
};

use crate::twin::lib::ops::{self, fractal_remap_slope};
use crate::twin::lib::ops::{
    fractal_remap, FRACTAL_BILLOW, FRACTAL_FBM, FRACTAL_PINGPONG, FRACTAL_RIDGED,
};

/// What an octave's samples are added to: the row's running sum, zero (the first octave of a
/// stage), or the partial sum of earlier passes (the first octave of a later pass).
#[derive(Clone, Copy)]
enum Base<'a> {
    Line,
    Zero,
    Partial(&'a [f32]),
}

/// `line = (base + amp * fractal_remap(n, kind)) [* norm]` over a row: one octave added to
/// the row's sum, as `octave_sum` adds it per pixel, with the start of the sum (see [`Base`])
/// and the stage's final normalization (`norm`, on its last octave) done in the same pass.
/// The same operations in the same order as filling the row with its base, adding, then
/// scaling, so the same bits; the fractal kind is chosen once outside the loop and the loop
/// is vectorized (see [`crate::twin::vectorized`]).
fn add_octave(line: &mut [f32], base: Base, noise: &[f32], amp: f32, kind: u32, norm: Option<f32>) {
    #[inline(always)]
    fn add<const KIND: u32>(
        line: &mut [f32],
        base: Base,
        noise: &[f32],
        amp: f32,
        norm: Option<f32>,
    ) {
        let noise = &noise[..line.len()];
        let term = |n: f32| amp * fractal_remap(n, KIND);
        match (base, norm) {
            (Base::Line, None) => line.iter_mut().zip(noise).for_each(|(s, &n)| *s += term(n)),
            (Base::Line, Some(k)) => line
                .iter_mut()
                .zip(noise)
                .for_each(|(s, &n)| *s = (*s + term(n)) * k),
            (Base::Zero, None) => line
                .iter_mut()
                .zip(noise)
                .for_each(|(s, &n)| *s = 0.0 + term(n)),
            (Base::Zero, Some(k)) => line
                .iter_mut()
                .zip(noise)
                .for_each(|(s, &n)| *s = (0.0 + term(n)) * k),
            (Base::Partial(p), None) => {
                let p = &p[..line.len()];
                for ((s, &n), &p) in line.iter_mut().zip(noise).zip(p) {
                    *s = p + term(n);
                }
            }
            (Base::Partial(p), Some(k)) => {
                let p = &p[..line.len()];
                for ((s, &n), &p) in line.iter_mut().zip(noise).zip(p) {
                    *s = (p + term(n)) * k;
                }
            }
        }
    }
    crate::twin::vectorized(
        #[inline(always)]
        || match kind {
            FRACTAL_RIDGED => add::<FRACTAL_RIDGED>(line, base, noise, amp, norm),
            FRACTAL_BILLOW => add::<FRACTAL_BILLOW>(line, base, noise, amp, norm),
            FRACTAL_PINGPONG => add::<FRACTAL_PINGPONG>(line, base, noise, amp, norm),
            _ => add::<FRACTAL_FBM>(line, base, noise, amp, norm),
        },
    )
}

/// The [`Base`] and normalization of octave `k` of the pass `octaves` of a stage row: the
/// first octave starts from `partial` (earlier passes) or zero, the last one scales by `norm`
/// when the pass finalizes.
fn octave_ends<'a>(
    k: u32,
    octaves: &std::ops::Range<u32>,
    partial: Option<&'a [f32]>,
    norm: Option<f32>,
) -> (Base<'a>, Option<f32>) {
    let base = match (k == octaves.start, partial) {
        (false, _) => Base::Line,
        (true, None) => Base::Zero,
        (true, Some(p)) => Base::Partial(p),
    };
    (base, norm.filter(|_| k + 1 == octaves.end))
}

/// Where a warp reads one axis of displacement: a materialized field, or a generator
/// chain evaluated per pixel (a fused warp; twin of `inline_field<axis>` in the assembled
/// WGSL).
pub enum DisplaceInput<'a> {
    /// A materialized displacement field, one value per pixel.
    Field(&'a [f32]),
    /// A generator chain evaluated at each pixel (fused warp).
    Inline {
        /// Uniforms of the inlined generator stage.
        uniform: &'a StageUniform,
        /// The exact positions of the inlined chain over the view.
        positions: &'a StagePositions,
        /// The family sampler the inlined stage evaluates.
        sample: &'a Sampler,
        /// Its row sampler, when the family has one: then a row of displacement at a time.
        rows: Option<&'a RowSampler>,
    },
}

/// The samplers of a generator chain: along rows (unwarped stages on a separable lattice), at
/// given points, and one sample at a time.
#[derive(Clone, Copy)]
struct ChainSamplers<'a> {
    sample: &'a Sampler,
    rows: Option<&'a RowSampler>,
    points: Option<&'a PointsSampler>,
}

/// Samples per piece of a row on the row samplers' path: 2 KiB, so that the copy of one piece
/// to the field goes out through the store buffer while the next piece is sampled, instead of
/// waiting on the field's memory as the copy of a whole row did (a sixth of a one-octave
/// value run).
const ROW_PIECE: usize = 512;

/// Writes every sample of `out` row by row (rows of `width`, in parallel), each row in pieces
/// of at most `piece` samples: `write(scratch, row, start, line)` fills `line`, the thread's own
/// copy of the samples `start..start + line.len()` of the row (it must write all of them),
/// which is then copied to `out`. So `out` may be fresh, unwritten memory: it is only written,
/// never read, and the scratch stays in the cache while the family writes it.
fn fill_rows<S: Send>(
    out: &mut [MaybeUninit<f32>],
    width: usize,
    piece: usize,
    init: impl Fn() -> S + Sync + Send,
    write: impl Fn(&mut S, usize, usize, &mut [f32]) + Sync + Send,
) {
    out.par_chunks_mut(width).enumerate().for_each_init(
        || (init(), Vec::new()),
        |(scratch, line), (row, dest)| {
            for (k, dest) in dest.chunks_mut(piece.max(1)).enumerate() {
                line.resize(dest.len(), 0.0);
                write(scratch, row, k * piece, line);
                for (d, &s) in dest.iter_mut().zip(line.iter()) {
                    d.write(s);
                }
            }
        },
    );
}

/// A thread's scratch rows: family samples, displacement per warped axis, split positions.
#[derive(Default)]
struct Scratch {
    noise: Vec<f32>,
    displacement: Vec<Vec<f32>>,
    lanes: PixelLanes,
}

/// Runs one pass of a generate stage into `out` (width x height x depth, x fastest), writing
/// every sample of it (fresh memory is fine: `out` is never read). Each pixel sits at its
/// exact position (`positions`, split per octave in f64 as a point query splits a point, see
/// `crate::graph::position`). `displace` holds the warp's displacement inputs (none, or one
/// per warped axis) and `acc` the partial sum of earlier octave passes. `rows`, the family's
/// row sampler when it has one, samples unwarped stages on a separable lattice, `points` (else
/// `sample`, one by one) the others: the same numbers either way.
#[allow(clippy::too_many_arguments)]
pub fn run_generate(
    u: &StageUniform,
    positions: &StagePositions,
    sample: &Sampler,
    rows: Option<&RowSampler>,
    points: Option<&PointsSampler>,
    displace: &[DisplaceInput],
    acc: Option<&[f32]>,
    out: &mut [MaybeUninit<f32>],
) {
    let [width, height, _depth, count] = u.size;
    let [_, first, finalize, _] = u.mode;
    // A pass has at least one octave (the graph's octaves are 1 or more), whose start writes
    // every sample of the row.
    debug_assert!(count >= 1);
    let width = width as usize;
    let norm = u.scalars[0];
    let row_yz = |row: usize| [row % height as usize, row / height as usize];
    let samplers = ChainSamplers {
        sample,
        rows,
        points,
    };
    // Unwarped rows on the row samplers' path go in pieces (see ROW_PIECE).
    let piece = if displace.is_empty() && rows.is_some() && positions.separable() {
        ROW_PIECE
    } else {
        width
    };
    fill_rows(
        out,
        width,
        piece,
        Scratch::default,
        |scratch, row, start, line| {
            let Scratch {
                noise,
                displacement,
                lanes,
            } = scratch;
            let yz = row_yz(row);
            let xs = start..start + line.len();
            // The row's displacement on each warped axis: from its field, or its fused chain.
            displacement.resize(displace.len(), Vec::new());
            for (input, values) in displace.iter().zip(displacement.iter_mut()) {
                values.clear();
                match input {
                    DisplaceInput::Field(field) => values
                        .extend_from_slice(&field[row * width + xs.start..row * width + xs.end]),
                    DisplaceInput::Inline {
                        uniform,
                        positions,
                        sample,
                        rows,
                    } => {
                        values.resize(line.len(), 0.0);
                        let chain = ChainSamplers {
                            sample,
                            rows: *rows,
                            points: None,
                        };
                        let sum = RowSum {
                            octaves: 0..uniform.size[3],
                            partial: None,
                            norm: Some(uniform.scalars[0]),
                        };
                        let at = RowAt { yz, xs: xs.clone() };
                        add_octaves(
                            uniform, positions, chain, &at, None, sum, values, noise, lanes,
                        );
                    }
                }
            }
            let values: Vec<&[f32]> = displacement.iter().map(Vec::as_slice).collect();
            let warped = (!displace.is_empty()).then_some(values.as_slice());
            let at = row * width;
            let sum = RowSum {
                octaves: first..first + count,
                partial: acc.map(|a| &a[at + xs.start..at + xs.end]),
                norm: (finalize != 0).then_some(norm),
            };
            let here = RowAt { yz, xs };
            add_octaves(
                u, positions, samplers, &here, warped, sum, line, noise, lanes,
            );
        },
    );
}

/// The octaves of one pass of a stage row and how its sum starts and ends: from the partial
/// sum of earlier passes (`None`: from zero), scaled by `norm` at the end when the pass
/// finalizes.
struct RowSum<'a> {
    octaves: std::ops::Range<u32>,
    partial: Option<&'a [f32]>,
    norm: Option<f32>,
}

/// Pixels of one row of a run: the row's y and z, and the range of its x.
struct RowAt {
    yz: [usize; 2],
    xs: std::ops::Range<usize>,
}

/// Octave `k` of stage `u` at the pixels `at` into `noise`: the family's samples at each
/// pixel's exact position, plus `d * warp` in a warped stage (`displacement`, one slice per
/// warped axis). Unwarped rows on a separable lattice go through the row sampler.
#[allow(clippy::too_many_arguments)]
fn octave_noise(
    u: &StageUniform,
    k: u32,
    positions: &StagePositions,
    samplers: ChainSamplers,
    at: &RowAt,
    displacement: Option<&[&[f32]]>,
    noise: &mut [f32],
    lanes: &mut PixelLanes,
) {
    let o = &u.octaves[k as usize];
    if let (Some(rows), None, true) = (samplers.rows, displacement, positions.separable()) {
        rows(&positions.sample_row(o, k, at.yz, at.xs.clone()), noise);
        return;
    }
    let d = displacement.unwrap_or(&[]);
    let pts = positions.octave_points(o, k, at.yz, at.xs.clone(), d, lanes);
    match samplers.points {
        Some(points) => points(&pts, noise),
        None => pts.fill_pointwise(noise, |p| (samplers.sample)(p)),
    }
}

/// Writes the octaves of `sum` of stage `u` at the pixels `at` into `line`: per octave the
/// family's samples ([`octave_noise`]), then `line[i] += amp * fractal_remap(n)`. Both a
/// stage's rows and fused chains run this, so a fused chain gives the value its own stage
/// would have written. `noise` and `lanes` are scratch.
#[allow(clippy::too_many_arguments)]
fn add_octaves(
    u: &StageUniform,
    positions: &StagePositions,
    samplers: ChainSamplers,
    at: &RowAt,
    displacement: Option<&[&[f32]]>,
    sum: RowSum,
    line: &mut [f32],
    noise: &mut Vec<f32>,
    lanes: &mut PixelLanes,
) {
    noise.resize(line.len(), 0.0);
    for k in sum.octaves.clone() {
        let o = &u.octaves[k as usize];
        octave_noise(u, k, positions, samplers, at, displacement, noise, lanes);
        let (base, norm) = octave_ends(k, &sum.octaves, sum.partial, sum.norm);
        add_octave(line, base, noise, o.amp, u.mode[0], norm);
    }
}

/// Runs a point-wise stage: `inputs` are the materialized fields it reads (0 to 3), `curve`
/// a `curve` stage's pieces (the used part of its table). Writes every sample of `out`
/// (fresh memory is fine: `out` is never read).
pub fn run_combine(
    u: &CombineUniform,
    curve: Option<&[[f32; 4]]>,
    inputs: &[&[f32]],
    out: &mut [MaybeUninit<f32>],
) {
    if let Some(pieces) = curve {
        let source = inputs[0];
        out.par_iter_mut().enumerate().for_each(|(i, value)| {
            value.write(curve_value(source[i], pieces));
        });
        return;
    }
    let op = u.op[0];
    let k = u.constants;
    out.par_iter_mut().enumerate().for_each(|(i, value)| {
        let a = inputs.first().map_or(0.0, |f| f[i]);
        let b = inputs.get(1).map_or(0.0, |f| f[i]);
        let c = inputs.get(2).map_or(0.0, |f| f[i]);
        value.write(combine_op(op, a, b, c, k));
    });
}

// ---- Gradient form (twin of the gradient section of shaders/stage.wgsl and of
// `combine_grad_op`): every sample is `[value, d/dx, d/dy, d/dz]`, the derivatives with
// respect to the view coordinates p. The value is computed exactly as the value form computes
// it (the same positions, samples bit for bit the plain sampler's, the same sums), so a
// gradient bake's value channel is the value bake's, bit for bit.

/// CPU twin of `Displaced` in shaders/stage.wgsl: a warp's displacement at a pixel per axis of
/// the source (0 past the warped axes), and the derivatives of those four numbers along x, y
/// and z.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Displaced {
    /// Displacement per source axis (x, y, z, w).
    pub d: [f32; 4],
    /// d d / d p.x per source axis.
    pub dx: [f32; 4],
    /// d d / d p.y per source axis.
    pub dy: [f32; 4],
    /// d d / d p.z per source axis.
    pub dz: [f32; 4],
}

/// CPU twin of the generated `octave_gradient`: d n / d p (x, y, z) from the family's d n / d
/// local `nd` ([`ops::octave_gradient`] with the octave's frequency on the view axes, and the
/// warp's Jacobian when `w` is given).
#[inline(always)]
pub fn octave_gradient(nd: [f32; 4], o: &OctaveUniform, w: Option<&Displaced>) -> [f32; 3] {
    let jacobian = w.map(|w| [w.dx, w.dy, w.dz]);
    ops::octave_gradient(nd, o.freq, o.warp, jacobian.as_ref())
}

/// CPU twin of `octave_term_grad` in shaders/stage.wgsl, from the octave's sample `n`: its
/// `[value, d/dx, d/dy, d/dz]` contribution.
#[inline(always)]
pub fn octave_term_grad(
    o: &OctaveUniform,
    n: NoiseGrad,
    w: Option<&Displaced>,
    kind: u32,
) -> [f32; 4] {
    let slope = o.amp * fractal_remap_slope(n.value, kind);
    let g = octave_gradient(n.d, o, w);
    [
        o.amp * fractal_remap(n.value, kind),
        slope * g[0],
        slope * g[1],
        slope * g[2],
    ]
}

/// Where a warp in gradient form reads one axis of displacement with its gradient.
pub enum DisplaceGradInput<'a> {
    /// A materialized displacement field in gradient form.
    Field(&'a [[f32; 4]]),
    /// A generator chain evaluated along each row (a fused warp; twin of the gradient form
    /// of `inline_field<axis>`).
    Inline {
        /// Uniforms of the inlined generator stage.
        uniform: &'a StageUniform,
        /// The exact positions of the inlined chain over the view.
        positions: &'a StagePositions,
        /// Its family's gradient samplers.
        samplers: GradSamplers<'a>,
    },
}

/// The family samplers a stage in gradient form runs with: along rows (unwarped stages on a
/// separable lattice, and inline chains there) and at given points (the others). Families
/// without vectorized ones get their point gradient sampler wrapped (see `engine`).
#[derive(Clone, Copy)]
pub struct GradSamplers<'a> {
    /// Rows of samples.
    pub rows: &'a GradRowSampler,
    /// Samples at given positions.
    pub points: &'a GradPointsSampler,
}

/// A thread's scratch rows for a stage in gradient form.
#[derive(Default)]
struct GradScratch {
    /// The row's `[value, d/dx, d/dy, d/dz]` sums (`d[3]` unused).
    sum: GradSamples,
    /// One octave's family samples.
    noise: GradSamples,
    /// Per source axis, the displacement and its derivatives along x, y, z (in `d[0..3]`);
    /// zero on the axes a warp leaves.
    displaced: [GradSamples; 4],
    /// Split positions.
    lanes: PixelLanes,
}

/// Runs one pass of a generate stage in gradient form into `out` (width x height x depth
/// `[value, d/dx, d/dy, d/dz]`, x fastest): the twin of `run_generate` and of the gradient
/// form of the stage template, at the same exact positions. `acc` holds the partial sums of
/// earlier octave passes.
pub fn run_generate_grad(
    u: &StageUniform,
    positions: &StagePositions,
    samplers: GradSamplers,
    displace: &[DisplaceGradInput],
    acc: Option<&[[f32; 4]]>,
    out: &mut [[f32; 4]],
) {
    if u.mapping.is_mapped() {
        return super::mapped::run_generate_grad_mapped(u, positions, samplers, displace, acc, out);
    }
    let [width, height, _depth, count] = u.size;
    let [_, first, finalize, _] = u.mode;
    let width = width as usize;
    let norm = u.scalars[0];
    out.par_chunks_mut(width).enumerate().for_each_init(
        GradScratch::default,
        |scratch, (row, line)| {
            let n = line.len();
            let GradScratch {
                sum,
                noise,
                displaced,
                lanes,
            } = scratch;
            let at = RowAt {
                yz: [row % height as usize, row / height as usize],
                xs: 0..n,
            };
            sum.resize(n);
            match acc {
                Some(a) => {
                    for (i, s) in a[row * width..row * width + n].iter().enumerate() {
                        sum.value[i] = s[0];
                        for b in 0..3 {
                            sum.d[b][i] = s[b + 1];
                        }
                    }
                }
                None => {
                    sum.value.fill(0.0);
                    sum.d.iter_mut().for_each(|d| d.fill(0.0));
                }
            }
            let octaves = first..first + count;
            if displace.is_empty() {
                add_octaves_grad(
                    u, positions, samplers, &at, None, octaves, sum, noise, lanes,
                );
            } else {
                for (a, axis) in displaced.iter_mut().enumerate() {
                    axis.resize(n);
                    match displace.get(a) {
                        None => {
                            axis.value.fill(0.0);
                            axis.d.iter_mut().for_each(|d| d.fill(0.0));
                        }
                        Some(DisplaceGradInput::Field(field)) => {
                            for (i, s) in field[row * width..row * width + n].iter().enumerate() {
                                axis.value[i] = s[0];
                                for b in 0..3 {
                                    axis.d[b][i] = s[b + 1];
                                }
                            }
                        }
                        Some(DisplaceGradInput::Inline {
                            uniform,
                            positions,
                            samplers,
                        }) => {
                            axis.value.fill(0.0);
                            axis.d.iter_mut().for_each(|d| d.fill(0.0));
                            let chain = 0..uniform.size[3];
                            let s = *samplers;
                            add_octaves_grad(
                                uniform, positions, s, &at, None, chain, axis, noise, lanes,
                            );
                            let k = uniform.scalars[0];
                            axis.value.iter_mut().for_each(|v| *v *= k);
                            for d in &mut axis.d[..3] {
                                d.iter_mut().for_each(|v| *v *= k);
                            }
                        }
                    }
                }
                let warped = Some(&*displaced);
                add_octaves_grad(
                    u, positions, samplers, &at, warped, octaves, sum, noise, lanes,
                );
            }
            let scale = if finalize != 0 { norm } else { 1.0 };
            for (i, texel) in line.iter_mut().enumerate() {
                *texel = [sum.value[i], sum.d[0][i], sum.d[1][i], sum.d[2][i]];
                if finalize != 0 {
                    *texel = texel.map(|v| v * scale);
                }
            }
        },
    );
}

/// Adds `octaves` of stage `u` at the pixels `at` to the gradient sums `sum`: per octave the
/// family's gradient samples at each pixel's exact position (through the row sampler for
/// unwarped rows on a separable lattice, else at points, plus `d * warp` in a warp whose
/// displacements and their gradients are `displaced`), then the chain rule. `noise` and
/// `lanes` are scratch.
#[allow(clippy::too_many_arguments)]
fn add_octaves_grad(
    u: &StageUniform,
    positions: &StagePositions,
    samplers: GradSamplers,
    at: &RowAt,
    displaced: Option<&[GradSamples; 4]>,
    octaves: std::ops::Range<u32>,
    sum: &mut GradSamples,
    noise: &mut GradSamples,
    lanes: &mut PixelLanes,
) {
    noise.resize(sum.len());
    // Every axis's displacement: 0 on the axes a warp leaves, whose `0 * warp` term is the
    // one `add_displacement` adds there.
    let warps = displaced.map(|d| d.iter().map(|a| a.value.as_slice()).collect::<Vec<_>>());
    for k in octaves {
        let o = &u.octaves[k as usize];
        if let (None, true) = (displaced, positions.separable()) {
            (samplers.rows)(&positions.sample_row(o, k, at.yz, at.xs.clone()), noise);
        } else {
            let d = warps.as_deref().unwrap_or(&[]);
            let pts = positions.octave_points(o, k, at.yz, at.xs.clone(), d, lanes);
            (samplers.points)(&pts, noise);
        }
        add_octave_grad(o, u.mode[0], noise, displaced, sum);
    }
}

/// `sum[i] += octave_term_grad(o, noise[i], displaced[i])` over a row, with the fractal kind
/// chosen once outside the loop and the loop compiled for AVX2 where the CPU has it.
fn add_octave_grad(
    o: &OctaveUniform,
    kind: u32,
    noise: &GradSamples,
    displaced: Option<&[GradSamples; 4]>,
    sum: &mut GradSamples,
) {
    #[inline(always)]
    fn add<const KIND: u32>(
        o: &OctaveUniform,
        noise: &GradSamples,
        displaced: Option<&[GradSamples; 4]>,
        sum: &mut GradSamples,
    ) {
        // Every array sliced to the row, and the octave copied, before the loop: loads
        // through the structs inside it would be redone after each store, and the loop would
        // not vectorize.
        let o = &{ *o };
        let n = sum.len();
        let value = &mut sum.value[..n];
        let [d0, d1, d2, _] = &mut sum.d;
        let (d0, d1, d2) = (&mut d0[..n], &mut d1[..n], &mut d2[..n]);
        let nv = &noise.value[..n];
        let nd = noise.d.each_ref().map(|d| &d[..n]);
        let sample = |i: usize| NoiseGrad {
            value: nv[i],
            d: [nd[0][i], nd[1][i], nd[2][i], nd[3][i]],
        };
        match displaced {
            None => {
                for i in 0..n {
                    let t = octave_term_grad(o, sample(i), None, KIND);
                    value[i] += t[0];
                    d0[i] += t[1];
                    d1[i] += t[2];
                    d2[i] += t[3];
                }
            }
            Some(w) => {
                let wv = w.each_ref().map(|a| &a.value[..n]);
                let wd = w.each_ref().map(|a| a.d.each_ref().map(|d| &d[..n]));
                for i in 0..n {
                    let w = Displaced {
                        d: [wv[0][i], wv[1][i], wv[2][i], wv[3][i]],
                        dx: [wd[0][0][i], wd[1][0][i], wd[2][0][i], wd[3][0][i]],
                        dy: [wd[0][1][i], wd[1][1][i], wd[2][1][i], wd[3][1][i]],
                        dz: [wd[0][2][i], wd[1][2][i], wd[2][2][i], wd[3][2][i]],
                    };
                    let t = octave_term_grad(o, sample(i), Some(&w), KIND);
                    value[i] += t[0];
                    d0[i] += t[1];
                    d1[i] += t[2];
                    d2[i] += t[3];
                }
            }
        }
    }
    crate::twin::vectorized(
        #[inline(always)]
        || match kind {
            FRACTAL_RIDGED => add::<FRACTAL_RIDGED>(o, noise, displaced, sum),
            FRACTAL_BILLOW => add::<FRACTAL_BILLOW>(o, noise, displaced, sum),
            FRACTAL_PINGPONG => add::<FRACTAL_PINGPONG>(o, noise, displaced, sum),
            _ => add::<FRACTAL_FBM>(o, noise, displaced, sum),
        },
    )
}

/// Runs a point-wise stage in gradient form (twin of the combine entry point with
/// `combine_grad_op`): `inputs` are the gradient fields it reads (0 to 3), `curve` as in
/// [`run_combine`].
pub fn run_combine_grad(
    u: &CombineUniform,
    curve: Option<&[[f32; 4]]>,
    inputs: &[&[[f32; 4]]],
    out: &mut [[f32; 4]],
) {
    if let Some(pieces) = curve {
        let source = inputs[0];
        out.par_iter_mut().enumerate().for_each(|(i, texel)| {
            let r = curve_grad(NoiseGrad::from_xyz(source[i]), pieces);
            *texel = [r.value, r.d[0], r.d[1], r.d[2]];
        });
        return;
    }
    let op = u.op[0];
    let k = u.constants;
    out.par_iter_mut().enumerate().for_each(|(i, texel)| {
        let a = inputs.first().map_or([0.0; 4], |f| f[i]);
        let b = inputs.get(1).map_or([0.0; 4], |f| f[i]);
        let c = inputs.get(2).map_or([0.0; 4], |f| f[i]);
        *texel = combine_grad_op(op, a, b, c, k);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::{with_vector_width, VectorWidth};

    #[test]
    fn add_octave_gives_the_bits_of_fill_add_scale_at_every_width() {
        let n = 67;
        let mut noise: Vec<f32> = (0..n)
            .map(|i| ((i * 37 % 23) as f32 - 11.0) / 9.0)
            .collect();
        noise[5] = -0.0; // 0 + amp * -0 is +0: the sum must start from a real zero
        let partial: Vec<f32> = (0..n).map(|i| (i as f32 - 30.0) * 0.013).collect();
        let start: Vec<f32> = (0..n).map(|i| (i as f32).sin()).collect();
        for width in VectorWidth::supported() {
            for kind in [
                FRACTAL_FBM,
                FRACTAL_RIDGED,
                FRACTAL_BILLOW,
                FRACTAL_PINGPONG,
            ] {
                for norm in [None, Some(0.533_f32)] {
                    for which in 0..3 {
                        let base = [Base::Line, Base::Zero, Base::Partial(&partial)][which];
                        // The reference: the row filled with its base, the octave added, the
                        // sum scaled, pass by pass.
                        let mut expected = match base {
                            Base::Line => start.clone(),
                            Base::Zero => vec![0.0; n],
                            Base::Partial(p) => p.to_vec(),
                        };
                        for (s, &v) in expected.iter_mut().zip(&noise) {
                            *s += 0.37 * fractal_remap(v, kind);
                        }
                        if let Some(k) = norm {
                            expected.iter_mut().for_each(|s| *s *= k);
                        }
                        let mut line = start.clone();
                        with_vector_width(width, || {
                            add_octave(&mut line, base, &noise, 0.37, kind, norm)
                        });
                        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                        assert_eq!(
                            bits(&line),
                            bits(&expected),
                            "{width} kind {kind} base {which}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn rows_in_pieces_give_the_point_samplers_sums_over_split_passes_at_every_width() {
        // Rows wider than a piece (three pieces, the last one short), at a tile offset, in two
        // passes (the second starting from the first's partial sums): the row samplers' path
        // must write the bits the point-by-point path writes.
        use crate::graph::{NoiseGraph, Plan, StageKind, View};
        let width = 2 * ROW_PIECE as u32 + 77;
        let view = View::image(70_000 + width, 20)
            .with_origin([-3.0, 1.0, 0.0])
            .tile([70_000, 9, 0], [width, 3, 1]);
        for family in ["value", "perlin", "simplex", "cellular"] {
            let g = NoiseGraph::from_json(&format!(
                r#"{{"seed": 3, "output": "f", "nodes": [{{"id": "n", "type": "{family}", "frequency": 3.7}},
                {{"id": "f", "type": "fbm", "source": "n", "octaves": 3}}]}}"#
            ))
            .unwrap();
            let plan = Plan::new(&g, None).unwrap();
            let StageKind::Generate(stage) = &plan.stages[plan.target].kind else {
                panic!("a generate stage")
            };
            let base = stage.uniforms(plan.seed, &view);
            let params = &stage.source.params;
            let aux = stage.aux_data(plan.seed).unwrap_or_default().into();
            let sampler = stage.family.cpu_sampler(2, params, base.family, aux);
            let rows = stage
                .family
                .cpu_row_sampler(2, params, base.family)
                .unwrap();
            let len = view.pixel_count() as usize;
            let positions = StagePositions::new(stage, &view);
            let run = |rows: Option<&RowSampler>| {
                let mut partial: Option<Vec<f32>> = None;
                for (first, count, last) in [(0, 2, 0), (2, 1, 1)] {
                    let mut u = base;
                    u.size[3] = count;
                    u.mode[1] = first;
                    u.mode[2] = last;
                    let mut out = vec![MaybeUninit::new(f32::NAN); len];
                    let acc = partial.as_deref();
                    run_generate(&u, &positions, &sampler, rows, None, &[], acc, &mut out);
                    // SAFETY: every element was initialized above (and written again).
                    partial = Some(out.iter().map(|v| unsafe { v.assume_init() }).collect());
                }
                partial.unwrap()
            };
            let expected: Vec<u32> = run(None).iter().map(|v| v.to_bits()).collect();
            for width in VectorWidth::supported() {
                let got = with_vector_width(width, || run(Some(&rows)));
                let got: Vec<u32> = got.iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, expected, "{family} at {width}");
            }
        }
    }
}
