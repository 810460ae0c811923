//! Wave noise: a sum of plane waves from a host-computed table. Twin of `shaders/wave.wgsl`
//! (see there for the table layout and the exact fixed-point phase of the lattice offset).

use super::hash::pcg;
use super::turns::{atan2_turns, cos_turns, phase_profile, sin_turns};

/// 1 / 65536, exact: a multiply by it equals a divide by 65536.
pub const WAVE_INV_FIXED_ONE: f32 = 1.0 / 65536.0;
/// Mask of the 16 fractional bits of a fixed-point phase.
pub const WAVE_FRACTION_MASK: u32 = 0xFFFF;
/// Floats per wave in the host-computed table.
pub const WAVE_TABLE_STRIDE: usize = 4;

#[inline(always)]
/// CPU twin of `wave_shift` in shaders/wave.wgsl: per-seed offset added (wrapping) to the lattice cell.
pub fn wave_shift(seed_h: u32) -> [u32; 3] {
    let s0 = pcg(seed_h.wrapping_add(1));
    let s1 = pcg(s0);
    let s2 = pcg(s1);
    [s0, s1, s2]
}

#[inline(always)]
fn wave_finish(re: f32, im: f32, amplitude: f32, profile: u32, use_profile: bool) -> f32 {
    if use_profile {
        return phase_profile(atan2_turns(im, re), profile);
    }
    re * amplitude
}

#[allow(clippy::too_many_arguments)]
/// CPU twin of `wave_2d` in shaders/wave.wgsl.
pub fn wave_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    count: u32,
    amplitude: f32,
    profile: u32,
    use_profile: bool,
    aux: &[f32],
) -> f32 {
    let shift = wave_shift(seed_h);
    let c = [0, 1].map(|a| (cell[a] as u32).wrapping_add(shift[a]));
    let mut re = 0.0f32;
    let mut im = 0.0f32;
    for w in aux.chunks_exact(WAVE_TABLE_STRIDE).take(count as usize) {
        let whole = ((w[0] as i32) as u32)
            .wrapping_mul(c[0])
            .wrapping_add(((w[1] as i32) as u32).wrapping_mul(c[1]));
        let t = (whole & WAVE_FRACTION_MASK) as f32 * WAVE_INV_FIXED_ONE
            + w[3]
            + (w[0] * local[0] + w[1] * local[1]) * WAVE_INV_FIXED_ONE;
        re += cos_turns(t);
        if use_profile {
            im += sin_turns(t);
        }
    }
    wave_finish(re, im, amplitude, profile, use_profile)
}

#[allow(clippy::too_many_arguments)]
/// CPU twin of `wave_3d` in shaders/wave.wgsl.
pub fn wave_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    count: u32,
    amplitude: f32,
    profile: u32,
    use_profile: bool,
    aux: &[f32],
) -> f32 {
    let shift = wave_shift(seed_h);
    let c = [0, 1, 2].map(|a| (cell[a] as u32).wrapping_add(shift[a]));
    let mut re = 0.0f32;
    let mut im = 0.0f32;
    for w in aux.chunks_exact(WAVE_TABLE_STRIDE).take(count as usize) {
        let whole = ((w[0] as i32) as u32)
            .wrapping_mul(c[0])
            .wrapping_add(((w[1] as i32) as u32).wrapping_mul(c[1]))
            .wrapping_add(((w[2] as i32) as u32).wrapping_mul(c[2]));
        let t = (whole & WAVE_FRACTION_MASK) as f32 * WAVE_INV_FIXED_ONE
            + w[3]
            + (w[0] * local[0] + w[1] * local[1] + w[2] * local[2]) * WAVE_INV_FIXED_ONE;
        re += cos_turns(t);
        if use_profile {
            im += sin_turns(t);
        }
    }
    wave_finish(re, im, amplitude, profile, use_profile)
}
