//! Mappings: nodes that change where their source subgraph is sampled (`transform`,
//! `sphere`, `torus`, `cylinder`), and the composed position map a generator chain carries
//! when one or more of them sit above it.
//!
//! The planner pushes every mapping node down to the generator chains below it (through
//! point-wise nodes, fractals and warps, see `plan.rs`), composing nested ones, so each chain
//! is sampled at `s = M(p)`, `p` the view's position. A composed [`Mapping`] has a fixed form:
//! an affine map of the view position (`pre`, the transforms above any curved mapping), at
//! most one curved mapping of its x and y (a curved mapping takes a 2D view to a 3D or 4D
//! source, so two can never nest), and an affine map of its result (`post`, the transforms
//! below it). The host keeps what it can in f64: without a curve, the whole constant part of
//! `M` goes into the octave's lattice split (as a view's origin does), so a transformed view
//! far from 0 is as precise as a plain one; with a curve, the constant part of `post` does.
//! The kernels evaluate the rest in f32 from the pixel position (`shaders/lib/mapping.wgsl`,
//! twin `twin::lib::mapping`), the point queries in f64 ([`Mapping::apply`]).

use bytemuck::Zeroable;

use crate::twin::lib::mapping::{
    MappingUniform, MAP_CURVE_CYLINDER, MAP_CURVE_NONE, MAP_CURVE_RADIAL, MAP_CURVE_SPHERE,
    MAP_CURVE_TORUS,
};

/// The faces of a cube map, in the OpenGL / Vulkan order: +x, -x, +y, -y, +z, -z.
pub const CUBE_FACES: [&str; 6] = ["px", "nx", "py", "ny", "pz", "nz"];

/// Face `face`'s direction at face coordinates (sc, tc) in [-1, 1]: `center + sc * a + tc *
/// b`, as (center, a, b). The OpenGL and Vulkan cube-map convention (OpenGL 4.6, table 8.19:
/// s = (sc / |ma| + 1) / 2, t = (tc / |ma| + 1) / 2, t = 0 on the image's first row) solved
/// for the direction.
pub fn cube_face_basis(face: u32) -> [[f64; 3]; 3] {
    match face {
        0 => [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, -1.0, 0.0]],
        1 => [[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]],
        2 => [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        3 => [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]],
        4 => [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]],
        _ => [[0.0, 0.0, -1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]],
    }
}

/// What a mapping node does to the position its source is sampled at.
#[derive(Debug, Clone, PartialEq)]
pub enum MapKind {
    /// The source sampled at `rotate(scale * p) + translate`.
    Transform {
        /// Added last, per axis.
        translate: [f64; 4],
        /// Multiplies the position first, per axis.
        scale: [f64; 4],
        /// Rotation of a 2D source's x, y, in degrees (counterclockwise: x towards y).
        rotate: f64,
        /// Rotation axis of a 3D or 4D source (x, y, z; need not be unit length).
        axis: [f64; 3],
        /// Rotation angle about `axis`, in degrees (right-handed).
        angle: f64,
    },
    /// A 3D source on a sphere: x in [0, 1) is longitude (turns), y in [0, 1] the polar
    /// angle from the +z pole (0) to the -z pole (1): equirectangular.
    Sphere {
        /// The sphere's radius, in the source's units.
        radius: f64,
    },
    /// A 4D source around two circles: x turns around the first (in x, y), y around the
    /// second (in z, w), so a view of [0, 1)^2 tiles seamlessly.
    Torus {
        /// The first circle's radius (x, y of the source).
        radius_x: f64,
        /// The second circle's radius (z, w of the source).
        radius_y: f64,
    },
    /// A 3D source on a cylinder around z: x turns around (x, y of the source), y runs along
    /// z; tiles in x.
    Cylinder {
        /// The cylinder's radius.
        radius: f64,
    },
    /// A 3D source on one face of a cube map, its directions projected onto a sphere: x, y
    /// in [0, 1] are the face's s, t ([`cube_face_basis`]).
    CubeFace {
        /// The face, an index into [`CUBE_FACES`].
        face: u32,
        /// The sphere's radius.
        radius: f64,
    },
}

impl MapKind {
    /// The JSON `type`.
    pub fn name(&self) -> &'static str {
        match self {
            MapKind::Transform { .. } => "transform",
            MapKind::Sphere { .. } => "sphere",
            MapKind::Torus { .. } => "torus",
            MapKind::Cylinder { .. } => "cylinder",
            MapKind::CubeFace { .. } => "cube_face",
        }
    }
    /// The dims the source must have (`None`: any, the node's own), and the node's dims.
    pub fn source_dims(&self) -> Option<u32> {
        match self {
            MapKind::Transform { .. } => None,
            MapKind::Sphere { .. } | MapKind::Cylinder { .. } | MapKind::CubeFace { .. } => Some(3),
            MapKind::Torus { .. } => Some(4),
        }
    }
}

/// A mapping node: its source and what it does to positions.
#[derive(Debug, Clone, PartialEq)]
pub struct MappingNode {
    /// Id of the node sampled at the mapped positions (any node).
    pub source: String,
    /// The mapping.
    pub map: MapKind,
}

/// An affine map of 4D positions: `m * p + t` (`m[row][column]`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Affine {
    /// The linear part, row by row.
    pub m: [[f64; 4]; 4],
    /// The constant part.
    pub t: [f64; 4],
}

impl Affine {
    /// The identity.
    pub const IDENTITY: Affine = Affine {
        m: [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ],
        t: [0.0; 4],
    };
    /// `m * p + t`.
    pub fn apply(&self, p: [f64; 4]) -> [f64; 4] {
        std::array::from_fn(|i| (0..4).map(|j| self.m[i][j] * p[j]).sum::<f64>() + self.t[i])
    }
    /// `self` after `first`: `p -> self(first(p))`.
    pub fn after(&self, first: &Affine) -> Affine {
        Affine {
            m: std::array::from_fn(|i| {
                std::array::from_fn(|j| (0..4).map(|k| self.m[i][k] * first.m[k][j]).sum())
            }),
            t: self.apply(first.t),
        }
    }
    /// A transform node's map for a source of `dims` (axes past `dims` left as they are).
    pub fn transform(kind: &MapKind, dims: u32) -> Affine {
        let MapKind::Transform {
            translate,
            scale,
            rotate,
            axis,
            angle,
        } = kind
        else {
            return Affine::IDENTITY;
        };
        let d = dims.min(4) as usize;
        let mut rotation = Affine::IDENTITY.m;
        if d == 2 {
            let (s, c) = sin_cos_degrees(*rotate);
            rotation[0][0] = c;
            rotation[0][1] = -s;
            rotation[1][0] = s;
            rotation[1][1] = c;
        } else {
            let r = axis_angle(*axis, *angle);
            for i in 0..3 {
                rotation[i][..3].copy_from_slice(&r[i]);
            }
        }
        let mut m = Affine::IDENTITY.m;
        let mut t = [0.0; 4];
        for i in 0..d {
            for j in 0..d {
                m[i][j] = rotation[i][j] * scale[j];
            }
            t[i] = translate[i];
        }
        Affine { m, t }
    }
}

/// sin and cos of `degrees`, exact at multiples of 90 degrees (so a quarter turn permutes
/// the axes exactly, with no 6e-17 left over).
pub fn sin_cos_degrees(degrees: f64) -> (f64, f64) {
    let d = degrees.rem_euclid(360.0);
    match d {
        0.0 => (0.0, 1.0),
        90.0 => (1.0, 0.0),
        180.0 => (0.0, -1.0),
        270.0 => (-1.0, 0.0),
        _ => d.to_radians().sin_cos(),
    }
}

/// The rotation by `degrees` about `axis` (Rodrigues), row by row; the identity for a zero
/// axis (refused by the parser).
fn axis_angle(axis: [f64; 3], degrees: f64) -> [[f64; 3]; 3] {
    let len = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    if len == 0.0 || !len.is_finite() {
        return [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    }
    let [x, y, z] = axis.map(|a| a / len);
    let (s, c) = sin_cos_degrees(degrees);
    let k = 1.0 - c;
    [
        [c + x * x * k, x * y * k - z * s, x * z * k + y * s],
        [y * x * k + z * s, c + y * y * k, y * z * k - x * s],
        [z * x * k - y * s, z * y * k + x * s, c + z * z * k],
    ]
}

/// The curved part of a mapping.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Curve {
    /// See [`MapKind::Sphere`].
    Sphere {
        /// Radius.
        radius: f64,
    },
    /// See [`MapKind::Torus`].
    Torus {
        /// Radii of the two circles.
        radius: [f64; 2],
    },
    /// See [`MapKind::Cylinder`].
    Cylinder {
        /// Radius.
        radius: f64,
    },
    /// Positions projected onto a sphere (a cube face, after its plane's affine map).
    Radial {
        /// Radius.
        radius: f64,
    },
}

impl Curve {
    fn code(&self) -> u32 {
        match self {
            Curve::Sphere { .. } => MAP_CURVE_SPHERE,
            Curve::Torus { .. } => MAP_CURVE_TORUS,
            Curve::Cylinder { .. } => MAP_CURVE_CYLINDER,
            Curve::Radial { .. } => MAP_CURVE_RADIAL,
        }
    }
    fn radii(&self) -> [f64; 2] {
        match *self {
            Curve::Sphere { radius } | Curve::Cylinder { radius } | Curve::Radial { radius } => {
                [radius, 0.0]
            }
            Curve::Torus { radius } => radius,
        }
    }
    /// The curve at `u` (x, y in turns) and its derivatives along u.x, u.y and u.z, in f64.
    fn apply(&self, u: [f64; 4]) -> ([f64; 4], [[f64; 4]; 3]) {
        let tau = std::f64::consts::TAU;
        let none = [0.0; 4];
        if let Curve::Radial { radius: r } = *self {
            let len = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
            let n = [u[0] / len, u[1] / len, u[2] / len, 0.0];
            let slopes = std::array::from_fn(|k| {
                std::array::from_fn(|i| r / len * ((i == k) as u8 as f64 - n[i] * n[k]))
            });
            return (n.map(|v| r * v), slopes);
        }
        let (sx, cx) = (tau * u[0]).sin_cos();
        match *self {
            Curve::Sphere { radius: r } => {
                let (st, ct) = (0.5 * tau * u[1]).sin_cos();
                (
                    [r * st * cx, r * st * sx, r * ct, 0.0],
                    [
                        [-r * tau * st * sx, r * tau * st * cx, 0.0, 0.0],
                        [
                            r * 0.5 * tau * ct * cx,
                            r * 0.5 * tau * ct * sx,
                            -r * 0.5 * tau * st,
                            0.0,
                        ],
                        none,
                    ],
                )
            }
            Curve::Torus { radius: [r, q] } => {
                let (sy, cy) = (tau * u[1]).sin_cos();
                (
                    [r * cx, r * sx, q * cy, q * sy],
                    [
                        [-r * tau * sx, r * tau * cx, 0.0, 0.0],
                        [0.0, 0.0, -q * tau * sy, q * tau * cy],
                        none,
                    ],
                )
            }
            Curve::Cylinder { radius: r } => (
                [r * cx, r * sx, u[1], 0.0],
                [
                    [-r * tau * sx, r * tau * cx, 0.0, 0.0],
                    [0.0, 0.0, 1.0, 0.0],
                    none,
                ],
            ),
            Curve::Radial { .. } => unreachable!("handled above"),
        }
    }
}

/// The position map of a generator chain below one or more mapping nodes: `pre`, then the
/// curve (if any) of `pre`'s x and y, then `post`. See the module docs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mapping {
    /// Applied to the view position first.
    pub pre: Affine,
    /// The curved mapping, if any.
    pub curve: Option<Curve>,
    /// Applied to the curve's result (the identity without a curve).
    pub post: Affine,
}

impl Mapping {
    /// The map that changes nothing.
    pub const IDENTITY: Mapping = Mapping {
        pre: Affine::IDENTITY,
        curve: None,
        post: Affine::IDENTITY,
    };

    /// This map followed by mapping node `kind` (a mapping node below the ones this map
    /// composes), whose source has `source_dims`. `None` when a second curve would follow the
    /// first (impossible in a graph whose dims check out).
    pub fn then(&self, kind: &MapKind, source_dims: u32) -> Option<Mapping> {
        let curve = match *kind {
            MapKind::Transform { .. } => {
                let t = Affine::transform(kind, source_dims);
                let mut out = *self;
                if self.curve.is_some() {
                    out.post = t.after(&self.post);
                } else {
                    out.pre = t.after(&self.pre);
                }
                return Some(out);
            }
            MapKind::Sphere { radius } => Curve::Sphere { radius },
            MapKind::Torus { radius_x, radius_y } => Curve::Torus {
                radius: [radius_x, radius_y],
            },
            MapKind::Cylinder { radius } => Curve::Cylinder { radius },
            MapKind::CubeFace { radius, .. } => Curve::Radial { radius },
        };
        if self.curve.is_some() {
            return None;
        }
        // A cube face's plane is affine in the view position: the face's point, then the
        // projection onto the sphere.
        let pre = match *kind {
            MapKind::CubeFace { face, .. } => {
                let [center, a, b] = cube_face_basis(face);
                let mut plane = Affine {
                    m: [[0.0; 4]; 4],
                    t: [0.0; 4],
                };
                for i in 0..3 {
                    plane.m[i][0] = 2.0 * a[i];
                    plane.m[i][1] = 2.0 * b[i];
                    plane.t[i] = center[i] - a[i] - b[i];
                }
                plane.after(&self.pre)
            }
            _ => self.pre,
        };
        Some(Mapping {
            pre,
            curve: Some(curve),
            post: Affine::IDENTITY,
        })
    }

    /// The mapped position of view position `p`, in f64.
    pub fn apply(&self, p: [f64; 4]) -> [f64; 4] {
        let u = self.pre.apply(p);
        match self.curve {
            None => u,
            Some(c) => self.post.apply(c.apply(u).0),
        }
    }

    /// The mapped position of `p` and its Jacobian: `columns[b]` = d s / d p_b (4 view axes).
    pub fn jacobian(&self, p: [f64; 4]) -> ([f64; 4], [[f64; 4]; 4]) {
        let u = self.pre.apply(p);
        let column = |m: &[[f64; 4]; 4], b: usize| -> [f64; 4] { std::array::from_fn(|i| m[i][b]) };
        match self.curve {
            None => (u, std::array::from_fn(|b| column(&self.pre.m, b))),
            Some(c) => {
                let (v, dv) = c.apply(u);
                let columns = std::array::from_fn(|b| {
                    // d v / d p_b = dv/du.x * du.x/dp_b + dv/du.y * du.y/dp_b
                    let dvb: [f64; 4] =
                        std::array::from_fn(|i| (0..3).map(|k| dv[k][i] * self.pre.m[k][b]).sum());
                    std::array::from_fn(|i| (0..4).map(|j| self.post.m[i][j] * dvb[j]).sum())
                });
                (self.post.apply(v), columns)
            }
        }
    }

    /// The numbers the kernels evaluate the map with, for pixel positions of a view whose
    /// pixel (0, 0, 0) lies at `origin` and whose pixels step by `step` per axis, and the f64
    /// constant the host adds to every mapped position before the lattice split (see the
    /// module docs): `s = reference + map_position(uniform, pixel)`.
    pub fn uniform(&self, origin: [f64; 3], step: [f64; 3]) -> (MappingUniform, [f64; 4]) {
        let mut u = MappingUniform::zeroed();
        let origin4 = [origin[0], origin[1], origin[2], 0.0];
        let start = self.pre.apply(origin4);
        for (b, &step_b) in step.iter().enumerate() {
            for i in 0..4 {
                u.pre[b][i] = (self.pre.m[i][b] * step_b) as f32;
                u.pre_p[b][i] = self.pre.m[i][b] as f32;
            }
        }
        u.kind = [MAP_CURVE_NONE, 1, 0, 0];
        let Some(curve) = self.curve else {
            return (u, start);
        };
        u.pre[3] = start.map(|v| v as f32);
        u.curve = [curve.radii()[0] as f32, curve.radii()[1] as f32, 0.0, 0.0];
        for j in 0..4 {
            for i in 0..4 {
                u.post[j][i] = self.post.m[i][j] as f32;
            }
        }
        u.kind[0] = curve.code();
        (u, self.post.t)
    }

    /// The box (origin, extent per axis) that holds the mapped positions of the view box
    /// `origin` + [0, `extent`]: the corners of the affine images, the curve's bounds.
    pub fn bounds(&self, origin: [f64; 3], extent: [f64; 3]) -> ([f64; 4], [f64; 4]) {
        let corners = |lo: [f64; 4], hi: [f64; 4], map: &Affine| -> ([f64; 4], [f64; 4]) {
            let mut min = [f64::INFINITY; 4];
            let mut max = [f64::NEG_INFINITY; 4];
            for corner in 0..16u32 {
                let p: [f64; 4] =
                    std::array::from_fn(|a| if corner >> a & 1 == 0 { lo[a] } else { hi[a] });
                let q = map.apply(p);
                for a in 0..4 {
                    min[a] = min[a].min(q[a]);
                    max[a] = max[a].max(q[a]);
                }
            }
            (min, max)
        };
        let lo = [origin[0], origin[1], origin[2], 0.0];
        let hi = [
            origin[0] + extent[0],
            origin[1] + extent[1],
            origin[2] + extent[2],
            0.0,
        ];
        let (min, max) = corners(lo, hi, &self.pre);
        let (min, max) = match self.curve {
            None => (min, max),
            Some(curve) => {
                let [r, q] = curve.radii();
                let (cmin, cmax) = match curve {
                    Curve::Sphere { .. } => ([-r, -r, -r, 0.0], [r, r, r, 0.0]),
                    Curve::Torus { .. } => ([-r, -r, -q, -q], [r, r, q, q]),
                    Curve::Cylinder { .. } => ([-r, -r, min[1], 0.0], [r, r, max[1], 0.0]),
                    Curve::Radial { .. } => ([-r, -r, -r, 0.0], [r, r, r, 0.0]),
                };
                corners(cmin, cmax, &self.post)
            }
        };
        (min, std::array::from_fn(|a| max[a] - min[a]))
    }
}

/// The problems of mapping node `id` whose source has `dims`: a curved mapping's source of
/// the wrong dims, a 2D rotation of a 3D source or the other way round.
pub(crate) fn check_dims(id: &str, node: &MappingNode, dims: u32) -> Vec<crate::error::GraphIssue> {
    let issue = |field: &str, message: String| crate::error::GraphIssue {
        node: Some(id.to_string()),
        field: field.to_string(),
        message,
    };
    let mut issues = Vec::new();
    match &node.map {
        MapKind::Transform { rotate, angle, .. } => {
            if dims == 2 && *angle != 0.0 {
                issues.push(issue(
                    "angle",
                    format!(
                        "rotates 3D and 4D sources; '{}' is 2D: use \"rotate\" (degrees)",
                        node.source
                    ),
                ));
            }
            if dims > 2 && *rotate != 0.0 {
                issues.push(issue(
                    "rotate",
                    format!(
                        "rotates 2D sources; '{}' is {dims}D: use \"axis\" and \"angle\"",
                        node.source
                    ),
                ));
            }
        }
        kind => {
            let want = kind.source_dims().unwrap_or(dims);
            if dims != want {
                issues.push(issue(
                    "source",
                    format!(
                        "dims mismatch: a {} maps a {want}D source, and '{}' is {dims}D (set \"dims\": {want} on its family)",
                        kind.name(),
                        node.source
                    ),
                ));
            }
        }
    }
    issues
}
