use std::sync::Arc;

use super::{
    xy, xyz, Family, FamilyParams, FamilyUniforms, GradSampler, ParamKind, ParamSpec, Sampler,
    FADE_PARAM,
};
use super::{
    GradPointsSampler, GradRowSampler, PointsSampler, RowSampler, SamplePoints, SampleRow,
};
use crate::cpu::rows::{perlin_2d_row, perlin_3d_row};
use crate::twin::perlin::{
    perlin_2d, perlin_3d, perlin_grad_at, perlin_grad_points, perlin_grad_row, perlin_points,
};

pub struct Perlin;

const PARAMS: &[ParamSpec] = &[
    FADE_PARAM,
    ParamSpec {
        name: "gradients",
        kind: ParamKind::Choice {
            options: &["improved", "random"],
            default: "improved",
        },
        help: "improved: 8 unit directions at 22.5 + k*45 degrees in 2D, the 12 cube edges in 3D (Perlin 2002); random: hashed unit vectors (1985)",
    },
];

impl Family for Perlin {
    fn name(&self) -> &'static str {
        "perlin"
    }
    fn summary(&self) -> &'static str {
        "gradient noise, zero at lattice points; range +-sqrt(dims)/2 (+-0.7072 in 2D, +-0.8661 in 3D)"
    }
    fn dims(&self) -> &'static [u32] {
        &[2, 3]
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn supports_period(&self) -> bool {
        true
    }
    fn range(&self, dims: u32, _params: &FamilyParams) -> (f32, f32) {
        let r = (dims as f32).sqrt() * 0.5 + 1e-4;
        (-r, r)
    }
    fn shader_files(&self) -> &'static [&'static str] {
        &["perlin.wgsl"]
    }
    fn wgsl_call(&self, dims: u32, params: &FamilyParams) -> String {
        let fade = params.choice("fade");
        let grads = params.choice("gradients");
        match dims {
            2 => format!("perlin_2d(cell.xy, local.xy, seed, period.xy, {fade}u, {grads}u)"),
            _ => format!("perlin_3d(cell.xyz, local.xyz, seed, period.xyz, {fade}u, {grads}u)"),
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
        let grads = params.choice("gradients");
        match dims {
            2 => Box::new(move |s| {
                perlin_2d(xy(s.cell), xy(s.local), s.seed, xy(s.period), fade, grads)
            }),
            _ => Box::new(move |s| {
                perlin_3d(
                    xyz(s.cell),
                    xyz(s.local),
                    s.seed,
                    xyz(s.period),
                    fade,
                    grads,
                )
            }),
        }
    }
    fn cpu_row_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<RowSampler> {
        let fade = params.choice("fade");
        let grads = params.choice("gradients");
        Some(match dims {
            2 => Box::new(move |row: &SampleRow, out: &mut [f32]| {
                perlin_2d_row(row, fade, grads, out)
            }),
            _ => Box::new(move |row: &SampleRow, out: &mut [f32]| {
                perlin_3d_row(row, fade, grads, out)
            }),
        })
    }
    fn cpu_points_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<PointsSampler> {
        let fade = params.choice("fade");
        let grads = params.choice("gradients");
        Some(Box::new(move |pts: &SamplePoints, out: &mut [f32]| {
            perlin_points(dims, pts, fade, grads, out)
        }))
    }
    fn wgsl_grad_call(&self, dims: u32, params: &FamilyParams) -> Option<String> {
        let fade = params.choice("fade");
        let grads = params.choice("gradients");
        Some(match dims {
            2 => format!("noise_grad_xyz(perlin_2d_grad(cell.xy, local.xy, seed, period.xy, {fade}u, {grads}u))"),
            _ => {
                format!("noise_grad_xyz(perlin_3d_grad(cell.xyz, local.xyz, seed, period.xyz, {fade}u, {grads}u))")
            }
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
        let grads = params.choice("gradients");
        Some(Box::new(move |s| perlin_grad_at(dims, s, fade, grads)))
    }
    fn cpu_grad_row_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradRowSampler> {
        let fade = params.choice("fade");
        let grads = params.choice("gradients");
        Some(Box::new(move |row, out| {
            perlin_grad_row(dims, row, fade, grads, out)
        }))
    }
    fn cpu_grad_points_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradPointsSampler> {
        let fade = params.choice("fade");
        let grads = params.choice("gradients");
        Some(Box::new(move |pts, out| {
            perlin_grad_points(dims, pts, fade, grads, out)
        }))
    }
}
