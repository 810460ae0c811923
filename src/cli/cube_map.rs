//! `bake --cube-map`: the six faces of a cube map of a graph's 3D output, each the graph
//! under a `cube_face` node (see `noisegraph::graph::mapping`), baked as its own job to the
//! output path with `{face}` replaced by px, nx, py, ny, pz, nz.

use std::path::Path;

use noisegraph::graph::CUBE_FACES;
use noisegraph::{NoiseGraph, View};
use serde_json::json;

use super::bake::BakeArgs;
use super::job::{Defaults, GraphSource, Job};
use super::Failure;

/// `graph` with its output (or `node`) under a `cube_face` node for face `face`, which
/// becomes the output.
pub fn face_graph(
    graph: &NoiseGraph,
    node: Option<&str>,
    face: usize,
) -> Result<NoiseGraph, Failure> {
    let target = node.unwrap_or(&graph.output).to_string();
    let mut id = "cube_face".to_string();
    while graph.node(&id).is_some() {
        id.push('_');
    }
    let mut value = graph.to_json();
    value["nodes"]
        .as_array_mut()
        .expect("a graph's nodes are a list")
        .push(json!({ "id": id, "type": "cube_face", "source": target, "face": CUBE_FACES[face] }));
    value["output"] = json!(id);
    NoiseGraph::from_value(&value).map_err(|e| {
        Failure::bad_input(format!(
            "--cube-map: node '{target}' as a cube map ({} must be a 3D node): {e}",
            CUBE_FACES[face]
        ))
    })
}

/// The six jobs of `--cube-map`, each face sampled at its texel centres ((x + 0.5) / size).
pub fn jobs(
    source: GraphSource,
    output: &Path,
    args: &BakeArgs,
    defaults: &Defaults,
) -> Result<Vec<Job>, Failure> {
    let text = output.to_string_lossy();
    if !text.contains("{face}") {
        return Err(Failure::bad_input(format!(
            "--cube-map: -o must hold {{face}} (e.g. sky_{{face}}.png), replaced by {} (got {text})",
            CUBE_FACES.join(", ")
        )));
    }
    let refused = [
        (args.origin.is_some(), "--origin"),
        (args.extent.is_some(), "--extent"),
        (args.tile.is_some(), "--tile"),
        (args.stitch, "--stitch"),
        (args.shard.is_some(), "--shard"),
        (args.channels.is_some(), "--channels"),
        (
            defaults.minmax,
            "--normalize minmax (each face would map its own range)",
        ),
    ];
    if let Some((_, flag)) = refused.iter().find(|(given, _)| *given) {
        return Err(Failure::bad_input(format!(
            "--cube-map: not with {flag}: a cube map's faces span the unit square each, in one range"
        )));
    }
    let [w, h, d] = defaults.view.size;
    if w != h || d != 1 {
        return Err(Failure::bad_input(format!(
            "--size: a cube map's faces are square images (got {w}x{h}x{d})"
        )));
    }
    let view = View::image(w, h).with_origin([0.5 / w as f64, 0.5 / h as f64, 0.0]);
    (0..CUBE_FACES.len())
        .map(|face| {
            let path = text.replace("{face}", CUBE_FACES[face]);
            let source = GraphSource::CubeFace {
                inner: Box::new(source.clone()),
                node: defaults.node.clone(),
                face,
            };
            // Loaded here so a graph that cannot be a cube map fails before any file.
            source.load()?;
            let mut job = Job::from_flags(source, path.into(), defaults)?;
            job.view = view;
            job.node = None;
            Ok(job)
        })
        .collect()
}
