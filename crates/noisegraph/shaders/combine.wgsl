// Point-wise operations on materialized fields (add, sub, mul, min, max, mix, abs, neg,
// clamp, remap / scale_bias, constant). Twin: src/cpu/combine.rs (combine_op,
// combine_grad_op) and run_combine / run_combine_grad in src/cpu/stage.rs (the entry point).
// The bindings and the load_input / store_out / combine_field helpers come from the generated
// prelude (src/gpu/assemble.rs), which knows whether the fields are 2D or 3D and whether they
// hold values (f32) or values with gradients (vec4: value, d/dx, d/dy, d/dz).

struct CombineParams {
    size: vec4<u32>,
    op: vec4<u32>,
    constants: vec4<f32>,
}

fn combine_op(op: u32, a: f32, b: f32, c: f32, k: vec4<f32>) -> f32 {
    switch op {
        case 0u: { return a + b; }
        case 1u: { return a - b; }
        case 2u: { return a * b; }
        case 3u: { return min(a, b); }
        case 4u: { return max(a, b); }
        case 5u: { return a + (b - a) * c; }
        case 6u: { return abs(a); }
        case 7u: { return -a; }
        case 8u: { return min(max(a, k.x), k.y); }
        case 9u: { return a * k.x + k.y; }
        default: { return k.x; }
    }
}

// The operation on (value, d/dx, d/dy, d/dz) inputs: the value is combine_op's, the gradient
// follows by the chain rule. Where an operation has a crease the gradient is one side's:
// min and max take the gradient of the input they return, `a` on ties (a = b); abs takes
// sign(a) * a' with sign(0) = 0 (the convention of fractal_remap_slope in stage.wgsl); clamp
// passes a' where min <= a <= max (its bounds included) and gives 0 outside.
fn combine_grad_op(op: u32, a: vec4<f32>, b: vec4<f32>, c: vec4<f32>, k: vec4<f32>) -> vec4<f32> {
    let v = combine_op(op, a.x, b.x, c.x, k);
    var g = vec3<f32>(0.0);
    switch op {
        case 0u: { g = a.yzw + b.yzw; }
        case 1u: { g = a.yzw - b.yzw; }
        case 2u: { g = a.yzw * b.x + b.yzw * a.x; }
        case 3u: { g = select(b.yzw, a.yzw, a.x <= b.x); }
        case 4u: { g = select(b.yzw, a.yzw, a.x >= b.x); }
        case 5u: { g = a.yzw + (b.yzw - a.yzw) * c.x + (b.x - a.x) * c.yzw; }
        case 6u: { g = a.yzw * sign(a.x); }
        case 7u: { g = -a.yzw; }
        case 8u: { g = select(vec3<f32>(0.0), a.yzw, a.x >= k.x && a.x <= k.y); }
        case 9u: { g = a.yzw * k.x; }
        default: { g = vec3<f32>(0.0); }
    }
    return vec4<f32>(v, g);
}

@compute @workgroup_size(WORKGROUP_X, WORKGROUP_Y, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (any(gid >= params.size.xyz)) {
        return;
    }
    let a = load_input(0u, gid);
    let b = load_input(1u, gid);
    let c = load_input(2u, gid);
    store_out(gid, combine_field(params.op.x, a, b, c, params.constants));
}
