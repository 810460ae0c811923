use std::sync::Arc;

use super::phasor::profile_allowance;
use super::{
    xy, xyz, Family, FamilyParams, FamilyUniforms, GradSampler, ParamKind, ParamSpec, ParamValue,
    SamplePoint, Sampler,
};
use crate::twin::hash::{hash_to_unit, pcg4d, seed_hash};
use crate::twin::wave::{wave_2d, wave_2d_grad, wave_3d, wave_3d_grad, WAVE_TABLE_STRIDE};

/// Wave noise: K plane waves drawn from a designed spectrum.
pub struct Wave;

/// The most waves a node may sum (each costs every sample a few dozen operations).
pub const MAX_WAVES: i64 = 4096;
/// Highest wave frequency, cycles per cell: keeps |n| = |k| x 65536 below 2^24 (exact in f32).
pub const MAX_WAVE_FREQUENCY: f64 = 128.0;
/// The sum is scaled to this standard deviation (so [-1, 1] holds about 99.7% of samples).
pub const OUTPUT_STD: f64 = 1.0 / 3.0;
const FIXED_ONE: f64 = 65536.0;

const PARAMS: &[ParamSpec] = &[
    ParamSpec {
        name: "waves",
        kind: ParamKind::Integer { default: 64, min: 1, max: MAX_WAVES },
        help: "number K of plane waves; every sample sums all of them (cost O(K))",
    },
    ParamSpec {
        name: "f_min",
        kind: ParamKind::Number { default: 1.0, min: 0.001, max: MAX_WAVE_FREQUENCY },
        help: "lowest wave frequency, cycles per lattice cell (frequency x f_min = cycles per image)",
    },
    ParamSpec {
        name: "f_max",
        kind: ParamKind::Number { default: 2.0, min: 0.001, max: MAX_WAVE_FREQUENCY },
        help: "highest wave frequency, cycles per lattice cell (at least f_min)",
    },
    ParamSpec {
        name: "exponent",
        kind: ParamKind::Number { default: 0.0, min: -8.0, max: 8.0 },
        help: "power-law exponent b: the power spectral density falls as |k|^-b inside the band (0: flat)",
    },
    ParamSpec {
        name: "orientation",
        kind: ParamKind::Choice { options: &["isotropic", "directional"], default: "isotropic" },
        help: "isotropic: directions uniform over the circle or sphere; directional: around angle (and elevation) with a Gaussian spread",
    },
    ParamSpec {
        name: "angle",
        kind: ParamKind::Number { default: 0.0, min: -360.0, max: 360.0 },
        help: "directional: main wave direction in degrees, counter-clockwise from +x",
    },
    ParamSpec {
        name: "spread",
        kind: ParamKind::Number { default: 15.0, min: 0.0, max: 180.0 },
        help: "directional: standard deviation of the wave directions around angle, in degrees",
    },
    ParamSpec {
        name: "elevation",
        kind: ParamKind::Number { default: 0.0, min: -90.0, max: 90.0 },
        help: "3D directional: elevation of the main direction above the xy plane, in degrees",
    },
    ParamSpec {
        name: "profile",
        kind: ParamKind::Choice {
            options: &["none", "sine", "triangle", "sawtooth", "square"],
            default: "none",
        },
        help: "none: the sum itself (a Gaussian field, std 1/3); otherwise the phase of the complex sum through that periodic profile, in [-1, 1]",
    },
];

const ORIENTATION_DIRECTIONAL: u32 = 1;
const PROFILE_NONE: u32 = 0;

/// A standard normal pair from two uniforms (Box-Muller), on the host only.
fn gaussian_pair(u1: f64, u2: f64) -> (f64, f64) {
    let r = (-2.0 * (1.0 - u1).max(1e-300).ln()).sqrt();
    let a = std::f64::consts::TAU * u2;
    (r * a.cos(), r * a.sin())
}

/// A frequency in [f_min, f_max] whose density follows the radial energy |k|^(dims-1-b).
fn band_frequency(u: f64, f_min: f64, f_max: f64, dims: u32, exponent: f64) -> f64 {
    let g = dims as f64 - exponent;
    if g.abs() < 1e-9 {
        f_min * (f_max / f_min).powf(u)
    } else {
        (f_min.powf(g) + u * (f_max.powf(g) - f_min.powf(g))).powf(1.0 / g)
    }
}

/// The wave table for a node seed: per wave (n.x, n.y, n.z, phase), see shaders/wave.wgsl.
/// Every number comes from pcg4d of (wave index, seed hash, stream); directions and
/// frequencies are computed in f64 and rounded to the fixed-point grid.
pub fn wave_table(dims: u32, params: &FamilyParams, seed: u32) -> Vec<f32> {
    let count = params.integer("waves") as usize;
    let (f_min, f_max) = (params.number("f_min"), params.number("f_max"));
    let exponent = params.number("exponent");
    let directional = params.choice("orientation") == ORIENTATION_DIRECTIONAL;
    let az = params.number("angle").to_radians();
    let el = if dims == 3 {
        params.number("elevation").to_radians()
    } else {
        0.0
    };
    let spread = params.number("spread").to_radians();
    let sh = seed_hash(seed);
    let mut table = Vec::with_capacity(count * WAVE_TABLE_STRIDE);
    for i in 0..count as u32 {
        let a = pcg4d([i, sh, 0x5741_5645, 0]).map(|h| hash_to_unit(h) as f64);
        let b = pcg4d([i, sh, 0x5741_5645, 1]).map(|h| hash_to_unit(h) as f64);
        let f = band_frequency(a[0], f_min, f_max, dims, exponent);
        let dir: [f64; 3] = if dims == 2 {
            let theta = if directional {
                az + spread * gaussian_pair(a[1], a[2]).0
            } else {
                std::f64::consts::TAU * a[1]
            };
            [theta.cos(), theta.sin(), 0.0]
        } else if directional {
            let main = [az.cos() * el.cos(), az.sin() * el.cos(), el.sin()];
            let t1 = [-az.sin(), az.cos(), 0.0];
            let t2 = [-az.cos() * el.sin(), -az.sin() * el.sin(), el.cos()];
            let (g1, g2) = gaussian_pair(a[1], a[2]);
            let v: [f64; 3] = std::array::from_fn(|k| main[k] + spread * (g1 * t1[k] + g2 * t2[k]));
            let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt().max(1e-12);
            v.map(|c| c / len)
        } else {
            let z = 2.0 * a[1] - 1.0;
            let r = (1.0 - z * z).max(0.0).sqrt();
            let phi = std::f64::consts::TAU * a[2];
            [r * phi.cos(), r * phi.sin(), z]
        };
        let limit = (1i64 << 24) - 1;
        for c in dir {
            table.push(((f * c * FIXED_ONE).round() as i64).clamp(-limit, limit) as f32);
        }
        table.push(b[0] as f32);
    }
    table
}

/// The kernel's profile arguments: the phase profile's code (turns.wgsl's PROFILE_*) and
/// whether one is used at all.
fn profile_code(params: &FamilyParams) -> (u32, bool) {
    let profile = params.choice("profile");
    (profile.saturating_sub(1), profile != PROFILE_NONE)
}

/// The WGSL arguments after `seed`: wave count and amplitude from the uniforms, the profile.
fn wave_wgsl_args(params: &FamilyParams) -> String {
    let (code, use_profile) = profile_code(params);
    format!("u32(params.family[0].x), params.family[0].y, {code}u, {use_profile}")
}

impl Family for Wave {
    fn name(&self) -> &'static str {
        "wave"
    }
    fn summary(&self) -> &'static str {
        "sum of K plane waves from a designed spectrum (band, power law, directions); std 1/3, or a phase profile in [-1, 1]; cost O(K)"
    }
    fn dims(&self) -> &'static [u32] {
        &[2, 3]
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn range(&self, _dims: u32, _params: &FamilyParams) -> (f32, f32) {
        // Profiles are in [-1, 1]; the plain sum is Gaussian with std 1/3 (3 sigma).
        (-1.0, 1.0)
    }
    fn shader_files(&self) -> &'static [&'static str] {
        &["wave.wgsl"]
    }
    fn wgsl_call(&self, dims: u32, params: &FamilyParams) -> String {
        let args = wave_wgsl_args(params);
        match dims {
            2 => format!("wave_2d(cell.xy, local.xy, seed, {args})"),
            _ => format!("wave_3d(cell.xyz, local.xyz, seed, {args})"),
        }
    }
    fn wgsl_grad_call(&self, dims: u32, params: &FamilyParams) -> Option<String> {
        let args = wave_wgsl_args(params);
        Some(match dims {
            2 => format!("wave_2d_grad(cell.xy, local.xy, seed, {args})"),
            _ => format!("wave_3d_grad(cell.xyz, local.xyz, seed, {args})"),
        })
    }
    fn cpu_grad_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        uniforms: FamilyUniforms,
        aux: Arc<[f32]>,
    ) -> Option<GradSampler> {
        let (code, use_profile) = profile_code(params);
        let (count, amplitude) = (uniforms[0] as u32, uniforms[1]);
        Some(match dims {
            2 => Box::new(move |s: &SamplePoint| {
                wave_2d_grad::<true>(
                    xy(s.cell),
                    xy(s.local),
                    s.seed,
                    count,
                    amplitude,
                    code,
                    use_profile,
                    &aux,
                )
            }),
            _ => Box::new(move |s: &SamplePoint| {
                wave_3d_grad::<true>(
                    xyz(s.cell),
                    xyz(s.local),
                    s.seed,
                    count,
                    amplitude,
                    code,
                    use_profile,
                    &aux,
                )
            }),
        })
    }
    fn uniforms(&self, _dims: u32, params: &FamilyParams) -> FamilyUniforms {
        let count = params.integer("waves") as f64;
        let mut u = [0f32; 16];
        u[0] = count as f32;
        u[1] = (OUTPUT_STD / (count / 2.0).sqrt()) as f32;
        u
    }
    fn aux_data(&self, dims: u32, params: &FamilyParams, seed: u32) -> Option<Vec<f32>> {
        Some(wave_table(dims, params, seed))
    }
    fn cpu_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        uniforms: FamilyUniforms,
        aux: Arc<[f32]>,
    ) -> Sampler {
        let (code, use_profile) = profile_code(params);
        let (count, amplitude) = (uniforms[0] as u32, uniforms[1]);
        match dims {
            2 => Box::new(move |s: &SamplePoint| {
                wave_2d(
                    xy(s.cell),
                    xy(s.local),
                    s.seed,
                    count,
                    amplitude,
                    code,
                    use_profile,
                    &aux,
                )
            }),
            _ => Box::new(move |s: &SamplePoint| {
                wave_3d(
                    xyz(s.cell),
                    xyz(s.local),
                    s.seed,
                    count,
                    amplitude,
                    code,
                    use_profile,
                    &aux,
                )
            }),
        }
    }
    fn discontinuity_allowance(&self, _dims: u32, params: &FamilyParams) -> f64 {
        // The plain sum is continuous; the sawtooth and square profiles of the phase jump
        // (the phasor profiles' allowance; option 0 is `none`, the others are the profile
        // codes plus one).
        match params.values.get("profile") {
            Some(ParamValue::Choice(p)) if *p != PROFILE_NONE => profile_allowance(*p - 1),
            _ => 0.0,
        }
    }
    fn validate(&self, _dims: u32, params: &FamilyParams) -> Vec<(String, String)> {
        let (f_min, f_max) = (params.number("f_min"), params.number("f_max"));
        if f_max < f_min {
            vec![(
                "f_max".into(),
                format!("must be at least f_min = {f_min} (got {f_max})"),
            )]
        } else {
            Vec::new()
        }
    }
}
