//! Walking a graph's references without recursion: a chain or a cycle of any length costs
//! heap, never stack (a recursive walk overflowed the stack on chains of a few thousand nodes).

use std::collections::HashMap;

use super::NoiseGraph;

/// A reference that closes a cycle: the node holding it, its field, and the cycle's ids from
/// the node it re-enters back to that node.
#[derive(Debug, Clone)]
pub(crate) struct CycleEdge<'a> {
    pub node: &'a str,
    pub field: &'static str,
    pub path: Vec<&'a str>,
}

/// Node indices by id (the first node of each id, as [`NoiseGraph::node`] finds it).
pub(crate) fn index_by_id(graph: &NoiseGraph) -> HashMap<&str, usize> {
    let mut by_id = HashMap::with_capacity(graph.nodes.len());
    for (i, node) in graph.nodes.iter().enumerate() {
        by_id.entry(node.id.as_str()).or_insert(i);
    }
    by_id
}

/// The nodes reachable from `roots` (indices into `graph.nodes`), each after every node it
/// reads (depth-first post-order, inputs in field order). References to unknown ids are
/// skipped; a reference back to a node on the current path closes a cycle: it is returned
/// (once per node it re-enters) and skipped.
pub(crate) fn post_order<'a>(
    graph: &'a NoiseGraph,
    by_id: &HashMap<&'a str, usize>,
    roots: impl IntoIterator<Item = usize>,
) -> (Vec<usize>, Vec<CycleEdge<'a>>) {
    const NEW: u8 = 0;
    const ON_PATH: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; graph.nodes.len()];
    let mut order = Vec::new();
    let mut cycles: Vec<CycleEdge<'a>> = Vec::new();
    let mut reported = vec![false; graph.nodes.len()];
    // (node index, its references, the next reference to follow)
    type Step<'a> = (usize, Vec<(&'static str, &'a str)>, usize);
    let mut path: Vec<Step<'a>> = Vec::new();
    for root in roots {
        if state[root] != NEW {
            continue;
        }
        state[root] = ON_PATH;
        path.push((root, graph.nodes[root].input_fields(), 0));
        while let Some((node, refs, next)) = path.last_mut() {
            let Some(&(field, id)) = refs.get(*next) else {
                state[*node] = DONE;
                order.push(*node);
                path.pop();
                continue;
            };
            *next += 1;
            let holder = *node;
            let Some(&child) = by_id.get(id) else {
                continue;
            };
            match state[child] {
                NEW => {
                    state[child] = ON_PATH;
                    path.push((child, graph.nodes[child].input_fields(), 0));
                }
                ON_PATH if !reported[child] => {
                    reported[child] = true;
                    let start = path.iter().position(|p| p.0 == child).unwrap_or(0);
                    let mut ids: Vec<&'a str> = path[start..]
                        .iter()
                        .map(|p| graph.nodes[p.0].id.as_str())
                        .collect();
                    ids.push(id);
                    cycles.push(CycleEdge {
                        node: graph.nodes[holder].id.as_str(),
                        field,
                        path: ids,
                    });
                }
                _ => {}
            }
        }
    }
    (order, cycles)
}
