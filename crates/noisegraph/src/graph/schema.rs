//! The node schema: every node kind of the graph format, declared once.
//!
//! [`schema()`] lists each kind with its JSON `type` name, its [`Category`], its inputs
//! (`source` for one, `inputs` for several, `displace` for a warp's fields), its fields (kind,
//! default, bounds, a one-line doc), how its dimension follows from its inputs
//! ([`DimsRule`]), whether and where it differentiates ([`GradientSpec`]) and, for the
//! fractal remaps and point-wise operations, the op code the kernels switch on (the named
//! constants of `shaders/lib/ops.wgsl`, [`crate::twin::lib::ops`]). Families build their
//! entries from their own [`ParamSpec`]s and [`Family`] descriptions; nothing is repeated.
//!
//! Its readers: the JSON parser takes every default and bound from here
//! (`graph/json.rs`), the structural checks the kinds of node each input accepts
//! (`graph/validate.rs`), [`NoiseGraph::dims_of`](super::NoiseGraph::dims_of) the dims rule,
//! `noisegraph serve` serialises it for the page's controls (`/api/meta`), and
//! `tests/schema.rs` holds the README's node tables to [`markdown_tables`]. It serialises
//! with serde: `serde_json::to_value(noisegraph::graph::schema())`.
//!
//! # Adding a node kind
//!
//! - A family: see "Adding a family" in docs/ARCHITECTURE.md; its [`Family::params`] are its
//!   fields here, with no other change.
//! - A point-wise operation: a variant of [`PointwiseOp`](super::PointwiseOp) (`node.rs`:
//!   name, arity, code and constants), its op code constant and its value and derivative in
//!   `shaders/lib/ops.wgsl` and its twin `src/twin/lib/ops.rs` (both `combine_op` and
//!   `combine_op_grad`), one [`OpDecl`] in [`POINTWISE`] below (doc, fields, crease), and its
//!   construction from the parsed fields in `graph/json.rs` (`pointwise_op`). The grid path,
//!   point queries and the WGSL export then all run it.
//! - Then regenerate the README's tables (`NOISEGRAPH_UPDATE_README=1 cargo test --test
//!   schema`).

use std::sync::OnceLock;

use serde::Serialize;

use super::curve::{CurveMode, MAX_CURVE_COORDINATE};
use super::limits::{MAX_COORDINATE, MAX_FREQUENCY, MAX_SCALE, MAX_VALUE, MIN_FREQUENCY};
use super::MAX_OCTAVES;
use crate::family::{self, Family, FamilyParams, ParamKind, ParamSpec, ParamValue};
use crate::twin::lib::curve::MAX_CURVE_POINTS;
use crate::twin::lib::{ops, shaping};

/// What a node is, for the parser and for editors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// A noise family evaluated at a position: a generator.
    Family,
    /// Octaves of a family node (`fbm`, `ridged`, `billow`): a generator.
    Fractal,
    /// A generator evaluated at displaced positions.
    Warp,
    /// A point-wise operation on other nodes' fields.
    Pointwise,
    /// Its source sampled at mapped positions (`transform`, `sphere`, `torus`, `cylinder`).
    Mapping,
}

/// Which nodes an input may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefKind {
    /// A family node.
    Family,
    /// A generator: a family or fractal node.
    Generator,
    /// Any node.
    Any,
}

impl RefKind {
    /// Whether a node of `category` may be named.
    pub fn accepts(self, category: Category) -> bool {
        match self {
            RefKind::Family => category == Category::Family,
            RefKind::Generator => matches!(category, Category::Family | Category::Fractal),
            RefKind::Any => true,
        }
    }
}

/// How many node ids an input holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputCount {
    /// One id, a string (`"source": "base"`).
    One,
    /// A list of exactly this many ids (`"inputs": ["a", "b"]`).
    List(u32),
    /// A list of one id per axis of the node's source (a warp's `displace`).
    PerSourceAxis,
}

/// One input of a node kind: a field that names other nodes.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct InputSpec {
    /// Its name in the JSON node: `source`, `inputs` or `displace`.
    pub name: &'static str,
    /// Which nodes it may name.
    pub of: RefKind,
    /// How many.
    pub count: InputCount,
    /// One line.
    pub doc: &'static str,
}

/// The kind of a field's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldKind {
    /// A finite number within `min` / `max`.
    Number,
    /// An integer within `min` / `max`.
    Integer,
    /// A number for every axis, or a list of one per axis (`frequency`, `offset`).
    Axes,
    /// One of `options` (names).
    Choice,
    /// Absent (no wrap) or a positive integer number of cells, or one per axis.
    Period,
    /// A list of exactly two numbers (`remap`'s `from`, `to`).
    Pair,
    /// One of the family's `dims`.
    Dims,
    /// A list of `[x, y]` points (`curve`'s `points`), as many as `items` allows, each
    /// coordinate within `min` / `max`.
    Points,
    /// A list of exactly three numbers (`transform`'s rotation `axis`).
    Triple,
}

/// A field's default (or suggested initial) value.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FieldValue {
    /// A number (also the default of an `axes` field, every axis).
    Number(f64),
    /// An integer.
    Integer(i64),
    /// An option's name.
    Name(&'static str),
    /// Two numbers.
    Pair([f64; 2]),
    /// A list of `[x, y]` points.
    Points(&'static [[f64; 2]]),
    /// Three numbers.
    Triple([f64; 3]),
}

/// One field of a node kind (not an input): its kind, default, bounds and doc.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FieldSpec {
    /// Its name in the JSON node.
    pub name: &'static str,
    /// The kind of value.
    pub kind: FieldKind,
    /// One line.
    pub doc: &'static str,
    /// What the parser fills in when the field is absent (`None`: absent means off, as
    /// `period`, or the default depends on the node, as a family's `dims`: its first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<FieldValue>,
    /// Smallest accepted value (of each axis or item).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    /// Largest accepted value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// `min` itself is refused.
    #[serde(skip_serializing_if = "is_false")]
    pub exclusive_min: bool,
    /// The accepted names of a `choice`.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub options: &'static [&'static str],
    /// For editors: a slider's span where a bound is open or far.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub soft: Option<[f64; 2]>,
    /// For editors: a logarithmic slider.
    #[serde(skip_serializing_if = "is_false")]
    pub log: bool,
    /// The field only applies to nodes of at least this many dims (`z`: 3, `w`: 4).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_dims: Option<u32>,
    /// For editors: the value a new node gets, where it differs from the default.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial: Option<FieldValue>,
    /// The field must be given (it has no default).
    #[serde(skip_serializing_if = "is_false")]
    pub required: bool,
    /// The fewest and most items a list field (`points`) accepts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<[u32; 2]>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl FieldSpec {
    pub(super) const fn new(name: &'static str, kind: FieldKind, doc: &'static str) -> Self {
        FieldSpec {
            name,
            kind,
            doc,
            default: None,
            min: None,
            max: None,
            exclusive_min: false,
            options: &[],
            soft: None,
            log: false,
            min_dims: None,
            initial: None,
            required: false,
            items: None,
        }
    }
    pub(super) const fn number(name: &'static str, default: f64, doc: &'static str) -> Self {
        FieldSpec {
            default: Some(FieldValue::Number(default)),
            ..FieldSpec::new(name, FieldKind::Number, doc)
        }
    }
    const fn integer(name: &'static str, default: i64, doc: &'static str) -> Self {
        FieldSpec {
            default: Some(FieldValue::Integer(default)),
            ..FieldSpec::new(name, FieldKind::Integer, doc)
        }
    }
    pub(super) const fn axes(name: &'static str, default: f64, doc: &'static str) -> Self {
        FieldSpec {
            default: Some(FieldValue::Number(default)),
            ..FieldSpec::new(name, FieldKind::Axes, doc)
        }
    }
    /// A pair of numbers with no default: the node must give it.
    const fn required_pair(name: &'static str, doc: &'static str) -> Self {
        FieldSpec {
            required: true,
            ..FieldSpec::new(name, FieldKind::Pair, doc)
        }
    }
    /// Accepted values within [-limit, limit].
    pub(super) const fn magnitude(self, limit: f64) -> Self {
        FieldSpec {
            min: Some(-limit),
            max: Some(limit),
            ..self
        }
    }
    pub(super) const fn range(self, min: f64, max: f64) -> Self {
        FieldSpec {
            min: Some(min),
            max: Some(max),
            ..self
        }
    }
    /// Accepted values above `min` (`min` refused).
    pub(super) const fn above(self, min: f64) -> Self {
        FieldSpec {
            min: Some(min),
            exclusive_min: true,
            ..self
        }
    }
    pub(super) const fn soft(self, lo: f64, hi: f64) -> Self {
        FieldSpec {
            soft: Some([lo, hi]),
            ..self
        }
    }
    const fn log(self) -> Self {
        FieldSpec { log: true, ..self }
    }
    const fn min_dims(self, dims: u32) -> Self {
        FieldSpec {
            min_dims: Some(dims),
            ..self
        }
    }
    pub(super) const fn initial(self, value: FieldValue) -> Self {
        FieldSpec {
            initial: Some(value),
            ..self
        }
    }

    /// The default as a number (numbers, integers and axes fields).
    pub fn default_number(&self) -> Option<f64> {
        match self.default {
            Some(FieldValue::Number(x)) => Some(x),
            Some(FieldValue::Integer(i)) => Some(i as f64),
            _ => None,
        }
    }
    /// The default as an integer (integer fields).
    pub fn default_integer(&self) -> Option<i64> {
        match self.default {
            Some(FieldValue::Integer(i)) => Some(i),
            _ => None,
        }
    }
    /// The default of a points field.
    pub fn default_points(&self) -> Option<&'static [[f64; 2]]> {
        match self.default {
            Some(FieldValue::Points(p)) => Some(p),
            _ => None,
        }
    }
    /// The default of a pair field.
    pub fn default_pair(&self) -> Option<[f64; 2]> {
        match self.default {
            Some(FieldValue::Pair(p)) => Some(p),
            _ => None,
        }
    }
}

impl From<&ParamSpec> for FieldSpec {
    /// A family's own parameter as a field.
    fn from(spec: &ParamSpec) -> Self {
        match spec.kind {
            ParamKind::Number { default, min, max } => {
                FieldSpec::number(spec.name, default, spec.help).range(min, max)
            }
            ParamKind::Integer { default, min, max } => FieldSpec {
                // Wide integer spans (wave's `waves`, gabor's `impulses`) slide logarithmically.
                log: min > 0 && max / min.max(1) >= 100,
                ..FieldSpec::integer(spec.name, default, spec.help).range(min as f64, max as f64)
            },
            ParamKind::Choice { options, default } => FieldSpec {
                options,
                default: Some(FieldValue::Name(default)),
                ..FieldSpec::new(spec.name, FieldKind::Choice, spec.help)
            },
        }
    }
}

/// How a node's coordinate dimension follows (see [`NoiseGraph::dims_of`](super::NoiseGraph::dims_of)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum DimsRule {
    /// Its own `dims` field, one of `supported` (the first when absent): a family.
    Own {
        /// The dims the family has.
        supported: &'static [u32],
    },
    /// Its `source`'s: fractals and warps.
    Source,
    /// The largest of its inputs', 2 with none: point-wise nodes.
    MaxOfInputs,
    /// Always `dims`, of a source that must have `source` dims: the curved mappings
    /// (`sphere`: a 3D source as a 2D field).
    Fixed {
        /// The node's dims.
        dims: u32,
        /// The dims its source must have.
        source: u32,
    },
}

/// Whether a node kind differentiates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Differentiable {
    /// Always, by the chain rule through its inputs.
    Always,
    /// Where the family has a gradient form: all but the variants in `GradientSpec::without`.
    ByVariant,
}

/// Whether and where a node kind differentiates. Every path (the grid's gradient bakes,
/// point queries, the exported `NAME_grad`) takes the same derivative, with the same
/// one-sided choice at a crease (sign(0) = 0: see `shaders/lib/ops.wgsl`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GradientSpec {
    /// Always, or by variant.
    pub differentiable: Differentiable,
    /// The variants without a gradient form, in words (`falloff: classic (3D, 4D)`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub without: Vec<String>,
    /// Where the node has no derivative and what every path takes there; `None` where it is
    /// smooth wherever its inputs are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crease: Option<&'static str>,
}

/// The op code a kernel switches on, with the name of its constant in the WGSL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OpCode {
    /// The constant's name (`OP_ADD`, `FRACTAL_RIDGED`).
    pub constant: &'static str,
    /// Its value.
    pub value: u32,
}

/// One node kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeSchema {
    /// The JSON `type`.
    #[serde(rename = "type")]
    pub type_name: &'static str,
    /// What it is.
    pub category: Category,
    /// One line: what it computes.
    pub summary: &'static str,
    /// The fields that name other nodes, in argument order.
    pub inputs: Vec<InputSpec>,
    /// Its other fields, in the order the JSON writer writes them.
    pub fields: Vec<FieldSpec>,
    /// How its dimension follows.
    pub dims: DimsRule,
    /// Whether and where it differentiates.
    pub gradient: GradientSpec,
    /// The fractal remap or point-wise op code (`None` for families and warps).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<OpCode>,
}

impl NodeSchema {
    /// The field named `name`.
    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.name == name)
    }
    /// The input named `name`.
    pub fn input(&self, name: &str) -> Option<&InputSpec> {
        self.inputs.iter().find(|i| i.name == name)
    }
}

/// Every node kind, in the order of the README's tables: families (registry order),
/// fractals, warp, point-wise operations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Schema {
    /// The node kinds.
    pub nodes: Vec<NodeSchema>,
}

impl Schema {
    /// The kind whose JSON `type` is `type_name`.
    pub fn node(&self, type_name: &str) -> Option<&NodeSchema> {
        self.nodes.iter().find(|n| n.type_name == type_name)
    }
    /// The type names of one category.
    pub fn types(&self, category: Category) -> Vec<&'static str> {
        self.nodes
            .iter()
            .filter(|n| n.category == category)
            .map(|n| n.type_name)
            .collect()
    }
}

/// The schema of every node kind (built once).
pub fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let mut nodes: Vec<NodeSchema> =
            family::registry().iter().map(|f| family_node(*f)).collect();
        nodes.extend(FRACTALS.iter().map(fractal_node));
        nodes.push(warp_node());
        nodes.extend(POINTWISE.iter().map(pointwise_node));
        nodes.extend(REMAPS_AND_BLENDS.iter().map(pointwise_node));
        nodes.extend(
            super::mapping_schema::MAPPINGS
                .iter()
                .map(super::mapping_schema::mapping_node),
        );
        Schema { nodes }
    })
}

/// The schema of one node kind (see [`schema`]).
pub fn node_schema(type_name: &str) -> Option<&'static NodeSchema> {
    schema().node(type_name)
}

// ------------------------------------------------------------------------------- families

const SEED_OFFSET: FieldSpec =
    FieldSpec::integer("seed_offset", 0, "added (wrapping) to the graph seed").soft(0.0, 100.0);

/// The fields every family node has, before its own parameters.
pub const FAMILY_FIELDS: &[FieldSpec] = &[
    FieldSpec::axes(
        "frequency",
        1.0,
        "lattice cells per unit: a number, or one per axis of the node's dims",
    )
    .range(MIN_FREQUENCY, MAX_FREQUENCY)
    .soft(0.25, 64.0)
    .log(),
    SEED_OFFSET,
    FieldSpec::axes(
        "offset",
        0.0,
        "added to the position before scaling by frequency: a number, or one per axis",
    )
    .magnitude(MAX_COORDINATE)
    .soft(-10.0, 10.0),
    FieldSpec::new(
        "dims",
        FieldKind::Dims,
        "the dimension the family is evaluated in (default: its first)",
    ),
    FieldSpec::number(
        "z",
        0.0,
        "slice coordinate of 3D and 4D noise (added to the view's z)",
    )
    .magnitude(MAX_COORDINATE)
    .soft(-4.0, 4.0)
    .min_dims(3),
    FieldSpec::number("w", 0.0, "slice coordinate of 4D noise")
        .magnitude(MAX_COORDINATE)
        .soft(-4.0, 4.0)
        .min_dims(4),
    FieldSpec {
        min: Some(1.0),
        ..FieldSpec::new(
            "period",
            FieldKind::Period,
            "tileable output: the lattice wraps after this many cells (an integer, or one per axis; absent: no wrap)",
        )
    },
];

fn family_node(f: &'static dyn Family) -> NodeSchema {
    let fields = FAMILY_FIELDS
        .iter()
        .filter(|s| s.name != "period" || f.supports_period())
        .copied()
        .chain(f.params().iter().map(FieldSpec::from))
        .collect();
    NodeSchema {
        type_name: f.name(),
        category: Category::Family,
        summary: f.summary(),
        inputs: vec![],
        fields,
        dims: DimsRule::Own {
            supported: f.dims(),
        },
        gradient: GradientSpec {
            differentiable: Differentiable::ByVariant,
            without: without_gradient(f),
            crease: None,
        },
        code: None,
    }
}

/// Every declared parameter at its default.
pub fn default_params(specs: &[ParamSpec]) -> FamilyParams {
    let mut params = FamilyParams::default();
    for spec in specs {
        let value = match spec.kind {
            ParamKind::Number { default, .. } => ParamValue::Number(default),
            ParamKind::Integer { default, .. } => ParamValue::Integer(default),
            ParamKind::Choice { options, default } => {
                ParamValue::Choice(options.iter().position(|o| *o == default).unwrap_or(0) as u32)
            }
        };
        params.values.insert(spec.name.to_string(), value);
    }
    params
}

/// The family's variants (each dims at the defaults, each option of each choice) that have
/// no gradient form, in words.
fn without_gradient(f: &'static dyn Family) -> Vec<String> {
    let defaults = default_params(f.params());
    let dims_list = |params: &FamilyParams| -> Vec<String> {
        f.dims()
            .iter()
            .filter(|&&d| f.wgsl_grad_call(d, params).is_none())
            .map(|d| format!("{d}D"))
            .collect()
    };
    let mut out = Vec::new();
    let plain = dims_list(&defaults);
    if !plain.is_empty() {
        out.push(format!("the defaults in {}", plain.join(", ")));
    }
    for spec in f.params() {
        if let ParamKind::Choice { options, .. } = spec.kind {
            for (i, option) in options.iter().enumerate() {
                let mut params = defaults.clone();
                params
                    .values
                    .insert(spec.name.to_string(), ParamValue::Choice(i as u32));
                let dims = dims_list(&params);
                if !dims.is_empty() && dims != plain {
                    out.push(format!("{}: {option} ({})", spec.name, dims.join(", ")));
                }
            }
        }
    }
    out
}

// ------------------------------------------------------------------------------- fractals

const FRACTAL_INPUTS: &[InputSpec] = &[InputSpec {
    name: "source",
    of: RefKind::Family,
    count: InputCount::One,
    doc: "the family node whose octaves are summed",
}];

/// The fields of every fractal node.
pub const FRACTAL_FIELDS: &[FieldSpec] = &[
    FieldSpec::integer("octaves", 6, "number of octaves").range(1.0, MAX_OCTAVES as f64),
    FieldSpec::number("lacunarity", 2.0, "frequency multiplier per octave")
        .above(0.0)
        .soft(1.0, 4.0),
    FieldSpec::number("gain", 0.5, "amplitude multiplier per octave").soft(0.0, 1.0),
    SEED_OFFSET,
    FieldSpec::axes(
        "offset",
        0.0,
        "added to the position, on top of the source's offset: a number, or one per axis of the source",
    )
    .magnitude(MAX_COORDINATE)
    .soft(-10.0, 10.0),
];

/// Largest accepted `derivative_weight`: a weight of 1000 already flattens every octave
/// after a slope of 0.1 lattice units to a thousandth.
pub const MAX_DERIVATIVE_WEIGHT: f64 = 1000.0;

/// Largest accepted |`signal_offset`| of `hybrid` and `hetero`.
pub const MAX_SIGNAL_OFFSET: f64 = 100.0;

/// `derivative_weight` (fbm, ridged, billow).
const DERIVATIVE_WEIGHT: FieldSpec = FieldSpec::number(
    "derivative_weight",
    0.0,
    "k: each octave divided by 1 + k |sum of the octaves' noise gradients so far|^2 (Quilez); 0 is the plain sum",
)
.range(0.0, MAX_DERIVATIVE_WEIGHT)
.soft(0.0, 4.0);

/// `signal_offset` (hybrid, hetero): Musgrave's `offset`, named apart from the fractals'
/// position `offset`.
const fn signal_offset(default: f64) -> FieldSpec {
    FieldSpec::number(
        "signal_offset",
        default,
        "added to each octave's noise before it is weighted (Musgrave's offset)",
    )
    .range(-MAX_SIGNAL_OFFSET, MAX_SIGNAL_OFFSET)
    .soft(-1.0, 2.0)
}

/// A fractal kind's declaration.
struct FractalDecl {
    name: &'static str,
    code: OpCode,
    summary: &'static str,
    crease: Option<&'static str>,
    /// Its `gain` default where it is not [`FRACTAL_FIELDS`]' 0.5.
    gain: Option<f64>,
    /// Its fields after [`FRACTAL_FIELDS`].
    extra: &'static [FieldSpec],
}

const FRACTALS: &[FractalDecl] = &[
    FractalDecl {
        name: "fbm",
        code: OpCode {
            constant: "FRACTAL_FBM",
            value: ops::FRACTAL_FBM,
        },
        summary: "octave k at frequency lacunarity^k, amplitude gain^k, seed + k; the sum divided by the sum of the amplitudes",
        crease: None,
        gain: None,
        extra: &[DERIVATIVE_WEIGHT],
    },
    FractalDecl {
        name: "ridged",
        code: OpCode {
            constant: "FRACTAL_RIDGED",
            value: ops::FRACTAL_RIDGED,
        },
        summary: "as fbm, each octave n remapped by (1 - |n|)^2",
        crease: Some("where an octave's sample n is 0: slope 0 (sign(0) = 0, the mean of the two sides)"),
        gain: None,
        extra: &[DERIVATIVE_WEIGHT],
    },
    FractalDecl {
        name: "billow",
        code: OpCode {
            constant: "FRACTAL_BILLOW",
            value: ops::FRACTAL_BILLOW,
        },
        summary: "as fbm, each octave n remapped by 2|n| - 1",
        crease: Some("where an octave's sample n is 0: slope 0 (sign(0) = 0, the mean of the two sides)"),
        gain: None,
        extra: &[DERIVATIVE_WEIGHT],
    },
    // issue 31 item 4: the fractals added after fbm, ridged and billow.
    FractalDecl {
        name: "pingpong",
        code: OpCode {
            constant: "FRACTAL_PINGPONG",
            value: ops::FRACTAL_PINGPONG,
        },
        summary: "as fbm, each octave n folded back and forth (FastNoise2's ping-pong): t = (n + 1) * 2 wrapped into [0, 2), then 2 (t < 1 ? t : 2 - t) - 1",
        crease: Some("at a fold (t a whole number): the branch the value takes, rising where t wraps to 0, falling where t = 1"),
        gain: None,
        extra: &[],
    },
    FractalDecl {
        name: "hybrid",
        code: OpCode {
            constant: "FRACTAL_HYBRID",
            value: ops::FRACTAL_HYBRID,
        },
        summary: "Musgrave's hybrid multifractal (Texturing & Modeling, ch. 16): signal_k = (n_k + signal_offset) gain^k; sum += weight signal_k; weight = clamp(weight signal_k, 0, 1), from weight 1; the sum divided by the sum of the amplitudes",
        crease: Some("where weight x signal reaches 0 or 1: the clamp's inside slope"),
        gain: Some(HYBRID_GAIN),
        extra: &[signal_offset(0.7)],
    },
    FractalDecl {
        name: "hetero",
        code: OpCode {
            constant: "FRACTAL_HETERO",
            value: ops::FRACTAL_HETERO,
        },
        summary: "Musgrave's heterogeneous terrain (Texturing & Modeling, ch. 16): signal_k = (n_k + signal_offset) gain^k; value = signal_0, then value += signal_k value; not normalized",
        crease: None,
        // Musgrave's H = 0.25 (gain 0.84) makes the highlands grainy at lacunarity 2.
        gain: Some(0.6),
        extra: &[signal_offset(0.4)],
    },
];

/// Musgrave's H = 0.25 at lacunarity 2: gain 2^-0.25, the `gain` default of `hybrid`.
const HYBRID_GAIN: f64 = 0.84;

fn fractal_node(d: &FractalDecl) -> NodeSchema {
    NodeSchema {
        type_name: d.name,
        category: Category::Fractal,
        summary: d.summary,
        inputs: FRACTAL_INPUTS.to_vec(),
        fields: FRACTAL_FIELDS
            .iter()
            .map(|f| match (f.name, d.gain) {
                ("gain", Some(gain)) => FieldSpec {
                    default: Some(FieldValue::Number(gain)),
                    ..*f
                },
                _ => *f,
            })
            .chain(d.extra.iter().copied())
            .collect(),
        dims: DimsRule::Source,
        gradient: GradientSpec {
            differentiable: Differentiable::Always,
            without: vec![],
            crease: d.crease,
        },
        code: Some(d.code),
    }
}

// ----------------------------------------------------------------------------------- warp

fn warp_node() -> NodeSchema {
    NodeSchema {
        type_name: "warp",
        category: Category::Warp,
        summary: "the source evaluated at p + amplitude * (d_x, d_y[, d_z[, d_w]])",
        inputs: vec![
            InputSpec {
                name: "source",
                of: RefKind::Generator,
                count: InputCount::One,
                doc: "the generator (family or fractal node) that is warped",
            },
            InputSpec {
                name: "displace",
                of: RefKind::Any,
                count: InputCount::PerSourceAxis,
                doc: "one displacement field per axis of the source",
            },
        ],
        fields: vec![FieldSpec::number(
            "amplitude",
            1.0,
            "scale of the displacement, in position units",
        )
        .magnitude(MAX_COORDINATE)
        .soft(0.0, 2.0)],
        dims: DimsRule::Source,
        gradient: GradientSpec {
            differentiable: Differentiable::Always,
            without: vec![],
            crease: None,
        },
        code: None,
    }
}

// ------------------------------------------------------------------------------ point-wise

/// A point-wise operation's declaration: its inputs (arity), fields and derivative notes.
/// The value and derivative themselves are `combine_op` / `combine_op_grad` in
/// `shaders/lib/ops.wgsl` and its twin.
pub struct OpDecl {
    /// The JSON `type`.
    pub name: &'static str,
    /// The op code and its constant.
    pub code: OpCode,
    /// Field inputs: 0, 1 (`source`) or several (`inputs`).
    pub arity: u32,
    /// The inputs' doc.
    pub inputs_doc: &'static str,
    /// One line.
    pub summary: &'static str,
    /// Its fields.
    pub fields: &'static [FieldSpec],
    /// Its crease, if any (see [`GradientSpec::crease`]).
    pub crease: Option<&'static str>,
}

const fn op(constant: &'static str, value: u32) -> OpCode {
    OpCode { constant, value }
}

/// Every point-wise operation.
pub const POINTWISE: &[OpDecl] = &[
    OpDecl {
        name: "add",
        code: op("OP_ADD", ops::OP_ADD),
        arity: 2,
        inputs_doc: "[a, b]",
        summary: "a + b",
        fields: &[],
        crease: None,
    },
    OpDecl {
        name: "sub",
        code: op("OP_SUB", ops::OP_SUB),
        arity: 2,
        inputs_doc: "[a, b]",
        summary: "a - b",
        fields: &[],
        crease: None,
    },
    OpDecl {
        name: "mul",
        code: op("OP_MUL", ops::OP_MUL),
        arity: 2,
        inputs_doc: "[a, b]",
        summary: "a * b",
        fields: &[],
        crease: None,
    },
    OpDecl {
        name: "min",
        code: op("OP_MIN", ops::OP_MIN),
        arity: 2,
        inputs_doc: "[a, b]",
        summary: "the smaller of a and b",
        fields: &[],
        crease: Some("where a = b: a's gradient"),
    },
    OpDecl {
        name: "max",
        code: op("OP_MAX", ops::OP_MAX),
        arity: 2,
        inputs_doc: "[a, b]",
        summary: "the larger of a and b",
        fields: &[],
        crease: Some("where a = b: a's gradient"),
    },
    OpDecl {
        name: "mix",
        code: op("OP_MIX", ops::OP_MIX),
        arity: 3,
        inputs_doc: "[a, b, t]",
        summary: "a + (b - a) * t",
        fields: &[],
        crease: None,
    },
    OpDecl {
        name: "abs",
        code: op("OP_ABS", ops::OP_ABS),
        arity: 1,
        inputs_doc: "the input field",
        summary: "|a|",
        fields: &[],
        crease: Some("where a = 0: gradient 0 (sign(0) = 0)"),
    },
    OpDecl {
        name: "neg",
        code: op("OP_NEG", ops::OP_NEG),
        arity: 1,
        inputs_doc: "the input field",
        summary: "-a",
        fields: &[],
        crease: None,
    },
    OpDecl {
        name: "clamp",
        code: op("OP_CLAMP", ops::OP_CLAMP),
        arity: 1,
        inputs_doc: "the input field",
        summary: "a clamped to [min, max]",
        fields: &[
            FieldSpec::number("min", 0.0, "lower bound")
                .magnitude(MAX_VALUE)
                .soft(-2.0, 2.0),
            FieldSpec::number("max", 1.0, "upper bound (at least min)")
                .magnitude(MAX_VALUE)
                .soft(-2.0, 2.0),
        ],
        crease: Some(
            "where a = min or a = max: a's gradient (the bounds count as inside); 0 outside",
        ),
    },
    OpDecl {
        name: "remap",
        code: op("OP_SCALE_BIAS", ops::OP_SCALE_BIAS),
        arity: 1,
        inputs_doc: "the input field",
        summary: "the linear map of [from0, from1] onto [to0, to1]",
        fields: &[
            FieldSpec::required_pair("from", "source range [a, b] (a and b differ)")
                .magnitude(MAX_VALUE)
                .initial(FieldValue::Pair([-1.0, 1.0])),
            FieldSpec::required_pair("to", "target range [c, d]")
                .magnitude(MAX_VALUE)
                .initial(FieldValue::Pair([0.0, 1.0])),
        ],
        crease: None,
    },
    OpDecl {
        name: "constant",
        code: op("OP_CONSTANT", ops::OP_CONSTANT),
        arity: 0,
        inputs_doc: "",
        summary: "a constant field",
        fields: &[FieldSpec::number("value", 0.0, "the value of every sample")
            .magnitude(MAX_VALUE)
            .soft(-1.0, 1.0)],
        crease: None,
    },
    OpDecl {
        name: "scale_bias",
        code: op("OP_SCALE_BIAS", ops::OP_SCALE_BIAS),
        arity: 1,
        inputs_doc: "the input field",
        summary: "a * scale + bias",
        fields: &[
            FieldSpec::number("scale", 1.0, "multiplier")
                .magnitude(MAX_SCALE)
                .soft(-4.0, 4.0),
            FieldSpec::number("bias", 0.0, "added after scaling")
                .magnitude(MAX_VALUE)
                .soft(-2.0, 2.0),
        ],
        crease: None,
    },
];

/// The smallest `step` of `quantize` and `terrace` (2^-20): its reciprocal, which both paths
/// multiply by, stays far inside f32.
pub const MIN_STEP: f64 = 1.0 / 1_048_576.0;

/// The remaps and blends (point-wise operations of `shaders/lib/shaping.wgsl` and its twin),
/// after [`POINTWISE`] in the schema and the README's table.
pub const REMAPS_AND_BLENDS: &[OpDecl] = &[
    OpDecl {
        name: "pow",
        code: op("OP_POW", shaping::OP_POW),
        arity: 1,
        inputs_doc: "the input field",
        summary: "|a|^exponent with a's sign (defined for negative a)",
        fields: &[FieldSpec::number("exponent", 2.0, "the exponent")
            .range(1.0 / 64.0, 64.0)
            .soft(0.25, 8.0)
            .log()],
        crease: Some("where a = 0 and exponent < 1: gradient 0"),
    },
    OpDecl {
        name: "smoothstep",
        code: op("OP_SMOOTHSTEP", shaping::OP_SMOOTHSTEP),
        arity: 1,
        inputs_doc: "the input field",
        summary: "0 below low, 1 above high, the cubic 3t^2 - 2t^3 between (t = (a - low) / (high - low))",
        fields: &[
            FieldSpec::number("low", -1.0, "where the output leaves 0")
                .magnitude(MAX_VALUE)
                .soft(-2.0, 2.0),
            FieldSpec::number("high", 1.0, "where it reaches 1 (differs from low)")
                .magnitude(MAX_VALUE)
                .soft(-2.0, 2.0),
        ],
        crease: None,
    },
    OpDecl {
        name: "quantize",
        code: op("OP_QUANTIZE", shaping::OP_QUANTIZE),
        arity: 1,
        inputs_doc: "the input field",
        summary: "a rounded down to a multiple of step: floor(a / step) * step",
        fields: &[FieldSpec::number("step", 0.25, "the size of each level")
            .range(MIN_STEP, MAX_VALUE)
            .soft(0.05, 1.0)
            .log()],
        crease: Some("jumps where a is a multiple of step; gradient 0 everywhere"),
    },
    OpDecl {
        name: "terrace",
        code: op("OP_TERRACE", shaping::OP_TERRACE),
        arity: 1,
        inputs_doc: "the input field",
        summary: "steps of height step: flat, then rising by a cubic over the last smoothness of each step (continuous)",
        fields: &[
            FieldSpec::number("step", 0.25, "the height of each step (of a)")
                .range(MIN_STEP, MAX_VALUE)
                .soft(0.05, 1.0)
                .log(),
            FieldSpec::number(
                "smoothness",
                0.5,
                "the fraction of each step that rises (1: no flat part)",
            )
            .range(1.0 / 1024.0, 1.0),
        ],
        crease: None,
    },
    OpDecl {
        name: "smooth_min",
        code: op("OP_SMOOTH_MIN", shaping::OP_SMOOTH_MIN),
        arity: 2,
        inputs_doc: "[a, b]",
        summary: "polynomial smooth minimum: min(a, b) - h^2 k / 4, h = max(k - |a - b|, 0) / k (k = 0: min)",
        fields: &[FieldSpec::number("k", 0.25, "the width of the blend (0: min)")
            .range(0.0, MAX_VALUE)
            .soft(0.0, 1.0)],
        crease: Some("k = 0, where a = b: the mean of both gradients"),
    },
    OpDecl {
        name: "smooth_max",
        code: op("OP_SMOOTH_MAX", shaping::OP_SMOOTH_MAX),
        arity: 2,
        inputs_doc: "[a, b]",
        summary: "polynomial smooth maximum: max(a, b) + h^2 k / 4, h = max(k - |a - b|, 0) / k (k = 0: max)",
        fields: &[FieldSpec::number("k", 0.25, "the width of the blend (0: max)")
            .range(0.0, MAX_VALUE)
            .soft(0.0, 1.0)],
        crease: Some("k = 0, where a = b: the mean of both gradients"),
    },
    OpDecl {
        name: "select",
        code: op("OP_SELECT", shaping::OP_SELECT),
        arity: 3,
        inputs_doc: "[a, b, control]",
        summary: "a where control < threshold, b where above; with a falloff, blended by a cubic over threshold +- falloff",
        fields: &[
            FieldSpec::number("threshold", 0.0, "the control value where the selection switches")
                .magnitude(MAX_VALUE)
                .soft(-1.0, 1.0),
            FieldSpec::number(
                "falloff",
                0.0,
                "half-width of the blend (0: a hard switch)",
            )
            .range(0.0, MAX_VALUE)
            .soft(0.0, 0.5),
        ],
        crease: Some("falloff 0: jumps where control = threshold, b's gradient there"),
    },
    OpDecl {
        name: "curve",
        code: op("OP_CURVE", shaping::OP_CURVE),
        arity: 1,
        inputs_doc: "the input field",
        summary: "a cubic spline through control points [x, y] (x strictly increasing): Hermite pieces with monotone (Fritsch-Carlson) or free (Catmull-Rom) tangents, extended linearly with the end tangents outside the first and last point (continuous, with a continuous slope)",
        fields: &[
            FieldSpec {
                default: Some(FieldValue::Points(&[[-1.0, -1.0], [1.0, 1.0]])),
                items: Some([2, MAX_CURVE_POINTS as u32]),
                ..FieldSpec::new(
                    "points",
                    FieldKind::Points,
                    "the control points [[x, y], ...], x strictly increasing (the bound is each coordinate's)",
                )
            }
            .magnitude(MAX_CURVE_COORDINATE),
            FieldSpec {
                options: CurveMode::NAMES,
                default: Some(FieldValue::Name("monotone")),
                ..FieldSpec::new(
                    "mode",
                    FieldKind::Choice,
                    "monotone: never overshoots the points; free: Catmull-Rom tangents (may overshoot)",
                )
            },
        ],
        crease: None,
    },
];

fn pointwise_node(d: &OpDecl) -> NodeSchema {
    let inputs = match d.arity {
        0 => vec![],
        1 => vec![InputSpec {
            name: "source",
            of: RefKind::Any,
            count: InputCount::One,
            doc: d.inputs_doc,
        }],
        n => vec![InputSpec {
            name: "inputs",
            of: RefKind::Any,
            count: InputCount::List(n),
            doc: d.inputs_doc,
        }],
    };
    NodeSchema {
        type_name: d.name,
        category: Category::Pointwise,
        summary: d.summary,
        inputs,
        fields: d.fields.to_vec(),
        dims: DimsRule::MaxOfInputs,
        gradient: GradientSpec {
            differentiable: Differentiable::Always,
            without: vec![],
            crease: d.crease,
        },
        code: Some(d.code),
    }
}

// -------------------------------------------------------------------------- README tables

/// A number as the README writes it: integers plainly, powers of two as `2^k`.
fn shown_number(x: f64) -> String {
    if x != 0.0 && x.abs().log2().fract() == 0.0 && x.abs() >= 1024.0 || x.abs() < 1e-3 && x != 0.0
    {
        let sign = if x < 0.0 { "-" } else { "" };
        return format!("{sign}2^{}", x.abs().log2() as i64);
    }
    if x.abs() >= 1e6 && x.abs().log10().fract() == 0.0 {
        let sign = if x < 0.0 { "-" } else { "" };
        return format!("{sign}10^{}", x.abs().log10() as i64);
    }
    format!("{x}")
}

fn shown_value(v: &FieldValue) -> String {
    match v {
        FieldValue::Number(x) => shown_number(*x),
        FieldValue::Integer(i) => i.to_string(),
        FieldValue::Name(n) => format!("`{n}`"),
        FieldValue::Pair(p) => format!("[{}, {}]", shown_number(p[0]), shown_number(p[1])),
        FieldValue::Points(points) => {
            let shown: Vec<String> = points
                .iter()
                .map(|p| format!("[{}, {}]", shown_number(p[0]), shown_number(p[1])))
                .collect();
            format!("[{}]", shown.join(", "))
        }
        FieldValue::Triple(p) => format!(
            "[{}, {}, {}]",
            shown_number(p[0]),
            shown_number(p[1]),
            shown_number(p[2])
        ),
    }
}

/// One field in a table cell: name, doc, accepted values and default.
fn field_cell(f: &FieldSpec) -> String {
    let mut s = format!("`{}`", f.name);
    let mut notes: Vec<String> = Vec::new();
    match f.kind {
        FieldKind::Choice => notes.push(
            f.options
                .iter()
                .map(|o| format!("`{o}`"))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        _ => match (f.min, f.max) {
            (Some(lo), Some(hi)) if lo == -hi => {
                notes.push(format!("\\|x\\| <= {}", shown_number(hi)))
            }
            (Some(lo), Some(hi)) if f.exclusive_min => notes.push(format!(
                "over {}, up to {}",
                shown_number(lo),
                shown_number(hi)
            )),
            (Some(lo), Some(hi)) => {
                notes.push(format!("{} to {}", shown_number(lo), shown_number(hi)))
            }
            (Some(lo), None) if f.exclusive_min => notes.push(format!("> {}", shown_number(lo))),
            (Some(lo), None) => notes.push(format!(">= {}", shown_number(lo))),
            _ => {}
        },
    }
    if let Some([lo, hi]) = f.items {
        notes.push(format!("{lo} to {hi} of them"));
    }
    if let Some(d) = &f.default {
        notes.push(format!("default {}", shown_value(d)));
    }
    if f.required {
        notes.push("required".to_string());
    }
    s.push_str(&format!(" ({})", {
        let mut parts = vec![f.doc.replace('|', "\\|")];
        parts.extend(notes);
        parts.join("; ")
    }));
    s
}

fn input_cell(i: &InputSpec) -> String {
    let of = match i.of {
        RefKind::Family => "a family node",
        RefKind::Generator => "a family or fractal node",
        RefKind::Any => "any node",
    };
    let count = match i.count {
        InputCount::One => String::new(),
        InputCount::List(n) => format!("{n} ids, "),
        InputCount::PerSourceAxis => "one id per axis of the source, ".to_string(),
    };
    format!("`{}` ({count}{of}: {})", i.name, i.doc)
}

fn escape(text: &str) -> String {
    text.replace('|', "\\|")
}

/// The README's node tables, generated from the schema: the families (dims, tileable, own
/// parameters, what each is) and every node kind's inputs and fields. `tests/schema.rs`
/// checks that README.md holds them between its `<!-- schema:... -->` markers.
pub fn markdown_tables() -> (String, String) {
    let s = schema();
    let mut families = String::from(
        "| type | dims | tileable (`period`) | own parameters | what it is |\n|---|---|---|---|---|\n",
    );
    for n in s.nodes.iter().filter(|n| n.category == Category::Family) {
        let DimsRule::Own { supported } = n.dims else {
            continue;
        };
        let own: Vec<String> = n
            .fields
            .iter()
            .filter(|f| !FAMILY_FIELDS.iter().any(|c| c.name == f.name))
            .map(field_cell)
            .collect();
        families.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            n.type_name,
            supported
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            if n.field("period").is_some() {
                "yes"
            } else {
                "no"
            },
            if own.is_empty() {
                "none".to_string()
            } else {
                own.join("; ")
            },
            escape(n.summary)
        ));
    }
    let mut kinds = String::from("| type | inputs | fields | what it computes | crease (gradient) |\n|---|---|---|---|---|\n");
    let family_fields: Vec<String> = FAMILY_FIELDS.iter().map(field_cell).collect();
    kinds.push_str(&format!(
        "| a family (`{}`) | none | {}; and the family's own parameters (table above) | noise at each position | per family (its section) |\n",
        s.types(Category::Family).join("`, `"),
        family_fields.join("; ")
    ));
    for n in s.nodes.iter().filter(|n| n.category != Category::Family) {
        let inputs: Vec<String> = n.inputs.iter().map(input_cell).collect();
        let fields: Vec<String> = n.fields.iter().map(field_cell).collect();
        kinds.push_str(&format!(
            "| `{}` | {} | {} | {} | {} |\n",
            n.type_name,
            if inputs.is_empty() {
                "none".to_string()
            } else {
                inputs.join("; ")
            },
            if fields.is_empty() {
                "none".to_string()
            } else {
                fields.join("; ")
            },
            escape(n.summary),
            n.gradient
                .crease
                .map(escape)
                .unwrap_or_else(|| "none".into())
        ));
    }
    (families, kinds)
}
