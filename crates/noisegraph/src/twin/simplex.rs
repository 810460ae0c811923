//! Simplex noise in 2D, 3D and 4D. Twin of `shaders/simplex.wgsl`.
//!
//! Each corner of the simplex holding the sample adds `(r^2 - |d|^2)^4 * dot(g, d)`. With
//! skew (sqrt(n+1) - 1) / n and unskew (n + 1 - sqrt(n+1)) / (n (n+1)) every simplex has
//! the same height (distance from a corner to the opposite face), sqrt(1/2), in 2D, 3D and
//! 4D alike. With r^2 = 1/2 (`SIMPLEX_FALLOFF_CONTINUOUS`, the default) a corner's term has
//! fallen to zero, with its first three derivatives, on the far faces of every simplex it
//! belongs to, so it is zero wherever the sample's simplex does not include it: the sum is
//! continuous and so are its derivatives. The classic r^2 = 0.6 (`SIMPLEX_FALLOFF_CLASSIC`,
//! 3D and 4D) reaches past those faces, and the term is dropped where the simplex changes:
//! jumps of up to about 3.4e-3 in 3D and 1e-3 in 4D (tests/continuity.rs finds them).
//!
//! The scales are the exact maxima of the corner sum over a cell for the unit gradient sets
//! used here (each corner's gradient chosen to align with its offset as closely as the set
//! allows), found by a search over the cell, so the output range is [-1, 1].
//! tests/lattice_scales.rs recomputes every one.

use super::grad::NoiseGrad;
use super::hash::{hash_2d, hash_3d, hash_4d};
use super::perlin::{
    perlin_grad_2d, perlin_grad_3d, perlin_gradient_2d, perlin_gradient_3d, GRADIENTS_IMPROVED,
};
use super::sample::{xy, xyz, GradSamples, SamplePoint, SamplePoints, SampleRow};

/// 2D skew factor (sqrt(3) - 1) / 2.
pub const SIMPLEX_F2: f32 = 0.366_025_42;
/// 2D unskew factor (3 - sqrt(3)) / 6.
pub const SIMPLEX_G2: f32 = 0.211_324_87;
/// Output scale that maps 2D simplex to [-1, 1].
pub const SIMPLEX_SCALE_2D: f32 = 100.039;
/// 3D skew factor 1 / 3.
pub const SIMPLEX_F3: f32 = 1.0 / 3.0;
/// 3D unskew factor 1 / 6.
pub const SIMPLEX_G3: f32 = 1.0 / 6.0;
/// Output scale that maps 3D simplex to [-1, 1] (r^2 = 1/2).
pub const SIMPLEX_SCALE_3D: f32 = 108.725_8;
/// Output scale that maps 3D simplex with the classic falloff (r^2 = 0.6) to [-1, 1].
pub const SIMPLEX_SCALE_3D_CLASSIC: f32 = 46.2385;
/// 4D skew factor (sqrt(5) - 1) / 4.
pub const SIMPLEX_F4: f32 = 0.309_017;
/// 4D unskew factor (5 - sqrt(5)) / 20.
pub const SIMPLEX_G4: f32 = 0.138_196_6;
/// Output scale that maps 4D simplex to [-1, 1] (r^2 = 1/2).
pub const SIMPLEX_SCALE_4D: f32 = 108.734_1;
/// Output scale that maps 4D simplex with the classic falloff (r^2 = 0.6) to [-1, 1].
pub const SIMPLEX_SCALE_4D_CLASSIC: f32 = 47.156_27;
/// Falloff: r^2 = 1/2, the simplices' squared height (continuous; the default).
pub const SIMPLEX_FALLOFF_CONTINUOUS: u32 = 0;
/// Falloff: r^2 = 0.6, the classic 3D/4D choice (small jumps where the simplex changes).
pub const SIMPLEX_FALLOFF_CLASSIC: u32 = 1;
/// Squared kernel radius of the continuous falloff (every dimension).
pub const SIMPLEX_R2: f32 = 0.5;
/// Squared kernel radius of the classic falloff (3D and 4D).
pub const SIMPLEX_R2_CLASSIC: f32 = 0.6;
const INV_SQRT3: f32 = 0.577_350_26;

#[inline(always)]
fn simplex_corner_2d(d: [f32; 2], h: u32) -> f32 {
    let t = (SIMPLEX_R2 - (d[0] * d[0] + d[1] * d[1])).max(0.0);
    let t2 = t * t;
    t2 * t2 * perlin_grad_2d(h, d, GRADIENTS_IMPROVED)
}

/// CPU twin of `simplex_2d` in shaders/simplex.wgsl.
#[inline(always)]
pub fn simplex_2d(cell: [i32; 2], local: [f32; 2], seed_h: u32) -> f32 {
    let s = (local[0] + local[1]) * SIMPLEX_F2;
    let fl = [super::floor(local[0] + s), super::floor(local[1] + s)];
    let t = (fl[0] + fl[1]) * SIMPLEX_G2;
    let d0 = [local[0] - (fl[0] - t), local[1] - (fl[1] - t)];
    let o = if d0[0] > d0[1] { [1, 0] } else { [0, 1] };
    let d1 = [
        d0[0] - o[0] as f32 + SIMPLEX_G2,
        d0[1] - o[1] as f32 + SIMPLEX_G2,
    ];
    let c2 = 1.0 - 2.0 * SIMPLEX_G2;
    let d2 = [d0[0] - c2, d0[1] - c2];
    let i = [
        cell[0].wrapping_add(super::to_i32(fl[0])),
        cell[1].wrapping_add(super::to_i32(fl[1])),
    ];
    let n0 = simplex_corner_2d(d0, hash_2d(i, seed_h));
    let n1 = simplex_corner_2d(
        d1,
        hash_2d([i[0].wrapping_add(o[0]), i[1].wrapping_add(o[1])], seed_h),
    );
    let n2 = simplex_corner_2d(
        d2,
        hash_2d([i[0].wrapping_add(1), i[1].wrapping_add(1)], seed_h),
    );
    SIMPLEX_SCALE_2D * (n0 + n1 + n2)
}

/// `simplex_2d` along a row of samples (see `family::SampleRow`), bit for bit the same
/// numbers: `simplex_2d` has no branches, so the loop over the row vectorizes (see
/// [`super::vectorized`]); with AVX-512, rows of coordinates below 2^23 run a loop written
/// with its intrinsics (`avx512::simplex_2d_row_small`).
pub fn simplex_2d_row(row: &SampleRow, out: &mut [f32]) {
    super::fill_row_vectorized(
        row,
        out,
        #[inline(always)]
        |p| simplex_2d(xy(p.cell), xy(p.local), p.seed),
    )
}

/// `simplex_3d` along a row of samples, like [`simplex_2d_row`].
pub fn simplex_3d_row(row: &SampleRow, out: &mut [f32], falloff: u32) {
    super::fill_row_vectorized(
        row,
        out,
        #[inline(always)]
        |p| simplex_3d(xyz(p.cell), xyz(p.local), p.seed, falloff),
    )
}

/// The squared radius and output scale of a falloff in 3D (twin of the kernel's selects).
#[inline(always)]
fn simplex_falloff_3d(falloff: u32) -> (f32, f32) {
    if falloff == SIMPLEX_FALLOFF_CONTINUOUS {
        (SIMPLEX_R2, SIMPLEX_SCALE_3D)
    } else {
        (SIMPLEX_R2_CLASSIC, SIMPLEX_SCALE_3D_CLASSIC)
    }
}

#[inline(always)]
fn simplex_corner_3d(d: [f32; 3], h: u32, rsq: f32) -> f32 {
    let t = (rsq - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2])).max(0.0);
    let t2 = t * t;
    t2 * t2 * perlin_grad_3d(h, d, GRADIENTS_IMPROVED)
}

/// CPU twin of `simplex_3d` in shaders/simplex.wgsl; `falloff` is
/// `SIMPLEX_FALLOFF_CONTINUOUS` or `SIMPLEX_FALLOFF_CLASSIC`.
#[inline(always)]
pub fn simplex_3d(cell: [i32; 3], local: [f32; 3], seed_h: u32, falloff: u32) -> f32 {
    let (rsq, scale) = simplex_falloff_3d(falloff);
    let s = (local[0] + local[1] + local[2]) * SIMPLEX_F3;
    let fl = local.map(|v| super::floor(v + s));
    let t = (fl[0] + fl[1] + fl[2]) * SIMPLEX_G3;
    let d0 = [0, 1, 2].map(|k| local[k] - (fl[k] - t));
    let ge_xy = d0[0] >= d0[1];
    let ge_yz = d0[1] >= d0[2];
    let ge_xz = d0[0] >= d0[2];
    let o1 = [
        (ge_xy && ge_xz) as i32,
        (!ge_xy && ge_yz) as i32,
        (!ge_xz && !ge_yz) as i32,
    ];
    let o2 = [
        (ge_xy || ge_xz) as i32,
        (!ge_xy || ge_yz) as i32,
        (!(ge_xz && ge_yz)) as i32,
    ];
    let d1 = [0, 1, 2].map(|k| d0[k] - o1[k] as f32 + SIMPLEX_G3);
    let d2 = [0, 1, 2].map(|k| d0[k] - o2[k] as f32 + 2.0 * SIMPLEX_G3);
    let c3 = 1.0 - 3.0 * SIMPLEX_G3;
    let d3 = d0.map(|v| v - c3);
    let i = [0, 1, 2].map(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let at = |o: [i32; 3]| hash_3d([0, 1, 2].map(|k| i[k].wrapping_add(o[k])), seed_h);
    let n0 = simplex_corner_3d(d0, at([0, 0, 0]), rsq);
    let n1 = simplex_corner_3d(d1, at(o1), rsq);
    let n2 = simplex_corner_3d(d2, at(o2), rsq);
    let n3 = simplex_corner_3d(d3, at([1, 1, 1]), rsq);
    scale * (n0 + n1 + n2 + n3)
}

/// One of the 32 edge gradients of the 4D hypercube, (0, +-1, +-1, +-1) and its permutations,
/// scaled to unit length: bits 3-4 pick the zero axis, bits 0-2 the signs of the others.
#[inline(always)]
pub fn simplex_grad_4d(h: u32, d: [f32; 4]) -> f32 {
    let zero_axis = (h >> 3) & 3;
    let a = if zero_axis == 0 { d[1] } else { d[0] };
    let b = if zero_axis <= 1 { d[2] } else { d[1] };
    let c = if zero_axis <= 2 { d[3] } else { d[2] };
    let sa = if (h & 1) != 0 { -a } else { a };
    let sb = if (h & 2) != 0 { -b } else { b };
    let sc = if (h & 4) != 0 { -c } else { c };
    (sa + sb + sc) * INV_SQRT3
}

/// The squared radius and output scale of a falloff in 4D.
#[inline(always)]
fn simplex_falloff_4d(falloff: u32) -> (f32, f32) {
    if falloff == SIMPLEX_FALLOFF_CONTINUOUS {
        (SIMPLEX_R2, SIMPLEX_SCALE_4D)
    } else {
        (SIMPLEX_R2_CLASSIC, SIMPLEX_SCALE_4D_CLASSIC)
    }
}

/// The edge gradient [`simplex_grad_4d`] dots with the offset, as a vector.
#[inline(always)]
pub fn simplex_gradient_4d(h: u32) -> [f32; 4] {
    let zero_axis = (h >> 3) & 3;
    let sa = if (h & 1) != 0 { -INV_SQRT3 } else { INV_SQRT3 };
    let sb = if (h & 2) != 0 { -INV_SQRT3 } else { INV_SQRT3 };
    let sc = if (h & 4) != 0 { -INV_SQRT3 } else { INV_SQRT3 };
    [
        if zero_axis == 0 { 0.0 } else { sa },
        if zero_axis == 0 {
            sa
        } else if zero_axis == 1 {
            0.0
        } else {
            sb
        },
        if zero_axis <= 1 {
            sb
        } else if zero_axis == 2 {
            0.0
        } else {
            sc
        },
        if zero_axis <= 2 { sc } else { 0.0 },
    ]
}

/// A corner's term t^4 (g . d), t = r^2 - |d|^2 clamped at 0, and its derivative
/// t^4 g - 8 t^3 (g . d) d (zero, like the term, outside the radius).
#[inline(always)]
fn simplex_corner_grad_4d(d: [f32; 4], h: u32, rsq: f32) -> NoiseGrad {
    let t = (rsq - ((d[0] * d[0] + d[1] * d[1]) + (d[2] * d[2] + d[3] * d[3]))).max(0.0);
    let t2 = t * t;
    let n = simplex_grad_4d(h, d);
    let g = simplex_gradient_4d(h);
    let k = 8.0 * t2 * t * n;
    NoiseGrad {
        value: t2 * t2 * n,
        d: [0, 1, 2, 3].map(|a| t2 * t2 * g[a] - k * d[a]),
    }
}

#[inline(always)]
fn simplex_corner_4d(d: [f32; 4], h: u32, rsq: f32) -> f32 {
    let t = (rsq - ((d[0] * d[0] + d[1] * d[1]) + (d[2] * d[2] + d[3] * d[3]))).max(0.0);
    let t2 = t * t;
    t2 * t2 * simplex_grad_4d(h, d)
}

/// CPU twin of `simplex_4d` in shaders/simplex.wgsl. Its own code rather than
/// [`simplex_4d_grad`]'s value: that ran 2.2x slower per sample (measured).
pub fn simplex_4d(cell: [i32; 4], local: [f32; 4], seed_h: u32, falloff: u32) -> f32 {
    let (rsq, scale) = simplex_falloff_4d(falloff);
    let s = ((local[0] + local[1]) + (local[2] + local[3])) * SIMPLEX_F4;
    let fl = local.map(|v| super::floor(v + s));
    let t = ((fl[0] + fl[1]) + (fl[2] + fl[3])) * SIMPLEX_G4;
    let d0 = [0, 1, 2, 3].map(|k| local[k] - (fl[k] - t));
    let rank = simplex_4d_rank(d0);
    let o1 = rank.map(|r| (r >= 3) as i32);
    let o2 = rank.map(|r| (r >= 2) as i32);
    let o3 = rank.map(|r| (r >= 1) as i32);
    let d1 = [0, 1, 2, 3].map(|k| d0[k] - o1[k] as f32 + SIMPLEX_G4);
    let d2 = [0, 1, 2, 3].map(|k| d0[k] - o2[k] as f32 + 2.0 * SIMPLEX_G4);
    let d3 = [0, 1, 2, 3].map(|k| d0[k] - o3[k] as f32 + 3.0 * SIMPLEX_G4);
    let c4 = 1.0 - 4.0 * SIMPLEX_G4;
    let d4 = d0.map(|v| v - c4);
    let i = [0, 1, 2, 3].map(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let at = |o: [i32; 4]| hash_4d([0, 1, 2, 3].map(|k| i[k].wrapping_add(o[k])), seed_h);
    let n0 = simplex_corner_4d(d0, at([0, 0, 0, 0]), rsq);
    let n1 = simplex_corner_4d(d1, at(o1), rsq);
    let n2 = simplex_corner_4d(d2, at(o2), rsq);
    let n3 = simplex_corner_4d(d3, at(o3), rsq);
    let n4 = simplex_corner_4d(d4, at([1, 1, 1, 1]), rsq);
    scale * ((n0 + n1) + (n2 + n3) + n4)
}

/// The rank of each component of `d0` among the four (ties to the lower axis): the 4D
/// simplex steps along the axes in decreasing order of d0, so corner k (1 to 3) is offset by
/// 1 on the axes of rank 4 - k and above.
#[inline(always)]
fn simplex_4d_rank(d0: [f32; 4]) -> [u32; 4] {
    let mut rank = [0u32; 4];
    for a in 0..4 {
        for b in (a + 1)..4 {
            if d0[a] >= d0[b] {
                rank[a] += 1;
            } else {
                rank[b] += 1;
            }
        }
    }
    rank
}

/// CPU twin of `simplex_4d_grad` in shaders/simplex.wgsl: the value (`simplex_4d`'s, bit for
/// bit) and its derivatives with respect to `local` (the unskewed offsets move one for one
/// with it). The family exposes it for the continuous falloff only: the classic one jumps.
#[inline(always)]
pub fn simplex_4d_grad(cell: [i32; 4], local: [f32; 4], seed_h: u32, falloff: u32) -> NoiseGrad {
    let (rsq, scale) = simplex_falloff_4d(falloff);
    let s = ((local[0] + local[1]) + (local[2] + local[3])) * SIMPLEX_F4;
    let fl = local.map(|v| super::floor(v + s));
    let t = ((fl[0] + fl[1]) + (fl[2] + fl[3])) * SIMPLEX_G4;
    let d0 = [0, 1, 2, 3].map(|k| local[k] - (fl[k] - t));
    let rank = simplex_4d_rank(d0);
    let o1 = rank.map(|r| (r >= 3) as i32);
    let o2 = rank.map(|r| (r >= 2) as i32);
    let o3 = rank.map(|r| (r >= 1) as i32);
    let d1 = [0, 1, 2, 3].map(|k| d0[k] - o1[k] as f32 + SIMPLEX_G4);
    let d2 = [0, 1, 2, 3].map(|k| d0[k] - o2[k] as f32 + 2.0 * SIMPLEX_G4);
    let d3 = [0, 1, 2, 3].map(|k| d0[k] - o3[k] as f32 + 3.0 * SIMPLEX_G4);
    let c4 = 1.0 - 4.0 * SIMPLEX_G4;
    let d4 = d0.map(|v| v - c4);
    let i = [0, 1, 2, 3].map(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let at = |o: [i32; 4]| hash_4d([0, 1, 2, 3].map(|k| i[k].wrapping_add(o[k])), seed_h);
    let n0 = simplex_corner_grad_4d(d0, at([0, 0, 0, 0]), rsq);
    let n1 = simplex_corner_grad_4d(d1, at(o1), rsq);
    let n2 = simplex_corner_grad_4d(d2, at(o2), rsq);
    let n3 = simplex_corner_grad_4d(d3, at(o3), rsq);
    let n4 = simplex_corner_grad_4d(d4, at([1, 1, 1, 1]), rsq);
    NoiseGrad {
        value: scale * ((n0.value + n1.value) + (n2.value + n3.value) + n4.value),
        d: [0, 1, 2, 3].map(|a| scale * ((n0.d[a] + n1.d[a]) + (n2.d[a] + n3.d[a]) + n4.d[a])),
    }
}

// ---- Analytic gradients (2D and 3D; 4D above): `[value, d/dx, d/dy, d/dz]` with respect to
// `local`; the value is the plain function's. See shaders/simplex.wgsl for the corner
// derivative.

/// A corner's value term and its derivative along x, y (and z in 3D): the terms of
/// `simplex_corner_grad_2d` / `_3d` in shaders/simplex.wgsl, as scalars (arrays kept LLVM
/// from vectorizing loops over samples).
#[inline(always)]
fn simplex_corner_grad_2d(d: [f32; 2], h: u32) -> (f32, f32, f32) {
    let t = (SIMPLEX_R2 - (d[0] * d[0] + d[1] * d[1])).max(0.0);
    let t2 = t * t;
    let n = perlin_grad_2d(h, d, GRADIENTS_IMPROVED);
    let g = perlin_gradient_2d(h, GRADIENTS_IMPROVED);
    let k = 8.0 * t2 * t * n;
    (
        t2 * t2 * n,
        t2 * t2 * g[0] - k * d[0],
        t2 * t2 * g[1] - k * d[1],
    )
}

/// CPU twin of `simplex_2d_grad` in shaders/simplex.wgsl: `[value, d/dx, d/dy, 0]`; the
/// corner terms summed in corner order, then scaled.
#[inline(always)]
pub fn simplex_2d_grad(cell: [i32; 2], local: [f32; 2], seed_h: u32) -> [f32; 4] {
    let s = (local[0] + local[1]) * SIMPLEX_F2;
    let fl = [super::floor(local[0] + s), super::floor(local[1] + s)];
    let t = (fl[0] + fl[1]) * SIMPLEX_G2;
    let d0 = [local[0] - (fl[0] - t), local[1] - (fl[1] - t)];
    let o = if d0[0] > d0[1] { [1, 0] } else { [0, 1] };
    let d1 = [
        d0[0] - o[0] as f32 + SIMPLEX_G2,
        d0[1] - o[1] as f32 + SIMPLEX_G2,
    ];
    let c2 = 1.0 - 2.0 * SIMPLEX_G2;
    let d2 = [d0[0] - c2, d0[1] - c2];
    let i = [
        cell[0].wrapping_add(super::to_i32(fl[0])),
        cell[1].wrapping_add(super::to_i32(fl[1])),
    ];
    let n0 = simplex_corner_grad_2d(d0, hash_2d(i, seed_h));
    let n1 = simplex_corner_grad_2d(
        d1,
        hash_2d([i[0].wrapping_add(o[0]), i[1].wrapping_add(o[1])], seed_h),
    );
    let n2 = simplex_corner_grad_2d(
        d2,
        hash_2d([i[0].wrapping_add(1), i[1].wrapping_add(1)], seed_h),
    );
    let scale = SIMPLEX_SCALE_2D;
    [
        scale * (n0.0 + n1.0 + n2.0),
        scale * (n0.1 + n1.1 + n2.1),
        scale * (n0.2 + n1.2 + n2.2),
        scale * (0.0 + 0.0 + 0.0),
    ]
}

#[inline(always)]
fn simplex_corner_grad_3d(d: [f32; 3], h: u32) -> (f32, f32, f32, f32) {
    let t = (SIMPLEX_R2 - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2])).max(0.0);
    let t2 = t * t;
    let n = perlin_grad_3d(h, d, GRADIENTS_IMPROVED);
    let g = perlin_gradient_3d(h, GRADIENTS_IMPROVED);
    let k = 8.0 * t2 * t * n;
    (
        t2 * t2 * n,
        t2 * t2 * g[0] - k * d[0],
        t2 * t2 * g[1] - k * d[1],
        t2 * t2 * g[2] - k * d[2],
    )
}

/// CPU twin of `simplex_3d_grad` in shaders/simplex.wgsl: `[value, d/dx, d/dy, d/dz]`, for
/// the continuous falloff (the value is `simplex_3d`'s with `SIMPLEX_FALLOFF_CONTINUOUS`); the
/// corner terms summed in corner order, then scaled.
#[inline(always)]
pub fn simplex_3d_grad(cell: [i32; 3], local: [f32; 3], seed_h: u32) -> [f32; 4] {
    let s = (local[0] + local[1] + local[2]) * SIMPLEX_F3;
    let fl = super::each3(|k| super::floor(local[k] + s));
    let t = (fl[0] + fl[1] + fl[2]) * SIMPLEX_G3;
    let d0 = super::each3(|k| local[k] - (fl[k] - t));
    let ge_xy = d0[0] >= d0[1];
    let ge_yz = d0[1] >= d0[2];
    let ge_xz = d0[0] >= d0[2];
    let o1 = [
        (ge_xy && ge_xz) as i32,
        (!ge_xy && ge_yz) as i32,
        (!ge_xz && !ge_yz) as i32,
    ];
    let o2 = [
        (ge_xy || ge_xz) as i32,
        (!ge_xy || ge_yz) as i32,
        (!(ge_xz && ge_yz)) as i32,
    ];
    let d1 = super::each3(|k| d0[k] - o1[k] as f32 + SIMPLEX_G3);
    let d2 = super::each3(|k| d0[k] - o2[k] as f32 + 2.0 * SIMPLEX_G3);
    let c3 = 1.0 - 3.0 * SIMPLEX_G3;
    let d3 = super::each3(|k| d0[k] - c3);
    let i = super::each3(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let at = |o: [i32; 3]| hash_3d(super::each3(|k| i[k].wrapping_add(o[k])), seed_h);
    let n0 = simplex_corner_grad_3d(d0, at([0, 0, 0]));
    let n1 = simplex_corner_grad_3d(d1, at(o1));
    let n2 = simplex_corner_grad_3d(d2, at(o2));
    let n3 = simplex_corner_grad_3d(d3, at([1, 1, 1]));
    let scale = SIMPLEX_SCALE_3D;
    [
        scale * (n0.0 + n1.0 + n2.0 + n3.0),
        scale * (n0.1 + n1.1 + n2.1 + n3.1),
        scale * (n0.2 + n1.2 + n2.2 + n3.2),
        scale * (n0.3 + n1.3 + n2.3 + n3.3),
    ]
}

/// `simplex_2d` and `simplex_3d` at the points of a warped stage's row (see
/// `family::SamplePoints`), bit for bit the same numbers, in a loop the compiler vectorizes.
pub fn simplex_points(dims: u32, falloff: u32, pts: &SamplePoints, out: &mut [f32]) {
    if dims == 2 {
        pts.fill_vectorized(
            out,
            #[inline(always)]
            |p| simplex_2d(xy(p.cell), xy(p.local), p.seed),
        )
    } else {
        pts.fill_vectorized(
            out,
            #[inline(always)]
            |p| simplex_3d(xyz(p.cell), xyz(p.local), p.seed, falloff),
        )
    }
}

/// `simplex_2d_grad` or `simplex_3d_grad` (by `dims`) at one sample point: the family's
/// point gradient sampler. It has no branches, so loops over it vectorize.
#[inline(always)]
pub fn simplex_grad_at(dims: u32, p: &SamplePoint) -> NoiseGrad {
    NoiseGrad::from_xyz(if dims == 2 {
        simplex_2d_grad(xy(p.cell), xy(p.local), p.seed)
    } else {
        simplex_3d_grad(xyz(p.cell), xyz(p.local), p.seed)
    })
}

/// The gradient along a row of samples, bit for bit [`simplex_grad_at`]'s, vectorized (the
/// dimension chosen outside the loop: a branch inside kept it from vectorizing).
pub fn simplex_grad_row(dims: u32, row: &SampleRow, out: &mut GradSamples) {
    if dims == 2 {
        out.fill_row_vectorized(
            row,
            #[inline(always)]
            |p| NoiseGrad::from_xyz(simplex_2d_grad(xy(p.cell), xy(p.local), p.seed)),
        )
    } else {
        out.fill_row_vectorized(
            row,
            #[inline(always)]
            |p| NoiseGrad::from_xyz(simplex_3d_grad(xyz(p.cell), xyz(p.local), p.seed)),
        )
    }
}

/// The gradient at the points of a warped stage's row, bit for bit [`simplex_grad_at`]'s,
/// vectorized like [`simplex_grad_row`].
pub fn simplex_grad_points(dims: u32, pts: &SamplePoints, out: &mut GradSamples) {
    if dims == 2 {
        out.fill_points_vectorized(
            pts,
            #[inline(always)]
            |p| NoiseGrad::from_xyz(simplex_2d_grad(xy(p.cell), xy(p.local), p.seed)),
        )
    } else {
        out.fill_points_vectorized(
            pts,
            #[inline(always)]
            |p| NoiseGrad::from_xyz(simplex_3d_grad(xyz(p.cell), xyz(p.local), p.seed)),
        )
    }
}
