//! Integer hashes shared by every kernel. Twin of `shaders/lib/hash.wgsl`.
//!
//! All arithmetic is `u32` with explicit wrapping so the CPU path agrees with the GPU bit for bit.

/// PCG-based one-dimensional hash (Jarzynski and Olano, JCGT 2020).
#[inline(always)]
pub fn pcg(v: u32) -> u32 {
    let state = v.wrapping_mul(747796405).wrapping_add(2891336453);
    let word = ((state >> ((state >> 28) + 4)) ^ state).wrapping_mul(277803737);
    (word >> 22) ^ word
}

/// Three independent outputs from one call.
pub fn pcg3d(v: [u32; 3]) -> [u32; 3] {
    let mut v = v.map(|c| c.wrapping_mul(1664525).wrapping_add(1013904223));
    v[0] = v[0].wrapping_add(v[1].wrapping_mul(v[2]));
    v[1] = v[1].wrapping_add(v[2].wrapping_mul(v[0]));
    v[2] = v[2].wrapping_add(v[0].wrapping_mul(v[1]));
    v = v.map(|c| c ^ (c >> 16));
    v[0] = v[0].wrapping_add(v[1].wrapping_mul(v[2]));
    v[1] = v[1].wrapping_add(v[2].wrapping_mul(v[0]));
    v[2] = v[2].wrapping_add(v[0].wrapping_mul(v[1]));
    v
}

/// Four independent outputs from one call.
pub fn pcg4d(v: [u32; 4]) -> [u32; 4] {
    let mut v = v.map(|c| c.wrapping_mul(1664525).wrapping_add(1013904223));
    v[0] = v[0].wrapping_add(v[1].wrapping_mul(v[3]));
    v[1] = v[1].wrapping_add(v[2].wrapping_mul(v[0]));
    v[2] = v[2].wrapping_add(v[0].wrapping_mul(v[1]));
    v[3] = v[3].wrapping_add(v[1].wrapping_mul(v[2]));
    v = v.map(|c| c ^ (c >> 16));
    v[0] = v[0].wrapping_add(v[1].wrapping_mul(v[3]));
    v[1] = v[1].wrapping_add(v[2].wrapping_mul(v[0]));
    v[2] = v[2].wrapping_add(v[0].wrapping_mul(v[1]));
    v[3] = v[3].wrapping_add(v[1].wrapping_mul(v[2]));
    v
}

/// The seed of an octave is mixed once, on the host (`OctaveUniform::seed` holds its hash).
#[inline(always)]
pub fn seed_hash(seed: u32) -> u32 {
    pcg(seed)
}

/// Multiplier of the x coordinate in the lattice hashes (the xxHash32 primes).
pub const HASH_PRIME_X: u32 = 2654435761;
/// Multiplier of the y coordinate.
pub const HASH_PRIME_Y: u32 = 2246822519;
/// Multiplier of the z coordinate.
pub const HASH_PRIME_Z: u32 = 3266489917;
/// Multiplier of the w coordinate.
pub const HASH_PRIME_W: u32 = 668265263;
/// Multiplier of the finishing step.
pub const HASH_FINISH: u32 = 374761393;

/// Finishes a lattice hash: one multiply, then the high bits folded into the low ones.
#[inline(always)]
pub fn hash_finish(v: u32) -> u32 {
    let m = v.wrapping_mul(HASH_FINISH);
    m ^ (m >> 15)
}

#[inline(always)]
/// CPU twin of `hash_2d` in shaders/lib/hash.wgsl: hash of a 2D lattice cell under a seed hash.
pub fn hash_2d(cell: [i32; 2], seed_h: u32) -> u32 {
    hash_finish(
        seed_h
            ^ (cell[0] as u32).wrapping_mul(HASH_PRIME_X)
            ^ (cell[1] as u32).wrapping_mul(HASH_PRIME_Y),
    )
}

#[inline(always)]
/// CPU twin of `hash_3d` in shaders/lib/hash.wgsl: hash of a 3D lattice cell under a seed hash.
pub fn hash_3d(cell: [i32; 3], seed_h: u32) -> u32 {
    hash_finish(
        seed_h
            ^ (cell[0] as u32).wrapping_mul(HASH_PRIME_X)
            ^ (cell[1] as u32).wrapping_mul(HASH_PRIME_Y)
            ^ (cell[2] as u32).wrapping_mul(HASH_PRIME_Z),
    )
}

#[inline(always)]
/// CPU twin of `hash_4d` in shaders/lib/hash.wgsl: hash of a 4D lattice cell under a seed hash.
pub fn hash_4d(cell: [i32; 4], seed_h: u32) -> u32 {
    hash_finish(
        seed_h
            ^ (cell[0] as u32).wrapping_mul(HASH_PRIME_X)
            ^ (cell[1] as u32).wrapping_mul(HASH_PRIME_Y)
            ^ (cell[2] as u32).wrapping_mul(HASH_PRIME_Z)
            ^ (cell[3] as u32).wrapping_mul(HASH_PRIME_W),
    )
}

/// Top 24 bits as a float in [0, 1]: exact in f32.
#[inline(always)]
pub fn hash_to_unit(h: u32) -> f32 {
    (h >> 8) as f32 * (1.0 / 16777215.0)
}

/// Top 24 bits as a float in [-1, 1], both ends included.
#[inline(always)]
pub fn hash_to_signed(h: u32) -> f32 {
    (h >> 8) as f32 * (2.0 / 16777215.0) - 1.0
}

/// Wraps a lattice coordinate into [0, period) when period > 0 (tileable output).
#[inline(always)]
pub fn wrap_cell(c: i32, period: i32) -> i32 {
    if period <= 0 {
        return c;
    }
    c.rem_euclid(period)
}
