// Interpolation curves for lattice noise. Twin: src/cpu/fade.rs.
// 0 = linear (C0), 1 = cubic 3t^2 - 2t^3 (Perlin 1985, C1), 2 = quintic 6t^5 - 15t^4 + 10t^3
// (Perlin 2002, C2: no creases in the slope or curvature of the field).

const FADE_LINEAR: u32 = 0u;
const FADE_CUBIC: u32 = 1u;
const FADE_QUINTIC: u32 = 2u;

fn fade(t: f32, kind: u32) -> f32 {
    if (kind == FADE_QUINTIC) {
        return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
    }
    if (kind == FADE_CUBIC) {
        return t * t * (3.0 - 2.0 * t);
    }
    return t;
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    return a + t * (b - a);
}
