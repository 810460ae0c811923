// Wave noise: a sum of K plane waves with designed directions and frequencies.
// Twin: src/cpu/wave.rs. Cost: O(K) per sample (every wave reaches every point).
//
// The table (host-computed from the integer hash, see src/family/wave.rs) holds per wave
// (n.x, n.y, n.z, phase): the wave vector in fixed point, k = n / 65536 cycles per cell
// (|n| < 2^24, so exact in f32), and a phase in turns. The phase of wave k at lattice offset
// `cell` plus `local` is k.cell + k.local + phase. The first term is taken modulo 1 in exact
// u32 arithmetic (n.cell mod 2^32, keep the low 16 bits), so a sample at x = 1e9 is as precise
// as one at 0. Each octave seed adds a hashed integer translation to `cell`, which gives every
// wave a new phase without a new table.

// 1 / 65536, exact: a multiply by it equals a divide by 65536.
const WAVE_INV_FIXED_ONE: f32 = 0.0000152587890625;
const WAVE_FRACTION_MASK: u32 = 0xFFFFu;
const WAVE_TABLE_STRIDE: u32 = 4u;

fn wave_shift(seed_h: u32) -> vec3<u32> {
    let s0 = pcg(seed_h + 1u);
    let s1 = pcg(s0);
    let s2 = pcg(s1);
    return vec3<u32>(s0, s1, s2);
}

fn wave_finish(re: f32, im: f32, amplitude: f32, profile: u32, use_profile: bool) -> f32 {
    if (use_profile) {
        return phase_profile(atan2_turns(im, re), profile);
    }
    return re * amplitude;
}

fn wave_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, count: u32, amplitude: f32, profile: u32, use_profile: bool) -> f32 {
    let c = bitcast<vec2<u32>>(cell) + wave_shift(seed_h).xy;
    var re = 0.0;
    var im = 0.0;
    for (var k = 0u; k < count; k++) {
        let b = k * WAVE_TABLE_STRIDE;
        let n = vec2<f32>(aux[b], aux[b + 1u]);
        let whole = bitcast<u32>(i32(n.x)) * c.x + bitcast<u32>(i32(n.y)) * c.y;
        let t = f32(whole & WAVE_FRACTION_MASK) * WAVE_INV_FIXED_ONE + aux[b + 3u] + (n.x * local.x + n.y * local.y) * WAVE_INV_FIXED_ONE;
        re += cos_turns(t);
        if (use_profile) {
            im += sin_turns(t);
        }
    }
    return wave_finish(re, im, amplitude, profile, use_profile);
}

fn wave_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, count: u32, amplitude: f32, profile: u32, use_profile: bool) -> f32 {
    let c = bitcast<vec3<u32>>(cell) + wave_shift(seed_h);
    var re = 0.0;
    var im = 0.0;
    for (var k = 0u; k < count; k++) {
        let b = k * WAVE_TABLE_STRIDE;
        let n = vec3<f32>(aux[b], aux[b + 1u], aux[b + 2u]);
        let whole = bitcast<u32>(i32(n.x)) * c.x + bitcast<u32>(i32(n.y)) * c.y + bitcast<u32>(i32(n.z)) * c.z;
        let t = f32(whole & WAVE_FRACTION_MASK) * WAVE_INV_FIXED_ONE + aux[b + 3u] + (n.x * local.x + n.y * local.y + n.z * local.z) * WAVE_INV_FIXED_ONE;
        re += cos_turns(t);
        if (use_profile) {
            im += sin_turns(t);
        }
    }
    return wave_finish(re, im, amplitude, profile, use_profile);
}
