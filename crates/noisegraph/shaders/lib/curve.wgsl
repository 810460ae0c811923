// The curve remap (`curve`): a cubic through control points, one piece per interval between
// two points. Twin: src/twin/lib/curve.rs, which also generates the piece lookup over a
// table (`wgsl_lookup`: the combine stage's uniform, an export's constant array) and whose
// docs give the table's layout. The host fits the pieces (graph/curve.rs): the value and
// derivative of one piece are written here once.
//
// A piece is two vec4s, lo = (x, b, m, c2) and hi = (c3, 0, 0, 0): on [x, next x) the curve
// is m a + b + c2 s^2 + c3 s^3 with s = a - x. The line m a + b carries the whole of an
// identity curve (m = 1, b = 0, c2 = c3 = 0: exactly a); s is clamped at 0 so the first
// piece extends linearly below the first point, and the last point's piece is the line that
// extends it (c2 = c3 = 0).

// The value of a curve piece at a.
fn curve_piece_value(a: f32, lo: vec4<f32>, hi: vec4<f32>) -> f32 {
    let s = max(a - lo.x, 0.0);
    return a * lo.z + lo.y + s * s * (lo.w + s * hi.x);
}

// curve_piece_value with gradients: the slope m + 2 c2 s + 3 c3 s^2 by the chain rule.
fn curve_piece_grad(a: NoiseGrad, lo: vec4<f32>, hi: vec4<f32>) -> NoiseGrad {
    let s = max(a.value - lo.x, 0.0);
    let slope = lo.z + s * (2.0 * lo.w + 3.0 * s * hi.x);
    return NoiseGrad(curve_piece_value(a.value, lo, hi), a.d * slope);
}
