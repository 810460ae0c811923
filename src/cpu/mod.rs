//! The CPU reference path: one plain-Rust twin per WGSL file, with the same function names,
//! constants and order of operations, so the GPU output can be checked against it.

pub mod analytic_normal;
pub mod cellular;
pub mod combine;
pub mod fade;
pub mod gabor;
pub mod hash;
pub mod normal_map;
pub mod opensimplex2;
pub mod perlin;
pub mod phasor;
pub mod simplex;
pub mod stage;
pub mod turns;
pub mod value;
pub mod wave;
pub mod wavelet;

/// WGSL's `floor` for the twins. `f32::floor` is a libm call on baseline x86-64 (no SSE4.1
/// `roundss`), which made it the largest single cost of a CPU sample; this is exact for every
/// finite f32 (values of magnitude 2^23 and above are already integers).
#[inline(always)]
pub fn floor(x: f32) -> f32 {
    if x.is_nan() || x.abs() >= 8_388_608.0 {
        return x;
    }
    let t = x as i32 as f32;
    if t > x {
        t - 1.0
    } else {
        t
    }
}
