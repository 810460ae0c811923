use std::sync::Arc;

use super::{
    xy, xyz, Family, FamilyParams, FamilyUniforms, GradSampler, ParamKind, ParamSpec, RowSampler,
    SamplePoint, SampleRow, Sampler,
};
use crate::twin::gabor::{
    gabor_2d, gabor_2d_grad, gabor_3d, gabor_3d_grad, gabor_row, GaborKernel,
};

/// Sparse Gabor noise (Lagae et al. 2009); its kernel and impulses are shared with phasor noise.
pub struct Gabor;

/// Where the Gaussian envelope is cut (Lagae et al.: 5% of its peak); the envelope is shifted
/// down by this much so the field is continuous at the cut.
pub const ENVELOPE_CUTOFF: f64 = 0.05;
/// The most impulse evaluations a sample may expect: impulses x (2 radius + 1)^dims.
pub const MAX_IMPULSE_WORK: f64 = 1024.0;
/// The output is scaled to this standard deviation (so [-1, 1] holds about 99.7% of samples).
pub const OUTPUT_STD: f64 = 1.0 / 3.0;

/// Parameters of the Gabor kernel and its impulses, shared by gabor and phasor.
pub const KERNEL_PARAMS: [ParamSpec; 6] = [
    ParamSpec {
        name: "f0",
        kind: ParamKind::Number { default: 2.0, min: 0.001, max: 64.0 },
        help: "kernel frequency in cycles per lattice cell (frequency x f0 = cycles per image)",
    },
    ParamSpec {
        name: "bandwidth",
        kind: ParamKind::Number { default: 1.0, min: 0.01, max: 64.0 },
        help: "a of the Gaussian envelope exp(-pi a^2 r^2), per cell; kernels are cut at radius 0.9765 / a cells",
    },
    ParamSpec {
        name: "impulses",
        kind: ParamKind::Number { default: 16.0, min: 0.01, max: 64.0 },
        help: "mean number of impulses per lattice cell (Poisson); per-sample work impulses x (2 radius + 1)^dims is limited to 1024",
    },
    ParamSpec {
        name: "orientation",
        kind: ParamKind::Choice { options: &["anisotropic", "isotropic"], default: "anisotropic" },
        help: "anisotropic: every kernel along angle (and elevation); isotropic: a random direction per impulse",
    },
    ParamSpec {
        name: "angle",
        kind: ParamKind::Number { default: 30.0, min: -360.0, max: 360.0 },
        help: "direction of anisotropic kernels in degrees, counter-clockwise from +x",
    },
    ParamSpec {
        name: "elevation",
        kind: ParamKind::Number { default: 0.0, min: -90.0, max: 90.0 },
        help: "3D only: elevation of anisotropic kernels above the xy plane, in degrees",
    },
];

pub const ORIENTATION_ISOTROPIC: u32 = 1;

/// Truncation radius in cells for bandwidth a: where exp(-pi a^2 r^2) = the cutoff.
pub fn truncation_radius(bandwidth: f64) -> f64 {
    (-ENVELOPE_CUTOFF.ln() / std::f64::consts::PI).sqrt() / bandwidth
}

/// Variance of the unscaled Gabor sum: lambda E[w^2] integral(kernel^2), with E[w^2] = 1/3
/// for weights uniform in [-1, 1], integral(env^2 cos^2) = (integral(env^2) + the envelope's
/// spectrum at 2 f0) / 2; the integral of the truncated, shifted envelope is taken numerically.
pub fn gabor_variance(dims: u32, f0: f64, bandwidth: f64, impulses: f64) -> f64 {
    let radius = truncation_radius(bandwidth);
    let c = ENVELOPE_CUTOFF;
    let pi = std::f64::consts::PI;
    let steps = 4096;
    let h = radius / steps as f64;
    let env2 = |r: f64| {
        let e = ((-pi * bandwidth * bandwidth * r * r).exp() - c) / (1.0 - c);
        let shell = if dims == 2 {
            2.0 * pi * r
        } else {
            4.0 * pi * r * r
        };
        e * e * shell
    };
    // Simpson's rule on [0, radius].
    let mut integral = env2(0.0) + env2(radius);
    for i in 1..steps {
        integral += env2(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
    }
    integral *= h / 3.0;
    let double_frequency = (0.5 / (bandwidth * bandwidth)).powf(dims as f64 / 2.0)
        * (-2.0 * pi * f0 * f0 / (bandwidth * bandwidth)).exp();
    impulses / 3.0 * (integral + double_frequency) / 2.0
}

/// The kernel uniforms (layout in shaders/gabor.wgsl): k0, k1, dir, then zeros.
pub fn kernel_uniforms(dims: u32, params: &FamilyParams) -> FamilyUniforms {
    let f0 = params.number("f0");
    let a = params.number("bandwidth");
    let lambda = params.number("impulses");
    let scale = OUTPUT_STD / gabor_variance(dims, f0, a, lambda).sqrt();
    let (az, el) = (
        params.number("angle").to_radians(),
        if dims == 3 {
            params.number("elevation").to_radians()
        } else {
            0.0
        },
    );
    let dir = [az.cos() * el.cos(), az.sin() * el.cos(), el.sin(), 0.0];
    let mut u = [0f32; 16];
    let values = [
        f0,
        std::f64::consts::PI * a * a,
        ENVELOPE_CUTOFF,
        1.0 / (1.0 - ENVELOPE_CUTOFF),
        truncation_radius(a),
        (-lambda).exp(),
        scale,
        0.0,
        dir[0],
        dir[1],
        dir[2],
        dir[3],
    ];
    for (slot, v) in u.iter_mut().zip(values) {
        *slot = v as f32;
    }
    u
}

/// The kernel as the CPU twin takes it.
pub fn kernel_from_uniforms(u: &FamilyUniforms) -> GaborKernel {
    GaborKernel {
        k0: [u[0], u[1], u[2], u[3]],
        k1: [u[4], u[5], u[6], u[7]],
        dir: [u[8], u[9], u[10], u[11]],
    }
}

/// The WGSL arguments after `period`: the kernel vectors and the orientation flag.
pub fn kernel_wgsl_args(params: &FamilyParams) -> String {
    let isotropic = params.choice("orientation") == ORIENTATION_ISOTROPIC;
    format!("params.family[0], params.family[1], params.family[2], {isotropic}")
}

/// Rejects kernels whose per-sample work exceeds [`MAX_IMPULSE_WORK`], naming `impulses`.
pub fn validate_work(dims: u32, params: &FamilyParams) -> Vec<(String, String)> {
    let radius = truncation_radius(params.number("bandwidth"));
    let lambda = params.number("impulses");
    let work = lambda * (2.0 * radius + 1.0).powi(dims as i32);
    if work > MAX_IMPULSE_WORK {
        vec![(
            "impulses".into(),
            format!(
                "{lambda} impulses per cell with bandwidth {} (kernel radius {radius:.3} cells) means about {work:.0} impulse evaluations per sample in {dims}D, over the limit of {MAX_IMPULSE_WORK}: lower impulses or raise bandwidth",
                params.number("bandwidth")
            ),
        )]
    } else {
        Vec::new()
    }
}

impl Family for Gabor {
    fn name(&self) -> &'static str {
        "gabor"
    }
    fn summary(&self) -> &'static str {
        "sparse convolution of Gabor kernels (Lagae et al. 2009): energy at frequency f0, oriented or isotropic; std 1/3"
    }
    fn dims(&self) -> &'static [u32] {
        &[2, 3]
    }
    fn params(&self) -> &'static [ParamSpec] {
        &KERNEL_PARAMS
    }
    fn supports_period(&self) -> bool {
        true
    }
    fn range(&self, _dims: u32, _params: &FamilyParams) -> (f32, f32) {
        // Three standard deviations: a Gaussian-like sum, not strictly bounded.
        (-1.0, 1.0)
    }
    fn shader_files(&self) -> &'static [&'static str] {
        &["gabor.wgsl"]
    }
    fn wgsl_call(&self, dims: u32, params: &FamilyParams) -> String {
        let args = kernel_wgsl_args(params);
        match dims {
            2 => format!("gabor_2d(cell.xy, local.xy, seed, period.xy, {args})"),
            _ => format!("gabor_3d(cell.xyz, local.xyz, seed, period.xyz, {args})"),
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
        match dims {
            2 => Box::new(move |s: &SamplePoint| {
                gabor_2d(xy(s.cell), xy(s.local), s.seed, xy(s.period), &k, iso)
            }),
            _ => Box::new(move |s: &SamplePoint| {
                gabor_3d(xyz(s.cell), xyz(s.local), s.seed, xyz(s.period), &k, iso)
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
        let scale = k.k1[2];
        Some(match dims {
            2 => Box::new(move |row: &SampleRow, out: &mut [f32]| {
                gabor_row::<2>(row, &k, iso, false, out, |sum| sum[0] * scale)
            }),
            _ => Box::new(move |row: &SampleRow, out: &mut [f32]| {
                gabor_row::<3>(row, &k, iso, false, out, |sum| sum[0] * scale)
            }),
        })
    }
    fn wgsl_grad_call(&self, dims: u32, params: &FamilyParams) -> Option<String> {
        let args = kernel_wgsl_args(params);
        Some(match dims {
            2 => format!("gabor_2d_grad(cell.xy, local.xy, seed, period.xy, {args})"),
            _ => format!("gabor_3d_grad(cell.xyz, local.xyz, seed, period.xyz, {args})"),
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
        Some(match dims {
            2 => Box::new(move |s: &SamplePoint| {
                gabor_2d_grad(xy(s.cell), xy(s.local), s.seed, xy(s.period), &k, iso)
            }),
            _ => Box::new(move |s: &SamplePoint| {
                gabor_3d_grad(xyz(s.cell), xyz(s.local), s.seed, xyz(s.period), &k, iso)
            }),
        })
    }
    fn validate(&self, dims: u32, params: &FamilyParams) -> Vec<(String, String)> {
        validate_work(dims, params)
    }
}
