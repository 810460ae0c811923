// Simplex noise (Perlin 2001) in 2D, 3D and 4D. Twin: src/cpu/simplex.rs.
// The input is skewed so the simplex grid lines up with the integer grid; each of the d + 1
// corners of the containing simplex adds (r^2 - |d|^2)^4 * dot(g, d), with unit gradients: the
// Perlin sets in 2D and 3D, the 32 hypercube edge directions in 4D. r^2 = 1/2 (falloff
// `continuous`, the default) is the squared height of the simplices in every dimension, so a
// corner's term is zero on the far faces of its simplices and the field is continuous; 3D and
// 4D also offer `classic`, r^2 = 0.6, whose terms are cut off where the simplex changes (jumps,
// see src/cpu/simplex.rs). The sum is scaled by the exact maximum of that sum over the cell
// (found numerically, see tests/lattice_scales.rs), so the range is [-1, 1].
//
// `cell` is an offset on the skewed lattice and `local` a position in input space relative to
// that lattice point's unskewed position: the host splits large origins that way in f64.
// Uses perlin_grad_2d / perlin_grad_3d from perlin.wgsl.

const SIMPLEX_F2: f32 = 0.36602540378443865;
const SIMPLEX_G2: f32 = 0.21132486540518712;
const SIMPLEX_SCALE_2D: f32 = 100.039;
const SIMPLEX_F3: f32 = 0.33333333333333333;
const SIMPLEX_G3: f32 = 0.16666666666666667;
const SIMPLEX_SCALE_3D: f32 = 108.7258;
const SIMPLEX_SCALE_3D_CLASSIC: f32 = 46.2385;
const SIMPLEX_F4: f32 = 0.30901699437494742;
const SIMPLEX_G4: f32 = 0.13819660112501051;
const SIMPLEX_SCALE_4D: f32 = 108.7341;
const SIMPLEX_SCALE_4D_CLASSIC: f32 = 47.15627;
const SIMPLEX_FALLOFF_CONTINUOUS: u32 = 0u;
const SIMPLEX_R2: f32 = 0.5;
const SIMPLEX_R2_CLASSIC: f32 = 0.6;
const INV_SQRT3: f32 = 0.57735026918962576;

fn simplex_corner_2d(d: vec2<f32>, h: u32) -> f32 {
    let t = max(SIMPLEX_R2 - dot(d, d), 0.0);
    let t2 = t * t;
    return t2 * t2 * perlin_grad_2d(h, d, GRADIENTS_IMPROVED);
}

fn simplex_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32) -> f32 {
    let s = (local.x + local.y) * SIMPLEX_F2;
    let fl = floor(local + vec2<f32>(s));
    let t = (fl.x + fl.y) * SIMPLEX_G2;
    let d0 = local - (fl - vec2<f32>(t));
    let o = select(vec2<i32>(0, 1), vec2<i32>(1, 0), d0.x > d0.y);
    let d1 = d0 - vec2<f32>(o) + vec2<f32>(SIMPLEX_G2);
    let d2 = d0 - vec2<f32>(1.0 - 2.0 * SIMPLEX_G2);
    let i = cell + vec2<i32>(fl);
    let n0 = simplex_corner_2d(d0, hash_2d(i, seed_h));
    let n1 = simplex_corner_2d(d1, hash_2d(i + o, seed_h));
    let n2 = simplex_corner_2d(d2, hash_2d(i + vec2<i32>(1, 1), seed_h));
    return SIMPLEX_SCALE_2D * (n0 + n1 + n2);
}

// The squared radius and output scale of a falloff in 3D: (r^2, scale).
fn simplex_falloff_3d(falloff: u32) -> vec2<f32> {
    if (falloff == SIMPLEX_FALLOFF_CONTINUOUS) {
        return vec2<f32>(SIMPLEX_R2, SIMPLEX_SCALE_3D);
    }
    return vec2<f32>(SIMPLEX_R2_CLASSIC, SIMPLEX_SCALE_3D_CLASSIC);
}

fn simplex_corner_3d(d: vec3<f32>, h: u32, rsq: f32) -> f32 {
    let t = max(rsq - dot(d, d), 0.0);
    let t2 = t * t;
    return t2 * t2 * perlin_grad_3d(h, d, GRADIENTS_IMPROVED);
}

// falloff: SIMPLEX_FALLOFF_CONTINUOUS (0) or classic (1).
fn simplex_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, falloff: u32) -> f32 {
    let rs = simplex_falloff_3d(falloff);
    let s = (local.x + local.y + local.z) * SIMPLEX_F3;
    let fl = floor(local + vec3<f32>(s));
    let t = (fl.x + fl.y + fl.z) * SIMPLEX_G3;
    let d0 = local - (fl - vec3<f32>(t));
    // Which of the six tetrahedra: order the components of d0.
    let ge_xy = d0.x >= d0.y;
    let ge_yz = d0.y >= d0.z;
    let ge_xz = d0.x >= d0.z;
    let o1 = vec3<i32>(
        select(0, 1, ge_xy && ge_xz),
        select(0, 1, !ge_xy && ge_yz),
        select(0, 1, !ge_xz && !ge_yz),
    );
    let o2 = vec3<i32>(
        select(0, 1, ge_xy || ge_xz),
        select(0, 1, !ge_xy || ge_yz),
        select(0, 1, !(ge_xz && ge_yz)),
    );
    let d1 = d0 - vec3<f32>(o1) + vec3<f32>(SIMPLEX_G3);
    let d2 = d0 - vec3<f32>(o2) + vec3<f32>(2.0 * SIMPLEX_G3);
    let d3 = d0 - vec3<f32>(1.0 - 3.0 * SIMPLEX_G3);
    let i = cell + vec3<i32>(fl);
    let n0 = simplex_corner_3d(d0, hash_3d(i, seed_h), rs.x);
    let n1 = simplex_corner_3d(d1, hash_3d(i + o1, seed_h), rs.x);
    let n2 = simplex_corner_3d(d2, hash_3d(i + o2, seed_h), rs.x);
    let n3 = simplex_corner_3d(d3, hash_3d(i + vec3<i32>(1, 1, 1), seed_h), rs.x);
    return rs.y * (n0 + n1 + n2 + n3);
}

// One of the 32 edge gradients of the 4D hypercube, (0, +-1, +-1, +-1) and its permutations,
// at unit length: bits 3-4 pick the zero axis, bits 0-2 the signs of the other three.
fn simplex_grad_4d(h: u32, d: vec4<f32>) -> f32 {
    let zero_axis = (h >> 3u) & 3u;
    let a = select(d.x, d.y, zero_axis == 0u);
    let b = select(d.y, d.z, zero_axis <= 1u);
    let c = select(d.z, d.w, zero_axis <= 2u);
    let sa = select(a, -a, (h & 1u) != 0u);
    let sb = select(b, -b, (h & 2u) != 0u);
    let sc = select(c, -c, (h & 4u) != 0u);
    return (sa + sb + sc) * INV_SQRT3;
}

// The squared radius and output scale of a falloff in 4D: (r^2, scale).
fn simplex_falloff_4d(falloff: u32) -> vec2<f32> {
    if (falloff == SIMPLEX_FALLOFF_CONTINUOUS) {
        return vec2<f32>(SIMPLEX_R2, SIMPLEX_SCALE_4D);
    }
    return vec2<f32>(SIMPLEX_R2_CLASSIC, SIMPLEX_SCALE_4D_CLASSIC);
}

// The edge gradient simplex_grad_4d dots with the offset, as a vector.
fn simplex_gradient_4d(h: u32) -> vec4<f32> {
    let zero_axis = (h >> 3u) & 3u;
    let sa = select(INV_SQRT3, -INV_SQRT3, (h & 1u) != 0u);
    let sb = select(INV_SQRT3, -INV_SQRT3, (h & 2u) != 0u);
    let sc = select(INV_SQRT3, -INV_SQRT3, (h & 4u) != 0u);
    return vec4<f32>(
        select(sa, 0.0, zero_axis == 0u),
        select(select(sb, 0.0, zero_axis == 1u), sa, zero_axis == 0u),
        select(select(sc, 0.0, zero_axis == 2u), sb, zero_axis <= 1u),
        select(0.0, sc, zero_axis <= 2u),
    );
}

// A corner's term t^4 (g . d), t = r^2 - |d|^2 clamped at 0, and its derivative
// t^4 g - 8 t^3 (g . d) d (zero, like the term, outside the radius).
fn simplex_corner_grad_4d(d: vec4<f32>, h: u32, rsq: f32) -> NoiseGrad {
    let t = max(rsq - ((d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w)), 0.0);
    let t2 = t * t;
    let n = simplex_grad_4d(h, d);
    let g = simplex_gradient_4d(h);
    return NoiseGrad(t2 * t2 * n, t2 * t2 * g - (8.0 * t2 * t * n) * d);
}

fn simplex_corner_4d(d: vec4<f32>, h: u32, rsq: f32) -> f32 {
    let t = max(rsq - ((d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w)), 0.0);
    let t2 = t * t;
    return t2 * t2 * simplex_grad_4d(h, d);
}

// The rank of each component of d0 among the four (ties to the lower axis): the simplex
// steps along the axes in decreasing order of d0.
fn simplex_4d_rank(d0: vec4<f32>) -> vec4<u32> {
    var rank = vec4<u32>(0u);
    for (var a = 0; a < 4; a++) {
        for (var b = a + 1; b < 4; b++) {
            if (d0[a] >= d0[b]) {
                rank[a] += 1u;
            } else {
                rank[b] += 1u;
            }
        }
    }
    return rank;
}

// Its own code rather than simplex_4d_grad's value, as in the CPU twin (measured faster there).
fn simplex_4d(cell: vec4<i32>, local: vec4<f32>, seed_h: u32, falloff: u32) -> f32 {
    let rs = simplex_falloff_4d(falloff);
    let s = ((local.x + local.y) + (local.z + local.w)) * SIMPLEX_F4;
    let fl = floor(local + vec4<f32>(s));
    let t = ((fl.x + fl.y) + (fl.z + fl.w)) * SIMPLEX_G4;
    let d0 = local - (fl - vec4<f32>(t));
    let rank = simplex_4d_rank(d0);
    let o1 = vec4<i32>(rank >= vec4<u32>(3u));
    let o2 = vec4<i32>(rank >= vec4<u32>(2u));
    let o3 = vec4<i32>(rank >= vec4<u32>(1u));
    let d1 = d0 - vec4<f32>(o1) + vec4<f32>(SIMPLEX_G4);
    let d2 = d0 - vec4<f32>(o2) + vec4<f32>(2.0 * SIMPLEX_G4);
    let d3 = d0 - vec4<f32>(o3) + vec4<f32>(3.0 * SIMPLEX_G4);
    let d4 = d0 - vec4<f32>(1.0 - 4.0 * SIMPLEX_G4);
    let i = cell + vec4<i32>(fl);
    let n0 = simplex_corner_4d(d0, hash_4d(i, seed_h), rs.x);
    let n1 = simplex_corner_4d(d1, hash_4d(i + o1, seed_h), rs.x);
    let n2 = simplex_corner_4d(d2, hash_4d(i + o2, seed_h), rs.x);
    let n3 = simplex_corner_4d(d3, hash_4d(i + o3, seed_h), rs.x);
    let n4 = simplex_corner_4d(d4, hash_4d(i + vec4<i32>(1), seed_h), rs.x);
    return rs.y * ((n0 + n1) + (n2 + n3) + n4);
}

// The value (simplex_4d's) and its derivatives with respect to `local` (the unskewed offsets
// move one for one with it). The family exposes it for the continuous falloff only: the
// classic one jumps.
fn simplex_4d_grad(cell: vec4<i32>, local: vec4<f32>, seed_h: u32, falloff: u32) -> NoiseGrad {
    let rs = simplex_falloff_4d(falloff);
    let rsq = rs.x;
    let scale = rs.y;
    let s = ((local.x + local.y) + (local.z + local.w)) * SIMPLEX_F4;
    let fl = floor(local + vec4<f32>(s));
    let t = ((fl.x + fl.y) + (fl.z + fl.w)) * SIMPLEX_G4;
    let d0 = local - (fl - vec4<f32>(t));
    let rank = simplex_4d_rank(d0);
    let o1 = vec4<i32>(rank >= vec4<u32>(3u));
    let o2 = vec4<i32>(rank >= vec4<u32>(2u));
    let o3 = vec4<i32>(rank >= vec4<u32>(1u));
    let d1 = d0 - vec4<f32>(o1) + vec4<f32>(SIMPLEX_G4);
    let d2 = d0 - vec4<f32>(o2) + vec4<f32>(2.0 * SIMPLEX_G4);
    let d3 = d0 - vec4<f32>(o3) + vec4<f32>(3.0 * SIMPLEX_G4);
    let d4 = d0 - vec4<f32>(1.0 - 4.0 * SIMPLEX_G4);
    let i = cell + vec4<i32>(fl);
    let n0 = simplex_corner_grad_4d(d0, hash_4d(i, seed_h), rsq);
    let n1 = simplex_corner_grad_4d(d1, hash_4d(i + o1, seed_h), rsq);
    let n2 = simplex_corner_grad_4d(d2, hash_4d(i + o2, seed_h), rsq);
    let n3 = simplex_corner_grad_4d(d3, hash_4d(i + o3, seed_h), rsq);
    let n4 = simplex_corner_grad_4d(d4, hash_4d(i + vec4<i32>(1), seed_h), rsq);
    return NoiseGrad(
        scale * ((n0.value + n1.value) + (n2.value + n3.value) + n4.value),
        scale * ((n0.d + n1.d) + (n2.d + n3.d) + n4.d),
    );
}

// ---- Analytic gradients (2D and 3D; 4D above): (value, d/dx, d/dy, d/dz) with respect to
// `local`; the value is the plain function's (3D: with the continuous falloff). A corner's term t^4 (g . d), t = r^2 - |d|^2, has gradient
// t^4 g - 8 t^3 (g . d) d (zero, like the term, outside the radius where t is clamped to 0).

fn simplex_corner_grad_2d(d: vec2<f32>, h: u32) -> vec4<f32> {
    let t = max(SIMPLEX_R2 - dot(d, d), 0.0);
    let t2 = t * t;
    let n = perlin_grad_2d(h, d, GRADIENTS_IMPROVED);
    let g = perlin_gradient_2d(h, GRADIENTS_IMPROVED);
    return vec4<f32>(t2 * t2 * n, t2 * t2 * g - (8.0 * t2 * t * n) * d, 0.0);
}

fn simplex_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32) -> vec4<f32> {
    let s = (local.x + local.y) * SIMPLEX_F2;
    let fl = floor(local + vec2<f32>(s));
    let t = (fl.x + fl.y) * SIMPLEX_G2;
    let d0 = local - (fl - vec2<f32>(t));
    let o = select(vec2<i32>(0, 1), vec2<i32>(1, 0), d0.x > d0.y);
    let d1 = d0 - vec2<f32>(o) + vec2<f32>(SIMPLEX_G2);
    let d2 = d0 - vec2<f32>(1.0 - 2.0 * SIMPLEX_G2);
    let i = cell + vec2<i32>(fl);
    let n0 = simplex_corner_grad_2d(d0, hash_2d(i, seed_h));
    let n1 = simplex_corner_grad_2d(d1, hash_2d(i + o, seed_h));
    let n2 = simplex_corner_grad_2d(d2, hash_2d(i + vec2<i32>(1, 1), seed_h));
    return SIMPLEX_SCALE_2D * (n0 + n1 + n2);
}

fn simplex_corner_grad_3d(d: vec3<f32>, h: u32) -> vec4<f32> {
    let t = max(SIMPLEX_R2 - dot(d, d), 0.0);
    let t2 = t * t;
    let n = perlin_grad_3d(h, d, GRADIENTS_IMPROVED);
    let g = perlin_gradient_3d(h, GRADIENTS_IMPROVED);
    return vec4<f32>(t2 * t2 * n, t2 * t2 * g - (8.0 * t2 * t * n) * d);
}

fn simplex_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32) -> vec4<f32> {
    let s = (local.x + local.y + local.z) * SIMPLEX_F3;
    let fl = floor(local + vec3<f32>(s));
    let t = (fl.x + fl.y + fl.z) * SIMPLEX_G3;
    let d0 = local - (fl - vec3<f32>(t));
    let ge_xy = d0.x >= d0.y;
    let ge_yz = d0.y >= d0.z;
    let ge_xz = d0.x >= d0.z;
    let o1 = vec3<i32>(
        select(0, 1, ge_xy && ge_xz),
        select(0, 1, !ge_xy && ge_yz),
        select(0, 1, !ge_xz && !ge_yz),
    );
    let o2 = vec3<i32>(
        select(0, 1, ge_xy || ge_xz),
        select(0, 1, !ge_xy || ge_yz),
        select(0, 1, !(ge_xz && ge_yz)),
    );
    let d1 = d0 - vec3<f32>(o1) + vec3<f32>(SIMPLEX_G3);
    let d2 = d0 - vec3<f32>(o2) + vec3<f32>(2.0 * SIMPLEX_G3);
    let d3 = d0 - vec3<f32>(1.0 - 3.0 * SIMPLEX_G3);
    let i = cell + vec3<i32>(fl);
    let n0 = simplex_corner_grad_3d(d0, hash_3d(i, seed_h));
    let n1 = simplex_corner_grad_3d(d1, hash_3d(i + o1, seed_h));
    let n2 = simplex_corner_grad_3d(d2, hash_3d(i + o2, seed_h));
    let n3 = simplex_corner_grad_3d(d3, hash_3d(i + vec3<i32>(1, 1, 1), seed_h));
    return SIMPLEX_SCALE_3D * (n0 + n1 + n2 + n3);
}
