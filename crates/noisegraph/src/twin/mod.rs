//! The CPU twins: one plain-Rust file per WGSL file (`shaders/x.wgsl` has its twin in
//! `twin/x.rs`, `shaders/lib/hash.wgsl` in `twin/lib/hash.rs`), with the same function names,
//! constants and order of operations, so the GPU output can be checked against it. The twins'
//! row and points loops are the same operations over many samples, written so the compiler
//! vectorizes them; the hand-written AVX-512 rows are in `crate::cpu`. The stage template's
//! twin is the CPU executor (`crate::engine::stage`), the exported graph functions' twin the
//! point-query program (`crate::query::point`). This layer depends on nothing in the crate
//! but `crate::vector` (the loops' vector width).

pub mod analytic_normal;
pub mod cellular;
pub mod combine;
pub mod export;
pub mod gabor;
pub mod lib;
pub mod normal_map;
pub mod opensimplex2;
pub mod perlin;
pub mod phasor;
pub mod sample;
pub mod simplex;
pub mod value;
pub mod wave;
pub mod wavelet;

pub use crate::vector::{vector_width, vectorized, VectorWidth};
pub use lib::{fade, grad, hash, turns};

/// `[f(0), f(1)]`, always inlined (see [`each3`]).
#[inline(always)]
pub fn each2<T>(f: impl Fn(usize) -> T) -> [T; 2] {
    [f(0), f(1)]
}

/// `[f(0), f(1), f(2)]`, always inlined: the gradient kernels build their small arrays with
/// this instead of array `map`, whose calls LLVM left out of line in them, which kept the
/// loops over samples from vectorizing. The same operations either way.
#[inline(always)]
pub fn each3<T>(f: impl Fn(usize) -> T) -> [T; 3] {
    [f(0), f(1), f(2)]
}

/// Fills `out` with `sample` of each point of `row`, in a loop compiled for the widest vector
/// unit the CPU has (see [`vectorized`]): for kernels without branches, whose loop over the row then vectorizes. `sample`
/// must be an `#[inline(always)]` closure (see [`vectorized`]).
#[inline(always)]
pub fn fill_row_vectorized(
    row: &sample::SampleRow,
    out: &mut [f32],
    sample: impl Fn(&sample::SamplePoint) -> f32,
) {
    vectorized(
        #[inline(always)]
        || {
            for (i, o) in out.iter_mut().enumerate() {
                *o = sample(&row.point(i));
            }
        },
    )
}

/// `$lanes::<F>(args)` through [`vectorized`], with the fade curve `$fade` (a runtime `u32`)
/// as the constant `F`: one vectorized copy of a row loop per fade curve.
macro_rules! vectorized_by_fade {
    ($fade:expr, $lanes:ident($($arg:expr),*)) => {{
        use $crate::twin::fade::{FADE_CUBIC, FADE_LINEAR, FADE_QUINTIC};
        match $fade {
            FADE_QUINTIC => $crate::vector::vectorized(
                #[inline(always)]
                || $lanes::<FADE_QUINTIC>($($arg),*),
            ),
            FADE_CUBIC => $crate::vector::vectorized(
                #[inline(always)]
                || $lanes::<FADE_CUBIC>($($arg),*),
            ),
            _ => $crate::vector::vectorized(
                #[inline(always)]
                || $lanes::<FADE_LINEAR>($($arg),*),
            ),
        }
    }};
}
pub(crate) use vectorized_by_fade;

/// WGSL's `floor` for the twins. `f32::floor` is a libm call on baseline x86-64 (no SSE4.1
/// `roundss`), which made it the largest single cost of a CPU sample; this is exact for every
/// finite f32 (values of magnitude 2^23 and above are already integers, and come back
/// unchanged like NaN). Written without branches or saturating casts so that loops over many
/// samples vectorize.
#[inline(always)]
pub fn floor(x: f32) -> f32 {
    let small = x.abs() < 8_388_608.0; // false for NaN
    let xs = if small { x } else { 0.0 };
    // SAFETY: |xs| < 2^23, so its truncation fits in an i32.
    let t = unsafe { xs.to_int_unchecked::<i32>() } as f32;
    let t = if t > xs { t - 1.0 } else { t };
    if small {
        t
    } else {
        x
    }
}

/// Coordinates of smaller magnitude than this (2^23) have an exact truncation in i32 and f32.
pub const SMALL_COORDINATE: f32 = 8_388_608.0;

/// `(floor(x), to_i32(floor(x)))`: the lattice cell of one coordinate and its position as a
/// float. With `SMALL` the caller guarantees |x| < 2^23 (not NaN), where the same numbers
/// take a third of the instructions (a row sampler checks its row once, see
/// [`sample::SampleRow::x_is_small`]).
#[inline(always)]
pub fn split_cell<const SMALL: bool>(x: f32) -> (f32, i32) {
    if SMALL {
        // SAFETY: the caller guarantees |x| < 2^23, so its truncation fits in an i32.
        let t = unsafe { x.to_int_unchecked::<i32>() };
        let tf = t as f32;
        // As `floor`: the truncation, one less when it is above x (exact at this size).
        if tf > x {
            (tf - 1.0, t - 1)
        } else {
            (tf, t)
        }
    } else {
        let fl = floor(x);
        (fl, to_i32(fl))
    }
}

/// `x as i32` (toward zero, saturating, NaN to 0: the same number for every input), written so
/// that loops over many samples vectorize. LLVM compiles `as` from f32 to a scalar conversion
/// with two fix-ups per lane even in vectorized loops, where it was the largest cost of the row
/// samplers (two conversions per sample and octave).
#[inline(always)]
pub fn to_i32(x: f32) -> i32 {
    let in_range = x.abs() < 2_147_483_648.0; // false for NaN
    let xs = if in_range { x } else { 0.0 };
    // SAFETY: |xs| < 2^31, so its truncation fits in an i32.
    let t = unsafe { xs.to_int_unchecked::<i32>() };
    let saturated = if x > 0.0 {
        i32::MAX
    } else if x < 0.0 {
        i32::MIN
    } else {
        0
    };
    if in_range {
        t
    } else {
        saturated
    }
}
