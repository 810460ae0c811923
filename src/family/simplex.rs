use std::sync::Arc;

use super::{
    split_skewed, xy, xyz, Family, FamilyParams, FamilyUniforms, GradPointsSampler, GradRowSampler,
    GradSampler, PointsSampler, RowSampler, SamplePoints, SampleRow, Sampler,
};
use crate::cpu::simplex::{
    simplex_2d, simplex_2d_row, simplex_3d, simplex_3d_row, simplex_4d, simplex_grad_at,
    simplex_grad_points, simplex_grad_row, simplex_points,
};

pub struct Simplex;

/// Skew and unskew factors: (sqrt(n+1) - 1) / n and (n + 1 - sqrt(n+1)) / (n (n+1)).
pub fn simplex_factors(dims: u32) -> (f64, f64) {
    let n = dims as f64;
    let r = (n + 1.0).sqrt();
    ((r - 1.0) / n, (n + 1.0 - r) / (n * (n + 1.0)))
}

impl Family for Simplex {
    fn name(&self) -> &'static str {
        "simplex"
    }
    fn summary(&self) -> &'static str {
        "simplex gradient noise (Perlin 2001) in 2D, 3D, 4D: d+1 corners with radial falloff; range [-1, 1]"
    }
    fn dims(&self) -> &'static [u32] {
        &[2, 3, 4]
    }
    fn range(&self, _dims: u32, _params: &FamilyParams) -> (f32, f32) {
        (-1.0, 1.0)
    }
    fn shader_files(&self) -> &'static [&'static str] {
        &["perlin.wgsl", "simplex.wgsl"]
    }
    fn wgsl_call(&self, dims: u32, _params: &FamilyParams) -> String {
        match dims {
            2 => "simplex_2d(cell.xy, local.xy, seed)".into(),
            3 => "simplex_3d(cell.xyz, local.xyz, seed)".into(),
            _ => "simplex_4d(cell, local, seed)".into(),
        }
    }
    fn cpu_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Sampler {
        match dims {
            2 => Box::new(|s| simplex_2d(xy(s.cell), xy(s.local), s.seed)),
            3 => Box::new(|s| simplex_3d(xyz(s.cell), xyz(s.local), s.seed)),
            _ => Box::new(|s| simplex_4d(s.cell, s.local, s.seed)),
        }
    }
    fn split_origin(&self, dims: u32, p: [f64; 4], _period: [i32; 4]) -> ([i32; 4], [f32; 4]) {
        let (skew, unskew) = simplex_factors(dims);
        split_skewed(dims, p, skew, unskew)
    }
    fn cpu_row_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<RowSampler> {
        match dims {
            2 => Some(Box::new(|row: &SampleRow, out: &mut [f32]| {
                simplex_2d_row(row, out)
            })),
            3 => Some(Box::new(|row: &SampleRow, out: &mut [f32]| {
                simplex_3d_row(row, out)
            })),
            _ => None,
        }
    }
    fn cpu_points_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<PointsSampler> {
        match dims {
            2 | 3 => Some(Box::new(move |pts: &SamplePoints, out: &mut [f32]| {
                simplex_points(dims, pts, out)
            })),
            _ => None,
        }
    }
    /// 2D and 3D only: 4D has no gradient variant.
    fn wgsl_grad_call(&self, dims: u32, _params: &FamilyParams) -> Option<String> {
        match dims {
            2 => Some("noise_grad_xyz(simplex_2d_grad(cell.xy, local.xy, seed))".into()),
            3 => Some("noise_grad_xyz(simplex_3d_grad(cell.xyz, local.xyz, seed))".into()),
            _ => None,
        }
    }
    fn cpu_grad_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Option<GradSampler> {
        (dims <= 3).then(|| -> GradSampler { Box::new(move |s| simplex_grad_at(dims, s)) })
    }
    fn cpu_grad_row_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradRowSampler> {
        (dims <= 3).then(|| -> GradRowSampler {
            Box::new(move |row, out| simplex_grad_row(dims, row, out))
        })
    }
    fn cpu_grad_points_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradPointsSampler> {
        (dims <= 3).then(|| -> GradPointsSampler {
            Box::new(move |pts, out| simplex_grad_points(dims, pts, out))
        })
    }
}
