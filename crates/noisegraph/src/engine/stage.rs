//! The CPU executor of a stage. Twin of `shaders/stage.wgsl` (the octave loop, remap, warp
//! and store, in value and gradient form) and of the combine entry point in
//! `shaders/combine.wgsl`.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use crate::graph::{CombineUniform, OctaveUniform, StageUniform};
use crate::twin::combine::combine_grad_op;
use crate::twin::lib::curve::{curve_grad, curve_value};
use crate::twin::lib::ops::combine_op;
use crate::twin::sample::{
    GradPointsSampler, GradRowSampler, GradSamples, NoiseGrad, PointsSampler, RowSampler,
    SamplePoint, SamplePoints, SampleRow, Sampler,
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
        /// The family sampler the inlined stage evaluates.
        sample: &'a Sampler,
        /// Its row sampler, when the family has one: then a row of displacement at a time.
        rows: Option<&'a RowSampler>,
    },
}

/// Octaves `first..first + count` of a stage at pixel position `pix`, displaced by `d` when
/// the stage has a warp (`None` otherwise: no `0 * warp` term), added to `sum` (twin of
/// `octave_sum` / `octave_term` and of the generated `octave_local`). Both the stage loop and inline chains run this, so a fused
/// chain gives the value its own stage would have written.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn octave_sum(
    u: &StageUniform,
    sample: &Sampler,
    pix: [f32; 4],
    d: Option<[f32; 4]>,
    first: u32,
    count: u32,
    mut sum: f32,
) -> f32 {
    let kind = u.mode[0];
    for k in first..first + count {
        let o = &u.octaves[k as usize];
        let local: [f32; 4] = match d {
            Some(d) => std::array::from_fn(|a| o.local[a] + pix[a] * o.step[a] + d[a] * o.warp[a]),
            None => std::array::from_fn(|a| o.local[a] + pix[a] * o.step[a]),
        };
        let n = sample(&SamplePoint {
            cell: o.cell,
            local,
            seed: o.seed,
            period: o.period,
        });
        sum += o.amp * fractal_remap(n, kind);
    }
    sum
}

/// The full value of an undisplaced generator chain at pixel position `pix`: every octave
/// in one pass, then the normalization.
#[inline(always)]
fn inline_value(u: &StageUniform, sample: &Sampler, pix: [f32; 4]) -> f32 {
    octave_sum(u, sample, pix, None, 0, u.size[3], 0.0) * u.scalars[0]
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

/// Runs one pass of a generate stage into `out` (width x height x depth, x fastest), writing
/// every sample of it (fresh memory is fine: `out` is never read). `displace` holds the warp's
/// displacement inputs (none, or one per warped axis) and `acc` the partial sum of earlier
/// octave passes. `rows`, the family's row sampler when it has one, takes over the sampling of
/// unwarped stages (the same numbers, several samples per call).
pub fn run_generate(
    u: &StageUniform,
    sample: &Sampler,
    rows: Option<&RowSampler>,
    points: Option<&PointsSampler>,
    displace: &[DisplaceInput],
    acc: Option<&[f32]>,
    out: &mut [MaybeUninit<f32>],
) {
    if u.mapping.is_mapped() {
        return super::mapped::run_generate_mapped(u, sample, points, displace, acc, out);
    }
    let [width, height, _depth, count] = u.size;
    let [_, first, finalize, _] = u.mode;
    // A pass has at least one octave (the graph's octaves are 1 or more), whose start writes
    // every sample of the row.
    debug_assert!(count >= 1);
    let width = width as usize;
    let norm = u.scalars[0];
    let [ox, oy, oz, _] = u.pixel_offset;
    // Pixel indices offset in integers, then converted: a tile's pixel gets exactly the f32
    // coordinate the same pixel has in the whole view.
    let pix_yz = |row: usize| {
        let y = ((row % height as usize) as u32 + oy) as f32;
        let z = ((row / height as usize) as u32 + oz) as f32;
        [y, z]
    };
    if let (Some(rows), true) = (rows, displace.is_empty()) {
        fill_rows(
            out,
            width,
            ROW_PIECE,
            Vec::new,
            |noise, row, start, line| {
                let at = row * width + start;
                let sum = RowSum {
                    octaves: first..first + count,
                    partial: acc.map(|a| &a[at..at + line.len()]),
                    norm: (finalize != 0).then_some(norm),
                };
                // Pixel `ox + start + i`, the integer the whole row gives sample `start + i`.
                let first_x = ox.wrapping_add(start as u32);
                add_octave_rows(u, rows, first_x, pix_yz(row), sum, line, noise);
            },
        );
        return;
    }
    /// A thread's scratch rows: family samples, displacement per warped axis, positions.
    #[derive(Default)]
    struct Scratch {
        noise: Vec<f32>,
        displacement: Vec<Vec<f32>>,
        local: [Vec<f32>; 4],
        pix_x: Vec<f32>,
    }
    fill_rows(
        out,
        width,
        width,
        Scratch::default,
        |scratch, row, _, line| {
            let Scratch {
                noise,
                displacement,
                local,
                pix_x,
            } = scratch;
            let [y, z] = pix_yz(row);
            let pix = |x: usize| [(x as u32 + ox) as f32, y, z, 0.0];
            // The row's displacement on each warped axis: from its field, or its fused chain
            // (a whole row at once through the chain's row sampler, else pixel by pixel).
            displacement.resize(displace.len(), Vec::new());
            for (input, values) in displace.iter().zip(displacement.iter_mut()) {
                values.clear();
                match input {
                    DisplaceInput::Field(field) => {
                        values.extend_from_slice(&field[row * width..(row + 1) * width])
                    }
                    DisplaceInput::Inline {
                        uniform,
                        rows: Some(rows),
                        ..
                    } => {
                        values.resize(line.len(), 0.0);
                        let sum = RowSum {
                            octaves: 0..uniform.size[3],
                            partial: None,
                            norm: Some(uniform.scalars[0]),
                        };
                        add_octave_rows(uniform, rows, ox, [y, z], sum, values, noise);
                    }
                    DisplaceInput::Inline {
                        uniform,
                        sample,
                        rows: None,
                    } => values
                        .extend((0..line.len()).map(|x| inline_value(uniform, sample, pix(x)))),
                }
            }
            let Some(points) = points else {
                for (x, value) in line.iter_mut().enumerate() {
                    let mut d = [0.0f32; 4];
                    for (axis, values) in displacement.iter().enumerate() {
                        d[axis] = values[x];
                    }
                    let acc = acc.map_or(0.0, |a| a[row * width + x]);
                    let d = (!displace.is_empty()).then_some(d);
                    let mut sum = octave_sum(u, sample, pix(x), d, first, count, acc);
                    if finalize != 0 {
                        sum *= norm;
                    }
                    *value = sum;
                }
                return;
            };
            pix_x.clear();
            pix_x.extend((0..line.len()).map(|x| pix(x)[0]));
            let values: Vec<&[f32]> = displacement.iter().map(Vec::as_slice).collect();
            let warped = (!displace.is_empty()).then_some(values.as_slice());
            let at = RowPixels {
                x: pix_x,
                yz: [y, z],
                displacement: warped,
            };
            let sum = RowSum {
                octaves: first..first + count,
                partial: acc.map(|a| &a[row * width..(row + 1) * width]),
                norm: (finalize != 0).then_some(norm),
            };
            add_octave_points(u, points, &at, sum, line, noise, local);
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

/// The pixels of one row of a stage: their x coordinates, their y and z, and the
/// displacement of each warped axis (`None` for an unwarped stage).
struct RowPixels<'a> {
    x: &'a [f32],
    yz: [f32; 2],
    displacement: Option<&'a [&'a [f32]]>,
}

/// The positions of octave `o` at the `n` pixels `at`, axis by axis, into `local`:
/// `o.local + pix * o.step + d * o.warp`, as `octave_sum` computes it, with no warp term in an
/// unwarped stage and a displacement of 0 on axes a warp leaves.
fn octave_positions(o: &OctaveUniform, at: &RowPixels, n: usize, local: &mut [Vec<f32>; 4]) {
    for (a, positions) in local.iter_mut().enumerate() {
        positions.clear();
        let warp = at.displacement.map(|d| d.get(a));
        if a == 0 {
            let along = at.x.iter().map(|&px| o.local[0] + px * o.step[0]);
            match warp {
                None => positions.extend(along),
                Some(None) => positions.extend(along.map(|v| v + 0.0 * o.warp[0])),
                Some(Some(d)) => positions.extend(along.zip(*d).map(|(v, &d)| v + d * o.warp[0])),
            }
        } else {
            let v = o.local[a] + [0.0, at.yz[0], at.yz[1], 0.0][a] * o.step[a];
            match warp {
                None => positions.resize(n, v),
                Some(None) => positions.resize(n, v + 0.0 * o.warp[a]),
                Some(Some(d)) => positions.extend(d.iter().map(|&d| v + d * o.warp[a])),
            }
        }
    }
}

/// The row of octave `o` for the pixels of one row of an unwarped stage (pixel y and z
/// `pix_yz`, first pixel x `first_x`): the stage's `o.local + pix * o.step`, per axis.
pub(crate) fn octave_row(o: &OctaveUniform, first_x: u32, [pix_y, pix_z]: [f32; 2]) -> SampleRow {
    SampleRow {
        cell: o.cell,
        local: [
            o.local[0],
            o.local[1] + pix_y * o.step[1],
            o.local[2] + pix_z * o.step[2],
            o.local[3] + 0.0 * o.step[3],
        ],
        step_x: o.step[0],
        first_x,
        seed: o.seed,
        period: o.period,
    }
}

/// Writes the octaves of `sum` of stage `u` at the pixels `at` into `line` through the
/// family's points sampler: per octave `octave_sum`'s positions, axis by axis, then `line[i]
/// += amp * fractal_remap(n)`, as `octave_sum` adds them per pixel. `noise` and `local` are
/// scratch.
fn add_octave_points(
    u: &StageUniform,
    points: &PointsSampler,
    at: &RowPixels,
    sum: RowSum,
    line: &mut [f32],
    noise: &mut Vec<f32>,
    local: &mut [Vec<f32>; 4],
) {
    noise.resize(line.len(), 0.0);
    for k in sum.octaves.clone() {
        let o = &u.octaves[k as usize];
        octave_positions(o, at, line.len(), local);
        let row = SamplePoints {
            cell: o.cell,
            cells: None,
            local: [&local[0], &local[1], &local[2], &local[3]],
            seed: o.seed,
            period: o.period,
        };
        points(&row, noise);
        let (base, norm) = octave_ends(k, &sum.octaves, sum.partial, sum.norm);
        add_octave(line, base, noise, o.amp, u.mode[0], norm);
    }
}

/// Writes the octaves of `sum` of the unwarped stage `u` along one row (pixel y and z
/// `pix_yz`, first pixel x `first_x`) into `line`, through the family's row sampler:
/// `line[i] += amp * fractal_remap(n)` per octave, as `octave_sum` adds them per pixel.
/// `noise` is scratch.
fn add_octave_rows(
    u: &StageUniform,
    rows: &RowSampler,
    first_x: u32,
    pix_yz: [f32; 2],
    sum: RowSum,
    line: &mut [f32],
    noise: &mut Vec<f32>,
) {
    noise.resize(line.len(), 0.0);
    for k in sum.octaves.clone() {
        let o = &u.octaves[k as usize];
        rows(&octave_row(o, first_x, pix_yz), noise);
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
        /// Its family's gradient row sampler.
        rows: &'a GradRowSampler,
    },
}

/// The family samplers a stage in gradient form runs with: along rows (unwarped stages and
/// inline chains) and at given points (warped stages). Families without vectorized ones get
/// their point gradient sampler wrapped (see `engine`).
pub struct GradSamplers<'a> {
    /// Rows of evenly spaced samples.
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
    /// Positions per axis, and the pixels' x.
    local: [Vec<f32>; 4],
    pix_x: Vec<f32>,
}

/// Runs one pass of a generate stage in gradient form into `out` (width x height x depth
/// `[value, d/dx, d/dy, d/dz]`, x fastest): the twin of `run_generate` and of the gradient
/// form of the stage template. `acc` holds the partial sums of earlier octave passes.
pub fn run_generate_grad(
    u: &StageUniform,
    samplers: GradSamplers,
    displace: &[DisplaceGradInput],
    acc: Option<&[[f32; 4]]>,
    out: &mut [[f32; 4]],
) {
    if u.mapping.is_mapped() {
        return super::mapped::run_generate_grad_mapped(u, samplers, displace, acc, out);
    }
    let [width, height, _depth, count] = u.size;
    let [_, first, finalize, _] = u.mode;
    let width = width as usize;
    let norm = u.scalars[0];
    let [ox, oy, oz, _] = u.pixel_offset;
    let pix_yz = |row: usize| {
        let y = ((row % height as usize) as u32 + oy) as f32;
        let z = ((row / height as usize) as u32 + oz) as f32;
        [y, z]
    };
    out.par_chunks_mut(width).enumerate().for_each_init(
        GradScratch::default,
        |scratch, (row, line)| {
            let n = line.len();
            let GradScratch {
                sum,
                noise,
                displaced,
                local,
                pix_x,
            } = scratch;
            let yz = pix_yz(row);
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
                add_octave_grad_rows(u, samplers.rows, ox, yz, octaves, sum, noise);
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
                        Some(DisplaceGradInput::Inline { uniform, rows }) => {
                            axis.value.fill(0.0);
                            axis.d.iter_mut().for_each(|d| d.fill(0.0));
                            let chain = 0..uniform.size[3];
                            add_octave_grad_rows(uniform, rows, ox, yz, chain, axis, noise);
                            let k = uniform.scalars[0];
                            axis.value.iter_mut().for_each(|v| *v *= k);
                            for d in &mut axis.d[..3] {
                                d.iter_mut().for_each(|v| *v *= k);
                            }
                        }
                    }
                }
                pix_x.clear();
                pix_x.extend((0..n).map(|x| (x as u32 + ox) as f32));
                let values: Vec<&[f32]> = displaced[..displace.len()]
                    .iter()
                    .map(|d| d.value.as_slice())
                    .collect();
                let at = RowPixels {
                    x: pix_x,
                    yz,
                    displacement: Some(&values),
                };
                for k in octaves {
                    let o = &u.octaves[k as usize];
                    octave_positions(o, &at, n, local);
                    let pts = SamplePoints {
                        cell: o.cell,
                        cells: None,
                        local: [&local[0], &local[1], &local[2], &local[3]],
                        seed: o.seed,
                        period: o.period,
                    };
                    noise.resize(n);
                    (samplers.points)(&pts, noise);
                    add_octave_grad(o, u.mode[0], noise, Some(displaced), sum);
                }
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

/// Adds `octaves` of the unwarped stage `u` along one row (see [`add_octave_rows`]) to the
/// gradient sums `sum` through the family's gradient row sampler. `noise` is scratch.
fn add_octave_grad_rows(
    u: &StageUniform,
    rows: &GradRowSampler,
    first_x: u32,
    pix_yz: [f32; 2],
    octaves: std::ops::Range<u32>,
    sum: &mut GradSamples,
    noise: &mut GradSamples,
) {
    noise.resize(sum.len());
    for k in octaves {
        let o = &u.octaves[k as usize];
        rows(&octave_row(o, first_x, pix_yz), noise);
        add_octave_grad(o, u.mode[0], noise, None, sum);
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
            let run = |rows: Option<&RowSampler>| {
                let mut partial: Option<Vec<f32>> = None;
                for (first, count, last) in [(0, 2, 0), (2, 1, 1)] {
                    let mut u = base;
                    u.size[3] = count;
                    u.mode[1] = first;
                    u.mode[2] = last;
                    let mut out = vec![MaybeUninit::new(f32::NAN); len];
                    run_generate(&u, &sampler, rows, None, &[], partial.as_deref(), &mut out);
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
