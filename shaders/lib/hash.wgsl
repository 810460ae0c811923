// Integer hashes shared by every kernel. Twin: src/cpu/hash.rs.
//
// `pcg` is the PCG-based one-dimensional hash recommended by Jarzynski and Olano,
// "Hash Functions for GPU Rendering" (JCGT 2020). Lattice hashes nest it,
// pcg(pcg(pcg(seed) + x) + y), the nesting the paper uses for several dimensions.
// All arithmetic is u32 and wraps, so the CPU twin agrees bit for bit.

fn pcg(v: u32) -> u32 {
    let state = v * 747796405u + 2891336453u;
    let word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

// pcg3d and pcg4d from the same paper: several independent outputs from one call,
// used where a cell needs more than one random number (jitter, impulses).
fn pcg3d(v_in: vec3<u32>) -> vec3<u32> {
    var v = v_in * 1664525u + 1013904223u;
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    v = v ^ (v >> vec3<u32>(16u));
    v.x += v.y * v.z;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    return v;
}

fn pcg4d(v_in: vec4<u32>) -> vec4<u32> {
    var v = v_in * 1664525u + 1013904223u;
    v.x += v.y * v.w;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    v.w += v.y * v.z;
    v = v ^ (v >> vec4<u32>(16u));
    v.x += v.y * v.w;
    v.y += v.z * v.x;
    v.z += v.x * v.y;
    v.w += v.y * v.z;
    return v;
}

// The seed is mixed once per sample; lattice coordinates are then folded in one at a time.
fn seed_hash(seed: u32) -> u32 {
    return pcg(seed);
}

fn hash_2d(cell: vec2<i32>, seed_h: u32) -> u32 {
    return pcg(pcg(seed_h + bitcast<u32>(cell.x)) + bitcast<u32>(cell.y));
}

fn hash_3d(cell: vec3<i32>, seed_h: u32) -> u32 {
    return pcg(pcg(pcg(seed_h + bitcast<u32>(cell.x)) + bitcast<u32>(cell.y)) + bitcast<u32>(cell.z));
}

fn hash_4d(cell: vec4<i32>, seed_h: u32) -> u32 {
    return pcg(pcg(pcg(pcg(seed_h + bitcast<u32>(cell.x)) + bitcast<u32>(cell.y)) + bitcast<u32>(cell.z)) + bitcast<u32>(cell.w));
}

// Top 24 bits as a float in [0, 1]: exact in f32, so both paths agree bit for bit.
fn hash_to_unit(h: u32) -> f32 {
    return f32(h >> 8u) * (1.0 / 16777215.0);
}

// Top 24 bits as a float in [-1, 1], both ends included.
fn hash_to_signed(h: u32) -> f32 {
    return f32(h >> 8u) * (2.0 / 16777215.0) - 1.0;
}

// Wraps a lattice coordinate into [0, period) when period > 0 (tileable output).
fn wrap_cell(c: i32, period: i32) -> i32 {
    if (period <= 0) {
        return c;
    }
    let r = c % period;
    return select(r, r + period, r < 0);
}
