// Integer hashes shared by every kernel. Twin: src/cpu/hash.rs.
//
// `pcg` is the PCG-based one-dimensional hash recommended by Jarzynski and Olano,
// "Hash Functions for GPU Rendering" (JCGT 2020); it hashes seeds and derives further numbers
// from a hash. Lattice cells use the cheaper hash_2d / hash_3d / hash_4d below (one multiply
// per corner instead of a chain of PCG rounds: see BENCHMARKS.md).
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

// The seed of an octave is mixed once, on the host (the Octave uniform holds seed_hash(seed));
// kernels receive it as `seed_h`.
fn seed_hash(seed: u32) -> u32 {
    return pcg(seed);
}

// Lattice hashes: every coordinate is multiplied by its own odd constant (the xxHash32
// primes), the products and the seed hash are combined with xor and the sum is finished by
// one multiply and an xorshift. Neighbouring corners share their coordinate products, so a
// 2D corner costs one multiply; the multiplies make the result non-linear over GF(2).
const HASH_PRIME_X: u32 = 2654435761u;
const HASH_PRIME_Y: u32 = 2246822519u;
const HASH_PRIME_Z: u32 = 3266489917u;
const HASH_PRIME_W: u32 = 668265263u;
const HASH_FINISH: u32 = 374761393u;

fn hash_finish(v: u32) -> u32 {
    let m = v * HASH_FINISH;
    return m ^ (m >> 15u);
}

fn hash_2d(cell: vec2<i32>, seed_h: u32) -> u32 {
    return hash_finish(seed_h ^ (bitcast<u32>(cell.x) * HASH_PRIME_X) ^ (bitcast<u32>(cell.y) * HASH_PRIME_Y));
}

fn hash_3d(cell: vec3<i32>, seed_h: u32) -> u32 {
    return hash_finish(seed_h ^ (bitcast<u32>(cell.x) * HASH_PRIME_X) ^ (bitcast<u32>(cell.y) * HASH_PRIME_Y) ^ (bitcast<u32>(cell.z) * HASH_PRIME_Z));
}

fn hash_4d(cell: vec4<i32>, seed_h: u32) -> u32 {
    return hash_finish(seed_h ^ (bitcast<u32>(cell.x) * HASH_PRIME_X) ^ (bitcast<u32>(cell.y) * HASH_PRIME_Y) ^ (bitcast<u32>(cell.z) * HASH_PRIME_Z) ^ (bitcast<u32>(cell.w) * HASH_PRIME_W));
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
