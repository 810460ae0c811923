//! Shared test helpers: the GPU context (one per test binary), parity assertions that write
//! both fields as images on failure, and small graph constructors.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use noisegraph::export::{write_field, Format};
use noisegraph::parity::{run_parity, StageParity};
use noisegraph::{Error, GpuContext, NoiseGraph, Plan, View};

/// The sizes every parity test covers: not multiples of the workgroup size.
pub const PARITY_SIZES: [[u32; 2]; 4] = [[1, 1], [257, 3], [1000, 1], [129, 67]];
/// Seeds drawn for parity tests.
pub const PARITY_SEEDS: [u32; 3] = [0, 1337, 4_000_000_007];

/// The GPU context, or `None` when there is no adapter. With `NOISEGRAPH_REQUIRE_GPU=1`
/// (set by CI) a missing adapter fails the test instead.
pub fn gpu() -> Option<Arc<GpuContext>> {
    static CTX: OnceLock<Option<Arc<GpuContext>>> = OnceLock::new();
    CTX.get_or_init(|| match GpuContext::new() {
        Ok(ctx) => Some(Arc::new(ctx)),
        Err(Error::NoAdapter) => {
            assert!(
                !noisegraph::gpu::gpu_required(),
                "NOISEGRAPH_REQUIRE_GPU=1 but wgpu found no adapter"
            );
            eprintln!(
                "no GPU adapter: GPU test skipped (set NOISEGRAPH_REQUIRE_GPU=1 to fail instead)"
            );
            None
        }
        Err(e) => panic!("opening the GPU failed: {e}"),
    })
    .clone()
}

/// A graph with a single node from a JSON object literal (without id) and a seed.
pub fn single_node(seed: u32, node: serde_json::Value) -> NoiseGraph {
    let mut node = node;
    node["id"] = serde_json::json!("n");
    let graph = serde_json::json!({ "seed": seed, "output": "n", "nodes": [node] });
    NoiseGraph::from_value(&graph).unwrap_or_else(|e| panic!("test graph invalid: {e}"))
}

fn failure_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("parity-failures");
    std::fs::create_dir_all(&dir).expect("create parity failure folder");
    dir
}

/// Writes both fields of a failed stage as PNGs for a person to look at.
pub fn dump_failure(label: &str, stage: &StageParity) -> PathBuf {
    let dir = failure_dir();
    let clean: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let range = stage.cpu.min_max().unwrap_or((-1.0, 1.0));
    for (name, field) in [("gpu", &stage.gpu), ("cpu", &stage.cpu)] {
        let path = dir.join(format!("{clean}_{}_{name}.png", stage.node));
        let _ = write_field(field, &path, Format::Png, range);
    }
    dir
}

/// Runs `graph` on both paths for `view` and asserts every stage agrees.
pub fn assert_parity_view(ctx: &GpuContext, graph: &NoiseGraph, view: &View, label: &str) {
    let plan = Plan::new(graph, None).expect("plan");
    let stages = run_parity(ctx, &plan, view).expect("parity run");
    for s in &stages {
        if !s.passed() {
            let dir = dump_failure(label, s);
            panic!(
                "{label}: stage '{}' ({}) at {:?}: max |gpu - cpu| = {:e}, {} of {} pixels over tolerance (allowed fraction {}); images in {}",
                s.node, s.family, view.size, s.max_abs, s.over, s.total, s.allowed_fraction, dir.display()
            );
        }
    }
}

/// Parity over every size in [`PARITY_SIZES`] and seed in [`PARITY_SEEDS`] for a node
/// given as a JSON object (the seed is substituted).
pub fn assert_parity_node(node: serde_json::Value, label: &str) {
    let Some(ctx) = gpu() else { return };
    for seed in PARITY_SEEDS {
        let graph = single_node(seed, node.clone());
        for [w, h] in PARITY_SIZES {
            assert_parity_view(
                &ctx,
                &graph,
                &View::image(w, h),
                &format!("{label} seed {seed}"),
            );
        }
    }
}

/// Runs a graph's output on the CPU path.
pub fn cpu_field(graph: &NoiseGraph, view: &View) -> noisegraph::Field {
    let plan = Plan::new(graph, None).expect("plan");
    noisegraph::engine::run_cpu(&plan, view, &Default::default()).expect("cpu run")
}

/// Runs a graph's output on the GPU path (None without an adapter, as for [`gpu`]).
pub fn gpu_field(graph: &NoiseGraph, view: &View) -> Option<noisegraph::Field> {
    let ctx = gpu()?;
    let plan = Plan::new(graph, None).expect("plan");
    Some(ctx.run(&plan, view, &Default::default()).expect("gpu run"))
}

/// A per-axis list for a `dims`-dimensional node: `values`, its last number repeated up to
/// `dims` entries (the graph format takes exactly one number per axis).
pub fn axes(values: &[f64], dims: u32) -> serde_json::Value {
    let last = *values.last().expect("at least one value");
    serde_json::json!((0..dims as usize)
        .map(|i| values.get(i).copied().unwrap_or(last))
        .collect::<Vec<f64>>())
}
