use std::sync::Arc;

use super::gabor::{
    kernel_from_uniforms, kernel_uniforms, kernel_wgsl_args, validate_work, KERNEL_PARAMS,
    ORIENTATION_ISOTROPIC,
};
use super::{
    xy, xyz, Family, FamilyParams, FamilyUniforms, GradSampler, ParamKind, ParamSpec, ParamValue,
    RowSampler, SamplePoint, SampleRow, Sampler,
};
use crate::twin::gabor::gabor_row;
use crate::twin::phasor::{phasor_2d, phasor_2d_grad, phasor_3d, phasor_3d_grad, phasor_of_sum};
use crate::twin::turns::{PROFILE_SAWTOOTH, PROFILE_SQUARE};

/// Phasor noise (Tricard et al. 2019): the phase of the complex Gabor sum through a profile.
pub struct Phasor;

/// The profile choice, shared with wave noise (indices are the PROFILE_* codes of turns.wgsl).
pub const PROFILE_PARAM: ParamSpec = ParamSpec {
    name: "profile",
    kind: ParamKind::Choice {
        options: &["sine", "triangle", "sawtooth", "square"],
        default: "sine",
    },
    help: "periodic function of the phase: sine (smooth stripes), triangle (linear ramps), sawtooth (one-sided layers), square (binary bands)",
};

const PARAMS: [ParamSpec; 7] = [
    KERNEL_PARAMS[0],
    KERNEL_PARAMS[1],
    KERNEL_PARAMS[2],
    KERNEL_PARAMS[3],
    KERNEL_PARAMS[4],
    KERNEL_PARAMS[5],
    PROFILE_PARAM,
];

/// Fraction of pixels allowed over the parity tolerance for the profiles that jump (sawtooth
/// once a turn of the phase, square twice): rounding can put the two paths on either side
/// of a jump. Sine and triangle are continuous but at singular points (where the complex sum
/// vanishes and its phase is ill-conditioned); there both paths run the same arithmetic,
/// the envelope's polynomial exp included, so they are granted nothing.
pub const PHASE_DISCONTINUITY_ALLOWANCE: f64 = 0.001;

/// The allowance of a profile (turns.wgsl's PROFILE_* code): see
/// [`PHASE_DISCONTINUITY_ALLOWANCE`].
pub fn profile_allowance(code: u32) -> f64 {
    if code == PROFILE_SAWTOOTH || code == PROFILE_SQUARE {
        PHASE_DISCONTINUITY_ALLOWANCE
    } else {
        0.0
    }
}

impl Family for Phasor {
    fn name(&self) -> &'static str {
        "phasor"
    }
    fn summary(&self) -> &'static str {
        "phasor noise (Tricard et al. 2019): the phase of a complex Gabor sum through a sine, triangle, sawtooth or square profile; range [-1, 1]"
    }
    fn dims(&self) -> &'static [u32] {
        &[2, 3]
    }
    fn params(&self) -> &'static [ParamSpec] {
        &PARAMS
    }
    fn supports_period(&self) -> bool {
        true
    }
    fn range(&self, _dims: u32, _params: &FamilyParams) -> (f32, f32) {
        (-1.0, 1.0)
    }
    fn shader_files(&self) -> &'static [&'static str] {
        &["gabor.wgsl", "phasor.wgsl"]
    }
    fn wgsl_call(&self, dims: u32, params: &FamilyParams) -> String {
        let args = kernel_wgsl_args(params);
        let profile = params.choice("profile");
        match dims {
            2 => format!("phasor_2d(cell.xy, local.xy, seed, period.xy, {args}, {profile}u)"),
            _ => format!("phasor_3d(cell.xyz, local.xyz, seed, period.xyz, {args}, {profile}u)"),
        }
    }
    fn uniforms(&self, dims: u32, params: &FamilyParams) -> FamilyUniforms {
        kernel_uniforms(dims, params)
    }
    fn cpu_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Sampler {
        let k = kernel_from_uniforms(&uniforms);
        let iso = params.choice("orientation") == ORIENTATION_ISOTROPIC;
        let profile = params.choice("profile");
        match dims {
            2 => Box::new(move |s: &SamplePoint| {
                phasor_2d(
                    xy(s.cell),
                    xy(s.local),
                    s.seed,
                    xy(s.period),
                    &k,
                    iso,
                    profile,
                )
            }),
            _ => Box::new(move |s: &SamplePoint| {
                phasor_3d(
                    xyz(s.cell),
                    xyz(s.local),
                    s.seed,
                    xyz(s.period),
                    &k,
                    iso,
                    profile,
                )
            }),
        }
    }
    fn cpu_row_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        uniforms: FamilyUniforms,
    ) -> Option<RowSampler> {
        let k = kernel_from_uniforms(&uniforms);
        let iso = params.choice("orientation") == ORIENTATION_ISOTROPIC;
        let profile = params.choice("profile");
        Some(match dims {
            2 => Box::new(move |row: &SampleRow, out: &mut [f32]| {
                gabor_row::<2>(row, &k, iso, true, out, |z| phasor_of_sum(z, profile))
            }),
            _ => Box::new(move |row: &SampleRow, out: &mut [f32]| {
                gabor_row::<3>(row, &k, iso, true, out, |z| phasor_of_sum(z, profile))
            }),
        })
    }
    fn wgsl_grad_call(&self, dims: u32, params: &FamilyParams) -> Option<String> {
        let args = kernel_wgsl_args(params);
        let profile = params.choice("profile");
        Some(match dims {
            2 => format!("phasor_2d_grad(cell.xy, local.xy, seed, period.xy, {args}, {profile}u)"),
            _ => {
                format!("phasor_3d_grad(cell.xyz, local.xyz, seed, period.xyz, {args}, {profile}u)")
            }
        })
    }
    fn cpu_grad_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Option<GradSampler> {
        let k = kernel_from_uniforms(&uniforms);
        let iso = params.choice("orientation") == ORIENTATION_ISOTROPIC;
        let profile = params.choice("profile");
        Some(match dims {
            2 => Box::new(move |s: &SamplePoint| {
                phasor_2d_grad(
                    xy(s.cell),
                    xy(s.local),
                    s.seed,
                    xy(s.period),
                    &k,
                    iso,
                    profile,
                )
            }),
            _ => Box::new(move |s: &SamplePoint| {
                phasor_3d_grad(
                    xyz(s.cell),
                    xyz(s.local),
                    s.seed,
                    xyz(s.period),
                    &k,
                    iso,
                    profile,
                )
            }),
        })
    }
    fn discontinuity_allowance(&self, _dims: u32, params: &FamilyParams) -> f64 {
        // Read leniently: callers may ask with empty (all-default: sine) parameters.
        match params.values.get("profile") {
            Some(ParamValue::Choice(p)) => profile_allowance(*p),
            _ => 0.0,
        }
    }
    fn validate(&self, dims: u32, params: &FamilyParams) -> Vec<(String, String)> {
        validate_work(dims, params)
    }
}
