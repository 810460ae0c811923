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

// d fade / dt, for analytic gradients: 1, 6t(1 - t), 30t^2(t(t - 2) + 1).
fn fade_slope(t: f32, kind: u32) -> f32 {
    if (kind == FADE_QUINTIC) {
        return 30.0 * t * t * (t * (t - 2.0) + 1.0);
    }
    if (kind == FADE_CUBIC) {
        return 6.0 * t * (1.0 - t);
    }
    return 1.0;
}

fn lerp(a: f32, b: f32, t: f32) -> f32 {
    return a + t * (b - a);
}

// One lerp of (value, d/dx, d/dy, d/dz) pairs, for analytic gradients: the value is
// lerp(a.x, b.x, t) exactly as the plain kernels compute it, and the gradient follows the
// product rule with `dt` the gradient of the blend weight t.
fn lerp_grad(a: vec4<f32>, b: vec4<f32>, t: f32, dt: vec3<f32>) -> vec4<f32> {
    return vec4<f32>(lerp(a.x, b.x, t), a.yzw + t * (b.yzw - a.yzw) + dt * (b.x - a.x));
}
