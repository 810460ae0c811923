//! Phasor noise. Twin of `shaders/phasor.wgsl`: the angle of the complex Gabor sum through a
//! periodic profile.

use super::gabor::{gabor_sum_2d, gabor_sum_3d, GaborKernel};
use super::turns::{atan2_turns, phase_profile};

/// CPU twin of `phasor_2d` in shaders/phasor.wgsl.
pub fn phasor_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    k: &GaborKernel,
    isotropic: bool,
    profile: u32,
) -> f32 {
    let z = gabor_sum_2d(cell, local, seed_h, period, k, isotropic, true);
    phasor_of_sum(z, profile)
}

/// CPU twin of `phasor_3d` in shaders/phasor.wgsl.
pub fn phasor_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    k: &GaborKernel,
    isotropic: bool,
    profile: u32,
) -> f32 {
    let z = gabor_sum_3d(cell, local, seed_h, period, k, isotropic, true);
    phasor_of_sum(z, profile)
}

/// The phase of the complex Gabor sum `z` through the periodic `profile`.
#[inline(always)]
pub fn phasor_of_sum(z: [f32; 2], profile: u32) -> f32 {
    phase_profile(atan2_turns(z[1], z[0]), profile)
}
