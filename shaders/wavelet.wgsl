// Wavelet noise (Cook and DeRose 2005). Twin: src/cpu/wavelet.rs.
//
// `aux` holds an n x n (x n) tile of band-pass coefficients computed on the host (see
// src/family/wavelet.rs: a random tile minus its downsampled-then-upsampled version, with the
// paper's filters). The field is their quadratic B-spline reconstruction, coefficient j
// centred on lattice point j, with indices wrapping at the tile edge: it tiles every n cells.
// n is a power of two, so the wrap is a bit mask and stays exact for any i32 lattice offset.
// Each octave seed shifts the tile by a hashed whole number of cells.

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

fn wavelet_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, n: u32) -> f32 {
    let mask = n - 1u;
    let mid = ceil(local - vec2<f32>(0.5));
    let base = bitcast<vec2<u32>>(cell + vec2<i32>(mid)) + wavelet_shift(seed_h).xy - vec2<u32>(1u);
    let wx = wavelet_weights(local.x);
    let wy = wavelet_weights(local.y);
    var sum = 0.0;
    for (var j = 0u; j < 3u; j++) {
        let row = ((base.y + j) & mask) * n;
        var line = 0.0;
        for (var i = 0u; i < 3u; i++) {
            line += wx[i] * aux[row + ((base.x + i) & mask)];
        }
        sum += wy[j] * line;
    }
    return sum;
}

fn wavelet_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, n: u32) -> f32 {
    let mask = n - 1u;
    let mid = ceil(local - vec3<f32>(0.5));
    let base = bitcast<vec3<u32>>(cell + vec3<i32>(mid)) + wavelet_shift(seed_h) - vec3<u32>(1u);
    let wx = wavelet_weights(local.x);
    let wy = wavelet_weights(local.y);
    let wz = wavelet_weights(local.z);
    var sum = 0.0;
    for (var k = 0u; k < 3u; k++) {
        let slab = ((base.z + k) & mask) * n;
        var plane = 0.0;
        for (var j = 0u; j < 3u; j++) {
            let row = (slab + ((base.y + j) & mask)) * n;
            var line = 0.0;
            for (var i = 0u; i < 3u; i++) {
                line += wx[i] * aux[row + ((base.x + i) & mask)];
            }
            plane += wy[j] * line;
        }
        sum += wz[k] * plane;
    }
    return sum;
}
