use std::sync::Arc;

use super::{
    xy, xyz, Family, FamilyParams, FamilyUniforms, GradPointsSampler, GradRowSampler, GradSampler,
    ParamSpec, Sampler, FADE_PARAM,
};
use super::{PointsSampler, RowSampler, SamplePoints, SampleRow};
use crate::cpu::rows::value_2d_row;
use crate::twin::value::{
    value_2d, value_3d, value_3d_row, value_grad_at, value_grad_points, value_grad_row,
    value_points,
};

pub struct Value;

impl Family for Value {
    fn name(&self) -> &'static str {
        "value"
    }
    fn summary(&self) -> &'static str {
        "hashed heights at lattice corners, blended by a fade curve; range [-1, 1]"
    }
    fn dims(&self) -> &'static [u32] {
        &[2, 3]
    }
    fn params(&self) -> &'static [ParamSpec] {
        &[FADE_PARAM]
    }
    fn supports_period(&self) -> bool {
        true
    }
    fn range(&self, _dims: u32, _params: &FamilyParams) -> (f32, f32) {
        (-1.0, 1.0)
    }
    fn shader_files(&self) -> &'static [&'static str] {
        &["value.wgsl"]
    }
    fn wgsl_call(&self, dims: u32, params: &FamilyParams) -> String {
        let fade = params.choice("fade");
        match dims {
            2 => format!("value_2d(cell.xy, local.xy, seed, period.xy, {fade}u)"),
            _ => format!("value_3d(cell.xyz, local.xyz, seed, period.xyz, {fade}u)"),
        }
    }
    fn cpu_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Sampler {
        let fade = params.choice("fade");
        match dims {
            2 => Box::new(move |s| value_2d(xy(s.cell), xy(s.local), s.seed, xy(s.period), fade)),
            _ => {
                Box::new(move |s| value_3d(xyz(s.cell), xyz(s.local), s.seed, xyz(s.period), fade))
            }
        }
    }
    fn cpu_row_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<RowSampler> {
        let fade = params.choice("fade");
        Some(match dims {
            2 => Box::new(move |row: &SampleRow, out: &mut [f32]| value_2d_row(row, fade, out)),
            _ => Box::new(move |row: &SampleRow, out: &mut [f32]| value_3d_row(row, fade, out)),
        })
    }
    fn cpu_points_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<PointsSampler> {
        let fade = params.choice("fade");
        Some(Box::new(move |pts: &SamplePoints, out: &mut [f32]| {
            value_points(dims, pts, fade, out)
        }))
    }
    fn wgsl_grad_call(&self, dims: u32, params: &FamilyParams) -> Option<String> {
        let fade = params.choice("fade");
        Some(match dims {
            2 => format!(
                "noise_grad_xyz(value_2d_grad(cell.xy, local.xy, seed, period.xy, {fade}u))"
            ),
            _ => format!(
                "noise_grad_xyz(value_3d_grad(cell.xyz, local.xyz, seed, period.xyz, {fade}u))"
            ),
        })
    }
    fn cpu_grad_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Option<GradSampler> {
        let fade = params.choice("fade");
        Some(Box::new(move |s| value_grad_at(dims, s, fade)))
    }
    fn cpu_grad_row_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradRowSampler> {
        let fade = params.choice("fade");
        Some(Box::new(move |row, out| {
            value_grad_row(dims, row, fade, out)
        }))
    }
    fn cpu_grad_points_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradPointsSampler> {
        let fade = params.choice("fade");
        Some(Box::new(move |pts, out| {
            value_grad_points(dims, pts, fade, out)
        }))
    }
}
