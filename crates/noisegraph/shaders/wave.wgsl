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
// Gradient form: d t / d local = n / 65536, so each wave adds -2 pi sin(2 pi t) n / 65536 to the
// gradient of its cos part (and 2 pi cos(2 pi t) n / 65536 to its sin part's); the profiles go
// through phase_profile_grad (lib/turns.wgsl). The plain functions take its value.

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

fn wave_finish_grad(z: vec2<f32>, d_re: vec3<f32>, d_im: vec3<f32>, amplitude: f32, profile: u32, use_profile: bool) -> NoiseGrad {
    if (use_profile) {
        return phase_profile_grad(z, d_re, d_im, profile);
    }
    return NoiseGrad(z.x * amplitude, vec4<f32>(d_re * amplitude, 0.0));
}

fn wave_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, count: u32, amplitude: f32, profile: u32, use_profile: bool) -> NoiseGrad {
    let c = bitcast<vec2<u32>>(cell) + wave_shift(seed_h).xy;
    var re = 0.0;
    var im = 0.0;
    var d_re = vec3<f32>(0.0);
    var d_im = vec3<f32>(0.0);
    for (var k = 0u; k < count; k++) {
        let b = k * WAVE_TABLE_STRIDE;
        let n = vec2<f32>(aux[b], aux[b + 1u]);
        let whole = bitcast<u32>(i32(n.x)) * c.x + bitcast<u32>(i32(n.y)) * c.y;
        let t = f32(whole & WAVE_FRACTION_MASK) * WAVE_INV_FIXED_ONE + aux[b + 3u] + (n.x * local.x + n.y * local.y) * WAVE_INV_FIXED_ONE;
        let cos_t = cos_turns(t);
        let sin_t = sin_turns(t);
        re += cos_t;
        d_re -= sin_t * vec3<f32>(n, 0.0);
        if (use_profile) {
            im += sin_t;
            d_im += cos_t * vec3<f32>(n, 0.0);
        }
    }
    let scale = TURN_RADIANS * WAVE_INV_FIXED_ONE;
    return wave_finish_grad(vec2<f32>(re, im), d_re * scale, d_im * scale, amplitude, profile, use_profile);
}

fn wave_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, count: u32, amplitude: f32, profile: u32, use_profile: bool) -> NoiseGrad {
    let c = bitcast<vec3<u32>>(cell) + wave_shift(seed_h);
    var re = 0.0;
    var im = 0.0;
    var d_re = vec3<f32>(0.0);
    var d_im = vec3<f32>(0.0);
    for (var k = 0u; k < count; k++) {
        let b = k * WAVE_TABLE_STRIDE;
        let n = vec3<f32>(aux[b], aux[b + 1u], aux[b + 2u]);
        let whole = bitcast<u32>(i32(n.x)) * c.x + bitcast<u32>(i32(n.y)) * c.y + bitcast<u32>(i32(n.z)) * c.z;
        let t = f32(whole & WAVE_FRACTION_MASK) * WAVE_INV_FIXED_ONE + aux[b + 3u] + (n.x * local.x + n.y * local.y + n.z * local.z) * WAVE_INV_FIXED_ONE;
        let cos_t = cos_turns(t);
        let sin_t = sin_turns(t);
        re += cos_t;
        d_re -= sin_t * n;
        if (use_profile) {
            im += sin_t;
            d_im += cos_t * n;
        }
    }
    let scale = TURN_RADIANS * WAVE_INV_FIXED_ONE;
    return wave_finish_grad(vec2<f32>(re, im), d_re * scale, d_im * scale, amplitude, profile, use_profile);
}

fn wave_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, count: u32, amplitude: f32, profile: u32, use_profile: bool) -> f32 {
    return wave_2d_grad(cell, local, seed_h, count, amplitude, profile, use_profile).value;
}

fn wave_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, count: u32, amplitude: f32, profile: u32, use_profile: bool) -> f32 {
    return wave_3d_grad(cell, local, seed_h, count, amplitude, profile, use_profile).value;
}
