use std::sync::Arc;

use super::{
    split_skewed, xy, xyz, Family, FamilyParams, FamilyUniforms, GradPointsSampler, GradRowSampler,
    GradSampler, Lattice, ParamKind, ParamSpec, PointsSampler, RowSampler, SamplePoints, SampleRow,
    Sampler,
};
use crate::cpu::rows::simplex_2d_row;
use crate::twin::simplex::{
    simplex_2d, simplex_3d, simplex_3d_row, simplex_4d, simplex_4d_grad, simplex_grad_at,
    simplex_grad_points, simplex_grad_row, simplex_points, SIMPLEX_FALLOFF_CONTINUOUS,
};

pub struct Simplex;

const PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "falloff",
    kind: ParamKind::Choice {
        options: &["continuous", "classic"],
        default: "continuous",
    },
    help: "corner kernel radius: continuous (r^2 = 1/2, the simplices' height: no jumps, differentiable) or classic (r^2 = 0.6 in 3D and 4D: jumps up to about 3.4e-3 where the simplex changes; no gradient); 2D is r^2 = 1/2 either way",
}];

/// Skew and unskew factors: (sqrt(n+1) - 1) / n and (n + 1 - sqrt(n+1)) / (n (n+1)).
pub fn simplex_factors(dims: u32) -> (f64, f64) {
    let n = dims as f64;
    let r = (n + 1.0).sqrt();
    ((r - 1.0) / n, (n + 1.0 - r) / (n * (n + 1.0)))
}

/// Whether the node's kernel is the continuous one: 2D always is, 3D and 4D with the
/// default falloff.
fn continuous(dims: u32, params: &FamilyParams) -> bool {
    dims == 2 || params.choice("falloff") == SIMPLEX_FALLOFF_CONTINUOUS
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
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn range(&self, _dims: u32, _params: &FamilyParams) -> (f32, f32) {
        (-1.0, 1.0)
    }
    fn shader_files(&self) -> &'static [&'static str] {
        &["perlin.wgsl", "simplex.wgsl"]
    }
    fn wgsl_call(&self, dims: u32, params: &FamilyParams) -> String {
        let falloff = params.choice("falloff");
        match dims {
            2 => "simplex_2d(cell.xy, local.xy, seed)".into(),
            3 => format!("simplex_3d(cell.xyz, local.xyz, seed, {falloff}u)"),
            _ => format!("simplex_4d(cell, local, seed, {falloff}u)"),
        }
    }
    fn cpu_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Sampler {
        let falloff = params.choice("falloff");
        match dims {
            2 => Box::new(|s| simplex_2d(xy(s.cell), xy(s.local), s.seed)),
            3 => Box::new(move |s| simplex_3d(xyz(s.cell), xyz(s.local), s.seed, falloff)),
            _ => Box::new(move |s| simplex_4d(s.cell, s.local, s.seed, falloff)),
        }
    }
    fn split_origin(&self, dims: u32, p: [f64; 4], _period: [i32; 4]) -> ([i32; 4], [f32; 4]) {
        let (skew, unskew) = simplex_factors(dims);
        split_skewed(dims, p, skew, unskew)
    }
    fn lattice(&self, dims: u32, _params: &FamilyParams) -> Lattice {
        let (skew, unskew) = simplex_factors(dims);
        Lattice::Skewed { skew, unskew }
    }
    fn cpu_row_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<RowSampler> {
        let falloff = params.choice("falloff");
        match dims {
            2 => Some(Box::new(|row: &SampleRow, out: &mut [f32]| {
                simplex_2d_row(row, out)
            })),
            3 => Some(Box::new(move |row: &SampleRow, out: &mut [f32]| {
                simplex_3d_row(row, out, falloff)
            })),
            _ => None,
        }
    }
    fn cpu_points_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<PointsSampler> {
        let falloff = params.choice("falloff");
        match dims {
            2 | 3 => Some(Box::new(move |pts: &SamplePoints, out: &mut [f32]| {
                simplex_points(dims, falloff, pts, out)
            })),
            _ => None,
        }
    }
    /// Every dims with the continuous falloff; the classic one jumps, so it has none.
    fn wgsl_grad_call(&self, dims: u32, params: &FamilyParams) -> Option<String> {
        if !continuous(dims, params) {
            return None;
        }
        match dims {
            2 => Some("noise_grad_xyz(simplex_2d_grad(cell.xy, local.xy, seed))".into()),
            3 => Some("noise_grad_xyz(simplex_3d_grad(cell.xyz, local.xyz, seed))".into()),
            _ => Some(format!(
                "simplex_4d_grad(cell, local, seed, {SIMPLEX_FALLOFF_CONTINUOUS}u)"
            )),
        }
    }
    fn cpu_grad_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Option<GradSampler> {
        if !continuous(dims, params) {
            return None;
        }
        match dims {
            2 | 3 => Some(Box::new(move |s| simplex_grad_at(dims, s))),
            _ => Some(Box::new(|s| {
                simplex_4d_grad(s.cell, s.local, s.seed, SIMPLEX_FALLOFF_CONTINUOUS)
            })),
        }
    }
    /// 2D and 3D (the continuous falloff): vectorized rows; 4D samples point by point.
    fn cpu_grad_row_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradRowSampler> {
        (dims <= 3 && continuous(dims, params)).then(|| -> GradRowSampler {
            Box::new(move |row, out| simplex_grad_row(dims, row, out))
        })
    }
    fn cpu_grad_points_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradPointsSampler> {
        (dims <= 3 && continuous(dims, params)).then(|| -> GradPointsSampler {
            Box::new(move |pts, out| simplex_grad_points(dims, pts, out))
        })
    }
    fn no_gradient_reason(&self, dims: u32, params: &FamilyParams) -> String {
        if continuous(dims, params) {
            return format!("family 'simplex' has no gradient variant in {dims}D");
        }
        "simplex with falloff 'classic' (r^2 = 0.6) jumps where the simplex changes, so it has \
         no gradient (the default falloff 'continuous' has one)"
            .into()
    }
}
