//! Interpolation curves for lattice noise. Twin of `shaders/lib/fade.wgsl`.

/// Fade curve: linear (t).
pub const FADE_LINEAR: u32 = 0;
/// Fade curve: cubic smoothstep 3t^2 - 2t^3.
pub const FADE_CUBIC: u32 = 1;
/// Fade curve: quintic 6t^5 - 15t^4 + 10t^3 (Perlin 2002).
pub const FADE_QUINTIC: u32 = 2;

#[inline(always)]
/// CPU twin of `fade` in shaders/lib/fade.wgsl: applies fade curve `kind` to `t` in [0, 1].
pub fn fade(t: f32, kind: u32) -> f32 {
    if kind == FADE_QUINTIC {
        return t * t * t * (t * (t * 6.0 - 15.0) + 10.0);
    }
    if kind == FADE_CUBIC {
        return t * t * (3.0 - 2.0 * t);
    }
    t
}

#[inline(always)]
/// CPU twin of `fade_slope` in shaders/lib/fade.wgsl: d fade / dt of curve `kind` at `t`.
pub fn fade_slope(t: f32, kind: u32) -> f32 {
    if kind == FADE_QUINTIC {
        return 30.0 * t * t * (t * (t - 2.0) + 1.0);
    }
    if kind == FADE_CUBIC {
        return 6.0 * t * (1.0 - t);
    }
    1.0
}

#[inline(always)]
/// CPU twin of `lerp` in shaders/lib/fade.wgsl: linear interpolation from `a` to `b` by `t`.
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + t * (b - a)
}

#[inline(always)]
/// CPU twin of `lerp_grad` in shaders/lib/fade.wgsl: one lerp of `[value, d/dx, d/dy, d/dz]`
/// pairs; the value is `lerp(a[0], b[0], t)` and `dt` is the gradient of the weight `t`.
pub fn lerp_grad(a: [f32; 4], b: [f32; 4], t: f32, dt: [f32; 3]) -> [f32; 4] {
    let dv = b[0] - a[0];
    [
        lerp(a[0], b[0], t),
        a[1] + t * (b[1] - a[1]) + dt[0] * dv,
        a[2] + t * (b[2] - a[2]) + dt[1] * dv,
        a[3] + t * (b[3] - a[3]) + dt[2] * dv,
    ]
}
