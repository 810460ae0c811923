// The operations the graph's nodes apply to noise values: the fractal remaps (fbm, ridged,
// billow) and the point-wise operations (add ... constant), each switched on by its op code,
// a named constant (FRACTAL_*, OP_*) the engine emits before this file from
// src/twin/lib/ops.rs. Twin: src/twin/lib/ops.rs. The stage template, the combine template
// and the exported graph functions all call these: each operation's value and derivative
// are written here once.
//
// Where an operation has no derivative (a crease), every path takes the same slope:
// sign(0) = 0 (ridged and billow where an octave's n = 0, abs at 0: slope 0, the mean of the
// two sides), min and max take a's gradient on a tie, clamp passes a's gradient on the closed
// range [min, max] and 0 outside.

// Per-octave remap: identity (fBm), (1 - |n|)^2 (ridged), 2|n| - 1 (billow).
fn fractal_remap(n: f32, kind: u32) -> f32 {
    if (kind == FRACTAL_RIDGED) {
        let r = 1.0 - abs(n);
        return r * r;
    }
    if (kind == FRACTAL_BILLOW) {
        return 2.0 * abs(n) - 1.0;
    }
    return n;
}

// A point-wise operation on the input values a, b, c with the node's constants k.
fn combine_op(op: u32, a: f32, b: f32, c: f32, k: vec4<f32>) -> f32 {
    switch op {
        case OP_ADD: { return a + b; }
        case OP_SUB: { return a - b; }
        case OP_MUL: { return a * b; }
        case OP_MIN: { return min(a, b); }
        case OP_MAX: { return max(a, b); }
        case OP_MIX: { return a + (b - a) * c; }
        case OP_ABS: { return abs(a); }
        case OP_NEG: { return -a; }
        case OP_CLAMP: { return min(max(a, k.x), k.y); }
        case OP_SCALE_BIAS: { return a * k.x + k.y; }
        case OP_CONSTANT: { return k.x; }
        // The remaps and blends (lib/shaping.wgsl).
        default: { return shaping_op(op, a, b, c, k); }
    }
}

// d fractal_remap(n, kind) / dn, with sign(0) = 0 on the crease of ridged and billow at n = 0.
fn fractal_remap_slope(n: f32, kind: u32) -> f32 {
    let sign_n = sign(n);
    if (kind == FRACTAL_RIDGED) {
        return -2.0 * (1.0 - abs(n)) * sign_n;
    }
    if (kind == FRACTAL_BILLOW) {
        return 2.0 * sign_n;
    }
    return 1.0;
}

// combine_op with gradients: the value is combine_op's, the gradient its derivative by the
// chain rule, with the crease conventions above.
fn combine_op_grad(op: u32, a: NoiseGrad, b: NoiseGrad, c: NoiseGrad, k: vec4<f32>) -> NoiseGrad {
    if (op > OP_CONSTANT) {
        return shaping_op_grad(op, a, b, c, k);
    }
    let value = combine_op(op, a.value, b.value, c.value, k);
    switch op {
        case OP_ADD: { return NoiseGrad(value, a.d + b.d); }
        case OP_SUB: { return NoiseGrad(value, a.d - b.d); }
        case OP_MUL: { return NoiseGrad(value, a.d * b.value + b.d * a.value); }
        case OP_MIN: { return NoiseGrad(value, select(b.d, a.d, a.value <= b.value)); }
        case OP_MAX: { return NoiseGrad(value, select(b.d, a.d, a.value >= b.value)); }
        case OP_MIX: { return NoiseGrad(value, a.d + (b.d - a.d) * c.value + (b.value - a.value) * c.d); }
        case OP_ABS: { return NoiseGrad(value, a.d * sign(a.value)); }
        case OP_NEG: { return NoiseGrad(value, -a.d); }
        case OP_CLAMP: { return NoiseGrad(value, select(vec4<f32>(0.0), a.d, a.value >= k.x && a.value <= k.y)); }
        case OP_SCALE_BIAS: { return NoiseGrad(value, a.d * k.x); }
        default: { return NoiseGrad(value, vec4<f32>(0.0)); }
    }
}
