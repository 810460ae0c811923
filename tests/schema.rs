//! The node schema (`noisegraph::graph::schema`) against what reads it: the parser fills in
//! exactly the declared defaults and accepts exactly the declared bounds, every field it
//! writes back is declared, the dims rule is `dims_of`'s, and the README's node tables are the
//! ones the schema generates (`NOISEGRAPH_UPDATE_README=1 cargo test --test schema` rewrites
//! them).

use noisegraph::graph::schema::{Category, DimsRule, FieldKind, InputCount, NodeSchema, RefKind};
use noisegraph::graph::{schema, PointwiseOp};
use noisegraph::NoiseGraph;
use serde_json::{json, Value};

/// `node` parsed in a graph that also holds a perlin node `p` and a fractal `f` (references
/// for its inputs), written back with every field explicit; or its problems (field, message).
fn parsed(node: Value) -> Result<Value, Vec<(String, String)>> {
    let id = node["id"].as_str().unwrap().to_string();
    let graph = json!({ "seed": 1, "output": id, "nodes": [
        { "id": "p", "type": "perlin" },
        { "id": "f", "type": "fbm", "source": "p" },
        { "id": "zero", "type": "constant" },
        { "id": "s3", "type": "simplex", "dims": 3 },
        { "id": "s4", "type": "simplex", "dims": 4 },
        node ] });
    match NoiseGraph::from_value(&graph) {
        Ok(g) => Ok(g.to_json()["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["id"] == id.as_str())
            .unwrap()
            .clone()),
        Err(e) => Err(e.0.into_iter().map(|i| (i.field, i.message)).collect()),
    }
}

/// A node of `kind` with its inputs filled in (a family node where one is asked for, a
/// constant 0 as a warp's displacements, else the fractal) and its `initial` values.
fn minimal(kind: &NodeSchema) -> Value {
    let mut node = json!({ "id": "n", "type": kind.type_name });
    for input in &kind.inputs {
        let id = match (input.of, kind.dims) {
            (RefKind::Family, _) => "p",
            // A curved mapping's source has its dims.
            (_, DimsRule::Fixed { source: 3, .. }) => "s3",
            (_, DimsRule::Fixed { source: 4, .. }) => "s4",
            _ => "f",
        };
        node[input.name] = match input.count {
            InputCount::One => json!(id),
            InputCount::List(n) => json!(vec![id; n as usize]),
            // Zero displacements: a warp's reach stays within graph::limits at any amplitude.
            InputCount::PerSourceAxis => json!(["zero", "zero"]),
        };
    }
    for f in &kind.fields {
        if let Some(initial) = &f.initial {
            node[f.name] = serde_json::to_value(initial).unwrap();
        }
    }
    node
}

#[test]
fn every_node_kind_is_declared_once() {
    let s = schema();
    let mut types: Vec<&str> = s.nodes.iter().map(|n| n.type_name).collect();
    let count = types.len();
    types.sort();
    types.dedup();
    assert_eq!(types.len(), count, "a type declared twice");
    assert_eq!(
        s.types(Category::Family).len(),
        noisegraph::family::registry().len()
    );
    assert_eq!(
        s.types(Category::Fractal),
        ["fbm", "ridged", "billow", "pingpong", "hybrid", "hetero"]
    );
    assert_eq!(s.types(Category::Warp), ["warp"]);
    // An unknown type's error lists every type; each listed one is declared.
    let err = parsed(json!({ "id": "n", "type": "nope" })).unwrap_err();
    for t in &types {
        assert!(err[0].1.contains(t), "{t} not in {}", err[0].1);
    }
}

#[test]
fn defaults_are_what_the_parser_fills_in() {
    for kind in &schema().nodes {
        let node = minimal(kind);
        let written = parsed(node.clone())
            .unwrap_or_else(|e| panic!("{}: {node} does not parse: {e:?}", kind.type_name));
        let mut declared: Vec<&str> = vec!["id", "type"];
        declared.extend(kind.inputs.iter().map(|i| i.name));
        for f in &kind.fields {
            declared.push(f.name);
            let Some(default) = &f.default else { continue };
            if f.initial.is_some() {
                continue;
            }
            let got = &written[f.name];
            let want = serde_json::to_value(default).unwrap();
            let same = match (want.as_f64(), got.as_f64()) {
                (Some(a), Some(b)) => a == b,
                _ => want == *got,
            };
            assert!(
                same,
                "{}.{}: default {want}, parser {got}",
                kind.type_name, f.name
            );
        }
        // Every field the parser writes back is declared (period only when set).
        for key in written.as_object().unwrap().keys() {
            assert!(
                declared.contains(&key.as_str()),
                "{}: field {key} is not declared",
                kind.type_name
            );
        }
    }
}

#[test]
fn bounds_are_the_parsers() {
    for kind in &schema().nodes {
        for f in &kind.fields {
            let integer = matches!(f.kind, FieldKind::Integer | FieldKind::Period);
            let step = |x: f64| {
                if integer {
                    1.0
                } else {
                    (x.abs() * 1e-9).max(1e-9)
                }
            };
            let value = |x: f64| match f.kind {
                FieldKind::Integer | FieldKind::Period => json!(x as i64),
                FieldKind::Pair if x < 0.0 => json!([x, 0.0]),
                FieldKind::Pair => json!([0.0, x]),
                // A point at the bound, another where the order allows.
                FieldKind::Points if x < 0.0 => json!([[x, 0.0], [0.0, 0.0]]),
                FieldKind::Points => json!([[0.0, 0.0], [x, 0.0]]),
                FieldKind::Triple => json!([x, 0.0, 1.0]),
                _ => json!(x),
            };
            let mut cases = Vec::new();
            if let Some(min) = f.min {
                if f.exclusive_min {
                    cases.push((value(min), false));
                    cases.push((value(min + step(min)), true));
                } else {
                    cases.push((value(min - step(min)), false));
                    cases.push((value(min), true));
                }
            }
            if let Some(max) = f.max {
                cases.push((value(max), true));
                cases.push((value(max + step(max)), false));
            }
            // A family's own parameters meet checks between them (wave's f_min <= f_max)
            // besides their bounds: only the refusals are the bounds' alone.
            let own_param = kind.category == Category::Family
                && !noisegraph::graph::schema::FAMILY_FIELDS
                    .iter()
                    .any(|c| c.name == f.name);
            for (v, accepted) in cases {
                if own_param && accepted {
                    continue;
                }
                let mut node = minimal(kind);
                node[f.name] = v.clone();
                // The field's own bound, not the combined ones of graph::limits (octave
                // frequencies, value ranges), which an extreme value trips elsewhere.
                if kind.category == Category::Fractal && f.name != "octaves" {
                    node["octaves"] = json!(1);
                }
                if kind.type_name == "transform" && matches!(f.name, "axis" | "angle") {
                    // A 3D rotation rotates a 3D source (a check of its own).
                    node["source"] = json!("s3");
                }
                if kind.type_name == "clamp" {
                    // min <= max is a check of its own.
                    let other = if f.name == "min" { "max" } else { "min" };
                    node[other] = v.clone();
                }
                let result = parsed(node);
                let name = f.name;
                match (&result, accepted) {
                    (Ok(_), true) => {}
                    (Err(e), true) => assert!(
                        e.iter().all(|(field, _)| field != name),
                        "{}.{name} = {v}: refused at the field: {e:?}",
                        kind.type_name
                    ),
                    (Err(e), false) => assert!(
                        e.iter().any(|(field, _)| field == name),
                        "{}.{name} = {v}: errors not at the field: {e:?}",
                        kind.type_name
                    ),
                    (Ok(_), false) => panic!("{}.{name} = {v}: accepted", kind.type_name),
                }
            }
        }
        // A list takes its count of items: the fewest and the most, not one less or more.
        for f in kind.fields.iter().filter(|f| f.kind == FieldKind::Points) {
            let [lo, hi] = f.items.expect("a points field bounds its count");
            let list = |n: u32| json!((0..n).map(|i| [f64::from(i), 0.0]).collect::<Vec<_>>());
            for (n, accepted) in [(lo - 1, false), (lo, true), (hi, true), (hi + 1, false)] {
                let mut node = minimal(kind);
                node[f.name] = list(n);
                let result = parsed(node);
                assert_eq!(
                    result.is_ok(),
                    accepted,
                    "{}.{} with {n} items: {result:?}",
                    kind.type_name,
                    f.name
                );
                if let Err(e) = result {
                    assert!(e.iter().any(|(field, _)| field == f.name), "{e:?}");
                }
            }
        }
        // A choice takes its options and nothing else.
        for f in kind.fields.iter().filter(|f| f.kind == FieldKind::Choice) {
            for option in f.options {
                let mut node = minimal(kind);
                node[f.name] = json!(option);
                assert!(
                    parsed(node).is_ok(),
                    "{}.{} = {option}",
                    kind.type_name,
                    f.name
                );
            }
            let mut node = minimal(kind);
            node[f.name] = json!("not-an-option");
            assert!(parsed(node).is_err());
        }
    }
}

#[test]
fn inputs_and_dims_follow_the_schema() {
    for op in schema()
        .nodes
        .iter()
        .filter(|n| n.category == Category::Pointwise)
    {
        let graph = NoiseGraph::from_value(&json!({ "seed": 1, "output": "n", "nodes": [
            { "id": "p", "type": "perlin", "dims": 3 },
            { "id": "f", "type": "fbm", "source": "p" },
            minimal(op) ] }))
        .unwrap();
        let node = graph.node("n").unwrap();
        let noisegraph::graph::NodeKind::Pointwise(p) = &node.kind else {
            panic!("{} is point-wise", op.type_name);
        };
        let arity = match op.inputs.first().map(|i| i.count) {
            None => 0,
            Some(InputCount::One) => 1,
            Some(InputCount::List(n)) => n as usize,
            Some(InputCount::PerSourceAxis) => panic!("point-wise inputs are counted"),
        };
        assert_eq!(p.op.arity(), arity, "{}", op.type_name);
        assert_eq!(p.op.name(), op.type_name);
        assert_eq!(
            op.code.map(|c| c.value),
            Some(p.op.code_and_constants().0),
            "{}: the op code",
            op.type_name
        );
        // MaxOfInputs: the 3D fractal's dims, 2 for a constant.
        assert_eq!(graph.dims_of("n"), if arity == 0 { 2 } else { 3 });
        let _: &PointwiseOp = &p.op;
    }
    for fam in schema()
        .nodes
        .iter()
        .filter(|n| n.category == Category::Family)
    {
        let noisegraph::graph::schema::DimsRule::Own { supported } = fam.dims else {
            panic!("{}: families have their own dims", fam.type_name);
        };
        let f = noisegraph::family::lookup(fam.type_name).unwrap();
        assert_eq!(supported, f.dims());
        assert_eq!(fam.field("period").is_some(), f.supports_period());
        if fam.type_name == "perlin" {
            assert!(
                fam.gradient.without.is_empty(),
                "{:?}",
                fam.gradient.without
            );
        }
    }
    // Mappings: a transform has its source's dims; a curved mapping is 2D, of a source of the
    // dims its rule names.
    for kind in schema()
        .nodes
        .iter()
        .filter(|n| n.category == Category::Mapping)
    {
        let graph = NoiseGraph::from_value(&json!({ "seed": 1, "output": "n", "nodes": [
            { "id": "p", "type": "perlin" },
            { "id": "f", "type": "fbm", "source": "p" },
            { "id": "s3", "type": "simplex", "dims": 3 },
            { "id": "s4", "type": "simplex", "dims": 4 },
            minimal(kind) ] }))
        .unwrap_or_else(|e| panic!("{}: {e}", kind.type_name));
        let want = match kind.dims {
            DimsRule::Source => 2,
            DimsRule::Fixed { dims, .. } => dims,
            other => panic!("{}: dims rule {other:?}", kind.type_name),
        };
        assert_eq!(graph.dims_of("n"), want, "{}", kind.type_name);
    }
    let simplex = schema().node("simplex").unwrap();
    assert!(
        simplex
            .gradient
            .without
            .iter()
            .any(|w| w.contains("classic")),
        "{:?}",
        simplex.gradient.without
    );
}

#[test]
fn the_schema_serialises() {
    let v = serde_json::to_value(schema()).unwrap();
    let nodes = v["nodes"].as_array().unwrap();
    let ridged = nodes.iter().find(|n| n["type"] == "ridged").unwrap();
    assert_eq!(ridged["category"], "fractal");
    assert_eq!(ridged["dims"]["rule"], "source");
    assert_eq!(ridged["code"]["constant"], "FRACTAL_RIDGED");
    assert!(ridged["gradient"]["crease"]
        .as_str()
        .unwrap()
        .contains("sign(0) = 0"));
    let octaves = ridged["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "octaves")
        .unwrap();
    assert_eq!(octaves["kind"], "integer");
    assert_eq!(octaves["default"], 6);
    assert_eq!(octaves["max"], 32.0);
    let perlin = nodes.iter().find(|n| n["type"] == "perlin").unwrap();
    assert_eq!(
        perlin["dims"],
        json!({ "rule": "own", "supported": [2, 3] })
    );
    let fade = perlin["fields"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "fade")
        .unwrap();
    assert_eq!(fade["options"], json!(["linear", "cubic", "quintic"]));
    assert_eq!(fade["default"], "quintic");
    let warp = nodes.iter().find(|n| n["type"] == "warp").unwrap();
    assert_eq!(warp["inputs"][1]["count"], "per_source_axis");
    let mix = nodes.iter().find(|n| n["type"] == "mix").unwrap();
    assert_eq!(mix["inputs"][0]["count"], json!({ "list": 3 }));
    assert_eq!(mix["code"], json!({ "constant": "OP_MIX", "value": 5 }));
    let remap = schema().node("remap").unwrap();
    let from = remap.field("from").unwrap();
    assert!(
        from.required && from.default.is_none(),
        "remap's from is required"
    );
}

/// The text between `<!-- schema:NAME -->` and `<!-- /schema:NAME -->` in `text`.
fn between(text: &str, name: &str) -> Option<(usize, usize)> {
    let open = format!("<!-- schema:{name} -->\n");
    let close = format!("<!-- /schema:{name} -->");
    let start = text.find(&open)? + open.len();
    let end = start + text[start..].find(&close)?;
    Some((start, end))
}

#[test]
fn the_readme_node_tables_are_the_schemas() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let mut readme = std::fs::read_to_string(path).unwrap();
    let (families, kinds) = noisegraph::graph::schema::markdown_tables();
    let update = std::env::var("NOISEGRAPH_UPDATE_README").as_deref() == Ok("1");
    for (name, table) in [("families", families), ("nodes", kinds)] {
        let (start, end) = between(&readme, name)
            .unwrap_or_else(|| panic!("README.md has no <!-- schema:{name} --> section"));
        if update {
            readme.replace_range(start..end, &table);
        } else {
            assert_eq!(
                readme[start..end],
                table,
                "README.md's {name} table differs from the schema: run \
                 NOISEGRAPH_UPDATE_README=1 cargo test --test schema"
            );
        }
    }
    if update {
        std::fs::write(path, readme).unwrap();
    }
}

#[test]
fn the_layout_field_is_accepted_and_ignored() {
    let plain = r#"{"seed": 2, "output": "f", "nodes": [
        {"id": "p", "type": "perlin", "frequency": 3},
        {"id": "f", "type": "fbm", "source": "p", "octaves": 2}]}"#;
    let with_layout = r#"{"seed": 2, "output": "f",
        "layout": {"p": [10, 20], "f": [200.5, -4], "gone": "anything"},
        "nodes": [
        {"id": "p", "type": "perlin", "frequency": 3},
        {"id": "f", "type": "fbm", "source": "p", "octaves": 2}]}"#;
    let a = NoiseGraph::from_json(plain).unwrap();
    let b = NoiseGraph::from_json(with_layout).unwrap();
    assert_eq!(a, b, "the layout changes nothing the engine reads");
    assert_eq!(noisegraph::graph::LAYOUT_FIELD, "layout");
    // Any other unknown top-level field is still an error, with a hint for a near miss.
    let e = NoiseGraph::from_json(&with_layout.replace("\"layout\"", "\"layuot\"")).unwrap_err();
    assert!(
        e.0.iter().any(|i| i.node.is_none()
            && i.field == "layuot"
            && i.message.contains("did you mean 'layout'")),
        "{e}"
    );
}
