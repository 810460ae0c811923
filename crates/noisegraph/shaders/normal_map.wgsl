// Normal map of a materialized height field by central differences, for renderers to light.
// Twin: src/cpu/normal_map.rs. The generated prelude (normal_map_source in
// src/gpu/assemble.rs) declares `params`, `out_tex` (the chosen RGBA storage format) and
// `load_height(x, y)`.
//
// Surface: z = height_scale * h(x, y), with x, y in view units (pixel spacing = extent / size).
// Normal: normalize(-dz/dx, -dz/dy, 1), in the frame x = +pixel x, y = +pixel y, z = +height.
// Borders: clamp uses one-sided differences at the edges (the neighbour index is clamped and
// the slope divided by the distance actually spanned); wrap treats the field as tileable.

struct NormalMapParams {
    // width, height, border (0 clamp, 1 wrap), encoding (0 signed with height in w, 1 unorm)
    size: vec4<u32>,
    // height scale, pixel spacing along x, pixel spacing along y, unused
    scalars: vec4<f32>,
}

const BORDER_WRAP: u32 = 1u;
const ENCODING_UNORM: u32 = 1u;

// The indices of the left and right neighbours of x on an axis of n pixels.
fn neighbours(x: i32, n: i32, border: u32) -> vec2<i32> {
    if (border == BORDER_WRAP) {
        return vec2<i32>((x - 1 + n) % n, (x + 1) % n);
    }
    return vec2<i32>(max(x - 1, 0), min(x + 1, n - 1));
}

// How many pixels the two neighbours are apart: 2 inside, 1 at a clamped edge, 0 on an axis of
// one pixel (clamped), where the slope is taken as 0.
fn neighbour_span(x: i32, n: i32, border: u32) -> f32 {
    if (border == BORDER_WRAP) {
        return 2.0;
    }
    let nb = neighbours(x, n, border);
    return f32(nb.y - nb.x);
}

fn slope(lo: f32, hi: f32, span_px: f32, spacing: f32, scale: f32) -> f32 {
    if (span_px == 0.0) {
        return 0.0;
    }
    return scale * (hi - lo) / (span_px * spacing);
}

fn encode_normal(gx: f32, gy: f32, h: f32, encoding: u32) -> vec4<f32> {
    let inv_len = 1.0 / sqrt(gx * gx + gy * gy + 1.0);
    let nx = -gx * inv_len;
    let ny = -gy * inv_len;
    let nz = inv_len;
    if (encoding == ENCODING_UNORM) {
        return vec4<f32>(nx * 0.5 + 0.5, ny * 0.5 + 0.5, nz * 0.5 + 0.5, 1.0);
    }
    return vec4<f32>(nx, ny, nz, h);
}

@compute @workgroup_size(WORKGROUP_X, WORKGROUP_Y, 1)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    if (any(gid.xy >= params.size.xy)) {
        return;
    }
    let x = i32(gid.x);
    let y = i32(gid.y);
    let w = i32(params.size.x);
    let h = i32(params.size.y);
    let border = params.size.z;
    let nx = neighbours(x, w, border);
    let ny = neighbours(y, h, border);
    let scale = params.scalars.x;
    let gx = slope(load_height(nx.x, y), load_height(nx.y, y), neighbour_span(x, w, border), params.scalars.y, scale);
    let gy = slope(load_height(x, ny.x), load_height(x, ny.y), neighbour_span(y, h, border), params.scalars.z, scale);
    textureStore(out_tex, vec2<i32>(x, y), encode_normal(gx, gy, load_height(x, y), params.size.w));
}
