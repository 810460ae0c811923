// Normal map from a gradient field: the graph's stages ran in gradient form (stage.wgsl,
// combine.wgsl) and wrote (value, d/dx, d/dy, d/dz) per pixel, the derivatives with respect to
// the view coordinates; this pass turns each pixel's own gradient into a normal, reading no
// neighbour. Twin: src/cpu/analytic_normal.rs.
// The generated prelude (analytic_normal_source in src/gpu/assemble.rs) declares `params`
// (NormalMapParams), `out_tex` (the chosen RGBA storage format) and `gradient_tex`, followed
// by the declarations of normal_map.wgsl.
//
// The surface is normal_map.wgsl's: z = height_scale * h(x, y) over a plane whose
// neighbouring pixels are `spacing` apart. Here params.scalars.y and .z hold that spacing in
// units of the view's pixel size (extent / size: 1 for NormalMapOptions::for_view), so the
// slope is height_scale * dh/dp / (spacing / pixel size), the slope the central differences
// of normal_map.wgsl approach. The height written in w is the value the plain stage stores.

@compute @workgroup_size(WORKGROUP_X, WORKGROUP_Y, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (any(gid.xy >= params.size.xy)) {
        return;
    }
    let g = textureLoad(gradient_tex, vec2<i32>(gid.xy), 0);
    let scale = params.scalars.x;
    let gx = scale * g.y / params.scalars.y;
    let gy = scale * g.z / params.scalars.z;
    textureStore(out_tex, vec2<i32>(gid.xy), encode_normal(gx, gy, g.x, params.size.w));
}
