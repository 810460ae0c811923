//! The fast CPU rows: loops written with AVX-512 intrinsics (value 2D, Perlin 2D and 3D,
//! simplex 2D rows; the fused 2D Perlin points loop of point queries), and the row samplers
//! that choose them where the CPU and the row allow, else the twins' own vectorized rows.
//! Every one gives the twins' bits (`crate::twin`).

#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
pub(crate) mod avx512_points;
pub mod rows;
