// Perlin gradient noise (2002 revision by default). Twin: src/cpu/perlin.rs.
// Every corner holds a unit gradient; its term is dot(gradient, offset), blended with a fade.
// Zero at every lattice point. Range: |n| <= sqrt(dims) / 2 (0.7072 in 2D, 0.8661 in 3D).
// gradients: 0 = improved (a fixed set picked by hash bits: 8 directions in 2D, the 12
// cube-edge directions in 3D), 1 = random (hash-derived unit vectors, Perlin 1985).

const GRADIENTS_IMPROVED: u32 = 0u;
const GRADIENTS_RANDOM: u32 = 1u;
const INV_SQRT2: f32 = 0.70710678118654752;
const TAU: f32 = 6.28318530717958648;
const GRAD2_COS: f32 = 0.92387953251128674; // cos(pi / 8)
const GRAD2_SIN: f32 = 0.38268343236508977; // sin(pi / 8)

fn perlin_grad_2d(h: u32, d: vec2<f32>, gradients: u32) -> f32 {
    if (gradients == GRADIENTS_RANDOM) {
        let angle = hash_to_unit(h) * TAU;
        return cos(angle) * d.x + sin(angle) * d.y;
    }
    // Eight unit vectors at 22.5 + k * 45 degrees, picked by hash bits (0, 1: signs, 2: swap).
    // None lies along an axis or a diagonal, which keeps straight creases off the lattice lines.
    // The signs are xored into the offsets' sign bits and the swap exchanges the offsets, not
    // the gradient: the same products and sum as the twin's (negation and the order of two
    // addends are exact), in fewer operations than selecting signed components.
    let sx = bitcast<f32>(bitcast<u32>(d.x) ^ (h << 31u));
    let sy = bitcast<f32>(bitcast<u32>(d.y) ^ ((h & 2u) << 30u));
    let swap = (h & 4u) != 0u;
    return select(sx, sy, swap) * GRAD2_COS + select(sy, sx, swap) * GRAD2_SIN;
}

fn perlin_corner_2d(i: vec2<i32>, offset: vec2<i32>, f: vec2<f32>, period: vec2<i32>, seed_h: u32, gradients: u32) -> f32 {
    let c = i + offset;
    let h = hash_2d(vec2<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y)), seed_h);
    return perlin_grad_2d(h, f - vec2<f32>(offset), gradients);
}

fn perlin_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, fade_kind: u32, gradients: u32) -> f32 {
    let fl = floor(local);
    let i = cell + vec2<i32>(fl);
    let f = local - fl;
    let a = perlin_corner_2d(i, vec2<i32>(0, 0), f, period, seed_h, gradients);
    let b = perlin_corner_2d(i, vec2<i32>(1, 0), f, period, seed_h, gradients);
    let c = perlin_corner_2d(i, vec2<i32>(0, 1), f, period, seed_h, gradients);
    let d = perlin_corner_2d(i, vec2<i32>(1, 1), f, period, seed_h, gradients);
    let ux = fade(f.x, fade_kind);
    let uy = fade(f.y, fade_kind);
    return lerp(lerp(a, b, ux), lerp(c, d, ux), uy);
}

fn perlin_grad_3d(h: u32, d: vec3<f32>, gradients: u32) -> f32 {
    if (gradients == GRADIENTS_RANDOM) {
        // Uniform on the sphere: z uniform in [-1, 1], azimuth from a second hash.
        let z = hash_to_signed(h);
        let r = sqrt(max(1.0 - z * z, 0.0));
        let angle = hash_to_unit(pcg(h)) * TAU;
        return r * cos(angle) * d.x + r * sin(angle) * d.y + z * d.z;
    }
    // Perlin's 2002 selection of the 12 cube-edge directions from 4 hash bits.
    let k = h & 15u;
    let u = select(d.y, d.x, k < 8u);
    let v = select(select(d.z, d.x, k == 12u || k == 14u), d.y, k < 4u);
    return (select(u, -u, (k & 1u) != 0u) + select(v, -v, (k & 2u) != 0u)) * INV_SQRT2;
}

fn perlin_corner_3d(i: vec3<i32>, offset: vec3<i32>, f: vec3<f32>, period: vec3<i32>, seed_h: u32, gradients: u32) -> f32 {
    let c = i + offset;
    let h = hash_3d(vec3<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y), wrap_cell(c.z, period.z)), seed_h);
    return perlin_grad_3d(h, f - vec3<f32>(offset), gradients);
}

fn perlin_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, fade_kind: u32, gradients: u32) -> f32 {
    let fl = floor(local);
    let i = cell + vec3<i32>(fl);
    let f = local - fl;
    let ux = fade(f.x, fade_kind);
    let uy = fade(f.y, fade_kind);
    let uz = fade(f.z, fade_kind);
    let a000 = perlin_corner_3d(i, vec3<i32>(0, 0, 0), f, period, seed_h, gradients);
    let a100 = perlin_corner_3d(i, vec3<i32>(1, 0, 0), f, period, seed_h, gradients);
    let a010 = perlin_corner_3d(i, vec3<i32>(0, 1, 0), f, period, seed_h, gradients);
    let a110 = perlin_corner_3d(i, vec3<i32>(1, 1, 0), f, period, seed_h, gradients);
    let a001 = perlin_corner_3d(i, vec3<i32>(0, 0, 1), f, period, seed_h, gradients);
    let a101 = perlin_corner_3d(i, vec3<i32>(1, 0, 1), f, period, seed_h, gradients);
    let a011 = perlin_corner_3d(i, vec3<i32>(0, 1, 1), f, period, seed_h, gradients);
    let a111 = perlin_corner_3d(i, vec3<i32>(1, 1, 1), f, period, seed_h, gradients);
    let z0 = lerp(lerp(a000, a100, ux), lerp(a010, a110, ux), uy);
    let z1 = lerp(lerp(a001, a101, ux), lerp(a011, a111, ux), uy);
    return lerp(z0, z1, uz);
}

// ---- Analytic gradients: perlin_2d_grad / perlin_3d_grad return (value, d/dx, d/dy, d/dz)
// with respect to `local`; the value is the number perlin_2d / perlin_3d return.

// The gradient vector perlin_grad_2d dots with the offset (its derivative by the offset).
fn perlin_gradient_2d(h: u32, gradients: u32) -> vec2<f32> {
    if (gradients == GRADIENTS_RANDOM) {
        let angle = hash_to_unit(h) * TAU;
        return vec2<f32>(cos(angle), sin(angle));
    }
    let swap = (h & 4u) != 0u;
    let gx = select(GRAD2_COS, GRAD2_SIN, swap);
    let gy = select(GRAD2_SIN, GRAD2_COS, swap);
    return vec2<f32>(select(gx, -gx, (h & 1u) != 0u), select(gy, -gy, (h & 2u) != 0u));
}

// The gradient vector perlin_grad_3d dots with the offset.
fn perlin_gradient_3d(h: u32, gradients: u32) -> vec3<f32> {
    if (gradients == GRADIENTS_RANDOM) {
        let z = hash_to_signed(h);
        let r = sqrt(max(1.0 - z * z, 0.0));
        let angle = hash_to_unit(pcg(h)) * TAU;
        return vec3<f32>(r * cos(angle), r * sin(angle), z);
    }
    // The axes perlin_grad_3d reads u and v from (never the same one), with their signs.
    let k = h & 15u;
    let u_axis = select(1u, 0u, k < 8u);
    let v_axis = select(select(2u, 0u, k == 12u || k == 14u), 1u, k < 4u);
    let su = select(INV_SQRT2, -INV_SQRT2, (k & 1u) != 0u);
    let sv = select(INV_SQRT2, -INV_SQRT2, (k & 2u) != 0u);
    return vec3<f32>(
        select(0.0, su, u_axis == 0u) + select(0.0, sv, v_axis == 0u),
        select(0.0, su, u_axis == 1u) + select(0.0, sv, v_axis == 1u),
        select(0.0, su, u_axis == 2u) + select(0.0, sv, v_axis == 2u),
    );
}

fn perlin_corner_grad_2d(i: vec2<i32>, offset: vec2<i32>, f: vec2<f32>, period: vec2<i32>, seed_h: u32, gradients: u32) -> vec4<f32> {
    let c = i + offset;
    let h = hash_2d(vec2<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y)), seed_h);
    return vec4<f32>(perlin_grad_2d(h, f - vec2<f32>(offset), gradients), perlin_gradient_2d(h, gradients), 0.0);
}

fn perlin_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, fade_kind: u32, gradients: u32) -> vec4<f32> {
    let fl = floor(local);
    let i = cell + vec2<i32>(fl);
    let f = local - fl;
    let a = perlin_corner_grad_2d(i, vec2<i32>(0, 0), f, period, seed_h, gradients);
    let b = perlin_corner_grad_2d(i, vec2<i32>(1, 0), f, period, seed_h, gradients);
    let c = perlin_corner_grad_2d(i, vec2<i32>(0, 1), f, period, seed_h, gradients);
    let d = perlin_corner_grad_2d(i, vec2<i32>(1, 1), f, period, seed_h, gradients);
    let ux = fade(f.x, fade_kind);
    let uy = fade(f.y, fade_kind);
    let dx = vec3<f32>(fade_slope(f.x, fade_kind), 0.0, 0.0);
    let dy = vec3<f32>(0.0, fade_slope(f.y, fade_kind), 0.0);
    return lerp_grad(lerp_grad(a, b, ux, dx), lerp_grad(c, d, ux, dx), uy, dy);
}

fn perlin_corner_grad_3d(i: vec3<i32>, offset: vec3<i32>, f: vec3<f32>, period: vec3<i32>, seed_h: u32, gradients: u32) -> vec4<f32> {
    let c = i + offset;
    let h = hash_3d(vec3<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y), wrap_cell(c.z, period.z)), seed_h);
    return vec4<f32>(perlin_grad_3d(h, f - vec3<f32>(offset), gradients), perlin_gradient_3d(h, gradients));
}

fn perlin_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, fade_kind: u32, gradients: u32) -> vec4<f32> {
    let fl = floor(local);
    let i = cell + vec3<i32>(fl);
    let f = local - fl;
    let ux = fade(f.x, fade_kind);
    let uy = fade(f.y, fade_kind);
    let uz = fade(f.z, fade_kind);
    let dx = vec3<f32>(fade_slope(f.x, fade_kind), 0.0, 0.0);
    let dy = vec3<f32>(0.0, fade_slope(f.y, fade_kind), 0.0);
    let dz = vec3<f32>(0.0, 0.0, fade_slope(f.z, fade_kind));
    let a000 = perlin_corner_grad_3d(i, vec3<i32>(0, 0, 0), f, period, seed_h, gradients);
    let a100 = perlin_corner_grad_3d(i, vec3<i32>(1, 0, 0), f, period, seed_h, gradients);
    let a010 = perlin_corner_grad_3d(i, vec3<i32>(0, 1, 0), f, period, seed_h, gradients);
    let a110 = perlin_corner_grad_3d(i, vec3<i32>(1, 1, 0), f, period, seed_h, gradients);
    let a001 = perlin_corner_grad_3d(i, vec3<i32>(0, 0, 1), f, period, seed_h, gradients);
    let a101 = perlin_corner_grad_3d(i, vec3<i32>(1, 0, 1), f, period, seed_h, gradients);
    let a011 = perlin_corner_grad_3d(i, vec3<i32>(0, 1, 1), f, period, seed_h, gradients);
    let a111 = perlin_corner_grad_3d(i, vec3<i32>(1, 1, 1), f, period, seed_h, gradients);
    let z0 = lerp_grad(lerp_grad(a000, a100, ux, dx), lerp_grad(a010, a110, ux, dx), uy, dy);
    let z1 = lerp_grad(lerp_grad(a001, a101, ux, dx), lerp_grad(a011, a111, ux, dx), uy, dy);
    return lerp_grad(z0, z1, uz, dz);
}
