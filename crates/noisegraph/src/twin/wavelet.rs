//! Wavelet noise: quadratic B-spline reconstruction of a band-pass tile. Twin of
//! `shaders/wavelet.wgsl` (the tile itself is built in `src/family/wavelet.rs`), with its
//! gradient form: the same sums with one axis's weights replaced by their slopes.

use super::grad::NoiseGrad;
use super::hash::pcg;

#[inline(always)]
/// CPU twin of `wavelet_shift` in shaders/wavelet.wgsl: per-seed offset added (wrapping) to the tile cell.
pub fn wavelet_shift(seed_h: u32) -> [u32; 3] {
    let s0 = pcg(seed_h.wrapping_add(2));
    let s1 = pcg(s0);
    let s2 = pcg(s1);
    [s0, s1, s2]
}

/// Quadratic B-spline weights of coefficients mid - 1, mid, mid + 1, with mid = ceil(p - 1/2).
#[inline(always)]
pub fn wavelet_weights(p: f32) -> [f32; 3] {
    let mid = (p - 0.5).ceil();
    let t = mid - (p - 0.5);
    let w0 = t * t * 0.5;
    let w2 = (1.0 - t) * (1.0 - t) * 0.5;
    [w0, 1.0 - w0 - w2, w2]
}

/// CPU twin of `wavelet_weight_slopes` in shaders/wavelet.wgsl: d [`wavelet_weights`] / dp.
#[inline(always)]
pub fn wavelet_weight_slopes(p: f32) -> [f32; 3] {
    let mid = (p - 0.5).ceil();
    let t = mid - (p - 0.5);
    [-t, 2.0 * t - 1.0, 1.0 - t]
}

/// The tile index of coefficient `i` from `base` on each axis: the base cells of
/// `wavelet_2d_grad` / `wavelet_3d_grad`.
#[inline(always)]
fn wavelet_base<const N: usize>(cell: [i32; N], local: [f32; N], seed_h: u32) -> [u32; N] {
    let shift = wavelet_shift(seed_h);
    std::array::from_fn(|a| {
        (cell[a].wrapping_add((local[a] - 0.5).ceil() as i32) as u32)
            .wrapping_add(shift[a])
            .wrapping_sub(1)
    })
}

/// CPU twin of `wavelet_2d_grad` in shaders/wavelet.wgsl.
#[inline(always)]
pub fn wavelet_2d_grad(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    n: u32,
    aux: &[f32],
) -> NoiseGrad {
    let mask = n - 1;
    let base = wavelet_base(cell, local, seed_h);
    let wx = wavelet_weights(local[0]);
    let wy = wavelet_weights(local[1]);
    let sx = wavelet_weight_slopes(local[0]);
    let sy = wavelet_weight_slopes(local[1]);
    let (mut sum, mut dx, mut dy) = (0.0f32, 0.0f32, 0.0f32);
    for j in 0..3 {
        let row = (base[1].wrapping_add(j as u32) & mask) * n;
        let (mut line, mut line_dx) = (0.0f32, 0.0f32);
        for i in 0..3 {
            let c = aux[(row + (base[0].wrapping_add(i as u32) & mask)) as usize];
            line += wx[i] * c;
            line_dx += sx[i] * c;
        }
        sum += wy[j] * line;
        dx += wy[j] * line_dx;
        dy += sy[j] * line;
    }
    NoiseGrad {
        value: sum,
        d: [dx, dy, 0.0, 0.0],
    }
}

/// CPU twin of `wavelet_3d_grad` in shaders/wavelet.wgsl.
#[inline(always)]
pub fn wavelet_3d_grad(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    n: u32,
    aux: &[f32],
) -> NoiseGrad {
    let mask = n - 1;
    let base = wavelet_base(cell, local, seed_h);
    let [wx, wy, wz] = local.map(wavelet_weights);
    let [sx, sy, sz] = local.map(wavelet_weight_slopes);
    let mut sum = 0.0f32;
    let mut d = [0.0f32; 3];
    for k in 0..3 {
        let slab = (base[2].wrapping_add(k as u32) & mask) * n;
        let (mut plane, mut plane_dx, mut plane_dy) = (0.0f32, 0.0f32, 0.0f32);
        for j in 0..3 {
            let row = (slab + (base[1].wrapping_add(j as u32) & mask)) * n;
            let (mut line, mut line_dx) = (0.0f32, 0.0f32);
            for i in 0..3 {
                let c = aux[(row + (base[0].wrapping_add(i as u32) & mask)) as usize];
                line += wx[i] * c;
                line_dx += sx[i] * c;
            }
            plane += wy[j] * line;
            plane_dx += wy[j] * line_dx;
            plane_dy += sy[j] * line;
        }
        sum += wz[k] * plane;
        d[0] += wz[k] * plane_dx;
        d[1] += wz[k] * plane_dy;
        d[2] += sz[k] * plane;
    }
    NoiseGrad {
        value: sum,
        d: [d[0], d[1], d[2], 0.0],
    }
}

/// CPU twin of `wavelet_2d` in shaders/wavelet.wgsl: the gradient form's value.
pub fn wavelet_2d(cell: [i32; 2], local: [f32; 2], seed_h: u32, n: u32, aux: &[f32]) -> f32 {
    wavelet_2d_grad(cell, local, seed_h, n, aux).value
}

/// CPU twin of `wavelet_3d` in shaders/wavelet.wgsl: the gradient form's value.
pub fn wavelet_3d(cell: [i32; 3], local: [f32; 3], seed_h: u32, n: u32, aux: &[f32]) -> f32 {
    wavelet_3d_grad(cell, local, seed_h, n, aux).value
}
