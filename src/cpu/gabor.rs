//! Sparse Gabor noise. Twin of `shaders/gabor.wgsl` (see there for the construction).

use super::hash::{hash_2d, hash_3d, hash_to_signed, hash_to_unit, pcg, wrap_cell};
use super::turns::{cos_turns, sin_turns};

/// Upper bound on the impulses summed per cell.
pub const GABOR_MAX_IMPULSES: u32 = 256;

/// The uniform vectors of the kernel: k0 = (f0, pi a^2, cutoff, 1 / (1 - cutoff)),
/// k1 = (radius, exp(-lambda), output scale, 0), dir = anisotropic direction.
#[derive(Debug, Clone, Copy)]
pub struct GaborKernel {
    /// (f0, pi a^2, cutoff, 1 / (1 - cutoff)).
    pub k0: [f32; 4],
    /// (radius, exp(-lambda), output scale, 0).
    pub k1: [f32; 4],
    /// Anisotropic kernel direction.
    pub dir: [f32; 4],
}

#[inline(always)]
fn gabor_direction_2d(state: &mut u32, dir: [f32; 4], isotropic: bool) -> [f32; 2] {
    if !isotropic {
        return [dir[0], dir[1]];
    }
    *state = pcg(*state);
    let a = hash_to_unit(*state);
    [cos_turns(a), sin_turns(a)]
}

#[inline(always)]
fn gabor_direction_3d(state: &mut u32, dir: [f32; 4], isotropic: bool) -> [f32; 3] {
    if !isotropic {
        return [dir[0], dir[1], dir[2]];
    }
    *state = pcg(*state);
    let z = hash_to_signed(*state);
    *state = pcg(*state);
    let a = hash_to_unit(*state);
    let r = (1.0 - z * z).max(0.0).sqrt();
    [r * cos_turns(a), r * sin_turns(a), z]
}

/// Complex sum (cos part, sin part) of the impulses of one cell at `pos` (relative to its corner).
pub fn gabor_cell_2d(
    h: u32,
    pos: [f32; 2],
    k: &GaborKernel,
    isotropic: bool,
    complex: bool,
) -> [f32; 2] {
    let (k0, k1) = (k.k0, k.k1);
    let mut state = h;
    let mut product = 1.0f32;
    let mut sum = [0.0f32; 2];
    let radius2 = k1[0] * k1[0];
    for _ in 0..GABOR_MAX_IMPULSES {
        state = pcg(state);
        product *= hash_to_unit(state);
        if product < k1[1] {
            break;
        }
        state = pcg(state);
        let px = hash_to_unit(state);
        state = pcg(state);
        let py = hash_to_unit(state);
        state = pcg(state);
        let w = hash_to_signed(state);
        let u = gabor_direction_2d(&mut state, k.dir, isotropic);
        let d = [pos[0] - px, pos[1] - py];
        let r2 = d[0] * d[0] + d[1] * d[1];
        if r2 < radius2 {
            let env = w * ((-k0[1] * r2).exp() - k0[2]) * k0[3];
            let t = k0[0] * (u[0] * d[0] + u[1] * d[1]);
            sum[0] += env * cos_turns(t);
            if complex {
                sum[1] += env * sin_turns(t);
            }
        }
    }
    sum
}

/// CPU twin of `gabor_cell_3d` in shaders/gabor.wgsl: the impulses of one cell summed at the sample.
pub fn gabor_cell_3d(
    h: u32,
    pos: [f32; 3],
    k: &GaborKernel,
    isotropic: bool,
    complex: bool,
) -> [f32; 2] {
    let (k0, k1) = (k.k0, k.k1);
    let mut state = h;
    let mut product = 1.0f32;
    let mut sum = [0.0f32; 2];
    let radius2 = k1[0] * k1[0];
    for _ in 0..GABOR_MAX_IMPULSES {
        state = pcg(state);
        product *= hash_to_unit(state);
        if product < k1[1] {
            break;
        }
        state = pcg(state);
        let px = hash_to_unit(state);
        state = pcg(state);
        let py = hash_to_unit(state);
        state = pcg(state);
        let pz = hash_to_unit(state);
        state = pcg(state);
        let w = hash_to_signed(state);
        let u = gabor_direction_3d(&mut state, k.dir, isotropic);
        let d = [pos[0] - px, pos[1] - py, pos[2] - pz];
        let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if r2 < radius2 {
            let env = w * ((-k0[1] * r2).exp() - k0[2]) * k0[3];
            let t = k0[0] * (u[0] * d[0] + u[1] * d[1] + u[2] * d[2]);
            sum[0] += env * cos_turns(t);
            if complex {
                sum[1] += env * sin_turns(t);
            }
        }
    }
    sum
}

/// The complex Gabor sum at a sample: every cell the truncation disk touches.
pub fn gabor_sum_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    k: &GaborKernel,
    isotropic: bool,
    complex: bool,
) -> [f32; 2] {
    let fl = local.map(super::floor);
    let base = [0, 1].map(|a| cell[a].wrapping_add(super::to_i32(fl[a])));
    let f = [local[0] - fl[0], local[1] - fl[1]];
    let r = k.k1[0];
    let lo = f.map(|v| super::to_i32(super::floor(v - r)));
    let hi = f.map(|v| super::to_i32(super::floor(v + r)));
    let mut sum = [0.0f32; 2];
    for oy in lo[1]..=hi[1] {
        for ox in lo[0]..=hi[0] {
            let c = [base[0].wrapping_add(ox), base[1].wrapping_add(oy)];
            let h = hash_2d(
                [wrap_cell(c[0], period[0]), wrap_cell(c[1], period[1])],
                seed_h,
            );
            let s = gabor_cell_2d(
                h,
                [f[0] - ox as f32, f[1] - oy as f32],
                k,
                isotropic,
                complex,
            );
            sum[0] += s[0];
            sum[1] += s[1];
        }
    }
    sum
}

/// CPU twin of `gabor_sum_3d` in shaders/gabor.wgsl: the sum over the cells around the sample.
pub fn gabor_sum_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    k: &GaborKernel,
    isotropic: bool,
    complex: bool,
) -> [f32; 2] {
    let fl = local.map(super::floor);
    let base = [0, 1, 2].map(|a| cell[a].wrapping_add(super::to_i32(fl[a])));
    let f = [0, 1, 2].map(|a| local[a] - fl[a]);
    let r = k.k1[0];
    let lo = f.map(|v| super::to_i32(super::floor(v - r)));
    let hi = f.map(|v| super::to_i32(super::floor(v + r)));
    let mut sum = [0.0f32; 2];
    for oz in lo[2]..=hi[2] {
        for oy in lo[1]..=hi[1] {
            for ox in lo[0]..=hi[0] {
                let o = [ox, oy, oz];
                let c = [0, 1, 2].map(|a| wrap_cell(base[a].wrapping_add(o[a]), period[a]));
                let h = hash_3d(c, seed_h);
                let pos = [0, 1, 2].map(|a| f[a] - o[a] as f32);
                let s = gabor_cell_3d(h, pos, k, isotropic, complex);
                sum[0] += s[0];
                sum[1] += s[1];
            }
        }
    }
    sum
}

/// CPU twin of `gabor_2d` in shaders/gabor.wgsl.
pub fn gabor_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    k: &GaborKernel,
    isotropic: bool,
) -> f32 {
    gabor_sum_2d(cell, local, seed_h, period, k, isotropic, false)[0] * k.k1[2]
}

/// CPU twin of `gabor_3d` in shaders/gabor.wgsl.
pub fn gabor_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    k: &GaborKernel,
    isotropic: bool,
) -> f32 {
    gabor_sum_3d(cell, local, seed_h, period, k, isotropic, false)[0] * k.k1[2]
}
