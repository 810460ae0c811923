//! Noise families: what each accepts, how its kernel is called, and its CPU twin.
//!
//! A family is three things kept side by side: `shaders/<name>.wgsl` (the kernel functions),
//! `src/cpu/<name>.rs` (their plain-Rust twins) and a `Family` implementation here that
//! describes its parameters, builds the WGSL call the stage template makes, and hands the CPU
//! executor the same function. Adding a family means adding those three files and one line
//! to [`registry`].

use std::collections::BTreeMap;
use std::sync::Arc;

mod cellular;
mod gabor;
mod opensimplex2;
mod perlin;
mod phasor;
mod simplex;
mod value;
mod wave;
mod wavelet;

pub use crate::twin::sample::{
    xy, xyz, GradPointsSampler, GradRowSampler, GradSampler, GradSamples, NoiseGrad, PointsSampler,
    RowSampler, SamplePoint, SamplePoints, SampleRow, Sampler,
};

/// The kind and bounds of a family-specific parameter.
#[derive(Debug, Clone, Copy)]
pub enum ParamKind {
    /// A finite number in `[min, max]`.
    Number {
        /// The value used when the parameter is omitted.
        default: f64,
        /// Smallest accepted value.
        min: f64,
        /// Largest accepted value.
        max: f64,
    },
    /// An integer in `[min, max]`.
    Integer {
        /// The value used when the parameter is omitted.
        default: i64,
        /// Smallest accepted value.
        min: i64,
        /// Largest accepted value.
        max: i64,
    },
    /// One of a fixed list of names; the index is what kernels see.
    Choice {
        /// The accepted names, in kernel index order.
        options: &'static [&'static str],
        /// The name used when the parameter is omitted.
        default: &'static str,
    },
}

/// A family-specific parameter: its JSON name, kind and a one-line explanation.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    /// The parameter's name in the JSON node.
    pub name: &'static str,
    /// Its kind, bounds and default.
    pub kind: ParamKind,
    /// A one-line explanation.
    pub help: &'static str,
}

/// A parameter value after validation (defaults filled in).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    /// A number.
    Number(f64),
    /// An integer.
    Integer(i64),
    /// Index into the options of a `Choice`.
    Choice(u32),
}

/// Validated family parameters, keyed by name, every declared parameter present.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FamilyParams {
    /// Each declared parameter's value, keyed by its name.
    pub values: BTreeMap<String, ParamValue>,
}

impl FamilyParams {
    /// The number named `name` (panics only on a programming error: the name is not declared).
    pub fn number(&self, name: &str) -> f64 {
        match self.values.get(name) {
            Some(ParamValue::Number(v)) => *v,
            Some(ParamValue::Integer(v)) => *v as f64,
            other => panic!("family parameter {name} is not a number: {other:?}"),
        }
    }
    /// The integer named `name` (panics only on a programming error: the name is not declared).
    pub fn integer(&self, name: &str) -> i64 {
        match self.values.get(name) {
            Some(ParamValue::Integer(v)) => *v,
            other => panic!("family parameter {name} is not an integer: {other:?}"),
        }
    }
    /// The choice index named `name` (panics only on a programming error: the name is not declared).
    pub fn choice(&self, name: &str) -> u32 {
        match self.values.get(name) {
            Some(ParamValue::Choice(v)) => *v,
            other => panic!("family parameter {name} is not a choice: {other:?}"),
        }
    }
}

/// Numbers a kernel reads from the stage uniform (`params.family[0..4]` in WGSL), so that changing
/// them re-runs a cached pipeline instead of compiling a new one.
pub type FamilyUniforms = [f32; 16];

/// Everything a family provides. See the module docs.
pub trait Family: Send + Sync {
    /// The JSON `type` name, also the stem of its `.wgsl` and CPU twin files.
    fn name(&self) -> &'static str;
    /// One line for listings and the README.
    fn summary(&self) -> &'static str;
    /// Supported `dims`.
    fn dims(&self) -> &'static [u32];
    /// Its own parameters.
    fn params(&self) -> &'static [ParamSpec] {
        &[]
    }
    /// Whether `period` (tileable output) is supported.
    fn supports_period(&self) -> bool {
        false
    }
    /// The documented output range, used to remap to image formats.
    fn range(&self, dims: u32, params: &FamilyParams) -> (f32, f32);
    /// Shader files (relative to `shaders/`, without `lib/`) this family calls, dependencies first.
    fn shader_files(&self) -> &'static [&'static str];
    /// The WGSL expression the stage evaluates. It may use `cell: vec4<i32>`,
    /// `local: vec4<f32>`, `seed: u32`, `period: vec4<i32>`, `params.family` (the uniforms, `array<vec4<f32>, 4>`)
    /// and, when [`Family::aux_data`] gives data, `aux: array<f32>`.
    fn wgsl_call(&self, dims: u32, params: &FamilyParams) -> String;
    /// Numbers passed through the uniform buffer (see [`FamilyUniforms`]).
    fn uniforms(&self, _dims: u32, _params: &FamilyParams) -> FamilyUniforms {
        [0.0; 16]
    }
    /// Read-only data computed on the host from the node's seed, bound as `aux`
    /// (for example a wavelet tile or a table of waves).
    fn aux_data(&self, _dims: u32, _params: &FamilyParams, _seed: u32) -> Option<Vec<f32>> {
        None
    }
    /// The CPU twin of [`Family::wgsl_call`].
    fn cpu_sampler(
        &self,
        dims: u32,
        params: &FamilyParams,
        uniforms: FamilyUniforms,
        aux: Arc<[f32]>,
    ) -> Sampler;
    /// A faster CPU twin for whole rows of an unwarped stage (see [`RowSampler`]), for families
    /// that have one; `None` (the default) samples point by point.
    fn cpu_row_sampler(
        &self,
        _dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<RowSampler> {
        None
    }
    /// A faster CPU twin for the samples of a warped stage's row (see [`PointsSampler`]), for
    /// families that have one; `None` (the default) samples point by point.
    fn cpu_points_sampler(
        &self,
        _dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<PointsSampler> {
        None
    }
    /// The WGSL expression of the family's analytic gradient, when it has one for `dims`: a
    /// `NoiseGrad` (shaders/lib/grad.wgsl: the value and its derivatives with respect to
    /// `local`, x, y, z, w), the value being the one [`Family::wgsl_call`] gives, and the same
    /// variables in scope. `None` (the default) means the family is not differentiated.
    fn wgsl_grad_call(&self, _dims: u32, _params: &FamilyParams) -> Option<String> {
        None
    }
    /// Why [`Family::wgsl_grad_call`] is `None` for these parameters, in words for an error
    /// message (for example a variant whose field jumps).
    fn no_gradient_reason(&self, dims: u32, _params: &FamilyParams) -> String {
        format!(
            "family '{}' has no gradient variant in {dims}D",
            self.name()
        )
    }
    /// The CPU twin of [`Family::wgsl_grad_call`]; `Some` exactly when that is.
    fn cpu_grad_sampler(
        &self,
        _dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
        _aux: Arc<[f32]>,
    ) -> Option<GradSampler> {
        None
    }
    /// A faster twin of [`Family::cpu_grad_sampler`] for whole rows of an unwarped stage (see
    /// [`GradRowSampler`]), for families that have one; `None` (the default) samples point by
    /// point. `Some` only where `cpu_grad_sampler` is.
    fn cpu_grad_row_sampler(
        &self,
        _dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradRowSampler> {
        None
    }
    /// A faster twin of [`Family::cpu_grad_sampler`] for the samples of a warped stage's row
    /// (see [`GradPointsSampler`]); `None` (the default) samples point by point. `Some` only
    /// where `cpu_grad_sampler` is.
    fn cpu_grad_points_sampler(
        &self,
        _dims: u32,
        _params: &FamilyParams,
        _uniforms: FamilyUniforms,
    ) -> Option<GradPointsSampler> {
        None
    }
    /// Splits a frequency-scaled f64 position into the integer lattice offset and the small
    /// f32 remainder the kernel works with. The default suits a cubic lattice.
    fn split_origin(&self, dims: u32, p: [f64; 4], period: [i32; 4]) -> ([i32; 4], [f32; 4]) {
        split_cubic(dims, p, period)
    }
    /// [`Family::split_origin`] for a family whose lattice depends on a parameter (the
    /// OpenSimplex2 variants use different 4D lattices); the plan calls this one.
    fn split_origin_with(
        &self,
        dims: u32,
        _params: &FamilyParams,
        p: [f64; 4],
        period: [i32; 4],
    ) -> ([i32; 4], [f32; 4]) {
        self.split_origin(dims, p, period)
    }
    /// The lattice [`Family::split_origin_with`] splits positions on: [`Lattice::Cubic`] (the
    /// default) or a linear map to lattice coordinates. The exported precise WGSL form
    /// (`crate::export::wgsl`) multiplies an integer cell by frequency on it exactly.
    fn lattice(&self, _dims: u32, _params: &FamilyParams) -> Lattice {
        Lattice::Cubic
    }
    /// The fraction of pixels allowed over the parity tolerance: 0 for a continuous field,
    /// a small documented fraction where the output has discontinuities (a square or sawtooth
    /// profile, cellular ties), at most 0.001.
    fn discontinuity_allowance(&self, _dims: u32, _params: &FamilyParams) -> f64 {
        0.0
    }
    /// Checks that involve several parameters at once; each error names the field.
    fn validate(&self, _dims: u32, _params: &FamilyParams) -> Vec<(String, String)> {
        Vec::new()
    }
}

/// The lattice a family's cells are counted on (see [`Family::lattice`]); [`Lattice::split`]
/// is the family's [`Family::split_origin_with`] (tested bit for bit for every family).
// Two 4x4 matrices make `Linear` large, but a lattice is built once per node and copied
// rarely, and `Copy` keeps it as easy to pass around as the numbers it describes.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lattice {
    /// Cells are the integer grid of the frequency-scaled position ([`split_cubic`]).
    Cubic,
    /// A simplex lattice: cells are the integer grid of `p + sum(p) * skew`, and `local` is
    /// the remainder mapped back with `unskew` ([`split_skewed`]).
    Skewed {
        /// Skew factor.
        skew: f64,
        /// Unskew factor.
        unskew: f64,
    },
    /// Cells are the integer grid of `to_lattice * p` (rows by output axis, the leading dims x
    /// dims block used), and `local` is the remainder mapped back by `to_input`, its inverse
    /// ([`split_linear`]).
    Linear {
        /// Input to lattice coordinates.
        to_lattice: [[f64; 4]; 4],
        /// Lattice to input coordinates (the inverse of `to_lattice`).
        to_input: [[f64; 4]; 4],
    },
}

impl Lattice {
    /// A linear lattice from its input-to-lattice matrix (leading `dims` x `dims` block).
    pub fn linear(to_lattice: [[f64; 4]; 4], dims: u32) -> Self {
        Lattice::Linear {
            to_lattice,
            to_input: invert(to_lattice, dims as usize),
        }
    }
    /// Splits a frequency-scaled position into a lattice cell and a local offset in input
    /// space, as the family's [`Family::split_origin_with`] does.
    pub fn split(&self, dims: u32, p: [f64; 4], period: [i32; 4]) -> ([i32; 4], [f32; 4]) {
        match *self {
            Lattice::Cubic => split_cubic(dims, p, period),
            Lattice::Skewed { skew, unskew } => split_skewed(dims, p, skew, unskew),
            Lattice::Linear {
                to_lattice,
                to_input,
            } => split_linear(dims as usize, p, to_lattice, to_input),
        }
    }
    /// The input-to-lattice matrix in `dims` dimensions (the identity for a cubic lattice).
    pub fn to_lattice(&self, dims: u32) -> [[f64; 4]; 4] {
        match *self {
            Lattice::Cubic => IDENTITY,
            Lattice::Skewed { skew, .. } => ones_plus_identity(dims, skew),
            Lattice::Linear { to_lattice, .. } => to_lattice,
        }
    }
    /// The lattice-to-input matrix in `dims` dimensions (the identity for a cubic lattice).
    pub fn to_input(&self, dims: u32) -> [[f64; 4]; 4] {
        match *self {
            Lattice::Cubic => IDENTITY,
            Lattice::Skewed { unskew, .. } => ones_plus_identity(dims, -unskew),
            Lattice::Linear { to_input, .. } => to_input,
        }
    }
}

/// The identity plus `c` in every entry of the leading dims x dims block.
fn ones_plus_identity(dims: u32, c: f64) -> [[f64; 4]; 4] {
    let n = dims as usize;
    std::array::from_fn(|r| {
        std::array::from_fn(|col| {
            if r < n && col < n {
                IDENTITY[r][col] + c
            } else {
                0.0
            }
        })
    })
}

const IDENTITY: [[f64; 4]; 4] = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// Gauss-Jordan inverse of the leading n x n block (the rest stays 0).
pub fn invert(m: [[f64; 4]; 4], n: usize) -> [[f64; 4]; 4] {
    let mut a = m;
    let mut inv = [[0f64; 4]; 4];
    for (i, row) in inv.iter_mut().enumerate().take(n) {
        row[i] = 1.0;
    }
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let d = a[col][col];
        for c in 0..n {
            a[col][c] /= d;
            inv[col][c] /= d;
        }
        for r in 0..n {
            if r != col {
                let f = a[r][col];
                for c in 0..n {
                    a[r][c] -= f * a[col][c];
                    inv[r][c] -= f * inv[col][c];
                }
            }
        }
    }
    inv
}

/// Splits on the integer grid: cell = floor(p) (reduced modulo the period where one is
/// set, wrapping in i32 otherwise), local = p - floor(p).
pub fn split_cubic(dims: u32, p: [f64; 4], period: [i32; 4]) -> ([i32; 4], [f32; 4]) {
    let mut cell = [0i32; 4];
    let mut local = [0f32; 4];
    for k in 0..dims as usize {
        (cell[k], local[k]) = split_cubic_axis(p[k], period[k]);
    }
    (cell, local)
}

/// One axis of [`split_cubic`]: a cubic lattice splits each axis on its own, so a view's
/// columns split once for all its rows.
#[inline(always)]
pub fn split_cubic_axis(p: f64, period: i32) -> (i32, f32) {
    let fl = p.floor();
    let cell = if period > 0 {
        fl.rem_euclid(period as f64) as i32
    } else {
        wrap_to_i32(fl)
    };
    (cell, (p - fl) as f32)
}

/// Splits on a skewed simplex lattice: the cell is the floor of the skewed position, and
/// local is the remainder mapped back to input space.
pub fn split_skewed(dims: u32, p: [f64; 4], skew: f64, unskew: f64) -> ([i32; 4], [f32; 4]) {
    let n = dims as usize;
    let sum: f64 = p[..n].iter().sum();
    let mut cell = [0i32; 4];
    let mut rem = [0f64; 4];
    for k in 0..n {
        let s = p[k] + sum * skew;
        let fl = s.floor();
        rem[k] = s - fl;
        cell[k] = wrap_to_i32(fl);
    }
    let rsum: f64 = rem[..n].iter().sum();
    let mut local = [0f32; 4];
    for k in 0..n {
        local[k] = (rem[k] - rsum * unskew) as f32;
    }
    (cell, local)
}

/// Splits with a linear lattice transform `m` (input to lattice coordinates, `inv` its
/// inverse): the cell is the floor in lattice space, local the remainder mapped back to input
/// space.
pub fn split_linear(
    n: usize,
    p: [f64; 4],
    m: [[f64; 4]; 4],
    inv: [[f64; 4]; 4],
) -> ([i32; 4], [f32; 4]) {
    let s = mat_vec(&m, p, n);
    let mut cell = [0i32; 4];
    let mut rem = [0f64; 4];
    for k in 0..n {
        let fl = s[k].floor();
        rem[k] = s[k] - fl;
        cell[k] = wrap_to_i32(fl);
    }
    let back = mat_vec(&inv, rem, n);
    let mut local = [0f32; 4];
    for k in 0..n {
        local[k] = back[k] as f32;
    }
    (cell, local)
}

fn mat_vec(m: &[[f64; 4]; 4], v: [f64; 4], n: usize) -> [f64; 4] {
    let mut out = [0f64; 4];
    for (r, o) in out.iter_mut().enumerate().take(n) {
        *o = (0..n).map(|c| m[r][c] * v[c]).sum();
    }
    out
}

/// An integral f64 taken modulo 2^32 into i32, the wrap the integer hash assumes.
pub fn wrap_to_i32(v: f64) -> i32 {
    (v.rem_euclid(4294967296.0) as u64 as u32) as i32
}

/// Every family, in gallery order.
pub fn registry() -> &'static [&'static dyn Family] {
    &[
        &value::Value,
        &perlin::Perlin,
        &simplex::Simplex,
        &opensimplex2::OpenSimplex2,
        &cellular::Cellular,
        &gabor::Gabor,
        &phasor::Phasor,
        &wave::Wave,
        &wavelet::Wavelet,
    ]
}

/// Looks a family up by its JSON `type` name.
pub fn lookup(name: &str) -> Option<&'static dyn Family> {
    registry().iter().copied().find(|f| f.name() == name)
}

/// Shared parameter: the fade curve of value and Perlin noise.
pub const FADE_PARAM: ParamSpec = ParamSpec {
    name: "fade",
    kind: ParamKind::Choice {
        options: &["linear", "cubic", "quintic"],
        default: "quintic",
    },
    help: "interpolation curve: linear (C0), cubic 3t^2-2t^3 (C1, Perlin 1985), quintic (C2, Perlin 2002)",
};
