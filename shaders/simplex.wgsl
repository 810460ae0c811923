// Simplex noise (Perlin 2001) in 2D, 3D and 4D. Twin: src/cpu/simplex.rs.
// The input is skewed so the simplex grid lines up with the integer grid; each of the d + 1
// corners of the containing simplex adds (r^2 - |d|^2)^4 * dot(g, d), with r^2 = 0.5 in 2D and
// 0.6 in 3D and 4D, and unit gradients: the Perlin sets in 2D and 3D, the 32 hypercube edge
// directions in 4D. The sum is scaled by the exact maximum
// of that sum over the cell (found numerically, see src/cpu/simplex.rs), so the range is [-1, 1].
//
// `cell` is an offset on the skewed lattice and `local` a position in input space relative to
// that lattice point's unskewed position: the host splits large origins that way in f64.
// Uses perlin_grad_2d / perlin_grad_3d from perlin.wgsl.

const SIMPLEX_F2: f32 = 0.36602540378443865;
const SIMPLEX_G2: f32 = 0.21132486540518712;
const SIMPLEX_SCALE_2D: f32 = 100.039;
const SIMPLEX_F3: f32 = 0.33333333333333333;
const SIMPLEX_G3: f32 = 0.16666666666666667;
const SIMPLEX_SCALE_3D: f32 = 46.2385;
const SIMPLEX_F4: f32 = 0.30901699437494742;
const SIMPLEX_G4: f32 = 0.13819660112501051;
const SIMPLEX_SCALE_4D: f32 = 47.15627;
const INV_SQRT3: f32 = 0.57735026918962576;

fn simplex_corner_2d(d: vec2<f32>, h: u32) -> f32 {
    let t = max(0.5 - dot(d, d), 0.0);
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

fn simplex_corner_3d(d: vec3<f32>, h: u32) -> f32 {
    let t = max(0.6 - dot(d, d), 0.0);
    let t2 = t * t;
    return t2 * t2 * perlin_grad_3d(h, d, GRADIENTS_IMPROVED);
}

fn simplex_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32) -> f32 {
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
    let n0 = simplex_corner_3d(d0, hash_3d(i, seed_h));
    let n1 = simplex_corner_3d(d1, hash_3d(i + o1, seed_h));
    let n2 = simplex_corner_3d(d2, hash_3d(i + o2, seed_h));
    let n3 = simplex_corner_3d(d3, hash_3d(i + vec3<i32>(1, 1, 1), seed_h));
    return SIMPLEX_SCALE_3D * (n0 + n1 + n2 + n3);
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

fn simplex_corner_4d(d: vec4<f32>, h: u32) -> f32 {
    let t = max(0.6 - ((d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w)), 0.0);
    let t2 = t * t;
    return t2 * t2 * simplex_grad_4d(h, d);
}

fn simplex_4d(cell: vec4<i32>, local: vec4<f32>, seed_h: u32) -> f32 {
    let s = ((local.x + local.y) + (local.z + local.w)) * SIMPLEX_F4;
    let fl = floor(local + vec4<f32>(s));
    let t = ((fl.x + fl.y) + (fl.z + fl.w)) * SIMPLEX_G4;
    let d0 = local - (fl - vec4<f32>(t));
    // Rank each component among the four (ties to the lower axis): the simplex steps along
    // the axes in decreasing order of d0.
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
    let o1 = vec4<i32>(rank >= vec4<u32>(3u));
    let o2 = vec4<i32>(rank >= vec4<u32>(2u));
    let o3 = vec4<i32>(rank >= vec4<u32>(1u));
    let d1 = d0 - vec4<f32>(o1) + vec4<f32>(SIMPLEX_G4);
    let d2 = d0 - vec4<f32>(o2) + vec4<f32>(2.0 * SIMPLEX_G4);
    let d3 = d0 - vec4<f32>(o3) + vec4<f32>(3.0 * SIMPLEX_G4);
    let d4 = d0 - vec4<f32>(1.0 - 4.0 * SIMPLEX_G4);
    let i = cell + vec4<i32>(fl);
    let n0 = simplex_corner_4d(d0, hash_4d(i, seed_h));
    let n1 = simplex_corner_4d(d1, hash_4d(i + o1, seed_h));
    let n2 = simplex_corner_4d(d2, hash_4d(i + o2, seed_h));
    let n3 = simplex_corner_4d(d3, hash_4d(i + o3, seed_h));
    let n4 = simplex_corner_4d(d4, hash_4d(i + vec4<i32>(1), seed_h));
    return SIMPLEX_SCALE_4D * ((n0 + n1) + (n2 + n3) + n4);
}

// ---- Analytic gradients (2D and 3D): (value, d/dx, d/dy, d/dz) with respect to `local`; the
// value is the plain function's. A corner's term t^4 (g . d), t = r^2 - |d|^2, has gradient
// t^4 g - 8 t^3 (g . d) d (zero, like the term, outside the radius where t is clamped to 0).

fn simplex_corner_grad_2d(d: vec2<f32>, h: u32) -> vec4<f32> {
    let t = max(0.5 - dot(d, d), 0.0);
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
    let t = max(0.6 - dot(d, d), 0.0);
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
