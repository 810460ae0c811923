// Helpers of the graph functions an exported module defines (src/wgsl_export): the slopes of
// the fractal remaps and the gradients of the point-wise operations, for `<name>_grad`.
// Twin: src/cpu/point.rs (which also evaluates whole graphs at points, as the exported
// functions do).
//
// Where an operation has no derivative (|n| at 0 in ridged and billow octaves and in abs,
// min / max where the inputs are equal, clamp at its bounds), the one-sided choice is:
// n >= 0 counts as positive, min and max follow their first input on a tie, and clamp passes
// the gradient through on its closed range [min, max].

fn fractal_remap_slope(n: f32, kind: u32) -> f32 {
    if (kind == FRACTAL_RIDGED) {
        let r = 1.0 - abs(n);
        return select(2.0 * r, -2.0 * r, n >= 0.0);
    }
    if (kind == FRACTAL_BILLOW) {
        return select(-2.0, 2.0, n >= 0.0);
    }
    return 1.0;
}

fn combine_op_grad(op: u32, a: NoiseGrad, b: NoiseGrad, c: NoiseGrad, k: vec4<f32>) -> NoiseGrad {
    let value = combine_op(op, a.value, b.value, c.value, k);
    switch op {
        case 0u: { return NoiseGrad(value, a.d + b.d); }
        case 1u: { return NoiseGrad(value, a.d - b.d); }
        case 2u: { return NoiseGrad(value, a.d * b.value + a.value * b.d); }
        case 3u: { return NoiseGrad(value, select(b.d, a.d, a.value <= b.value)); }
        case 4u: { return NoiseGrad(value, select(b.d, a.d, a.value >= b.value)); }
        case 5u: { return NoiseGrad(value, a.d + (b.d - a.d) * c.value + (b.value - a.value) * c.d); }
        case 6u: { return NoiseGrad(value, select(-a.d, a.d, a.value >= 0.0)); }
        case 7u: { return NoiseGrad(value, -a.d); }
        case 8u: { return NoiseGrad(value, select(vec4<f32>(0.0), a.d, a.value >= k.x && a.value <= k.y)); }
        case 9u: { return NoiseGrad(value, a.d * k.x); }
        default: { return NoiseGrad(value, vec4<f32>(0.0)); }
    }
}
