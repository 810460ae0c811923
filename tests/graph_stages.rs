//! Fractal, warp and point-wise stages: GPU-vs-CPU parity for every node type, and the
//! properties that tie each operator to its source.

mod common;
use common::*;
use noisegraph::engine::run_cpu;
use noisegraph::graph::{GraphBuilder, Plan, PlanOptions};
use noisegraph::{NoiseGraph, RunOptions, View};
use serde_json::json;

fn graph(seed: u32, output: &str, nodes: serde_json::Value) -> NoiseGraph {
    NoiseGraph::from_value(&json!({"seed": seed, "output": output, "nodes": nodes}))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn bake(g: &NoiseGraph, node: &str, view: &View) -> noisegraph::Field {
    run_cpu(
        &Plan::new(g, Some(node)).unwrap(),
        view,
        &RunOptions::default(),
    )
    .unwrap()
}

fn all_node_types(seed: u32) -> NoiseGraph {
    graph(
        seed,
        "out",
        json!([
            {"id": "p", "type": "perlin", "frequency": 3.0},
            {"id": "s", "type": "simplex", "frequency": 2.0, "dims": 3, "z": 0.5},
            {"id": "fb", "type": "fbm", "source": "p", "octaves": 5},
            {"id": "ri", "type": "ridged", "source": "s", "octaves": 4, "gain": 0.6},
            {"id": "bi", "type": "billow", "source": "p", "octaves": 3, "lacunarity": 2.3},
            {"id": "sx", "type": "fbm", "source": "s", "octaves": 3, "seed_offset": 31},
            {"id": "sy", "type": "fbm", "source": "s", "octaves": 3, "seed_offset": 37},
            {"id": "sz", "type": "fbm", "source": "s", "octaves": 3, "seed_offset": 41},
            {"id": "wa", "type": "warp", "source": "fb", "displace": ["bi", "ri"], "amplitude": 0.3},
            {"id": "w3", "type": "warp", "source": "s", "displace": ["sx", "sy", "sz"], "amplitude": 0.2},
            {"id": "add", "type": "add", "inputs": ["wa", "w3"]},
            {"id": "sub", "type": "sub", "inputs": ["add", "fb"]},
            {"id": "mul", "type": "mul", "inputs": ["sub", "ri"]},
            {"id": "mn", "type": "min", "inputs": ["mul", "bi"]},
            {"id": "mx", "type": "max", "inputs": ["mn", "fb"]},
            {"id": "c", "type": "constant", "value": 0.25},
            {"id": "mix", "type": "mix", "inputs": ["mx", "wa", "c"]},
            {"id": "ab", "type": "abs", "source": "mix"},
            {"id": "ng", "type": "neg", "source": "ab"},
            {"id": "cl", "type": "clamp", "source": "ng", "min": -0.4, "max": 0.1},
            {"id": "rm", "type": "remap", "source": "cl", "from": [-0.4, 0.1], "to": [0.0, 1.0]},
            {"id": "out", "type": "scale_bias", "source": "rm", "scale": 2.0, "bias": -1.0}
        ]),
    )
}

#[test]
fn every_node_type_has_parity() {
    let Some(ctx) = gpu() else { return };
    for seed in PARITY_SEEDS {
        let g = all_node_types(seed);
        for [w, h] in PARITY_SIZES {
            assert_parity_view(
                &ctx,
                &g,
                &View::image(w, h),
                &format!("all node types seed {seed}"),
            );
        }
    }
}

#[test]
fn octaves_in_one_pass_equal_octaves_split_across_passes() {
    let g = graph(
        5,
        "f",
        json!([
            {"id": "p", "type": "perlin", "frequency": 4.0},
            {"id": "f", "type": "ridged", "source": "p", "octaves": 7}
        ]),
    );
    let plan = Plan::new(&g, None).unwrap();
    let view = View::image(67, 45);
    let one = RunOptions::default();
    // A budget of two octaves' worth of pixels forces 4 passes.
    let split = RunOptions {
        octave_budget: 2 * 67 * 45,
        ..RunOptions::default()
    };
    assert_eq!(
        noisegraph::graph::octave_passes(7, view.pixel_count(), split.octave_budget).len(),
        4
    );
    let cpu_one = run_cpu(&plan, &view, &one).unwrap();
    let cpu_split = run_cpu(&plan, &view, &split).unwrap();
    assert_eq!(
        cpu_one.data, cpu_split.data,
        "CPU: split passes accumulate the same sums"
    );
    let Some(ctx) = gpu() else { return };
    let gpu_one = ctx.run(&plan, &view, &one).unwrap();
    let gpu_split = ctx.run(&plan, &view, &split).unwrap();
    assert!(
        gpu_one.max_abs_diff(&gpu_split) <= 1e-6,
        "GPU: {}",
        gpu_one.max_abs_diff(&gpu_split)
    );
    assert!(gpu_split.max_abs_diff(&cpu_one) <= 1e-4);
}

#[test]
fn fractals_of_one_octave_equal_their_source_or_its_remap() {
    let view = View::image(64, 48);
    for family in ["value", "perlin", "simplex"] {
        let g = graph(
            11,
            "f",
            json!([
                {"id": "p", "type": family, "frequency": 5.0},
                {"id": "f", "type": "fbm", "source": "p", "octaves": 1},
                {"id": "r", "type": "ridged", "source": "p", "octaves": 1},
                {"id": "b", "type": "billow", "source": "p", "octaves": 1}
            ]),
        );
        let src = bake(&g, "p", &view);
        assert_eq!(
            bake(&g, "f", &view).data,
            src.data,
            "{family}: fbm of 1 octave"
        );
        let ridged = bake(&g, "r", &view);
        let billow = bake(&g, "b", &view);
        for i in 0..src.data.len() {
            let n = src.data[i];
            assert!(
                (ridged.data[i] - (1.0 - n.abs()).powi(2)).abs() < 1e-6,
                "{family}: ridged"
            );
            assert!(
                (billow.data[i] - (2.0 * n.abs() - 1.0)).abs() < 1e-6,
                "{family}: billow"
            );
        }
    }
}

#[test]
fn fbm_keeps_its_source_range_and_adds_detail() {
    let view = View::image(256, 256);
    let g = graph(
        3,
        "f",
        json!([
            {"id": "p", "type": "value", "frequency": 4.0},
            {"id": "f", "type": "fbm", "source": "p", "octaves": 6}
        ]),
    );
    let f = bake(&g, "f", &view);
    let src = bake(&g, "p", &view);
    let (lo, hi) = f.min_max().unwrap();
    assert!(
        lo >= -1.0 && hi <= 1.0,
        "fbm of value noise stays in [-1, 1]: {lo} {hi}"
    );
    // Slope energy relative to the variance: octave k adds about as much slope energy as the
    // first (amplitude 2^-k times frequency 2^k), so six octaves carry several times more.
    // (A share of the power spectrum above some frequency was tried first: with 4 cells
    // across, windowing leakage of the low band made it depend on the seed.)
    let slope_energy = |fl: &noisegraph::Field| -> f64 {
        let n = fl.data.len() as f64;
        let mean = fl.data.iter().map(|&v| v as f64).sum::<f64>() / n;
        let var = fl
            .data
            .iter()
            .map(|&v| (v as f64 - mean).powi(2))
            .sum::<f64>()
            / n;
        let w = fl.width as usize;
        let diffs: Vec<f64> = fl
            .data
            .chunks(w)
            .flat_map(|row| row.windows(2).map(|p| (p[1] - p[0]) as f64))
            .collect();
        diffs.iter().map(|d| d * d).sum::<f64>() / diffs.len() as f64 / var
    };
    let (ef, es) = (slope_energy(&f), slope_energy(&src));
    assert!(
        ef > 3.0 * es,
        "octaves add high-frequency detail: slope energy / variance {ef} vs {es}"
    );
}

#[test]
fn warp_with_zero_amplitude_equals_its_source() {
    let view = View::image(50, 40);
    let g = graph(
        8,
        "w",
        json!([
            {"id": "p", "type": "perlin", "frequency": 6.0},
            {"id": "f", "type": "fbm", "source": "p", "octaves": 3},
            {"id": "dx", "type": "simplex", "frequency": 3.0, "seed_offset": 1},
            {"id": "dy", "type": "simplex", "frequency": 3.0, "seed_offset": 2},
            {"id": "w", "type": "warp", "source": "f", "displace": ["dx", "dy"], "amplitude": 0.0}
        ]),
    );
    assert_eq!(bake(&g, "w", &view).data, bake(&g, "f", &view).data);
}

#[test]
fn warp_by_constant_fields_is_a_shift() {
    let view = View::image(64, 64);
    let (dx, dy, amp) = (0.25, -0.5, 0.4);
    let g = graph(
        21,
        "w",
        json!([
            {"id": "p", "type": "perlin", "frequency": 5.0},
            {"id": "f", "type": "fbm", "source": "p", "octaves": 4},
            {"id": "cx", "type": "constant", "value": dx},
            {"id": "cy", "type": "constant", "value": dy},
            {"id": "w", "type": "warp", "source": "f", "displace": ["cx", "cy"], "amplitude": amp}
        ]),
    );
    let warped = bake(&g, "w", &view);
    let shifted = bake(&g, "f", &view.with_origin([amp * dx, amp * dy, 0.0]));
    let d = warped.max_abs_diff(&shifted);
    assert!(
        d < 2e-4,
        "warp by constant d == source at p + amplitude * d: {d}"
    );
    assert!(
        warped.max_abs_diff(&bake(&g, "f", &view)) > 0.05,
        "and it did move"
    );
}

#[test]
fn chained_warps_are_expressible_and_differ_from_single_warps() {
    // f(p + q(p + r(p))): r warps q, and the result warps f.
    let view = View::image(48, 48);
    let g = graph(
        4,
        "f_q_r",
        json!([
            {"id": "n", "type": "simplex", "frequency": 3.0},
            {"id": "rx", "type": "fbm", "source": "n", "octaves": 3, "seed_offset": 1},
            {"id": "ry", "type": "fbm", "source": "n", "octaves": 3, "seed_offset": 2},
            {"id": "qx", "type": "fbm", "source": "n", "octaves": 3, "seed_offset": 3},
            {"id": "qy", "type": "fbm", "source": "n", "octaves": 3, "seed_offset": 4},
            {"id": "qx_r", "type": "warp", "source": "qx", "displace": ["rx", "ry"], "amplitude": 0.5},
            {"id": "qy_r", "type": "warp", "source": "qy", "displace": ["rx", "ry"], "amplitude": 0.5},
            {"id": "f", "type": "fbm", "source": "n", "octaves": 5},
            {"id": "f_q", "type": "warp", "source": "f", "displace": ["qx", "qy"], "amplitude": 0.5},
            {"id": "f_q_r", "type": "warp", "source": "f", "displace": ["qx_r", "qy_r"], "amplitude": 0.5}
        ]),
    );
    let plan = Plan::with_options(&g, None, PlanOptions { fuse: false }).unwrap();
    assert_eq!(
        plan.stages.len(),
        5,
        "unfused, rx, ry, qx_r, qy_r and f_q_r are materialized: {:?}",
        plan.stages.iter().map(|s| &s.node).collect::<Vec<_>>()
    );
    let fused = Plan::new(&g, None).unwrap();
    assert_eq!(
        fused.stages.len(),
        3,
        "fused, rx and ry are evaluated inside qx_r and qy_r: {:?}",
        fused.stages.iter().map(|s| &s.node).collect::<Vec<_>>()
    );
    assert!(bake(&g, "f_q_r", &view).max_abs_diff(&bake(&g, "f_q", &view)) > 0.01);
}

#[test]
fn builder_json_and_graph_round_trip_to_the_same_plan() {
    let mut b = GraphBuilder::new(1337);
    b.node("base", "perlin").frequency(4.0).set("fade", "cubic");
    b.fractal("fbm", "fbm", "base")
        .octaves(6)
        .lacunarity(2.0)
        .gain(0.5);
    b.fractal("qx", "fbm", "base").octaves(4).seed_offset(31);
    b.fractal("qy", "fbm", "base")
        .octaves(4)
        .seed_offset(37)
        .offset(&[5.2, 1.3]);
    b.warp("terrain", "fbm", &["qx", "qy"], 0.4);
    b.pointwise("bright", "scale_bias", &["terrain"])
        .set("scale", 0.5)
        .set("bias", 0.5);
    b.output("bright");
    let built = b.build().unwrap();
    let text = serde_json::to_string_pretty(&built.to_json()).unwrap();
    let parsed = NoiseGraph::from_json(&text).unwrap();
    assert_eq!(built, parsed);
    let view = View::image(16, 16).with_origin([3.0, -2.0, 0.0]);
    let (p1, p2) = (
        Plan::new(&built, None).unwrap(),
        Plan::new(&parsed, None).unwrap(),
    );
    assert_eq!(p1.stages.len(), p2.stages.len());
    for (a, b) in p1.stages.iter().zip(&p2.stages) {
        assert_eq!(a.node, b.node);
        if let (
            noisegraph::graph::StageKind::Generate(x),
            noisegraph::graph::StageKind::Generate(y),
        ) = (&a.kind, &b.kind)
        {
            assert_eq!(x.uniforms(p1.seed, &view), y.uniforms(p2.seed, &view));
        }
    }
    // The builder reports errors the same way as JSON.
    let mut bad = GraphBuilder::new(1);
    bad.node("n", "perlin").frequency(-1.0);
    let e = bad.output("n").build().unwrap_err();
    assert!(
        e.0.iter()
            .any(|i| i.field == "frequency" && i.node.as_deref() == Some("n")),
        "{e}"
    );
}

#[test]
fn any_materialized_stage_can_be_read_back() {
    let g = all_node_types(9);
    let plan = Plan::new(&g, None).unwrap();
    let view = View::image(20, 10);
    let all: Vec<usize> = (0..plan.stages.len()).collect();
    let fields =
        noisegraph::engine::run_cpu_stages(&plan, &view, &RunOptions::default(), &all).unwrap();
    for (stage, field) in plan.stages.iter().zip(&fields) {
        let alone = bake(&g, &stage.node, &view);
        assert_eq!(
            alone.data, field.data,
            "stage {} read back from the full plan",
            stage.node
        );
    }
    // A stage asked for twice comes back twice, in the order asked.
    let again = noisegraph::engine::run_cpu_stages(
        &plan,
        &view,
        &RunOptions::default(),
        &[0, plan.target, 0],
    )
    .unwrap();
    assert_eq!(again.len(), 3);
    assert_eq!(again[0].data, fields[0].data);
    assert_eq!(again[1].data, fields[plan.target].data);
    assert_eq!(again[2].data, fields[0].data);
}
