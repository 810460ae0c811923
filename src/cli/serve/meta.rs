//! What the page builds its controls from: every node type of the graph format and its
//! fields (kind, bounds, default, help). Family parameters come from the families
//! themselves (`Family::params`); the fields the parser reads for every family, fractal,
//! warp and point-wise node are described here, and the tests below hold this description
//! to what the parser accepts and fills in.

use noisegraph::family::{registry, Family, ParamKind, ParamSpec};
use noisegraph::graph::{PointwiseOp, MAX_OCTAVES};
use serde_json::{json, Value};

use super::render::{FLOW_MODES, MAX_PREVIEW_SIDE};

/// A field spec for the page. `kind` is one of:
/// - `number`, `integer`: with `default`, optional `min` / `max` (accepted bounds),
///   `exclusive_min` (`min` itself refused), `soft` (the slider's span when a bound is open)
///   and `log` (a logarithmic slider);
/// - `axes`: a number, or one per axis (as `frequency`), same bounds;
/// - `choice`: `options`, `default`;
/// - `ref` / `refs`: node ids (`of`: `family` nodes, `generator`s or `any` node; `refs` has
///   `count`, or `count_from: "source_dims"`);
/// - `period`: absent, or a positive integer (or one per axis);
/// - `pair`: two numbers (`initial` for new nodes);
/// - `dims`: one of the family's dims.
///
/// `min_dims` hides a field for lower dims; `initial` is what a new node gets when the parser
/// has no default.
fn field(name: &str, kind: &str, help: &str, extra: Value) -> Value {
    let mut v = json!({ "name": name, "kind": kind, "help": help });
    if let (Some(m), Value::Object(e)) = (v.as_object_mut(), extra) {
        m.extend(e);
    }
    v
}

fn param_json(spec: &ParamSpec) -> Value {
    match spec.kind {
        ParamKind::Number { default, min, max } => field(
            spec.name,
            "number",
            spec.help,
            json!({ "default": default, "min": min, "max": max }),
        ),
        ParamKind::Integer { default, min, max } => field(
            spec.name,
            "integer",
            spec.help,
            json!({ "default": default, "min": min, "max": max,
                    "log": min > 0 && max / min.max(1) >= 100 }),
        ),
        ParamKind::Choice { options, default } => field(
            spec.name,
            "choice",
            spec.help,
            json!({ "options": options, "default": default }),
        ),
    }
}

fn family_json(f: &dyn Family) -> Value {
    json!({
        "type": f.name(),
        "summary": f.summary(),
        "dims": f.dims(),
        "period": f.supports_period(),
        "params": f.params().iter().map(param_json).collect::<Vec<_>>(),
    })
}

fn seed_offset() -> Value {
    field(
        "seed_offset",
        "integer",
        "added (wrapping) to the graph seed",
        json!({ "default": 0, "soft": [0, 100] }),
    )
}

fn offset() -> Value {
    field(
        "offset",
        "axes",
        "added to the position before scaling by frequency (a number, or one per axis)",
        json!({ "default": 0, "soft": [-10, 10] }),
    )
}

/// Fields every family node has, besides its own parameters.
fn family_fields() -> Value {
    json!([
        field("frequency", "axes", "lattice cells per unit: a number, or one per axis",
            json!({ "default": 1, "min": 0, "exclusive_min": true, "soft": [0.25, 64], "log": true })),
        seed_offset(),
        offset(),
        field("dims", "dims", "the dimension the family is evaluated in", json!({})),
        field("z", "number", "slice coordinate of 3D and 4D noise (added to the view's z)",
            json!({ "default": 0, "soft": [-4, 4], "min_dims": 3 })),
        field("w", "number", "slice coordinate of 4D noise",
            json!({ "default": 0, "soft": [-4, 4], "min_dims": 4 })),
        field("period", "period",
            "tileable output: the lattice wraps after this many cells (an integer, or one per axis; empty: no wrap)",
            json!({ "min": 1 })),
    ])
}

fn fractal_fields() -> Value {
    json!([
        field(
            "source",
            "ref",
            "the family node whose octaves are summed",
            json!({ "of": "family" })
        ),
        field(
            "octaves",
            "integer",
            "number of octaves",
            json!({ "default": 6, "min": 1, "max": MAX_OCTAVES })
        ),
        field(
            "lacunarity",
            "number",
            "frequency multiplier per octave",
            json!({ "default": 2, "min": 0, "exclusive_min": true, "soft": [1, 4] })
        ),
        field(
            "gain",
            "number",
            "amplitude multiplier per octave",
            json!({ "default": 0.5, "soft": [0, 1] })
        ),
        seed_offset(),
        offset(),
    ])
}

fn warp_fields() -> Value {
    json!([
        field(
            "source",
            "ref",
            "the generator (family or fractal node) that is warped",
            json!({ "of": "generator" })
        ),
        field(
            "displace",
            "refs",
            "one displacement field per axis of the source",
            json!({ "of": "any", "count_from": "source_dims" })
        ),
        field(
            "amplitude",
            "number",
            "scale of the displacement, in position units",
            json!({ "default": 1, "soft": [0, 2] })
        ),
    ])
}

/// The operation named `name` with its parser defaults (`None` for an unknown name).
fn pointwise_op(name: &str) -> Option<PointwiseOp> {
    Some(match name {
        "add" => PointwiseOp::Add,
        "sub" => PointwiseOp::Sub,
        "mul" => PointwiseOp::Mul,
        "min" => PointwiseOp::Min,
        "max" => PointwiseOp::Max,
        "mix" => PointwiseOp::Mix,
        "abs" => PointwiseOp::Abs,
        "neg" => PointwiseOp::Neg,
        "clamp" => PointwiseOp::Clamp { min: 0.0, max: 1.0 },
        "remap" => PointwiseOp::Remap {
            from: [-1.0, 1.0],
            to: [0.0, 1.0],
        },
        "constant" => PointwiseOp::Constant { value: 0.0 },
        "scale_bias" => PointwiseOp::ScaleBias {
            scale: 1.0,
            bias: 0.0,
        },
        _ => return None,
    })
}

fn pointwise_json(name: &str) -> Value {
    let op = pointwise_op(name).expect("every listed operation");
    let mut fields = match op.arity() {
        0 => vec![],
        1 => vec![field(
            "source",
            "ref",
            "the input field",
            json!({ "of": "any" }),
        )],
        n => {
            let help = if n == 3 {
                "[a, b, t]: a + (b - a) * t"
            } else {
                "[a, b]"
            };
            vec![field(
                "inputs",
                "refs",
                help,
                json!({ "of": "any", "count": n }),
            )]
        }
    };
    let extra: Vec<Value> = match op {
        PointwiseOp::Clamp { .. } => vec![
            field(
                "min",
                "number",
                "lower bound",
                json!({ "default": 0, "soft": [-2, 2] }),
            ),
            field(
                "max",
                "number",
                "upper bound (at least min)",
                json!({ "default": 1, "soft": [-2, 2] }),
            ),
        ],
        PointwiseOp::Remap { .. } => vec![
            field(
                "from",
                "pair",
                "source range [a, b] (a and b differ)",
                json!({ "initial": [-1, 1] }),
            ),
            field(
                "to",
                "pair",
                "target range [c, d]",
                json!({ "initial": [0, 1] }),
            ),
        ],
        PointwiseOp::Constant { .. } => vec![field(
            "value",
            "number",
            "the value of every sample",
            json!({ "default": 0, "soft": [-1, 1] }),
        )],
        PointwiseOp::ScaleBias { .. } => vec![
            field(
                "scale",
                "number",
                "multiplier",
                json!({ "default": 1, "soft": [-4, 4] }),
            ),
            field(
                "bias",
                "number",
                "added after scaling",
                json!({ "default": 0, "soft": [-2, 2] }),
            ),
        ],
        _ => vec![],
    };
    fields.extend(extra);
    json!({ "type": name, "inputs": op.arity(), "fields": fields })
}

/// Everything the page needs to know about the engine and this server.
pub fn metadata(file: Option<&str>, backend: &str) -> Value {
    json!({
        "families": registry().iter().map(|f| family_json(*f)).collect::<Vec<_>>(),
        "family_fields": family_fields(),
        "fractals": { "types": ["fbm", "ridged", "billow"], "fields": fractal_fields() },
        "warp": { "type": "warp", "fields": warp_fields() },
        "pointwise": PointwiseOp::NAMES.iter().map(|n| pointwise_json(n)).collect::<Vec<_>>(),
        "flow_modes": FLOW_MODES,
        "max_preview_side": MAX_PREVIEW_SIDE,
        "file": file,
        "backend": backend,
        "version": env!("CARGO_PKG_VERSION"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use noisegraph::NoiseGraph;

    /// The node `node` parsed in a graph that also holds a perlin node `p` and a fractal `f`
    /// (references for the node's inputs), written back with every field explicit.
    fn parsed(node: Value) -> Result<Value, Vec<(String, String)>> {
        let id = node["id"].as_str().unwrap().to_string();
        let graph = json!({ "seed": 1, "output": id, "nodes": [
            { "id": "p", "type": "perlin" },
            { "id": "f", "type": "fbm", "source": "p" },
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

    /// A node of `type_name` with its references filled in from `fields`.
    fn minimal(type_name: &str, fields: &[Value]) -> Value {
        let mut node = json!({ "id": "n", "type": type_name });
        for f in fields {
            let name = f["name"].as_str().unwrap();
            match f["kind"].as_str().unwrap() {
                "ref" => node[name] = json!(if f["of"] == "family" { "p" } else { "f" }),
                "refs" => {
                    let n = f["count"].as_u64().unwrap_or(2) as usize;
                    node[name] = json!(vec!["f"; n]);
                }
                _ => {
                    if let Some(initial) = f.get("initial") {
                        node[name] = initial.clone();
                    }
                }
            }
        }
        node
    }

    fn node_kinds(meta: &Value) -> Vec<(String, Vec<Value>)> {
        let mut kinds: Vec<(String, Vec<Value>)> = Vec::new();
        let common = meta["family_fields"].as_array().unwrap().clone();
        for f in meta["families"].as_array().unwrap() {
            let mut fields = common.clone();
            fields.extend(f["params"].as_array().unwrap().iter().cloned());
            kinds.push((f["type"].as_str().unwrap().into(), fields));
        }
        for t in meta["fractals"]["types"].as_array().unwrap() {
            let fields = meta["fractals"]["fields"].as_array().unwrap().clone();
            kinds.push((t.as_str().unwrap().into(), fields));
        }
        kinds.push((
            "warp".into(),
            meta["warp"]["fields"].as_array().unwrap().clone(),
        ));
        for p in meta["pointwise"].as_array().unwrap() {
            let fields = p["fields"].as_array().unwrap().clone();
            kinds.push((p["type"].as_str().unwrap().into(), fields));
        }
        kinds
    }

    #[test]
    fn every_node_type_is_described_once() {
        let meta = metadata(None, "CPU");
        let types: Vec<String> = node_kinds(&meta).into_iter().map(|k| k.0).collect();
        let mut unique = types.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), types.len());
        assert_eq!(
            types.len(),
            registry().len() + 3 + 1 + PointwiseOp::NAMES.len()
        );
        // An unknown type's error lists every type; each listed one must be described.
        let err = parsed(json!({ "id": "n", "type": "nope" })).unwrap_err();
        for t in &types {
            assert!(err[0].1.contains(t.as_str()), "{t} not in {}", err[0].1);
        }
    }

    #[test]
    fn defaults_are_what_the_parser_fills_in() {
        let meta = metadata(None, "CPU");
        for (type_name, fields) in node_kinds(&meta) {
            let node = minimal(&type_name, &fields);
            let written = parsed(node.clone())
                .unwrap_or_else(|e| panic!("{type_name}: {node} does not parse: {e:?}"));
            let mut described: Vec<&str> = vec!["id", "type"];
            for f in &fields {
                let name = f["name"].as_str().unwrap();
                described.push(name);
                if let Some(default) = f.get("default") {
                    let got = &written[name];
                    let same = match (default.as_f64(), got.as_f64()) {
                        (Some(a), Some(b)) => a == b,
                        _ => default == got,
                    };
                    assert!(same, "{type_name}.{name}: default {default}, parser {got}");
                }
            }
            // Every field the parser writes back is described (period only when set).
            for key in written.as_object().unwrap().keys() {
                assert!(
                    described.contains(&key.as_str()),
                    "{type_name}: field {key} is not described"
                );
            }
        }
    }

    /// The bounds of the fields described here (the families' own parameters are checked by
    /// the parser from the same `ParamSpec`s the page gets).
    #[test]
    fn bounds_are_the_parsers() {
        let meta = metadata(None, "CPU");
        let mut kinds = node_kinds(&meta);
        // Family fields once, on a family with every one of them (period included).
        kinds.retain(|(t, _)| noisegraph::family::lookup(t).is_none());
        kinds.push((
            "perlin".into(),
            meta["family_fields"].as_array().unwrap().clone(),
        ));
        for (type_name, fields) in kinds {
            for f in &fields {
                let name = f["name"].as_str().unwrap();
                let integer = f["kind"] == "integer" || f["kind"] == "period";
                let step = if integer { 1.0 } else { 1e-6 };
                let value = |x: f64| if integer { json!(x as i64) } else { json!(x) };
                let mut cases = Vec::new();
                if let Some(min) = f["min"].as_f64() {
                    if f["exclusive_min"] == true {
                        cases.push((value(min), false));
                        cases.push((value(min + step), true));
                    } else {
                        cases.push((value(min - step), false));
                        cases.push((value(min), true));
                    }
                }
                if let Some(max) = f["max"].as_f64() {
                    cases.push((value(max), true));
                    cases.push((value(max + step), false));
                }
                for (v, accepted) in cases {
                    let mut node = minimal(&type_name, &fields);
                    node[name] = v.clone();
                    if name == "lacunarity" {
                        // One octave: the field's own bound, not the combined one on the
                        // octaves' frequencies (graph::limits), which a tiny lacunarity over
                        // several octaves trips.
                        node["octaves"] = json!(1);
                    }
                    let result = parsed(node);
                    match (&result, accepted) {
                        (Ok(_), true) => {}
                        (Err(e), false) => assert!(
                            e.iter().any(|(field, _)| field == name),
                            "{type_name}.{name} = {v}: errors not at the field: {e:?}"
                        ),
                        _ => panic!("{type_name}.{name} = {v}: expected accepted={accepted}, got {result:?}"),
                    }
                }
            }
        }
    }

    #[test]
    fn inputs_and_dims_match_the_engine() {
        let meta = metadata(Some("g.json"), "CPU");
        for p in meta["pointwise"].as_array().unwrap() {
            let op = pointwise_op(p["type"].as_str().unwrap()).unwrap();
            assert_eq!(p["inputs"], op.arity());
        }
        for (f, family) in meta["families"].as_array().unwrap().iter().zip(registry()) {
            assert_eq!(f["dims"], json!(family.dims()));
            assert_eq!(f["period"], family.supports_period());
        }
        assert_eq!(meta["file"], "g.json");
    }
}
