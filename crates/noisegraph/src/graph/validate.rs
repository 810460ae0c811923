//! Structural checks of a graph: ids, references, cycles, node roles, dims.

use std::collections::{HashMap, HashSet};

use super::node::*;
use super::schema::RefKind;
use super::NoiseGraph;
use crate::error::GraphIssue;

fn issue(node: &str, field: &str, message: impl Into<String>) -> GraphIssue {
    GraphIssue {
        node: Some(node.to_string()),
        field: field.to_string(),
        message: message.into(),
    }
}

/// Every structural problem of the graph (an empty list means it can be planned).
pub fn structure(graph: &NoiseGraph) -> Vec<GraphIssue> {
    structure_with(graph, &HashSet::new())
}

/// [`structure`] for a graph parsed with errors: `unparsed` holds the ids of nodes that were
/// declared but not parsed (an unknown type), so references to them are not reported again
/// as unknown ids.
pub fn structure_with(graph: &NoiseGraph, unparsed: &HashSet<String>) -> Vec<GraphIssue> {
    let mut issues = Vec::new();
    let mut by_id: HashMap<&str, &Node> = HashMap::new();
    for node in &graph.nodes {
        if by_id.insert(node.id.as_str(), node).is_some() || unparsed.contains(&node.id) {
            issues.push(issue(
                &node.id,
                "id",
                "duplicate id: another node has the same id",
            ));
        }
    }
    if graph.output.is_empty() {
        // `output` missing is reported by the parser; a builder may leave it empty.
        issues.push(GraphIssue {
            node: None,
            field: "output".into(),
            message: "is required: the id of the node to bake".into(),
        });
    } else if !by_id.contains_key(graph.output.as_str()) && !unparsed.contains(&graph.output) {
        issues.push(GraphIssue {
            node: None,
            field: "output".into(),
            message: format!("names '{}', which is not a node id", graph.output),
        });
    }

    let index = super::walk::index_by_id(graph);
    let dims = graph.all_dims();
    for node in &graph.nodes {
        let check_ref = |field: &str, id: &str, issues: &mut Vec<GraphIssue>| -> Option<&Node> {
            if id.is_empty() {
                issues.push(issue(&node.id, field, "is empty: give a node id"));
                return None;
            }
            let found = by_id.get(id).copied();
            if found.is_none() && !unparsed.contains(id) {
                issues.push(issue(&node.id, field, format!("unknown id '{id}'")));
            }
            found
        };
        // Each input names a node of the kind the schema says it accepts.
        let Some(kind) = super::schema::node_schema(node.type_name()) else {
            continue;
        };
        for (field, id) in node.input_fields() {
            let Some(target) = check_ref(field, id, &mut issues) else {
                continue;
            };
            let accepted = kind.input(field).map_or(RefKind::Any, |i| i.of);
            let category = super::schema::node_schema(target.type_name()).map(|t| t.category);
            if category.is_some_and(|c| !accepted.accepts(c)) {
                let why = match accepted {
                    RefKind::Family => format!("'{}' is a {} node; a fractal needs a family node (a generator such as perlin) as its source", target.id, target.type_name()),
                    _ => format!("'{}' is a {} node, a field; a warp needs a generator (a family or fractal node) to evaluate at displaced positions", target.id, target.type_name()),
                };
                issues.push(issue(&node.id, field, why));
            }
        }
        match &node.kind {
            NodeKind::Fractal(f) => {
                if let Some(NodeKind::Family(fam)) = by_id.get(f.source.as_str()).map(|n| &n.kind) {
                    if fam.period.is_some() && f.lacunarity.fract() != 0.0 {
                        issues.push(issue(
                            &node.id,
                            "lacunarity",
                            format!("must be an integer when the source '{}' is tileable (period), so every octave tiles (got {})", f.source, f.lacunarity),
                        ));
                    }
                }
            }
            NodeKind::Warp(w) => {
                // `displace` holds one field per axis of the source (InputCount::PerSourceAxis).
                if let Some(dims) = by_id
                    .get(w.source.as_str())
                    .filter(|s| s.is_generator())
                    .map(|s| dims[index[s.id.as_str()]])
                {
                    let want = dims.min(4) as usize;
                    if w.displace.len() != want {
                        issues.push(issue(
                            &node.id,
                            "displace",
                            format!("dims mismatch: the source '{}' is {dims}D, so displace needs {want} fields (got {})", w.source, w.displace.len()),
                        ));
                    }
                }
            }
            NodeKind::Mapping(m) => {
                if let Some(source) = by_id.get(m.source.as_str()) {
                    let dims = dims[index[source.id.as_str()]];
                    issues.extend(super::mapping::check_dims(&node.id, m, dims));
                }
            }
            NodeKind::Family(_) | NodeKind::Pointwise(_) => {}
        }
    }

    // Cycles, each reported once, at the reference that closes it.
    let (_, cycles) = super::walk::post_order(graph, &index, 0..graph.nodes.len());
    for cycle in cycles {
        issues.push(issue(
            cycle.node,
            cycle.field,
            format!("cycle: {}", cycle.path.join(" -> ")),
        ));
    }
    issues
}
