// OpenSimplex2 (K.jpg's public-domain design), fast and smooth variants in 2D, 3D and 4D.
// Twin: src/cpu/opensimplex2.rs, where the lattices, orientations and radii are described.
// Every lattice point in range adds (r^2 - |d|^2)^4 * dot(g, d), and every point in range is
// visited (r^2 = 1/2 for every fast variant), so the field is continuous. Gradients are unit
// vectors read from `aux` (24 in 2D, 48 in 3D, 160 in 4D), picked by hash % count; the 4D
// smooth candidate table follows the 4D gradients in `aux`. variant: 0 = fast, 1 = smooth.
// Each function has a gradient form (`_grad`, a NoiseGrad: the value and its derivatives with
// respect to `local`); the plain functions are their values.

const OS2_FAST: u32 = 0u;
const OS2_SKEW_2D: f32 = 0.36602540378443865;
const OS2_UNSKEW_2D: f32 = -0.21132486540518712;
const OS2_ROOT3OVER3: f32 = 0.57735026918962576;
const OS2_UNSKEW_4D_FAST: f32 = 0.309016994374947;
const OS2_UNSKEW_4D_SMOOTH: f32 = -0.138196601125011;
const OS2_RSQ_FAST: f32 = 0.5;
const OS2_RSQ_2D_SMOOTH: f32 = 0.66666666666666667;
const OS2_RSQ_3D_SMOOTH: f32 = 0.75;
const OS2_RSQ_4D_SMOOTH: f32 = 0.8;
const OS2_4D_FAST_S_XY: f32 = -0.178275657951399372;
const OS2_4D_FAST_S_ZW: f32 = 0.215623393288842828;
const OS2_4D_FAST_T_ZW: f32 = -0.403949762580207112;
const OS2_4D_FAST_T_XY: f32 = -0.375199083010075342;
const OS2_4D_SMOOTH_S_XY: f32 = -0.28522513987434876941;
const OS2_4D_SMOOTH_S_ZW: f32 = 0.83897065470611435718;
const OS2_4D_SMOOTH_T_ZW: f32 = 0.21939749883706435719;
const OS2_4D_SMOOTH_T_XY: f32 = -0.48214856493302476942;
const OS2_LATTICE_STEP_4D: f32 = 0.2;
const OS2_COPY_SALT: u32 = 0x9E3779B9u;
const OS2_GRADS_2D: u32 = 24u;
const OS2_GRADS_3D: u32 = 48u;
const OS2_GRADS_4D: u32 = 160u;
const OS2_LOOKUP_4D: u32 = 640u;
const OS2_SCALE_2D_FAST: f32 = 99.83685;
const OS2_SCALE_2D_SMOOTH: f32 = 18.241962;
const OS2_SCALE_3D_FAST: f32 = 108.2912;
const OS2_SCALE_3D_SMOOTH: f32 = 11.867175;
const OS2_SCALE_4D_FAST: f32 = 108.7055;
const OS2_SCALE_4D_SMOOTH: f32 = 8.986824;

fn os2_falloff(a: f32) -> f32 {
    let a2 = a * a;
    return a2 * a2;
}

// The unit gradient of lattice hash h, from the set in `aux`.
fn os2_gradient_2d(h: u32) -> vec2<f32> {
    let i = (h % OS2_GRADS_2D) * 2u;
    return vec2<f32>(aux[i], aux[i + 1u]);
}

fn os2_gradient_3d(h: u32) -> vec3<f32> {
    let i = (h % OS2_GRADS_3D) * 3u;
    return vec3<f32>(aux[i], aux[i + 1u], aux[i + 2u]);
}

fn os2_gradient_4d(h: u32) -> vec4<f32> {
    let i = (h % OS2_GRADS_4D) * 4u;
    return vec4<f32>(aux[i], aux[i + 1u], aux[i + 2u], aux[i + 3u]);
}

// A lattice point's term a^4 (g . d) (dot = g . d, a = r^2 - |d|^2 > 0) and its derivative
// with respect to the offset d, a^4 g - 8 a^3 (g . d) d.
fn os2_term(a: f32, dot: f32, g: vec4<f32>, d: vec4<f32>) -> NoiseGrad {
    let a4 = os2_falloff(a);
    let k = 8.0 * (a * a * a) * dot;
    return NoiseGrad(a4 * dot, a4 * g - k * d);
}

// Component-wise sum of two terms.
fn os2_add(a: NoiseGrad, b: NoiseGrad) -> NoiseGrad {
    return NoiseGrad(a.value + b.value, a.d + b.d);
}

// The contribution of lattice point base + v (skewed offsets) in 2D.
fn os2_vertex_2d(base: vec2<i32>, v: vec2<i32>, d0: vec2<f32>, rsq: f32, seed_h: u32) -> NoiseGrad {
    let t = f32(v.x + v.y) * OS2_UNSKEW_2D;
    let d = vec2<f32>(d0.x - (f32(v.x) + t), d0.y - (f32(v.y) + t));
    let a = rsq - (d.x * d.x + d.y * d.y);
    if (a <= 0.0) {
        return NoiseGrad(0.0, vec4<f32>(0.0));
    }
    let g = os2_gradient_2d(hash_2d(base + v, seed_h));
    let dot = g.x * d.x + g.y * d.y;
    return os2_term(a, dot, vec4<f32>(g, 0.0, 0.0), vec4<f32>(d, 0.0, 0.0));
}

fn opensimplex2_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, variant: u32) -> f32 {
    return opensimplex2_2d_grad(cell, local, seed_h, variant).value;
}

// The 2D skew and unskew cancel: the offsets move one for one with `local`.
fn opensimplex2_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, variant: u32) -> NoiseGrad {
    let s = (local.x + local.y) * OS2_SKEW_2D;
    let xs = vec2<f32>(local.x + s, local.y + s);
    let fl = floor(xs);
    let si = vec2<f32>(xs.x - fl.x, xs.y - fl.y);
    let t = (si.x + si.y) * OS2_UNSKEW_2D;
    let d0 = vec2<f32>(si.x + t, si.y + t);
    let base = cell + vec2<i32>(fl);
    var sum: NoiseGrad;
    var scale: f32;
    if (variant == OS2_FAST) {
        let third = select(vec2<i32>(1, 0), vec2<i32>(0, 1), d0.y > d0.x);
        sum = os2_add(
            os2_add(
                os2_vertex_2d(base, vec2<i32>(0, 0), d0, OS2_RSQ_FAST, seed_h),
                os2_vertex_2d(base, vec2<i32>(1, 1), d0, OS2_RSQ_FAST, seed_h),
            ),
            os2_vertex_2d(base, third, d0, OS2_RSQ_FAST, seed_h),
        );
        scale = OS2_SCALE_2D_FAST;
    } else {
        // Every point within sqrt(2/3) of a point in the skewed cell is one of these eight.
        let rsq = OS2_RSQ_2D_SMOOTH;
        sum = os2_add(
            os2_add(
                os2_add(
                    os2_add(
                        os2_vertex_2d(base, vec2<i32>(0, 0), d0, rsq, seed_h),
                        os2_vertex_2d(base, vec2<i32>(1, 1), d0, rsq, seed_h),
                    ),
                    os2_add(
                        os2_vertex_2d(base, vec2<i32>(1, 0), d0, rsq, seed_h),
                        os2_vertex_2d(base, vec2<i32>(0, 1), d0, rsq, seed_h),
                    ),
                ),
                os2_add(
                    os2_vertex_2d(base, vec2<i32>(-1, 0), d0, rsq, seed_h),
                    os2_vertex_2d(base, vec2<i32>(0, -1), d0, rsq, seed_h),
                ),
            ),
            os2_add(
                os2_vertex_2d(base, vec2<i32>(2, 1), d0, rsq, seed_h),
                os2_vertex_2d(base, vec2<i32>(1, 2), d0, rsq, seed_h),
            ),
        );
        scale = OS2_SCALE_2D_SMOOTH;
    }
    return NoiseGrad(scale * sum.value, vec4<f32>(scale * sum.d.xy, 0.0, 0.0));
}

// The "ImproveXY" rotation: orthonormal, the lattice diagonal along z.
fn os2_rotate_3d(p: vec3<f32>) -> vec3<f32> {
    let xy = p.x + p.y;
    let s2 = xy * OS2_UNSKEW_2D;
    let zz = p.z * OS2_ROOT3OVER3;
    return vec3<f32>(p.x + s2 + zz, p.y + s2 + zz, xy * -OS2_ROOT3OVER3 + zz);
}

// The transpose (= inverse) of os2_rotate_3d: a derivative in the rotated frame to one with
// respect to the input.
fn os2_rotate_3d_transpose(g: vec3<f32>) -> vec3<f32> {
    let xy = g.x + g.y;
    let s2 = xy * OS2_UNSKEW_2D;
    let zz = g.z * OS2_ROOT3OVER3;
    return vec3<f32>(g.x + s2 - zz, g.y + s2 - zz, (xy + g.z) * OS2_ROOT3OVER3);
}

// The contribution of point n of cubic lattice copy `copy` (offset d from it).
fn os2_vertex_3d(cell: vec3<i32>, n: vec3<i32>, copy: i32, d: vec3<f32>, rsq: f32, seed_h: u32) -> NoiseGrad {
    let a = rsq - (d.x * d.x + d.y * d.y + d.z * d.z);
    if (a <= 0.0) {
        return NoiseGrad(0.0, vec4<f32>(0.0));
    }
    let g = os2_gradient_3d(hash_4d(vec4<i32>(cell + n, copy), seed_h));
    let dot = g.x * d.x + g.y * d.y + g.z * d.z;
    return os2_term(a, dot, vec4<f32>(g, 0.0), vec4<f32>(d, 0.0));
}

fn opensimplex2_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, variant: u32) -> f32 {
    return opensimplex2_3d_grad(cell, local, seed_h, variant).value;
}

// Derivatives through the transpose of the rotation.
fn opensimplex2_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, variant: u32) -> NoiseGrad {
    let r = os2_rotate_3d(local);
    var sum = NoiseGrad(0.0, vec4<f32>(0.0));
    for (var copy = 0; copy < 2; copy++) {
        // Copy 1 is the cubic lattice shifted by half a cell on every axis.
        let shift = 0.5 * f32(copy);
        let q = vec3<f32>(r.x - shift, r.y - shift, r.z - shift);
        if (variant == OS2_FAST) {
            let n = floor(q + vec3<f32>(0.5));
            let d = vec3<f32>(q.x - n.x, q.y - n.y, q.z - n.z);
            let ni = vec3<i32>(n);
            sum = os2_add(sum, os2_vertex_3d(cell, ni, copy, d, OS2_RSQ_FAST, seed_h));
            // The second-closest point: one step along the axis of largest offset.
            let ad = abs(d);
            var axis = 2;
            if (ad.x >= ad.y && ad.x >= ad.z) {
                axis = 0;
            } else if (ad.y > ad.x && ad.y >= ad.z) {
                axis = 1;
            }
            let step = select(-1, 1, d[axis] >= 0.0);
            // i32 addition wraps, as the lattice hash assumes.
            var n2 = ni;
            n2[axis] += step;
            var d2 = d;
            d2[axis] -= f32(step);
            sum = os2_add(sum, os2_vertex_3d(cell, n2, copy, d2, OS2_RSQ_FAST, seed_h));
        } else {
            // r = sqrt(3/4) < 1, so only the two integers around q on each axis can be in range.
            let b = floor(q);
            let bi = vec3<i32>(b);
            for (var corner = 0; corner < 8; corner++) {
                let v = vec3<i32>(corner & 1, (corner >> 1u) & 1, (corner >> 2u) & 1);
                let d = vec3<f32>(
                    q.x - (b.x + f32(v.x)),
                    q.y - (b.y + f32(v.y)),
                    q.z - (b.z + f32(v.z)),
                );
                sum = os2_add(sum, os2_vertex_3d(cell, bi + v, copy, d, OS2_RSQ_3D_SMOOTH, seed_h));
            }
        }
    }
    let scale = select(OS2_SCALE_3D_SMOOTH, OS2_SCALE_3D_FAST, variant == OS2_FAST);
    let g = os2_rotate_3d_transpose(sum.d.xyz);
    return NoiseGrad(scale * sum.value, vec4<f32>(scale * g, 0.0));
}

// The "ImproveXY_ImproveZW" lattice transform of each variant (input to skewed lattice).
fn os2_skew_4d(p: vec4<f32>, variant: u32) -> vec4<f32> {
    let xy = p.x + p.y;
    let zw = p.z + p.w;
    var s2: f32;
    var t2: f32;
    if (variant == OS2_FAST) {
        s2 = xy * OS2_4D_FAST_S_XY + zw * OS2_4D_FAST_S_ZW;
        t2 = zw * OS2_4D_FAST_T_ZW + xy * OS2_4D_FAST_T_XY;
    } else {
        s2 = xy * OS2_4D_SMOOTH_S_XY + zw * OS2_4D_SMOOTH_S_ZW;
        t2 = zw * OS2_4D_SMOOTH_T_ZW + xy * OS2_4D_SMOOTH_T_XY;
    }
    return vec4<f32>(p.x + s2, p.y + s2, p.z + t2, p.w + t2);
}

// The transpose of os2_skew_4d: a derivative with respect to the skewed lattice coordinates
// to one with respect to the input.
fn os2_skew_4d_transpose(g: vec4<f32>, variant: u32) -> vec4<f32> {
    let xy = g.x + g.y;
    let zw = g.z + g.w;
    var s2: f32;
    var t2: f32;
    if (variant == OS2_FAST) {
        s2 = xy * OS2_4D_FAST_S_XY + zw * OS2_4D_FAST_T_XY;
        t2 = zw * OS2_4D_FAST_T_ZW + xy * OS2_4D_FAST_S_ZW;
    } else {
        s2 = xy * OS2_4D_SMOOTH_S_XY + zw * OS2_4D_SMOOTH_T_XY;
        t2 = zw * OS2_4D_SMOOTH_T_ZW + xy * OS2_4D_SMOOTH_S_ZW;
    }
    return vec4<f32>(g.x + s2, g.y + s2, g.z + t2, g.w + t2);
}

// The contribution of a lattice point at skewed offset p from the sample; its derivative is
// with respect to the unskewed offset d.
fn os2_vertex_4d(point: vec4<i32>, p: vec4<f32>, unskew: f32, rsq: f32, seed_h: u32) -> NoiseGrad {
    let t = ((p.x + p.y) + (p.z + p.w)) * unskew;
    let d = vec4<f32>(p.x + t, p.y + t, p.z + t, p.w + t);
    let a = rsq - ((d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w));
    if (a <= 0.0) {
        return NoiseGrad(0.0, vec4<f32>(0.0));
    }
    let g = os2_gradient_4d(hash_4d(point, seed_h));
    let dot = (g.x * d.x + g.y * d.y) + (g.z * d.z + g.w * d.w);
    return os2_term(a, dot, g, d);
}

fn opensimplex2_4d(cell: vec4<i32>, local: vec4<f32>, seed_h: u32, variant: u32) -> f32 {
    return opensimplex2_4d_grad(cell, local, seed_h, variant).value;
}

// The offsets are d = (I + u 1 1^T) p with p the skewed offset (u the variant's unskew) and
// p = S local - const (S the lattice transform), so d/dlocal = S^T (I + u 1 1^T) d/dd.
fn opensimplex2_4d_grad(cell: vec4<i32>, local: vec4<f32>, seed_h: u32, variant: u32) -> NoiseGrad {
    let s = os2_skew_4d(local, variant);
    let fl = floor(s);
    let si = vec4<f32>(s.x - fl.x, s.y - fl.y, s.z - fl.z, s.w - fl.w);
    let base = cell + vec4<i32>(fl);
    var sum = NoiseGrad(0.0, vec4<f32>(0.0));
    var unskew: f32;
    var scale: f32;
    if (variant == OS2_FAST) {
        // Five copies of the lattice, 0.2 apart along the diagonal, one point from each. Start
        // with the copy whose base simplex surely holds a contributing point; each next
        // point is the closest vertex of the simplex based at the previous one.
        let total = (si.x + si.y) + (si.z + si.w);
        let start = min(i32(total * 1.25), 4);
        let first_shift = OS2_LATTICE_STEP_4D * f32(start);
        var p = vec4<f32>(si.x - first_shift, si.y - first_shift, si.z - first_shift, si.w - first_shift);
        var point = base;
        var copy = start;
        for (var step = 0; step < 5; step++) {
            let score0 = 1.0 - ((p.x + p.y) + (p.z + p.w));
            var axis = 4;
            if (p.x >= p.y && p.x >= p.z && p.x >= p.w && p.x >= score0) {
                axis = 0;
            } else if (p.y > p.x && p.y >= p.z && p.y >= p.w && p.y >= score0) {
                axis = 1;
            } else if (p.z > p.x && p.z > p.y && p.z >= p.w && p.z >= score0) {
                axis = 2;
            } else if (p.w > p.x && p.w > p.y && p.w > p.z && p.w >= score0) {
                axis = 3;
            }
            if (axis < 4) {
                p[axis] -= 1.0;
                point[axis] += 1;
            }
            let salted = seed_h + u32(copy) * OS2_COPY_SALT;
            sum = os2_add(sum, os2_vertex_4d(point, p, OS2_UNSKEW_4D_FAST, OS2_RSQ_FAST, salted));
            // The next copy sits 0.2 further down the diagonal; below copy 0 it wraps to
            // copy 4 one lattice step down (m - 0.2 = (m - 1) + 0.8).
            p = vec4<f32>(p.x + OS2_LATTICE_STEP_4D, p.y + OS2_LATTICE_STEP_4D, p.z + OS2_LATTICE_STEP_4D, p.w + OS2_LATTICE_STEP_4D);
            copy -= 1;
            if (step == start) {
                point -= vec4<i32>(1);
                copy += 5;
            }
        }
        unskew = OS2_UNSKEW_4D_FAST;
        scale = OS2_SCALE_4D_FAST;
    } else {
        // Smooth: the candidates listed for this 1/4-sized sub-cube of the skewed cell.
        let q = min(vec4<u32>(floor(si * 4.0)), vec4<u32>(3u));
        let entry = OS2_LOOKUP_4D + 2u * (q.x + 4u * q.y + 16u * q.z + 64u * q.w);
        let first = u32(aux[entry]);
        let count = u32(aux[entry + 1u]);
        for (var j = first; j < first + count; j++) {
            let c = OS2_LOOKUP_4D + 512u + 4u * j;
            let v = vec4<f32>(aux[c], aux[c + 1u], aux[c + 2u], aux[c + 3u]);
            let p = vec4<f32>(si.x - v.x, si.y - v.y, si.z - v.z, si.w - v.w);
            sum = os2_add(sum, os2_vertex_4d(base + vec4<i32>(v), p, OS2_UNSKEW_4D_SMOOTH, OS2_RSQ_4D_SMOOTH, seed_h));
        }
        unskew = OS2_UNSKEW_4D_SMOOTH;
        scale = OS2_SCALE_4D_SMOOTH;
    }
    let t = ((sum.d.x + sum.d.y) + (sum.d.z + sum.d.w)) * unskew;
    let g = os2_skew_4d_transpose(sum.d + vec4<f32>(t), variant);
    return NoiseGrad(scale * sum.value, scale * g);
}
