// Exact lattice split of a position given as an integer cell and an f32 offset, times a
// constant, for the precise form of exported modules (src/export/wgsl). Twin:
// src/twin/export/lattice.rs.
//
// f32 cannot hold cell * frequency for a cell far from the origin, so the export never forms
// that product in floats. A constant K (a frequency, or a frequency times an entry of the
// family's lattice transform) is compiled in as 32.64 fixed point, k = (floor(K) mod 2^32,
// then the 64 bits of K - floor(K)), and cell * K comes out as 32.32 fixed point: the integer
// part modulo 2^32 (the wrap the lattice hash assumes) and 32 bits of fraction. Every partial
// product is exact in u32 arithmetic; only the bits below 2^-64 * |cell| < 2^-33 are dropped.

// An octave's lattice position of an integer cell: the family's lattice cell and the local
// offset from it, in input space (the form a family kernel takes).
struct Lattice {
    cell: vec4<i32>,
    local: vec4<f32>,
}

// The 64-bit product of two u32 as (low word, high word), from 16-bit halves.
fn lattice_mul_wide(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
    let low = (mid << 16u) | (p00 & 0xffffu);
    let high = a1 * b1 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
    return vec2<u32>(low, high);
}

// cell * K in 32.32 fixed point (integer part mod 2^32, fraction * 2^32), K given as
// k = (floor(K) mod 2^32, fraction high word, fraction low word).
fn lattice_mul(cell: i32, k: vec3<u32>) -> vec2<u32> {
    let c = bitcast<u32>(cell);
    let high = lattice_mul_wide(c, k.y);
    let low = lattice_mul_wide(c, k.z);
    let fraction = high.x + low.y;
    let whole = c * k.x + high.y + select(0u, 1u, fraction < high.x);
    // A negative cell reads as cell + 2^32 in u32: take 2^32 * K back out (2^32 * floor(K)
    // vanishes mod 2^32, leaving the fraction words shifted up by 32 bits).
    let negative = cell < 0;
    let borrow = select(0u, 1u, fraction < k.z);
    return vec2<u32>(
        select(whole, whole - k.y - borrow, negative),
        select(fraction, fraction - k.z, negative),
    );
}

// f * K in 32.32 fixed point for a fraction f in [0, 1) given as 0.32 fixed point (f * 2^32),
// K as in lattice_mul: the product's bits below 2^-64 are dropped (an error under 2^-32).
fn lattice_mul_fraction(f: u32, k: vec3<u32>) -> vec2<u32> {
    let whole = lattice_mul_wide(f, k.x);
    let high = lattice_mul_wide(f, k.y);
    let fraction = whole.x + high.y;
    return vec2<u32>(whole.y + select(0u, 1u, fraction < whole.x), fraction);
}

// A position's f32 offset from its integer cell, split into whole cells and a fraction in
// 0.32 fixed point.
struct LatticeOffset {
    cell: vec4<i32>,
    fraction: vec4<u32>,
}

// local as floor(local) and (local - floor(local)) * 2^32, both exact in f32 (the fraction's
// bits below 2^-32 of a tiny offset aside).
fn lattice_split_local(local: vec4<f32>) -> LatticeOffset {
    let whole = floor(local);
    return LatticeOffset(vec4<i32>(whole), vec4<u32>((local - whole) * 4294967296.0));
}

// a + b in 32.32 fixed point, the integer part wrapping.
fn lattice_add(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let fraction = a.y + b.y;
    return vec2<u32>(a.x + b.x + select(0u, 1u, fraction < a.y), fraction);
}

// The integer part of a 32.32 number as a lattice cell coordinate.
fn lattice_cell(v: vec2<u32>) -> i32 {
    return bitcast<i32>(v.x);
}

// The fraction of a 32.32 number as f32: its top 24 bits, converted exactly.
fn lattice_fraction(v: vec2<u32>) -> f32 {
    return f32(v.y >> 8u) * (1.0 / 16777216.0);
}
