//! Structural checks of a graph: ids, references, cycles, node roles, dims.

use std::collections::{HashMap, HashSet};

use super::node::*;
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
        match &node.kind {
            NodeKind::Family(_) => {}
            NodeKind::Fractal(f) => {
                if let Some(src) = check_ref("source", &f.source, &mut issues) {
                    match &src.kind {
                        NodeKind::Family(fam) => {
                            if fam.period.is_some() && f.lacunarity.fract() != 0.0 {
                                issues.push(issue(
                                    &node.id,
                                    "lacunarity",
                                    format!("must be an integer when the source '{}' is tileable (period), so every octave tiles (got {})", src.id, f.lacunarity),
                                ));
                            }
                        }
                        _ => issues.push(issue(
                            &node.id,
                            "source",
                            format!("'{}' is a {} node; a fractal needs a family node (a generator such as perlin) as its source", src.id, src.type_name()),
                        )),
                    }
                }
            }
            NodeKind::Warp(w) => {
                let src = check_ref("source", &w.source, &mut issues);
                if let Some(src) = src {
                    if !src.is_generator() {
                        issues.push(issue(
                            &node.id,
                            "source",
                            format!("'{}' is a {} node, a field; a warp needs a generator (a family or fractal node) to evaluate at displaced positions", src.id, src.type_name()),
                        ));
                    }
                }
                for d in &w.displace {
                    check_ref("displace", d, &mut issues);
                }
                if let Some(dims) = src
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
            NodeKind::Pointwise(_) => {
                for (field, id) in node.input_fields() {
                    check_ref(field, id, &mut issues);
                }
            }
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
