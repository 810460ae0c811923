//! Twin of `shaders/lib/mapping.wgsl`: the mapped position of a pixel in a mapped generator
//! stage and its Jacobian, with the same operations in the same order (see
//! `graph::mapping` for what the numbers are).

use bytemuck::{Pod, Zeroable};

use super::turns::{cos_turns, sin_turns, TURN_RADIANS};

/// No curve: the map is affine.
pub const MAP_CURVE_NONE: u32 = 0;
/// A sphere of radius `curve[0]`.
pub const MAP_CURVE_SPHERE: u32 = 1;
/// A torus of radii `curve[0]`, `curve[1]`.
pub const MAP_CURVE_TORUS: u32 = 2;
/// A cylinder of radius `curve[0]`.
pub const MAP_CURVE_CYLINDER: u32 = 3;
/// `u.xyz` projected onto the sphere of radius `curve[0]` (a cube map's face).
pub const MAP_CURVE_RADIAL: u32 = 4;
/// pi, as the WGSL's `MAP_HALF_TURN`.
const MAP_HALF_TURN: f32 = std::f32::consts::PI;

/// The layout of `Mapping` in `shaders/lib/mapping.wgsl`, its column members as arrays (the last member of a generate
/// stage's uniforms; zero in stages that are not mapped). Internal: not a stable API.
#[doc(hidden)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct MappingUniform {
    /// Columns multiplying the pixel's x, y, z, then the constant.
    pub pre: [[f32; 4]; 4],
    /// d pre / d p along the view axes x, y, z.
    pub pre_p: [[f32; 4]; 3],
    /// The curve's radii.
    pub curve: [f32; 4],
    /// Columns multiplying the curve's x, y, z, w.
    pub post: [[f32; 4]; 4],
    /// The curve (`MAP_CURVE_*`), 1 in a mapped stage, unused, unused.
    pub kind: [u32; 4],
}

impl MappingUniform {
    /// Whether the stage is mapped.
    #[inline(always)]
    pub fn is_mapped(&self) -> bool {
        self.kind[1] != 0
    }
}

#[inline(always)]
fn column_sum(c: &[[f32; 4]; 4], v: [f32; 4]) -> [f32; 4] {
    std::array::from_fn(|i| c[0][i] * v[0] + c[1][i] * v[1] + c[2][i] * v[2] + c[3][i] * v[3])
}

/// Twin of `map_pre`.
#[inline(always)]
pub fn map_pre(m: &MappingUniform, pix: [f32; 4]) -> [f32; 4] {
    let p = &m.pre;
    std::array::from_fn(|i| p[0][i] * pix[0] + p[1][i] * pix[1] + p[2][i] * pix[2] + p[3][i])
}

/// Twin of `map_post`.
#[inline(always)]
pub fn map_post(m: &MappingUniform, v: [f32; 4]) -> [f32; 4] {
    column_sum(&m.post, v)
}

/// Twin of `map_curve`.
#[inline(always)]
pub fn map_curve(kind: u32, c: [f32; 4], u: [f32; 4]) -> [f32; 4] {
    if kind == MAP_CURVE_RADIAL {
        let k = c[0] / (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
        return [u[0] * k, u[1] * k, u[2] * k, 0.0];
    }
    let cx = cos_turns(u[0]);
    let sx = sin_turns(u[0]);
    if kind == MAP_CURVE_SPHERE {
        let st = sin_turns(0.5 * u[1]);
        let ct = cos_turns(0.5 * u[1]);
        return [c[0] * (st * cx), c[0] * (st * sx), c[0] * ct, 0.0];
    }
    if kind == MAP_CURVE_TORUS {
        return [
            c[0] * cx,
            c[0] * sx,
            c[1] * cos_turns(u[1]),
            c[1] * sin_turns(u[1]),
        ];
    }
    [c[0] * cx, c[0] * sx, u[1], 0.0]
}

/// Twin of `map_position`.
#[inline(always)]
pub fn map_position(m: &MappingUniform, pix: [f32; 4]) -> [f32; 4] {
    let u = map_pre(m, pix);
    if m.kind[0] == MAP_CURVE_NONE {
        return u;
    }
    map_post(m, map_curve(m.kind[0], m.curve, u))
}

/// Twin of `map_curve_slopes`.
#[inline(always)]
pub fn map_curve_slopes(kind: u32, c: [f32; 4], u: [f32; 4]) -> [[f32; 4]; 3] {
    if kind == MAP_CURVE_RADIAL {
        let inv = 1.0 / (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
        let n = [u[0] * inv, u[1] * inv, u[2] * inv, 0.0];
        let k = c[0] * inv;
        return std::array::from_fn(|col| {
            std::array::from_fn(|i| ((if i == col { 1.0 } else { 0.0 }) - n[i] * n[col]) * k)
        });
    }
    let cx = cos_turns(u[0]);
    let sx = sin_turns(u[0]);
    let rx = c[0] * TURN_RADIANS;
    let none = [0.0; 4];
    if kind == MAP_CURVE_SPHERE {
        let st = sin_turns(0.5 * u[1]);
        let ct = cos_turns(0.5 * u[1]);
        let ry = c[0] * MAP_HALF_TURN;
        return [
            [-rx * (st * sx), rx * (st * cx), 0.0, 0.0],
            [ry * (ct * cx), ry * (ct * sx), -ry * st, 0.0],
            none,
        ];
    }
    if kind == MAP_CURVE_TORUS {
        let ry = c[1] * TURN_RADIANS;
        return [
            [-rx * sx, rx * cx, 0.0, 0.0],
            [0.0, 0.0, -ry * sin_turns(u[1]), ry * cos_turns(u[1])],
            none,
        ];
    }
    [[-rx * sx, rx * cx, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], none]
}

/// Twin of `map_jacobian`: d s / d p along the view axes x, y, z.
#[inline(always)]
pub fn map_jacobian(m: &MappingUniform, pix: [f32; 4]) -> [[f32; 4]; 3] {
    if m.kind[0] == MAP_CURVE_NONE {
        return m.pre_p;
    }
    let u = map_pre(m, pix);
    let d = map_curve_slopes(m.kind[0], m.curve, u);
    std::array::from_fn(|b| {
        let along: [f32; 4] = std::array::from_fn(|i| {
            d[0][i] * m.pre_p[b][0] + d[1][i] * m.pre_p[b][1] + d[2][i] * m.pre_p[b][2]
        });
        map_post(m, along)
    })
}

/// The gradient of an octave's sample with respect to the view axes in a mapped stage: `t =
/// nd * step` (d n / d s), then its dot with each of the Jacobian's columns (twin of the
/// generated `octave_gradient` of mapped stages, before any warp term).
#[inline(always)]
pub fn mapped_gradient(nd: [f32; 4], step: [f32; 4], jacobian: &[[f32; 4]; 3]) -> [f32; 3] {
    let t: [f32; 4] = std::array::from_fn(|a| nd[a] * step[a]);
    std::array::from_fn(|b| {
        let j = &jacobian[b];
        t[0] * j[0] + t[1] * j[1] + t[2] * j[2] + t[3] * j[3]
    })
}
