// Cellular (Worley) noise in 2D and 3D. Twin: src/cpu/cellular.rs.
// One feature point per cell at cell + 0.5 + jitter * (u - 0.5), u from pcg3d / pcg4d of the
// (period-wrapped) cell and the seed; the last hash output is the cell's value in [-1, 1].
// The 5^d cells around the sample are searched (with jitter 1 the second-nearest point is
// bounded by the 2^d cells around the nearest cell corner, below any point three cells away),
// the outer ring only when the 3^d cells inside it leave the answer open.
// ret: 0 = F1, 1 = F2, 2 = F2 - F1, 3 = cell value.
// metric: 0 = Euclidean, 1 = squared Euclidean, 2 = Manhattan, 3 = Chebyshev.
// The search compares distance keys: Euclidean distances squared, the root taken once at the
// end (the root is monotonic and correctly rounded, so the result is the same number).
// Gradient form (cellular_2d_grad, cellular_3d_grad): the search also keeps the offsets d =
// point - sample of the two nearest points, and F1, F2 are differentiated as distances of d
// (d d / d local = -I); the plain functions take its value. Where the distance is not
// differentiable the slope is one-sided: at a tie the point the search kept (the first
// visited), Chebyshev's largest axis the first of equal ones, Manhattan's sign(0) = 0, and 0 at
// a Euclidean feature point itself. cell_value is flat inside a cell: gradient 0.

const CELLULAR_F2: u32 = 1u;
const CELLULAR_F2_MINUS_F1: u32 = 2u;
const CELLULAR_CELL_VALUE: u32 = 3u;
const METRIC_EUCLIDEAN: u32 = 0u;
const METRIC_EUCLIDEAN_SQUARED: u32 = 1u;
const METRIC_MANHATTAN: u32 = 2u;
const METRIC_CHEBYSHEV: u32 = 3u;
const CELLULAR_REACH: i32 = 2;
const CELLULAR_FAR: f32 = 1.0e9;

// The key the search compares for offset d: its length under `metric`, squared for Euclidean.
fn cellular_distance_key(d: vec3<f32>, metric: u32) -> f32 {
    if (metric == METRIC_MANHATTAN) {
        return abs(d.x) + abs(d.y) + abs(d.z);
    }
    if (metric == METRIC_CHEBYSHEV) {
        return max(max(abs(d.x), abs(d.y)), abs(d.z));
    }
    return d.x * d.x + d.y * d.y + d.z * d.z;
}

// The distance of a key.
fn cellular_finish(key: f32, metric: u32) -> f32 {
    return select(key, sqrt(key), metric == METRIC_EUCLIDEAN);
}

// Feature point of (wrapped) cell c relative to its corner (xy), and the cell value (z).
fn cellular_feature_2d(c: vec2<i32>, seed_h: u32, jitter: f32) -> vec3<f32> {
    let h = pcg3d(vec3<u32>(bitcast<u32>(c.x), bitcast<u32>(c.y), seed_h));
    return vec3<f32>(
        0.5 + jitter * (hash_to_unit(h.x) - 0.5),
        0.5 + jitter * (hash_to_unit(h.y) - 0.5),
        hash_to_signed(h.z),
    );
}

fn cellular_feature_3d(c: vec3<i32>, seed_h: u32, jitter: f32) -> vec4<f32> {
    let h = pcg4d(vec4<u32>(bitcast<u32>(c.x), bitcast<u32>(c.y), bitcast<u32>(c.z), seed_h));
    return vec4<f32>(
        0.5 + jitter * (hash_to_unit(h.x) - 0.5),
        0.5 + jitter * (hash_to_unit(h.y) - 0.5),
        0.5 + jitter * (hash_to_unit(h.z) - 0.5),
        hash_to_signed(h.w),
    );
}

// The output from the two least keys and the nearest point's cell value.
fn cellular_result(key1: f32, key2: f32, value: f32, ret: u32, metric: u32) -> f32 {
    let f1 = cellular_finish(key1, metric);
    let f2 = cellular_finish(key2, metric);
    if (ret == CELLULAR_F2) {
        return f2;
    }
    if (ret == CELLULAR_F2_MINUS_F1) {
        return f2 - f1;
    }
    if (ret == CELLULAR_CELL_VALUE) {
        return value;
    }
    return f1;
}

// The two nearest feature points so far: `best` = (F1 key, F2 key, value of the nearest's
// cell), and their offsets d = point - sample.
struct CellularNearest {
    best: vec3<f32>,
    d1: vec3<f32>,
    d2: vec3<f32>,
}

// The nearest two after one more feature point at offset d, key `dist`.
fn cellular_keep(n: CellularNearest, dist: f32, value: f32, d: vec3<f32>) -> CellularNearest {
    if (dist < n.best.x) {
        return CellularNearest(vec3<f32>(dist, n.best.x, value), d, n.d1);
    }
    if (dist < n.best.y) {
        return CellularNearest(vec3<f32>(n.best.x, dist, n.best.z), n.d1, d);
    }
    return n;
}

// d distance / d sample for a point at offset d (= point - sample) with key `key`.
fn cellular_distance_grad(d: vec3<f32>, key: f32, metric: u32) -> vec3<f32> {
    if (metric == METRIC_MANHATTAN) {
        return -sign(d);
    }
    if (metric == METRIC_CHEBYSHEV) {
        let a = abs(d);
        if (a.x >= a.y && a.x >= a.z) {
            return vec3<f32>(-sign(d.x), 0.0, 0.0);
        }
        if (a.y >= a.z) {
            return vec3<f32>(0.0, -sign(d.y), 0.0);
        }
        return vec3<f32>(0.0, 0.0, -sign(d.z));
    }
    if (metric == METRIC_EUCLIDEAN_SQUARED) {
        return -2.0 * d;
    }
    if (key == 0.0) {
        return vec3<f32>(0.0);
    }
    return -d / sqrt(key);
}

// The output and its gradient from the nearest two.
fn cellular_result_grad(n: CellularNearest, ret: u32, metric: u32) -> NoiseGrad {
    let value = cellular_result(n.best.x, n.best.y, n.best.z, ret, metric);
    var g = vec3<f32>(0.0);
    if (ret == CELLULAR_F2) {
        g = cellular_distance_grad(n.d2, n.best.y, metric);
    } else if (ret == CELLULAR_F2_MINUS_F1) {
        g = cellular_distance_grad(n.d2, n.best.y, metric) - cellular_distance_grad(n.d1, n.best.x, metric);
    } else if (ret != CELLULAR_CELL_VALUE) {
        g = cellular_distance_grad(n.d1, n.best.x, metric);
    }
    return NoiseGrad(value, vec4<f32>(g, 0.0));
}

// The key the output depends on: F2's for F2 and F2 - F1, else F1's.
fn cellular_deciding(n: CellularNearest, ret: u32) -> f32 {
    return select(n.best.x, n.best.y, ret == CELLULAR_F2 || ret == CELLULAR_F2_MINUS_F1);
}

// A feature point of a cell two away lies at least 1.5 - jitter / 2 (>= 1) away along that
// axis, so at least that far in every metric. When the deciding distance found in the 3^d
// cells around the sample is within it, the outer ring of the 5^d search cannot change the
// output and is skipped: with jitter 1 it almost never runs. As a key: squared for Euclidean.
fn cellular_ring_bound(jitter: f32, metric: u32) -> f32 {
    let b = 1.5 - 0.5 * jitter;
    return select(b, b * b, metric == METRIC_EUCLIDEAN || metric == METRIC_EUCLIDEAN_SQUARED);
}

fn cellular_visit_2d(n: CellularNearest, i: vec2<i32>, o: vec2<i32>, f: vec2<f32>, period: vec2<i32>, seed_h: u32, metric: u32, jitter: f32) -> CellularNearest {
    let c = vec2<i32>(wrap_cell(i.x + o.x, period.x), wrap_cell(i.y + o.y, period.y));
    let p = cellular_feature_2d(c, seed_h, jitter);
    let d = vec3<f32>(f32(o.x) + p.x - f.x, f32(o.y) + p.y - f.y, 0.0);
    return cellular_keep(n, cellular_distance_key(d, metric), p.z, d);
}

fn cellular_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, ret: u32, metric: u32, jitter: f32) -> NoiseGrad {
    let fl = floor(local);
    let i = cell + vec2<i32>(fl);
    let f = local - fl;
    var n = CellularNearest(vec3<f32>(CELLULAR_FAR, CELLULAR_FAR, 0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var dy = -1; dy <= 1; dy++) {
        for (var dx = -1; dx <= 1; dx++) {
            n = cellular_visit_2d(n, i, vec2<i32>(dx, dy), f, period, seed_h, metric, jitter);
        }
    }
    if (cellular_deciding(n, ret) > cellular_ring_bound(jitter, metric)) {
        for (var dy = -CELLULAR_REACH; dy <= CELLULAR_REACH; dy++) {
            for (var dx = -CELLULAR_REACH; dx <= CELLULAR_REACH; dx++) {
                if (max(abs(dx), abs(dy)) == CELLULAR_REACH) {
                    n = cellular_visit_2d(n, i, vec2<i32>(dx, dy), f, period, seed_h, metric, jitter);
                }
            }
        }
    }
    return cellular_result_grad(n, ret, metric);
}

fn cellular_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, ret: u32, metric: u32, jitter: f32) -> f32 {
    return cellular_2d_grad(cell, local, seed_h, period, ret, metric, jitter).value;
}

fn cellular_visit_3d(n: CellularNearest, i: vec3<i32>, o: vec3<i32>, f: vec3<f32>, period: vec3<i32>, seed_h: u32, metric: u32, jitter: f32) -> CellularNearest {
    let c = vec3<i32>(wrap_cell(i.x + o.x, period.x), wrap_cell(i.y + o.y, period.y), wrap_cell(i.z + o.z, period.z));
    let p = cellular_feature_3d(c, seed_h, jitter);
    let d = vec3<f32>(f32(o.x) + p.x - f.x, f32(o.y) + p.y - f.y, f32(o.z) + p.z - f.z);
    return cellular_keep(n, cellular_distance_key(d, metric), p.w, d);
}

fn cellular_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, ret: u32, metric: u32, jitter: f32) -> NoiseGrad {
    let fl = floor(local);
    let i = cell + vec3<i32>(fl);
    let f = local - fl;
    var n = CellularNearest(vec3<f32>(CELLULAR_FAR, CELLULAR_FAR, 0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var dz = -1; dz <= 1; dz++) {
        for (var dy = -1; dy <= 1; dy++) {
            for (var dx = -1; dx <= 1; dx++) {
                n = cellular_visit_3d(n, i, vec3<i32>(dx, dy, dz), f, period, seed_h, metric, jitter);
            }
        }
    }
    if (cellular_deciding(n, ret) > cellular_ring_bound(jitter, metric)) {
        for (var dz = -CELLULAR_REACH; dz <= CELLULAR_REACH; dz++) {
            for (var dy = -CELLULAR_REACH; dy <= CELLULAR_REACH; dy++) {
                for (var dx = -CELLULAR_REACH; dx <= CELLULAR_REACH; dx++) {
                    if (max(max(abs(dx), abs(dy)), abs(dz)) == CELLULAR_REACH) {
                        n = cellular_visit_3d(n, i, vec3<i32>(dx, dy, dz), f, period, seed_h, metric, jitter);
                    }
                }
            }
        }
    }
    return cellular_result_grad(n, ret, metric);
}

fn cellular_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, ret: u32, metric: u32, jitter: f32) -> f32 {
    return cellular_3d_grad(cell, local, seed_h, period, ret, metric, jitter).value;
}
