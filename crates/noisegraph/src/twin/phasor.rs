//! Phasor noise. Twin of `shaders/phasor.wgsl`: the angle of the complex Gabor sum through a
//! periodic profile, and its gradient through the profile's slope.

use super::gabor::{gabor_sum_2d_grad, gabor_sum_3d_grad, GaborKernel};
use super::grad::NoiseGrad;
use super::turns::{atan2_turns, phase_profile, phase_profile_grad};

/// CPU twin of `phasor_2d_grad` in shaders/phasor.wgsl.
#[inline(always)]
pub fn phasor_2d_grad(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    k: &GaborKernel,
    isotropic: bool,
    profile: u32,
) -> NoiseGrad {
    let s = gabor_sum_2d_grad::<true>(cell, local, seed_h, period, k, isotropic, true);
    phase_profile_grad(s.z, s.d_re, s.d_im, profile)
}

/// CPU twin of `phasor_3d_grad` in shaders/phasor.wgsl.
#[inline(always)]
pub fn phasor_3d_grad(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    k: &GaborKernel,
    isotropic: bool,
    profile: u32,
) -> NoiseGrad {
    let s = gabor_sum_3d_grad::<true>(cell, local, seed_h, period, k, isotropic, true);
    phase_profile_grad(s.z, s.d_re, s.d_im, profile)
}

/// CPU twin of `phasor_2d` in shaders/phasor.wgsl: the gradient form's value (its
/// derivatives compiled out, see `gabor_add_impulse`).
pub fn phasor_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    k: &GaborKernel,
    isotropic: bool,
    profile: u32,
) -> f32 {
    let s = gabor_sum_2d_grad::<false>(cell, local, seed_h, period, k, isotropic, true);
    phasor_of_sum(s.z, profile)
}

/// CPU twin of `phasor_3d` in shaders/phasor.wgsl: the gradient form's value (its
/// derivatives compiled out).
pub fn phasor_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    k: &GaborKernel,
    isotropic: bool,
    profile: u32,
) -> f32 {
    let s = gabor_sum_3d_grad::<false>(cell, local, seed_h, period, k, isotropic, true);
    phasor_of_sum(s.z, profile)
}

/// The phase of the complex Gabor sum `z` through the periodic `profile`: the value of
/// `phase_profile_grad`, for the plain samplers, which sum `z` alone.
#[inline(always)]
pub fn phasor_of_sum(z: [f32; 2], profile: u32) -> f32 {
    phase_profile(atan2_turns(z[1], z[0]), profile)
}
