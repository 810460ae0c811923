// Point-wise operations on materialized fields (add, sub, mul, min, max, mix, abs, neg,
// clamp, remap / scale_bias, constant). Twin: src/cpu/combine.rs (combine_op) and
// run_combine in src/cpu/stage.rs (the entry point).
// The bindings and the load_input / store_out helpers come from the generated prelude
// (src/gpu/assemble.rs), which knows whether the fields are 2D or 3D.

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

@compute @workgroup_size(WORKGROUP_X, WORKGROUP_Y, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (any(gid >= params.size.xyz)) {
        return;
    }
    let a = load_input(0u, gid);
    let b = load_input(1u, gid);
    let c = load_input(2u, gid);
    store_out(gid, combine_op(params.op.x, a, b, c, params.constants));
}
