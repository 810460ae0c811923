//! The combine template's texel form of the point-wise operations in gradient form. Twin of
//! `combine_grad_op` in `shaders/combine.wgsl`; the operations themselves are in
//! `shaders/lib/ops.wgsl` and its twin.

use super::lib::grad::NoiseGrad;
#[cfg(doc)]
use super::lib::ops::combine_op;
use super::lib::ops::combine_op_grad;

/// The operation on `[value, d/dx, d/dy, d/dz]` texels (the grid's gradient fields):
/// [`combine_op_grad`] on them, so its value is [`combine_op`]'s bit for bit.
#[inline(always)]
pub fn combine_grad_op(op: u32, a: [f32; 4], b: [f32; 4], c: [f32; 4], k: [f32; 4]) -> [f32; 4] {
    let r = combine_op_grad(
        op,
        NoiseGrad::from_xyz(a),
        NoiseGrad::from_xyz(b),
        NoiseGrad::from_xyz(c),
        k,
    );
    [r.value, r.d[0], r.d[1], r.d[2]]
}
