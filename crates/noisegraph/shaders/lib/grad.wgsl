// A family's value with its analytic gradient. Twin: src/cpu/grad.rs.
// `d` holds the partial derivatives with respect to the sample's `local` coordinates (x, y, z,
// w; 0 past the family's dims); `value` is the number the family's plain function returns.

struct NoiseGrad {
    value: f32,
    d: vec4<f32>,
}

// From (value, d/dx, d/dy, d/dz), the form of the 2D and 3D lattice gradients.
fn noise_grad_xyz(v: vec4<f32>) -> NoiseGrad {
    return NoiseGrad(v.x, vec4<f32>(v.yzw, 0.0));
}
