//! Per-node answers for the page's node canvas: a thumbnail of every node, each node's cost
//! for the view, GPU-versus-CPU parity per node, and the WGSL module of a node.
//!
//! Thumbnails and costs render each node with only its upstream nodes (see [`upstream`]):
//! a problem in one part of the graph does not blank the thumbnails of the others.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use noisegraph::export::wgsl::{export_wgsl, WgslOptions};
use noisegraph::graph::node_schema;
use noisegraph::io::gray8;
use noisegraph::parity::run_parity;
use noisegraph::{Executor, GpuContext, GraphIssue, Plan, PlanOptions};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::render::{self, Coordinate, PreviewRequest};

/// The largest thumbnail side, in pixels.
pub const MAX_THUMBNAIL_SIDE: u32 = 256;
/// The thumbnail side when the page does not say.
pub const THUMBNAIL_SIDE: u32 = 64;

/// Thumbnails or costs of some nodes of a graph, over the page's view.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodesRequest {
    /// The graph, as JSON.
    pub graph: Value,
    /// The nodes wanted (every node of the graph when absent).
    #[serde(default)]
    pub nodes: Option<Vec<String>>,
    /// Width and height: the thumbnail's side (default [`THUMBNAIL_SIDE`]) or the view's
    /// size for costs.
    #[serde(default)]
    pub size: Option<[u32; 2]>,
    #[serde(default)]
    pub origin: Vec<Coordinate>,
    #[serde(default)]
    pub extent: Vec<Coordinate>,
    #[serde(default)]
    pub normalize: Option<String>,
    /// As for previews: a page's newer request drops its older one still waiting.
    #[serde(default)]
    pub session: Option<String>,
    #[serde(default)]
    pub generation: u64,
}

/// The ids a raw JSON node names in its inputs (by its kind's schema).
fn input_ids(node: &Map<String, Value>) -> Vec<String> {
    let Some(kind) = node
        .get("type")
        .and_then(Value::as_str)
        .and_then(node_schema)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for input in &kind.inputs {
        match node.get(input.name) {
            Some(Value::String(s)) => out.push(s.clone()),
            Some(Value::Array(items)) => {
                out.extend(items.iter().filter_map(Value::as_str).map(str::to_string))
            }
            _ => {}
        }
    }
    out
}

/// The graph of `id` and everything upstream of it (in the graph's node order), with `id`
/// as its output; `None` when the graph has no node `id`. Nodes that only others read are
/// left out, so their problems do not stop this node's render.
pub fn upstream(graph: &Value, id: &str) -> Option<Value> {
    let nodes = graph.get("nodes")?.as_array()?;
    let by_id: HashMap<&str, &Map<String, Value>> = nodes
        .iter()
        .filter_map(Value::as_object)
        .filter_map(|n| Some((n.get("id")?.as_str()?, n)))
        .collect();
    by_id.get(id)?;
    let mut keep: HashSet<String> = HashSet::new();
    let mut todo = vec![id.to_string()];
    while let Some(next) = todo.pop() {
        if !keep.insert(next.clone()) {
            continue;
        }
        if let Some(node) = by_id.get(next.as_str()) {
            todo.extend(input_ids(node));
        }
    }
    let kept: Vec<Value> = nodes
        .iter()
        .filter(|n| {
            n.get("id")
                .and_then(Value::as_str)
                .is_some_and(|i| keep.contains(i))
        })
        .cloned()
        .collect();
    let mut out = Map::new();
    if let Some(seed) = graph.get("seed") {
        out.insert("seed".into(), seed.clone());
    }
    out.insert("output".into(), json!(id));
    out.insert("nodes".into(), Value::Array(kept));
    Some(Value::Object(out))
}

/// The node ids of a raw graph, in order.
fn all_ids(graph: &Value) -> Vec<String> {
    graph
        .get("nodes")
        .and_then(Value::as_array)
        .map(|nodes| {
            nodes
                .iter()
                .filter_map(|n| n.get("id")?.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The preview request rendering `id` with its upstream nodes over the request's view.
fn node_request(request: &NodesRequest, id: &str, size: [u32; 2]) -> Option<PreviewRequest> {
    Some(PreviewRequest {
        graph: upstream(&request.graph, id)?,
        node: Some(id.to_string()),
        size,
        origin: request.origin.clone(),
        extent: request.extent.clone(),
        normalize: request.normalize.clone(),
        session: None,
        generation: 0,
        flow: None,
        format: None,
    })
}

fn missing(id: &str) -> Value {
    render::issues_json(&[GraphIssue {
        node: None,
        field: "nodes".into(),
        message: format!("'{id}' is not a node of the graph"),
    }])
}

/// Every wanted node rendered small: `{"thumbnails": [{"node", "width", "height", "gray":
/// [u8 row by row, mapped as the preview's levels], "range"} or {"node", "errors"}], "ms"}`.
pub fn thumbnails(executor: &Executor, request: &NodesRequest) -> Result<Value, String> {
    let [w, h] = request.size.unwrap_or([THUMBNAIL_SIDE; 2]);
    if w == 0 || h == 0 || w > MAX_THUMBNAIL_SIDE || h > MAX_THUMBNAIL_SIDE {
        return Err(format!(
            "size: each side of a thumbnail must be 1 to {MAX_THUMBNAIL_SIDE} pixels (got {w}x{h})"
        ));
    }
    let start = std::time::Instant::now();
    let ids = request
        .nodes
        .clone()
        .unwrap_or_else(|| all_ids(&request.graph));
    let list: Vec<Value> = ids
        .iter()
        .map(|id| {
            let Some(req) = node_request(request, id, [w, h]) else {
                return json!({ "node": id, "errors": missing(id) });
            };
            match render::render(executor, &req) {
                Ok(preview) => {
                    let gray: Vec<u8> = preview
                        .field
                        .data
                        .iter()
                        .map(|&v| gray8(v, preview.range))
                        .collect();
                    json!({ "node": id, "width": preview.field.width,
                        "height": preview.field.height, "gray": gray,
                        "range": [preview.range.0, preview.range.1] })
                }
                Err(issues) => json!({ "node": id, "errors": render::issues_json(&issues) }),
            }
        })
        .collect();
    Ok(json!({ "thumbnails": list, "ms": start.elapsed().as_secs_f64() * 1e3 }))
}

/// Each node's cost over the view: `total_ms`, the time to render it with everything
/// upstream (the faster of two runs, so a first run's pipeline compilation is not counted),
/// and `own_ms`, that total less the totals of the nodes it reads (at least 0; a node read
/// through two paths is subtracted once per path, so shared inputs make `own_ms` an
/// underestimate).
pub fn costs(executor: &Executor, request: &NodesRequest, backend: &str) -> Value {
    let size = request.size.unwrap_or([512, 512]);
    let ids = request
        .nodes
        .clone()
        .unwrap_or_else(|| all_ids(&request.graph));
    let raw: HashMap<String, Map<String, Value>> = request
        .graph
        .get("nodes")
        .and_then(Value::as_array)
        .map(|nodes| {
            nodes
                .iter()
                .filter_map(Value::as_object)
                .filter_map(|n| Some((n.get("id")?.as_str()?.to_string(), n.clone())))
                .collect()
        })
        .unwrap_or_default();
    let mut totals: HashMap<String, Result<f64, Value>> = HashMap::new();
    let mut total_of = |id: &str| -> Result<f64, Value> {
        if let Some(t) = totals.get(id) {
            return t.clone();
        }
        let result = match node_request(request, id, size) {
            None => Err(missing(id)),
            Some(req) => (0..2)
                .map(|_| render::render(executor, &req).map(|p| p.render_ms))
                .try_fold(f64::INFINITY, |best, t| t.map(|t| best.min(t)))
                .map_err(|issues| render::issues_json(&issues)),
        };
        totals.insert(id.to_string(), result.clone());
        result
    };
    let list: Vec<Value> = ids
        .iter()
        .map(|id| match total_of(id) {
            Ok(total) => {
                let inputs = raw.get(id).map(input_ids).unwrap_or_default();
                let read: f64 = inputs.iter().filter_map(|i| total_of(i).ok()).sum();
                json!({ "node": id, "total_ms": total, "own_ms": (total - read).max(0.0) })
            }
            Err(errors) => json!({ "node": id, "errors": errors }),
        })
        .collect();
    json!({ "costs": list, "size": size, "backend": backend })
}

/// The view's node and everything upstream run on the GPU and on the CPU path, one stage
/// per node (unfused, as `noisegraph parity`): the largest difference per node.
pub fn parity(gpu: &GpuContext, request: &PreviewRequest) -> Result<Value, Vec<GraphIssue>> {
    let (graph, node, view, _) = render::parse_request(request)?;
    let engine_error = |e: noisegraph::Error| match e {
        noisegraph::Error::Graph(g) => g.0,
        other => vec![GraphIssue {
            node: Some(node.clone()),
            field: "parity".into(),
            message: other.to_string(),
        }],
    };
    let plan = Plan::with_options(&graph, Some(&node), PlanOptions { fuse: false })
        .map_err(engine_error)?;
    plan.check_view(&view).map_err(engine_error)?;
    let stages = run_parity(gpu, &plan, &view).map_err(engine_error)?;
    let list: Vec<Value> = stages
        .iter()
        .map(|s| {
            json!({ "node": s.node, "max_abs": s.max_abs, "tolerance": s.tolerance,
                "over": s.over, "total": s.total,
                "ok": (s.over as f64) <= s.allowed_fraction * s.total as f64 })
        })
        .collect();
    Ok(json!({ "node": node, "gpu": gpu.describe(), "parity": list }))
}

/// The GPU context parity runs on: the server's own when it renders on a GPU, else one
/// made on first use (a CPU adapter such as lavapipe counts).
pub fn parity_gpu(executor: &Executor) -> Result<Arc<GpuContext>, String> {
    static MADE: std::sync::OnceLock<Result<Arc<GpuContext>, String>> = std::sync::OnceLock::new();
    if let Executor::Gpu(ctx) = executor {
        return Ok(ctx.clone());
    }
    MADE.get_or_init(|| {
        GpuContext::new()
            .map(Arc::new)
            .map_err(|e| format!("parity needs a GPU adapter: {e}"))
    })
    .clone()
}

/// What the page asks to export as WGSL.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WgslRequest {
    pub graph: Value,
    #[serde(default)]
    pub node: Option<String>,
}

/// The WGSL module of a node, as `noisegraph wgsl --node ID --name NAME` writes it, named
/// after the node (its id made a WGSL identifier).
pub fn wgsl(request: &WgslRequest) -> Result<Value, Vec<GraphIssue>> {
    let graph = noisegraph::NoiseGraph::from_value(&request.graph).map_err(|e| e.0)?;
    let node = request.node.clone().unwrap_or_else(|| graph.output.clone());
    let mut name: String = node
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name.insert_str(0, "noise_");
    }
    let options = WgslOptions {
        name: name.clone(),
        node: Some(node.clone()),
        table_binding: [0, 0],
    };
    let module = export_wgsl(&graph, &options).map_err(|e| match e {
        noisegraph::Error::Graph(g) => g.0,
        other => vec![GraphIssue {
            node: Some(node.clone()),
            field: "wgsl".into(),
            message: other.to_string(),
        }],
    })?;
    let note = module.tables.as_ref().map(|_| {
        format!(
            "this module reads a table buffer at @group(0) @binding(0): write it with \
             `noisegraph wgsl GRAPH.json --node {node} --name {name} -o {name}.wgsl` \
             (it writes {name}.tables.bin beside the module)"
        )
    });
    Ok(
        json!({ "node": module.node, "name": module.name, "source": module.source,
        "dims": module.dims, "no_gradient": module.no_gradient, "note": note }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GRAPH: &str = r#"{"seed": 3, "output": "sum", "layout": {"p": [0, 0]}, "nodes": [
        {"id": "p", "type": "perlin", "frequency": 4},
        {"id": "f", "type": "fbm", "source": "p", "octaves": 2},
        {"id": "c", "type": "cellular", "frequency": -1},
        {"id": "sum", "type": "add", "inputs": ["f", "c"]}]}"#;

    fn request(extra: Value) -> NodesRequest {
        let mut v = json!({ "graph": serde_json::from_str::<Value>(GRAPH).unwrap() });
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn upstream_keeps_what_a_node_reads() {
        let graph: Value = serde_json::from_str(GRAPH).unwrap();
        let sub = upstream(&graph, "f").unwrap();
        assert_eq!(all_ids(&sub), ["p", "f"]);
        assert_eq!(sub["output"], "f");
        assert_eq!(
            all_ids(&upstream(&graph, "sum").unwrap()),
            ["p", "f", "c", "sum"]
        );
        assert!(upstream(&graph, "nope").is_none());
    }

    #[test]
    fn thumbnails_render_each_node_apart_from_others_problems() {
        let answer = thumbnails(&Executor::Cpu, &request(json!({"size": [16, 16]}))).unwrap();
        let list = answer["thumbnails"].as_array().unwrap();
        assert_eq!(list.len(), 4);
        // p and f render although c (read only by sum) is invalid.
        for i in [0, 1] {
            assert_eq!(
                list[i]["gray"].as_array().unwrap().len(),
                256,
                "{}",
                list[i]
            );
        }
        for i in [2, 3] {
            let errors = list[i]["errors"].as_array().unwrap();
            assert!(errors
                .iter()
                .any(|e| e["node"] == "c" && e["field"] == "frequency"));
        }
        // The thumbnail is the bake of that node over the view.
        let expected = Executor::Cpu
            .bake(
                &noisegraph::NoiseGraph::from_value(
                    &upstream(&request(json!({})).graph, "f").unwrap(),
                )
                .unwrap(),
                Some("f"),
                &noisegraph::View::image(16, 16),
            )
            .unwrap();
        let range =
            noisegraph::NoiseGraph::from_value(&upstream(&request(json!({})).graph, "f").unwrap())
                .unwrap()
                .range_of("f");
        let gray: Vec<u8> = expected.data.iter().map(|&v| gray8(v, range)).collect();
        assert_eq!(list[1]["gray"], json!(gray));
        assert!(thumbnails(&Executor::Cpu, &request(json!({"size": [0, 4]}))).is_err());
    }

    #[test]
    fn costs_give_total_and_own_times() {
        let answer = costs(
            &Executor::Cpu,
            &request(json!({"size": [32, 32], "nodes": ["p", "f", "c"]})),
            "CPU",
        );
        let list = answer["costs"].as_array().unwrap();
        for entry in &list[..2] {
            let total = entry["total_ms"].as_f64().unwrap();
            let own = entry["own_ms"].as_f64().unwrap();
            assert!(total > 0.0 && own >= 0.0 && own <= total, "{entry}");
        }
        assert_eq!(
            list[0]["own_ms"], list[0]["total_ms"],
            "a family reads nothing"
        );
        assert!(list[2]["errors"].is_array());
    }

    #[test]
    fn wgsl_exports_the_node_under_its_id() {
        let mut graph: Value = serde_json::from_str(GRAPH).unwrap();
        graph["nodes"][2]["frequency"] = json!(2);
        let answer = wgsl(&WgslRequest {
            graph,
            node: Some("f".into()),
        })
        .unwrap();
        assert_eq!(answer["name"], "f");
        assert!(answer["source"].as_str().unwrap().contains("fn f("));
    }
}
