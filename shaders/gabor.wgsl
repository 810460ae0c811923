// Sparse Gabor noise (Lagae, Lefebvre, Drettakis, Dutre 2009). Twin: src/cpu/gabor.rs.
//
// Impulses are scattered over the lattice cells: each cell draws a Poisson number of them
// (mean lambda, Knuth's product-of-uniforms method) from its integer hash, each with a uniform
// position in the cell, a weight uniform in [-1, 1] and, when isotropic, a random direction.
// A sample sums the Gabor kernels w * env(r) * cos(2 pi f0 u.(x - p)) of the impulses in the
// cells its truncation disk touches. env is the Gaussian exp(-pi a^2 r^2) truncated where it
// falls to 0.05 (Lagae's radius 0.9765 / a) and shifted down by that 0.05 so the field stays
// continuous at the cut. The complex sum (cos and sin parts) also serves phasor noise.
//
// Kernel numbers come from the uniforms (see src/family/gabor.rs):
//   k0 = (f0 cycles per cell, pi a^2, envelope cutoff 0.05, 1 / (1 - 0.05))
//   k1 = (truncation radius in cells, exp(-lambda), output scale, unused)
//   dir = fixed unit direction of the anisotropic kernel

const GABOR_MAX_IMPULSES: u32 = 256u;

fn gabor_direction_2d(state: ptr<function, u32>, dir: vec4<f32>, isotropic: bool) -> vec2<f32> {
    if (!isotropic) {
        return dir.xy;
    }
    *state = pcg(*state);
    let a = hash_to_unit(*state);
    return vec2<f32>(cos_turns(a), sin_turns(a));
}

fn gabor_direction_3d(state: ptr<function, u32>, dir: vec4<f32>, isotropic: bool) -> vec3<f32> {
    if (!isotropic) {
        return dir.xyz;
    }
    // Uniform on the sphere: z uniform in [-1, 1], azimuth uniform.
    *state = pcg(*state);
    let z = hash_to_signed(*state);
    *state = pcg(*state);
    let a = hash_to_unit(*state);
    let r = sqrt(max(1.0 - z * z, 0.0));
    return vec3<f32>(r * cos_turns(a), r * sin_turns(a), z);
}

// Complex sum (cos part, sin part) of the impulses of one cell at `pos` (relative to the cell corner).
fn gabor_cell_2d(h: u32, pos: vec2<f32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, complex: bool) -> vec2<f32> {
    var state = h;
    var product = 1.0;
    var sum = vec2<f32>(0.0, 0.0);
    let radius2 = k1.x * k1.x;
    for (var i = 0u; i < GABOR_MAX_IMPULSES; i++) {
        state = pcg(state);
        product *= hash_to_unit(state);
        if (product < k1.y) {
            break;
        }
        state = pcg(state);
        let px = hash_to_unit(state);
        state = pcg(state);
        let py = hash_to_unit(state);
        state = pcg(state);
        let w = hash_to_signed(state);
        let u = gabor_direction_2d(&state, dir, isotropic);
        let d = pos - vec2<f32>(px, py);
        let r2 = dot(d, d);
        if (r2 < radius2) {
            let env = w * (exp(-k0.y * r2) - k0.z) * k0.w;
            let t = k0.x * dot(u, d);
            sum.x += env * cos_turns(t);
            if (complex) {
                sum.y += env * sin_turns(t);
            }
        }
    }
    return sum;
}

fn gabor_cell_3d(h: u32, pos: vec3<f32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, complex: bool) -> vec2<f32> {
    var state = h;
    var product = 1.0;
    var sum = vec2<f32>(0.0, 0.0);
    let radius2 = k1.x * k1.x;
    for (var i = 0u; i < GABOR_MAX_IMPULSES; i++) {
        state = pcg(state);
        product *= hash_to_unit(state);
        if (product < k1.y) {
            break;
        }
        state = pcg(state);
        let px = hash_to_unit(state);
        state = pcg(state);
        let py = hash_to_unit(state);
        state = pcg(state);
        let pz = hash_to_unit(state);
        state = pcg(state);
        let w = hash_to_signed(state);
        let u = gabor_direction_3d(&state, dir, isotropic);
        let d = pos - vec3<f32>(px, py, pz);
        let r2 = dot(d, d);
        if (r2 < radius2) {
            let env = w * (exp(-k0.y * r2) - k0.z) * k0.w;
            let t = k0.x * dot(u, d);
            sum.x += env * cos_turns(t);
            if (complex) {
                sum.y += env * sin_turns(t);
            }
        }
    }
    return sum;
}

// The complex Gabor sum at a sample: every cell the truncation disk touches.
fn gabor_sum_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, complex: bool) -> vec2<f32> {
    let fl = floor(local);
    let base = cell + vec2<i32>(fl);
    let f = local - fl;
    let lo = vec2<i32>(floor(f - vec2<f32>(k1.x)));
    let hi = vec2<i32>(floor(f + vec2<f32>(k1.x)));
    var sum = vec2<f32>(0.0, 0.0);
    for (var oy = lo.y; oy <= hi.y; oy++) {
        for (var ox = lo.x; ox <= hi.x; ox++) {
            let c = base + vec2<i32>(ox, oy);
            let h = hash_2d(vec2<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y)), seed_h);
            sum += gabor_cell_2d(h, f - vec2<f32>(f32(ox), f32(oy)), k0, k1, dir, isotropic, complex);
        }
    }
    return sum;
}

fn gabor_sum_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, complex: bool) -> vec2<f32> {
    let fl = floor(local);
    let base = cell + vec3<i32>(fl);
    let f = local - fl;
    let lo = vec3<i32>(floor(f - vec3<f32>(k1.x)));
    let hi = vec3<i32>(floor(f + vec3<f32>(k1.x)));
    var sum = vec2<f32>(0.0, 0.0);
    for (var oz = lo.z; oz <= hi.z; oz++) {
        for (var oy = lo.y; oy <= hi.y; oy++) {
            for (var ox = lo.x; ox <= hi.x; ox++) {
                let c = base + vec3<i32>(ox, oy, oz);
                let h = hash_3d(vec3<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y), wrap_cell(c.z, period.z)), seed_h);
                sum += gabor_cell_3d(h, f - vec3<f32>(f32(ox), f32(oy), f32(oz)), k0, k1, dir, isotropic, complex);
            }
        }
    }
    return sum;
}

fn gabor_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool) -> f32 {
    return gabor_sum_2d(cell, local, seed_h, period, k0, k1, dir, isotropic, false).x * k1.z;
}

fn gabor_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool) -> f32 {
    return gabor_sum_3d(cell, local, seed_h, period, k0, k1, dir, isotropic, false).x * k1.z;
}
