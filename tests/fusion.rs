//! Warp fusion: a warp evaluates its generator displacements inline instead of reading them
//! from materialized fields. Fused and unfused plans agree (exactly on the CPU, within the
//! parity tolerance on the GPU), fused plans have fewer stages, and fused plans keep
//! GPU-vs-CPU parity.

mod common;
use common::*;
use noisegraph::engine::run_cpu;
use noisegraph::graph::{Displacement, PlanOptions, StageKind};
use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::{Field, NoiseGraph, Plan, RunOptions, View};
use serde_json::json;

const UNFUSED: PlanOptions = PlanOptions { fuse: false };

fn preset(name: &str) -> NoiseGraph {
    let path = format!(
        "{}/crates/noisegraph/src/presets/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    NoiseGraph::from_json(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn graph(value: serde_json::Value) -> NoiseGraph {
    NoiseGraph::from_value(&value).unwrap_or_else(|e| panic!("{e}"))
}

/// A 3D fBm warped along x, y and z by three 3D fBm fields.
fn warp_3d(seed: u32) -> NoiseGraph {
    graph(json!({
        "seed": seed, "output": "w",
        "nodes": [
            {"id": "p", "type": "perlin", "frequency": 3.0, "dims": 3, "z": 0.25},
            {"id": "s", "type": "simplex", "frequency": 2.0, "dims": 3},
            {"id": "f", "type": "fbm", "source": "p", "octaves": 4},
            {"id": "dx", "type": "fbm", "source": "s", "octaves": 3, "seed_offset": 31},
            {"id": "dy", "type": "billow", "source": "s", "octaves": 2, "seed_offset": 37},
            {"id": "dz", "type": "simplex", "frequency": 5.0, "dims": 3, "seed_offset": 41},
            {"id": "w", "type": "warp", "source": "f", "displace": ["dx", "dy", "dz"], "amplitude": 0.4}
        ]
    }))
}

/// Marble whose `tx` is also needed as a field: `first` decides whether the warp or the
/// point-wise node asks for it first (inline and materialized, or a field for both).
fn shared_displacement(first_warp: bool) -> NoiseGraph {
    let mut g = preset("marble").to_json();
    let inputs = if first_warp {
        json!(["marble", "tx"])
    } else {
        json!(["tx", "marble"])
    };
    g["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!({"id": "out", "type": "add", "inputs": inputs}));
    g["output"] = json!("out");
    graph(g)
}

fn inline_count(plan: &Plan) -> usize {
    plan.stages
        .iter()
        .map(|s| match &s.kind {
            StageKind::Generate(g) => g
                .displace
                .iter()
                .filter(|d| matches!(d, Displacement::Inline { .. }))
                .count(),
            StageKind::Combine { .. } => 0,
        })
        .sum()
}

fn cases() -> Vec<(&'static str, NoiseGraph, View)> {
    vec![
        ("marble", preset("marble"), View::image(67, 45)),
        ("swirl", preset("swirl"), View::image(67, 45)),
        (
            "warp 3D image",
            warp_3d(5),
            View::image(40, 33).with_origin([1e4, -7.0, 2.0]),
        ),
        ("warp 3D volume", warp_3d(9), View::volume(19, 17, 5)),
        (
            "shared, warp first",
            shared_displacement(true),
            View::image(40, 30),
        ),
        (
            "shared, field first",
            shared_displacement(false),
            View::image(40, 30),
        ),
    ]
}

#[test]
fn fused_plans_have_fewer_stages() {
    for name in ["marble", "swirl"] {
        let g = preset(name);
        let fused = Plan::new(&g, None).unwrap();
        let unfused = Plan::with_options(&g, None, UNFUSED).unwrap();
        assert_eq!(fused.stages.len(), 1, "{name}: only the warp runs");
        assert_eq!(unfused.stages.len(), 3, "{name}: two fields and the warp");
        assert_eq!(inline_count(&fused), 2);
        assert_eq!(inline_count(&unfused), 0);
    }
    let fused = Plan::new(&warp_3d(1), None).unwrap();
    assert_eq!(fused.stages.len(), 1);
    assert_eq!(inline_count(&fused), 3);
    // Needed both ways: inline in the warp and a stage of its own for the sum.
    let both = Plan::new(&shared_displacement(true), None).unwrap();
    let nodes: Vec<&str> = both.stages.iter().map(|s| s.node.as_str()).collect();
    assert_eq!(nodes, ["marble", "tx", "out"]);
    assert_eq!(inline_count(&both), 2);
    // Already a field: the warp reads it and inlines only the other axis.
    let reuse = Plan::new(&shared_displacement(false), None).unwrap();
    let nodes: Vec<&str> = reuse.stages.iter().map(|s| s.node.as_str()).collect();
    assert_eq!(nodes, ["tx", "marble", "out"]);
    assert_eq!(inline_count(&reuse), 1);
    // A node asked for by name stays materialized.
    let tx = Plan::new(&preset("marble"), Some("tx")).unwrap();
    assert_eq!(tx.stages.len(), 1);
    assert_eq!(tx.stages[0].node, "tx");
}

#[test]
fn a_warp_with_a_family_that_needs_a_table_is_not_fused() {
    // Wave noise reads a host-computed table, which inline chains do not bind.
    let g = graph(json!({
        "seed": 3, "output": "w",
        "nodes": [
            {"id": "p", "type": "perlin", "frequency": 3.0},
            {"id": "gx", "type": "wave", "frequency": 3.0},
            {"id": "sy", "type": "simplex", "frequency": 3.0},
            {"id": "w", "type": "warp", "source": "p", "displace": ["gx", "sy"], "amplitude": 0.3}
        ]
    }));
    let plan = Plan::new(&g, None).unwrap();
    let nodes: Vec<&str> = plan.stages.iter().map(|s| s.node.as_str()).collect();
    assert_eq!(nodes, ["gx", "w"]);
    assert_eq!(inline_count(&plan), 1);
    let view = View::image(33, 21);
    let fused = run_cpu(&plan, &view, &RunOptions::default()).unwrap();
    let unfused = run_cpu(
        &Plan::with_options(&g, None, UNFUSED).unwrap(),
        &view,
        &RunOptions::default(),
    )
    .unwrap();
    assert_eq!(fused.data, unfused.data);
}

#[test]
fn fused_and_unfused_agree_exactly_on_the_cpu() {
    for (label, g, view) in cases() {
        let fused = run_cpu(&Plan::new(&g, None).unwrap(), &view, &RunOptions::default()).unwrap();
        let plan = Plan::with_options(&g, None, UNFUSED).unwrap();
        let unfused = run_cpu(&plan, &view, &RunOptions::default()).unwrap();
        assert!(fused.data.iter().all(|v| v.is_finite()), "{label}");
        // Same operations in the same order: bit for bit.
        assert_eq!(fused.data, unfused.data, "{label}");
    }
}

#[test]
fn fused_and_unfused_agree_on_the_gpu() {
    let Some(ctx) = gpu() else { return };
    for (label, g, view) in cases() {
        let run = |plan: &Plan| -> Field { ctx.run(plan, &view, &RunOptions::default()).unwrap() };
        let fused = run(&Plan::new(&g, None).unwrap());
        let unfused = run(&Plan::with_options(&g, None, UNFUSED).unwrap());
        let diff = fused.max_abs_diff(&unfused);
        assert!(
            diff <= PARITY_TOLERANCE,
            "{label}: fused vs unfused max diff {diff:e}"
        );
    }
}

#[test]
fn fused_plans_keep_gpu_cpu_parity() {
    let Some(ctx) = gpu() else { return };
    for seed in PARITY_SEEDS {
        let mut graphs = vec![("warp 3D", warp_3d(seed))];
        for name in ["marble", "swirl"] {
            let mut g = preset(name);
            g.seed = seed;
            graphs.push((name, g));
        }
        for (name, g) in &graphs {
            assert!(
                inline_count(&Plan::new(g, None).unwrap()) > 0,
                "{name} is fused"
            );
            for [w, h] in PARITY_SIZES {
                let label = format!("fused {name} seed {seed}");
                assert_parity_view(&ctx, g, &View::image(w, h), &label);
            }
        }
    }
    assert_parity_view(
        &ctx,
        &warp_3d(2),
        &View::volume(9, 7, 3),
        "fused warp 3D volume",
    );
    for first_warp in [true, false] {
        let g = shared_displacement(first_warp);
        assert_parity_view(&ctx, &g, &View::image(129, 67), "shared displacement");
    }
}

#[test]
fn split_octave_passes_give_the_same_fused_result() {
    // A small octave budget splits the warp into passes; each pass evaluates the inline
    // chains again, and the partial sums must still add up to the one-pass result.
    let g = preset("swirl");
    let view = View::image(31, 29);
    let plan = Plan::new(&g, None).unwrap();
    let split = RunOptions {
        octave_budget: 2 * view.pixel_count(),
        ..RunOptions::default()
    };
    let one = run_cpu(&plan, &view, &RunOptions::default()).unwrap();
    let cpu_split = run_cpu(&plan, &view, &split).unwrap();
    assert_eq!(one.data, cpu_split.data);
    if let Some(ctx) = gpu() {
        let gpu_split = ctx.run(&plan, &view, &split).unwrap();
        assert!(gpu_split.max_abs_diff(&one) <= PARITY_TOLERANCE);
    }
}

#[test]
fn a_2d_displacement_in_a_volume_is_named() {
    let g = graph(json!({
        "seed": 3, "output": "w",
        "nodes": [
            {"id": "p", "type": "perlin", "frequency": 3.0, "dims": 3},
            {"id": "flat", "type": "simplex", "frequency": 3.0},
            {"id": "w", "type": "warp", "source": "p", "displace": ["flat", "flat", "flat"], "amplitude": 0.3}
        ]
    }));
    let plan = Plan::new(&g, None).unwrap();
    assert_eq!(inline_count(&plan), 3);
    let e = run_cpu(&plan, &View::volume(4, 4, 4), &RunOptions::default()).unwrap_err();
    assert!(e.to_string().contains("'flat'"), "{e}");
}

#[test]
fn compiled_graphs_update_inline_chains_per_frame() {
    use noisegraph::{CompiledGraph, NodeParam};
    let Some(ctx) = gpu() else { return };
    let view = View::image(57, 41);
    let mut compiled = CompiledGraph::new(&ctx, &warp_3d(4), None, view).expect("compile");
    assert_eq!(
        inline_count(compiled.plan()),
        3,
        "the compiled plan is fused"
    );
    let target = compiled.create_target();
    // dx, dy and dz exist only inline: their numbers must reach the inline uniforms.
    compiled.set_time(0.6).unwrap();
    compiled.set_seed(11).expect("seed");
    compiled
        .set_node_param("dx", NodeParam::SeedOffset(77))
        .unwrap();
    compiled.set_node_param("dy", NodeParam::Gain(0.7)).unwrap();
    compiled
        .set_node_param("dz", NodeParam::Frequency(2.5))
        .unwrap();
    compiled.set_node_param("s", NodeParam::Z(0.3)).unwrap();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    compiled.record(&mut encoder, &target).unwrap();
    ctx.queue().submit(Some(encoder.finish()));
    let frame = compiled.read_target(&target).unwrap();

    let mut expected = warp_3d(11).to_json();
    for node in expected["nodes"].as_array_mut().unwrap() {
        match node["id"].as_str().unwrap() {
            "p" => node["z"] = json!(0.25 + 0.6),
            "s" => node["z"] = json!(0.3 + 0.6),
            "dx" => node["seed_offset"] = json!(77),
            "dy" => node["gain"] = json!(0.7),
            "dz" => {
                node["frequency"] = json!(2.5);
                node["z"] = json!(0.6);
            }
            _ => {}
        }
    }
    let expected = graph(expected);
    let cpu = run_cpu(
        &Plan::with_options(&expected, None, UNFUSED).unwrap(),
        &view,
        &RunOptions::default(),
    )
    .unwrap();
    let diff = frame.max_abs_diff(&cpu);
    assert!(diff <= PARITY_TOLERANCE, "max diff {diff:e}");
    let untouched = run_cpu(
        &Plan::new(&warp_3d(11), None).unwrap(),
        &view,
        &RunOptions::default(),
    )
    .unwrap();
    assert!(
        frame.max_abs_diff(&untouched) > 1e-3,
        "the parameters moved the output"
    );
}

/// A tile of a fused warp gets exactly the pixels of the whole view on the CPU path, whose
/// fused displacement chains run a row at a time from the tile's pixel offset.
#[test]
fn a_tile_of_a_fused_warp_equals_the_same_pixels_of_the_whole_view_on_the_cpu() {
    for (label, g, view) in cases() {
        let plan = Plan::new(&g, None).unwrap();
        assert!(inline_count(&plan) > 0, "{label}: fused");
        let whole = run_cpu(&plan, &view, &RunOptions::default()).unwrap();
        let [w, h, d] = view.size;
        let offset = [w / 3, h / 4, d / 2];
        let tile = view.tile(offset, [w / 2, h / 2, d.div_ceil(2)]);
        let part = run_cpu(&plan, &tile, &RunOptions::default()).unwrap();
        let [tw, th, td] = tile.size;
        for z in 0..td {
            for y in 0..th {
                for x in 0..tw {
                    let t = part.data[((z * th + y) * tw + x) as usize];
                    let (fx, fy, fz) = (x + offset[0], y + offset[1], z + offset[2]);
                    let f = whole.data[((fz * h + fy) * w + fx) as usize];
                    assert_eq!(
                        t.to_bits(),
                        f.to_bits(),
                        "{label}: tile pixel ({x}, {y}, {z})"
                    );
                }
            }
        }
    }
}

/// A warp over a fine fractal parts the paths by more than 1e-4 (an ulp of a displacement
/// moves a sample by an ulp of its position in cells), within the tolerance the numeric
/// contract gives a warp; an unwarped stage and a coarse warp keep 1e-4.
#[test]
fn a_warp_over_fine_octaves_stays_within_its_tolerance() {
    let Some(ctx) = gpu() else { return };
    let warp = |frequency: f64, amplitude: f64| {
        NoiseGraph::from_json(&format!(
            r#"{{"seed": 3, "output": "w", "nodes": [
                {{"id": "b", "type": "perlin", "frequency": {frequency}}},
                {{"id": "f", "type": "fbm", "source": "b", "octaves": 4}},
                {{"id": "dx", "type": "perlin", "frequency": 3, "seed_offset": 1}},
                {{"id": "dy", "type": "perlin", "frequency": 3, "seed_offset": 2}},
                {{"id": "w", "type": "warp", "source": "f", "displace": ["dx", "dy"], "amplitude": {amplitude}}}]}}"#
        ))
        .expect("graph")
    };
    let view = View::image(96, 64);
    let mut loosest = 0.0f32;
    for (frequency, amplitude) in [(2.0, 0.5), (2048.0, 0.001), (4096.0, 1.0), (16384.0, 0.1)] {
        let plan = Plan::with_options(&warp(frequency, amplitude), None, UNFUSED).expect("plan");
        let results = noisegraph::parity::run_parity(&ctx, &plan, &view).expect("parity");
        for r in &results {
            assert!(
                r.passed(),
                "{}: {} over {} on {}/{} (frequency {frequency}, amplitude {amplitude})",
                r.node,
                r.max_abs,
                r.tolerance,
                r.over,
                r.total
            );
            if r.node != "w" || frequency == 2.0 {
                assert!(r.tolerance < 1.1e-4, "{}: {}", r.node, r.tolerance);
            }
        }
        let w = results.iter().find(|r| r.node == "w").expect("the warp");
        loosest = loosest.max(w.max_abs);
    }
    // The case is real: the fine warps part by more than 1e-4 somewhere.
    assert!(loosest > PARITY_TOLERANCE, "{loosest}");
}
