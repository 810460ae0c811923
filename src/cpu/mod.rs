//! The CPU reference path: one plain-Rust twin per WGSL file, with the same function names,
//! constants and order of operations, so the GPU output can be checked against it.

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
