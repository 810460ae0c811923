//! The remaps (`pow`, `smoothstep`, `quantize`, `terrace`) and blends (`smooth_min`,
//! `smooth_max`, `select`) of issue 31: GPU against CPU within the parity tolerance (values
//! and gradients), the exact gradient against central differences, continuity scans where
//! the node is continuous (and the jumps of `quantize` and a hard `select` found), the
//! identities (`smooth_min` / `smooth_max` with k = 0 are `min` / `max` bit for bit, `pow` 1
//! and a `select` far below its threshold are their sources), and the errors of bad fields.
//! Point queries and the WGSL export run them through the catalog (`tests/common/catalog.rs`).

mod common;
use common::gradient_check::{assert_second_order, cpu_gradient, cpu_value, gradient_scale};

use noisegraph::graph::gradient_plan;
use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::{NoiseGraph, Plan, RunOptions, View};
use serde_json::{json, Value};

/// Two smooth sources (fBm of Perlin, simplex) and a control field, then `out`.
fn graph(seed: u32, out: Value) -> NoiseGraph {
    let mut out = out;
    out["id"] = json!("out");
    NoiseGraph::from_value(&json!({ "seed": seed, "output": "out", "nodes": [
        { "id": "p", "type": "perlin", "frequency": 3 },
        { "id": "a", "type": "fbm", "source": "p", "octaves": 3 },
        { "id": "b", "type": "simplex", "frequency": 2.5, "seed_offset": 3 },
        { "id": "c", "type": "value", "frequency": 2, "seed_offset": 5 },
        out
    ]}))
    .unwrap_or_else(|e| panic!("test graph: {e}"))
}

/// Every new node kind, smooth settings (the gradient and continuity checks run on these).
fn smooth_cases() -> Vec<(&'static str, Value)> {
    vec![
        (
            "pow 2",
            json!({ "type": "pow", "source": "a", "exponent": 2 }),
        ),
        (
            "pow 3.5",
            json!({ "type": "pow", "source": "b", "exponent": 3.5 }),
        ),
        (
            "smoothstep",
            json!({ "type": "smoothstep", "source": "a", "low": -0.4, "high": 0.5 }),
        ),
        (
            "terrace",
            json!({ "type": "terrace", "source": "a", "step": 0.2, "smoothness": 0.6 }),
        ),
        (
            "terrace smoothness 1",
            json!({ "type": "terrace", "source": "b", "step": 0.3, "smoothness": 1 }),
        ),
        (
            "smooth_min",
            json!({ "type": "smooth_min", "inputs": ["a", "b"], "k": 0.3 }),
        ),
        (
            "smooth_max",
            json!({ "type": "smooth_max", "inputs": ["a", "b"], "k": 0.3 }),
        ),
        (
            "select",
            json!({ "type": "select", "inputs": ["a", "b", "c"], "threshold": 0.1, "falloff": 0.25 }),
        ),
    ]
}

/// The settings with jumps or creases.
fn creased_cases() -> Vec<(&'static str, Value)> {
    vec![
        (
            "quantize",
            json!({ "type": "quantize", "source": "a", "step": 0.25 }),
        ),
        (
            "pow 0.5",
            json!({ "type": "pow", "source": "a", "exponent": 0.5 }),
        ),
        (
            "smooth_min k 0",
            json!({ "type": "smooth_min", "inputs": ["a", "b"], "k": 0 }),
        ),
        (
            "select hard",
            json!({ "type": "select", "inputs": ["a", "b", "c"], "threshold": 0.1 }),
        ),
    ]
}

/// Values within 1e-4 on every parity size and seed (stage by stage, `run_parity`);
/// gradients within 1e-4 of the gradient scale (or of the pixel's own gradient, where `pow`
/// with an exponent below 1 grows without bound towards a = 0), allowing the 0.1% of pixels the parity
/// allows where a sample within rounding of a crease or jump takes the other side.
#[test]
fn gpu_matches_the_cpu_twin() {
    let Some(ctx) = common::gpu() else { return };
    for (label, node) in smooth_cases().into_iter().chain(creased_cases()) {
        for seed in common::PARITY_SEEDS {
            let g = graph(seed, node.clone());
            for [w, h] in common::PARITY_SIZES {
                let view = View::image(w, h).with_origin([-1.3, 0.7, 0.0]);
                common::assert_parity_view(&ctx, &g, &view, &format!("{label} seed {seed}"));
            }
            let view = View::image(129, 67).with_origin([2.1, -0.4, 0.0]);
            let plan = gradient_plan(&g, None).expect("gradient plan");
            let gpu = ctx
                .run_gradient(&plan, &view, &RunOptions::default())
                .expect("gpu gradient");
            let cpu = cpu_gradient(&g, &view);
            let scale = gradient_scale(&cpu);
            let over = gpu
                .data
                .iter()
                .zip(&cpu.data)
                .filter(|(a, b)| {
                    (a[0] - b[0]).abs() > PARITY_TOLERANCE
                        || (1..4).any(|c| {
                            let d = (a[c] - b[c]).abs();
                            d.is_nan() || d > PARITY_TOLERANCE * scale.max(b[c].abs())
                        })
                })
                .count();
            assert!(
                over as f64 <= 0.001 * cpu.data.len() as f64,
                "{label} seed {seed}: {over} of {} gradient pixels over the tolerance",
                cpu.data.len()
            );
        }
    }
}

/// The exact gradient against central differences, converging at second order (halving the
/// step divides the median error by more than 3) and under 1% of the typical gradient;
/// `quantize`'s gradient is 0 everywhere.
#[test]
fn gradients_match_central_differences() {
    let view = View::image(40, 36)
        .with_origin([0.31, -0.73, 0.0])
        .with_extent([0.5, 0.45, 1.0]);
    let h = 0.002;
    for (label, node) in smooth_cases() {
        assert_second_order(label, &graph(11, node), &view, h);
    }
    let g = graph(11, creased_cases()[0].1.clone());
    assert!(cpu_gradient(&g, &view)
        .data
        .iter()
        .all(|s| s[1] == 0.0 && s[2] == 0.0 && s[3] == 0.0));
}

/// The largest first difference of a fine scan along x relative to what the analytic slope
/// allows: |v[i + 1] - v[i]| / (h * max(|slope| at i, i + 1) * 1.5 + 1e-5). Above 1 only
/// where the field jumps.
fn worst_step(graph: &NoiseGraph, gpu: bool) -> f64 {
    let n = 4096u32;
    let view = View::image(n, 1)
        .with_origin([1.0e3 + 0.37, -2.0e3 + 0.61, 0.0])
        .with_extent([2.0, 1e-3, 1.0]);
    let h = 2.0 / n as f64;
    let values = if gpu {
        let ctx = common::gpu().expect("gpu");
        let plan = Plan::new(graph, None).expect("plan");
        ctx.run(&plan, &view, &RunOptions::default())
            .expect("gpu")
            .data
    } else {
        cpu_value(graph, &view)
    };
    let slope = cpu_gradient(graph, &view);
    let mut worst = 0.0f64;
    for i in 0..n as usize - 1 {
        let step = (values[i + 1] as f64 - values[i] as f64).abs();
        let s = (slope.data[i][1] as f64)
            .abs()
            .max((slope.data[i + 1][1] as f64).abs());
        worst = worst.max(step / (h * s * 1.5 + 1e-5));
    }
    worst
}

/// Continuous nodes show no jump on either path; `quantize` and a hard `select` do (the
/// scan sees jumps).
#[test]
fn continuous_nodes_have_no_jumps() {
    let gpu = common::gpu().is_some();
    for (label, node) in smooth_cases() {
        let g = graph(29, node);
        let cpu = worst_step(&g, false);
        eprintln!("{label}: worst step ratio {cpu:.3} (CPU)");
        assert!(cpu <= 1.0, "{label}: a jump on the CPU path ({cpu})");
        if gpu {
            let on_gpu = worst_step(&g, true);
            assert!(on_gpu <= 1.0, "{label}: a jump on the GPU path ({on_gpu})");
        }
    }
    for (label, node) in [&creased_cases()[0], &creased_cases()[3]] {
        let jump = worst_step(&graph(29, node.clone()), false);
        assert!(jump > 10.0, "{label}: its jumps were not seen ({jump})");
    }
}

/// Bit for bit on the CPU path, within the parity tolerance on the GPU: `smooth_min` and
/// `smooth_max` with k = 0 are `min` and `max` (and a k so small that 1 / k overflows f32);
/// `pow` with exponent 1 is its source; a hard `select` whose control lies below the
/// threshold everywhere is its first input, above it its second.
#[test]
fn identities_hold() {
    let view = View::image(97, 61).with_origin([-3.3, 1.9, 0.0]);
    let same = |left: Value, right: Value, label: &str| {
        let (l, r) = (graph(7, left), graph(7, right));
        let (a, b) = (cpu_value(&l, &view), cpu_value(&r, &view));
        assert!(
            a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()),
            "{label}: differs on the CPU path"
        );
        if let (Some(ga), Some(gb)) = (common::gpu_field(&l, &view), common::gpu_field(&r, &view)) {
            let worst = ga
                .data
                .iter()
                .zip(&gb.data)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0f32, f32::max);
            assert!(worst <= PARITY_TOLERANCE, "{label}: GPU differs by {worst}");
        }
    };
    for (smooth, plain) in [("smooth_min", "min"), ("smooth_max", "max")] {
        for k in [0.0, 1e-300] {
            same(
                json!({ "type": smooth, "inputs": ["a", "b"], "k": k }),
                json!({ "type": plain, "inputs": ["a", "b"] }),
                &format!("{smooth} k {k}"),
            );
        }
    }
    same(
        json!({ "type": "pow", "source": "a", "exponent": 1 }),
        json!({ "type": "scale_bias", "source": "a" }),
        "pow 1",
    );
    for (threshold, input) in [(5.0, "a"), (-5.0, "b")] {
        same(
            json!({ "type": "select", "inputs": ["a", "b", "c"], "threshold": threshold }),
            json!({ "type": "scale_bias", "source": input }),
            &format!("select threshold {threshold}"),
        );
    }
    // A terrace of smoothness 1 and a smoothstep pass through the step ends and the
    // endpoints.
    let g = graph(
        7,
        json!({ "type": "terrace", "source": "a", "step": 0.25, "smoothness": 1 }),
    );
    let src = graph(7, json!({ "type": "scale_bias", "source": "a" }));
    for (t, s) in cpu_value(&g, &view).iter().zip(cpu_value(&src, &view)) {
        let floor = (s / 0.25).floor() * 0.25;
        assert!(
            *t >= floor - 1e-6 && *t <= floor + 0.25 + 1e-6,
            "terrace {t} of {s}"
        );
    }
}

/// Bad fields: errors naming the node and the field.
#[test]
fn bad_fields_are_refused_by_name() {
    for (node, field, text) in [
        (
            json!({ "type": "pow", "source": "a", "exponent": 0 }),
            "exponent",
            "[0.015625, 64]",
        ),
        (
            json!({ "type": "smoothstep", "source": "a", "low": 0.5, "high": 0.5 }),
            "high",
            "must differ",
        ),
        (
            json!({ "type": "smoothstep", "source": "a", "low": 0, "high": 1e-30 }),
            "high",
            "limit",
        ),
        (
            json!({ "type": "quantize", "source": "a", "step": 0 }),
            "step",
            "in [",
        ),
        (
            json!({ "type": "terrace", "source": "a", "smoothness": 0 }),
            "smoothness",
            "in [",
        ),
        (
            json!({ "type": "terrace", "source": "a", "smoothness": 1.5 }),
            "smoothness",
            "in [",
        ),
        (
            json!({ "type": "smooth_min", "inputs": ["a", "b"], "k": -1 }),
            "k",
            "in [",
        ),
        (
            json!({ "type": "smooth_max", "inputs": ["a"], "k": 0.1 }),
            "inputs",
            "",
        ),
        (
            json!({ "type": "select", "inputs": ["a", "b", "c"], "falloff": -0.1 }),
            "falloff",
            "in [",
        ),
        (
            json!({ "type": "select", "inputs": ["a", "b", "c"], "threshold": "x" }),
            "threshold",
            "number",
        ),
    ] {
        let mut node = node;
        node["id"] = json!("out");
        let text_graph = json!({ "seed": 1, "output": "out", "nodes": [
            { "id": "a", "type": "perlin" }, { "id": "b", "type": "perlin" },
            { "id": "c", "type": "perlin" }, node ]});
        let err = NoiseGraph::from_value(&text_graph).expect_err("refused");
        let found = err.0.iter().any(|i| {
            i.node.as_deref() == Some("out") && i.field == field && i.message.contains(text)
        });
        assert!(found, "{field}: {err}");
    }
}
