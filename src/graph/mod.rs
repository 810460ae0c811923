//! `NoiseGraph`: nodes, the JSON format, validation, planning and the Rust builder.

mod builder;
mod gradient;
mod json;
mod node;
mod plan;
mod validate;

pub use builder::{GraphBuilder, NodeBuilder};
pub use gradient::{gradient_plan, gradient_refusal, plan_gradient_refusal};
pub use json::MAX_OCTAVES;
pub use node::*;
pub use plan::*;

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
        self.dims_inner(id, 0)
    }

    fn dims_inner(&self, id: &str, depth: usize) -> u32 {
        if depth > self.nodes.len() {
            return 2; // a cycle, reported by validation
        }
        match self.node(id).map(|n| &n.kind) {
            Some(NodeKind::Family(f)) => f.dims,
            Some(NodeKind::Fractal(f)) => self.dims_inner(&f.source, depth + 1),
            Some(NodeKind::Warp(w)) => self.dims_inner(&w.source, depth + 1),
            Some(NodeKind::Pointwise(p)) => p
                .inputs
                .iter()
                .map(|i| self.dims_inner(i, depth + 1))
                .max()
                .unwrap_or(2),
            None => 2,
        }
    }

    /// The documented output range of a node, used to remap it to 8/16-bit images.
    pub fn range_of(&self, id: &str) -> (f32, f32) {
        self.range_inner(id, 0)
    }

    fn range_inner(&self, id: &str, depth: usize) -> (f32, f32) {
        if depth > self.nodes.len() {
            return (-1.0, 1.0);
        }
        let r = |i: &str| self.range_inner(i, depth + 1);
        match self.node(id).map(|n| &n.kind) {
            Some(NodeKind::Family(f)) => family::lookup(&f.family)
                .map(|fam| fam.range(f.dims, &f.params))
                .unwrap_or((-1.0, 1.0)),
            Some(NodeKind::Fractal(f)) => {
                let (lo, hi) = r(&f.source);
                let m = lo.abs().max(hi.abs());
                match f.kind {
                    FractalKind::Fbm => (lo, hi),
                    FractalKind::Ridged => {
                        let low = if m <= 1.0 { (1.0 - m) * (1.0 - m) } else { 0.0 };
                        let low = if lo <= 0.0 && hi >= 0.0 { low } else { 0.0 };
                        (low.min(1.0), 1.0f32.max((1.0 - m) * (1.0 - m)))
                    }
                    FractalKind::Billow => (-1.0, 2.0 * m - 1.0),
                }
            }
            Some(NodeKind::Warp(w)) => r(&w.source),
            Some(NodeKind::Pointwise(p)) => {
                let ins: Vec<(f32, f32)> = p.inputs.iter().map(|i| r(i)).collect();
                pointwise_range(&p.op, &ins)
            }
            None => (-1.0, 1.0),
        }
    }
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
    }
}
