//! The CPU executor of mapped generate stages (a chain below `transform`, `sphere`, `torus`
//! or `cylinder`): the twin of the stage template run with the prelude's mapped
//! `view_position` and, in gradient form, the mapped `octave_gradient`
//! (`gpu::assemble_mapping`). A mapped row's positions are not evenly spaced, so every
//! octave goes through the family's points sampler (or its point sampler, sample by
//! sample), as a warped row does.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::stage::{DisplaceGradInput, DisplaceInput, Displaced, GradSamplers};
use crate::graph::{OctaveUniform, StageUniform};
use crate::twin::lib::mapping::{map_jacobian, map_position, mapped_gradient};
use crate::twin::lib::ops::{fractal_remap, fractal_remap_slope};
use crate::twin::sample::{GradSamples, PointsSampler, SamplePoints, Sampler};

/// A row's scratch: mapped positions per axis, the octave's positions, its samples.
#[derive(Default)]
struct Row {
    mapped: [Vec<f32>; 4],
    local: [Vec<f32>; 4],
    noise: Vec<f32>,
    grad: GradSamples,
    jacobian: Vec<[[f32; 4]; 3]>,
}

/// Row `row`'s pixel positions (`pix` of the stage template: the pixel index offset in
/// integers, then converted) mapped, per axis, into `mapped`; with `jacobian`, the map's
/// Jacobian at each.
fn map_row(u: &StageUniform, row: usize, n: usize, scratch: &mut Row, jacobian: bool) {
    let [_, height, _, _] = u.size;
    let [ox, oy, oz, _] = u.pixel_offset;
    let y = ((row % height as usize) as u32 + oy) as f32;
    let z = ((row / height as usize) as u32 + oz) as f32;
    for axis in &mut scratch.mapped {
        axis.clear();
    }
    scratch.jacobian.clear();
    for x in 0..n {
        let pix = [(x as u32 + ox) as f32, y, z, 0.0];
        let s = map_position(&u.mapping, pix);
        for (a, axis) in scratch.mapped.iter_mut().enumerate() {
            axis.push(s[a]);
        }
        if jacobian {
            scratch.jacobian.push(map_jacobian(&u.mapping, pix));
        }
    }
}

/// Octave `o`'s positions at the mapped positions: `o.local + s * o.step`, plus `d * o.warp`
/// on every axis in a warp (`d` = 0 on the axes it leaves), as `octave_local` computes them.
fn octave_positions(
    o: &OctaveUniform,
    mapped: &[Vec<f32>; 4],
    displacement: Option<&[Vec<f32>]>,
    local: &mut [Vec<f32>; 4],
) {
    for (a, positions) in local.iter_mut().enumerate() {
        positions.clear();
        let along = mapped[a].iter().map(|&s| o.local[a] + s * o.step[a]);
        match displacement {
            None => positions.extend(along),
            Some(d) => match d.get(a) {
                Some(d) => positions.extend(along.zip(d).map(|(v, &d)| v + d * o.warp[a])),
                None => positions.extend(along.map(|v| v + 0.0 * o.warp[a])),
            },
        }
    }
}

/// The displacement of a warp's gradient fields (one per warped axis) at sample `i`, with
/// its Jacobian, 0 past the warped axes.
fn displaced_at(fields: &[Vec<[f32; 4]>], i: usize) -> Displaced {
    let mut w = Displaced::default();
    for (a, field) in fields.iter().enumerate() {
        [w.d[a], w.dx[a], w.dy[a], w.dz[a]] = field[i];
    }
    w
}

/// d n / d p (x, y, z) of an octave of a mapped stage from the family's d n / d local `nd`:
/// along the mapped position through the map's `jacobian` ([`mapped_gradient`]), plus in a
/// warp `w` the displacement's term, `nd * warp` along the fields' gradients (already along
/// the view axes: the fields are mapped stages too). Twin of the mapped `octave_gradient`
/// (`gpu::assemble_mapping`); the mapped stages of both octave sums (plain and stateful) use it.
#[inline(always)]
pub(crate) fn mapped_octave_gradient(
    nd: [f32; 4],
    o: &OctaveUniform,
    jacobian: &[[f32; 4]; 3],
    w: Option<&Displaced>,
) -> [f32; 3] {
    let mut g = mapped_gradient(nd, o.step, jacobian);
    if let Some(w) = w {
        let s: [f32; 4] = std::array::from_fn(|a| nd[a] * o.warp[a]);
        for (gb, d) in g.iter_mut().zip([w.dx, w.dy, w.dz]) {
            *gb += s[0] * d[0] + s[1] * d[1] + s[2] * d[2] + s[3] * d[3];
        }
    }
    g
}

/// One pass of a mapped generate stage in value form (see `stage::run_generate`, whose
/// arguments it takes).
pub(crate) fn run_generate_mapped(
    u: &StageUniform,
    sample: &Sampler,
    points: Option<&PointsSampler>,
    displace: &[DisplaceInput],
    acc: Option<&[f32]>,
    out: &mut [MaybeUninit<f32>],
) {
    let [width, _, _, count] = u.size;
    let [kind, first, finalize, _] = u.mode;
    let width = width as usize;
    out.par_chunks_mut(width).enumerate().for_each_init(
        || (Row::default(), Vec::<Vec<f32>>::new(), Vec::<f32>::new()),
        |(scratch, displacement, sum), (row, line)| {
            let n = line.len();
            let at = row * width;
            map_row(u, row, n, scratch, false);
            displacement.resize(displace.len(), Vec::new());
            for (input, values) in displace.iter().zip(displacement.iter_mut()) {
                values.clear();
                match input {
                    DisplaceInput::Field(field) => values.extend_from_slice(&field[at..at + n]),
                    DisplaceInput::Inline { .. } => {
                        unreachable!("a mapped warp reads its displacements as fields")
                    }
                }
            }
            sum.clear();
            match acc {
                Some(a) => sum.extend_from_slice(&a[at..at + n]),
                None => sum.resize(n, 0.0),
            }
            let warped = (!displace.is_empty()).then_some(displacement.as_slice());
            for k in first..first + count {
                let o = &u.octaves[k as usize];
                octave_positions(o, &scratch.mapped, warped, &mut scratch.local);
                let l = &scratch.local;
                let pts = SamplePoints {
                    cell: o.cell,
                    cells: None,
                    local: [&l[0], &l[1], &l[2], &l[3]],
                    seed: o.seed,
                    period: o.period,
                };
                scratch.noise.resize(n, 0.0);
                match points {
                    Some(points) => points(&pts, &mut scratch.noise),
                    None => pts.fill_pointwise(&mut scratch.noise, sample),
                }
                for (s, &v) in sum.iter_mut().zip(&scratch.noise) {
                    *s += o.amp * fractal_remap(v, kind);
                }
            }
            let norm = u.scalars[0];
            for (dest, &s) in line.iter_mut().zip(sum.iter()) {
                dest.write(if finalize != 0 { s * norm } else { s });
            }
        },
    );
}

/// One pass of a mapped generate stage in gradient form (see `stage::run_generate_grad`):
/// the family's gradient along the mapped position through the map's Jacobian, plus a
/// warp's displacement term, by the chain rule.
pub(crate) fn run_generate_grad_mapped(
    u: &StageUniform,
    samplers: GradSamplers,
    displace: &[DisplaceGradInput],
    acc: Option<&[[f32; 4]]>,
    out: &mut [[f32; 4]],
) {
    let [width, _, _, count] = u.size;
    let [kind, first, finalize, _] = u.mode;
    let width = width as usize;
    out.par_chunks_mut(width).enumerate().for_each_init(
        || (Row::default(), Vec::<Vec<[f32; 4]>>::new()),
        |(scratch, displacement), (row, line)| {
            let n = line.len();
            let at = row * width;
            map_row(u, row, n, scratch, true);
            displacement.resize(displace.len(), Vec::new());
            for (input, values) in displace.iter().zip(displacement.iter_mut()) {
                values.clear();
                match input {
                    DisplaceGradInput::Field(field) => values.extend_from_slice(&field[at..at + n]),
                    DisplaceGradInput::Inline { .. } => {
                        unreachable!("a mapped warp reads its displacements as fields")
                    }
                }
            }
            let values: Vec<Vec<f32>> = displacement
                .iter()
                .map(|d| d.iter().map(|t| t[0]).collect())
                .collect();
            let warped = (!displace.is_empty()).then_some(values.as_slice());
            for (i, texel) in line.iter_mut().enumerate() {
                *texel = acc.map_or([0.0; 4], |a| a[at + i]);
            }
            for k in first..first + count {
                let o = &u.octaves[k as usize];
                octave_positions(o, &scratch.mapped, warped, &mut scratch.local);
                let l = &scratch.local;
                let pts = SamplePoints {
                    cell: o.cell,
                    cells: None,
                    local: [&l[0], &l[1], &l[2], &l[3]],
                    seed: o.seed,
                    period: o.period,
                };
                scratch.grad.resize(n);
                (samplers.points)(&pts, &mut scratch.grad);
                for (i, texel) in line.iter_mut().enumerate() {
                    let value = scratch.grad.value[i];
                    let nd: [f32; 4] = std::array::from_fn(|a| scratch.grad.d[a][i]);
                    let w = (!displacement.is_empty()).then(|| displaced_at(displacement, i));
                    let g = mapped_octave_gradient(nd, o, &scratch.jacobian[i], w.as_ref());
                    let slope = o.amp * fractal_remap_slope(value, kind);
                    let term = [
                        o.amp * fractal_remap(value, kind),
                        slope * g[0],
                        slope * g[1],
                        slope * g[2],
                    ];
                    for c in 0..4 {
                        texel[c] += term[c];
                    }
                }
            }
            if finalize != 0 {
                let norm = u.scalars[0];
                for texel in line.iter_mut() {
                    *texel = texel.map(|v| v * norm);
                }
            }
        },
    );
}
