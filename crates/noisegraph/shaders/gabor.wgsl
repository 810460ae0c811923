// Sparse Gabor noise (Lagae, Lefebvre, Drettakis, Dutre 2009). Twin: src/cpu/gabor.rs.
//
// Impulses are scattered over the lattice cells: each cell draws a Poisson number of them
// (mean lambda, Knuth's product-of-uniforms method) from its integer hash, each with a uniform
// position in the cell, a weight uniform in [-1, 1] and, when isotropic, a random direction.
// A sample sums the Gabor kernels w * env(r) * cos(2 pi f0 u.(x - p)) of the impulses in the
// cells its truncation disk touches. env is the Gaussian exp(-pi a^2 r^2) truncated where it
// falls to 0.05 (Lagae's radius 0.9765 / a) and shifted down by that 0.05 so the field stays
// continuous at the cut. The complex sum (cos and sin parts) also serves phasor noise.
// exp is exp_nonpositive, a polynomial (the CPU twin's), so that both paths evaluate the same
// envelope: the driver's built-in exp differs by a few ulps, which phasor noise amplifies
// near its singular points.
//
// Gradient form (gabor_2d_grad, gabor_3d_grad; gabor_sum_*_grad for phasor): per impulse,
// d/dx [env cos(2 pi t)] = env' 2 d cos(2 pi t) - env 2 pi f0 sin(2 pi t) u with
// env' = -pi a^2 w e^(-pi a^2 r^2) / (1 - 0.05); the plain functions take its value. The
// envelope's slope jumps at the truncation radius (the value is continuous there): inside
// the cut (r^2 < radius^2) the impulse's slope counts, on and past it not.
//
// Kernel numbers come from the uniforms (see src/family/gabor.rs):
//   k0 = (f0 cycles per cell, pi a^2, envelope cutoff 0.05, 1 / (1 - 0.05))
//   k1 = (truncation radius in cells, exp(-lambda), output scale, unused)
//   dir = fixed unit direction of the anisotropic kernel

const GABOR_MAX_IMPULSES: u32 = 256u;

// ln 2 in two parts (Cody and Waite), so that k ln 2 is subtracted almost exactly.
const EXP_LOG2_E: f32 = 1.442695f;
const EXP_LN2_HI: f32 = 0.6933594f;
const EXP_LN2_LO: f32 = -0.00021219444f;

// e^x for x <= 0 (below -87, e^-87), within 2.5e-7 relative of exp: range reduction by powers
// of 2 and a degree-6 polynomial, the CPU twin's operations.
fn exp_nonpositive(x_in: f32) -> f32 {
    let x = select(-87.0, x_in, x_in > -87.0);
    let kf = floor(x * EXP_LOG2_E + 0.5);
    let r = (x - kf * EXP_LN2_HI) - kf * EXP_LN2_LO;
    let p = 1.0 + r * (1.0 + r * (0.5 + r * (0.16666667f + r * (0.041666668f + r * (0.008333334f + r * 0.0013888889f)))));
    // 2^k: k in [-126, 0] is a normal exponent.
    return p * bitcast<f32>(u32(i32(kf) + 127) << 23u);
}

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

// A complex Gabor sum, (cos part, sin part), and the gradients of both parts with respect to
// the sample position (z components 0 in 2D).
struct GaborSum {
    z: vec2<f32>,
    d_re: vec3<f32>,
    d_im: vec3<f32>,
}

// Adds the kernel of an impulse at offset d = sample - impulse (r2 = |d|^2, along = u.d,
// weight w, direction u) to `sum`; the sin part only when `complex`.
fn gabor_add_impulse(sum: ptr<function, GaborSum>, d: vec3<f32>, r2: f32, along: f32, w: f32, u: vec3<f32>, k0: vec4<f32>, complex: bool) {
    let e = exp_nonpositive(-k0.y * r2);
    let env = w * (e - k0.z) * k0.w;
    let t = k0.x * along;
    let c = cos_turns(t);
    let s = sin_turns(t);
    let denv = (-2.0 * k0.y * w * e * k0.w) * d;
    let dphase = (TURN_RADIANS * k0.x) * u;
    (*sum).z.x += env * c;
    (*sum).d_re += denv * c - (env * s) * dphase;
    if (complex) {
        (*sum).z.y += env * s;
        (*sum).d_im += denv * s + (env * c) * dphase;
    }
}

// The impulses of one cell at `pos` (relative to the cell corner).
fn gabor_cell_2d_grad(h: u32, pos: vec2<f32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, complex: bool) -> GaborSum {
    var state = h;
    var product = 1.0;
    var sum = GaborSum(vec2<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
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
        let r2 = d.x * d.x + d.y * d.y;
        if (r2 < radius2) {
            gabor_add_impulse(&sum, vec3<f32>(d, 0.0), r2, u.x * d.x + u.y * d.y, w, vec3<f32>(u, 0.0), k0, complex);
        }
    }
    return sum;
}

fn gabor_cell_3d_grad(h: u32, pos: vec3<f32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, complex: bool) -> GaborSum {
    var state = h;
    var product = 1.0;
    var sum = GaborSum(vec2<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
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
        let r2 = d.x * d.x + d.y * d.y + d.z * d.z;
        if (r2 < radius2) {
            gabor_add_impulse(&sum, d, r2, u.x * d.x + u.y * d.y + u.z * d.z, w, u, k0, complex);
        }
    }
    return sum;
}

// Adds one cell's sum to the sample's.
fn gabor_add_cell(sum: ptr<function, GaborSum>, cell: GaborSum) {
    (*sum).z += cell.z;
    (*sum).d_re += cell.d_re;
    (*sum).d_im += cell.d_im;
}

// The complex Gabor sum at a sample, and its gradient: every cell the truncation disk touches.
fn gabor_sum_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, complex: bool) -> GaborSum {
    let fl = floor(local);
    let base = cell + vec2<i32>(fl);
    let f = local - fl;
    let lo = vec2<i32>(floor(f - vec2<f32>(k1.x)));
    let hi = vec2<i32>(floor(f + vec2<f32>(k1.x)));
    var sum = GaborSum(vec2<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var oy = lo.y; oy <= hi.y; oy++) {
        for (var ox = lo.x; ox <= hi.x; ox++) {
            let c = base + vec2<i32>(ox, oy);
            let h = hash_2d(vec2<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y)), seed_h);
            gabor_add_cell(&sum, gabor_cell_2d_grad(h, f - vec2<f32>(f32(ox), f32(oy)), k0, k1, dir, isotropic, complex));
        }
    }
    return sum;
}

fn gabor_sum_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool, complex: bool) -> GaborSum {
    let fl = floor(local);
    let base = cell + vec3<i32>(fl);
    let f = local - fl;
    let lo = vec3<i32>(floor(f - vec3<f32>(k1.x)));
    let hi = vec3<i32>(floor(f + vec3<f32>(k1.x)));
    var sum = GaborSum(vec2<f32>(0.0), vec3<f32>(0.0), vec3<f32>(0.0));
    for (var oz = lo.z; oz <= hi.z; oz++) {
        for (var oy = lo.y; oy <= hi.y; oy++) {
            for (var ox = lo.x; ox <= hi.x; ox++) {
                let c = base + vec3<i32>(ox, oy, oz);
                let h = hash_3d(vec3<i32>(wrap_cell(c.x, period.x), wrap_cell(c.y, period.y), wrap_cell(c.z, period.z)), seed_h);
                gabor_add_cell(&sum, gabor_cell_3d_grad(h, f - vec3<f32>(f32(ox), f32(oy), f32(oz)), k0, k1, dir, isotropic, complex));
            }
        }
    }
    return sum;
}

fn gabor_2d_grad(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool) -> NoiseGrad {
    let s = gabor_sum_2d_grad(cell, local, seed_h, period, k0, k1, dir, isotropic, false);
    return NoiseGrad(s.z.x * k1.z, vec4<f32>(s.d_re * k1.z, 0.0));
}

fn gabor_3d_grad(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool) -> NoiseGrad {
    let s = gabor_sum_3d_grad(cell, local, seed_h, period, k0, k1, dir, isotropic, false);
    return NoiseGrad(s.z.x * k1.z, vec4<f32>(s.d_re * k1.z, 0.0));
}

fn gabor_2d(cell: vec2<i32>, local: vec2<f32>, seed_h: u32, period: vec2<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool) -> f32 {
    return gabor_2d_grad(cell, local, seed_h, period, k0, k1, dir, isotropic).value;
}

fn gabor_3d(cell: vec3<i32>, local: vec3<f32>, seed_h: u32, period: vec3<i32>, k0: vec4<f32>, k1: vec4<f32>, dir: vec4<f32>, isotropic: bool) -> f32 {
    return gabor_3d_grad(cell, local, seed_h, period, k0, k1, dir, isotropic).value;
}
