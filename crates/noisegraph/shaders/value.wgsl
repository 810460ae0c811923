// Value noise: a hashed height in [-1, 1] at every lattice corner, blended with a fade curve.
// Range [-1, 1]; equals the corner's hashed value at every lattice point. Twin: src/cpu/value.rs.

fn value_corner_2d(c: vec2<i32>, period: vec2<i32>, seed_h: u32) -> f32 {
    return hash_to_signed(hash_2d(vec2<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y)), seed_h));
}

fn value_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, fade_kind: u32) -> f32 {
    let fl = floor(local);
    let i = cell + vec2<i32>(fl);
    let f = local - fl;
    let a = value_corner_2d(i, period, seed_h);
    let b = value_corner_2d(i + vec2<i32>(1, 0), period, seed_h);
    let c = value_corner_2d(i + vec2<i32>(0, 1), period, seed_h);
    let d = value_corner_2d(i + vec2<i32>(1, 1), period, seed_h);
    let ux = fade(f.x, fade_kind);
    let uy = fade(f.y, fade_kind);
    return lerp(lerp(a, b, ux), lerp(c, d, ux), uy);
}

fn value_corner_3d(c: vec3<i32>, period: vec3<i32>, seed_h: u32) -> f32 {
    return hash_to_signed(hash_3d(vec3<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y), wrap_cell(c.z, period.z)), seed_h));
}

fn value_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, fade_kind: u32) -> f32 {
    let fl = floor(local);
    let i = cell + vec3<i32>(fl);
    let f = local - fl;
    let ux = fade(f.x, fade_kind);
    let uy = fade(f.y, fade_kind);
    let uz = fade(f.z, fade_kind);
    let a000 = value_corner_3d(i, period, seed_h);
    let a100 = value_corner_3d(i + vec3<i32>(1, 0, 0), period, seed_h);
    let a010 = value_corner_3d(i + vec3<i32>(0, 1, 0), period, seed_h);
    let a110 = value_corner_3d(i + vec3<i32>(1, 1, 0), period, seed_h);
    let a001 = value_corner_3d(i + vec3<i32>(0, 0, 1), period, seed_h);
    let a101 = value_corner_3d(i + vec3<i32>(1, 0, 1), period, seed_h);
    let a011 = value_corner_3d(i + vec3<i32>(0, 1, 1), period, seed_h);
    let a111 = value_corner_3d(i + vec3<i32>(1, 1, 1), period, seed_h);
    let z0 = lerp(lerp(a000, a100, ux), lerp(a010, a110, ux), uy);
    let z1 = lerp(lerp(a001, a101, ux), lerp(a011, a111, ux), uy);
    return lerp(z0, z1, uz);
}

// ---- Analytic gradients: value_2d_grad / value_3d_grad return (value, d/dx, d/dy, d/dz) with
// respect to `local` (only the fade curves vary); the value is the plain function's.

fn value_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, fade_kind: u32) -> vec4<f32> {
    let fl = floor(local);
    let i = cell + vec2<i32>(fl);
    let f = local - fl;
    let a = vec4<f32>(value_corner_2d(i, period, seed_h), 0.0, 0.0, 0.0);
    let b = vec4<f32>(value_corner_2d(i + vec2<i32>(1, 0), period, seed_h), 0.0, 0.0, 0.0);
    let c = vec4<f32>(value_corner_2d(i + vec2<i32>(0, 1), period, seed_h), 0.0, 0.0, 0.0);
    let d = vec4<f32>(value_corner_2d(i + vec2<i32>(1, 1), period, seed_h), 0.0, 0.0, 0.0);
    let ux = fade(f.x, fade_kind);
    let uy = fade(f.y, fade_kind);
    let dx = vec3<f32>(fade_slope(f.x, fade_kind), 0.0, 0.0);
    let dy = vec3<f32>(0.0, fade_slope(f.y, fade_kind), 0.0);
    return lerp_grad(lerp_grad(a, b, ux, dx), lerp_grad(c, d, ux, dx), uy, dy);
}

fn value_corner_grad_3d(c: vec3<i32>, period: vec3<i32>, seed_h: u32) -> vec4<f32> {
    return vec4<f32>(value_corner_3d(c, period, seed_h), 0.0, 0.0, 0.0);
}

fn value_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, fade_kind: u32) -> vec4<f32> {
    let fl = floor(local);
    let i = cell + vec3<i32>(fl);
    let f = local - fl;
    let ux = fade(f.x, fade_kind);
    let uy = fade(f.y, fade_kind);
    let uz = fade(f.z, fade_kind);
    let dx = vec3<f32>(fade_slope(f.x, fade_kind), 0.0, 0.0);
    let dy = vec3<f32>(0.0, fade_slope(f.y, fade_kind), 0.0);
    let dz = vec3<f32>(0.0, 0.0, fade_slope(f.z, fade_kind));
    let a000 = value_corner_grad_3d(i, period, seed_h);
    let a100 = value_corner_grad_3d(i + vec3<i32>(1, 0, 0), period, seed_h);
    let a010 = value_corner_grad_3d(i + vec3<i32>(0, 1, 0), period, seed_h);
    let a110 = value_corner_grad_3d(i + vec3<i32>(1, 1, 0), period, seed_h);
    let a001 = value_corner_grad_3d(i + vec3<i32>(0, 0, 1), period, seed_h);
    let a101 = value_corner_grad_3d(i + vec3<i32>(1, 0, 1), period, seed_h);
    let a011 = value_corner_grad_3d(i + vec3<i32>(0, 1, 1), period, seed_h);
    let a111 = value_corner_grad_3d(i + vec3<i32>(1, 1, 1), period, seed_h);
    let z0 = lerp_grad(lerp_grad(a000, a100, ux, dx), lerp_grad(a010, a110, ux, dx), uy, dy);
    let z1 = lerp_grad(lerp_grad(a001, a101, ux, dx), lerp_grad(a011, a111, ux, dx), uy, dy);
    return lerp_grad(z0, z1, uz, dz);
}
