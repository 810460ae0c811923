//! Normal map of a height field by central differences. Twin of `shaders/normal_map.wgsl`:
//! same functions, same order of operations (see that file for the surface, frame and
//! border conventions).

#![warn(missing_docs)]

use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;

/// Borders: one-sided differences at the edges.
pub const BORDER_CLAMP: u32 = 0;
/// Borders: the field is tileable and wraps.
pub const BORDER_WRAP: u32 = 1;
/// Output (nx, ny, nz, height), for float formats.
pub const ENCODING_SIGNED: u32 = 0;
/// Output (n * 0.5 + 0.5, 1), for `Rgba8Unorm`.
pub const ENCODING_UNORM: u32 = 1;

/// Uniform data of the normal-map pass (layout of `NormalMapParams` in the shader).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct NormalMapUniform {
    /// Width, height, border code, encoding code.
    pub size: [u32; 4],
    /// Height scale, pixel spacing along x, pixel spacing along y, unused.
    pub scalars: [f32; 4],
}

/// The indices of the left and right neighbours of `x` on an axis of `n` pixels.
#[inline(always)]
pub fn neighbours(x: i32, n: i32, border: u32) -> [i32; 2] {
    if border == BORDER_WRAP {
        return [(x - 1 + n) % n, (x + 1) % n];
    }
    [(x - 1).max(0), (x + 1).min(n - 1)]
}

/// How many pixels the two neighbours are apart (2 inside, 1 at a clamped edge, 0 on a
/// clamped axis of one pixel).
#[inline(always)]
pub fn neighbour_span(x: i32, n: i32, border: u32) -> f32 {
    if border == BORDER_WRAP {
        return 2.0;
    }
    let nb = neighbours(x, n, border);
    (nb[1] - nb[0]) as f32
}

/// The surface slope along one axis: height difference of the neighbours over their distance.
#[inline(always)]
pub fn slope(lo: f32, hi: f32, span_px: f32, spacing: f32, scale: f32) -> f32 {
    if span_px == 0.0 {
        return 0.0;
    }
    scale * (hi - lo) / (span_px * spacing)
}

/// The unit normal `(-gx, -gy, 1) / |...|` of slopes `gx`, `gy`, with the height in `w`
/// (signed encoding) or mapped to `[0, 1]` with `w = 1` (unorm encoding).
#[inline(always)]
pub fn encode_normal(gx: f32, gy: f32, h: f32, encoding: u32) -> [f32; 4] {
    let inv_len = 1.0 / (gx * gx + gy * gy + 1.0).sqrt();
    let nx = -gx * inv_len;
    let ny = -gy * inv_len;
    let nz = inv_len;
    if encoding == ENCODING_UNORM {
        return [nx * 0.5 + 0.5, ny * 0.5 + 0.5, nz * 0.5 + 0.5, 1.0];
    }
    [nx, ny, nz, h]
}

/// Runs the pass over `height` (width x height, x fastest) into `out`, one RGBA per pixel.
pub fn run_normal_map(u: &NormalMapUniform, height: &[f32], out: &mut [[f32; 4]]) {
    let [w, h, border, encoding] = u.size;
    let (w, h) = (w as i32, h as i32);
    let [scale, spacing_x, spacing_y, _] = u.scalars;
    let load = |x: i32, y: i32| height[(y * w + x) as usize];
    out.par_chunks_mut(w as usize)
        .enumerate()
        .for_each(|(y, row)| {
            let y = y as i32;
            for (x, texel) in row.iter_mut().enumerate() {
                let x = x as i32;
                let nx = neighbours(x, w, border);
                let ny = neighbours(y, h, border);
                let gx = slope(
                    load(nx[0], y),
                    load(nx[1], y),
                    neighbour_span(x, w, border),
                    spacing_x,
                    scale,
                );
                let gy = slope(
                    load(x, ny[0]),
                    load(x, ny[1]),
                    neighbour_span(y, h, border),
                    spacing_y,
                    scale,
                );
                *texel = encode_normal(gx, gy, load(x, y), encoding);
            }
        });
}
