//! The CPU executor of mapped generate stages (a chain below `transform`, `sphere`, `torus`,
//! `cylinder` or `cube_face`) in gradient form: the twin of the stage template run with the
//! prelude's mapped `view_position` and mapped `octave_gradient` (`gpu::assemble_mapping`).
//! Each pixel's f64 position goes through the map as a query's point does
//! (`StagePositions::split_pixels`, `OctaveSplitter::map_points`); a mapped row's positions
//! are not evenly spaced, so every octave goes through the family's points sampler, as a
//! warped row does. The value form is the plain stage executor's (`stage::run_generate`),
//! whose split takes the map.

use rayon::prelude::*;

use super::stage::{DisplaceGradInput, Displaced, GradSamplers};
use crate::graph::position::{PixelLanes, StagePositions};
use crate::graph::{OctaveUniform, StageUniform};
use crate::twin::lib::mapping::mapped_gradient;
use crate::twin::lib::ops::{fractal_remap, fractal_remap_slope};
use crate::twin::sample::GradSamples;

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

/// One pass of a mapped generate stage in gradient form (see `stage::run_generate_grad`):
/// the family's gradient along the mapped position through the map's Jacobian, plus a
/// warp's displacement term, by the chain rule.
pub(crate) fn run_generate_grad_mapped(
    u: &StageUniform,
    positions: &StagePositions,
    samplers: GradSamplers,
    displace: &[DisplaceGradInput],
    acc: Option<&[[f32; 4]]>,
    out: &mut [[f32; 4]],
) {
    let [width, height, _, count] = u.size;
    let [kind, first, finalize, _] = u.mode;
    let width = width as usize;
    out.par_chunks_mut(width).enumerate().for_each_init(
        || {
            (
                PixelLanes::default(),
                GradSamples::default(),
                Vec::<Vec<[f32; 4]>>::new(),
            )
        },
        |(lanes, grad, displacement), (row, line)| {
            let n = line.len();
            let at = row * width;
            let yz = [row % height as usize, row / height as usize];
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
            let warped: Vec<&[f32]> = values.iter().map(Vec::as_slice).collect();
            for (i, texel) in line.iter_mut().enumerate() {
                *texel = acc.map_or([0.0; 4], |a| a[at + i]);
            }
            for k in first..first + count {
                let o = &u.octaves[k as usize];
                let pts = positions.octave_points(o, k, yz, 0..n, &warped, lanes);
                grad.resize(n);
                (samplers.points)(&pts, grad);
                for (i, texel) in line.iter_mut().enumerate() {
                    let value = grad.value[i];
                    let nd: [f32; 4] = std::array::from_fn(|a| grad.d[a][i]);
                    let [j0, j1, j2, _] = lanes.map.jacobian[i];
                    let w = (!displacement.is_empty()).then(|| displaced_at(displacement, i));
                    let g = mapped_octave_gradient(nd, o, &[j0, j1, j2], w.as_ref());
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
