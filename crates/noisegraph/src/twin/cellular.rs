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
//! The outer ring of the 5^d cells is searched only when the 3^d cells inside it leave the
//! answer open (see `cellular_ring_bound`). The search compares distance keys: Euclidean
//! distances squared, the root taken once at the end (the same number: the root is monotonic
//! and correctly rounded).
//!
//! Gradient form ([`cellular_2d_grad`], [`cellular_3d_grad`]): the search also keeps the
//! offsets `d = point - sample` of the two nearest points, and F1, F2 are differentiated as
//! distances of `d` (d d / d local = -I); the plain functions take its value. Where the
//! distance is not differentiable the slope is one-sided: at a tie the point the search kept
//! (the first visited), Chebyshev's largest axis the first of equal ones, Manhattan's
//! sign(0) = 0, and 0 at a Euclidean feature point itself. `cell_value` is flat inside a cell:
//! gradient 0.

use super::grad::{sign, NoiseGrad};
use super::hash::{hash_to_signed, hash_to_unit, pcg3d, pcg4d, wrap_cell};
use super::sample::{xy, xyz, SamplePoint, SampleRow};
use super::vectorized;

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
/// CPU twin of `cellular_distance_key` in shaders/cellular.wgsl: the key the search compares
/// for offset `d`, its length under `metric`, squared for Euclidean.
pub fn cellular_distance_key(d: [f32; 3], metric: u32) -> f32 {
    if metric == METRIC_MANHATTAN {
        return d[0].abs() + d[1].abs() + d[2].abs();
    }
    if metric == METRIC_CHEBYSHEV {
        return d[0].abs().max(d[1].abs()).max(d[2].abs());
    }
    d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
}

#[inline(always)]
/// CPU twin of `cellular_finish` in shaders/cellular.wgsl: the distance of a key.
pub fn cellular_finish(key: f32, metric: u32) -> f32 {
    if metric == METRIC_EUCLIDEAN {
        key.sqrt()
    } else {
        key
    }
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

/// CPU twin of `cellular_result` in shaders/cellular.wgsl: the output from the two least
/// keys and the nearest point's cell value.
#[inline(always)]
pub fn cellular_result(key1: f32, key2: f32, value: f32, ret: u32, metric: u32) -> f32 {
    let f1 = cellular_finish(key1, metric);
    let f2 = cellular_finish(key2, metric);
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

/// CPU twin of `CellularNearest` in shaders/cellular.wgsl: the two nearest feature points so
/// far, `best` = (F1 key, F2 key, value of the nearest's cell), and their offsets
/// `d = point - sample`.
#[derive(Debug, Clone, Copy)]
pub struct CellularNearest {
    /// (F1 key, F2 key, the nearest point's cell value).
    pub best: [f32; 3],
    /// Offset of the nearest point from the sample.
    pub d1: [f32; 3],
    /// Offset of the second nearest.
    pub d2: [f32; 3],
}

/// CPU twin of `cellular_keep` in shaders/cellular.wgsl: the nearest two after one more
/// feature point at offset `d`, key `dist`.
#[inline(always)]
pub fn cellular_keep(n: CellularNearest, dist: f32, value: f32, d: [f32; 3]) -> CellularNearest {
    if dist < n.best[0] {
        return CellularNearest {
            best: [dist, n.best[0], value],
            d1: d,
            d2: n.d1,
        };
    }
    if dist < n.best[1] {
        return CellularNearest {
            best: [n.best[0], dist, n.best[2]],
            d1: n.d1,
            d2: d,
        };
    }
    n
}

/// CPU twin of `cellular_distance_grad` in shaders/cellular.wgsl: d distance / d sample for
/// a point at offset `d` (= point - sample) with key `key`.
#[inline(always)]
pub fn cellular_distance_grad(d: [f32; 3], key: f32, metric: u32) -> [f32; 3] {
    if metric == METRIC_MANHATTAN {
        return d.map(|c| -sign(c));
    }
    if metric == METRIC_CHEBYSHEV {
        let a = d.map(f32::abs);
        if a[0] >= a[1] && a[0] >= a[2] {
            return [-sign(d[0]), 0.0, 0.0];
        }
        if a[1] >= a[2] {
            return [0.0, -sign(d[1]), 0.0];
        }
        return [0.0, 0.0, -sign(d[2])];
    }
    if metric == METRIC_EUCLIDEAN_SQUARED {
        return d.map(|c| -2.0 * c);
    }
    if key == 0.0 {
        return [0.0; 3];
    }
    let length = key.sqrt();
    d.map(|c| -c / length)
}

/// CPU twin of `cellular_result_grad` in shaders/cellular.wgsl: the output and its gradient
/// from the nearest two.
#[inline(always)]
pub fn cellular_result_grad(n: CellularNearest, ret: u32, metric: u32) -> NoiseGrad {
    let value = cellular_result(n.best[0], n.best[1], n.best[2], ret, metric);
    let mut g = [0.0f32; 3];
    if ret == CELLULAR_F2 {
        g = cellular_distance_grad(n.d2, n.best[1], metric);
    } else if ret == CELLULAR_F2_MINUS_F1 {
        let g2 = cellular_distance_grad(n.d2, n.best[1], metric);
        let g1 = cellular_distance_grad(n.d1, n.best[0], metric);
        g = [0, 1, 2].map(|a| g2[a] - g1[a]);
    } else if ret != CELLULAR_CELL_VALUE {
        g = cellular_distance_grad(n.d1, n.best[0], metric);
    }
    NoiseGrad {
        value,
        d: [g[0], g[1], g[2], 0.0],
    }
}

/// CPU twin of `cellular_deciding` in shaders/cellular.wgsl: the key the output depends on.
#[inline(always)]
pub fn cellular_deciding(n: CellularNearest, ret: u32) -> f32 {
    if ret == CELLULAR_F2 || ret == CELLULAR_F2_MINUS_F1 {
        n.best[1]
    } else {
        n.best[0]
    }
}

/// CPU twin of `cellular_ring_bound` in shaders/cellular.wgsl: the least key of a feature
/// point two cells away (see there).
#[inline(always)]
pub fn cellular_ring_bound(jitter: f32, metric: u32) -> f32 {
    let b = 1.5 - 0.5 * jitter;
    if metric == METRIC_EUCLIDEAN || metric == METRIC_EUCLIDEAN_SQUARED {
        b * b
    } else {
        b
    }
}

/// The search's starting state: no point found yet.
const NOTHING_NEAR: CellularNearest = CellularNearest {
    best: [FAR, FAR, 0.0],
    d1: [0.0; 3],
    d2: [0.0; 3],
};

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn cellular_visit_2d(
    n: CellularNearest,
    i: [i32; 2],
    o: [i32; 2],
    f: [f32; 2],
    period: [i32; 2],
    seed_h: u32,
    metric: u32,
    jitter: f32,
) -> CellularNearest {
    let c = [
        wrap_cell(i[0].wrapping_add(o[0]), period[0]),
        wrap_cell(i[1].wrapping_add(o[1]), period[1]),
    ];
    let (p, v) = cellular_feature_2d(c, seed_h, jitter);
    let d = [o[0] as f32 + p[0] - f[0], o[1] as f32 + p[1] - f[1], 0.0];
    cellular_keep(n, cellular_distance_key(d, metric), v, d)
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
/// CPU twin of `cellular_2d_grad` in shaders/cellular.wgsl.
pub fn cellular_2d_grad(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    ret: u32,
    metric: u32,
    jitter: f32,
) -> NoiseGrad {
    let fl = local.map(super::floor);
    let i = [
        cell[0].wrapping_add(super::to_i32(fl[0])),
        cell[1].wrapping_add(super::to_i32(fl[1])),
    ];
    let f = [local[0] - fl[0], local[1] - fl[1]];
    let mut n = NOTHING_NEAR;
    for dy in -1..=1 {
        for dx in -1..=1 {
            n = cellular_visit_2d(n, i, [dx, dy], f, period, seed_h, metric, jitter);
        }
    }
    if cellular_deciding(n, ret) > cellular_ring_bound(jitter, metric) {
        for dy in -CELLULAR_REACH..=CELLULAR_REACH {
            for dx in -CELLULAR_REACH..=CELLULAR_REACH {
                if dx.abs().max(dy.abs()) == CELLULAR_REACH {
                    n = cellular_visit_2d(n, i, [dx, dy], f, period, seed_h, metric, jitter);
                }
            }
        }
    }
    cellular_result_grad(n, ret, metric)
}

#[allow(clippy::too_many_arguments)]
/// CPU twin of `cellular_2d` in shaders/cellular.wgsl: the gradient form's value.
pub fn cellular_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    ret: u32,
    metric: u32,
    jitter: f32,
) -> f32 {
    cellular_2d_grad(cell, local, seed_h, period, ret, metric, jitter).value
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn cellular_visit_3d(
    n: CellularNearest,
    i: [i32; 3],
    o: [i32; 3],
    f: [f32; 3],
    period: [i32; 3],
    seed_h: u32,
    metric: u32,
    jitter: f32,
) -> CellularNearest {
    let c = [0, 1, 2].map(|k| wrap_cell(i[k].wrapping_add(o[k]), period[k]));
    let (p, v) = cellular_feature_3d(c, seed_h, jitter);
    let d = [0, 1, 2].map(|k| o[k] as f32 + p[k] - f[k]);
    cellular_keep(n, cellular_distance_key(d, metric), v, d)
}

#[allow(clippy::too_many_arguments)]
#[inline(always)]
/// CPU twin of `cellular_3d_grad` in shaders/cellular.wgsl.
pub fn cellular_3d_grad(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    ret: u32,
    metric: u32,
    jitter: f32,
) -> NoiseGrad {
    let fl = local.map(super::floor);
    let i = [0, 1, 2].map(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let f = [0, 1, 2].map(|k| local[k] - fl[k]);
    let mut n = NOTHING_NEAR;
    for dz in -1..=1 {
        for dy in -1..=1 {
            for dx in -1..=1 {
                n = cellular_visit_3d(n, i, [dx, dy, dz], f, period, seed_h, metric, jitter);
            }
        }
    }
    if cellular_deciding(n, ret) > cellular_ring_bound(jitter, metric) {
        for dz in -CELLULAR_REACH..=CELLULAR_REACH {
            for dy in -CELLULAR_REACH..=CELLULAR_REACH {
                for dx in -CELLULAR_REACH..=CELLULAR_REACH {
                    if dx.abs().max(dy.abs()).max(dz.abs()) == CELLULAR_REACH {
                        n = cellular_visit_3d(
                            n,
                            i,
                            [dx, dy, dz],
                            f,
                            period,
                            seed_h,
                            metric,
                            jitter,
                        );
                    }
                }
            }
        }
    }
    cellular_result_grad(n, ret, metric)
}

#[allow(clippy::too_many_arguments)]
/// CPU twin of `cellular_3d` in shaders/cellular.wgsl: the gradient form's value.
pub fn cellular_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    ret: u32,
    metric: u32,
    jitter: f32,
) -> f32 {
    cellular_3d_grad(cell, local, seed_h, period, ret, metric, jitter).value
}

// ---- Rows: the CPU path's loop over the samples of one row (see `SampleRow`).

/// Samples per chunk of a row: the 3^d search fills a chunk 8 samples wide, then the samples
/// whose outer ring may change the answer are redone one by one.
const ROW_CHUNK: usize = 64;

/// [`cellular_keep`] as selects, so that a loop over samples vectorizes; the same numbers.
#[inline(always)]
fn cellular_keep_lanes(best: [f32; 3], dist: f32, value: f32) -> [f32; 3] {
    let nearest = dist < best[0];
    let second = if dist < best[1] { dist } else { best[1] };
    [
        if nearest { dist } else { best[0] },
        if nearest { best[0] } else { second },
        if nearest { value } else { best[2] },
    ]
}

/// The 3x3 search of [`cellular_2d`] for samples `first..first + out.len()` of `row` (no
/// period): the output and the deciding key of each, without branches, each sample drawing
/// its nine feature points.
#[inline(always)]
fn cellular_2d_sample_lanes<const METRIC: u32>(
    row: &SampleRow,
    first: usize,
    ret: u32,
    jitter: f32,
    out: &mut [f32],
    deciding: &mut [f32],
) {
    let ly = row.local[1];
    let fly = super::floor(ly);
    let iy = row.cell[1].wrapping_add(super::to_i32(fly));
    let fy = ly - fly;
    for (k, (o, dec)) in out.iter_mut().zip(deciding.iter_mut()).enumerate() {
        let (x, cell_x) = (row.x_at(first + k), row.cell_x(first + k));
        let flx = super::floor(x);
        let ix = cell_x.wrapping_add(super::to_i32(flx));
        let fx = x - flx;
        // The scalar search's visiting order, y outer, x inner, written out: a loop here
        // kept the loop over samples from vectorizing.
        let visit = |best: [f32; 3], dx: i32, dy: i32| {
            let c = [ix.wrapping_add(dx), iy.wrapping_add(dy)];
            let (p, v) = cellular_feature_2d(c, row.seed, jitter);
            let d = [dx as f32 + p[0] - fx, dy as f32 + p[1] - fy, 0.0];
            cellular_keep_lanes(best, cellular_distance_key(d, METRIC), v)
        };
        let mut best = [FAR, FAR, 0.0];
        best = visit(best, -1, -1);
        best = visit(best, 0, -1);
        best = visit(best, 1, -1);
        best = visit(best, -1, 0);
        best = visit(best, 0, 0);
        best = visit(best, 1, 0);
        best = visit(best, -1, 1);
        best = visit(best, 0, 1);
        best = visit(best, 1, 1);
        (*o, *dec) = cellular_output_lanes::<METRIC>(best, ret);
    }
}

/// [`cellular_result`] and [`cellular_deciding`] as selects: (output, deciding key).
#[inline(always)]
fn cellular_output_lanes<const METRIC: u32>(best: [f32; 3], ret: u32) -> (f32, f32) {
    let f1 = cellular_finish(best[0], METRIC);
    let f2 = cellular_finish(best[1], METRIC);
    let second = ret == CELLULAR_F2 || ret == CELLULAR_F2_MINUS_F1;
    let deciding = if second { best[1] } else { best[0] };
    let result = if ret == CELLULAR_F2_MINUS_F1 {
        f2 - f1
    } else {
        f1
    };
    let result = if ret == CELLULAR_F2 { f2 } else { result };
    let result = if ret == CELLULAR_CELL_VALUE {
        best[2]
    } else {
        result
    };
    (result, deciding)
}

/// The 3x3x3 search of [`cellular_3d`] for samples `first..first + out.len()` of `row` (no
/// period): the output and the deciding key of each, without branches, each sample drawing
/// its 27 feature points.
#[inline(always)]
fn cellular_3d_sample_lanes<const METRIC: u32>(
    row: &SampleRow,
    first: usize,
    ret: u32,
    jitter: f32,
    out: &mut [f32],
    deciding: &mut [f32],
) {
    let [iy, iz] =
        [1, 2].map(|k| row.cell[k].wrapping_add(super::to_i32(super::floor(row.local[k]))));
    let [fy, fz] = [1, 2].map(|k| row.local[k] - super::floor(row.local[k]));
    for (k, (o, dec)) in out.iter_mut().zip(deciding.iter_mut()).enumerate() {
        let (x, cell_x) = (row.x_at(first + k), row.cell_x(first + k));
        let flx = super::floor(x);
        let ix = cell_x.wrapping_add(super::to_i32(flx));
        let fx = x - flx;
        let visit = |best: [f32; 3], dx: i32, dy: i32, dz: i32| {
            let c = [
                ix.wrapping_add(dx),
                iy.wrapping_add(dy),
                iz.wrapping_add(dz),
            ];
            let (p, v) = cellular_feature_3d(c, row.seed, jitter);
            let d = [
                dx as f32 + p[0] - fx,
                dy as f32 + p[1] - fy,
                dz as f32 + p[2] - fz,
            ];
            cellular_keep_lanes(best, cellular_distance_key(d, METRIC), v)
        };
        // The scalar search's order (z, then y, then x), written out as in the 2D search.
        let row_of_three = |best: [f32; 3], dy: i32, dz: i32| {
            let best = visit(best, -1, dy, dz);
            let best = visit(best, 0, dy, dz);
            visit(best, 1, dy, dz)
        };
        let mut best = [FAR, FAR, 0.0];
        best = row_of_three(best, -1, -1);
        best = row_of_three(best, 0, -1);
        best = row_of_three(best, 1, -1);
        best = row_of_three(best, -1, 0);
        best = row_of_three(best, 0, 0);
        best = row_of_three(best, 1, 0);
        best = row_of_three(best, -1, 1);
        best = row_of_three(best, 0, 1);
        best = row_of_three(best, 1, 1);
        (*o, *dec) = cellular_output_lanes::<METRIC>(best, ret);
    }
}

/// Samples per block of the block search: one AVX-512 vector.
const BLOCK: usize = 16;

/// One cell of the 3^d search as a row sees it: the sample's offset to its feature point is
/// `[x_part - fx, d1, d2]`, as the point search computes it (`dx + p[0] - fx`, then the y and
/// z offsets, constant along the row), and `value` is the cell's value.
#[derive(Clone, Copy, Default)]
struct Visit {
    x_part: f32,
    d1: f32,
    d2: f32,
    value: f32,
}

/// The visits of the 3x3 search from x cell `ix` of a row at y cell `iy`, offset `fy`, in
/// the point search's order (y outer, x inner).
#[inline(always)]
fn cellular_2d_visits(ix: i32, iy: i32, fy: f32, seed: u32, jitter: f32) -> [Visit; 9] {
    std::array::from_fn(|j| {
        let (dx, dy) = (j as i32 % 3 - 1, j as i32 / 3 - 1);
        let c = [ix.wrapping_add(dx), iy.wrapping_add(dy)];
        let (p, value) = cellular_feature_2d(c, seed, jitter);
        Visit {
            x_part: dx as f32 + p[0],
            d1: dy as f32 + p[1] - fy,
            d2: 0.0,
            value,
        }
    })
}

/// The visits of the 3x3x3 search from x cell `ix` of a row at cells `iy`, `iz`, offsets
/// `fy`, `fz`, in the point search's order (z, then y, then x).
#[inline(always)]
fn cellular_3d_visits(
    ix: i32,
    [iy, iz]: [i32; 2],
    [fy, fz]: [f32; 2],
    seed: u32,
    jitter: f32,
) -> [Visit; 27] {
    std::array::from_fn(|j| {
        let (dx, dy, dz) = (j as i32 % 3 - 1, j as i32 / 3 % 3 - 1, j as i32 / 9 - 1);
        let c = [
            ix.wrapping_add(dx),
            iy.wrapping_add(dy),
            iz.wrapping_add(dz),
        ];
        let (p, value) = cellular_feature_3d(c, seed, jitter);
        Visit {
            x_part: dx as f32 + p[0],
            d1: dy as f32 + p[1] - fy,
            d2: dz as f32 + p[2] - fz,
            value,
        }
    })
}

/// The 3^d search of a block of samples whose x cells are `a`'s or `b`'s (`use_a` per
/// lane; without `TWO_CELLS` every lane takes `a`'s, and no lane pays for the choice):
/// each visit's numbers are drawn once per cell, not once per sample, and the lanes compare
/// their keys in the point search's order. Output and deciding key per lane.
#[inline(always)]
fn cellular_block_lanes<const METRIC: u32, const N: usize, const TWO_CELLS: bool>(
    fx: &[f32; BLOCK],
    use_a: &[bool; BLOCK],
    [a, b]: [&[Visit; N]; 2],
    ret: u32,
) -> ([f32; BLOCK], [f32; BLOCK]) {
    let mut best = [[FAR; BLOCK], [FAR; BLOCK], [0.0; BLOCK]];
    for j in 0..N {
        for l in 0..BLOCK {
            let v = if !TWO_CELLS || use_a[l] { a[j] } else { b[j] };
            let key = cellular_distance_key([v.x_part - fx[l], v.d1, v.d2], METRIC);
            let kept = cellular_keep_lanes([best[0][l], best[1][l], best[2][l]], key, v.value);
            (best[0][l], best[1][l], best[2][l]) = (kept[0], kept[1], kept[2]);
        }
    }
    let mut out = [0.0; BLOCK];
    let mut deciding = [0.0; BLOCK];
    for l in 0..BLOCK {
        (out[l], deciding[l]) =
            cellular_output_lanes::<METRIC>([best[0][l], best[1][l], best[2][l]], ret);
    }
    (out, deciding)
}

/// Runs the search for samples `first..first + out.len()` of `row` in blocks of [`BLOCK`]:
/// a block whose samples lie in at most two x cells takes the block search with the visits
/// of those cells (`visits(ix)`, kept in `kept` for the next block and the next call on the
/// same row), others `per_sample`. Both
/// closures run inside the caller's vectorized loop: `per_sample` must be
/// `#[inline(always)]`, or it is compiled on its own for the baseline.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn cellular_blocks<const METRIC: u32, const N: usize>(
    row: &SampleRow,
    first: usize,
    ret: u32,
    out: &mut [f32],
    deciding: &mut [f32],
    kept: &mut Option<(i32, [Visit; N])>,
    visits: impl Fn(i32) -> [Visit; N],
    per_sample: impl Fn(usize, &mut [f32], &mut [f32]),
) {
    for (b, (out, deciding)) in out
        .chunks_mut(BLOCK)
        .zip(deciding.chunks_mut(BLOCK))
        .enumerate()
    {
        let start = first + b * BLOCK;
        let n = out.len();
        // Lanes past `n` are further samples of the row; their results are dropped.
        // Plain loops: `array::map` is not always inlined, and then runs at the baseline.
        let mut fx = [0.0f32; BLOCK];
        let mut ix = [0i32; BLOCK];
        let mut use_a = [false; BLOCK];
        for l in 0..BLOCK {
            // Lanes past the row repeat its last sample.
            let at = (start + l).min(row.local_x.len() - 1);
            let x = row.x_at(at);
            let fl = super::floor(x);
            ix[l] = row.cell_x(at).wrapping_add(super::to_i32(fl));
            fx[l] = x - fl;
        }
        let (ia, ib) = (ix[0], ix[n - 1]);
        if !ix[..n].iter().all(|&i| i == ia || i == ib) || ia.abs_diff(ib) > 1 {
            per_sample(start, out, deciding);
            continue;
        }
        let mut cell = |i: i32| match *kept {
            Some((k, v)) if k == i => v,
            _ => {
                let v = visits(i);
                *kept = Some((i, v));
                v
            }
        };
        let va = cell(ia);
        for l in 0..BLOCK {
            use_a[l] = ix[l] == ia;
        }
        let (o, d) = if ib == ia {
            cellular_block_lanes::<METRIC, N, false>(&fx, &use_a, [&va, &va], ret)
        } else {
            let vb = cell(ib);
            cellular_block_lanes::<METRIC, N, true>(&fx, &use_a, [&va, &vb], ret)
        };
        // Whole blocks as arrays: a copy of a length known only at run time is a call.
        match <&mut [f32; BLOCK]>::try_from(&mut *out) {
            Ok(whole) => *whole = o,
            Err(_) => out.copy_from_slice(&o[..n]),
        }
        match <&mut [f32; BLOCK]>::try_from(&mut *deciding) {
            Ok(whole) => *whole = d,
            Err(_) => deciding.copy_from_slice(&d[..n]),
        }
    }
}

/// The 3x3 search for samples `first..first + out.len()` of `row` (no period), by blocks
/// (see [`cellular_blocks`]).
#[inline(always)]
fn cellular_2d_inner_lanes<const METRIC: u32>(
    row: &SampleRow,
    first: usize,
    ret: u32,
    jitter: f32,
    out: &mut [f32],
    deciding: &mut [f32],
    kept: &mut Option<(i32, [Visit; 9])>,
) {
    let fly = super::floor(row.local[1]);
    let iy = row.cell[1].wrapping_add(super::to_i32(fly));
    let fy = row.local[1] - fly;
    cellular_blocks::<METRIC, 9>(
        row,
        first,
        ret,
        out,
        deciding,
        kept,
        #[inline(always)]
        |ix| cellular_2d_visits(ix, iy, fy, row.seed, jitter),
        #[inline(always)]
        |start, out, deciding| {
            cellular_2d_sample_lanes::<METRIC>(row, start, ret, jitter, out, deciding)
        },
    )
}

/// The 3x3x3 search for samples `first..first + out.len()` of `row` (no period), by blocks
/// (see [`cellular_blocks`]).
#[inline(always)]
fn cellular_3d_inner_lanes<const METRIC: u32>(
    row: &SampleRow,
    first: usize,
    ret: u32,
    jitter: f32,
    out: &mut [f32],
    deciding: &mut [f32],
    kept: &mut Option<(i32, [Visit; 27])>,
) {
    let fl = [1, 2].map(|k| super::floor(row.local[k]));
    let cells = [1, 2].map(|k| row.cell[k].wrapping_add(super::to_i32(fl[k - 1])));
    let offsets = [1, 2].map(|k| row.local[k] - fl[k - 1]);
    cellular_blocks::<METRIC, 27>(
        row,
        first,
        ret,
        out,
        deciding,
        kept,
        #[inline(always)]
        |ix| cellular_3d_visits(ix, cells, offsets, row.seed, jitter),
        #[inline(always)]
        |start, out, deciding| {
            cellular_3d_sample_lanes::<METRIC>(row, start, ret, jitter, out, deciding)
        },
    )
}

/// [`cellular_2d`] at each sample of `row`, bit for bit. Without a period the 3x3 search runs
/// 8 samples wide (AVX2) and only the samples whose outer ring matters are searched again.
pub fn cellular_2d_row(row: &SampleRow, ret: u32, metric: u32, jitter: f32, out: &mut [f32]) {
    let point = |p: &SamplePoint| {
        cellular_2d(
            xy(p.cell),
            xy(p.local),
            p.seed,
            xy(p.period),
            ret,
            metric,
            jitter,
        )
    };
    // The visits of the last x cell searched, kept from one chunk of the row to the next.
    let mut kept = None;
    cellular_row(
        row,
        metric,
        jitter,
        out,
        point,
        |m, first, chunk, deciding| {
            by_metric!(
                m,
                cellular_2d_inner_lanes(row, first, ret, jitter, chunk, deciding, &mut kept)
            )
        },
    );
}

/// [`cellular_3d`] at each sample of `row`, bit for bit, as [`cellular_2d_row`].
pub fn cellular_3d_row(row: &SampleRow, ret: u32, metric: u32, jitter: f32, out: &mut [f32]) {
    let point = |p: &SamplePoint| {
        cellular_3d(
            xyz(p.cell),
            xyz(p.local),
            p.seed,
            xyz(p.period),
            ret,
            metric,
            jitter,
        )
    };
    // The visits of the last x cell searched, kept from one chunk of the row to the next.
    let mut kept = None;
    cellular_row(
        row,
        metric,
        jitter,
        out,
        point,
        |m, first, chunk, deciding| {
            by_metric!(
                m,
                cellular_3d_inner_lanes(row, first, ret, jitter, chunk, deciding, &mut kept)
            )
        },
    );
}

/// `$lanes::<METRIC>(args)` through [`vectorized`], with the runtime `$metric` as the constant.
macro_rules! by_metric {
    ($metric:expr, $lanes:ident($($arg:expr),*)) => {
        match $metric {
            METRIC_EUCLIDEAN => vectorized(
                #[inline(always)]
                || $lanes::<METRIC_EUCLIDEAN>($($arg),*),
            ),
            METRIC_EUCLIDEAN_SQUARED => vectorized(
                #[inline(always)]
                || $lanes::<METRIC_EUCLIDEAN_SQUARED>($($arg),*),
            ),
            METRIC_MANHATTAN => vectorized(
                #[inline(always)]
                || $lanes::<METRIC_MANHATTAN>($($arg),*),
            ),
            _ => vectorized(
                #[inline(always)]
                || $lanes::<METRIC_CHEBYSHEV>($($arg),*),
            ),
        }
    };
}
use by_metric;

/// Runs `inner` (metric, first sample, chunk, deciding keys) over `out` in chunks and redoes
/// with `point` the samples whose deciding key exceeds the ring bound. Rows with a period
/// (the wrap is a modulo per cell) go through `point` alone.
fn cellular_row(
    row: &SampleRow,
    metric: u32,
    jitter: f32,
    out: &mut [f32],
    point: impl Fn(&SamplePoint) -> f32,
    mut inner: impl FnMut(u32, usize, &mut [f32], &mut [f32]),
) {
    if row.period.iter().any(|&p| p != 0) || metric > METRIC_CHEBYSHEV {
        row.fill_pointwise(out, point);
        return;
    }
    let bound = cellular_ring_bound(jitter, metric);
    let mut deciding = [0.0f32; ROW_CHUNK];
    for (c, chunk) in out.chunks_mut(ROW_CHUNK).enumerate() {
        let first = c * ROW_CHUNK;
        let deciding = &mut deciding[..chunk.len()];
        inner(metric, first, chunk, deciding);
        // Checked first in a loop without branches (`any` stops early, so it does not
        // vectorize): most chunks have nothing to redo.
        if !deciding.iter().fold(false, |redo, &d| redo | (d > bound)) {
            continue;
        }
        for (k, o) in chunk.iter_mut().enumerate() {
            if deciding[k] > bound {
                *o = point(&row.point(first + k));
            }
        }
    }
}
