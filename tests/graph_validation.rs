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
