//! OpenSimplex2 (K.jpg's public-domain design), fast and smooth variants in 2D, 3D and 4D.
//! Twin of `shaders/opensimplex2.wgsl`.
//!
//! Every lattice point within radius r of the sample adds `(r^2 - |d|^2)^4 * dot(g, d)`; the
//! variants differ in the lattice points they visit and in r^2. Each variant visits every
//! point within its radius (tests/lattice_properties.rs checks against all points nearby),
//! so the sum is continuous, with its first three derivatives:
//! - 2D: the triangular lattice of 2D simplex noise. Fast: the 3 corners of the containing
//!   triangle, r^2 = 1/2 (the triangle's squared height, so no other point is in range).
//!   Smooth: every point in range (at most 4 of the 8 candidates around the skewed cell),
//!   r^2 = 2/3.
//! - 3D: a body-centred cubic lattice (two cubic lattices offset by half a cell) after the
//!   "ImproveXY" rotation, which points the lattice's main diagonal along z so XY slices look
//!   isotropic (the reference's recommendation for z = time or height). Fast: per cubic
//!   lattice the nearest point and its neighbour along the axis of largest offset,
//!   r^2 = 1/2: with offset d from the nearest point (|d_k| <= 1/2), the neighbour along
//!   axis k is in range only when 2 |d_k| > 1/2 + |d|^2, which no two axes can meet at once
//!   ((|d_j| - 1/2)^2 + (|d_k| - 1/2)^2 >= 0), and farther points are at least 1/2 away.
//!   Smooth: every point in range (8 candidates per cubic lattice), r^2 = 3/4.
//! - 4D: the "ImproveXY_ImproveZW" orientation (XY and ZW planes both triangular; the
//!   reference's recommendation for noise(x, y, cos t, sin t), our looping-animation case).
//!   Fast: five copies of the skewed integer lattice offset by 0.2 along the diagonal, one
//!   point per copy (the closest vertex of the simplex whose base is the copy's base point),
//!   r^2 = 1/2: points of one copy are at least sqrt 2 apart, so at most one is in range,
//!   and the walk finds it. Smooth: every point of the A4 lattice in range, r^2 = 4/5,
//!   candidates taken from a host-built table per 1/4-sized sub-cube of the skewed cell.
//!
//! The fast radius is the one of K.jpg's original OpenSimplex2F (2020). Later versions of
//! the reference use r^2 = 0.6 in 3D and 4D with the same point selection: that radius
//! reaches points the selection does not visit (a second neighbour in 3D, a second point of
//! a copy in 4D), whose terms then vanish abruptly where the selection changes (jumps of up
//! to 4.4e-3 in 3D and 3.4e-3 in 4D, measured by tests/continuity.rs before this changed).
//!
//! Each function has a gradient form (`_grad`): the value and its derivatives with respect
//! to `local`. A term's derivative with respect to its offset d is
//! `a^4 g - 8 a^3 (g . d) d` (a = r^2 - |d|^2), and d is an isometric linear function of
//! `local` (the lattice transform, then the unskew; tests in `family::opensimplex2` check it
//! is a rotation), so the derivative with respect to `local` is the transpose of that map
//! applied to the sum. The plain functions are their gradient forms' values.
//!
//! Gradients are the reference's sets (24 in 2D, 48 in 3D, 160 in 4D), normalised to unit
//! length and read from the family's auxiliary buffer (`aux`), picked by `hash % count`.
//! Lattice points are hashed with hash_2d/3d/4d (copies salted), not the reference's primes.
//! `cell` is the integer lattice offset the host split off in f64 (in lattice coordinates)
//! and `local` the remainder mapped back to input space. The scales are 1 / the numerical
//! maxima of the sum over a cell (every point's gradient the best-aligned one of the set);
//! see tests/lattice_scales.rs.

use super::grad::NoiseGrad;
use super::hash::{hash_2d, hash_4d};

/// Variant: OpenSimplex2 (fast).
pub const OS2_FAST: u32 = 0;
/// Variant: OpenSimplex2S (smooth).
pub const OS2_SMOOTH: u32 = 1;

/// 2D skew factor (sqrt(3) - 1) / 2.
pub const OS2_SKEW_2D: f32 = 0.366_025_42;
/// 2D unskew factor (1 / sqrt(3) - 1) / 2.
pub const OS2_UNSKEW_2D: f32 = -0.211_324_87;
/// 1 / sqrt(3), used by the 3D rotation.
pub const OS2_ROOT3OVER3: f32 = 0.577_350_26;
/// 4D unskew factor for the fast variant.
pub const OS2_UNSKEW_4D_FAST: f32 = 0.309_017;
/// 4D unskew factor for the smooth variant.
pub const OS2_UNSKEW_4D_SMOOTH: f32 = -0.138_196_6;
/// Squared kernel radius of the fast variant (every dims).
pub const OS2_RSQ_FAST: f32 = 0.5;
/// Squared kernel radius of 2D smooth.
pub const OS2_RSQ_2D_SMOOTH: f32 = 2.0 / 3.0;
/// Squared kernel radius of 3D smooth.
pub const OS2_RSQ_3D_SMOOTH: f32 = 0.75;
/// Squared kernel radius of 4D smooth.
pub const OS2_RSQ_4D_SMOOTH: f32 = 0.8;
/// The 4D lattice transform of the fast variant (`os2_skew_4d`): x and y get
/// `(x + y) * S_XY + (z + w) * S_ZW`, z and w get `(z + w) * T_ZW + (x + y) * T_XY`.
pub const OS2_4D_FAST_S_XY: f32 = -0.178_275_66;
/// See [`OS2_4D_FAST_S_XY`].
pub const OS2_4D_FAST_S_ZW: f32 = 0.215_623_4;
/// See [`OS2_4D_FAST_S_XY`].
pub const OS2_4D_FAST_T_ZW: f32 = -0.403_949_77;
/// See [`OS2_4D_FAST_S_XY`].
pub const OS2_4D_FAST_T_XY: f32 = -0.375_199_08;
/// The 4D lattice transform of the smooth variant (as [`OS2_4D_FAST_S_XY`]).
pub const OS2_4D_SMOOTH_S_XY: f32 = -0.285_225_15;
/// See [`OS2_4D_SMOOTH_S_XY`].
pub const OS2_4D_SMOOTH_S_ZW: f32 = 0.838_970_66;
/// See [`OS2_4D_SMOOTH_S_XY`].
pub const OS2_4D_SMOOTH_T_ZW: f32 = 0.219_397_5;
/// See [`OS2_4D_SMOOTH_S_XY`].
pub const OS2_4D_SMOOTH_T_XY: f32 = -0.482_148_56;
/// Shift along every axis between successive 4D lattice copies.
pub const OS2_LATTICE_STEP_4D: f32 = 0.2;
/// Salt added to the seed hash per lattice copy (3D: 2 copies, 4D fast: 5 copies).
pub const OS2_COPY_SALT: u32 = 0x9E37_79B9;
/// Number of gradients in the 2D, 3D and 4D sets.
pub const OS2_GRADS_2D: u32 = 24;
/// Number of 3D gradients.
pub const OS2_GRADS_3D: u32 = 48;
/// Number of 4D gradients.
pub const OS2_GRADS_4D: u32 = 160;
/// Where the 4D smooth candidate table starts in `aux` (after the 160 x 4 gradients):
/// 256 (start, count) pairs, then the candidate offsets, 4 floats each.
pub const OS2_LOOKUP_4D: u32 = 640;

/// Output scale that maps 2D fast to [-1, 1].
pub const OS2_SCALE_2D_FAST: f32 = 99.836_85;
/// Output scale that maps 2D smooth to [-1, 1].
pub const OS2_SCALE_2D_SMOOTH: f32 = 18.241_962;
/// Output scale that maps 3D fast to [-1, 1].
pub const OS2_SCALE_3D_FAST: f32 = 108.291_2;
/// Output scale that maps 3D smooth to [-1, 1].
pub const OS2_SCALE_3D_SMOOTH: f32 = 11.867_175;
/// Output scale that maps 4D fast to [-1, 1].
pub const OS2_SCALE_4D_FAST: f32 = 108.705_5;
/// Output scale that maps 4D smooth to [-1, 1].
pub const OS2_SCALE_4D_SMOOTH: f32 = 8.986_824;

#[inline(always)]
fn os2_falloff(a: f32) -> f32 {
    let a2 = a * a;
    a2 * a2
}

/// The unit gradient of lattice hash `h` in 2D, from the set in `aux`.
#[inline(always)]
fn os2_gradient_2d(aux: &[f32], h: u32) -> [f32; 2] {
    let i = ((h % OS2_GRADS_2D) * 2) as usize;
    [aux[i], aux[i + 1]]
}

/// The unit gradient of lattice hash `h` in 3D.
#[inline(always)]
fn os2_gradient_3d(aux: &[f32], h: u32) -> [f32; 3] {
    let i = ((h % OS2_GRADS_3D) * 3) as usize;
    [aux[i], aux[i + 1], aux[i + 2]]
}

/// The unit gradient of lattice hash `h` in 4D.
#[inline(always)]
fn os2_gradient_4d(aux: &[f32], h: u32) -> [f32; 4] {
    let i = ((h % OS2_GRADS_4D) * 4) as usize;
    [aux[i], aux[i + 1], aux[i + 2], aux[i + 3]]
}

/// A lattice point's term `a^4 (g . d)` (`dot` = g . d, a = r^2 - |d|^2 > 0) and its
/// derivative with respect to the offset d, `a^4 g - 8 a^3 (g . d) d`.
#[inline(always)]
fn os2_term(a: f32, dot: f32, g: [f32; 4], d: [f32; 4]) -> NoiseGrad {
    let a4 = os2_falloff(a);
    let k = 8.0 * (a * a * a) * dot;
    NoiseGrad {
        value: a4 * dot,
        d: [
            a4 * g[0] - k * d[0],
            a4 * g[1] - k * d[1],
            a4 * g[2] - k * d[2],
            a4 * g[3] - k * d[3],
        ],
    }
}

/// Component-wise sum of two terms.
#[inline(always)]
fn os2_add(a: NoiseGrad, b: NoiseGrad) -> NoiseGrad {
    NoiseGrad {
        value: a.value + b.value,
        d: [
            a.d[0] + b.d[0],
            a.d[1] + b.d[1],
            a.d[2] + b.d[2],
            a.d[3] + b.d[3],
        ],
    }
}

/// The contribution of lattice point `base + v` (skewed offsets) in 2D.
#[inline(always)]
fn os2_vertex_2d(
    aux: &[f32],
    base: [i32; 2],
    v: [i32; 2],
    d0: [f32; 2],
    rsq: f32,
    seed_h: u32,
) -> NoiseGrad {
    let t = (v[0] + v[1]) as f32 * OS2_UNSKEW_2D;
    let d = [d0[0] - (v[0] as f32 + t), d0[1] - (v[1] as f32 + t)];
    let a = rsq - (d[0] * d[0] + d[1] * d[1]);
    if a <= 0.0 {
        return NoiseGrad::default();
    }
    let p = [base[0].wrapping_add(v[0]), base[1].wrapping_add(v[1])];
    let g = os2_gradient_2d(aux, hash_2d(p, seed_h));
    let dot = g[0] * d[0] + g[1] * d[1];
    os2_term(a, dot, [g[0], g[1], 0.0, 0.0], [d[0], d[1], 0.0, 0.0])
}

/// CPU twin of `opensimplex2_2d` in shaders/opensimplex2.wgsl.
pub fn opensimplex2_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    variant: u32,
    aux: &[f32],
) -> f32 {
    opensimplex2_2d_grad(cell, local, seed_h, variant, aux).value
}

/// CPU twin of `opensimplex2_2d_grad` in shaders/opensimplex2.wgsl: the value and its
/// derivatives with respect to `local` (the 2D skew and unskew cancel: the offsets move one
/// for one with `local`).
#[inline(always)]
pub fn opensimplex2_2d_grad(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    variant: u32,
    aux: &[f32],
) -> NoiseGrad {
    let s = (local[0] + local[1]) * OS2_SKEW_2D;
    let xs = [local[0] + s, local[1] + s];
    let fl = xs.map(super::floor);
    let si = [xs[0] - fl[0], xs[1] - fl[1]];
    let t = (si[0] + si[1]) * OS2_UNSKEW_2D;
    let d0 = [si[0] + t, si[1] + t];
    let base = [
        cell[0].wrapping_add(super::to_i32(fl[0])),
        cell[1].wrapping_add(super::to_i32(fl[1])),
    ];
    let vertex = |v: [i32; 2], rsq: f32| os2_vertex_2d(aux, base, v, d0, rsq, seed_h);
    let (sum, scale) = if variant == OS2_FAST {
        let third = if d0[1] > d0[0] { [0, 1] } else { [1, 0] };
        let sum = os2_add(
            os2_add(vertex([0, 0], OS2_RSQ_FAST), vertex([1, 1], OS2_RSQ_FAST)),
            vertex(third, OS2_RSQ_FAST),
        );
        (sum, OS2_SCALE_2D_FAST)
    } else {
        // Every point within sqrt(2/3) of a point in the skewed cell is one of these eight.
        let rsq = OS2_RSQ_2D_SMOOTH;
        let sum = os2_add(
            os2_add(
                os2_add(
                    os2_add(vertex([0, 0], rsq), vertex([1, 1], rsq)),
                    os2_add(vertex([1, 0], rsq), vertex([0, 1], rsq)),
                ),
                os2_add(vertex([-1, 0], rsq), vertex([0, -1], rsq)),
            ),
            os2_add(vertex([2, 1], rsq), vertex([1, 2], rsq)),
        );
        (sum, OS2_SCALE_2D_SMOOTH)
    };
    NoiseGrad {
        value: scale * sum.value,
        d: [scale * sum.d[0], scale * sum.d[1], 0.0, 0.0],
    }
}

/// The "ImproveXY" rotation: orthonormal, the lattice diagonal along z.
#[inline(always)]
pub fn os2_rotate_3d(p: [f32; 3]) -> [f32; 3] {
    let xy = p[0] + p[1];
    let s2 = xy * OS2_UNSKEW_2D;
    let zz = p[2] * OS2_ROOT3OVER3;
    [p[0] + s2 + zz, p[1] + s2 + zz, xy * -OS2_ROOT3OVER3 + zz]
}

/// The transpose (= inverse) of [`os2_rotate_3d`]: a derivative in the rotated frame to one
/// with respect to the input.
#[inline(always)]
pub fn os2_rotate_3d_transpose(g: [f32; 3]) -> [f32; 3] {
    let xy = g[0] + g[1];
    let s2 = xy * OS2_UNSKEW_2D;
    let zz = g[2] * OS2_ROOT3OVER3;
    [g[0] + s2 - zz, g[1] + s2 - zz, (xy + g[2]) * OS2_ROOT3OVER3]
}

/// The contribution of point `n` of cubic lattice copy `copy` (offset `d` from it).
#[inline(always)]
fn os2_vertex_3d(
    aux: &[f32],
    cell: [i32; 3],
    n: [i32; 3],
    copy: i32,
    d: [f32; 3],
    rsq: f32,
    seed_h: u32,
) -> NoiseGrad {
    let a = rsq - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if a <= 0.0 {
        return NoiseGrad::default();
    }
    let p = [
        cell[0].wrapping_add(n[0]),
        cell[1].wrapping_add(n[1]),
        cell[2].wrapping_add(n[2]),
        copy,
    ];
    let g = os2_gradient_3d(aux, hash_4d(p, seed_h));
    let dot = g[0] * d[0] + g[1] * d[1] + g[2] * d[2];
    os2_term(a, dot, [g[0], g[1], g[2], 0.0], [d[0], d[1], d[2], 0.0])
}

/// CPU twin of `opensimplex2_3d` in shaders/opensimplex2.wgsl.
pub fn opensimplex2_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    variant: u32,
    aux: &[f32],
) -> f32 {
    opensimplex2_3d_grad(cell, local, seed_h, variant, aux).value
}

/// CPU twin of `opensimplex2_3d_grad` in shaders/opensimplex2.wgsl: the value and its
/// derivatives with respect to `local` (through the transpose of the rotation).
#[inline(always)]
pub fn opensimplex2_3d_grad(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    variant: u32,
    aux: &[f32],
) -> NoiseGrad {
    let r = os2_rotate_3d(local);
    let mut sum = NoiseGrad::default();
    for copy in 0..2 {
        // Copy 1 is the cubic lattice shifted by half a cell on every axis.
        let shift = 0.5 * copy as f32;
        let q = [r[0] - shift, r[1] - shift, r[2] - shift];
        if variant == OS2_FAST {
            let n = q.map(|v| super::floor(v + 0.5));
            let d = [q[0] - n[0], q[1] - n[1], q[2] - n[2]];
            let ni = n.map(super::to_i32);
            sum = os2_add(
                sum,
                os2_vertex_3d(aux, cell, ni, copy, d, OS2_RSQ_FAST, seed_h),
            );
            // The second-closest point: one step along the axis of largest offset.
            let ad = d.map(f32::abs);
            let axis = if ad[0] >= ad[1] && ad[0] >= ad[2] {
                0
            } else if ad[1] > ad[0] && ad[1] >= ad[2] {
                1
            } else {
                2
            };
            let step = if d[axis] >= 0.0 { 1 } else { -1 };
            // Wrapping, as the lattice hash assumes: a huge `local` saturates `ni`.
            let mut n2 = ni;
            n2[axis] = n2[axis].wrapping_add(step);
            let mut d2 = d;
            d2[axis] -= step as f32;
            sum = os2_add(
                sum,
                os2_vertex_3d(aux, cell, n2, copy, d2, OS2_RSQ_FAST, seed_h),
            );
        } else {
            // r = sqrt(3/4) < 1, so only the two integers around q on each axis can be in range.
            let b = q.map(super::floor);
            let bi = b.map(super::to_i32);
            for corner in 0..8 {
                let v = [corner & 1, (corner >> 1) & 1, (corner >> 2) & 1];
                let d = [
                    q[0] - (b[0] + v[0] as f32),
                    q[1] - (b[1] + v[1] as f32),
                    q[2] - (b[2] + v[2] as f32),
                ];
                let n = [0, 1, 2].map(|k| bi[k].wrapping_add(v[k]));
                sum = os2_add(
                    sum,
                    os2_vertex_3d(aux, cell, n, copy, d, OS2_RSQ_3D_SMOOTH, seed_h),
                );
            }
        }
    }
    let scale = if variant == OS2_FAST {
        OS2_SCALE_3D_FAST
    } else {
        OS2_SCALE_3D_SMOOTH
    };
    let g = os2_rotate_3d_transpose([sum.d[0], sum.d[1], sum.d[2]]);
    NoiseGrad {
        value: scale * sum.value,
        d: [scale * g[0], scale * g[1], scale * g[2], 0.0],
    }
}

/// The "ImproveXY_ImproveZW" lattice transform of each variant (input space to skewed
/// lattice coordinates).
#[inline(always)]
pub fn os2_skew_4d(p: [f32; 4], variant: u32) -> [f32; 4] {
    let xy = p[0] + p[1];
    let zw = p[2] + p[3];
    let (s2, t2) = if variant == OS2_FAST {
        (
            xy * OS2_4D_FAST_S_XY + zw * OS2_4D_FAST_S_ZW,
            zw * OS2_4D_FAST_T_ZW + xy * OS2_4D_FAST_T_XY,
        )
    } else {
        (
            xy * OS2_4D_SMOOTH_S_XY + zw * OS2_4D_SMOOTH_S_ZW,
            zw * OS2_4D_SMOOTH_T_ZW + xy * OS2_4D_SMOOTH_T_XY,
        )
    };
    [p[0] + s2, p[1] + s2, p[2] + t2, p[3] + t2]
}

/// The transpose of [`os2_skew_4d`]: a derivative with respect to the skewed lattice
/// coordinates to one with respect to the input.
#[inline(always)]
pub fn os2_skew_4d_transpose(g: [f32; 4], variant: u32) -> [f32; 4] {
    let xy = g[0] + g[1];
    let zw = g[2] + g[3];
    let (s2, t2) = if variant == OS2_FAST {
        (
            xy * OS2_4D_FAST_S_XY + zw * OS2_4D_FAST_T_XY,
            zw * OS2_4D_FAST_T_ZW + xy * OS2_4D_FAST_S_ZW,
        )
    } else {
        (
            xy * OS2_4D_SMOOTH_S_XY + zw * OS2_4D_SMOOTH_T_XY,
            zw * OS2_4D_SMOOTH_T_ZW + xy * OS2_4D_SMOOTH_S_ZW,
        )
    };
    [g[0] + s2, g[1] + s2, g[2] + t2, g[3] + t2]
}

/// The contribution of lattice point `base + v` at skewed offset `p` from the sample; its
/// derivative is with respect to the unskewed offset d.
#[inline(always)]
fn os2_vertex_4d(
    aux: &[f32],
    point: [i32; 4],
    p: [f32; 4],
    unskew: f32,
    rsq: f32,
    seed_h: u32,
) -> NoiseGrad {
    let t = ((p[0] + p[1]) + (p[2] + p[3])) * unskew;
    let d = [p[0] + t, p[1] + t, p[2] + t, p[3] + t];
    let a = rsq - ((d[0] * d[0] + d[1] * d[1]) + (d[2] * d[2] + d[3] * d[3]));
    if a <= 0.0 {
        return NoiseGrad::default();
    }
    let g = os2_gradient_4d(aux, hash_4d(point, seed_h));
    let dot = (g[0] * d[0] + g[1] * d[1]) + (g[2] * d[2] + g[3] * d[3]);
    os2_term(a, dot, g, d)
}

/// CPU twin of `opensimplex2_4d` in shaders/opensimplex2.wgsl.
pub fn opensimplex2_4d(
    cell: [i32; 4],
    local: [f32; 4],
    seed_h: u32,
    variant: u32,
    aux: &[f32],
) -> f32 {
    opensimplex2_4d_grad(cell, local, seed_h, variant, aux).value
}

/// CPU twin of `opensimplex2_4d_grad` in shaders/opensimplex2.wgsl: the value and its
/// derivatives with respect to `local`. The offsets are d = (I + u 1 1^T) p with p the
/// skewed offset (u the variant's unskew) and p = S local - const (S the lattice
/// transform), so d/dlocal = S^T (I + u 1 1^T) d/dd.
#[inline(always)]
pub fn opensimplex2_4d_grad(
    cell: [i32; 4],
    local: [f32; 4],
    seed_h: u32,
    variant: u32,
    aux: &[f32],
) -> NoiseGrad {
    let s = os2_skew_4d(local, variant);
    let fl = s.map(super::floor);
    let si = [s[0] - fl[0], s[1] - fl[1], s[2] - fl[2], s[3] - fl[3]];
    let base = [0, 1, 2, 3].map(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let mut sum = NoiseGrad::default();
    let (unskew, scale) = if variant == OS2_FAST {
        // Five copies of the lattice, 0.2 apart along the diagonal, one point from each. Start
        // with the copy whose base simplex surely holds a contributing point; each next
        // point is the closest vertex of the simplex based at the previous one.
        let total = (si[0] + si[1]) + (si[2] + si[3]);
        let start = ((total * 1.25) as i32).min(4);
        let first_shift = OS2_LATTICE_STEP_4D * start as f32;
        let mut p = si.map(|v| v - first_shift);
        let mut point = base;
        let mut copy = start;
        for step in 0..5 {
            let score0 = 1.0 - ((p[0] + p[1]) + (p[2] + p[3]));
            let axis = if p[0] >= p[1] && p[0] >= p[2] && p[0] >= p[3] && p[0] >= score0 {
                0
            } else if p[1] > p[0] && p[1] >= p[2] && p[1] >= p[3] && p[1] >= score0 {
                1
            } else if p[2] > p[0] && p[2] > p[1] && p[2] >= p[3] && p[2] >= score0 {
                2
            } else if p[3] > p[0] && p[3] > p[1] && p[3] > p[2] && p[3] >= score0 {
                3
            } else {
                4
            };
            if axis < 4 {
                p[axis] -= 1.0;
                point[axis] = point[axis].wrapping_add(1);
            }
            let salted = seed_h.wrapping_add((copy as u32).wrapping_mul(OS2_COPY_SALT));
            sum = os2_add(
                sum,
                os2_vertex_4d(aux, point, p, OS2_UNSKEW_4D_FAST, OS2_RSQ_FAST, salted),
            );
            // The next copy sits 0.2 further down the diagonal; below copy 0 it wraps to
            // copy 4 one lattice step down (m - 0.2 = (m - 1) + 0.8).
            p = p.map(|v| v + OS2_LATTICE_STEP_4D);
            copy -= 1;
            if step == start {
                point = point.map(|v| v.wrapping_sub(1));
                copy += 5;
            }
        }
        (OS2_UNSKEW_4D_FAST, OS2_SCALE_4D_FAST)
    } else {
        // Smooth: the candidates listed for this 1/4-sized sub-cube of the skewed cell.
        let q = si.map(|v| (super::floor(v * 4.0) as u32).min(3));
        let entry = (OS2_LOOKUP_4D + 2 * (q[0] + 4 * q[1] + 16 * q[2] + 64 * q[3])) as usize;
        let first = aux[entry] as u32;
        let count = aux[entry + 1] as u32;
        for j in first..first + count {
            let c = (OS2_LOOKUP_4D + 512 + 4 * j) as usize;
            let v = [aux[c], aux[c + 1], aux[c + 2], aux[c + 3]];
            let p = [si[0] - v[0], si[1] - v[1], si[2] - v[2], si[3] - v[3]];
            let point = [0, 1, 2, 3].map(|k| base[k].wrapping_add(v[k] as i32));
            sum = os2_add(
                sum,
                os2_vertex_4d(
                    aux,
                    point,
                    p,
                    OS2_UNSKEW_4D_SMOOTH,
                    OS2_RSQ_4D_SMOOTH,
                    seed_h,
                ),
            );
        }
        (OS2_UNSKEW_4D_SMOOTH, OS2_SCALE_4D_SMOOTH)
    };
    let t = ((sum.d[0] + sum.d[1]) + (sum.d[2] + sum.d[3])) * unskew;
    let g = os2_skew_4d_transpose(sum.d.map(|v| v + t), variant);
    NoiseGrad {
        value: scale * sum.value,
        d: g.map(|v| scale * v),
    }
}
