// Point-wise stages: each texel through an operation of lib/ops.wgsl (combine_op,
// combine_op_grad). Twin: src/twin/combine.rs (combine_grad_op) and run_combine /
// run_combine_grad in src/engine/stage.rs (the entry point).
// The bindings and the load_input / store_out / combine_field helpers come from the generated
// prelude (src/gpu/assemble.rs), which knows whether the fields are 2D or 3D and whether they
// hold values (f32) or values with gradients (vec4: value, d/dx, d/dy, d/dz).

struct CombineParams {
    size: vec4<u32>,
    op: vec4<u32>,
    constants: vec4<f32>,
}

// The operation on (value, d/dx, d/dy, d/dz) texels: combine_op_grad (lib/ops.wgsl) on them.
fn combine_grad_op(op: u32, a: vec4<f32>, b: vec4<f32>, c: vec4<f32>, k: vec4<f32>) -> vec4<f32> {
    let r = combine_op_grad(op, noise_grad_xyz(a), noise_grad_xyz(b), noise_grad_xyz(c), k);
    return vec4<f32>(r.value, r.d.xyz);
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
