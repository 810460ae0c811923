//! What running a plan in gradient form needs: every family it samples (stage sources and
//! fused displacement chains) has a gradient form in its dims. Every other node kind
//! differentiates: fractals and warps by the chain rule, point-wise nodes by their derivative
//! rules (`combine_grad_op` in shaders/combine.wgsl).

use super::node::NodeKind;
use super::plan::{GenerateStage, Plan, StageKind};
use super::NoiseGraph;
use crate::error::{Error, Result};

/// The family node a generator node samples: itself, or a fractal's or warp's source,
/// followed down.
fn family_node<'a>(graph: &'a NoiseGraph, id: &'a str) -> &'a str {
    let mut current = id;
    for _ in 0..=graph.nodes.len() {
        current = match graph.node(current).map(|n| &n.kind) {
            Some(NodeKind::Fractal(f)) => &f.source,
            Some(NodeKind::Warp(w)) => &w.source,
            _ => return current,
        };
    }
    current
}

/// Why `chain` (sampled by `node`'s stage for `role`: its source, or a displacement) has no
/// gradient, or `None` when it has one.
fn chain_refusal(
    graph: &NoiseGraph,
    chain: &GenerateStage,
    via: &str,
    role: &str,
    stage_node: &str,
) -> Option<String> {
    let (dims, params) = (chain.dims(), &chain.source.params);
    let name = chain.family.name();
    if chain.family.wgsl_grad_call(dims, params).is_some() {
        return None;
    }
    let reason = chain.family.no_gradient_reason(dims, params);
    let family_id = family_node(graph, via);
    Some(if family_id == stage_node {
        reason
    } else {
        format!("its {role} '{family_id}' is family '{name}': {reason}")
    })
}

/// The reason `plan` cannot run in gradient form, naming the node: the first stage (in plan
/// order, inputs first) whose family, or whose fused displacement chain's family, has no
/// gradient form in its dims. `None` when every stage differentiates.
pub fn gradient_refusal(plan: &Plan, graph: &NoiseGraph) -> Option<String> {
    for stage in &plan.stages {
        let StageKind::Generate(g) = &stage.kind else {
            continue;
        };
        let node = stage.node.as_str();
        let why = chain_refusal(graph, g, node, "source", node).or_else(|| {
            g.displace_inline()
                .find_map(|(_, id, chain)| chain_refusal(graph, chain, id, "displacement", node))
        });
        if let Some(why) = why {
            return Some(format!("node '{node}': no analytic gradient: {why}"));
        }
    }
    None
}

/// Plans `node` (the graph's output when `None`) for a gradient run: the plan, or an error
/// naming the node that cannot be differentiated and why (see [`gradient_refusal`]).
pub fn gradient_plan(graph: &NoiseGraph, node: Option<&str>) -> Result<Plan> {
    let plan = Plan::new(graph, node)?;
    match gradient_refusal(&plan, graph) {
        Some(why) => Err(Error::InvalidRequest(why)),
        None => Ok(plan),
    }
}

/// [`gradient_refusal`] from the plan alone (the executors' check, which has no graph to
/// name a fractal's family node by): the first stage whose family, or whose fused
/// displacement chain's family, has no gradient form, named with the family.
pub fn plan_gradient_refusal(plan: &Plan) -> Option<String> {
    for stage in &plan.stages {
        let StageKind::Generate(g) = &stage.kind else {
            continue;
        };
        let lacks = |c: &GenerateStage| {
            let (dims, params) = (c.dims(), &c.source.params);
            c.family
                .wgsl_grad_call(dims, params)
                .is_none()
                .then(|| c.family.no_gradient_reason(dims, params))
        };
        let why = lacks(g).or_else(|| {
            g.displace_inline().find_map(|(_, id, chain)| {
                lacks(chain).map(|why| format!("its displacement '{id}': {why}"))
            })
        });
        if let Some(why) = why {
            return Some(format!(
                "node '{}': no analytic gradient: {why}",
                stage.node
            ));
        }
    }
    None
}
