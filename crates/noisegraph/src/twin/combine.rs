//! Point-wise operations on materialized fields. Twin of `combine_op` and `combine_grad_op` in
//! `shaders/combine.wgsl`.

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

/// WGSL's `sign`: -1, 0 or 1 (0 at both zeros, unlike `f32::signum`).
#[inline(always)]
pub fn sign(x: f32) -> f32 {
    if x < 0.0 {
        -1.0
    } else if x > 0.0 {
        1.0
    } else {
        0.0
    }
}

/// The operation on `[value, d/dx, d/dy, d/dz]` inputs: the value is [`combine_op`]'s (bit for
/// bit), the gradient by the chain rule; where the operation has a crease the gradient is one
/// side's (see `combine_grad_op` in shaders/combine.wgsl: min / max take the returned input's,
/// `a` on ties; abs uses sign(0) = 0; clamp passes `a`'s within its bounds, included).
#[inline(always)]
pub fn combine_grad_op(op: u32, a: [f32; 4], b: [f32; 4], c: [f32; 4], k: [f32; 4]) -> [f32; 4] {
    let v = combine_op(op, a[0], b[0], c[0], k);
    let (ga, gb, gc) = ([a[1], a[2], a[3]], [b[1], b[2], b[3]], [c[1], c[2], c[3]]);
    let g: [f32; 3] = match op {
        0 => std::array::from_fn(|i| ga[i] + gb[i]),
        1 => std::array::from_fn(|i| ga[i] - gb[i]),
        2 => std::array::from_fn(|i| ga[i] * b[0] + gb[i] * a[0]),
        3 if a[0] <= b[0] => ga,
        3 => gb,
        4 if a[0] >= b[0] => ga,
        4 => gb,
        5 => std::array::from_fn(|i| ga[i] + (gb[i] - ga[i]) * c[0] + (b[0] - a[0]) * gc[i]),
        6 => ga.map(|g| g * sign(a[0])),
        7 => ga.map(|g| -g),
        8 if a[0] >= k[0] && a[0] <= k[1] => ga,
        9 => ga.map(|g| g * k[0]),
        _ => [0.0; 3],
    };
    [v, g[0], g[1], g[2]]
}
