// The remaps and blends of the graph (pow, smoothstep, quantize, terrace, smooth_min,
// smooth_max, select): point-wise operations past OP_CONSTANT, each with its value and
// derivative written once here. Twin: src/twin/lib/shaping.rs (see its docs for the
// constants k, which the host precomputes, and the crease conventions). combine_op and
// combine_op_grad (lib/ops.wgsl) hand these codes on to shaping_op and shaping_op_grad.

// The cubic 3t^2 - 2t^3 of t in [0, 1], and its slope.
fn cubic_step(t: f32) -> f32 {
    return t * t * (3.0 - 2.0 * t);
}

fn cubic_step_slope(t: f32) -> f32 {
    return 6.0 * t * (1.0 - t);
}

// |a|^e with a's sign (0 at a = 0, where pow is undefined).
fn signed_pow(a: f32, e: f32) -> f32 {
    let m = abs(a);
    if (m == 0.0) {
        return 0.0;
    }
    return sign(a) * pow(m, e);
}

// A terrace sample's step floor (x) and riser parameter u in [0, 1] (y).
fn terrace_parts(a: f32, k: vec4<f32>) -> vec2<f32> {
    let q = a * k.x;
    let f = floor(q);
    return vec2<f32>(f, clamp((q - f - k.z) * k.w, 0.0, 1.0));
}

// The polynomial smooth minimum's bump h in [0, 1] (0 where |a - b| >= k).
fn smooth_bump(a: f32, b: f32, k: vec4<f32>) -> f32 {
    return max(k.x - abs(a - b), 0.0) * k.y;
}

// The weight of b in a select by the control value c.
fn select_weight(c: f32, k: vec4<f32>) -> f32 {
    return cubic_step(clamp((c - k.y) * k.z, 0.0, 1.0));
}

// The value of a remap or blend.
fn shaping_op(op: u32, a: f32, b: f32, c: f32, k: vec4<f32>) -> f32 {
    switch op {
        case OP_POW: { return signed_pow(a, k.x); }
        case OP_SMOOTHSTEP: { return cubic_step(clamp((a - k.x) * k.y, 0.0, 1.0)); }
        case OP_QUANTIZE: { return floor(a * k.x) * k.y; }
        case OP_TERRACE: {
            let t = terrace_parts(a, k);
            return (t.x + cubic_step(t.y)) * k.y;
        }
        case OP_SMOOTH_MIN: {
            let h = smooth_bump(a, b, k);
            return min(a, b) - h * h * k.x * 0.25;
        }
        case OP_SMOOTH_MAX: {
            let h = smooth_bump(a, b, k);
            return max(a, b) + h * h * k.x * 0.25;
        }
        case OP_SELECT: {
            if (k.z == 0.0) {
                return select(a, b, c >= k.x);
            }
            return a + (b - a) * select_weight(c, k);
        }
        default: { return 0.0; }
    }
}

// shaping_op with gradients: the value is shaping_op's, the gradient its derivative by the
// chain rule.
fn shaping_op_grad(op: u32, a: NoiseGrad, b: NoiseGrad, c: NoiseGrad, k: vec4<f32>) -> NoiseGrad {
    let value = shaping_op(op, a.value, b.value, c.value, k);
    switch op {
        case OP_POW: {
            let m = abs(a.value);
            // e |a|^(e - 1); at a = 0: 1 for e = 1, else 0.
            var slope = select(0.0, 1.0, k.y == 0.0);
            if (m != 0.0) {
                slope = k.x * pow(m, k.y);
            }
            return NoiseGrad(value, a.d * slope);
        }
        case OP_SMOOTHSTEP: {
            let t = clamp((a.value - k.x) * k.y, 0.0, 1.0);
            return NoiseGrad(value, a.d * (cubic_step_slope(t) * k.y));
        }
        case OP_TERRACE: {
            let t = terrace_parts(a.value, k);
            return NoiseGrad(value, a.d * (cubic_step_slope(t.y) * k.w));
        }
        case OP_SMOOTH_MIN, OP_SMOOTH_MAX: {
            let h = smooth_bump(a.value, b.value, k);
            let s = sign(a.value - b.value);
            let lean = select(-0.5, 0.5, op == OP_SMOOTH_MAX) * s * (1.0 - h);
            return NoiseGrad(value, 0.5 * (a.d + b.d) + lean * (a.d - b.d));
        }
        case OP_SELECT: {
            if (k.z == 0.0) {
                return NoiseGrad(value, select(a.d, b.d, c.value >= k.x));
            }
            let t = clamp((c.value - k.y) * k.z, 0.0, 1.0);
            let w = cubic_step(t);
            let dw = (b.value - a.value) * cubic_step_slope(t) * k.z;
            return NoiseGrad(value, a.d + (b.d - a.d) * w + dw * c.d);
        }
        default: { return NoiseGrad(value, vec4<f32>(0.0)); }
    }
}
