//! Interpolation curves for lattice noise. Twin of `shaders/lib/fade.wgsl`.

pub const FADE_LINEAR: u32 = 0;
pub const FADE_CUBIC: u32 = 1;
pub const FADE_QUINTIC: u32 = 2;

#[inline(always)]
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
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + t * (b - a)
}
