//! Point-wise operations on materialized fields. Twin of `combine_op` in `shaders/combine.wgsl`.

/// Op codes as in `PointwiseOp::code_and_constants`.
#[inline(always)]
pub fn combine_op(op: u32, a: f32, b: f32, c: f32, k: [f32; 4]) -> f32 {
    match op {
        0 => a + b,
        1 => a - b,
        2 => a * b,
        3 => a.min(b),
        4 => a.max(b),
        5 => a + (b - a) * c,
        6 => a.abs(),
        7 => -a,
        8 => a.max(k[0]).min(k[1]),
        9 => a * k[0] + k[1],
        _ => k[0],
    }
}
