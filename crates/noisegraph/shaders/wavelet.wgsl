// Wavelet noise (Cook and DeRose 2005). Twin: src/cpu/wavelet.rs.
//
// `aux` holds an n x n (x n) tile of band-pass coefficients computed on the host (see
// src/family/wavelet.rs: a random tile minus its downsampled-then-upsampled version, with the
// paper's filters). The field is their quadratic B-spline reconstruction, coefficient j
// centred on lattice point j, with indices wrapping at the tile edge: it tiles every n cells.
// n is a power of two, so the wrap is a bit mask and stays exact for any i32 lattice offset.
// Each octave seed shifts the tile by a hashed whole number of cells.
// Gradient form: the same sums with one axis's weights replaced by their slopes (the
// quadratic B-spline is C1, so the gradient is continuous); the plain functions take its value.

fn wavelet_shift(seed_h: u32) -> vec3<u32> {
    let s0 = pcg(seed_h + 2u);
    let s1 = pcg(s0);
    let s2 = pcg(s1);
    return vec3<u32>(s0, s1, s2);
}

// Quadratic B-spline weights of coefficients mid - 1, mid, mid + 1, with mid = ceil(p - 1/2).
fn wavelet_weights(p: f32) -> vec3<f32> {
    let mid = ceil(p - 0.5);
    let t = mid - (p - 0.5);
    let w0 = t * t * 0.5;
    let w2 = (1.0 - t) * (1.0 - t) * 0.5;
    return vec3<f32>(w0, 1.0 - w0 - w2, w2);
}

// d wavelet_weights(p) / dp: t falls as p rises, so (-t, 2t - 1, 1 - t).
fn wavelet_weight_slopes(p: f32) -> vec3<f32> {
    let mid = ceil(p - 0.5);
    let t = mid - (p - 0.5);
    return vec3<f32>(-t, 2.0 * t - 1.0, 1.0 - t);
}

fn wavelet_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, n: u32) -> NoiseGrad {
    let mask = n - 1u;
    let mid = ceil(local - vec2<f32>(0.5));
    let base = bitcast<vec2<u32>>(cell + vec2<i32>(mid)) + wavelet_shift(seed_h).xy - vec2<u32>(1u);
    let wx = wavelet_weights(local.x);
    let wy = wavelet_weights(local.y);
    let sx = wavelet_weight_slopes(local.x);
    let sy = wavelet_weight_slopes(local.y);
    var sum = 0.0;
    var dx = 0.0;
    var dy = 0.0;
    for (var j = 0u; j < 3u; j++) {
        let row = ((base.y + j) & mask) * n;
        var line = 0.0;
        var line_dx = 0.0;
        for (var i = 0u; i < 3u; i++) {
            let c = aux[row + ((base.x + i) & mask)];
            line += wx[i] * c;
            line_dx += sx[i] * c;
        }
        sum += wy[j] * line;
        dx += wy[j] * line_dx;
        dy += sy[j] * line;
    }
    return NoiseGrad(sum, vec4<f32>(dx, dy, 0.0, 0.0));
}

fn wavelet_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, n: u32) -> NoiseGrad {
    let mask = n - 1u;
    let mid = ceil(local - vec3<f32>(0.5));
    let base = bitcast<vec3<u32>>(cell + vec3<i32>(mid)) + wavelet_shift(seed_h) - vec3<u32>(1u);
    let wx = wavelet_weights(local.x);
    let wy = wavelet_weights(local.y);
    let wz = wavelet_weights(local.z);
    let sx = wavelet_weight_slopes(local.x);
    let sy = wavelet_weight_slopes(local.y);
    let sz = wavelet_weight_slopes(local.z);
    var sum = 0.0;
    var d = vec3<f32>(0.0);
    for (var k = 0u; k < 3u; k++) {
        let slab = ((base.z + k) & mask) * n;
        var plane = 0.0;
        var plane_dx = 0.0;
        var plane_dy = 0.0;
        for (var j = 0u; j < 3u; j++) {
            let row = (slab + ((base.y + j) & mask)) * n;
            var line = 0.0;
            var line_dx = 0.0;
            for (var i = 0u; i < 3u; i++) {
                let c = aux[row + ((base.x + i) & mask)];
                line += wx[i] * c;
                line_dx += sx[i] * c;
            }
            plane += wy[j] * line;
            plane_dx += wy[j] * line_dx;
            plane_dy += sy[j] * line;
        }
        sum += wz[k] * plane;
        d += vec3<f32>(wz[k] * plane_dx, wz[k] * plane_dy, sz[k] * plane);
    }
    return NoiseGrad(sum, vec4<f32>(d, 0.0));
}

fn wavelet_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, n: u32) -> f32 {
    return wavelet_2d_grad(cell, local, seed_h, n).value;
}

fn wavelet_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, n: u32) -> f32 {
    return wavelet_3d_grad(cell, local, seed_h, n).value;
}
