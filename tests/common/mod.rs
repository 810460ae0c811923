//! Shared test helpers: the GPU context (one per test binary), parity assertions that write
//! both fields as images on failure, and small graph constructors.
#![allow(dead_code)]

pub mod catalog;
pub mod glslang;
pub mod gradient_check;
pub mod user_shader;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use noisegraph::io::{write_field, Format};
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
    {
        let clean: String = label
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let range = stage.cpu.min_max().unwrap_or((-1.0, 1.0));
        for (name, field) in [("gpu", &stage.gpu), ("cpu", &stage.cpu)] {
            let path = dir.join(format!("{clean}_{}_{name}.png", stage.node));
            let _ = write_field(field, &path, Format::Png, range);
        }
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

/// A family node given as a JSON object (without id) with a graph seed, as both paths
/// evaluate it: its parameters, uniforms and auxiliary table (see `FamilyProbe`).
pub fn family_probe(seed: u32, node: serde_json::Value) -> noisegraph::gpu::FamilyProbe {
    noisegraph::gpu::FamilyProbe::of_graph(&single_node(seed, node))
        .unwrap_or_else(|e| panic!("probe: {e}"))
}

/// `count` sample points spread over `[0, span)^dims` of `local` (a Weyl sequence, so no
/// random generator is needed), with cells far apart and near the i32 wrap, several seed
/// hashes and no period.
pub fn probe_points(count: usize, dims: u32, span: f32) -> Vec<noisegraph::family::SamplePoint> {
    const ALPHA: [f64; 4] = [
        0.754_877_666_246_692_7,
        0.569_840_290_998_053_3,
        0.438_135_6,
        0.347_810_384_779_256_8,
    ];
    const CELLS: [[i32; 4]; 4] = [
        [0, 0, 0, 0],
        [-40, 89, -83, 7],
        [123_456, -654_321, 99, -5],
        [i32::MAX, i32::MIN, i32::MAX - 1, 0],
    ];
    (0..count)
        .map(|i| {
            let mut local = [0.0f32; 4];
            for (a, l) in local.iter_mut().enumerate().take(dims as usize) {
                *l = (((i as f64 + 0.5) * ALPHA[a]).fract() * span as f64) as f32;
            }
            let mut cell = CELLS[i % CELLS.len()];
            cell[dims as usize..].fill(0);
            noisegraph::family::SamplePoint {
                cell,
                local,
                seed: noisegraph::twin::hash::seed_hash(1234 + (i % 7) as u32),
                period: [0; 4],
            }
        })
        .collect()
}

/// How far a family's gradient form on the GPU is from its CPU twin over a set of points.
#[derive(Debug, Clone, Copy)]
pub struct GradParity {
    /// Largest |value_gpu - value_cpu|.
    pub value_max: f32,
    /// The gradient's scale: the median of |d| (CPU) over the points.
    pub grad_scale: f32,
    /// Largest max-norm |d_gpu - d_cpu| divided by `grad_scale`.
    pub grad_max_rel: f32,
    /// Points over either tolerance (a NaN on either side counts).
    pub over: usize,
    /// Points compared.
    pub total: usize,
}

/// Evaluates `probe`'s gradient form on the GPU and on its CPU twin at `points` and asserts
/// they agree: values within the parity tolerance (1e-4 absolute), derivatives within
/// `relative` times the gradient's scale (the median of |d| over the points, so the tolerance
/// follows the family's frequency, and the few huge gradients near a phasor's singular points
/// do not loosen it), except on at most `allowed_fraction` of the
/// points (a family's documented non-smooth set: ties, singular points); a NaN never passes.
/// `None` without an adapter (as [`gpu`]).
pub fn assert_family_grad_parity(
    label: &str,
    probe: &noisegraph::gpu::FamilyProbe,
    points: &[noisegraph::family::SamplePoint],
    relative: f32,
    allowed_fraction: f64,
) -> Option<GradParity> {
    let ctx = gpu()?;
    let cpu = probe
        .cpu_grad(points)
        .unwrap_or_else(|| panic!("{label}: no CPU gradient form"));
    let gpu = ctx
        .probe_family_grad(probe, points)
        .unwrap_or_else(|e| panic!("{label}: GPU probe: {e}"));
    let norm = |d: &[f32; 4]| d.iter().map(|v| (*v as f64).powi(2)).sum::<f64>();
    let mean_square = cpu
        .iter()
        .map(|g| norm(&g.d))
        .filter(|v| v.is_finite())
        .sum::<f64>()
        / cpu.len() as f64;
    let grad_scale = (mean_square.sqrt() as f32).max(f32::MIN_POSITIVE);
    let mut parity = GradParity {
        value_max: 0.0,
        grad_scale,
        grad_max_rel: 0.0,
        over: 0,
        total: points.len(),
    };
    let mut nan = 0usize;
    for (g, c) in gpu.iter().zip(&cpu) {
        let dv = (g.value - c.value).abs();
        let dd = (0..4)
            .map(|a| (g.d[a] - c.d[a]).abs())
            .fold(
                0.0f32,
                |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) },
            );
        let dv = if dv.is_nan() { f32::INFINITY } else { dv };
        nan += usize::from(dv.is_infinite() || dd.is_infinite());
        let rel = dd / grad_scale;
        parity.over += usize::from(dv > noisegraph::parity::PARITY_TOLERANCE || rel > relative);
        parity.value_max = parity.value_max.max(dv);
        parity.grad_max_rel = parity.grad_max_rel.max(rel);
    }
    eprintln!(
        "{label}: GPU vs CPU over {} points: value max {:.1e}, gradient max {:.1e} of its scale {:.3}, {} over",
        parity.total, parity.value_max, parity.grad_max_rel, parity.grad_scale, parity.over
    );
    assert_eq!(nan, 0, "{label}: NaN or infinity on one path: {parity:?}");
    assert!(
        parity.over as f64 <= allowed_fraction * parity.total as f64,
        "{label}: {} of {} points over (value 1e-4, gradient {relative} of its scale; allowed fraction {allowed_fraction}): {parity:?}",
        parity.over,
        parity.total
    );
    Some(parity)
}

/// The median of |d| over a set of gradients (0 for an empty set).
pub fn median_gradient(grads: &[noisegraph::family::NoiseGrad]) -> f32 {
    let mut norms: Vec<f32> = grads
        .iter()
        .map(|g| g.d.iter().map(|v| v * v).sum::<f32>().sqrt())
        .collect();
    norms.sort_by(f32::total_cmp);
    norms.get(norms.len() / 2).copied().unwrap_or(0.0)
}
