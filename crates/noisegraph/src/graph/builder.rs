//! A Rust builder with the same power as the JSON format: it writes the same JSON objects
//! and `build` runs them through the same parser, so a builder graph and its JSON agree by
//! construction.

use serde_json::{json, Map, Value};

use super::NoiseGraph;
use crate::error::GraphErrors;

/// Builds a [`NoiseGraph`] node by node.
///
/// ```
/// use noisegraph::GraphBuilder;
/// let mut b = GraphBuilder::new(1337);
/// b.node("base", "perlin").frequency(4.0);
/// b.fractal("terrain", "fbm", "base").octaves(6).gain(0.5);
/// let graph = b.output("terrain").build().unwrap();
/// assert_eq!(graph.nodes.len(), 2);
/// ```
#[derive(Debug, Clone, Default)]
pub struct GraphBuilder {
    seed: u32,
    output: Option<String>,
    nodes: Vec<Map<String, Value>>,
}

/// Sets the fields of one node; returned by [`GraphBuilder::node`], [`GraphBuilder::fractal`],
/// [`GraphBuilder::warp`] and [`GraphBuilder::pointwise`]. Each method sets one field of the
/// node's JSON object (the README's "Graph format" lists them) and returns the builder, so
/// calls chain; the fields are set as the methods are called, so the last builder may be
/// dropped. [`set`](Self::set) sets any other field, such as a family's own parameters. Nothing is
/// checked until [`GraphBuilder::build`], which reports every problem at once, each naming
/// its node and field.
///
/// ```
/// use noisegraph::{GraphBuilder, NodeBuilder};
/// // A helper that takes the builder a node method returned.
/// fn detail(node: NodeBuilder<'_>) -> NodeBuilder<'_> {
///     node.octaves(5).lacunarity(2.2).gain(0.45)
/// }
/// let mut b = GraphBuilder::new(9);
/// b.node("cells", "cellular").frequency(6.0).set("return", "f2_minus_f1");
/// detail(b.fractal("cracks", "fbm", "cells"));
/// let graph = b.output("cracks").build().unwrap();
/// assert_eq!(graph.nodes.len(), 2);
/// ```
pub struct NodeBuilder<'a> {
    map: &'a mut Map<String, Value>,
}

impl GraphBuilder {
    /// An empty graph with seed `seed`.
    pub fn new(seed: u32) -> Self {
        GraphBuilder {
            seed,
            ..Default::default()
        }
    }

    /// Adds a node of any `type` (a family name, `fbm`, `warp`, `add`, ...).
    pub fn node(&mut self, id: &str, type_name: &str) -> NodeBuilder<'_> {
        let mut map = Map::new();
        map.insert("id".into(), json!(id));
        map.insert("type".into(), json!(type_name));
        self.nodes.push(map);
        NodeBuilder {
            map: self.nodes.last_mut().expect("just pushed"),
        }
    }

    /// Adds a fractal node (`fbm`, `ridged` or `billow`) over a family node.
    pub fn fractal(&mut self, id: &str, kind: &str, source: &str) -> NodeBuilder<'_> {
        self.node(id, kind).set("source", source)
    }

    /// Adds a warp of a generator by displacement fields.
    pub fn warp(
        &mut self,
        id: &str,
        source: &str,
        displace: &[&str],
        amplitude: f64,
    ) -> NodeBuilder<'_> {
        self.node(id, "warp")
            .set("source", source)
            .set("displace", displace)
            .set("amplitude", amplitude)
    }

    /// Adds a point-wise node; one input goes in `source`, several in `inputs`.
    pub fn pointwise(&mut self, id: &str, op: &str, inputs: &[&str]) -> NodeBuilder<'_> {
        let node = self.node(id, op);
        match inputs {
            [] => node,
            [single] => node.set("source", *single),
            many => node.set("inputs", many),
        }
    }

    /// The node baked by default.
    pub fn output(&mut self, id: &str) -> &mut Self {
        self.output = Some(id.to_string());
        self
    }

    /// The graph as JSON, exactly what `build` parses.
    pub fn to_json(&self) -> Value {
        let mut top = Map::new();
        top.insert("seed".into(), json!(self.seed));
        if let Some(o) = &self.output {
            top.insert("output".into(), json!(o));
        }
        top.insert(
            "nodes".into(),
            Value::Array(self.nodes.iter().cloned().map(Value::Object).collect()),
        );
        Value::Object(top)
    }

    /// Validates and builds the graph (every problem reported, as for JSON input).
    pub fn build(&self) -> Result<NoiseGraph, GraphErrors> {
        NoiseGraph::from_value(&self.to_json())
    }
}

impl NodeBuilder<'_> {
    /// Sets any field by its JSON name (family parameters such as `fade`, `jitter`, ...).
    pub fn set(self, key: &str, value: impl Into<Value>) -> Self {
        self.map.insert(key.to_string(), value.into());
        self
    }
    /// `frequency`: lattice cells per unit of space on every axis (family nodes; greater
    /// than 0).
    pub fn frequency(self, f: f64) -> Self {
        self.set("frequency", f)
    }
    /// `frequency` given per axis (x, y[, z[, w]]).
    pub fn frequency_axes(self, f: &[f64]) -> Self {
        self.set("frequency", f)
    }
    /// `seed_offset`: added to the graph seed for this node (family and fractal nodes).
    pub fn seed_offset(self, s: i64) -> Self {
        self.set("seed_offset", s)
    }
    /// `offset`: added to the position before scaling, per axis (family and fractal nodes).
    pub fn offset(self, o: &[f64]) -> Self {
        self.set("offset", o)
    }
    /// `dims`: 2, 3 or 4, where the family has it (family nodes).
    pub fn dims(self, d: u32) -> Self {
        self.set("dims", d)
    }
    /// `z`: the slice coordinate of 3D and 4D noise (family nodes).
    pub fn z(self, z: f64) -> Self {
        self.set("z", z)
    }
    /// `w`: the fourth coordinate of 4D noise (family nodes).
    pub fn w(self, w: f64) -> Self {
        self.set("w", w)
    }
    /// `period`: lattice cells after which the lattice wraps, on every axis (tileable
    /// families).
    pub fn period(self, p: u32) -> Self {
        self.set("period", p)
    }
    /// `octaves`: 1 to 32 (fractal nodes).
    pub fn octaves(self, n: u32) -> Self {
        self.set("octaves", n)
    }
    /// `lacunarity`: the frequency ratio between octaves (fractal nodes).
    pub fn lacunarity(self, l: f64) -> Self {
        self.set("lacunarity", l)
    }
    /// `gain`: the amplitude ratio between octaves (fractal nodes).
    pub fn gain(self, g: f64) -> Self {
        self.set("gain", g)
    }
}
