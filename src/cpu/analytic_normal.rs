//! Normal map from a generator chain's analytic gradient. Twin of
//! `shaders/analytic_normal.wgsl` (see that file for the chain rule, the remap slopes and the
//! surface convention, which is `shaders/normal_map.wgsl`'s).

use rayon::prelude::*;

use super::normal_map::{encode_normal, NormalMapUniform};
use super::sample::{GradSampler, SamplePoint};
use super::stage::{fractal_remap, FRACTAL_BILLOW, FRACTAL_RIDGED};
use crate::graph::StageUniform;

/// CPU twin of `fractal_remap_slope` in shaders/analytic_normal.wgsl: d fractal_remap(n) / dn,
/// taken as 0 on the kink of ridged and billow at n = 0.
#[inline(always)]
pub fn fractal_remap_slope(n: f32, kind: u32) -> f32 {
    // Not f32::signum, which is 1 at +0 where WGSL's sign is 0.
    let sign_n = if n < 0.0 {
        -1.0
    } else if n > 0.0 {
        1.0
    } else {
        0.0
    };
    if kind == FRACTAL_RIDGED {
        return -2.0 * (1.0 - n.abs()) * sign_n;
    }
    if kind == FRACTAL_BILLOW {
        return 2.0 * sign_n;
    }
    1.0
}

/// Runs the pass (the twin of its `main`): every octave of the chain `u` (one pass) at each
/// pixel of a `width x height` image (x fastest), one encoded normal per pixel into `out`.
pub fn run_analytic_normal(
    u: &StageUniform,
    normal: &NormalMapUniform,
    sample: &GradSampler,
    out: &mut [[f32; 4]],
) {
    let width = u.size[0] as usize;
    let kind = u.mode[0];
    let count = u.size[3];
    let norm = u.scalars[0];
    let [scale, spacing_x, spacing_y, _] = normal.scalars;
    let encoding = normal.size[3];
    let [ox, oy, oz, _] = u.pixel_offset;
    out.par_chunks_mut(width)
        .enumerate()
        .for_each(|(row, line)| {
            let y = (row as u32 + oy) as f32;
            for (x, texel) in line.iter_mut().enumerate() {
                let pix = [(x as u32 + ox) as f32, y, oz as f32, 0.0];
                let mut sum = 0.0f32;
                let mut grad = [0.0f32; 2];
                for k in 0..count {
                    let o = &u.octaves[k as usize];
                    let local: [f32; 4] = std::array::from_fn(|a| o.local[a] + pix[a] * o.step[a]);
                    let n = sample(&SamplePoint {
                        cell: o.cell,
                        local,
                        seed: o.seed,
                        period: o.period,
                    });
                    sum += o.amp * fractal_remap(n.value, kind);
                    let slope = o.amp * fractal_remap_slope(n.value, kind);
                    grad[0] += slope * (n.d[0] * o.step[0]);
                    grad[1] += slope * (n.d[1] * o.step[1]);
                }
                sum *= norm;
                let grad = grad.map(|g| g * norm);
                let gx = scale * grad[0] / spacing_x;
                let gy = scale * grad[1] / spacing_y;
                *texel = encode_normal(gx, gy, sum, encoding);
            }
        });
}
