// Normal map straight from a generator chain's analytic gradient: no height field is
// materialized and no neighbour is read. Twin: src/cpu/analytic_normal.rs.
// The generated prelude (analytic_normal_source in src/gpu/assemble.rs) declares `params` (the
// chain's StageParams, every octave in this one pass), `normal_params` (NormalMapParams),
// `out_tex` and `sample_family_grad` (the family's NoiseGrad: value and d/dlocal, in local
// coordinates), followed by the declarations of stage.wgsl and normal_map.wgsl.
//
// Octave k samples local = o.local + pixel * o.step, so dn/dpixel = dn/dlocal * o.step (chain
// rule). Remap slopes: ridged (1 - |n|)^2 -> -2 (1 - |n|) sign(n), billow 2|n| - 1 ->
// 2 sign(n), with sign(0) = 0 on the kink at n = 0. The sum is normalized as the stage
// normalizes it, and the slope per pixel divided by the pixel spacing, so the surface is the
// one normal_map.wgsl differentiates numerically: z = height_scale * h(x, y), x, y in view
// units. The height written in w is the value the plain stage stores.

// d fractal_remap(n, kind) / dn.
fn fractal_remap_slope(n: f32, kind: u32) -> f32 {
    let sign_n = select(select(0.0, 1.0, n > 0.0), -1.0, n < 0.0);
    if (kind == FRACTAL_RIDGED) {
        return -2.0 * (1.0 - abs(n)) * sign_n;
    }
    if (kind == FRACTAL_BILLOW) {
        return 2.0 * sign_n;
    }
    return 1.0;
}

@compute @workgroup_size(WORKGROUP_X, WORKGROUP_Y, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (any(gid.xy >= params.size.xy)) {
        return;
    }
    // The stage's sample point, operation for operation (no warp: no displacement term).
    let pix = vec4<f32>(vec3<f32>(gid + params.pixel_offset.xyz), 0.0);
    let kind = params.mode.x;
    var sum = 0.0;
    var grad = vec2<f32>(0.0);
    // The octave count is compiled in (ANALYTIC_OCTAVES = params.size.w): a uniform trip count
    // is slow on lavapipe (see stage.wgsl).
    for (var k = 0u; k < ANALYTIC_OCTAVES; k++) {
        let o = params.octaves[k];
        let local = o.local + pix * o.step;
        let n = sample_family_grad(o.cell, local, o.seed, o.period);
        sum += o.amp * fractal_remap(n.value, kind);
        let slope = o.amp * fractal_remap_slope(n.value, kind);
        grad += vec2<f32>(slope * (n.d.x * o.step.x), slope * (n.d.y * o.step.y));
    }
    sum *= params.scalars.x;
    grad *= params.scalars.x;
    let scale = normal_params.scalars.x;
    let gx = scale * grad.x / normal_params.scalars.y;
    let gy = scale * grad.y / normal_params.scalars.z;
    textureStore(out_tex, vec2<i32>(gid.xy), encode_normal(gx, gy, sum, normal_params.size.w));
}
