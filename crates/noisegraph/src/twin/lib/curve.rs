//! The `curve` remap: a cubic through control points, one piece per interval between two
//! points. Twin of `shaders/lib/curve.wgsl` (the value and derivative of one piece) and the
//! one definition of the piece lookup ([`curve_piece_index`], and [`wgsl_lookup`], its WGSL
//! over any table expression: the combine stage's uniform, an export's constant array).
//! The pieces are fitted on the host (`graph::curve`).
//!
//! A table holds two vec4s per control point i: `lo = (x_i, b_i, m_i, c2_i)` and `hi =
//! (c3_i, 0, 0, 0)`. On [x_i, x_{i+1}) the curve is `m a + b + c2 s^2 + c3 s^3` with
//! `s = a - x_i`; `s` is clamped at 0, so the first piece extends linearly below the first
//! point (slope m_0), and the last point's piece is the line that extends the curve above it
//! (c2 = c3 = 0). The line `m a + b` carries an identity curve whole (m = 1, b = 0, c2 = c3
//! = 0), so it returns `a` itself.

use super::grad::NoiseGrad;

/// Most control points a `curve` node takes (the schema's bound on `points`).
pub const MAX_CURVE_POINTS: usize = 32;

/// A curve's pieces as every path reads them: two vec4s per control point (module docs),
/// the first `2 * count` used.
pub type CurveTable = [[f32; 4]; 2 * MAX_CURVE_POINTS];

/// The value of one piece at `a` (twin of `curve_piece_value`).
#[inline(always)]
pub fn curve_piece_value(a: f32, lo: [f32; 4], hi: [f32; 4]) -> f32 {
    let s = (a - lo[0]).max(0.0);
    a * lo[2] + lo[1] + s * s * (lo[3] + s * hi[0])
}

/// d [`curve_piece_value`] / da: m + 2 c2 s + 3 c3 s^2.
#[inline(always)]
pub fn curve_piece_slope(a: f32, lo: [f32; 4], hi: [f32; 4]) -> f32 {
    let s = (a - lo[0]).max(0.0);
    lo[2] + s * (2.0 * lo[3] + 3.0 * s * hi[0])
}

/// The piece `a` falls in: the last point i >= 1 with a >= x_i, else 0 (below the second
/// point, and for NaN). `pieces` is the used part of a table (`2 * count` vec4s). A binary
/// search over the increasing x (at most 5 steps for 32 points).
#[inline(always)]
pub fn curve_piece_index(a: f32, pieces: &[[f32; 4]]) -> usize {
    let (mut lo, mut hi) = (0, pieces.len() / 2);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if a >= pieces[2 * mid][0] {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The curve's value at `a`.
#[inline(always)]
pub fn curve_value(a: f32, pieces: &[[f32; 4]]) -> f32 {
    let i = curve_piece_index(a, pieces);
    curve_piece_value(a, pieces[2 * i], pieces[2 * i + 1])
}

/// [`curve_value`] with gradients (twin of `curve_piece_grad` after the lookup): the value
/// bit for bit, the gradient `a`'s times the piece's slope.
#[inline(always)]
pub fn curve_grad(a: NoiseGrad, pieces: &[[f32; 4]]) -> NoiseGrad {
    let i = curve_piece_index(a.value, pieces);
    let (lo, hi) = (pieces[2 * i], pieces[2 * i + 1]);
    let slope = curve_piece_slope(a.value, lo, hi);
    NoiseGrad {
        value: curve_piece_value(a.value, lo, hi),
        d: [
            a.d[0] * slope,
            a.d[1] * slope,
            a.d[2] * slope,
            a.d[3] * slope,
        ],
    }
}

/// The WGSL of the lookup over a table, as [`curve_piece_index`], [`curve_value`] and
/// [`curve_grad`] do it: `fn {prefix}curve_index(a: f32) -> u32`, `fn {prefix}curve_value(a:
/// f32) -> f32` and `fn {prefix}curve_grad(a: NoiseGrad) -> NoiseGrad`. `table` is an
/// expression of an `array<vec4<f32>, N>` laid out as the module docs say, `count` one of the
/// number of points (a u32); `name` maps a library name (`curve_piece_value`,
/// `curve_piece_grad`, `NoiseGrad`) to its name in the module.
pub fn wgsl_lookup(
    prefix: &str,
    table: &str,
    count: &str,
    name: impl Fn(&str) -> String,
) -> String {
    let grad = name("NoiseGrad");
    let value_fn = name("curve_piece_value");
    let grad_fn = name("curve_piece_grad");
    format!(
        "fn {prefix}curve_index(a: f32) -> u32 {{\n\
         \x20   var lo = 0u;\n\
         \x20   var hi = {count};\n\
         \x20   while (hi - lo > 1u) {{\n\
         \x20       let mid = (lo + hi) / 2u;\n\
         \x20       if (a >= {table}[2u * mid].x) {{ lo = mid; }} else {{ hi = mid; }}\n\
         \x20   }}\n\
         \x20   return lo;\n\
         }}\n\
         fn {prefix}curve_value(a: f32) -> f32 {{\n\
         \x20   let i = {prefix}curve_index(a);\n\
         \x20   return {value_fn}(a, {table}[2u * i], {table}[2u * i + 1u]);\n\
         }}\n\
         fn {prefix}curve_grad(a: {grad}) -> {grad} {{\n\
         \x20   let i = {prefix}curve_index(a.value);\n\
         \x20   return {grad_fn}(a, {table}[2u * i], {table}[2u * i + 1u]);\n\
         }}\n"
    )
}
