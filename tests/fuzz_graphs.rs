//! Property test over hostile graphs: random graphs built from the families' own parameter
//! metadata, and mutations of the examples and presets (fields replaced by extreme numbers,
//! wrong types, lists of the wrong length, bare NaN / Infinity tokens, references to nowhere).
//! Each is parsed, planned and run on the CPU path on a tiny view, and must
//! - never panic,
//! - never bake NaN or infinity when it succeeds (and have a finite documented range),
//! - when refused, name a node or a field in every message.
//!
//! CI runs `NOISEGRAPH_FUZZ_ITERATIONS` graphs (default 2000, a few seconds) from seed
//! `NOISEGRAPH_FUZZ_SEED` (default fixed); a longer run is
//! `NOISEGRAPH_FUZZ_ITERATIONS=200000 NOISEGRAPH_FUZZ_SEED=$RANDOM cargo test --release --test fuzz_graphs`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use noisegraph::family::{self, ParamKind};
use noisegraph::{engine, NoiseGraph, Plan, RunOptions, View};
use serde_json::{json, Map, Value};

/// SplitMix64: small, seedable, good enough to pick test cases. A `calm` generator draws
/// ordinary numbers and valid references (so many graphs reach the kernels); a hostile one
/// mixes in every boundary.
struct Rng {
    state: u64,
    calm: bool,
}

impl Rng {
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    /// `chance`, never taken by a calm generator: for the hostile choices.
    fn hostile(&mut self, percent: u64) -> bool {
        !self.calm && self.chance(percent)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Numbers at and around every boundary a kernel could trip on.
const EXTREMES: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    2.0,
    3.0,
    1e-300,
    -1e-300,
    1e-12,
    1e300,
    -1e300,
    1e308,
    -1.7e308,
    4294967295.0,
    4294967296.0,
    4294967298.0,
    1048576.0,
    1048577.0,
    1099511627776.0,
    1e15,
    1e18,
    -1e18,
    1e19,
    3.5e38,
    1e-40,
];

/// A number: mostly ordinary, often extreme.
fn number(rng: &mut Rng) -> Value {
    if rng.calm {
        let magnitude = 10f64.powf(rng.unit() * 4.0 - 2.0);
        return json!(if rng.chance(30) {
            -magnitude
        } else {
            magnitude
        });
    }
    match rng.below(4) {
        0 => json!(*rng.pick(EXTREMES)),
        1 => json!(rng.below(40) as i64 - 4),
        _ => {
            let magnitude = 10f64.powf(rng.unit() * 40.0 - 20.0);
            json!(if rng.chance(30) {
                -magnitude
            } else {
                magnitude
            })
        }
    }
}

/// Any JSON value, leaning towards numbers.
fn anything(rng: &mut Rng, ids: &[String]) -> Value {
    if rng.calm {
        return number(rng);
    }
    match rng.below(10) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(""),
        3 => json!(ids
            .get(rng.below(ids.len() + 1))
            .cloned()
            .unwrap_or("nowhere".into())),
        4 => Value::Array((0..rng.below(6)).map(|_| number(rng)).collect()),
        5 => json!({"x": 1}),
        _ => number(rng),
    }
}

/// A node id, or now and then a reference that does not resolve.
fn reference(rng: &mut Rng, ids: &[String]) -> Value {
    if rng.calm && !ids.is_empty() {
        return json!(rng.pick(ids));
    }
    match rng.below(20) {
        0 => json!(""),
        1 => json!("nowhere"),
        2 => json!(7),
        _ if ids.is_empty() => json!("nowhere"),
        _ => json!(rng.pick(ids)),
    }
}

/// A per-axis value for a `dims`-dimensional node: a number or a list (usually of the right
/// length).
fn per_axis(rng: &mut Rng, dims: usize, sensible: impl Fn(&mut Rng) -> Value) -> Value {
    let len = if rng.hostile(15) { rng.below(6) } else { dims };
    if rng.chance(50) {
        sensible(rng)
    } else {
        Value::Array(
            (0..len)
                .map(|_| {
                    if rng.hostile(15) {
                        number(rng)
                    } else {
                        sensible(rng)
                    }
                })
                .collect(),
        )
    }
}

/// A family node drawn from the family's declared parameters, dims and period support.
fn family_node(rng: &mut Rng, id: &str) -> Value {
    let fam = *rng.pick(family::registry());
    let mut m = Map::new();
    m.insert("id".into(), json!(id));
    m.insert("type".into(), json!(fam.name()));
    let dims = if rng.hostile(5) {
        rng.below(6) as u32
    } else {
        *rng.pick(fam.dims())
    };
    m.insert("dims".into(), json!(dims));
    if rng.chance(70) {
        m.insert(
            "frequency".into(),
            per_axis(rng, dims as usize, |r| json!(0.5 + r.unit() * 12.0)),
        );
    }
    if rng.chance(40) {
        m.insert(
            "offset".into(),
            per_axis(rng, dims as usize, |r| json!(r.unit() * 20.0 - 10.0)),
        );
    }
    for key in ["z", "w", "seed_offset"] {
        if rng.chance(25) && !(key == "seed_offset" && rng.calm) {
            m.insert(key.into(), number(rng));
        }
    }
    if (fam.supports_period() && rng.chance(30)) || rng.hostile(5) {
        m.insert(
            "period".into(),
            per_axis(rng, dims as usize, |r| json!(1 + r.below(8))),
        );
    }
    for spec in fam.params() {
        if spec.name == "tile" {
            // A wavelet tile is built on the host per seed: 128^3 takes seconds in a debug
            // build, which the run's time bound cannot afford. Small tiles test the same code.
            m.insert("tile".into(), json!(*rng.pick(&[16, 32])));
            continue;
        }
        if !rng.chance(60) {
            continue;
        }
        let value = match spec.kind {
            _ if rng.hostile(10) => anything(rng, &[]),
            ParamKind::Number { min, max, .. } => json!(min + (max - min) * rng.unit()),
            ParamKind::Integer { min, max, .. } => {
                // Small ranges in full; large ones near their ends, where costs peak.
                let span = (max - min) as u64;
                let v = if span <= 64 || rng.chance(50) {
                    min + (rng.next() % (span.min(64) + 1)) as i64
                } else {
                    max - (rng.next() % 64) as i64
                };
                json!(v)
            }
            ParamKind::Choice { options, .. } => json!(rng.pick(options)),
        };
        m.insert(spec.name.into(), value);
    }
    Value::Object(m)
}

/// A random graph: families first, then fractals, warps and point-wise nodes over them.
fn random_graph(rng: &mut Rng) -> Value {
    let mut nodes: Vec<Value> = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    let mut families: Vec<String> = Vec::new();
    // Family and fractal nodes, with their dims.
    let mut generators: Vec<(String, usize)> = Vec::new();
    let count = 1 + rng.below(7);
    for i in 0..count {
        let dims_of = |id: &str| generators.iter().find(|g| g.0 == id).map_or(2, |g| g.1);
        let id = format!("n{i}");
        let node = match rng.below(if families.is_empty() { 1 } else { 5 }) {
            0 => {
                let node = family_node(rng, &id);
                let dims = node["dims"].as_u64().unwrap_or(2) as usize;
                families.push(id.clone());
                generators.push((id.clone(), dims));
                node
            }
            1 => {
                let source = reference(rng, &families);
                let source_dims = source.as_str().map_or(2, &dims_of);
                generators.push((id.clone(), source_dims));
                let kind = *rng.pick(&["fbm", "ridged", "billow", "pingpong", "hybrid", "hetero"]);
                let mut m = json!({"id": id, "type": kind, "source": source});
                // The fields only some kinds have (issue 31).
                let own = match kind {
                    "fbm" | "ridged" | "billow" => {
                        Some(("derivative_weight", json!(rng.unit() * 4.0)))
                    }
                    "hybrid" | "hetero" => Some(("signal_offset", json!(rng.unit() * 2.0 - 0.5))),
                    _ => None,
                };
                if let Some((key, sensible)) = own {
                    if rng.chance(40) {
                        m[key] = if rng.hostile(20) {
                            number(rng)
                        } else {
                            sensible
                        };
                    }
                }
                for (key, sensible) in [
                    // Up to the limit of 32: the last octaves of a long fBm are too weak to
                    // count and only have to stay finite (graph::limits).
                    ("octaves", json!(1 + rng.below(32))),
                    ("lacunarity", json!(1.0 + rng.unit() * 3.0)),
                    ("gain", json!(rng.unit())),
                ] {
                    if rng.chance(60) {
                        m[key] = if rng.hostile(20) {
                            number(rng)
                        } else {
                            sensible
                        };
                    }
                }
                if rng.chance(20) {
                    m["offset"] = per_axis(rng, source_dims, |r| json!(r.unit() * 10.0));
                }
                m
            }
            2 => {
                let names: Vec<String> = generators.iter().map(|g| g.0.clone()).collect();
                let source = if rng.calm {
                    reference(rng, &names)
                } else {
                    reference(rng, &ids)
                };
                let axes = match source.as_str() {
                    Some(s) if rng.calm => dims_of(s),
                    _ => 2 + rng.below(2),
                };
                let displace: Vec<Value> = (0..axes).map(|_| reference(rng, &ids)).collect();
                let mut m = json!({"id": id, "type": "warp", "source": source,
                                   "displace": displace});
                if rng.chance(60) {
                    m["amplitude"] = if rng.hostile(30) {
                        number(rng)
                    } else {
                        json!(rng.unit())
                    };
                }
                m
            }
            _ => {
                let op = *rng.pick(&[
                    "add",
                    "sub",
                    "mul",
                    "min",
                    "max",
                    "mix",
                    "abs",
                    "neg",
                    "clamp",
                    "remap",
                    "constant",
                    "scale_bias",
                ]);
                let mut m = json!({"id": id, "type": op});
                match op {
                    "abs" | "neg" | "clamp" | "remap" | "scale_bias" => {
                        m["source"] = reference(rng, &ids)
                    }
                    "constant" => m["value"] = number(rng),
                    _ => {
                        let n = if op == "mix" { 3 } else { 2 };
                        let n = if rng.hostile(10) { rng.below(5) } else { n };
                        m["inputs"] = (0..n).map(|_| reference(rng, &ids)).collect();
                    }
                }
                for key in ["min", "max", "scale", "bias"] {
                    if rng.hostile(15) {
                        m[key] = number(rng);
                    }
                }
                if op == "remap" {
                    for key in ["from", "to"] {
                        m[key] = if rng.hostile(30) {
                            anything(rng, &[])
                        } else {
                            json!([rng.unit() * 2.0 - 1.0, 1.0 + rng.unit() * 4.0])
                        };
                    }
                }
                m
            }
        };
        nodes.push(node);
        ids.push(id);
    }
    let output = if rng.hostile(5) {
        anything(rng, &ids)
    } else {
        json!(ids.last().cloned().unwrap_or_default())
    };
    json!({"seed": rng.next() as u32, "output": output, "nodes": nodes})
}

/// Every graph this project ships: the examples and the presets.
fn shipped_graphs() -> Vec<Value> {
    let mut texts: Vec<String> = noisegraph::presets::PRESETS
        .iter()
        .map(|p| p.json.to_string())
        .collect();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            texts.push(std::fs::read_to_string(path).unwrap());
        }
    }
    texts
        .iter()
        .map(|t| serde_json::from_str(t).unwrap())
        .collect()
}

/// One to three changes to a shipped graph: a field replaced, removed or added, a node
/// dropped or duplicated.
fn mutate(rng: &mut Rng, graph: &Value) -> Value {
    let mut g = graph.clone();
    if rng.calm {
        // An ordinary edit: one number scaled by 1/2 to 2.
        let mut numbers: Vec<(usize, String)> = Vec::new();
        for (i, node) in g["nodes"].as_array().into_iter().flatten().enumerate() {
            for (key, value) in node.as_object().into_iter().flatten() {
                if value.is_f64() {
                    numbers.push((i, key.clone()));
                }
            }
        }
        if !numbers.is_empty() {
            let (i, key) = rng.pick(&numbers).clone();
            let factor = 0.5 + rng.unit() * 1.5;
            let v = g["nodes"][i][&key].as_f64().unwrap_or(1.0);
            g["nodes"][i][&key] = json!(v * factor);
        }
        return g;
    }
    for _ in 0..1 + rng.below(3) {
        let ids: Vec<String> = g["nodes"]
            .as_array()
            .map(|n| {
                n.iter()
                    .filter_map(|n| n["id"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let Some(nodes) = g["nodes"].as_array_mut() else {
            break;
        };
        if nodes.is_empty() {
            break;
        }
        let i = rng.below(nodes.len());
        match rng.below(10) {
            0 => {
                nodes.remove(i);
            }
            1 => {
                let copy = nodes[i].clone();
                nodes.push(copy);
            }
            _ => {
                let Some(node) = nodes[i].as_object_mut() else {
                    continue;
                };
                let keys: Vec<String> = node.keys().cloned().collect();
                let key = if rng.chance(70) && !keys.is_empty() {
                    rng.pick(&keys).clone()
                } else {
                    rng.pick(&[
                        "frequency",
                        "offset",
                        "z",
                        "w",
                        "period",
                        "octaves",
                        "lacunarity",
                        "gain",
                        "amplitude",
                        "dims",
                        "seed_offset",
                        "scale",
                        "bias",
                        "value",
                        "frequncy",
                    ])
                    .to_string()
                };
                if rng.chance(10) {
                    node.remove(&key);
                } else {
                    node.insert(key, anything(rng, &ids));
                }
            }
        }
    }
    g
}

/// Replaces one number of the JSON text by a bare token strict JSON rejects.
fn with_non_finite_token(rng: &mut Rng, text: &str) -> String {
    let starts: Vec<usize> = text
        .char_indices()
        .filter(|&(i, c)| {
            (c.is_ascii_digit() || c == '-')
                && text[..i]
                    .chars()
                    .last()
                    .is_some_and(|p| matches!(p, ':' | ' ' | '[' | ','))
        })
        .map(|(i, _)| i)
        .collect();
    if starts.is_empty() {
        return text.to_string();
    }
    let start = *rng.pick(&starts);
    let end = text[start + 1..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+')))
        .map_or(text.len(), |e| start + 1 + e);
    let token = *rng.pick(&["NaN", "Infinity", "-Infinity", "1e999", "-1e400"]);
    format!("{}{token}{}", &text[..start], &text[end..])
}

/// A tiny view, sometimes a volume, sometimes far away or enormous.
fn tiny_view(rng: &mut Rng) -> View {
    let mut view = View::image(1 + rng.below(6) as u32, 1 + rng.below(6) as u32);
    if rng.chance(25) {
        view.size[2] = 1 + rng.below(3) as u32;
    }
    if rng.chance(30) {
        view.origin = std::array::from_fn(|_| number(rng).as_f64().unwrap_or(0.0));
    }
    if rng.chance(30) {
        view.extent = std::array::from_fn(|_| number(rng).as_f64().unwrap_or(1.0).abs());
    }
    view
}

/// Words that tell the user where a refused request went wrong.
fn names_its_place(message: &str) -> bool {
    [
        "node '", "field '", "extent", "origin", "size", "width", "height", "depth",
    ]
    .iter()
    .any(|w| message.contains(w))
}

/// Runs one graph text through parse, plan and the CPU path; `Err` describes a broken
/// property.
fn check(text: &str, view: &View) -> Result<(), String> {
    let parsed =
        catch_unwind(|| NoiseGraph::from_json(text)).map_err(|_| "parsing panicked".to_string())?;
    let graph = match parsed {
        Ok(g) => g,
        Err(errors) => {
            for issue in &errors.0 {
                if issue.field.is_empty() {
                    return Err(format!("an issue names no field: {issue}"));
                }
            }
            return Ok(());
        }
    };
    let (lo, hi) = graph.range_of(&graph.output);
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(format!("documented range [{lo}, {hi}] is not finite"));
    }
    let again = NoiseGraph::from_value(&graph.to_json())
        .map_err(|e| format!("its own JSON does not parse again: {e}"))?;
    if again != graph {
        return Err("its own JSON parses to another graph".into());
    }
    let run = catch_unwind(AssertUnwindSafe(|| {
        let plan = Plan::new(&graph, None)?;
        engine::run_cpu(&plan, view, &RunOptions::default())
    }))
    .map_err(|_| format!("planning or running on {view:?} panicked"))?;
    match run {
        Ok(field) => match field.data.iter().position(|v| !v.is_finite()) {
            Some(i) => Err(format!("baked {} at sample {i} on {view:?}", field.data[i])),
            None => Ok(()),
        },
        Err(e) if names_its_place(&e.to_string()) => Ok(()),
        Err(e) => Err(format!("the error names no node or field: {e}")),
    }
}

#[test]
fn hostile_graphs_never_panic_nor_bake_non_finite_values() {
    let iterations = env_number("NOISEGRAPH_FUZZ_ITERATIONS", 2000);
    let seed = env_number("NOISEGRAPH_FUZZ_SEED", 0x5eed_2024);
    let mut rng = Rng {
        state: seed,
        calm: false,
    };
    let shipped = shipped_graphs();
    let (mut accepted, mut failures) = (0, Vec::new());
    for i in 0..iterations {
        rng.calm = rng.chance(50);
        let value = if rng.chance(50) {
            random_graph(&mut rng)
        } else {
            let base = rng.pick(&shipped).clone();
            mutate(&mut rng, &base)
        };
        let mut text = value.to_string();
        if rng.hostile(10) {
            text = with_non_finite_token(&mut rng, &text);
        }
        let view = tiny_view(&mut rng);
        match NoiseGraph::from_json(&text) {
            Ok(_) => accepted += 1,
            Err(e) if rng.calm && std::env::var("FUZZ_DEBUG").is_ok() => {
                eprintln!("calm rejected: {e}")
            }
            Err(_) => {}
        }
        let started = std::time::Instant::now();
        let result = check(&text, &view);
        if std::env::var("FUZZ_DEBUG").is_ok() && started.elapsed().as_millis() > 500 {
            eprintln!(
                "slow case {i} ({:?}) on {view:?}: {text}",
                started.elapsed()
            );
        }
        if let Err(problem) = result {
            failures.push(format!("case {i}: {problem}\n  graph: {text}"));
            if failures.len() >= 5 {
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "seed {seed}: {} failing case(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The generator must reach the kernels, not only the parser's error paths.
    assert!(
        accepted * 5 >= iterations,
        "only {accepted} of {iterations} graphs were valid"
    );
}
