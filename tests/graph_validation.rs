//! Malformed graphs: every problem is reported, each naming its node and field.

use noisegraph::{GraphErrors, NoiseGraph};

fn errors(text: &str) -> GraphErrors {
    match NoiseGraph::from_json(text) {
        Ok(_) => panic!("graph should be rejected: {text}"),
        Err(e) => e,
    }
}

fn has(e: &GraphErrors, node: Option<&str>, field: &str, words: &str) -> bool {
    e.0.iter()
        .any(|i| i.node.as_deref() == node && i.field == field && i.message.contains(words))
}

#[test]
fn not_json_names_the_position() {
    let e = errors("{\"seed\": 1, \"output\": ");
    assert_eq!(e.0.len(), 1);
    assert_eq!(e.0[0].field, "graph");
    assert!(e.0[0].message.contains("not valid JSON"), "{e}");
    assert!(e.0[0].message.contains("line"), "{e}");
}

#[test]
fn bad_frequencies_name_the_field() {
    for freq in [
        "0",
        "-2.5",
        "NaN",
        "Infinity",
        "-Infinity",
        "1e999",
        "\"fast\"",
        "[4, 0]",
    ] {
        let text = format!(
            r#"{{"seed": 1, "output": "n", "nodes": [{{"id": "n", "type": "perlin", "frequency": {freq}}}]}}"#
        );
        let e = errors(&text);
        assert!(has(&e, Some("n"), "frequency", ""), "frequency {freq}: {e}");
    }
}

#[test]
fn unknown_family_lists_the_known_ones() {
    let e = errors(r#"{"output": "n", "nodes": [{"id": "n", "type": "perlni"}]}"#);
    assert!(
        has(&e, Some("n"), "type", "unknown node type 'perlni'"),
        "{e}"
    );
    assert!(e.to_string().contains("perlin"), "{e}");
}

#[test]
fn every_structural_error_is_collected_at_once() {
    let text = r#"{
      "seed": 3, "output": "missing",
      "nodes": [
        {"id": "a", "type": "perlin", "frequency": 4, "frequncy": 5},
        {"id": "a", "type": "value"},
        {"id": "f", "type": "fbm", "source": "nowhere", "octaves": 0},
        {"id": "g", "type": "ridged", "source": "sum", "octaves": 33, "lacunarity": "x", "gain": "NaN"},
        {"id": "sum", "type": "add", "inputs": ["a", "c1"]},
        {"id": "c1", "type": "add", "inputs": ["c2", "a"]},
        {"id": "c2", "type": "add", "inputs": ["c1", "a"]},
        {"id": "w", "type": "warp", "source": "sum", "displace": ["a", "a"]},
        {"id": "w3", "type": "warp", "source": "b3", "displace": ["a", "a"]},
        {"id": "b3", "type": "perlin", "dims": 3},
        {"id": "d", "type": "simplex", "dims": 7, "fade": "cubic"}
      ]
    }"#;
    let e = errors(text);
    let msg = e.to_string();
    assert!(has(&e, None, "output", "not a node id"), "{msg}");
    assert!(
        has(&e, Some("a"), "frequncy", "did you mean 'frequency'"),
        "{msg}"
    );
    assert!(has(&e, Some("a"), "id", "duplicate"), "{msg}");
    assert!(
        has(&e, Some("f"), "source", "unknown id 'nowhere'"),
        "{msg}"
    );
    assert!(has(&e, Some("f"), "octaves", "between 1 and 32"), "{msg}");
    assert!(has(&e, Some("g"), "octaves", "between 1 and 32"), "{msg}");
    assert!(has(&e, Some("g"), "lacunarity", "finite"), "{msg}");
    assert!(has(&e, Some("g"), "gain", "finite"), "{msg}");
    assert!(has(&e, Some("g"), "source", "needs a family node"), "{msg}");
    assert!(e.0.iter().any(|i| i.message.starts_with("cycle:")), "{msg}");
    assert!(
        has(&e, Some("w"), "source", "a warp needs a generator"),
        "{msg}"
    );
    assert!(has(&e, Some("w3"), "displace", "dims mismatch"), "{msg}");
    assert!(has(&e, Some("d"), "dims", "supports dims"), "{msg}");
    assert!(has(&e, Some("d"), "fade", "unknown parameter"), "{msg}");
    assert!(e.0.len() >= 14, "all errors listed: {msg}");
}

#[test]
fn missing_output_and_nodes_are_reported() {
    let e = errors(r#"{"seed": -1}"#);
    assert!(has(&e, None, "output", "required"), "{e}");
    assert!(has(&e, None, "nodes", "required"), "{e}");
    assert!(has(&e, None, "seed", "integer"), "{e}");
}

#[test]
fn bad_choices_and_periods_name_the_field() {
    let e = errors(
        r#"{"output": "n", "nodes": [{"id": "n", "type": "perlin", "fade": "septic", "gradients": 3, "period": 2.5}]}"#,
    );
    assert!(has(&e, Some("n"), "fade", "linear, cubic, quintic"), "{e}");
    assert!(has(&e, Some("n"), "gradients", "improved, random"), "{e}");
    assert!(has(&e, Some("n"), "period", "positive integer"), "{e}");
    let e = errors(r#"{"output": "n", "nodes": [{"id": "n", "type": "simplex", "period": 4}]}"#);
    assert!(has(&e, Some("n"), "period", "does not support"), "{e}");
}

#[test]
fn a_valid_graph_round_trips_through_json() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/marble.json"))
            .unwrap();
    let g = NoiseGraph::from_json(&text).unwrap();
    let again = NoiseGraph::from_value(&g.to_json()).unwrap();
    assert_eq!(g, again);
}

fn one_node(node: &str) -> String {
    format!(r#"{{"seed": 1, "output": "n", "nodes": [{{"id": "n", {node}}}]}}"#)
}

#[test]
fn absurd_numbers_are_refused_at_their_field() {
    let cases: &[(&str, &str)] = &[
        (r#""type": "perlin", "frequency": 1e300"#, "frequency"),
        (r#""type": "perlin", "frequency": 1e-300"#, "frequency"),
        (r#""type": "perlin", "offset": 1e308"#, "offset"),
        (r#""type": "perlin", "offset": [0, -1e308]"#, "offset"),
        (r#""type": "perlin", "dims": 3, "z": 1e308"#, "z"),
        (r#""type": "simplex", "dims": 4, "w": -1e308"#, "w"),
        (r#""type": "constant", "value": 1e300"#, "value"),
        (r#""type": "clamp", "source": "n", "min": -1e300"#, "min"),
    ];
    for (node, field) in cases {
        let e = errors(&one_node(node));
        assert!(has(&e, Some("n"), field, ""), "{node}: {e}");
    }
}

#[test]
fn combined_numbers_are_bounded_where_they_meet() {
    let graph = |nodes: &str| format!(r#"{{"seed": 1, "output": "out", "nodes": [{nodes}]}}"#);
    let cases: &[(&str, &str, &str)] = &[
        // The last octave's frequency: 4294967295^7 cells per unit.
        (
            r#"{"id": "s", "type": "simplex"}, {"id": "out", "type": "ridged", "source": "s", "octaves": 8, "lacunarity": 4294967295}"#,
            "lacunarity",
            "frequenc",
        ),
        (
            r#"{"id": "s", "type": "perlin"}, {"id": "out", "type": "fbm", "source": "s", "octaves": 8, "gain": 1e15}"#,
            "gain",
            "amplitude",
        ),
        (
            r#"{"id": "s", "type": "perlin"}, {"id": "d", "type": "perlin", "seed_offset": 3}, {"id": "out", "type": "warp", "source": "s", "displace": ["d", "d"], "amplitude": 1e11}"#,
            "amplitude",
            "cells",
        ),
        (
            r#"{"id": "s", "type": "perlin"}, {"id": "out", "type": "scale_bias", "source": "s", "scale": 1e300}"#,
            "scale",
            "",
        ),
        (
            r#"{"id": "s", "type": "perlin"}, {"id": "out", "type": "scale_bias", "source": "s", "bias": -1e300}"#,
            "bias",
            "",
        ),
        (
            r#"{"id": "s", "type": "perlin"}, {"id": "out", "type": "remap", "source": "s", "from": [-1, 1], "to": [0, 1e300]}"#,
            "to",
            "",
        ),
        (
            r#"{"id": "s", "type": "perlin"}, {"id": "out", "type": "remap", "source": "s", "from": [0, 1e-300], "to": [0, 1]}"#,
            "from",
            "scale",
        ),
        // Each factor is within bounds; the product of the ranges is not.
        (
            r#"{"id": "s", "type": "perlin"}, {"id": "big", "type": "scale_bias", "source": "s", "scale": 1e15},
               {"id": "sq", "type": "mul", "inputs": ["big", "big"]}, {"id": "out", "type": "mul", "inputs": ["sq", "s"]}"#,
            "inputs",
            "values would span",
        ),
    ];
    for (nodes, field, words) in cases {
        let e = errors(&graph(nodes));
        let node = if *field == "inputs" { "sq" } else { "out" };
        assert!(has(&e, Some(node), field, words), "{nodes}: {e}");
        assert_eq!(e.0.len(), 1, "reported once, where it starts: {e}");
    }
}

#[test]
fn per_axis_lists_match_the_node_dims() {
    for node in [
        r#""type": "perlin", "frequency": [3, 4, 5]"#,
        r#""type": "perlin", "frequency": [3]"#,
        r#""type": "perlin", "dims": 3, "offset": [1, 2]"#,
        r#""type": "simplex", "dims": 4, "offset": [1, 2, 3, 4, 5]"#,
    ] {
        let e = errors(&one_node(node));
        let field = if node.contains("frequency") {
            "frequency"
        } else {
            "offset"
        };
        assert!(has(&e, Some("n"), field, "one per axis"), "{node}: {e}");
    }
    let e = errors(&one_node(r#""type": "perlin", "period": [4, 4, 4]"#));
    assert!(has(&e, Some("n"), "period", "list of 2"), "{e}");
    let e = errors(
        r#"{"output": "f", "nodes": [{"id": "p", "type": "perlin"},
            {"id": "f", "type": "fbm", "source": "p", "offset": [1, 2, 3]}]}"#,
    );
    assert!(has(&e, Some("f"), "offset", "2D source 'p'"), "{e}");
    // Exactly one per axis is accepted, and written back the same way.
    let g = NoiseGraph::from_json(&one_node(
        r#""type": "perlin", "dims": 3, "frequency": [3, 4, 5], "offset": [1, 2, 3], "period": [3, 4, 5]"#,
    ))
    .unwrap();
    assert_eq!(NoiseGraph::from_value(&g.to_json()).unwrap(), g);
}

#[test]
fn remap_ends_are_two_numbers() {
    for (field, value) in [
        ("from", "[1]"),
        ("from", "[0, 1, 2]"),
        ("to", "\"0,1\""),
        ("to", "3"),
    ] {
        let text = format!(
            r#"{{"output": "r", "nodes": [{{"id": "p", "type": "perlin"}},
                {{"id": "r", "type": "remap", "source": "p", "{field}": {value}}}]}}"#
        );
        let e = errors(&text);
        assert!(has(&e, Some("r"), field, "two numbers"), "{text}: {e}");
    }
}

#[test]
fn remap_ends_are_required() {
    // No range fits every source (noise spans [-1, 1], cellular distances [0, 1] and more),
    // so a missing end is an error naming it rather than a guess.
    for (missing, given) in [("from", r#""to": [0, 1]"#), ("to", r#""from": [-1, 1]"#)] {
        let text = format!(
            r#"{{"output": "r", "nodes": [{{"id": "p", "type": "perlin"}},
                {{"id": "r", "type": "remap", "source": "p", {given}}}]}}"#
        );
        let e = errors(&text);
        assert!(has(&e, Some("r"), missing, "is required"), "{text}: {e}");
        assert_eq!(e.0.len(), 1, "{e}");
    }
}

#[test]
fn integers_out_of_range_are_refused_not_truncated() {
    let e = errors(&one_node(r#""type": "perlin", "dims": 4294967298"#));
    assert!(has(&e, Some("n"), "dims", "4294967298"), "{e}");
    let e = errors(&one_node(r#""type": "wave", "waves": 4294967360"#));
    assert!(has(&e, Some("n"), "waves", ""), "{e}");
}

#[test]
fn non_finite_tokens_never_become_names() {
    let e = errors(r#"{"seed":1,"output":Infinity,"nodes":[{"id":"Infinity","type":"perlin"}]}"#);
    assert!(has(&e, None, "output", "(got Infinity)"), "{e}");
    let e = errors(r#"{"seed":1,"output":"n","nodes":[{"id":NaN,"type":"perlin"}]}"#);
    assert!(has(&e, None, "nodes[0].id", "(got NaN)"), "{e}");
    let e = errors(&one_node(r#""type": "perlin", "frequency": -Infinity"#));
    assert!(has(&e, Some("n"), "frequency", "(got -Infinity)"), "{e}");
}

#[test]
fn long_chains_and_cycles_need_no_deep_stack() {
    // 5,000 neg nodes: parsed, planned and run without recursion.
    let mut nodes = vec![r#"{"id": "n0", "type": "perlin"}"#.to_string()];
    for i in 1..=5000 {
        nodes.push(format!(
            r#"{{"id": "n{i}", "type": "neg", "source": "n{}"}}"#,
            i - 1
        ));
    }
    let text = format!(r#"{{"output": "n5000", "nodes": [{}]}}"#, nodes.join(","));
    let graph = NoiseGraph::from_json(&text).unwrap();
    assert_eq!(graph.dims_of("n5000"), 2);
    assert_eq!(graph.range_of("n5000"), graph.range_of("n0"));
    let plan = noisegraph::Plan::new(&graph, None).unwrap();
    assert_eq!(plan.stages.len(), 5001);
    let field =
        noisegraph::engine::run_cpu(&plan, &noisegraph::View::image(2, 1), &Default::default())
            .unwrap();
    let first = noisegraph::engine::run_cpu(
        &noisegraph::Plan::new(&graph, Some("n0")).unwrap(),
        &noisegraph::View::image(2, 1),
        &Default::default(),
    )
    .unwrap();
    assert_eq!(field.data, first.data, "an even number of negations");

    // A cycle of 50,000 nodes through `source` fields: one issue, at a `source` field.
    let n = 50_000;
    let nodes: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"id": "c{i}", "type": "abs", "source": "c{}"}}"#,
                (i + 1) % n
            )
        })
        .collect();
    let text = format!(r#"{{"output": "c0", "nodes": [{}]}}"#, nodes.join(","));
    let e = errors(&text);
    assert_eq!(e.0.len(), 1, "one cycle, reported once");
    assert_eq!(e.0[0].field, "source");
    assert!(
        e.0[0].message.starts_with("cycle: c0 -> c1 -> "),
        "{}",
        e.0[0].message.len()
    );
}

#[test]
fn a_shared_input_is_ranged_once_not_once_per_path() {
    // Each node reads the previous one twice: 2^60 paths, 60 nodes.
    let mut nodes = vec![r#"{"id": "a0", "type": "perlin"}"#.to_string()];
    for i in 1..=60 {
        nodes.push(format!(
            r#"{{"id": "a{i}", "type": "max", "inputs": ["a{p}", "a{p}"]}}"#,
            p = i - 1
        ));
    }
    let text = format!(r#"{{"output": "a60", "nodes": [{}]}}"#, nodes.join(","));
    let start = std::time::Instant::now();
    let graph = NoiseGraph::from_json(&text).unwrap();
    assert_eq!(graph.range_of("a60"), graph.range_of("a0"));
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
}

#[test]
fn messages_name_the_field_at_fault() {
    let e = errors(r#"{"output": "n", "nodes": [{"id": "n", "type": "add", "inputs": ["", ""]}]}"#);
    assert!(has(&e, Some("n"), "inputs", "non-empty"), "{e}");
    assert_eq!(e.0.len(), 1, "{e}");
    let e = errors(r#"{"output": "n", "nodes": [{"id": "n", "type": "abs", "source": "nope"}]}"#);
    assert!(has(&e, Some("n"), "source", "unknown id 'nope'"), "{e}");
    assert_eq!(e.0.len(), 1, "{e}");
    // An unknown family is the only problem: node `n` exists, so `output` is fine.
    let e = errors(r#"{"output": "n", "nodes": [{"id": "n", "type": "nosuch"}]}"#);
    assert_eq!(e.0.len(), 1, "{e}");
    assert!(has(&e, Some("n"), "type", "unknown node type"), "{e}");
    // A cycle through `source` fields is reported at a `source` field.
    let e = errors(
        r#"{"output": "a", "nodes": [{"id": "a", "type": "neg", "source": "b"},
            {"id": "b", "type": "abs", "source": "a"}]}"#,
    );
    assert_eq!(e.0.len(), 1, "{e}");
    assert!(has(&e, Some("b"), "source", "cycle: a -> b -> a"), "{e}");
    // A missing source is reported once, as required.
    let e = errors(r#"{"output": "n", "nodes": [{"id": "n", "type": "abs"}]}"#);
    assert_eq!(e.0.len(), 1, "{e}");
    assert!(has(&e, Some("n"), "source", "required"), "{e}");
}

#[test]
fn a_huge_unknown_key_is_reported_quickly_and_briefly() {
    let key = "k".repeat(16 << 20);
    let text = one_node(&format!(r#""type": "perlin", "{key}": 1"#));
    let start = std::time::Instant::now();
    let e = errors(&text);
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    assert_eq!(e.0.len(), 1);
    assert!(
        e.0[0].message.contains("unknown parameter"),
        "{}",
        e.0[0].message
    );
    assert!(
        e.to_string().len() < 1000,
        "the message quotes a clipped key"
    );
}

/// A warp over a fractal of `octaves` from `frequency` cells per unit, displaced by two
/// Perlin fields at `amplitude`.
fn warp_over(frequency: f64, octaves: u32, amplitude: f64) -> String {
    format!(
        r#"{{"seed": 3, "output": "w", "nodes": [
            {{"id": "b", "type": "perlin", "frequency": {frequency}}},
            {{"id": "f", "type": "fbm", "source": "b", "octaves": {octaves}}},
            {{"id": "dx", "type": "perlin", "frequency": 3, "seed_offset": 1}},
            {{"id": "dy", "type": "perlin", "frequency": 3, "seed_offset": 2}},
            {{"id": "w", "type": "warp", "source": "f", "displace": ["dx", "dy"], "amplitude": {amplitude}}}]}}"#
    )
}

#[test]
fn warps_over_octaves_finer_than_the_warp_limit_are_refused() {
    use noisegraph::graph::limits::MAX_WARPED_CELLS_ACROSS;
    use noisegraph::{Backend, Executor, Plan, View};
    // The hardening round's case: counting octaves from 2^19 to 2^24 cells per unit, where
    // the paths parted by up to 4.9e-3: refused on both paths, naming the node and the limit.
    let graph = NoiseGraph::from_json(&warp_over(524288.0, 6, 0.001)).unwrap();
    let e = Executor::new(Backend::Cpu)
        .unwrap()
        .bake(&graph, None, &View::image(8, 8))
        .unwrap_err();
    // A request error: exit 2 in the tool (cli::exit_code).
    assert!(matches!(e, noisegraph::Error::InvalidRequest(_)), "{e:?}");
    let e = e.to_string();
    assert!(e.contains("node 'w'") && e.contains("2^18"), "{e}");
    // Under the limit it bakes, and a smaller extent brings the same graph under it.
    let plan = Plan::new(&graph, None).unwrap();
    plan.check_view(&View::image(8, 8).with_extent([1.0 / 64.0; 3]))
        .expect("2^13 to 2^18 cells across");
    let fine = NoiseGraph::from_json(&warp_over(MAX_WARPED_CELLS_ACROSS / 32.0, 6, 0.001)).unwrap();
    Plan::new(&fine, None)
        .unwrap()
        .check_view(&View::image(8, 8))
        .expect("the last octave at the limit");
    // The unwarped fractal is not limited (its positions carry no displacement).
    let plain = NoiseGraph::from_json(
        &warp_over(524288.0, 6, 0.001).replace(r#""output": "w""#, r#""output": "f""#),
    )
    .unwrap();
    Plan::new(&plain, None)
        .unwrap()
        .check_view(&View::image(8, 8))
        .expect("no warp, no warp limit");
    // A reach past 2^18 cells is refused where the graph is read, at the warp's amplitude.
    let e = errors(&warp_over(1024.0, 1, 1000.0));
    assert!(has(&e, Some("w"), "amplitude", "2^18"), "{e}");
}

#[test]
fn views_beyond_the_kernels_precision_are_refused() {
    let graph = NoiseGraph::from_json(&one_node(r#""type": "perlin", "frequency": 4"#)).unwrap();
    let plan = noisegraph::Plan::new(&graph, None).unwrap();
    let image = noisegraph::View::image(16, 16);
    for (view, words) in [
        (image.with_extent([1e300, 1.0, 1.0]), "extent"),
        (image.with_origin([0.0, -1e300, 0.0]), "origin"),
        // 2^29 units x 4 cells per unit = 2^31 cells across.
        (
            image.with_extent([536870912.0, 1.0, 1.0]),
            "lattice cells along x",
        ),
        // 2^39 units from 0 x 4 cells per unit = 2^41 cells.
        (image.with_origin([5.5e11, 0.0, 0.0]), "from 0 along x"),
    ] {
        let e = plan.check_view(&view).unwrap_err().to_string();
        assert!(e.contains(words), "{view:?}: {e}");
        assert!(!e.contains("invalid request"), "{e}");
    }
    plan.check_view(&image.with_origin([1e6, -1e6, 0.0]))
        .unwrap();
}

/// Every family at every dims: a 32-octave fractal at lacunarity 2 (frequency 4, so its last
/// octave runs at 2^33 cells per unit, far past the limit for octaves that count) validates,
/// and bakes finite values on the CPU path, near 0 and far from it.
#[test]
fn long_fractals_whose_last_octaves_are_negligible_validate_and_bake() {
    use noisegraph::{engine, family, Plan, RunOptions, View};
    for fam in family::registry() {
        for &dims in fam.dims() {
            // A wavelet tile is built on the host per octave: small ones keep this quick.
            let tile = if fam.params().iter().any(|p| p.name == "tile") {
                r#", "tile": 16"#
            } else {
                ""
            };
            for kind in ["fbm", "ridged", "billow"] {
                let text = format!(
                    r#"{{"seed": 7, "output": "f", "nodes": [
                        {{"id": "s", "type": "{}", "dims": {dims}, "frequency": 4{tile}}},
                        {{"id": "f", "type": "{kind}", "source": "s", "octaves": 32}}]}}"#,
                    fam.name()
                );
                let graph = NoiseGraph::from_json(&text)
                    .unwrap_or_else(|e| panic!("{} {dims}D {kind}: {e}", fam.name()));
                let plan = Plan::new(&graph, None).unwrap();
                for origin in [[0.0, 0.0, 0.0], [1e3, -2e3, 5.0]] {
                    let view = if dims >= 3 {
                        View::volume(3, 3, 2)
                    } else {
                        View::image(4, 3)
                    }
                    .with_origin(origin);
                    let field = engine::run_cpu(&plan, &view, &RunOptions::default())
                        .unwrap_or_else(|e| panic!("{} {dims}D {kind}: {e}", fam.name()));
                    assert!(
                        field.data.iter().all(|v| v.is_finite()),
                        "{} {dims}D {kind} at {origin:?}: {:?}",
                        fam.name(),
                        field.data
                    );
                }
            }
        }
    }
}

#[test]
fn octaves_that_count_are_held_to_the_tighter_frequency_limit() {
    let fractal = |gain: f64| {
        format!(
            r#"{{"seed": 1, "output": "f", "nodes": [{{"id": "s", "type": "perlin", "frequency": 1}},
                {{"id": "f", "type": "fbm", "source": "s", "octaves": 32, "lacunarity": 2, "gain": {gain}}}]}}"#
        )
    };
    // Gain 0.5: octaves 24 and up weigh under 2^-24 of the sum; the last one (2^31 cells per
    // unit) is negligible and allowed.
    NoiseGraph::from_json(&fractal(0.5)).unwrap();
    // Gain 1: every octave weighs 1/32 and counts, so octave 31 at 2^31 is refused.
    let e = errors(&fractal(1.0));
    assert!(has(&e, Some("f"), "lacunarity", "octave 31"), "{e}");
    assert!(has(&e, Some("f"), "lacunarity", "2^30"), "{e}");
}
