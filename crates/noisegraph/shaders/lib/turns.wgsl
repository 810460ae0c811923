// Periodic functions of a phase measured in turns (1 turn = 2 pi). Twin: src/cpu/turns.rs.
//
// Spectral kernels (Gabor, phasor, wave) evaluate cos / sin / atan2 many times per sample.
// Built-in trigonometry differs between drivers (and loses accuracy on large arguments), so
// these are polynomials with an explicit range reduction: the same operations on both paths,
// max error about 4e-9 for sin / cos and 5e-8 turns for atan2 (fitted for this project).

// sin(2 pi y) / y as a polynomial in y^2, for |y| <= 1/4.
const SIN_TURNS_C0: f32 = 6.28318516;
const SIN_TURNS_C1: f32 = -41.34165493;
const SIN_TURNS_C2: f32 = 81.60099807;
const SIN_TURNS_C3: f32 = -76.54965427;
const SIN_TURNS_C4: f32 = 39.5357958;

// atan(x) / (2 pi x) as a polynomial in x^2, for 0 <= x <= 1.
const ATAN_TURNS_C0: f32 = 0.159154247;
const ATAN_TURNS_C1: f32 = -0.053024064;
const ATAN_TURNS_C2: f32 = 0.0315077317;
const ATAN_TURNS_C3: f32 = -0.021001929;
const ATAN_TURNS_C4: f32 = 0.0125732114;
const ATAN_TURNS_C5: f32 = -0.00526886224;
const ATAN_TURNS_C6: f32 = 0.00105969907;

// 2 pi in f32: radians per turn, for derivatives of functions of turns.
const TURN_RADIANS: f32 = 6.2831855f;

// Phase profiles (phasor noise, wave noise): one period of a periodic function of the phase.
const PROFILE_SINE: u32 = 0u;
const PROFILE_TRIANGLE: u32 = 1u;
const PROFILE_SAWTOOTH: u32 = 2u;
const PROFILE_SQUARE: u32 = 3u;

// sin(2 pi t) for any t.
fn sin_turns(t: f32) -> f32 {
    // Reduce to [-1/2, 1/2), then fold onto [-1/4, 1/4] with sin(pi - x) = sin(x).
    var r = t - floor(t + 0.5);
    if (r > 0.25) {
        r = 0.5 - r;
    } else if (r < -0.25) {
        r = -0.5 - r;
    }
    let s = r * r;
    return r * (SIN_TURNS_C0 + s * (SIN_TURNS_C1 + s * (SIN_TURNS_C2 + s * (SIN_TURNS_C3 + s * SIN_TURNS_C4))));
}

// cos(2 pi t) for any t.
fn cos_turns(t: f32) -> f32 {
    return sin_turns(t + 0.25);
}

// atan2(y, x) / (2 pi): the angle of (x, y) in turns, in [-1/2, 1/2]; 0 at the origin.
fn atan2_turns(y: f32, x: f32) -> f32 {
    let ax = abs(x);
    let ay = abs(y);
    let hi = max(ax, ay);
    if (hi == 0.0) {
        return 0.0;
    }
    let r = min(ax, ay) / hi;
    let s = r * r;
    var a = r * (ATAN_TURNS_C0 + s * (ATAN_TURNS_C1 + s * (ATAN_TURNS_C2 + s * (ATAN_TURNS_C3 + s * (ATAN_TURNS_C4 + s * (ATAN_TURNS_C5 + s * ATAN_TURNS_C6))))));
    if (ay > ax) {
        a = 0.25 - a;
    }
    if (x < 0.0) {
        a = 0.5 - a;
    }
    if (y < 0.0) {
        a = -a;
    }
    return a;
}

// A periodic profile of phase t (turns), with the zeros and peaks of sin(2 pi t); range [-1, 1].
fn phase_profile(t: f32, kind: u32) -> f32 {
    if (kind == PROFILE_TRIANGLE) {
        let u = t - 0.25;
        return 1.0 - 4.0 * abs(u - floor(u + 0.5));
    }
    if (kind == PROFILE_SAWTOOTH) {
        return 2.0 * (t - floor(t)) - 1.0;
    }
    if (kind == PROFILE_SQUARE) {
        return select(-1.0, 1.0, t - floor(t) < 0.5);
    }
    return sin_turns(t);
}

// d phase_profile(t, kind) / dt per turn, from above (the slope of the piece t enters as it
// increases): sine 2 pi cos(2 pi t); triangle -4 from a crest down, +4 from a trough up;
// sawtooth 2 and square 0, their jumps left out.
fn phase_profile_slope(t: f32, kind: u32) -> f32 {
    if (kind == PROFILE_TRIANGLE) {
        let u = t - 0.25;
        return select(4.0, -4.0, u - floor(u + 0.5) >= 0.0);
    }
    if (kind == PROFILE_SAWTOOTH) {
        return 2.0;
    }
    if (kind == PROFILE_SQUARE) {
        return 0.0;
    }
    return TURN_RADIANS * cos_turns(t);
}

// phase_profile(atan2_turns(z.y, z.x), kind) and its gradient, from the gradients of the
// complex sum's parts: d phase = (re d im - im d re) / (2 pi |z|^2) turns, computed with z
// scaled by its larger part so that |z|^2 cannot underflow. Where z = 0 (a singular point)
// the phase is undefined and the gradient is 0.
fn phase_profile_grad(z: vec2<f32>, d_re: vec3<f32>, d_im: vec3<f32>, kind: u32) -> NoiseGrad {
    let t = atan2_turns(z.y, z.x);
    let value = phase_profile(t, kind);
    let hi = max(abs(z.x), abs(z.y));
    if (hi == 0.0) {
        return NoiseGrad(value, vec4<f32>(0.0));
    }
    let a = z / hi;
    let dt = (a.x * d_im - a.y * d_re) / (TURN_RADIANS * hi * (a.x * a.x + a.y * a.y));
    return NoiseGrad(value, vec4<f32>(phase_profile_slope(t, kind) * dt, 0.0));
}
