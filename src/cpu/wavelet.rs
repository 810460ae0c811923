//! Wavelet noise: quadratic B-spline reconstruction of a band-pass tile. Twin of
//! `shaders/wavelet.wgsl` (the tile itself is built in `src/family/wavelet.rs`).

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

/// CPU twin of `wavelet_2d` in shaders/wavelet.wgsl.
pub fn wavelet_2d(cell: [i32; 2], local: [f32; 2], seed_h: u32, n: u32, aux: &[f32]) -> f32 {
    let mask = n - 1;
    let shift = wavelet_shift(seed_h);
    let base = [0, 1].map(|a| {
        (cell[a].wrapping_add((local[a] - 0.5).ceil() as i32) as u32)
            .wrapping_add(shift[a])
            .wrapping_sub(1)
    });
    let wx = wavelet_weights(local[0]);
    let wy = wavelet_weights(local[1]);
    let mut sum = 0.0f32;
    for (j, wyj) in wy.iter().enumerate() {
        let row = (base[1].wrapping_add(j as u32) & mask) * n;
        let mut line = 0.0f32;
        for (i, wxi) in wx.iter().enumerate() {
            line += wxi * aux[(row + (base[0].wrapping_add(i as u32) & mask)) as usize];
        }
        sum += wyj * line;
    }
    sum
}

/// CPU twin of `wavelet_3d` in shaders/wavelet.wgsl.
pub fn wavelet_3d(cell: [i32; 3], local: [f32; 3], seed_h: u32, n: u32, aux: &[f32]) -> f32 {
    let mask = n - 1;
    let shift = wavelet_shift(seed_h);
    let base = [0, 1, 2].map(|a| {
        (cell[a].wrapping_add((local[a] - 0.5).ceil() as i32) as u32)
            .wrapping_add(shift[a])
            .wrapping_sub(1)
    });
    let wx = wavelet_weights(local[0]);
    let wy = wavelet_weights(local[1]);
    let wz = wavelet_weights(local[2]);
    let mut sum = 0.0f32;
    for (k, wzk) in wz.iter().enumerate() {
        let slab = (base[2].wrapping_add(k as u32) & mask) * n;
        let mut plane = 0.0f32;
        for (j, wyj) in wy.iter().enumerate() {
            let row = (slab + (base[1].wrapping_add(j as u32) & mask)) * n;
            let mut line = 0.0f32;
            for (i, wxi) in wx.iter().enumerate() {
                line += wxi * aux[(row + (base[0].wrapping_add(i as u32) & mask)) as usize];
            }
            plane += wyj * line;
        }
        sum += wzk * plane;
    }
    sum
}
