// Mappings: where a mapped generator stage samples its source (transform, sphere, torus,
// cylinder; see src/graph/mapping.rs). Twin: src/twin/lib/mapping.rs.
//
// A mapped stage's pixel position `pix` goes through `pre` (an affine map whose columns
// multiply pix.x, pix.y, pix.z, plus pre[3]), then, where kind.x names one, a curve of the
// result's x and y (in turns), then `post` (columns multiplying the curve's x, y, z, w).
// The host adds the f64 rest of the map in the lattice split; the octave then samples
// o.local + s * o.step, o.step holding the octave's frequency on every axis.

const MAP_CURVE_NONE: u32 = 0u;
const MAP_CURVE_SPHERE: u32 = 1u;
const MAP_CURVE_TORUS: u32 = 2u;
const MAP_CURVE_CYLINDER: u32 = 3u;
// u.xyz projected onto the sphere of radius c.x (a cube map's face: see cube_face)
const MAP_CURVE_RADIAL: u32 = 4u;
// pi as a number of radians per half turn (d/dt of sin_turns(t / 2) is pi cos).
const MAP_HALF_TURN: f32 = 3.14159274f;

// (Columns are members of their own, not arrays: the GLSL and HLSL exports translate
// structs of vectors most plainly.)
struct Mapping {
    // columns multiplying pix.x, pix.y, pix.z, then the constant
    pre_x: vec4<f32>,
    pre_y: vec4<f32>,
    pre_z: vec4<f32>,
    pre_c: vec4<f32>,
    // d pre / d p along the view axes x, y, z (the view position, not the pixel)
    pre_px: vec4<f32>,
    pre_py: vec4<f32>,
    pre_pz: vec4<f32>,
    // the curve's radii
    curve: vec4<f32>,
    // columns multiplying the curve's x, y, z, w
    post_x: vec4<f32>,
    post_y: vec4<f32>,
    post_z: vec4<f32>,
    post_w: vec4<f32>,
    // x: the curve (MAP_CURVE_*), y: 1 in a mapped stage, z, w: unused
    kind: vec4<u32>,
}

// d s / d p along the view axes x, y, z (and a curve's d v / d u along u.x, u.y, u.z).
struct MapJacobian {
    dx: vec4<f32>,
    dy: vec4<f32>,
    dz: vec4<f32>,
}

fn map_pre(m: Mapping, pix: vec4<f32>) -> vec4<f32> {
    return m.pre_x * pix.x + m.pre_y * pix.y + m.pre_z * pix.z + m.pre_c;
}

fn map_post(m: Mapping, v: vec4<f32>) -> vec4<f32> {
    return m.post_x * v.x + m.post_y * v.y + m.post_z * v.z + m.post_w * v.w;
}

// The curve `kind` of radii `c` at u.x, u.y (turns; a radial curve takes u.xyz).
fn map_curve(kind: u32, c: vec4<f32>, u: vec4<f32>) -> vec4<f32> {
    if (kind == MAP_CURVE_RADIAL) {
        let k = c.x / sqrt(dot(u.xyz, u.xyz));
        return vec4<f32>(u.x * k, u.y * k, u.z * k, 0.0);
    }
    let cx = cos_turns(u.x);
    let sx = sin_turns(u.x);
    if (kind == MAP_CURVE_SPHERE) {
        // polar angle u.y / 2 turns from the +z pole: 0 at y = 0, a half turn at y = 1
        let st = sin_turns(0.5 * u.y);
        let ct = cos_turns(0.5 * u.y);
        return vec4<f32>(c.x * (st * cx), c.x * (st * sx), c.x * ct, 0.0);
    }
    if (kind == MAP_CURVE_TORUS) {
        return vec4<f32>(c.x * cx, c.x * sx, c.y * cos_turns(u.y), c.y * sin_turns(u.y));
    }
    return vec4<f32>(c.x * cx, c.x * sx, u.y, 0.0);
}

// The mapped position of pixel position `pix`, less the host's f64 constant.
fn map_position(m: Mapping, pix: vec4<f32>) -> vec4<f32> {
    let u = map_pre(m, pix);
    if (m.kind.x == MAP_CURVE_NONE) {
        return u;
    }
    return map_post(m, map_curve(m.kind.x, m.curve, u));
}

// d v / d u.x, d v / d u.y and d v / d u.z of the curve at u (columns of a 4 x 3 matrix).
fn map_curve_slopes(kind: u32, c: vec4<f32>, u: vec4<f32>) -> MapJacobian {
    if (kind == MAP_CURVE_RADIAL) {
        // d (r u / |u|) / d u_k = (r / |u|) (e_k - n n_k), n = u / |u|
        let inv = 1.0 / sqrt(dot(u.xyz, u.xyz));
        let n = vec4<f32>(u.x * inv, u.y * inv, u.z * inv, 0.0);
        let k = c.x * inv;
        return MapJacobian(
            (vec4<f32>(1.0, 0.0, 0.0, 0.0) - n * n.x) * k,
            (vec4<f32>(0.0, 1.0, 0.0, 0.0) - n * n.y) * k,
            (vec4<f32>(0.0, 0.0, 1.0, 0.0) - n * n.z) * k,
        );
    }
    let cx = cos_turns(u.x);
    let sx = sin_turns(u.x);
    let rx = c.x * TURN_RADIANS;
    let none = vec4<f32>(0.0);
    if (kind == MAP_CURVE_SPHERE) {
        let st = sin_turns(0.5 * u.y);
        let ct = cos_turns(0.5 * u.y);
        let ry = c.x * MAP_HALF_TURN;
        return MapJacobian(
            vec4<f32>(-rx * (st * sx), rx * (st * cx), 0.0, 0.0),
            vec4<f32>(ry * (ct * cx), ry * (ct * sx), -ry * st, 0.0),
            none,
        );
    }
    if (kind == MAP_CURVE_TORUS) {
        let ry = c.y * TURN_RADIANS;
        return MapJacobian(
            vec4<f32>(-rx * sx, rx * cx, 0.0, 0.0),
            vec4<f32>(0.0, 0.0, -ry * sin_turns(u.y), ry * cos_turns(u.y)),
            none,
        );
    }
    return MapJacobian(
        vec4<f32>(-rx * sx, rx * cx, 0.0, 0.0),
        vec4<f32>(0.0, 0.0, 1.0, 0.0),
        none,
    );
}

// d s / d p at pixel position `pix`, by the chain rule through pre, the curve and post.
fn map_jacobian(m: Mapping, pix: vec4<f32>) -> MapJacobian {
    if (m.kind.x == MAP_CURVE_NONE) {
        return MapJacobian(m.pre_px, m.pre_py, m.pre_pz);
    }
    let u = map_pre(m, pix);
    let d = map_curve_slopes(m.kind.x, m.curve, u);
    let dx = d.dx * m.pre_px.x + d.dy * m.pre_px.y + d.dz * m.pre_px.z;
    let dy = d.dx * m.pre_py.x + d.dy * m.pre_py.y + d.dz * m.pre_py.z;
    let dz = d.dx * m.pre_pz.x + d.dy * m.pre_pz.y + d.dz * m.pre_pz.z;
    return MapJacobian(map_post(m, dx), map_post(m, dy), map_post(m, dz));
}
