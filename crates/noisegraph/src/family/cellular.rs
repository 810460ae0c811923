//! Cellular (Worley) noise: distances to jittered feature points, one per cell.

use std::sync::Arc;

use super::{
    xy, xyz, Family, FamilyParams, FamilyUniforms, GradSampler, ParamKind, ParamSpec, ParamValue,
    RowSampler, SampleRow, Sampler,
};
use crate::twin::cellular::{
    cellular_2d, cellular_2d_grad, cellular_2d_row, cellular_3d, cellular_3d_grad, cellular_3d_row,
    CELLULAR_CELL_VALUE, CELLULAR_F1, METRIC_EUCLIDEAN, METRIC_EUCLIDEAN_SQUARED, METRIC_MANHATTAN,
};

/// The WGSL arguments after `period`: return type, metric and jitter from the uniforms, so
/// that changing them re-runs the same pipeline.
const UNIFORM_ARGS: &str = "u32(params.family[0].x), u32(params.family[0].y), params.family[0].z";

pub struct Cellular;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "return",
        kind: ParamKind::Choice {
            options: &["f1", "f2", "f2_minus_f1", "cell_value"],
            default: "f1",
        },
        help: "f1: distance to the nearest feature point; f2: to the second nearest; f2_minus_f1: cell borders; cell_value: the nearest cell's random value in [-1, 1]",
    },
    ParamSpec {
        name: "metric",
        kind: ParamKind::Choice {
            options: &["euclidean", "euclidean_squared", "manhattan", "chebyshev"],
            default: "euclidean",
        },
        help: "distance: euclidean (round cells), euclidean_squared, manhattan (diamonds), chebyshev (squares)",
    },
    ParamSpec {
        name: "jitter",
        kind: ParamKind::Number {
            default: 1.0,
            min: 0.0,
            max: 1.0,
        },
        help: "how far feature points stray from cell centres: 0 = a regular grid, 1 = anywhere in the cell",
    },
];

/// Upper bounds of (F1, F2) at jitter 1 for a metric and dims. The nearest cell corner has
/// 2^d cells around it, each holding one point, and the sample lies within half a cell of
/// that corner on every axis: F1 is at most the distance to a far corner of the sample's
/// own cell, F2 at most the second smallest of those 2^d points' worst-case distances.
pub fn distance_bounds(dims: u32, metric: u32) -> (f32, f32) {
    let d = dims as f32;
    match metric {
        METRIC_EUCLIDEAN => (
            d.sqrt(),
            if dims == 2 {
                2.5f32.sqrt()
            } else {
                3f32.sqrt()
            },
        ),
        METRIC_EUCLIDEAN_SQUARED => (d, if dims == 2 { 2.5 } else { 3.0 }),
        METRIC_MANHATTAN => (d, d),
        _ => (1.0, 1.5),
    }
}

impl Family for Cellular {
    fn name(&self) -> &'static str {
        "cellular"
    }
    fn summary(&self) -> &'static str {
        "cellular (Worley) noise: F1, F2, F2 - F1 or cell value, four metrics, jitter; distances >= 0"
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
    fn range(&self, dims: u32, params: &FamilyParams) -> (f32, f32) {
        let ret = params.choice("return");
        if ret == CELLULAR_CELL_VALUE {
            return (-1.0, 1.0);
        }
        let (f1, f2) = distance_bounds(dims, params.choice("metric"));
        if ret == CELLULAR_F1 {
            (0.0, f1)
        } else {
            (0.0, f2)
        }
    }
    fn shader_files(&self) -> &'static [&'static str] {
        &["cellular.wgsl"]
    }
    fn wgsl_call(&self, dims: u32, _params: &FamilyParams) -> String {
        let args = UNIFORM_ARGS;
        match dims {
            2 => format!("cellular_2d(cell.xy, local.xy, seed, period.xy, {args})"),
            _ => format!("cellular_3d(cell.xyz, local.xyz, seed, period.xyz, {args})"),
        }
    }
    fn uniforms(&self, _dims: u32, params: &FamilyParams) -> FamilyUniforms {
        let mut u = [0.0; 16];
        u[0] = params.choice("return") as f32;
        u[1] = params.choice("metric") as f32;
        u[2] = params.number("jitter") as f32;
        u
    }
    fn cpu_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Sampler {
        let ret = uniforms[0] as u32;
        let metric = uniforms[1] as u32;
        let jitter = uniforms[2];
        match dims {
            2 => Box::new(move |s| {
                cellular_2d(
                    xy(s.cell),
                    xy(s.local),
                    s.seed,
                    xy(s.period),
                    ret,
                    metric,
                    jitter,
                )
            }),
            _ => Box::new(move |s| {
                cellular_3d(
                    xyz(s.cell),
                    xyz(s.local),
                    s.seed,
                    xyz(s.period),
                    ret,
                    metric,
                    jitter,
                )
            }),
        }
    }
    fn cpu_row_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        uniforms: FamilyUniforms,
    ) -> Option<RowSampler> {
        let ret = uniforms[0] as u32;
        let metric = uniforms[1] as u32;
        let jitter = uniforms[2];
        match dims {
            2 => Some(Box::new(move |row: &SampleRow, out: &mut [f32]| {
                cellular_2d_row(row, ret, metric, jitter, out)
            })),
            _ => Some(Box::new(move |row: &SampleRow, out: &mut [f32]| {
                cellular_3d_row(row, ret, metric, jitter, out)
            })),
        }
    }
    fn wgsl_grad_call(&self, dims: u32, _params: &FamilyParams) -> Option<String> {
        let args = UNIFORM_ARGS;
        Some(match dims {
            2 => format!("cellular_2d_grad(cell.xy, local.xy, seed, period.xy, {args})"),
            _ => format!("cellular_3d_grad(cell.xyz, local.xyz, seed, period.xyz, {args})"),
        })
    }
    fn cpu_grad_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Option<GradSampler> {
        let ret = uniforms[0] as u32;
        let metric = uniforms[1] as u32;
        let jitter = uniforms[2];
        Some(match dims {
            2 => Box::new(move |s| {
                cellular_2d_grad(
                    xy(s.cell),
                    xy(s.local),
                    s.seed,
                    xy(s.period),
                    ret,
                    metric,
                    jitter,
                )
            }),
            _ => Box::new(move |s| {
                cellular_3d_grad(
                    xyz(s.cell),
                    xyz(s.local),
                    s.seed,
                    xyz(s.period),
                    ret,
                    metric,
                    jitter,
                )
            }),
        })
    }
    fn discontinuity_allowance(&self, _dims: u32, params: &FamilyParams) -> f64 {
        // cell_value jumps across every cell border; where GPU and CPU round a near-tie
        // differently they pick different cells. F1, F2 and F2 - F1 are continuous.
        // Read leniently: callers may ask with empty (all-default) parameters.
        match params.values.get("return") {
            Some(ParamValue::Choice(c)) if *c == CELLULAR_CELL_VALUE => 0.001,
            _ => 0.0,
        }
    }
}
