//! The mapping node kinds' entries of the node schema (`transform`, `sphere`, `torus`,
//! `cylinder`; see `graph::mapping`): their own file so that the schema's other sections and
//! these change apart.

use super::limits::MAX_COORDINATE;
use super::schema::{
    Category, Differentiable, DimsRule, FieldKind, FieldSpec, FieldValue, GradientSpec, InputCount,
    InputSpec, NodeSchema, RefKind,
};

/// Largest magnitude of a transform's `scale` (2^20): the mapped view stays within the
/// lattice bounds the view checks hold every chain to.
pub const MAX_MAP_SCALE: f64 = (1u64 << 20) as f64;
/// Largest magnitude of an angle, in degrees.
pub const MAX_ANGLE: f64 = 1e6;
/// Largest radius of a curved mapping (2^20).
pub const MAX_RADIUS: f64 = (1u64 << 20) as f64;

/// One mapping node kind: its name, summary, fields and dims.
pub struct MappingDecl {
    /// The JSON `type`.
    pub name: &'static str,
    /// One line.
    pub summary: &'static str,
    /// Its fields.
    pub fields: &'static [FieldSpec],
    /// How its dims follow.
    pub dims: DimsRule,
}

const fn radius(name: &'static str, default: f64, doc: &'static str) -> FieldSpec {
    FieldSpec::number(name, default, doc)
        .range(0.0, MAX_RADIUS)
        .above(0.0)
        .soft(0.05, 4.0)
}

/// 1 / (2 pi): a circle of this radius is one unit around, so a torus or cylinder of a
/// source at frequency f has about f features across the unit view, as the plane has.
const UNIT_CIRCUMFERENCE: f64 = 0.159_154_943_091_895_35;

/// Every mapping node kind.
pub const MAPPINGS: &[MappingDecl] = &[
    MappingDecl {
        name: "transform",
        summary: "the source (any subgraph) sampled at rotate(scale * p) + translate: scale per axis first, then the rotation (2D: `rotate` degrees counterclockwise, x towards y; 3D and 4D: `angle` degrees about `axis`, right-handed, on x, y, z), then translate per axis; the pattern moves the opposite way",
        fields: &[
            FieldSpec::axes("translate", 0.0, "added to the position last: a number, or one per axis of the source")
                .magnitude(MAX_COORDINATE)
                .soft(-4.0, 4.0),
            FieldSpec::number("rotate", 0.0, "2D sources: rotation of the position in degrees")
                .magnitude(MAX_ANGLE)
                .soft(-180.0, 180.0),
            FieldSpec {
                default: Some(FieldValue::Triple([0.0, 0.0, 1.0])),
                ..FieldSpec::new("axis", FieldKind::Triple, "3D and 4D sources: the rotation axis [x, y, z], not all 0")
            }
            .magnitude(MAX_COORDINATE),
            FieldSpec::number("angle", 0.0, "3D and 4D sources: rotation about `axis` in degrees")
                .magnitude(MAX_ANGLE)
                .soft(-180.0, 180.0),
            FieldSpec::axes("scale", 1.0, "multiplies the position first: a number, or one per axis of the source")
                .magnitude(MAX_MAP_SCALE)
                .soft(-4.0, 4.0),
        ],
        dims: DimsRule::Source,
    },
    MappingDecl {
        name: "sphere",
        summary: "a 3D source on a sphere, as a 2D field for equirectangular images: x in [0, 1) is the longitude in turns, y in [0, 1] the polar angle from the +z pole (y = 0) to the -z pole (y = 1); the source at radius * (sin t cos l, sin t sin l, cos t), t = pi y, l = 2 pi x",
        fields: &[radius("radius", 1.0, "the sphere's radius in the source's units")],
        dims: DimsRule::Fixed { dims: 2, source: 3 },
    },
    MappingDecl {
        name: "torus",
        summary: "a 4D source around two circles, as a 2D field that tiles with period 1 in x and y (tileable simplex, OpenSimplex2, any family): the source at (radius_x cos 2 pi x, radius_x sin 2 pi x, radius_y cos 2 pi y, radius_y sin 2 pi y)",
        fields: &[
            radius("radius_x", UNIT_CIRCUMFERENCE, "radius of the circle x turns around (source x, y); the default is one unit around"),
            radius("radius_y", UNIT_CIRCUMFERENCE, "radius of the circle y turns around (source z, w); the default is one unit around"),
        ],
        dims: DimsRule::Fixed { dims: 2, source: 4 },
    },
    MappingDecl {
        name: "cylinder",
        summary: "a 3D source on a cylinder around z, as a 2D field that tiles with period 1 in x: the source at (radius cos 2 pi x, radius sin 2 pi x, y)",
        fields: &[radius("radius", UNIT_CIRCUMFERENCE, "the cylinder's radius; the default is one unit around")],
        dims: DimsRule::Fixed { dims: 2, source: 3 },
    },
    MappingDecl {
        name: "cube_face",
        summary: "a 3D source on one face of a cube map (what `bake --cube-map` bakes six of): x, y in [0, 1] are the face's s, t in the OpenGL / Vulkan convention (t = 0 on the image's first row), the direction projected onto the sphere of the radius, so faces meet at their edges",
        fields: &[
            FieldSpec {
                options: &super::mapping::CUBE_FACES,
                default: Some(FieldValue::Name("px")),
                ..FieldSpec::new("face", FieldKind::Choice, "the face: px, nx, py, ny, pz, nz (+x, -x, +y, -y, +z, -z)")
            },
            radius("radius", 1.0, "the sphere's radius in the source's units"),
        ],
        dims: DimsRule::Fixed { dims: 2, source: 3 },
    },
];

/// The schema entry of a mapping kind.
pub fn mapping_node(d: &MappingDecl) -> NodeSchema {
    NodeSchema {
        type_name: d.name,
        category: Category::Mapping,
        summary: d.summary,
        inputs: vec![InputSpec {
            name: "source",
            of: RefKind::Any,
            count: InputCount::One,
            doc: "the node sampled at the mapped positions (any subgraph)",
        }],
        fields: d.fields.to_vec(),
        dims: d.dims,
        gradient: GradientSpec {
            differentiable: Differentiable::Always,
            without: vec![],
            crease: None,
        },
        code: None,
    }
}
