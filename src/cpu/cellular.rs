//! Cellular (Worley) noise in 2D and 3D. Twin of `shaders/cellular.wgsl`.
//!
//! One feature point per lattice cell, at `cell + 0.5 + jitter * (u - 0.5)` with u uniform
//! in [0, 1)^d from pcg3d / pcg4d of the (period-wrapped) cell and the seed; its last hash
//! output is the cell's value. The search covers the 5^d cells around the sample: with
//! jitter 1 the second-nearest point is never farther than the nearer points of the 2^d
//! cells around the nearest cell corner, which bounds it (Euclidean and Chebyshev in 2D and
//! 3D, Manhattan in 2D) below the distance to any cell three away. Returns: 0 = F1,
//! 1 = F2, 2 = F2 - F1, 3 = the value in [-1, 1] of the nearest point's cell. Metrics:
//! 0 = Euclidean, 1 = squared Euclidean, 2 = Manhattan, 3 = Chebyshev.

use super::hash::{hash_to_signed, hash_to_unit, pcg3d, pcg4d, seed_hash, wrap_cell};

/// `cellular_2d`/`cellular_3d` output: distance to the nearest feature point (F1).
pub const CELLULAR_F1: u32 = 0;
/// Output: distance to the second-nearest feature point (F2).
pub const CELLULAR_F2: u32 = 1;
/// Output: F2 minus F1 (cell-edge distance).
pub const CELLULAR_F2_MINUS_F1: u32 = 2;
/// Output: the value in [-1, 1] of the nearest feature point's cell.
pub const CELLULAR_CELL_VALUE: u32 = 3;
/// Distance metric: Euclidean.
pub const METRIC_EUCLIDEAN: u32 = 0;
/// Distance metric: squared Euclidean.
pub const METRIC_EUCLIDEAN_SQUARED: u32 = 1;
/// Distance metric: Manhattan (sum of absolute components).
pub const METRIC_MANHATTAN: u32 = 2;
/// Distance metric: Chebyshev (largest absolute component).
pub const METRIC_CHEBYSHEV: u32 = 3;
/// Cells searched on each side of the sample's cell.
pub const CELLULAR_REACH: i32 = 2;
const FAR: f32 = 1.0e9;

#[inline(always)]
/// CPU twin of `cellular_distance` in shaders/cellular.wgsl: length of offset `d` under `metric`.
pub fn cellular_distance(d: [f32; 3], metric: u32) -> f32 {
    if metric == METRIC_MANHATTAN {
        return d[0].abs() + d[1].abs() + d[2].abs();
    }
    if metric == METRIC_CHEBYSHEV {
        return d[0].abs().max(d[1].abs()).max(d[2].abs());
    }
    let sq = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    if metric == METRIC_EUCLIDEAN_SQUARED {
        return sq;
    }
    sq.sqrt()
}

/// Feature point of (wrapped) cell `c` relative to the cell's corner, and the cell's value.
#[inline(always)]
pub fn cellular_feature_2d(c: [i32; 2], seed_h: u32, jitter: f32) -> ([f32; 2], f32) {
    let h = pcg3d([c[0] as u32, c[1] as u32, seed_h]);
    let p = [
        0.5 + jitter * (hash_to_unit(h[0]) - 0.5),
        0.5 + jitter * (hash_to_unit(h[1]) - 0.5),
    ];
    (p, hash_to_signed(h[2]))
}

#[inline(always)]
/// CPU twin of `cellular_feature_3d` in shaders/cellular.wgsl: feature point of (wrapped) cell `c` relative to its corner, and the cell's value.
pub fn cellular_feature_3d(c: [i32; 3], seed_h: u32, jitter: f32) -> ([f32; 3], f32) {
    let h = pcg4d([c[0] as u32, c[1] as u32, c[2] as u32, seed_h]);
    let p = [
        0.5 + jitter * (hash_to_unit(h[0]) - 0.5),
        0.5 + jitter * (hash_to_unit(h[1]) - 0.5),
        0.5 + jitter * (hash_to_unit(h[2]) - 0.5),
    ];
    (p, hash_to_signed(h[3]))
}

/// Picks the output from the two smallest distances and the nearest cell's value.
#[inline(always)]
pub fn cellular_result(f1: f32, f2: f32, value: f32, ret: u32) -> f32 {
    if ret == CELLULAR_F2 {
        return f2;
    }
    if ret == CELLULAR_F2_MINUS_F1 {
        return f2 - f1;
    }
    if ret == CELLULAR_CELL_VALUE {
        return value;
    }
    f1
}

#[allow(clippy::too_many_arguments)]
/// CPU twin of `cellular_2d` in shaders/cellular.wgsl.
pub fn cellular_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed: u32,
    period: [i32; 2],
    ret: u32,
    metric: u32,
    jitter: f32,
) -> f32 {
    let fl = local.map(super::floor);
    let i = [
        cell[0].wrapping_add(fl[0] as i32),
        cell[1].wrapping_add(fl[1] as i32),
    ];
    let f = [local[0] - fl[0], local[1] - fl[1]];
    let sh = seed_hash(seed);
    let mut f1 = FAR;
    let mut f2 = FAR;
    let mut value = 0.0;
    for dy in -CELLULAR_REACH..=CELLULAR_REACH {
        for dx in -CELLULAR_REACH..=CELLULAR_REACH {
            let c = [
                wrap_cell(i[0].wrapping_add(dx), period[0]),
                wrap_cell(i[1].wrapping_add(dy), period[1]),
            ];
            let (p, v) = cellular_feature_2d(c, sh, jitter);
            let d = [dx as f32 + p[0] - f[0], dy as f32 + p[1] - f[1], 0.0];
            let dist = cellular_distance(d, metric);
            if dist < f1 {
                f2 = f1;
                f1 = dist;
                value = v;
            } else if dist < f2 {
                f2 = dist;
            }
        }
    }
    cellular_result(f1, f2, value, ret)
}

#[allow(clippy::too_many_arguments)]
/// CPU twin of `cellular_3d` in shaders/cellular.wgsl.
pub fn cellular_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed: u32,
    period: [i32; 3],
    ret: u32,
    metric: u32,
    jitter: f32,
) -> f32 {
    let fl = local.map(super::floor);
    let i = [0, 1, 2].map(|k| cell[k].wrapping_add(fl[k] as i32));
    let f = [0, 1, 2].map(|k| local[k] - fl[k]);
    let sh = seed_hash(seed);
    let mut f1 = FAR;
    let mut f2 = FAR;
    let mut value = 0.0;
    for dz in -CELLULAR_REACH..=CELLULAR_REACH {
        for dy in -CELLULAR_REACH..=CELLULAR_REACH {
            for dx in -CELLULAR_REACH..=CELLULAR_REACH {
                let c = [
                    wrap_cell(i[0].wrapping_add(dx), period[0]),
                    wrap_cell(i[1].wrapping_add(dy), period[1]),
                    wrap_cell(i[2].wrapping_add(dz), period[2]),
                ];
                let (p, v) = cellular_feature_3d(c, sh, jitter);
                let d = [
                    dx as f32 + p[0] - f[0],
                    dy as f32 + p[1] - f[1],
                    dz as f32 + p[2] - f[2],
                ];
                let dist = cellular_distance(d, metric);
                if dist < f1 {
                    f2 = f1;
                    f1 = dist;
                    value = v;
                } else if dist < f2 {
                    f2 = dist;
                }
            }
        }
    }
    cellular_result(f1, f2, value, ret)
}
