//! Wave noise: a sum of plane waves from a host-computed table. Twin of `shaders/wave.wgsl`
//! (see there for the table layout, the exact fixed-point phase of the lattice offset and the
//! gradient form).

use super::grad::NoiseGrad;
use super::hash::pcg;
use super::turns::{cos_turns, phase_profile_grad, sin_turns, TURN_RADIANS};

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

/// CPU twin of `wave_finish_grad` in shaders/wave.wgsl.
#[inline(always)]
fn wave_finish_grad(
    z: [f32; 2],
    d_re: [f32; 3],
    d_im: [f32; 3],
    amplitude: f32,
    profile: u32,
    use_profile: bool,
) -> NoiseGrad {
    if use_profile {
        return phase_profile_grad(z, d_re, d_im, profile);
    }
    NoiseGrad {
        value: z[0] * amplitude,
        d: [
            d_re[0] * amplitude,
            d_re[1] * amplitude,
            d_re[2] * amplitude,
            0.0,
        ],
    }
}

/// One wave's terms at phase `t` (turns), wave vector `n` (fixed point): the body of the
/// loops of `wave_2d_grad` / `wave_3d_grad`. With `DERIVATIVES = false` (the plain samplers)
/// the same sums and no gradient, and no sine unless a profile needs the sin part: the
/// compiler kept the derivatives of a sampler that discards them (a 1024^2 wave fBm on the
/// CPU took 23% longer).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn wave_add<const DERIVATIVES: bool>(
    t: f32,
    n: [f32; 3],
    use_profile: bool,
    re: &mut f32,
    im: &mut f32,
    d_re: &mut [f32; 3],
    d_im: &mut [f32; 3],
) {
    let cos_t = cos_turns(t);
    *re += cos_t;
    if DERIVATIVES || use_profile {
        let sin_t = sin_turns(t);
        if DERIVATIVES {
            for a in 0..3 {
                d_re[a] -= sin_t * n[a];
            }
        }
        if use_profile {
            *im += sin_t;
            if DERIVATIVES {
                for a in 0..3 {
                    d_im[a] += cos_t * n[a];
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
/// CPU twin of `wave_2d_grad` in shaders/wave.wgsl; `DERIVATIVES`: see `wave_add`.
pub fn wave_2d_grad<const DERIVATIVES: bool>(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    count: u32,
    amplitude: f32,
    profile: u32,
    use_profile: bool,
    aux: &[f32],
) -> NoiseGrad {
    let shift = wave_shift(seed_h);
    let c = [0, 1].map(|a| (cell[a] as u32).wrapping_add(shift[a]));
    let mut re = 0.0f32;
    let mut im = 0.0f32;
    let mut d_re = [0.0f32; 3];
    let mut d_im = [0.0f32; 3];
    for w in aux.chunks_exact(WAVE_TABLE_STRIDE).take(count as usize) {
        let whole = ((w[0] as i32) as u32)
            .wrapping_mul(c[0])
            .wrapping_add(((w[1] as i32) as u32).wrapping_mul(c[1]));
        let t = (whole & WAVE_FRACTION_MASK) as f32 * WAVE_INV_FIXED_ONE
            + w[3]
            + (w[0] * local[0] + w[1] * local[1]) * WAVE_INV_FIXED_ONE;
        wave_add::<DERIVATIVES>(
            t,
            [w[0], w[1], 0.0],
            use_profile,
            &mut re,
            &mut im,
            &mut d_re,
            &mut d_im,
        );
    }
    let scale = TURN_RADIANS * WAVE_INV_FIXED_ONE;
    wave_finish_grad(
        [re, im],
        d_re.map(|v| v * scale),
        d_im.map(|v| v * scale),
        amplitude,
        profile,
        use_profile,
    )
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
/// CPU twin of `wave_3d_grad` in shaders/wave.wgsl; `DERIVATIVES`: see `wave_add`.
pub fn wave_3d_grad<const DERIVATIVES: bool>(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    count: u32,
    amplitude: f32,
    profile: u32,
    use_profile: bool,
    aux: &[f32],
) -> NoiseGrad {
    let shift = wave_shift(seed_h);
    let c = [0, 1, 2].map(|a| (cell[a] as u32).wrapping_add(shift[a]));
    let mut re = 0.0f32;
    let mut im = 0.0f32;
    let mut d_re = [0.0f32; 3];
    let mut d_im = [0.0f32; 3];
    for w in aux.chunks_exact(WAVE_TABLE_STRIDE).take(count as usize) {
        let whole = ((w[0] as i32) as u32)
            .wrapping_mul(c[0])
            .wrapping_add(((w[1] as i32) as u32).wrapping_mul(c[1]))
            .wrapping_add(((w[2] as i32) as u32).wrapping_mul(c[2]));
        let t = (whole & WAVE_FRACTION_MASK) as f32 * WAVE_INV_FIXED_ONE
            + w[3]
            + (w[0] * local[0] + w[1] * local[1] + w[2] * local[2]) * WAVE_INV_FIXED_ONE;
        wave_add::<DERIVATIVES>(
            t,
            [w[0], w[1], w[2]],
            use_profile,
            &mut re,
            &mut im,
            &mut d_re,
            &mut d_im,
        );
    }
    let scale = TURN_RADIANS * WAVE_INV_FIXED_ONE;
    wave_finish_grad(
        [re, im],
        d_re.map(|v| v * scale),
        d_im.map(|v| v * scale),
        amplitude,
        profile,
        use_profile,
    )
}

#[allow(clippy::too_many_arguments)]
/// CPU twin of `wave_2d` in shaders/wave.wgsl: the gradient form's value, its derivatives
/// compiled out.
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
    wave_2d_grad::<false>(
        cell,
        local,
        seed_h,
        count,
        amplitude,
        profile,
        use_profile,
        aux,
    )
    .value
}

#[allow(clippy::too_many_arguments)]
/// CPU twin of `wave_3d` in shaders/wave.wgsl: the gradient form's value, its derivatives
/// compiled out.
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
    wave_3d_grad::<false>(
        cell,
        local,
        seed_h,
        count,
        amplitude,
        profile,
        use_profile,
        aux,
    )
    .value
}
