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
    let mut issues = Vec::new();
    let mut by_id: HashMap<&str, &Node> = HashMap::new();
    for node in &graph.nodes {
        if by_id.insert(node.id.as_str(), node).is_some() {
            issues.push(issue(
                &node.id,
                "id",
                "duplicate id: another node has the same id",
            ));
        }
    }
    if graph.output.is_empty() {
        // `output` missing is reported by the parser; a builder may leave it empty.
        if !issues.iter().any(|i| i.field == "output") {
            issues.push(GraphIssue {
                node: None,
                field: "output".into(),
                message: "is required: the id of the node to bake".into(),
            });
        }
    } else if !by_id.contains_key(graph.output.as_str()) {
        issues.push(GraphIssue {
            node: None,
            field: "output".into(),
            message: format!("names '{}', which is not a node id", graph.output),
        });
    }

    for node in &graph.nodes {
        let check_ref = |field: &str, id: &str, issues: &mut Vec<GraphIssue>| -> Option<&Node> {
            if id.is_empty() {
                return None;
            }
            let found = by_id.get(id).copied();
            if found.is_none() {
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
                    .map(|s| graph.dims_of(&s.id))
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
            NodeKind::Pointwise(p) => {
                for i in &p.inputs {
                    check_ref("inputs", i, &mut issues);
                }
            }
        }
    }

    // Cycles: depth-first search over inputs.
    let mut state: HashMap<&str, u8> = HashMap::new(); // 1 = on stack, 2 = done
    let mut reported: HashSet<String> = HashSet::new();
    fn visit<'a>(
        id: &'a str,
        by_id: &HashMap<&'a str, &'a Node>,
        state: &mut HashMap<&'a str, u8>,
        stack: &mut Vec<&'a str>,
        issues: &mut Vec<GraphIssue>,
        reported: &mut HashSet<String>,
    ) {
        match state.get(id) {
            Some(2) => return,
            Some(1) => {
                let start = stack.iter().position(|s| *s == id).unwrap_or(0);
                let mut cycle: Vec<&str> = stack[start..].to_vec();
                cycle.push(id);
                if reported.insert(id.to_string()) {
                    issues.push(issue(
                        id,
                        "inputs",
                        format!("cycle: {}", cycle.join(" -> ")),
                    ));
                }
                return;
            }
            _ => {}
        }
        let Some(node) = by_id.get(id) else { return };
        state.insert(id, 1);
        stack.push(id);
        for input in node.inputs() {
            visit(input, by_id, state, stack, issues, reported);
        }
        stack.pop();
        state.insert(id, 2);
    }
    for node in &graph.nodes {
        let mut stack = Vec::new();
        visit(
            &node.id,
            &by_id,
            &mut state,
            &mut stack,
            &mut issues,
            &mut reported,
        );
    }
    issues
}
