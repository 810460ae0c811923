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

/// The seed is mixed once per sample; lattice coordinates are folded in one at a time.
#[inline(always)]
pub fn seed_hash(seed: u32) -> u32 {
    pcg(seed)
}

#[inline(always)]
/// CPU twin of `hash_2d` in shaders/lib/hash.wgsl: hash of a 2D lattice cell under a seed hash.
pub fn hash_2d(cell: [i32; 2], seed_h: u32) -> u32 {
    pcg(pcg(seed_h.wrapping_add(cell[0] as u32)).wrapping_add(cell[1] as u32))
}

#[inline(always)]
/// CPU twin of `hash_3d` in shaders/lib/hash.wgsl: hash of a 3D lattice cell under a seed hash.
pub fn hash_3d(cell: [i32; 3], seed_h: u32) -> u32 {
    pcg(
        pcg(pcg(seed_h.wrapping_add(cell[0] as u32)).wrapping_add(cell[1] as u32))
            .wrapping_add(cell[2] as u32),
    )
}

#[inline(always)]
/// CPU twin of `hash_4d` in shaders/lib/hash.wgsl: hash of a 4D lattice cell under a seed hash.
pub fn hash_4d(cell: [i32; 4], seed_h: u32) -> u32 {
    pcg(pcg(
        pcg(pcg(seed_h.wrapping_add(cell[0] as u32)).wrapping_add(cell[1] as u32))
            .wrapping_add(cell[2] as u32),
    )
    .wrapping_add(cell[3] as u32))
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
