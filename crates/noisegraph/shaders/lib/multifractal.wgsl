// The octave step of the fractals whose octaves depend on the earlier ones: Musgrave's hybrid
// multifractal and heterogeneous terrain ("Texturing & Modeling", 3rd ed., ch. 16) and the
// derivative-weighted sum (Quilez) of fbm, ridged and billow. Twin:
// src/twin/lib/multifractal.rs. Every path (the stage template's generated octave sums, the
// exported graph functions) calls these, octave after octave, from multifractal_start.
//
// Octave k samples n with amplitude a = gain^k; offset is the node's signal_offset, weighting
// its derivative_weight:
//   hybrid:   signal = (n + offset) a; sum += weight signal; weight = clamp(weight signal, 0, 1)
//             (weight starts at 1, so the first octave's sum is its signal)
//   hetero:   signal = (n + offset) a; the first octave's sum is signal, each later one's
//             sum + signal sum
//   weighted: slopes += dn/dlocal; sum += a remap(n) / (1 + weighting |slopes|^2)

// A pixel's state between octaves: the running sum, hybrid's weight (hetero: 1 before its
// first octave, then 0), the sum of the octaves' noise gradients in their lattice coordinates.
struct Multifractal {
    sum: f32,
    weight: f32,
    slopes: vec4<f32>,
}

fn multifractal_start() -> Multifractal {
    return Multifractal(0.0, 1.0, vec4<f32>(0.0));
}

// One octave: n its sample and nd its gradient with respect to its lattice coordinates (read
// by the derivative weight only), amp its amplitude.
fn multifractal_octave(s: Multifractal, n: f32, nd: vec4<f32>, amp: f32, kind: u32, offset: f32, weighting: f32) -> Multifractal {
    if (kind == FRACTAL_HYBRID) {
        let signal = (n + offset) * amp;
        return Multifractal(s.sum + s.weight * signal, clamp(s.weight * signal, 0.0, 1.0), s.slopes);
    }
    if (kind == FRACTAL_HETERO) {
        let signal = (n + offset) * amp;
        return Multifractal(select(s.sum + signal * s.sum, signal, s.weight > 0.5), 0.0, s.slopes);
    }
    let slopes = s.slopes + nd;
    let divisor = 1.0 + weighting * dot(slopes, slopes);
    return Multifractal(s.sum + amp * fractal_remap(n, kind) / divisor, s.weight, slopes);
}

// The state with its gradient with respect to the position p: sum and weight with theirs,
// and the derivative of the slopes along each axis of p (column b: d slopes / d p_b).
struct MultifractalGrad {
    sum: NoiseGrad,
    weight: NoiseGrad,
    slopes: vec4<f32>,
    slopes_d: mat4x4<f32>,
}

fn multifractal_grad_start() -> MultifractalGrad {
    let zero = NoiseGrad(0.0, vec4<f32>(0.0));
    return MultifractalGrad(zero, NoiseGrad(1.0, vec4<f32>(0.0)), vec4<f32>(0.0), mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0)));
}

// multifractal_octave with gradients: n holds the sample and dn/dp, nd is dn/dlocal and hd
// its derivative along p (column b: d nd / d p_b, read by the derivative weight only). The
// value is multifractal_octave's. Hybrid's clamp passes the gradient on [0, 1], ends included.
fn multifractal_octave_grad(s: MultifractalGrad, n: NoiseGrad, nd: vec4<f32>, hd: mat4x4<f32>, amp: f32, kind: u32, offset: f32, weighting: f32) -> MultifractalGrad {
    if (kind == FRACTAL_HYBRID) {
        let signal = (n.value + offset) * amp;
        let ds = n.d * amp;
        let sum = NoiseGrad(s.sum.value + s.weight.value * signal, s.sum.d + s.weight.d * signal + ds * s.weight.value);
        let w = s.weight.value * signal;
        let inside = w >= 0.0 && w <= 1.0;
        let dw = select(vec4<f32>(0.0), s.weight.d * signal + ds * s.weight.value, inside);
        return MultifractalGrad(sum, NoiseGrad(clamp(w, 0.0, 1.0), dw), s.slopes, s.slopes_d);
    }
    if (kind == FRACTAL_HETERO) {
        let signal = (n.value + offset) * amp;
        let ds = n.d * amp;
        let first = s.weight.value > 0.5;
        let value = select(s.sum.value + signal * s.sum.value, signal, first);
        let d = select(s.sum.d + ds * s.sum.value + s.sum.d * signal, ds, first);
        return MultifractalGrad(NoiseGrad(value, d), NoiseGrad(0.0, vec4<f32>(0.0)), s.slopes, s.slopes_d);
    }
    let slopes = s.slopes + nd;
    let slopes_d = s.slopes_d + hd;
    let divisor = 1.0 + weighting * dot(slopes, slopes);
    let r = fractal_remap(n.value, kind);
    let term = amp * r;
    let slope = amp * fractal_remap_slope(n.value, kind);
    // d divisor / d p_b = 2 weighting (slopes . d slopes / d p_b)
    let dd = 2.0 * weighting * (slopes * slopes_d);
    let d = s.sum.d + (slope * n.d) / divisor - (term * dd) / (divisor * divisor);
    return MultifractalGrad(NoiseGrad(s.sum.value + term / divisor, d), s.weight, slopes, slopes_d);
}

// Column a of the Hessian of a family's noise by central differences of its exact gradient:
// gp and gm are the gradients at local + e and local - e along axis a, step the difference of
// those two positions' coordinate a (exactly what the f32 positions differ by).
fn hessian_column(gp: vec4<f32>, gm: vec4<f32>, step: f32) -> vec4<f32> {
    return (gp - gm) / step;
}
