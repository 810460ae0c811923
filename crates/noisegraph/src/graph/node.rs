//! Node types of the graph format (see DESIGN.md, "Node types").

use super::curve::CurvePoints;
use crate::family::FamilyParams;
use crate::twin::lib::curve::CurveTable;
use crate::twin::lib::{ops, shaping};

/// A noise family evaluated at a position: a generator.
#[derive(Debug, Clone, PartialEq)]
pub struct FamilyNode {
    /// The family's `type` name (`perlin`, `simplex`, ...).
    pub family: String,
    /// Lattice cells per unit, per axis (x, y, z, w).
    pub frequency: [f64; 4],
    /// Added (wrapping) to the graph seed.
    pub seed_offset: i64,
    /// Added to the position before scaling by frequency.
    pub offset: [f64; 4],
    /// Dimension the family is evaluated in (2, 3 or 4, as the family supports).
    pub dims: u32,
    /// Slice coordinate of a 3D or 4D family (added to the view's z origin).
    pub z: f64,
    /// Slice coordinate of a 4D family.
    pub w: f64,
    /// Lattice period in cells per axis (tileable output), when set.
    pub period: Option<[u32; 4]>,
    /// The family-specific parameters, validated.
    pub params: FamilyParams,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
/// How a fractal node remaps and sums its octaves.
pub enum FractalKind {
    /// Plain sum of octaves.
    Fbm,
    /// Each octave remapped by (1 - |n|)^2.
    Ridged,
    /// Each octave remapped by 2|n| - 1.
    Billow,
    /// Each octave folded back and forth (FastNoise2's ping-pong fractal).
    Pingpong,
    /// Musgrave's hybrid multifractal: each octave weighted by the ones before it.
    Hybrid,
    /// Musgrave's heterogeneous terrain: each octave scaled by the value so far.
    Hetero,
}

impl FractalKind {
    /// The kind's JSON `type` name (`fbm`, `ridged`, `billow`).
    pub fn name(self) -> &'static str {
        match self {
            FractalKind::Fbm => "fbm",
            FractalKind::Ridged => "ridged",
            FractalKind::Billow => "billow",
            FractalKind::Pingpong => "pingpong",
            FractalKind::Hybrid => "hybrid",
            FractalKind::Hetero => "hetero",
        }
    }
    /// The code the stage kernel switches on (`fractal_remap` in shaders/lib/ops.wgsl).
    pub fn code(self) -> u32 {
        match self {
            FractalKind::Fbm => ops::FRACTAL_FBM,
            FractalKind::Ridged => ops::FRACTAL_RIDGED,
            FractalKind::Billow => ops::FRACTAL_BILLOW,
            FractalKind::Pingpong => ops::FRACTAL_PINGPONG,
            FractalKind::Hybrid => ops::FRACTAL_HYBRID,
            FractalKind::Hetero => ops::FRACTAL_HETERO,
        }
    }
    /// Musgrave's multifractals (`hybrid`, `hetero`), whose octaves carry a state from one
    /// to the next (shaders/lib/multifractal.wgsl) instead of a remap.
    pub fn is_musgrave(self) -> bool {
        matches!(self, FractalKind::Hybrid | FractalKind::Hetero)
    }
}

/// Octaves of a family node: frequency lacunarity^k, amplitude gain^k, seed + k.
#[derive(Debug, Clone, PartialEq)]
pub struct FractalNode {
    /// Octave remap: fBm, ridged or billow.
    pub kind: FractalKind,
    /// Id of the family node the octaves sample.
    pub source: String,
    /// Number of octaves.
    pub octaves: u32,
    /// Frequency multiplier per octave.
    pub lacunarity: f64,
    /// Amplitude multiplier per octave.
    pub gain: f64,
    /// Added (wrapping) to the graph seed, on top of the source's offset.
    pub seed_offset: i64,
    /// Added to the position (x, y, z, w), on top of the source's offset.
    pub offset: [f64; 4],
    /// `derivative_weight` k of fbm, ridged and billow (0 for the other kinds): each octave
    /// divided by 1 + k |sum of the octaves' noise gradients so far|^2.
    pub derivative_weight: f64,
    /// `signal_offset` of hybrid and hetero (0 for the other kinds): Musgrave's offset.
    pub signal_offset: f64,
}

impl FractalNode {
    /// Whether its octaves carry a per-pixel state beyond the running sum (hybrid's weight,
    /// hetero's value, the derivative weight's sum of gradients): such a stage runs in one
    /// octave pass and is not fused into a warp.
    pub fn carries_state(&self) -> bool {
        self.kind.is_musgrave() || self.derivative_weight != 0.0
    }
}

/// A generator evaluated at p + amplitude * (d_x, d_y[, d_z]).
#[derive(Debug, Clone, PartialEq)]
pub struct WarpNode {
    /// Id of the generator (family or fractal node) that is warped.
    pub source: String,
    /// Ids of the displacement nodes, one per displaced axis (x, y[, z]).
    pub displace: Vec<String>,
    /// Scale applied to the displacement values (position units).
    pub amplitude: f64,
}

/// Point-wise operations on materialized fields.
#[derive(Debug, Clone, PartialEq)]
pub enum PointwiseOp {
    /// a + b.
    Add,
    /// a - b.
    Sub,
    /// a * b.
    Mul,
    /// The smaller of a and b.
    Min,
    /// The larger of a and b.
    Max,
    /// a + (b - a) * t, with inputs [a, b, t].
    Mix,
    /// |a|.
    Abs,
    /// -a.
    Neg,
    /// a clamped to [min, max].
    Clamp {
        /// Lower bound.
        min: f64,
        /// Upper bound.
        max: f64,
    },
    /// Linear map of [from0, from1] onto [to0, to1].
    Remap {
        /// Source range [from0, from1].
        from: [f64; 2],
        /// Target range [to0, to1].
        to: [f64; 2],
    },
    /// A constant field (no inputs).
    Constant {
        /// The value of every sample.
        value: f64,
    },
    /// a * scale + bias.
    ScaleBias {
        /// Multiplier.
        scale: f64,
        /// Added after scaling.
        bias: f64,
    },
    /// |a|^exponent with a's sign.
    Pow {
        /// The exponent.
        exponent: f64,
    },
    /// The cubic smoothstep of a from `low` (0) to `high` (1).
    Smoothstep {
        /// Where the output leaves 0.
        low: f64,
        /// Where it reaches 1.
        high: f64,
    },
    /// a rounded down to a multiple of `step`.
    Quantize {
        /// The size of each level.
        step: f64,
    },
    /// Steps of `step`, each rising over the last `smoothness` of its width.
    Terrace {
        /// The height (and width) of each step.
        step: f64,
        /// The fraction of each step that rises (1: no flat part).
        smoothness: f64,
    },
    /// Polynomial smooth minimum of [a, b] over a width `k` (`k` = 0: `min`).
    SmoothMin {
        /// The width of the blend.
        k: f64,
    },
    /// Polynomial smooth maximum of [a, b] over a width `k` (`k` = 0: `max`).
    SmoothMax {
        /// The width of the blend.
        k: f64,
    },
    /// Of inputs [a, b, control]: a where control < threshold, b where above, blended over
    /// `falloff` on each side.
    Select {
        /// The control value where the selection switches.
        threshold: f64,
        /// Half-width of the blend (0: a hard switch).
        falloff: f64,
    },
    /// A cubic spline remap through control points (see [`CurvePoints`]), boxed: the
    /// points are the one large operand.
    Curve(Box<CurvePoints>),
}

impl PointwiseOp {
    /// The operation's JSON `type` name.
    pub fn name(&self) -> &'static str {
        match self {
            PointwiseOp::Add => "add",
            PointwiseOp::Sub => "sub",
            PointwiseOp::Mul => "mul",
            PointwiseOp::Min => "min",
            PointwiseOp::Max => "max",
            PointwiseOp::Mix => "mix",
            PointwiseOp::Abs => "abs",
            PointwiseOp::Neg => "neg",
            PointwiseOp::Clamp { .. } => "clamp",
            PointwiseOp::Remap { .. } => "remap",
            PointwiseOp::Constant { .. } => "constant",
            PointwiseOp::ScaleBias { .. } => "scale_bias",
            PointwiseOp::Pow { .. } => "pow",
            PointwiseOp::Smoothstep { .. } => "smoothstep",
            PointwiseOp::Quantize { .. } => "quantize",
            PointwiseOp::Terrace { .. } => "terrace",
            PointwiseOp::SmoothMin { .. } => "smooth_min",
            PointwiseOp::SmoothMax { .. } => "smooth_max",
            PointwiseOp::Select { .. } => "select",
            PointwiseOp::Curve(_) => "curve",
        }
    }
    /// How many field inputs the operation takes.
    pub fn arity(&self) -> usize {
        match self {
            PointwiseOp::Constant { .. } => 0,
            PointwiseOp::Abs
            | PointwiseOp::Neg
            | PointwiseOp::Clamp { .. }
            | PointwiseOp::Remap { .. }
            | PointwiseOp::ScaleBias { .. }
            | PointwiseOp::Pow { .. }
            | PointwiseOp::Smoothstep { .. }
            | PointwiseOp::Quantize { .. }
            | PointwiseOp::Terrace { .. }
            | PointwiseOp::Curve(_) => 1,
            PointwiseOp::Mix | PointwiseOp::Select { .. } => 3,
            _ => 2,
        }
    }
    /// The op code and constants of `combine_op` in shaders/lib/ops.wgsl. A `curve` has
    /// none: its pieces are [`curve_table`](Self::curve_table), which every path reads for
    /// [`shaping::OP_CURVE`] instead of calling `combine_op`.
    pub fn code_and_constants(&self) -> (u32, [f32; 4]) {
        let z = [0.0; 4];
        match *self {
            PointwiseOp::Add => (ops::OP_ADD, z),
            PointwiseOp::Sub => (ops::OP_SUB, z),
            PointwiseOp::Mul => (ops::OP_MUL, z),
            PointwiseOp::Min => (ops::OP_MIN, z),
            PointwiseOp::Max => (ops::OP_MAX, z),
            PointwiseOp::Mix => (ops::OP_MIX, z),
            PointwiseOp::Abs => (ops::OP_ABS, z),
            PointwiseOp::Neg => (ops::OP_NEG, z),
            PointwiseOp::Clamp { min, max } => (ops::OP_CLAMP, [min as f32, max as f32, 0.0, 0.0]),
            PointwiseOp::Remap { from, to } => {
                // Precomputed as scale and bias so both paths do the same two operations.
                let scale = (to[1] - to[0]) / (from[1] - from[0]);
                let bias = to[0] - from[0] * scale;
                (ops::OP_SCALE_BIAS, [scale as f32, bias as f32, 0.0, 0.0])
            }
            PointwiseOp::Constant { value } => (ops::OP_CONSTANT, [value as f32, 0.0, 0.0, 0.0]),
            PointwiseOp::ScaleBias { scale, bias } => {
                (ops::OP_SCALE_BIAS, [scale as f32, bias as f32, 0.0, 0.0])
            }
            // The remaps and blends: reciprocals precomputed (see twin/lib/shaping.rs).
            PointwiseOp::Pow { exponent } => (
                shaping::OP_POW,
                [exponent as f32, (exponent - 1.0) as f32, 0.0, 0.0],
            ),
            PointwiseOp::Smoothstep { low, high } => (
                shaping::OP_SMOOTHSTEP,
                [low as f32, (1.0 / (high - low)) as f32, 0.0, 0.0],
            ),
            PointwiseOp::Quantize { step } => (
                shaping::OP_QUANTIZE,
                [(1.0 / step) as f32, step as f32, 0.0, 0.0],
            ),
            PointwiseOp::Terrace { step, smoothness } => (
                shaping::OP_TERRACE,
                [
                    (1.0 / step) as f32,
                    step as f32,
                    (1.0 - smoothness) as f32,
                    (1.0 / smoothness) as f32,
                ],
            ),
            PointwiseOp::SmoothMin { k } => (shaping::OP_SMOOTH_MIN, smooth_constants(k)),
            PointwiseOp::SmoothMax { k } => (shaping::OP_SMOOTH_MAX, smooth_constants(k)),
            PointwiseOp::Select { threshold, falloff } => {
                // A falloff too narrow for an f32 reciprocal is a hard switch.
                let inverse = (0.5 / falloff) as f32;
                let inverse = if inverse.is_finite() { inverse } else { 0.0 };
                (
                    shaping::OP_SELECT,
                    [threshold as f32, (threshold - falloff) as f32, inverse, 0.0],
                )
            }
            PointwiseOp::Curve(_) => (shaping::OP_CURVE, z),
        }
    }

    /// A `curve`'s table of pieces and its number of points (`None` for every other
    /// operation).
    pub fn curve_table(&self) -> Option<(CurveTable, u32)> {
        match self {
            PointwiseOp::Curve(c) => Some(c.table()),
            _ => None,
        }
    }
}

/// `smooth_min` / `smooth_max` constants: the width and its reciprocal (0 for a width of 0,
/// where the blend is the plain minimum or maximum).
fn smooth_constants(k: f64) -> [f32; 4] {
    // A width too small for an f32 reciprocal is no blend at all.
    let inverse = (1.0 / k) as f32;
    if inverse.is_finite() {
        [k as f32, inverse, 0.0, 0.0]
    } else {
        [0.0; 4]
    }
}

/// A point-wise node: an operation and its input fields.
#[derive(Debug, Clone, PartialEq)]
pub struct PointwiseNode {
    /// The operation.
    pub op: PointwiseOp,
    /// Ids of the input nodes, in the operation's argument order.
    pub inputs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
/// What a node computes.
pub enum NodeKind {
    /// A noise family sampled directly.
    Family(FamilyNode),
    /// Octaves of a family node.
    Fractal(FractalNode),
    /// A generator with a displaced sample position.
    Warp(WarpNode),
    /// A point-wise operation on other nodes' fields.
    Pointwise(PointwiseNode),
    /// Its source sampled at mapped positions (`transform`, `sphere`, `torus`, `cylinder`).
    Mapping(super::mapping::MappingNode),
}

/// A node: its id and what it computes.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The node's unique id.
    pub id: String,
    /// What the node computes.
    pub kind: NodeKind,
}

impl Node {
    /// The JSON `type` of the node.
    pub fn type_name(&self) -> &str {
        match &self.kind {
            NodeKind::Family(f) => &f.family,
            NodeKind::Fractal(f) => f.kind.name(),
            NodeKind::Warp(_) => "warp",
            NodeKind::Pointwise(p) => p.op.name(),
            NodeKind::Mapping(m) => m.map.name(),
        }
    }
    /// Ids this node reads.
    pub fn inputs(&self) -> Vec<&str> {
        match &self.kind {
            NodeKind::Family(_) => vec![],
            NodeKind::Fractal(f) => vec![f.source.as_str()],
            NodeKind::Warp(w) => std::iter::once(w.source.as_str())
                .chain(w.displace.iter().map(String::as_str))
                .collect(),
            NodeKind::Pointwise(p) => p.inputs.iter().map(String::as_str).collect(),
            NodeKind::Mapping(m) => vec![m.source.as_str()],
        }
    }
    /// The node's references with the field each is written in: (`"source"`,
    /// id), (`"displace"`, id), (`"inputs"`, id).
    pub fn input_fields(&self) -> Vec<(&'static str, &str)> {
        match &self.kind {
            NodeKind::Family(_) => vec![],
            NodeKind::Fractal(f) => vec![("source", f.source.as_str())],
            NodeKind::Warp(w) => std::iter::once(("source", w.source.as_str()))
                .chain(w.displace.iter().map(|d| ("displace", d.as_str())))
                .collect(),
            NodeKind::Pointwise(p) => {
                let field = if p.op.arity() == 1 {
                    "source"
                } else {
                    "inputs"
                };
                p.inputs.iter().map(|i| (field, i.as_str())).collect()
            }
            NodeKind::Mapping(m) => vec![("source", m.source.as_str())],
        }
    }
    /// Whether the node is a function of position that a fractal or warp can evaluate
    /// anywhere (a family or fractal node), as opposed to a field that only exists on the grid.
    pub fn is_generator(&self) -> bool {
        matches!(self.kind, NodeKind::Family(_) | NodeKind::Fractal(_))
    }
}
