//! Exact gradients through the whole graph: every node kind against central differences of
//! its value field (converging at second order), the value channel against the value bake,
//! GPU against CPU, far from the origin, across tiles, the curl's divergence, and refusals.

// The graph of every node kind is one long json! literal.
#![recursion_limit = "512"]

mod common;

use noisegraph::engine::{run_cpu, run_cpu_gradient};
use noisegraph::graph::gradient_plan;
use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::{
    Backend, CompiledGraph, Executor, GradientField, NodeParam, NoiseGraph, Plan, RunOptions,
    VectorField, View,
};
use serde_json::json;

/// One graph holding every node kind; each test case bakes one of its nodes.
fn all_kinds(seed: u32) -> NoiseGraph {
    NoiseGraph::from_value(&json!({ "seed": seed, "output": "fbm", "nodes": [
        { "id": "p", "type": "perlin", "frequency": 3 },
        { "id": "s", "type": "simplex", "frequency": 2.5, "seed_offset": 3 },
        { "id": "v", "type": "value", "frequency": 4, "seed_offset": 5 },
        { "id": "p3", "type": "perlin", "dims": 3, "frequency": 3, "z": 0.3 },
        { "id": "s3", "type": "simplex", "dims": 3, "frequency": 2, "z": 0.7, "seed_offset": 9 },
        { "id": "fbm", "type": "fbm", "source": "p", "octaves": 4 },
        { "id": "ridged", "type": "ridged", "source": "s", "octaves": 3 },
        { "id": "billow", "type": "billow", "source": "v", "octaves": 3 },
        { "id": "fbm3", "type": "fbm", "source": "s3", "octaves": 3 },
        { "id": "warp_inline", "type": "warp", "source": "fbm", "displace": ["s", "v"], "amplitude": 0.1 },
        { "id": "neg", "type": "neg", "source": "s" },
        { "id": "warp_field", "type": "warp", "source": "ridged", "displace": ["neg", "billow"], "amplitude": 0.08 },
        { "id": "warp_of_warp", "type": "warp", "source": "p", "displace": ["warp_inline", "fbm"], "amplitude": 0.05 },
        { "id": "warp3", "type": "warp", "source": "fbm3", "displace": ["s3", "p3", "s3"], "amplitude": 0.1 },
        { "id": "add", "type": "add", "inputs": ["fbm", "ridged"] },
        { "id": "sub", "type": "sub", "inputs": ["fbm", "s"] },
        { "id": "mul", "type": "mul", "inputs": ["fbm", "billow"] },
        { "id": "mask", "type": "remap", "source": "v", "from": [-1, 1], "to": [0, 1] },
        { "id": "mix", "type": "mix", "inputs": ["fbm", "ridged", "mask"] },
        { "id": "min", "type": "min", "inputs": ["fbm", "s"] },
        { "id": "max", "type": "max", "inputs": ["fbm", "s"] },
        { "id": "abs", "type": "abs", "source": "fbm" },
        { "id": "clamp", "type": "clamp", "source": "fbm", "min": -0.2, "max": 0.3 },
        { "id": "scale_bias", "type": "scale_bias", "source": "ridged", "scale": 2, "bias": -1 },
        { "id": "constant", "type": "constant", "value": 0.4 },
        { "id": "mix3", "type": "mix", "inputs": ["warp3", "p3", "fbm3"] },
        { "id": "s4", "type": "simplex", "dims": 4, "frequency": 2, "z": 0.2, "w": 0.6, "seed_offset": 13 },
        { "id": "fbm4", "type": "fbm", "source": "s4", "octaves": 3 },
        { "id": "warp4", "type": "warp", "source": "fbm4", "displace": ["s", "v", "p", "s3"], "amplitude": 0.1 },
        { "id": "os2", "type": "opensimplex2", "frequency": 3, "seed_offset": 17 },
        { "id": "os2s3", "type": "opensimplex2", "dims": 3, "variant": "smooth", "frequency": 2, "z": 0.4 },
        { "id": "os2_4", "type": "opensimplex2", "dims": 4, "frequency": 2, "z": 0.1, "w": 0.3 },
        { "id": "warp_os2", "type": "warp", "source": "p", "displace": ["os2", "os2s3"], "amplitude": 0.1 },
        { "id": "cell", "type": "cellular", "frequency": 3, "seed_offset": 19 },
        { "id": "cell_sq", "type": "cellular", "metric": "euclidean_squared", "frequency": 3 },
        { "id": "cell_f2_man", "type": "cellular", "return": "f2", "metric": "manhattan", "frequency": 3 },
        { "id": "cell_diff_cheb", "type": "cellular", "return": "f2_minus_f1", "metric": "chebyshev", "frequency": 3 },
        { "id": "cell_value", "type": "cellular", "return": "cell_value", "frequency": 3 },
        { "id": "cell3", "type": "cellular", "dims": 3, "return": "f2_minus_f1", "frequency": 3, "z": 0.35 },
        { "id": "gabor", "type": "gabor", "frequency": 2, "seed_offset": 21 },
        { "id": "gabor3", "type": "gabor", "dims": 3, "orientation": "isotropic", "frequency": 2, "z": 0.2 },
        { "id": "phasor_sine", "type": "phasor", "frequency": 2, "seed_offset": 23 },
        { "id": "phasor_tri", "type": "phasor", "dims": 3, "profile": "triangle", "frequency": 2, "z": 0.6 },
        { "id": "phasor_saw", "type": "phasor", "profile": "sawtooth", "frequency": 2 },
        { "id": "phasor_square", "type": "phasor", "profile": "square", "frequency": 2 },
        { "id": "wave", "type": "wave", "waves": 32, "frequency": 2, "seed_offset": 25 },
        { "id": "wave_tri", "type": "wave", "dims": 3, "waves": 32, "profile": "triangle", "frequency": 2, "z": 0.1 },
        { "id": "wavelet", "type": "wavelet", "tile": 32, "frequency": 3, "seed_offset": 27 },
        { "id": "wavelet3", "type": "wavelet", "dims": 3, "tile": 16, "frequency": 3, "z": 0.45 },
        { "id": "ridged_cell", "type": "ridged", "source": "cell", "octaves": 3 },
        { "id": "fbm_gabor", "type": "fbm", "source": "gabor", "octaves": 3 },
        { "id": "billow_wavelet", "type": "billow", "source": "wavelet", "octaves": 3 },
        { "id": "fbm_wave", "type": "fbm", "source": "wave", "octaves": 2 },
        { "id": "warp_spectral", "type": "warp", "source": "wavelet", "displace": ["wave", "phasor_sine"], "amplitude": 0.05 },
        { "id": "warp_cells", "type": "warp", "source": "gabor", "displace": ["cell", "fbm_wave"], "amplitude": 0.04 },
        { "id": "mix_spectral", "type": "mix", "inputs": ["phasor_sine", "wavelet", "mask"] }
    ]}))
    .unwrap_or_else(|e| panic!("test graph: {e}"))
}

/// Every node of [`all_kinds`] (every node kind; the 4D families, whose w is no view axis but
/// moves under a 4D warp's fourth displacement; OpenSimplex2, with its auxiliary table) with a
/// step for central differences (view units): about 2% of
/// a lattice cell of the node's finest frequency, where the truncation error (second order
/// in the step) still dominates the f32 rounding of the sample positions.
const CASES: &[(&str, f64)] = &[
    ("p", 0.006),
    ("s", 0.006),
    ("v", 0.004),
    ("p3", 0.006),
    ("s3", 0.008),
    ("fbm", 0.001),
    ("ridged", 0.002),
    ("billow", 0.0012),
    ("fbm3", 0.003),
    ("warp_inline", 0.0015),
    ("neg", 0.006),
    ("warp_field", 0.0008),
    ("warp_of_warp", 0.002),
    ("warp3", 0.001),
    ("add", 0.001),
    ("sub", 0.001),
    ("mul", 0.001),
    ("mask", 0.004),
    ("mix", 0.001),
    ("min", 0.002),
    ("max", 0.002),
    ("abs", 0.001),
    ("clamp", 0.001),
    ("scale_bias", 0.002),
    ("mix3", 0.001),
    ("s4", 0.008),
    ("fbm4", 0.003),
    ("warp4", 0.0015),
    ("os2", 0.006),
    ("os2s3", 0.008),
    ("os2_4", 0.008),
    ("warp_os2", 0.004),
    ("cell", 0.004),
    ("cell_sq", 0.004),
    ("cell_f2_man", 0.004),
    ("cell_diff_cheb", 0.004),
    ("cell_value", 0.004),
    ("cell3", 0.004),
    ("gabor", 0.003),
    ("gabor3", 0.003),
    ("phasor_sine", 0.003),
    ("phasor_tri", 0.003),
    ("phasor_saw", 0.003),
    ("phasor_square", 0.003),
    ("wave", 0.003),
    ("wave_tri", 0.003),
    ("wavelet", 0.004),
    ("wavelet3", 0.004),
    ("ridged_cell", 0.0015),
    ("fbm_gabor", 0.001),
    ("billow_wavelet", 0.0015),
    ("fbm_wave", 0.0015),
    ("warp_spectral", 0.003),
    ("warp_cells", 0.002),
    ("mix_spectral", 0.003),
];

/// Whether a node has creases (ridged / billow octaves, abs, min, max, clamp; cellular
/// borders and metric kinks, gabor's envelope cut, phasor's and wave profiles' singular points
/// and crests, sawtooth and square jumps), directly or through an input: a few pixels' central
/// differences straddle one, and the paths may round a sample near one to different sides.
fn has_creases(node: &str) -> bool {
    node.starts_with("cell")
        || node.starts_with("phasor")
        || node.contains("gabor")
        || matches!(
            node,
            "ridged"
                | "wave_tri"
                | "ridged_cell"
                | "billow_wavelet"
                | "warp_spectral"
                | "warp_cells"
                | "mix_spectral"
                | "billow"
                | "warp_field"
                | "add"
                | "mul"
                | "mix"
                | "min"
                | "max"
                | "abs"
                | "clamp"
                | "scale_bias"
        )
}

/// Whether a node varies along z (3D and 4D families, and nodes over them).
fn is_3d(node: &str) -> bool {
    matches!(
        node,
        "p3" | "s3"
            | "fbm3"
            | "warp3"
            | "mix3"
            | "s4"
            | "fbm4"
            | "warp4"
            | "os2s3"
            | "os2_4"
            | "warp_os2"
            | "cell3"
            | "gabor3"
            | "phasor_tri"
            | "wave_tri"
            | "wavelet3"
    )
}

fn cpu_value(graph: &NoiseGraph, node: &str, view: &View) -> Vec<f32> {
    let plan = Plan::new(graph, Some(node)).expect("plan");
    run_cpu(&plan, view, &RunOptions::default())
        .expect("value bake")
        .data
}

fn cpu_gradient(graph: &NoiseGraph, node: &str, view: &View) -> GradientField {
    let plan = gradient_plan(graph, Some(node)).expect("gradient plan");
    run_cpu_gradient(&plan, view, &RunOptions::default()).expect("gradient bake")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// (median |analytic - central difference| over pixels and axes, median |gradient|) for
/// step `h`: the central difference of the value field along an axis is the difference of
/// two value bakes with the origin moved by -h and +h.
fn central_difference_error(
    graph: &NoiseGraph,
    node: &str,
    view: &View,
    g: &GradientField,
    h: f64,
) -> (f64, f64) {
    let axes = if is_3d(node) { 3 } else { 2 };
    let mut errors = Vec::new();
    let mut sizes = Vec::new();
    for a in 0..axes {
        let shifted = |sign: f64| {
            let mut origin = view.origin;
            origin[a] += sign * h;
            cpu_value(graph, node, &view.with_origin(origin))
        };
        let (lo, hi) = (shifted(-1.0), shifted(1.0));
        for (i, s) in g.data.iter().enumerate() {
            let cd = (hi[i] as f64 - lo[i] as f64) / (2.0 * h);
            errors.push((s[a + 1] as f64 - cd).abs());
            sizes.push((s[a + 1] as f64).abs());
        }
    }
    (median(errors), median(sizes))
}

/// Central differences approach the analytic gradient of every node kind at second order:
/// halving the step divides the median error by about 4 (at least 3; a wrong derivative
/// leaves an error that does not shrink, a first-order one halves it), and at the smaller
/// step the error is under 1% of the typical gradient. d/dz of a 2D node is exactly 0.
#[test]
fn every_node_kind_matches_central_differences_at_second_order() {
    let graph = all_kinds(11);
    let view = View::image(40, 36)
        .with_origin([0.31, -0.73, 0.0])
        .with_extent([0.5, 0.45, 1.0]);
    let failures: Vec<String> = CASES
        .iter()
        .filter_map(|&(node, h)| check_convergence(&graph, node, &view, h).err())
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
    // A constant has a zero gradient.
    let g = cpu_gradient(&graph, "constant", &view);
    assert!(g.data.iter().all(|s| s == &[0.4, 0.0, 0.0, 0.0]));
}

/// The convergence check of one node; the error says what failed.
fn check_convergence(graph: &NoiseGraph, node: &str, view: &View, h: f64) -> Result<(), String> {
    let g = cpu_gradient(graph, node, view);
    if !is_3d(node) {
        assert!(
            g.data.iter().all(|s| s[3] == 0.0),
            "{node}: d/dz of a 2D node"
        );
    }
    let (coarse, size) = central_difference_error(graph, node, view, &g, h);
    let (fine, _) = central_difference_error(graph, node, view, &g, h / 2.0);
    let ratio = coarse / fine;
    // Fields that are polynomials of degree 2 or less between their creases (Manhattan and
    // Chebyshev distances, squared Euclidean, flat cell values, the square profile) have exact
    // central differences: both errors are f32 rounding, far below any wrong derivative.
    let exact = 2e-5 * size.max(1.0);
    if coarse <= exact && fine <= exact {
        eprintln!("{node}: exact central differences (median error {coarse:.1e}, {fine:.1e})");
        return Ok(());
    }
    eprintln!(
        "{node} at {:?}: median |gradient| {size:.3}, median error {coarse:.2e} (h = {h}) -> {fine:.2e} (h / 2): ratio {ratio:.2}",
        view.origin
    );
    if ratio <= 3.0 {
        return Err(format!(
            "{node}: halving the step divided the error by {ratio} (second order: 4)"
        ));
    }
    if fine >= 0.01 * size {
        return Err(format!(
            "{node}: error {fine:e} against a typical gradient of {size}"
        ));
    }
    Ok(())
}

/// Far from the origin the host splits the origin per octave, so gradients are as exact at
/// x = 1e6 as at 0: the same convergence, and a typical gradient of the same size.
#[test]
fn gradients_stay_exact_far_from_the_origin() {
    let graph = all_kinds(23);
    for &(node, h) in &[("fbm", 0.001), ("warp_inline", 0.0015), ("mix", 0.001)] {
        let far = View::image(40, 36)
            .with_extent([0.5, 0.45, 1.0])
            .with_origin([1.0e6 + 0.25, -1.0e6, 0.0]);
        check_convergence(&graph, node, &far, h).unwrap_or_else(|e| panic!("{e}"));
    }
    // Over a region of many cells, the typical slope of fBm is the same near 0 and at 1e6.
    let near = View::image(256, 256).with_extent([8.0, 8.0, 1.0]);
    let far = near.with_origin([1.0e6 + 0.25, -1.0e6, 0.0]);
    let size = |view: &View| {
        let g = cpu_gradient(&graph, "fbm", view);
        median(
            g.data
                .iter()
                .map(|s| (s[1] as f64).hypot(s[2] as f64))
                .collect(),
        )
    };
    let (a, b) = (size(&near), size(&far));
    assert!(
        (a / b - 1.0).abs() < 0.1,
        "fbm: median |gradient| {a} at 0, {b} at 1e6"
    );
}

/// The value channel of a gradient bake is the value bake, bit for bit, on the CPU path
/// (the same positions, sums and samples); the GPU's within the parity tolerance.
#[test]
fn value_channel_is_the_value_bake() {
    let graph = all_kinds(5);
    let view = View::image(37, 29).with_origin([-2.5, 1.25, 0.0]);
    for &(node, _) in CASES {
        let g = cpu_gradient(&graph, node, &view);
        let v = cpu_value(&graph, node, &view);
        for (i, (s, v)) in g.data.iter().zip(&v).enumerate() {
            assert_eq!(s[0].to_bits(), v.to_bits(), "{node}: pixel {i}");
        }
    }
}

/// Split octave passes (a tiny octave budget) accumulate value and gradient through the
/// partial texture: the same field as one pass, bit for bit on the CPU.
#[test]
fn split_octave_passes_give_the_same_gradient() {
    let graph = all_kinds(8);
    let view = View::image(33, 21);
    let split = RunOptions {
        octave_budget: 33 * 21,
        ..RunOptions::default()
    };
    for node in ["fbm", "warp_field", "warp_of_warp"] {
        let plan = gradient_plan(&graph, Some(node)).expect("plan");
        let whole = run_cpu_gradient(&plan, &view, &RunOptions::default()).expect("whole");
        let parts = run_cpu_gradient(&plan, &view, &split).expect("split");
        assert_eq!(whole, parts, "{node}");
        if let Some(ctx) = common::gpu() {
            let gpu = ctx.run_gradient(&plan, &view, &split).expect("gpu split");
            let (worst, over) = compare(&gpu, &whole);
            assert!(over <= 0.001, "{node}: max difference {worst:e}");
        }
    }
}

/// The per-pixel tolerance of a gradient field: the value parity tolerance (1e-4) on the
/// value, and on the derivatives 1e-4 times the field's gradient scale (its median
/// |gradient|, at least 1). A derivative is a value times the frequencies and warp
/// amplitudes it passed through, so the two paths' rounding differences (FMA, the order of a
/// dot product) scale with it as the value's scale with 1; 1e-4 of that scale is the same
/// relative size as 1e-4 of a value in [-1, 1]. The median, not the largest, so that a
/// phasor's singular points (where the gradient grows as 1 / distance) do not loosen the
/// tolerance of the other pixels.
fn tolerance(cpu: &GradientField) -> [f32; 2] {
    let scale = median(
        cpu.data
            .iter()
            .map(|s| f64::from((s[1] * s[1] + s[2] * s[2] + s[3] * s[3]).sqrt()))
            .collect(),
    )
    .max(1.0) as f32;
    [PARITY_TOLERANCE, PARITY_TOLERANCE * scale]
}

/// (largest difference relative to the tolerance, fraction of pixels over tolerance), NaN
/// counted as over.
fn compare(gpu: &GradientField, cpu: &GradientField) -> (f32, f64) {
    assert_eq!(gpu.data.len(), cpu.data.len());
    let [tv, tg] = tolerance(cpu);
    let mut worst = 0.0f32;
    let mut over = 0usize;
    for (a, b) in gpu.data.iter().zip(&cpu.data) {
        let mut r = (a[0] - b[0]).abs() / tv;
        for c in 1..4 {
            r = r.max((a[c] - b[c]).abs() / tg);
        }
        let r = if r.is_nan() { f32::INFINITY } else { r };
        worst = worst.max(r);
        over += usize::from(r > 1.0);
    }
    (worst, over as f64 / cpu.data.len() as f64)
}

/// GPU against CPU for every node kind, seed and size (not multiples of the workgroup),
/// with NaN-poisoned outputs; see [`tolerance`]. Nodes with creases may differ on the 0.1% of
/// pixels the value parity allows at discontinuities (a sample within rounding of a crease
/// takes the other side's gradient).
#[test]
fn gpu_gradients_match_the_cpu_twin() {
    let Some(ctx) = common::gpu() else { return };
    let poisoned = RunOptions {
        poison: true,
        ..RunOptions::default()
    };
    let mut worst_all = 0.0f32;
    let mut worst_node = std::collections::BTreeMap::new();
    for (k, &seed) in common::PARITY_SEEDS.iter().enumerate() {
        let graph = all_kinds(seed);
        for (i, &(node, _)) in CASES.iter().enumerate() {
            let [w, h] = common::PARITY_SIZES[(i + k) % common::PARITY_SIZES.len()];
            let view = View::image(w, h).with_origin([-3.21, 7.13, 0.4]);
            let plan = gradient_plan(&graph, Some(node)).expect("plan");
            let gpu = ctx.run_gradient(&plan, &view, &poisoned).expect("gpu");
            let cpu = run_cpu_gradient(&plan, &view, &RunOptions::default()).expect("cpu");
            let (worst, over) = compare(&gpu, &cpu);
            let allowed = if has_creases(node) { 0.001 } else { 0.0 };
            assert!(
                over <= allowed && worst.is_finite(),
                "{node} seed {seed} {w}x{h}: worst difference {worst} tolerances, {over} of pixels over"
            );
            if over == 0.0 {
                worst_all = worst_all.max(worst);
            }
            let entry = worst_node.entry(node).or_insert((0.0f32, 0.0f64));
            *entry = (entry.0.max(worst), entry.1.max(over));
        }
    }
    eprintln!("gradient parity: worst difference {worst_all:.3} of the tolerance");
    for (node, (worst, over)) in worst_node {
        eprintln!("  {node}: worst {worst:.3e} tolerances, at most {over:.4} of pixels over");
    }
    // A volume, through 3D warps and point-wise stages.
    let graph = all_kinds(3);
    let view = View::volume(19, 13, 6).with_extent([0.5, 0.4, 0.3]);
    for node in ["fbm3", "warp3", "mix3"] {
        let plan = gradient_plan(&graph, Some(node)).expect("plan");
        let gpu = ctx.run_gradient(&plan, &view, &poisoned).expect("gpu");
        let cpu = run_cpu_gradient(&plan, &view, &RunOptions::default()).expect("cpu");
        let (worst, over) = compare(&gpu, &cpu);
        assert!(over == 0.0, "{node} volume: worst {worst} tolerances");
    }
}

/// A tile's gradients are the same pixels of the whole view (the lattice split and the
/// step are the whole view's), bit for bit on the CPU; on the GPU within parity.
#[test]
fn tiled_gradients_equal_the_whole_bake() {
    let graph = all_kinds(31);
    let whole = View::image(96, 80).with_origin([3.3, -1.7, 0.0]);
    let (offset, size) = ([40, 24, 0], [33, 29, 1]);
    let tile = whole.tile(offset, size);
    for node in [
        "fbm",
        "warp_inline",
        "warp_field",
        "warp_of_warp",
        "mix",
        "clamp",
    ] {
        let full = cpu_gradient(&graph, node, &whole);
        let part = cpu_gradient(&graph, node, &tile);
        for y in 0..size[1] {
            for x in 0..size[0] {
                assert_eq!(
                    part.get(x, y, 0),
                    full.get(x + offset[0], y + offset[1], 0),
                    "{node}: tile pixel ({x}, {y})"
                );
            }
        }
        if let Some(ctx) = common::gpu() {
            let plan = gradient_plan(&graph, Some(node)).expect("plan");
            let gpu = ctx
                .run_gradient(&plan, &tile, &RunOptions::default())
                .expect("gpu tile");
            let (worst, over) = compare(&gpu, &part);
            let allowed = if has_creases(node) { 0.001 } else { 0.0 };
            assert!(over <= allowed, "{node}: worst {worst} tolerances");
        }
    }
}

/// A tile of a volume's curl, even one slice thick, is the volume's curl (3 components from
/// the three potential copies), the same pixels bit for bit; a tile of an image's curl is the
/// image's.
#[test]
fn tiled_curls_equal_the_whole_bake() {
    let graph = all_kinds(37);
    let cpu = Executor::Cpu;
    let plan = gradient_plan(&graph, Some("fbm3")).expect("plan");
    let volume = View::volume(20, 14, 6).with_origin([0.5, -2.0, 1.25]);
    let whole = cpu
        .run_curl(&plan, &volume, &RunOptions::default())
        .unwrap();
    for (offset, size) in [([3, 2, 4], [11, 9, 1]), ([0, 5, 1], [20, 4, 3])] {
        let tile = cpu
            .run_curl(&plan, &volume.tile(offset, size), &RunOptions::default())
            .unwrap();
        assert_eq!(
            tile.components, 3,
            "a one-slice tile of a volume is a volume"
        );
        for z in 0..size[2] {
            for y in 0..size[1] {
                for x in 0..size[0] {
                    assert_eq!(
                        tile.get(x, y, z),
                        whole.get(x + offset[0], y + offset[1], z + offset[2]),
                        "tile {offset:?} pixel ({x}, {y}, {z})"
                    );
                }
            }
        }
    }
    let plan = gradient_plan(&graph, Some("fbm")).expect("plan");
    let image = View::image(30, 20);
    let whole = cpu.run_curl(&plan, &image, &RunOptions::default()).unwrap();
    let tile = cpu
        .run_curl(
            &plan,
            &image.tile([7, 3, 0], [10, 12, 1]),
            &RunOptions::default(),
        )
        .unwrap();
    assert_eq!(tile.components, 2);
    assert_eq!(tile.get(4, 5, 0), whole.get(11, 8, 0));
}

/// Central-difference divergence of a flow field over its interior, relative to the size
/// of its derivatives: (mean |div|, mean of the sum of |d u_a / d x_a|).
fn divergence_ratio(field: &VectorField, spacing: [f64; 3]) -> f64 {
    let (w, h, d) = (field.width, field.height, field.depth);
    let dims = field.components as usize;
    let mut div_sum = 0.0;
    let mut size_sum = 0.0;
    let z_range = if d > 1 { 1..d - 1 } else { 0..1 };
    for z in z_range {
        for y in 1..h - 1 {
            for x in 1..w - 1 {
                let mut div = 0.0;
                let mut size = 0.0;
                for a in 0..dims {
                    let (lo, hi) = match a {
                        0 => (field.get(x - 1, y, z), field.get(x + 1, y, z)),
                        1 => (field.get(x, y - 1, z), field.get(x, y + 1, z)),
                        _ => (field.get(x, y, z - 1), field.get(x, y, z + 1)),
                    };
                    let term = (hi[a] as f64 - lo[a] as f64) / (2.0 * spacing[a]);
                    div += term;
                    size += term.abs();
                }
                div_sum += div.abs();
                size_sum += size;
            }
        }
    }
    div_sum / size_sum
}

/// `run_curl` is divergence-free: its central-difference divergence is a small fraction of
/// its derivatives' size and falls about 4 times when the resolution doubles (the
/// divergence of the sampled field is the central differences' truncation error), while the
/// gradient field of the same noise, which is not divergence-free, scores near 1.
#[test]
fn curl_is_divergence_free() {
    let graph = all_kinds(17);
    let cpu = Executor::new(Backend::Cpu).expect("cpu");
    let mut ratios = Vec::new();
    for n in [128u32, 512] {
        let view = View::image(n, n);
        let curl = cpu.bake_curl(&graph, Some("fbm"), &view).expect("curl");
        assert_eq!(curl.components, 2);
        let spacing = [1.0 / n as f64, 1.0 / n as f64, 1.0];
        let ratio = divergence_ratio(&curl, spacing);
        // The gradient as a flow (d/dx, d/dy): its divergence is the Laplacian.
        let g = cpu
            .bake_gradient(&graph, Some("fbm"), &view)
            .expect("gradient");
        let flow = VectorField::new(
            n,
            n,
            1,
            2,
            g.interleaved(3)[..]
                .chunks(3)
                .flat_map(|s| [s[1], s[2]])
                .collect(),
        );
        let gradient_ratio = divergence_ratio(&flow, spacing);
        eprintln!("curl 2D {n}x{n}: divergence / derivatives = {ratio:.2e} (the gradient's: {gradient_ratio:.2})");
        assert!(gradient_ratio > 0.3, "the check can see a divergence");
        ratios.push(ratio);
    }
    assert!(ratios[1] < 0.01, "curl divergence ratio {}", ratios[1]);
    // Four times the resolution: 16 times less at second order.
    assert!(ratios[0] / ratios[1] > 10.0, "second order: {ratios:?}");
    // 3D: the curl of three decorrelated copies.
    let view = View::volume(64, 64, 64).with_extent([0.4, 0.4, 0.4]);
    let curl = cpu.bake_curl(&graph, Some("fbm3"), &view).expect("curl 3D");
    assert_eq!(curl.components, 3);
    let ratio = divergence_ratio(&curl, [0.4 / 64.0; 3]);
    eprintln!("curl 3D 64^3: divergence / derivatives = {ratio:.2e}");
    assert!(ratio < 0.01, "3D curl divergence ratio {ratio}");
    // The three copies differ (decorrelated seeds): the curl is not the curl of one field
    // (which would be zero).
    let size = curl.data.iter().map(|v| v.abs() as f64).sum::<f64>() / curl.data.len() as f64;
    assert!(size > 0.1, "mean |curl component| {size}");
    // GPU and CPU curls agree.
    if let Some(ctx) = common::gpu() {
        let gpu = Executor::Gpu(ctx);
        let view = View::image(64, 48);
        let a = gpu
            .bake_curl(&graph, Some("warp_inline"), &view)
            .expect("gpu curl");
        let b = cpu
            .bake_curl(&graph, Some("warp_inline"), &view)
            .expect("cpu curl");
        let scale = b.data.iter().fold(1.0f32, |m, v| m.max(v.abs()));
        let worst = a
            .data
            .iter()
            .zip(&b.data)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max);
        assert!(
            worst <= PARITY_TOLERANCE * scale,
            "curl {worst} of scale {scale}"
        );
    }
}

/// Every family, in every dims and with every value of each of its choice parameters in
/// turn, bakes in gradient form (alone, under fbm and under a warp) on both paths, except
/// simplex's classic falloff (3D, 4D), which jumps wherever the simplex changes: refused,
/// naming the node, the family node and why.
#[test]
fn gradient_bakes_refuse_exactly_what_cannot_be_differentiated() {
    use noisegraph::family::ParamKind;
    let mut executors = vec![Executor::new(Backend::Cpu).expect("cpu")];
    if let Some(ctx) = common::gpu() {
        executors.push(Executor::Gpu(ctx));
    }
    let view = View::image(8, 8);
    let mut refused = Vec::new();
    for fam in noisegraph::family::registry() {
        let mut variants = vec![json!({})];
        for spec in fam.params() {
            if let ParamKind::Choice { options, .. } = spec.kind {
                variants.extend(options.iter().map(|o| json!({ spec.name: o })));
            }
        }
        for &dims in fam.dims() {
            for variant in &variants {
                let mut node =
                    json!({ "id": "n", "type": fam.name(), "dims": dims, "frequency": 3 });
                for (k, v) in variant.as_object().expect("object") {
                    node[k] = v.clone();
                }
                let graph = NoiseGraph::from_value(&json!({ "seed": 1, "output": "w", "nodes": [
                    node,
                    { "id": "f", "type": "fbm", "source": "n", "octaves": 2 },
                    { "id": "d", "type": "perlin", "dims": dims.min(3), "frequency": 2 },
                    { "id": "w", "type": "warp", "source": "f", "displace": vec!["d"; dims as usize], "amplitude": 0.1 }
                ]}))
                .expect("graph");
                let label = format!("{} {dims}D {variant}", fam.name());
                let classic =
                    fam.name() == "simplex" && dims > 2 && variant["falloff"] == "classic";
                // The GPU bakes the warp only (its plan holds the other two's stages): each
                // new variant costs a shader compilation.
                for (k, executor) in executors.iter().enumerate() {
                    let nodes: &[&str] = if k == 0 { &["n", "f", "w"] } else { &["w"] };
                    for &node in nodes {
                        match executor.bake_gradient(&graph, Some(node), &view) {
                            Ok(g) => {
                                assert!(!classic, "{label}: {node} baked");
                                assert!(g.data.iter().flatten().all(|v| v.is_finite()), "{label}");
                            }
                            Err(e) => {
                                let text = e.to_string();
                                assert!(classic, "{label}: {node} refused: {text}");
                                for part in [
                                    format!("node '{node}'"),
                                    "simplex".into(),
                                    "falloff 'classic'".into(),
                                ] {
                                    assert!(text.contains(&part), "'{part}' missing from: {text}");
                                }
                                if node != "n" {
                                    assert!(text.contains("'n'"), "names the family node: {text}");
                                }
                                refused.push(label.clone());
                            }
                        }
                    }
                }
            }
        }
    }
    assert_eq!(refused.len(), 2 * (3 + executors.len() - 1), "{refused:?}");
}

/// A `CompiledGraph` in gradient form writes (value, d/dx, d/dy, d/dz) into the caller's
/// Rgba32Float target, follows per-frame changes without creating pipelines, and refuses a
/// target of the value format.
#[test]
fn compiled_graph_writes_gradients_each_frame() {
    let Some(shared) = common::gpu() else { return };
    // A context of its own, so that other tests' pipelines do not count.
    let ctx = std::sync::Arc::new(noisegraph::GpuContext::from_device(
        shared.device().clone(),
        shared.queue().clone(),
    ));
    let graph = all_kinds(41);
    let view = View::image(45, 31).with_origin([0.5, 0.25, 0.0]);
    let mut compiled =
        CompiledGraph::new_gradient(&ctx, &graph, Some("warp_of_warp"), view).expect("compile");
    let target = compiled.create_target();
    assert_eq!(target.format(), wgpu::TextureFormat::Rgba32Float);
    let created = ctx.pipeline_creations();
    for frame in 0..3 {
        compiled
            .set_node_param("p", NodeParam::Frequency(3.0 + frame as f64 * 0.25))
            .expect("param");
        compiled
            .set_origin([0.5 + frame as f64, 0.25, 0.0])
            .expect("origin");
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        compiled.record(&mut encoder, &target).expect("record");
        ctx.queue().submit(Some(encoder.finish()));
        let gpu = compiled.read_gradient_target(&target).expect("read");
        let mut value = graph.to_json();
        let p = value["nodes"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|n| n["id"] == "p")
            .unwrap();
        p["frequency"] = json!(3.0 + frame as f64 * 0.25);
        let moved = NoiseGraph::from_value(&value).expect("graph");
        let frame_view = view.with_origin([0.5 + frame as f64, 0.25, 0.0]);
        let cpu = cpu_gradient(&moved, "warp_of_warp", &frame_view);
        let (worst, over) = compare(&gpu, &cpu);
        assert_eq!(over, 0.0, "frame {frame}: worst {worst} tolerances");
        // The graph's own CPU reference of the frame is the same field.
        assert_eq!(compiled.cpu_gradient_reference().expect("reference"), cpu);
    }
    assert_eq!(ctx.pipeline_creations(), created, "no pipeline per frame");
    let value_target = CompiledGraph::new(&ctx, &graph, Some("p"), view)
        .expect("value graph")
        .create_target();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    let err = compiled
        .record(&mut encoder, &value_target)
        .expect_err("an R32Float target is refused");
    assert!(err.to_string().contains("Rgba32Float"), "{err}");
}

fn tool() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_noisegraph"))
}

/// A float32 `.npy` file: its shape and numbers.
fn read_npy(path: &std::path::Path) -> (Vec<usize>, Vec<f32>) {
    let bytes = std::fs::read(path).expect("npy file");
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let text = String::from_utf8_lossy(&bytes[10..10 + header]).to_string();
    let shape = text
        .split("'shape': (")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .expect("shape")
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().parse().expect("dimension"))
        .collect();
    let data = bytes[10 + header..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    (shape, data)
}

/// `bake --output gradient|curl` writes what the library computes, as npy (H, W, 3),
/// (D, H, W, 4), (H, W, 2), (D, H, W, 3) and EXR with named channels; tiles (per file and
/// stitched) match the whole bake; PNG and non-differentiable nodes are refused with exit
/// code 2 and nothing written.
#[test]
fn cli_bakes_gradient_and_curl() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gradient_cli");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let graph = all_kinds(7);
    let path = dir.join("g.json");
    std::fs::write(&path, graph.to_json().to_string()).expect("graph");
    let bake = |args: &[&str]| {
        let run = tool()
            .arg("bake")
            .arg(&path)
            .args(["--backend", "cpu"])
            .args(args)
            .output()
            .expect("run noisegraph");
        (
            run.status.code(),
            String::from_utf8_lossy(&run.stderr).into_owned(),
        )
    };
    let out = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let cpu = Executor::new(Backend::Cpu).expect("cpu");
    let image = View::image(48, 40);
    let volume = View::volume(16, 12, 5);

    let (code, err) = bake(&[
        "-o",
        &out("g.npy"),
        "--node",
        "warp_of_warp",
        "--size",
        "48x40",
        "--output",
        "gradient",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (shape, data) = read_npy(&dir.join("g.npy"));
    assert_eq!(shape, vec![40, 48, 3]);
    let g = cpu
        .bake_gradient(&graph, Some("warp_of_warp"), &image)
        .expect("gradient");
    assert_eq!(data, g.interleaved(3));

    // Graphs over cellular, gabor, phasor, wave and wavelet bake gradients, curls and
    // analytic normal maps on both paths; the GPU's files are the CPU's within the parity
    // tolerance of gradients.
    for node in ["warp_cells", "mix_spectral", "phasor_tri", "fbm_wave"] {
        let expected = cpu.bake_gradient(&graph, Some(node), &image).expect(node);
        let [tv, tg] = tolerance(&expected);
        for backend in ["cpu", "gpu"] {
            if backend == "gpu" && common::gpu().is_none() {
                continue;
            }
            for (output, channels) in [("gradient", 3), ("curl", 2)] {
                let file = out(&format!("{node}_{output}_{backend}.npy"));
                let run = tool()
                    .arg("bake")
                    .arg(&path)
                    .args(["--backend", backend, "-o", &file, "--node", node])
                    .args(["--size", "48x40", "--output", output])
                    .output()
                    .expect("run noisegraph");
                let err = String::from_utf8_lossy(&run.stderr);
                assert_eq!(
                    run.status.code(),
                    Some(0),
                    "{node} {output} {backend}: {err}"
                );
                let (shape, data) = read_npy(std::path::Path::new(&file));
                assert_eq!(shape, vec![40, 48, channels], "{node} {output}");
                let want: Vec<f32> = match output {
                    "gradient" => expected.interleaved(3),
                    _ => expected.data.iter().flat_map(|s| [s[2], -s[1]]).collect(),
                };
                for (i, (a, b)) in data.iter().zip(&want).enumerate() {
                    let t = if output == "gradient" && i % 3 == 0 {
                        tv
                    } else {
                        tg
                    };
                    assert!(
                        (a - b).abs() <= t,
                        "{node} {output} {backend}: sample {i}: {a} against {b}"
                    );
                }
            }
            let file = out(&format!("{node}_normals_{backend}.png"));
            let run = tool()
                .arg("bake")
                .arg(&path)
                .args(["--backend", backend, "-o", &file, "--node", node])
                .args(["--size", "48x40", "--normal-map", "analytic"])
                .output()
                .expect("run noisegraph");
            let err = String::from_utf8_lossy(&run.stderr);
            assert_eq!(
                run.status.code(),
                Some(0),
                "{node} normals {backend}: {err}"
            );
        }
    }

    let (code, err) = bake(&[
        "-o",
        &out("g3.npy"),
        "--node",
        "mix3",
        "--size",
        "16x12x5",
        "--output",
        "gradient",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (shape, data) = read_npy(&dir.join("g3.npy"));
    assert_eq!(shape, vec![5, 12, 16, 4]);
    assert_eq!(
        data,
        cpu.bake_gradient(&graph, Some("mix3"), &volume)
            .unwrap()
            .interleaved(4)
    );

    let (code, err) = bake(&[
        "-o",
        &out("c.npy"),
        "--node",
        "fbm",
        "--size",
        "48x40",
        "--output",
        "curl",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (shape, data) = read_npy(&dir.join("c.npy"));
    assert_eq!(shape, vec![40, 48, 2]);
    assert_eq!(
        data,
        cpu.bake_curl(&graph, Some("fbm"), &image).unwrap().data
    );

    let (code, err) = bake(&[
        "-o",
        &out("c3.npy"),
        "--node",
        "fbm3",
        "--size",
        "16x12x5",
        "--output",
        "curl",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (shape, data) = read_npy(&dir.join("c3.npy"));
    assert_eq!(shape, vec![5, 12, 16, 3]);
    assert_eq!(
        data,
        cpu.bake_curl(&graph, Some("fbm3"), &volume).unwrap().data
    );

    // EXR: one named f32 channel each.
    let (code, err) = bake(&[
        "-o",
        &out("g.exr"),
        "--node",
        "fbm",
        "--size",
        "48x40",
        "--output",
        "gradient",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let exr = exr::prelude::read_all_flat_layers_from_file(dir.join("g.exr")).expect("exr");
    let layer = &exr.layer_data[0];
    let g = cpu.bake_gradient(&graph, Some("fbm"), &image).unwrap();
    let mut names = Vec::new();
    for channel in &layer.channel_data.list {
        let name = channel.name.to_string();
        let c = ["value", "gradient.x", "gradient.y"]
            .iter()
            .position(|n| *n == name)
            .unwrap_or_else(|| panic!("unexpected channel {name}"));
        let samples: Vec<f32> = channel.sample_data.values_as_f32().collect();
        assert_eq!(samples, g.channel(c).data, "{name}");
        names.push(name);
    }
    assert_eq!(names.len(), 3, "{names:?}");

    // Tiles: stitched equals whole; one file per tile holds that tile.
    let (code, err) = bake(&[
        "-o",
        &out("t.npy"),
        "--node",
        "warp_field",
        "--size",
        "48x40",
        "--output",
        "gradient",
        "--tile",
        "16",
        "--stitch",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let whole = cpu
        .bake_gradient(&graph, Some("warp_field"), &image)
        .unwrap();
    assert_eq!(read_npy(&dir.join("t.npy")).1, whole.interleaved(3));
    let (code, err) = bake(&[
        "-o",
        &out("pt.npy"),
        "--node",
        "warp_field",
        "--size",
        "48x40",
        "--output",
        "curl",
        "--tile",
        "32",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let (shape, data) = read_npy(&dir.join("pt_r01_c01.npy"));
    assert_eq!(shape, vec![8, 16, 2]);
    let curl = noisegraph::curl::curl_2d(&whole);
    for y in 0..8u32 {
        for x in 0..16u32 {
            let i = (y * 16 + x) as usize * 2;
            assert_eq!(
                &data[i..i + 2],
                curl.get(32 + x, 32 + y, 0),
                "tile pixel ({x}, {y})"
            );
        }
    }

    // Refusals: PNG, --normal-map together, an unknown output; nothing written.
    for (args, part) in [
        (
            vec!["-o", &out("x.png"), "--output", "gradient"],
            "npy or .exr",
        ),
        (
            vec![
                "-o",
                &out("y.npy"),
                "--output",
                "curl",
                "--normal-map",
                "analytic",
            ],
            "--normal-map",
        ),
        (
            vec!["-o", &out("z.npy"), "--output", "slope"],
            "value, gradient, curl",
        ),
    ] {
        let (code, err) = bake(&args);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(part), "'{part}' missing from: {err}");
    }
    for name in ["x.png", "y.npy", "z.npy"] {
        assert!(!dir.join(name).exists(), "{name} written");
    }
    // Simplex's classic falloff jumps: refused by name, nothing written.
    let text = json!({ "seed": 1, "output": "f", "nodes": [
        { "id": "c", "type": "simplex", "dims": 3, "falloff": "classic", "frequency": 3 },
        { "id": "f", "type": "fbm", "source": "c", "octaves": 2 }
    ]});
    let lacking_path = dir.join("lacking.json");
    std::fs::write(&lacking_path, text.to_string()).unwrap();
    let run = tool()
        .args(["bake", lacking_path.to_str().unwrap(), "-o"])
        .arg(dir.join("l.npy"))
        .args(["--output", "gradient", "--backend", "cpu"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    for part in ["node 'f'", "'c'", "simplex", "falloff 'classic'"] {
        assert!(err.contains(part), "'{part}' missing from: {err}");
    }
    assert!(!dir.join("l.npy").exists());
}

/// Every field of [`all_kinds`] stays finite in gradient form (no NaN from a remap slope or
/// a warp term), on a view that crosses lattice lines and integer coordinates.
#[test]
fn gradients_are_finite() {
    let graph = all_kinds(2);
    let view = View::image(64, 64)
        .with_origin([-1.0, -1.0, 0.0])
        .with_extent([2.0, 2.0, 1.0]);
    for &(node, _) in CASES {
        let g = cpu_gradient(&graph, node, &view);
        assert!(g.data.iter().flatten().all(|v| v.is_finite()), "{node}");
    }
}
