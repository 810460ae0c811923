// Cellular (Worley) noise in 2D and 3D. Twin: src/cpu/cellular.rs.
// One feature point per cell at cell + 0.5 + jitter * (u - 0.5), u from pcg3d / pcg4d of the
// (period-wrapped) cell and the seed; the last hash output is the cell's value in [-1, 1].
// The 5^d cells around the sample are searched: with jitter 1 the second-nearest point is
// bounded by the 2^d cells around the nearest cell corner, below any point three cells away.
// ret: 0 = F1, 1 = F2, 2 = F2 - F1, 3 = cell value.
// metric: 0 = Euclidean, 1 = squared Euclidean, 2 = Manhattan, 3 = Chebyshev.

const CELLULAR_F2: u32 = 1u;
const CELLULAR_F2_MINUS_F1: u32 = 2u;
const CELLULAR_CELL_VALUE: u32 = 3u;
const METRIC_EUCLIDEAN_SQUARED: u32 = 1u;
const METRIC_MANHATTAN: u32 = 2u;
const METRIC_CHEBYSHEV: u32 = 3u;
const CELLULAR_REACH: i32 = 2;
const CELLULAR_FAR: f32 = 1.0e9;

fn cellular_distance(d: vec3<f32>, metric: u32) -> f32 {
    if (metric == METRIC_MANHATTAN) {
        return abs(d.x) + abs(d.y) + abs(d.z);
    }
    if (metric == METRIC_CHEBYSHEV) {
        return max(max(abs(d.x), abs(d.y)), abs(d.z));
    }
    let sq = d.x * d.x + d.y * d.y + d.z * d.z;
    if (metric == METRIC_EUCLIDEAN_SQUARED) {
        return sq;
    }
    return sqrt(sq);
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

fn cellular_result(f1: f32, f2: f32, value: f32, ret: u32) -> f32 {
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

fn cellular_2d(cell: vec2<i32>, local: vec2<f32>, seed: u32, period: vec2<i32>, ret: u32, metric: u32, jitter: f32) -> f32 {
    let fl = floor(local);
    let i = cell + vec2<i32>(fl);
    let f = local - fl;
    let sh = seed_hash(seed);
    var f1 = CELLULAR_FAR;
    var f2 = CELLULAR_FAR;
    var value = 0.0;
    for (var dy = -CELLULAR_REACH; dy <= CELLULAR_REACH; dy++) {
        for (var dx = -CELLULAR_REACH; dx <= CELLULAR_REACH; dx++) {
            let c = vec2<i32>(wrap_cell(i.x + dx, period.x), wrap_cell(i.y + dy, period.y));
            let p = cellular_feature_2d(c, sh, jitter);
            let d = vec3<f32>(f32(dx) + p.x - f.x, f32(dy) + p.y - f.y, 0.0);
            let dist = cellular_distance(d, metric);
            if (dist < f1) {
                f2 = f1;
                f1 = dist;
                value = p.z;
            } else if (dist < f2) {
                f2 = dist;
            }
        }
    }
    return cellular_result(f1, f2, value, ret);
}

fn cellular_3d(cell: vec3<i32>, local: vec3<f32>, seed: u32, period: vec3<i32>, ret: u32, metric: u32, jitter: f32) -> f32 {
    let fl = floor(local);
    let i = cell + vec3<i32>(fl);
    let f = local - fl;
    let sh = seed_hash(seed);
    var f1 = CELLULAR_FAR;
    var f2 = CELLULAR_FAR;
    var value = 0.0;
    for (var dz = -CELLULAR_REACH; dz <= CELLULAR_REACH; dz++) {
        for (var dy = -CELLULAR_REACH; dy <= CELLULAR_REACH; dy++) {
            for (var dx = -CELLULAR_REACH; dx <= CELLULAR_REACH; dx++) {
                let c = vec3<i32>(
                    wrap_cell(i.x + dx, period.x),
                    wrap_cell(i.y + dy, period.y),
                    wrap_cell(i.z + dz, period.z),
                );
                let p = cellular_feature_3d(c, sh, jitter);
                let d = vec3<f32>(f32(dx) + p.x - f.x, f32(dy) + p.y - f.y, f32(dz) + p.z - f.z);
                let dist = cellular_distance(d, metric);
                if (dist < f1) {
                    f2 = f1;
                    f1 = dist;
                    value = p.w;
                } else if (dist < f2) {
                    f2 = dist;
                }
            }
        }
    }
    return cellular_result(f1, f2, value, ret);
}
