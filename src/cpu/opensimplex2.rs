//! OpenSimplex2 (K.jpg's public-domain design), fast and smooth variants in 2D, 3D and 4D.
//! Twin of `shaders/opensimplex2.wgsl`.
//!
//! Every lattice point within radius r of the sample adds `(r^2 - |d|^2)^4 * dot(g, d)`; the
//! variants differ in the lattice points they visit and in r^2:
//! - 2D: the triangular lattice of 2D simplex noise. Fast: the 3 corners of the containing
//!   triangle, r^2 = 1/2. Smooth: every point in range (at most 4 of the 8 candidates around
//!   the skewed cell), r^2 = 2/3.
//! - 3D: a body-centred cubic lattice (two cubic lattices offset by half a cell) after the
//!   "ImproveXY" rotation, which points the lattice's main diagonal along z so XY slices look
//!   isotropic (the reference's recommendation for z = time or height). Fast: per cubic
//!   lattice the nearest point and its neighbour along the axis of largest offset,
//!   r^2 = 0.6. Smooth: every point in range (8 candidates per cubic lattice), r^2 = 3/4.
//! - 4D: the "ImproveXY_ImproveZW" orientation (XY and ZW planes both triangular; the
//!   reference's recommendation for noise(x, y, cos t, sin t), our looping-animation case).
//!   Fast: five copies of the skewed integer lattice offset by 0.2 along the diagonal, one
//!   point per copy (the closest vertex of the simplex whose base is the copy's base point),
//!   r^2 = 0.6. Smooth: every point of the A4 lattice in range, r^2 = 4/5, candidates
//!   taken from a host-built table per 1/4-sized sub-cube of the skewed cell.
//!
//! Gradients are the reference's sets (24 in 2D, 48 in 3D, 160 in 4D), normalised to unit
//! length and read from the family's auxiliary buffer (`aux`), picked by `hash % count`.
//! Lattice points are hashed with hash_2d/3d/4d (copies salted), not the reference's primes.
//! `cell` is the integer lattice offset the host split off in f64 (in lattice coordinates)
//! and `local` the remainder mapped back to input space. The scales are 1 / the numerical
//! maxima of the sum over a cell (every point's gradient the best-aligned one of the set);
//! see tests/lattice_scales.rs. The search reproduces the reference's normalisers in five of
//! six cases; for 4D fast it finds 0.0219885 where the reference's corresponds to 0.0220066
//! (0.08% higher), and the higher one is used so the range holds even if a peak was missed.

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
pub const OS2_SCALE_3D_FAST: f32 = 41.423_18;
/// Output scale that maps 3D smooth to [-1, 1].
pub const OS2_SCALE_3D_SMOOTH: f32 = 11.867_175;
/// Output scale that maps 4D fast to [-1, 1].
pub const OS2_SCALE_4D_FAST: f32 = 45.440_93;
/// Output scale that maps 4D smooth to [-1, 1].
pub const OS2_SCALE_4D_SMOOTH: f32 = 8.986_824;

#[inline(always)]
fn os2_falloff(a: f32) -> f32 {
    let a2 = a * a;
    a2 * a2
}

#[inline(always)]
fn os2_grad_2d(aux: &[f32], h: u32, d: [f32; 2]) -> f32 {
    let i = ((h % OS2_GRADS_2D) * 2) as usize;
    aux[i] * d[0] + aux[i + 1] * d[1]
}

#[inline(always)]
fn os2_grad_3d(aux: &[f32], h: u32, d: [f32; 3]) -> f32 {
    let i = ((h % OS2_GRADS_3D) * 3) as usize;
    aux[i] * d[0] + aux[i + 1] * d[1] + aux[i + 2] * d[2]
}

#[inline(always)]
fn os2_grad_4d(aux: &[f32], h: u32, d: [f32; 4]) -> f32 {
    let i = ((h % OS2_GRADS_4D) * 4) as usize;
    (aux[i] * d[0] + aux[i + 1] * d[1]) + (aux[i + 2] * d[2] + aux[i + 3] * d[3])
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
) -> f32 {
    let t = (v[0] + v[1]) as f32 * OS2_UNSKEW_2D;
    let d = [d0[0] - (v[0] as f32 + t), d0[1] - (v[1] as f32 + t)];
    let a = rsq - (d[0] * d[0] + d[1] * d[1]);
    if a <= 0.0 {
        return 0.0;
    }
    let p = [base[0].wrapping_add(v[0]), base[1].wrapping_add(v[1])];
    os2_falloff(a) * os2_grad_2d(aux, hash_2d(p, seed_h), d)
}

/// CPU twin of `opensimplex2_2d` in shaders/opensimplex2.wgsl.
pub fn opensimplex2_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    variant: u32,
    aux: &[f32],
) -> f32 {
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
    if variant == OS2_FAST {
        let third = if d0[1] > d0[0] { [0, 1] } else { [1, 0] };
        let value = os2_vertex_2d(aux, base, [0, 0], d0, 0.5, seed_h)
            + os2_vertex_2d(aux, base, [1, 1], d0, 0.5, seed_h)
            + os2_vertex_2d(aux, base, third, d0, 0.5, seed_h);
        return OS2_SCALE_2D_FAST * value;
    }
    // Every point within sqrt(2/3) of a point in the skewed cell is one of these eight.
    let rsq = 2.0 / 3.0;
    let value = (os2_vertex_2d(aux, base, [0, 0], d0, rsq, seed_h)
        + os2_vertex_2d(aux, base, [1, 1], d0, rsq, seed_h))
        + (os2_vertex_2d(aux, base, [1, 0], d0, rsq, seed_h)
            + os2_vertex_2d(aux, base, [0, 1], d0, rsq, seed_h))
        + (os2_vertex_2d(aux, base, [-1, 0], d0, rsq, seed_h)
            + os2_vertex_2d(aux, base, [0, -1], d0, rsq, seed_h))
        + (os2_vertex_2d(aux, base, [2, 1], d0, rsq, seed_h)
            + os2_vertex_2d(aux, base, [1, 2], d0, rsq, seed_h));
    OS2_SCALE_2D_SMOOTH * value
}

/// The "ImproveXY" rotation: orthonormal, the lattice diagonal along z.
#[inline(always)]
pub fn os2_rotate_3d(p: [f32; 3]) -> [f32; 3] {
    let xy = p[0] + p[1];
    let s2 = xy * OS2_UNSKEW_2D;
    let zz = p[2] * OS2_ROOT3OVER3;
    [p[0] + s2 + zz, p[1] + s2 + zz, xy * -OS2_ROOT3OVER3 + zz]
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
) -> f32 {
    let a = rsq - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if a <= 0.0 {
        return 0.0;
    }
    let p = [
        cell[0].wrapping_add(n[0]),
        cell[1].wrapping_add(n[1]),
        cell[2].wrapping_add(n[2]),
        copy,
    ];
    os2_falloff(a) * os2_grad_3d(aux, hash_4d(p, seed_h), d)
}

/// CPU twin of `opensimplex2_3d` in shaders/opensimplex2.wgsl.
pub fn opensimplex2_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    variant: u32,
    aux: &[f32],
) -> f32 {
    let r = os2_rotate_3d(local);
    let mut value = 0.0;
    for copy in 0..2 {
        // Copy 1 is the cubic lattice shifted by half a cell on every axis.
        let shift = 0.5 * copy as f32;
        let q = [r[0] - shift, r[1] - shift, r[2] - shift];
        if variant == OS2_FAST {
            let n = q.map(|v| super::floor(v + 0.5));
            let d = [q[0] - n[0], q[1] - n[1], q[2] - n[2]];
            let ni = n.map(|v| v as i32);
            value += os2_vertex_3d(aux, cell, ni, copy, d, 0.6, seed_h);
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
            let mut n2 = ni;
            n2[axis] += step;
            let mut d2 = d;
            d2[axis] -= step as f32;
            value += os2_vertex_3d(aux, cell, n2, copy, d2, 0.6, seed_h);
        } else {
            // r = sqrt(3/4) < 1, so only the two integers around q on each axis can be in range.
            let b = q.map(super::floor);
            let bi = b.map(|v| v as i32);
            for corner in 0..8 {
                let v = [corner & 1, (corner >> 1) & 1, (corner >> 2) & 1];
                let d = [
                    q[0] - (b[0] + v[0] as f32),
                    q[1] - (b[1] + v[1] as f32),
                    q[2] - (b[2] + v[2] as f32),
                ];
                let n = [bi[0] + v[0], bi[1] + v[1], bi[2] + v[2]];
                value += os2_vertex_3d(aux, cell, n, copy, d, 0.75, seed_h);
            }
        }
    }
    if variant == OS2_FAST {
        OS2_SCALE_3D_FAST * value
    } else {
        OS2_SCALE_3D_SMOOTH * value
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
            xy * -0.178_275_66 + zw * 0.2156234,
            zw * -0.403_949_77 + xy * -0.375_199_08,
        )
    } else {
        (
            xy * -0.285_225_15 + zw * 0.838_970_66,
            zw * 0.219_397_5 + xy * -0.482_148_56,
        )
    };
    [p[0] + s2, p[1] + s2, p[2] + t2, p[3] + t2]
}

/// The contribution of lattice point `base + v` at skewed offset `p` from the sample.
#[inline(always)]
fn os2_vertex_4d(
    aux: &[f32],
    point: [i32; 4],
    p: [f32; 4],
    unskew: f32,
    rsq: f32,
    seed_h: u32,
) -> f32 {
    let t = ((p[0] + p[1]) + (p[2] + p[3])) * unskew;
    let d = [p[0] + t, p[1] + t, p[2] + t, p[3] + t];
    let a = rsq - ((d[0] * d[0] + d[1] * d[1]) + (d[2] * d[2] + d[3] * d[3]));
    if a <= 0.0 {
        return 0.0;
    }
    os2_falloff(a) * os2_grad_4d(aux, hash_4d(point, seed_h), d)
}

/// CPU twin of `opensimplex2_4d` in shaders/opensimplex2.wgsl.
pub fn opensimplex2_4d(
    cell: [i32; 4],
    local: [f32; 4],
    seed_h: u32,
    variant: u32,
    aux: &[f32],
) -> f32 {
    let s = os2_skew_4d(local, variant);
    let fl = s.map(super::floor);
    let si = [s[0] - fl[0], s[1] - fl[1], s[2] - fl[2], s[3] - fl[3]];
    let base = [0, 1, 2, 3].map(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let mut value = 0.0;
    if variant == OS2_FAST {
        // Five copies of the lattice, 0.2 apart along the diagonal, one point from each. Start
        // with the copy whose base simplex surely holds a contributing point; each next
        // point is the closest vertex of the simplex based at the previous one.
        let sum = (si[0] + si[1]) + (si[2] + si[3]);
        let start = ((sum * 1.25) as i32).min(4);
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
            value += os2_vertex_4d(aux, point, p, OS2_UNSKEW_4D_FAST, 0.6, salted);
            // The next copy sits 0.2 further down the diagonal; below copy 0 it wraps to
            // copy 4 one lattice step down (m - 0.2 = (m - 1) + 0.8).
            p = p.map(|v| v + OS2_LATTICE_STEP_4D);
            copy -= 1;
            if step == start {
                point = point.map(|v| v.wrapping_sub(1));
                copy += 5;
            }
        }
        return OS2_SCALE_4D_FAST * value;
    }
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
        value += os2_vertex_4d(aux, point, p, OS2_UNSKEW_4D_SMOOTH, 0.8, seed_h);
    }
    OS2_SCALE_4D_SMOOTH * value
}
