//! `NoiseGraph`: nodes, the JSON format, validation, planning and the Rust builder.

mod builder;
pub mod curve;
mod gradient;
mod json;
pub mod limits;
mod mapping;
pub mod mapping_schema;
mod node;
mod plan;
pub mod position;
pub mod schema;
mod validate;
pub(crate) mod walk;

pub use builder::{GraphBuilder, NodeBuilder};
pub use gradient::{gradient_plan, gradient_refusal, plan_gradient_refusal};
pub use json::{LAYOUT_FIELD, MAX_OCTAVES};
pub use mapping::*;
pub use node::*;
pub use plan::*;
pub use schema::{node_schema, schema};

use crate::error::GraphErrors;
use crate::family;

/// A validated graph of noise nodes. Build one from JSON ([`NoiseGraph::from_json`]) or with
/// [`GraphBuilder`].
#[derive(Debug, Clone, PartialEq)]
pub struct NoiseGraph {
    /// The graph's base seed.
    pub seed: u32,
    /// The node baked by default.
    pub output: String,
    /// The nodes, in declaration order.
    pub nodes: Vec<Node>,
}

impl NoiseGraph {
    /// Parses and validates a graph; every problem is reported, each naming node and field.
    pub fn from_json(text: &str) -> Result<Self, GraphErrors> {
        json::parse_str(text)
    }

    /// Same as [`NoiseGraph::from_json`] from an already parsed value.
    pub fn from_value(value: &serde_json::Value) -> Result<Self, GraphErrors> {
        json::parse(value)
    }

    /// The graph in the JSON format, every parameter explicit.
    pub fn to_json(&self) -> serde_json::Value {
        json::to_value(self)
    }

    /// Re-checks structure (ids, references, cycles, roles); parsing already does this.
    pub fn validate(&self) -> Result<(), GraphErrors> {
        let issues = validate::structure(self);
        if issues.is_empty() {
            Ok(())
        } else {
            Err(GraphErrors(issues))
        }
    }

    /// The node with id `id`, if any.
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The coordinate dimension of a node: its family's dims, followed through fractal and
    /// warp sources; point-wise nodes take the largest of their inputs (2 for a constant).
    pub fn dims_of(&self, id: &str) -> u32 {
        let Some(root) = self.nodes.iter().position(|n| n.id == id) else {
            return 2;
        };
        self.fold([root], 2, node_dims)[root].unwrap_or(2)
    }

    /// The dims of every node (see [`NoiseGraph::dims_of`]), indexed like `nodes`.
    pub(crate) fn all_dims(&self) -> Vec<u32> {
        self.fold(0..self.nodes.len(), 2, node_dims)
            .into_iter()
            .map(|d| d.unwrap_or(2))
            .collect()
    }

    /// The documented output range of a node, used to remap it to 8/16-bit images.
    pub fn range_of(&self, id: &str) -> (f32, f32) {
        let Some(root) = self.nodes.iter().position(|n| n.id == id) else {
            return (-1.0, 1.0);
        };
        self.fold([root], (-1.0, 1.0), node_range)[root].unwrap_or((-1.0, 1.0))
    }

    /// `f` of every node reachable from `roots`, each given the values of its inputs (in
    /// [`Node::inputs`] order; `default` for an unknown id or a reference that closes a
    /// cycle), computed without recursion and once per node however many nodes read it.
    /// Indexed like `nodes`; `None` for a node not reached.
    pub(crate) fn fold<T: Copy>(
        &self,
        roots: impl IntoIterator<Item = usize>,
        default: T,
        f: impl Fn(&Node, &[T]) -> T,
    ) -> Vec<Option<T>> {
        let by_id = walk::index_by_id(self);
        let (order, _) = walk::post_order(self, &by_id, roots);
        let mut values: Vec<Option<T>> = vec![None; self.nodes.len()];
        let mut ins = Vec::new();
        for i in order {
            let node = &self.nodes[i];
            ins.clear();
            ins.extend(
                node.inputs()
                    .iter()
                    .map(|id| by_id.get(id).and_then(|&j| values[j]).unwrap_or(default)),
            );
            values[i] = Some(f(node, &ins));
        }
        values
    }
}

/// A node's dims by its kind's [`schema::DimsRule`], from its inputs' dims (in
/// [`Node::inputs`] order, the source first).
fn node_dims(node: &Node, inputs: &[u32]) -> u32 {
    let rule = schema::node_schema(node.type_name()).map(|s| s.dims);
    match (rule, &node.kind) {
        (Some(schema::DimsRule::Own { .. }), NodeKind::Family(f)) => f.dims,
        (Some(schema::DimsRule::Source), _) => inputs.first().copied().unwrap_or(2),
        (Some(schema::DimsRule::Fixed { dims, .. }), _) => dims,
        _ => inputs.iter().copied().max().unwrap_or(2),
    }
}

/// The documented range of `node` from those of its inputs.
fn node_range(node: &Node, ins: &[(f32, f32)]) -> (f32, f32) {
    match &node.kind {
        NodeKind::Family(f) => family::lookup(&f.family)
            .map(|fam| fam.range(f.dims, &f.params))
            .unwrap_or((-1.0, 1.0)),
        NodeKind::Fractal(f) if f.kind.is_musgrave() => {
            musgrave_range(f, ins.first().copied().unwrap_or((-1.0, 1.0)))
        }
        NodeKind::Fractal(f) => {
            let (lo, hi) = ins.first().copied().unwrap_or((-1.0, 1.0));
            let m = lo.abs().max(hi.abs());
            let remapped = match f.kind {
                FractalKind::Fbm => (lo, hi),
                FractalKind::Ridged => {
                    let low = if m <= 1.0 { (1.0 - m) * (1.0 - m) } else { 0.0 };
                    let low = if lo <= 0.0 && hi >= 0.0 { low } else { 0.0 };
                    (low.min(1.0), 1.0f32.max((1.0 - m) * (1.0 - m)))
                }
                FractalKind::Billow => (-1.0, 2.0 * m - 1.0),
                // The fold keeps every octave in [-1, 1] whatever its source's range.
                FractalKind::Pingpong => (-1.0, 1.0),
                FractalKind::Hybrid | FractalKind::Hetero => unreachable!("the arm above"),
            };
            // A derivative weight divides each octave by 1 or more: towards 0.
            if f.derivative_weight > 0.0 {
                (remapped.0.min(0.0), remapped.1.max(0.0))
            } else {
                remapped
            }
        }
        NodeKind::Warp(_) | NodeKind::Mapping(_) => ins.first().copied().unwrap_or((-1.0, 1.0)),
        NodeKind::Pointwise(p) => pointwise_range(&p.op, ins),
    }
}

/// The range of a hybrid or hetero node over a source in `source` (the formulas of
/// shaders/lib/multifractal.wgsl in interval arithmetic, f64): octave k's signal spans
/// gain^k ([lo, hi] + signal_offset); hybrid's weight is within [0, 1] and its sum is divided
/// by the sum of the amplitudes, hetero's value is multiplied by 1 + signal at each octave.
fn musgrave_range(f: &FractalNode, (lo, hi): (f32, f32)) -> (f32, f32) {
    let mul = |a: (f64, f64), b: (f64, f64)| {
        let c = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
        (
            c.iter().copied().fold(f64::INFINITY, f64::min),
            c.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    };
    let noise = (lo as f64 + f.signal_offset, hi as f64 + f.signal_offset);
    let signal = |k: u32| mul((f.gain.powi(k as i32), f.gain.powi(k as i32)), noise);
    let mut value = signal(0);
    let mut amplitudes = 1.0;
    for k in 1..f.octaves {
        let s = signal(k);
        amplitudes += f.gain.abs().powi(k as i32);
        value = match f.kind {
            FractalKind::Hybrid => (value.0 + s.0.min(0.0), value.1 + s.1.max(0.0)),
            _ => mul(value, (1.0 + s.0, 1.0 + s.1)),
        };
    }
    let norm = if f.kind == FractalKind::Hybrid {
        1.0 / amplitudes
    } else {
        1.0
    };
    ((value.0 * norm) as f32, (value.1 * norm) as f32)
}

fn interval_mul(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    let c = [a.0 * b.0, a.0 * b.1, a.1 * b.0, a.1 * b.1];
    (
        c.iter().copied().fold(f32::INFINITY, f32::min),
        c.iter().copied().fold(f32::NEG_INFINITY, f32::max),
    )
}

/// Interval arithmetic over the documented ranges of the inputs.
fn pointwise_range(op: &PointwiseOp, ins: &[(f32, f32)]) -> (f32, f32) {
    let a = ins.first().copied().unwrap_or((0.0, 0.0));
    let b = ins.get(1).copied().unwrap_or((0.0, 0.0));
    match *op {
        PointwiseOp::Add => (a.0 + b.0, a.1 + b.1),
        PointwiseOp::Sub => (a.0 - b.1, a.1 - b.0),
        PointwiseOp::Mul => interval_mul(a, b),
        PointwiseOp::Min => (a.0.min(b.0), a.1.min(b.1)),
        PointwiseOp::Max => (a.0.max(b.0), a.1.max(b.1)),
        PointwiseOp::Mix => {
            let t = ins.get(2).copied().unwrap_or((0.0, 1.0));
            let d = interval_mul((b.0 - a.1, b.1 - a.0), t);
            (a.0 + d.0, a.1 + d.1)
        }
        PointwiseOp::Abs => {
            if a.0 >= 0.0 {
                a
            } else if a.1 <= 0.0 {
                (-a.1, -a.0)
            } else {
                (0.0, a.1.max(-a.0))
            }
        }
        PointwiseOp::Neg => (-a.1, -a.0),
        PointwiseOp::Clamp { min, max } => (
            a.0.clamp(min as f32, max as f32),
            a.1.clamp(min as f32, max as f32),
        ),
        PointwiseOp::Remap { .. } | PointwiseOp::ScaleBias { .. } => {
            let (_, k) = op.code_and_constants();
            let (x, y) = (a.0 * k[0] + k[1], a.1 * k[0] + k[1]);
            (x.min(y), x.max(y))
        }
        PointwiseOp::Constant { value } => (value as f32, value as f32),
        // The remaps are monotone: the images of the ends.
        PointwiseOp::Pow { .. }
        | PointwiseOp::Smoothstep { .. }
        | PointwiseOp::Quantize { .. }
        | PointwiseOp::Terrace { .. } => {
            let (code, k) = op.code_and_constants();
            let f = |x: f32| crate::twin::lib::ops::combine_op(code, x, 0.0, 0.0, k);
            let (x, y) = (f(a.0), f(a.1));
            (x.min(y), x.max(y))
        }
        PointwiseOp::SmoothMin { k } => (a.0.min(b.0) - 0.25 * k as f32, a.1.min(b.1)),
        PointwiseOp::SmoothMax { k } => (a.0.max(b.0), a.1.max(b.1) + 0.25 * k as f32),
        PointwiseOp::Select { .. } => (a.0.min(b.0), a.1.max(b.1)),
        PointwiseOp::Curve(ref c) => {
            let (lo, hi) = c.range(f64::from(a.0), f64::from(a.1));
            (lo as f32, hi as f32)
        }
    }
}
