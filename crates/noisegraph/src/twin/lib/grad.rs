//! A family's value with its analytic gradient. Twin of `shaders/lib/grad.wgsl`.

/// A family's value and its partial derivatives with respect to the sample's `local`
/// coordinates (x, y, z, w; 0 on the axes past the family's dims). `value` is the number the
/// family's plain sampler returns for the same sample.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct NoiseGrad {
    /// The noise value.
    pub value: f32,
    /// d value / d local, per axis.
    pub d: [f32; 4],
}

impl NoiseGrad {
    /// From `[value, d/dx, d/dy, d/dz]`, the form of the 2D and 3D lattice gradients (twin of
    /// `noise_grad_xyz`).
    #[inline(always)]
    pub fn from_xyz(v: [f32; 4]) -> Self {
        NoiseGrad {
            value: v[0],
            d: [v[1], v[2], v[3], 0.0],
        }
    }
}

/// WGSL's `sign`: -1, 0 or 1 (0 at +-0, where `f32::signum` gives +-1; NaN gives 0).
#[inline(always)]
pub fn sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        0.0
    }
}
