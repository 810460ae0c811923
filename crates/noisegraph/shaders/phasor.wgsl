// Phasor noise (Tricard, Efremov, Zanni, Neyret, Martinez, Lefebvre 2019). Twin: src/cpu/phasor.rs.
//
// The impulses of gabor.wgsl summed as complex values; the angle of the sum is a phase field
// whose gradient follows the kernels' frequency, and a periodic profile of that phase gives
// the output, in [-1, 1] whatever the local amplitude of the sum (the contrast Gabor noise
// loses where kernels cancel). The phase is undefined where the sum vanishes (singular points).
// Gradient form: the phase's gradient from those of the sum's parts through the profile's
// slope (phase_profile_grad in lib/turns.wgsl); the plain functions take its value.

fn phasor_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, profile: u32) -> NoiseGrad {
    let s = gabor_sum_2d_grad(cell, local, seed_h, period, k0, k1, dir, isotropic, true);
    return phase_profile_grad(s.z, s.d_re, s.d_im, profile);
}

fn phasor_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, profile: u32) -> NoiseGrad {
    let s = gabor_sum_3d_grad(cell, local, seed_h, period, k0, k1, dir, isotropic, true);
    return phase_profile_grad(s.z, s.d_re, s.d_im, profile);
}

fn phasor_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, profile: u32) -> f32 {
    return phasor_2d_grad(cell, local, seed_h, period, k0, k1, dir, isotropic, profile).value;
}

fn phasor_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, profile: u32) -> f32 {
    return phasor_3d_grad(cell, local, seed_h, period, k0, k1, dir, isotropic, profile).value;
}
