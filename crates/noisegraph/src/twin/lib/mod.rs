//! Twins of the shared WGSL files in `shaders/lib/`.

pub mod curve;
pub mod fade;
pub mod grad;
pub mod hash;
pub mod mapping;
pub mod multifractal;
pub mod ops;
pub mod shaping;
pub mod turns;
