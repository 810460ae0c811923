//! Previews for `noisegraph serve`: a request (graph, viewed node, view) rendered by the
//! engine, its `analyze` statistics, and the queue that lets a newer request from the same
//! page supersede an older one still waiting.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use noisegraph::analysis::{power_spectrum, stats};
use noisegraph::gpu::Specialize;
use noisegraph::graph::gradient_refusal;
use noisegraph::io::{encode_field_with, Format, Ramp, WriteOptions};
use noisegraph::{Error, Executor, Field, GraphIssue, NoiseGraph, Plan, RunOptions, View};
use serde::Deserialize;
use serde_json::{json, Value};

/// The largest preview side, in pixels.
pub const MAX_PREVIEW_SIDE: u32 = 2048;
/// Histogram bins of the statistics.
pub const HISTOGRAM_BINS: usize = 32;
/// Flow-view modes; the page offers whatever this list holds. `heading` (particles turn by
/// the field's value) needs only the field, so the page computes it. `gradient` (particles
/// climb the field) and `curl` (they follow its level lines: (d/dy, -d/dx), divergence-free)
/// need the exact gradient: the preview then runs in gradient form and carries the vectors
/// (see [`FlowVectors`]); a node that cannot be differentiated is refused at `flow`.
pub const FLOW_MODES: &[&str] = &["heading", "gradient", "curl"];

/// A coordinate given as a JSON number or as a decimal string (so every f64 arrives exactly,
/// whatever the client's JSON writer does with long numbers).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Coordinate {
    Number(f64),
    Text(String),
}

/// What the page asks to see.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreviewRequest {
    /// The graph, as JSON (validated here, errors reported per node and field).
    pub graph: Value,
    /// The viewed node; the graph's output when absent.
    #[serde(default)]
    pub node: Option<String>,
    /// Width and height in pixels.
    #[serde(default = "default_size")]
    pub size: [u32; 2],
    /// X, Y[, Z] of pixel (0, 0): Z is the slice of a 3D or 4D graph (its time).
    #[serde(default)]
    pub origin: Vec<Coordinate>,
    /// EX[, EY]: the region's size in input units.
    #[serde(default)]
    pub extent: Vec<Coordinate>,
    /// `range` (the node's documented range) or `minmax`, as `bake --normalize`.
    #[serde(default)]
    pub normalize: Option<String>,
    /// The page that asks (a random id per page load) and its request counter: a request
    /// whose page has asked for something newer is dropped before it renders.
    #[serde(default)]
    pub session: Option<String>,
    #[serde(default)]
    pub generation: u64,
    /// The flow mode shown (one of [`FLOW_MODES`]).
    #[serde(default)]
    pub flow: Option<String>,
    /// The PNG download's colour ramp (as `bake --ramp`); grey when absent.
    #[serde(default)]
    pub ramp: Option<String>,
    /// For `/api/export`: the file format (as `bake --format`).
    #[serde(default)]
    pub format: Option<String>,
}

fn default_size() -> [u32; 2] {
    [512, 512]
}

/// A rendered preview.
pub struct Preview {
    pub node: String,
    pub dims: u32,
    pub field: Field,
    /// The values mapped to black..white (the documented range, or min..max).
    pub range: (f32, f32),
    pub render_ms: f64,
    /// The flow mode's vectors, for `gradient` and `curl`.
    pub flow: Option<FlowVectors>,
    /// The view's extent (input units), so the page can turn vectors into pixel directions.
    pub extent: [f64; 2],
}

/// The vectors of a `gradient` or `curl` flow view: two f32 per pixel, row by row like the
/// samples, in view units (derivatives with respect to the view coordinates, as
/// `bake --field gradient|curl` writes them).
pub struct FlowVectors {
    pub mode: &'static str,
    pub vectors: Vec<f32>,
}

fn issue(field: &str, message: impl Into<String>) -> GraphIssue {
    GraphIssue {
        node: None,
        field: field.to_string(),
        message: message.into(),
    }
}

fn coordinates(
    field: &str,
    given: &[Coordinate],
    defaults: &[f64],
    positive: bool,
    issues: &mut Vec<GraphIssue>,
) -> Vec<f64> {
    let mut out = defaults.to_vec();
    if given.len() > defaults.len() {
        issues.push(issue(
            field,
            format!("at most {} numbers (got {})", defaults.len(), given.len()),
        ));
        return out;
    }
    for (slot, c) in out.iter_mut().zip(given) {
        let value = match c {
            Coordinate::Number(v) => Some(*v),
            Coordinate::Text(t) => t.trim().parse::<f64>().ok(),
        };
        match value {
            Some(v) if v.is_finite() && (!positive || v > 0.0) => *slot = v,
            _ => {
                let shown = match c {
                    Coordinate::Number(v) => v.to_string(),
                    Coordinate::Text(t) => format!("'{t}'"),
                };
                let wanted = if positive {
                    "a finite number greater than 0"
                } else {
                    "a finite number"
                };
                issues.push(issue(field, format!("must be {wanted} (got {shown})")));
            }
        }
    }
    out
}

/// Validates the request: every problem at once, each naming its node (for the graph's) and
/// field.
pub fn parse_request(
    request: &PreviewRequest,
) -> Result<(NoiseGraph, String, View, bool), Vec<GraphIssue>> {
    let mut issues = Vec::new();
    let graph = match NoiseGraph::from_value(&request.graph) {
        Ok(g) => Some(g),
        Err(e) => {
            issues.extend(e.0);
            None
        }
    };
    let [w, h] = request.size;
    if w == 0 || h == 0 || w > MAX_PREVIEW_SIDE || h > MAX_PREVIEW_SIDE {
        issues.push(issue(
            "size",
            format!("each side must be 1 to {MAX_PREVIEW_SIDE} pixels (got {w}x{h})"),
        ));
    }
    let origin = coordinates("origin", &request.origin, &[0.0; 3], false, &mut issues);
    let extent = coordinates("extent", &request.extent, &[1.0; 2], true, &mut issues);
    let minmax = match request.normalize.as_deref() {
        None | Some("range") => false,
        Some("minmax") => true,
        Some(other) => {
            issues.push(issue(
                "normalize",
                format!("unknown mode '{other}' (range, minmax)"),
            ));
            false
        }
    };
    if let Some(mode) = request.flow.as_deref() {
        if !FLOW_MODES.contains(&mode) {
            issues.push(issue(
                "flow",
                format!(
                    "unknown flow mode '{mode}' (this build has: {})",
                    FLOW_MODES.join(", ")
                ),
            ));
        }
    }
    let node = match &graph {
        Some(g) => {
            let node = request.node.clone().unwrap_or_else(|| g.output.clone());
            if g.node(&node).is_none() {
                issues.push(issue(
                    "node",
                    format!("the viewed node '{node}' is not in the graph"),
                ));
            }
            node
        }
        None => String::new(),
    };
    match graph {
        Some(graph) if issues.is_empty() => {
            let view = View::image(w, h)
                .with_origin([origin[0], origin[1], origin[2]])
                .with_extent([extent[0], extent[1], 1.0]);
            Ok((graph, node, view, minmax))
        }
        _ => Err(issues),
    }
}

/// Renders the request's node with the engine, as `bake` would.
pub fn render(executor: &Executor, request: &PreviewRequest) -> Result<Preview, Vec<GraphIssue>> {
    let (graph, node, view, minmax) = parse_request(request)?;
    let start = Instant::now();
    let engine_error = |e: Error| match e {
        Error::Graph(g) => g.0,
        other => vec![issue("render", other.to_string())],
    };
    let plan = Plan::new(&graph, Some(&node)).map_err(engine_error)?;
    // A preview changes from one run to the next: compiling specialized kernels would only
    // stall it.
    let options = RunOptions {
        specialize: Specialize::Never,
        ..RunOptions::default()
    };
    let flow_mode = request.flow.as_deref().and_then(|m| {
        FLOW_MODES
            .iter()
            .copied()
            .find(|&f| f == m && f != "heading")
    });
    let (field, flow) = match flow_mode {
        None => (
            executor.run(&plan, &view, &options).map_err(engine_error)?,
            None,
        ),
        Some(mode) => {
            if let Some(why) = gradient_refusal(&plan, &graph) {
                return Err(vec![issue(
                    "flow",
                    format!(
                        "flow mode '{mode}' needs the exact gradient of '{node}': {why} \
                         (the 'heading' mode follows any field)"
                    ),
                )]);
            }
            let gradient = executor
                .run_gradient(&plan, &view, &options)
                .map_err(engine_error)?;
            // On the CPU the value channel is the value bake, bit for bit; the GPU's gradient
            // run agrees only within the parity tolerance, so it bakes the values too.
            let field = match executor {
                Executor::Cpu => gradient.value(),
                Executor::Gpu(_) => executor.run(&plan, &view, &options).map_err(engine_error)?,
            };
            let curl = mode == "curl";
            let vectors = gradient
                .data
                .iter()
                .flat_map(|s| if curl { [s[2], -s[1]] } else { [s[1], s[2]] })
                .collect();
            (field, Some(FlowVectors { mode, vectors }))
        }
    };
    let render_ms = start.elapsed().as_secs_f64() * 1e3;
    let range = if minmax {
        field.min_max().unwrap_or((0.0, 1.0))
    } else {
        graph.range_of(&node)
    };
    Ok(Preview {
        dims: graph.dims_of(&node),
        node,
        field,
        range,
        render_ms,
        flow,
        extent: [view.extent[0], view.extent[1]],
    })
}

/// The problems as the page shows them: one entry per node and field.
pub fn issues_json(issues: &[GraphIssue]) -> Value {
    Value::Array(
        issues
            .iter()
            .map(|i| json!({ "node": i.node, "field": i.field, "message": i.message }))
            .collect(),
    )
}

/// The statistics `noisegraph analyze` reports: moments, histogram over [min, max], radial
/// power spectrum (mean power per radius in cycles per image, from r = 0) and anisotropy.
pub fn statistics(field: &Field) -> Value {
    let s = stats(&field.data, HISTOGRAM_BINS);
    let spectrum = power_spectrum(field, 0);
    let finite = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
    json!({
        "count": s.count,
        "min": finite(s.min),
        "max": finite(s.max),
        "mean": finite(s.mean),
        "std": finite(s.std),
        "histogram": s.histogram,
        "spectrum": spectrum.radial_profile().into_iter().map(finite).collect::<Vec<_>>(),
        "anisotropy": finite(spectrum.anisotropy()),
    })
}

/// The preview as one binary message: a little-endian u32 length, that many bytes of JSON
/// (everything but the samples), zero padding to a multiple of 4 bytes, then the samples as
/// little-endian f32, row by row from the top; for a `gradient` or `curl` flow view (the
/// header's `flow`), then two f32 per pixel, its vectors.
pub fn pack(preview: &Preview, generation: u64, backend: &str) -> Vec<u8> {
    let start = Instant::now();
    let statistics = statistics(&preview.field);
    let header = json!({
        "generation": generation,
        "node": preview.node,
        "dims": preview.dims,
        "width": preview.field.width,
        "height": preview.field.height,
        "range": [preview.range.0, preview.range.1],
        "render_ms": preview.render_ms,
        "stats_ms": start.elapsed().as_secs_f64() * 1e3,
        "backend": backend,
        "stats": statistics,
        "extent": preview.extent,
        "flow": preview.flow.as_ref().map(|f| json!({ "mode": f.mode, "components": 2 })),
    })
    .to_string();
    let vectors = preview.flow.as_ref().map_or(&[][..], |f| &f.vectors[..]);
    let mut out =
        Vec::with_capacity(8 + header.len() + (preview.field.data.len() + vectors.len()) * 4);
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    while out.len() % 4 != 0 {
        out.push(0);
    }
    for v in preview.field.data.iter().chain(vectors) {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// The request's colour ramp for the download (as `bake --ramp`, which takes an 8-bit PNG
/// only); a bad one is an issue at field `ramp`.
pub fn ramp_of(
    request: &PreviewRequest,
    format: Option<Format>,
) -> Result<Option<Ramp>, Vec<GraphIssue>> {
    let ramp = request
        .ramp
        .as_deref()
        .map(Ramp::parse)
        .transpose()
        .map_err(|e| vec![issue("ramp", e.to_string())])?;
    if ramp.is_some() {
        let options = WriteOptions {
            ramp: ramp.clone(),
            ..WriteOptions::default()
        };
        options
            .check(format.unwrap_or(Format::Png), 1)
            .map_err(|e| vec![issue("ramp", e.to_string())])?;
    }
    Ok(ramp)
}

/// The preview as the file `bake --format FORMAT [--ramp NAME]` writes for the same view,
/// byte for byte (PNG levels from the preview's range).
pub fn encode(preview: &Preview, format: Format, ramp: Option<Ramp>) -> Result<Vec<u8>, String> {
    let options = WriteOptions {
        ramp,
        ..WriteOptions::default()
    };
    encode_field_with(&preview.field, format, preview.range, &options).map_err(|e| e.to_string())
}

/// Renders one request at a time (a render uses every core) and drops a waiting request
/// whose page has since asked for a newer one.
#[derive(Default)]
pub struct RenderQueue {
    running: Mutex<()>,
    latest: Mutex<HashMap<String, u64>>,
}

/// Pages remembered by the queue; past this the map is cleared (a page then only loses the
/// dropping of its stale requests until its next one).
const MAX_SESSIONS: usize = 1024;

impl RenderQueue {
    /// Records that `session` has asked for `generation`.
    pub fn announce(&self, session: &str, generation: u64) {
        let mut latest = self.latest.lock().unwrap_or_else(|e| e.into_inner());
        if latest.len() >= MAX_SESSIONS && !latest.contains_key(session) {
            latest.clear();
        }
        let entry = latest.entry(session.to_string()).or_insert(generation);
        *entry = (*entry).max(generation);
    }

    /// Whether `session` has asked for something newer than `generation`.
    pub fn is_superseded(&self, session: &str, generation: u64) -> bool {
        let latest = self.latest.lock().unwrap_or_else(|e| e.into_inner());
        latest.get(session).is_some_and(|&g| g > generation)
    }

    /// Runs `work` when no other render runs, unless the request was superseded while it
    /// waited (`None`). Requests without a session are never superseded.
    pub fn run<T>(
        &self,
        session: Option<&str>,
        generation: u64,
        work: impl FnOnce() -> T,
    ) -> Option<T> {
        if let Some(s) = session {
            self.announce(s, generation);
        }
        let _running = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if session.is_some_and(|s| self.is_superseded(s, generation)) {
            return None;
        }
        Some(work())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    fn request(value: Value) -> PreviewRequest {
        serde_json::from_value(value).unwrap()
    }

    const GRAPH: &str = r#"{"seed": 3, "output": "f", "nodes": [
        {"id": "p", "type": "perlin", "frequency": 4},
        {"id": "f", "type": "fbm", "source": "p", "octaves": 3}]}"#;

    #[test]
    fn renders_the_viewed_node_like_bake() {
        let graph: Value = serde_json::from_str(GRAPH).unwrap();
        let req = request(json!({"graph": graph, "node": "p", "size": [64, 32],
            "origin": ["1000000.25", 2], "extent": [2, "0.5"]}));
        let preview = render(&Executor::Cpu, &req).unwrap();
        let expected = Executor::Cpu
            .bake(
                &NoiseGraph::from_value(&graph).unwrap(),
                Some("p"),
                &View::image(64, 32)
                    .with_origin([1000000.25, 2.0, 0.0])
                    .with_extent([2.0, 0.5, 1.0]),
            )
            .unwrap();
        assert_eq!(preview.field, expected);
        assert_eq!(preview.node, "p");
        let graph_value = NoiseGraph::from_value(&graph).unwrap();
        assert_eq!(preview.range, graph_value.range_of("p"));
        let minmax = render(
            &Executor::Cpu,
            &request(json!({"graph": graph, "size": [16, 16], "normalize": "minmax"})),
        )
        .unwrap();
        assert_eq!(Some(minmax.range), minmax.field.min_max());
    }

    #[test]
    fn png_download_takes_a_colour_ramp() {
        let graph: Value = serde_json::from_str(GRAPH).unwrap();
        let req = request(json!({"graph": graph, "size": [8, 4], "ramp": "magma"}));
        let ramp = ramp_of(&req, None).unwrap();
        let preview = render(&Executor::Cpu, &req).unwrap();
        let bytes = encode(&preview, Format::Png, ramp).unwrap();
        let mut reader = ::png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        reader.next_frame(&mut pixels).unwrap();
        assert_eq!(reader.info().color_type, ::png::ColorType::Rgb);
        let magma = Ramp::parse("magma").unwrap();
        let v = preview.field.data[0];
        assert_eq!(
            pixels[..3],
            magma.rgb8(noisegraph::io::normalize(v, preview.range))
        );
        let bad = ramp_of(&request(json!({"graph": graph, "ramp": "#12"})), None).unwrap_err();
        assert_eq!(bad[0].field, "ramp");
        let exr = ramp_of(&req, Some(Format::Exr)).unwrap_err();
        assert!(exr[0].message.contains("--ramp"), "{}", exr[0].message);
    }

    #[test]
    fn reports_every_problem_at_its_field() {
        let req = request(json!({
            "graph": {"seed": 1, "output": "p", "nodes": [
                {"id": "p", "type": "cellular", "frequency": -2, "jitter": 3}]},
            "size": [0, 10], "origin": ["1e400", "x"], "extent": [0], "normalize": "loud",
            "flow": "sideways"}));
        let issues = render(&Executor::Cpu, &req).err().unwrap();
        let at: Vec<(Option<&str>, &str)> = issues
            .iter()
            .map(|i| (i.node.as_deref(), i.field.as_str()))
            .collect();
        for expected in [
            (Some("p"), "frequency"),
            (Some("p"), "jitter"),
            (None, "size"),
            (None, "origin"),
            (None, "extent"),
            (None, "normalize"),
            (None, "flow"),
        ] {
            assert!(at.contains(&expected), "{expected:?} missing from {at:?}");
        }
        assert_eq!(at.iter().filter(|a| a.1 == "origin").count(), 2);
        let graph: Value = serde_json::from_str(GRAPH).unwrap();
        let issues = render(
            &Executor::Cpu,
            &request(json!({"graph": graph, "node": "nope"})),
        )
        .err()
        .unwrap();
        assert_eq!(issues[0].field, "node");
        assert!(issues[0].message.contains("'nope'"));
    }

    #[test]
    fn packs_header_and_samples() {
        let graph: Value = serde_json::from_str(GRAPH).unwrap();
        let preview = render(
            &Executor::Cpu,
            &request(json!({"graph": graph, "size": [8, 4]})),
        )
        .unwrap();
        let bytes = pack(&preview, 7, "CPU");
        let len = u32::from_le_bytes(bytes[..4].try_into().unwrap()) as usize;
        let header: Value = serde_json::from_slice(&bytes[4..4 + len]).unwrap();
        assert_eq!(header["generation"], 7);
        assert_eq!(header["width"], 8);
        assert_eq!(
            header["stats"]["histogram"].as_array().unwrap().len(),
            HISTOGRAM_BINS
        );
        let samples = &bytes[(4 + len).div_ceil(4) * 4..];
        assert_eq!(samples.len(), 32 * 4);
        let first = f32::from_le_bytes(samples[..4].try_into().unwrap());
        assert_eq!(first, preview.field.data[0]);
        let mean = preview.field.data.iter().map(|&v| v as f64).sum::<f64>() / 32.0;
        assert!((header["stats"]["mean"].as_f64().unwrap() - mean).abs() < 1e-9);
    }

    #[test]
    fn a_newer_request_supersedes_a_waiting_one() {
        let queue = Arc::new(RenderQueue::default());
        let hold = queue.running.lock().unwrap();
        let waiting = {
            let queue = queue.clone();
            std::thread::spawn(move || queue.run(Some("page"), 1, || "rendered 1"))
        };
        while !queue.latest.lock().unwrap().contains_key("page") {
            std::thread::sleep(Duration::from_millis(1));
        }
        queue.announce("page", 2);
        // Another page's request is not affected.
        queue.announce("other", 9);
        drop(hold);
        assert_eq!(waiting.join().unwrap(), None);
        assert_eq!(
            queue.run(Some("page"), 2, || "rendered 2"),
            Some("rendered 2")
        );
        assert_eq!(queue.run(Some("other"), 9, || 9), Some(9));
        assert_eq!(queue.run(None, 0, || 0), Some(0));
        assert_eq!(queue.run(Some("page"), 1, || "late"), None);
    }
}
