//! Graphs that cover every family (in every dims, with and without octaves, a period, a warp
//! and point-wise nodes), the presets and the example graphs: what the point-query and WGSL
//! export tests run.

use noisegraph::family::registry;
use noisegraph::NoiseGraph;
use serde_json::json;

/// A labelled graph.
pub struct CatalogGraph {
    pub label: String,
    pub graph: NoiseGraph,
}

fn parse(label: impl Into<String>, value: serde_json::Value) -> CatalogGraph {
    let label = label.into();
    let graph = NoiseGraph::from_value(&value).unwrap_or_else(|e| panic!("{label}: {e}"));
    CatalogGraph { label, graph }
}

/// Every family in every dims it has, one node, default parameters (`frequency` 5).
pub fn families() -> Vec<CatalogGraph> {
    let mut out = Vec::new();
    for family in registry() {
        for &dims in family.dims() {
            let mut node =
                json!({"id": "n", "type": family.name(), "dims": dims, "frequency": 5.0});
            if dims >= 3 {
                node["z"] = json!(0.375);
            }
            out.push(parse(
                format!("{} {dims}D", family.name()),
                json!({"seed": 11, "output": "n", "nodes": [node]}),
            ));
        }
    }
    out
}

/// Variants: fractal kinds, tileable, parameters, 4D, warps and point-wise nodes.
pub fn variants() -> Vec<CatalogGraph> {
    let mut out = Vec::new();
    for (kind, family, dims, extra) in [
        ("fbm", "perlin", 2, json!({})),
        ("ridged", "value", 2, json!({"fade": "cubic"})),
        ("billow", "simplex", 3, json!({})),
        ("fbm", "perlin", 3, json!({"gradients": "random"})),
        ("ridged", "opensimplex2", 2, json!({"variant": "smooth"})),
        ("fbm", "cellular", 2, json!({"return": "f2_minus_f1"})),
        ("fbm", "value", 2, json!({"period": 4})),
        ("fbm", "perlin", 2, json!({"period": [3, 5]})),
    ] {
        let mut base =
            json!({"id": "b", "type": family, "dims": dims, "frequency": 3.0, "seed_offset": 2});
        for (k, v) in extra.as_object().unwrap() {
            base[k] = v.clone();
        }
        let lacunarity = if extra.get("period").is_some() {
            2.0
        } else {
            2.1
        };
        // One offset per axis of the source (strict parsing refuses other lengths).
        let offset = &[0.3, -1.7, 0.2, 0.0][..dims];
        out.push(parse(
            format!("{kind} of {family} {dims}D {extra}"),
            json!({"seed": 5, "output": "f", "nodes": [base,
                {"id": "f", "type": kind, "source": "b", "octaves": 5, "lacunarity": lacunarity,
                 "gain": 0.55, "offset": offset}]}),
        ));
    }
    out.push(parse(
        "simplex 4D fbm",
        json!({"seed": 3, "output": "f", "nodes": [
            {"id": "b", "type": "simplex", "dims": 4, "frequency": 2.0, "z": 0.5, "w": -1.25},
            {"id": "f", "type": "fbm", "source": "b", "octaves": 3}]}),
    ));
    out.push(parse(
        "opensimplex2 smooth 4D",
        json!({"seed": 3, "output": "n", "nodes": [
            {"id": "n", "type": "opensimplex2", "dims": 4, "variant": "smooth", "frequency": 3.0, "w": 0.7}]}),
    ));
    out.push(parse(
        "3D warp",
        json!({"seed": 9, "output": "w", "nodes": [
            {"id": "p", "type": "perlin", "frequency": 3.0, "dims": 3, "z": 0.25},
            {"id": "s", "type": "simplex", "frequency": 2.0, "dims": 3},
            {"id": "f", "type": "fbm", "source": "p", "octaves": 4},
            {"id": "dx", "type": "fbm", "source": "s", "octaves": 3, "seed_offset": 31},
            {"id": "dy", "type": "billow", "source": "s", "octaves": 2, "seed_offset": 37},
            {"id": "dz", "type": "simplex", "frequency": 5.0, "dims": 3, "seed_offset": 41},
            {"id": "w", "type": "warp", "source": "f", "displace": ["dx", "dy", "dz"], "amplitude": 0.4}]}),
    ));
    out.push(parse(
        "warped wave by a point-wise mix",
        json!({"seed": 21, "output": "out", "nodes": [
            {"id": "wv", "type": "wave", "frequency": 2.0, "waves": 32},
            {"id": "v", "type": "value", "frequency": 4.0},
            {"id": "p", "type": "perlin", "frequency": 6.0, "seed_offset": 1},
            {"id": "m", "type": "mul", "inputs": ["v", "p"]},
            {"id": "w", "type": "warp", "source": "wv", "displace": ["m", "v"], "amplitude": 0.3},
            {"id": "c", "type": "clamp", "source": "p", "min": -0.2, "max": 0.25},
            {"id": "k", "type": "constant", "value": 0.5},
            {"id": "out", "type": "mix", "inputs": ["w", "c", "k"]}]}),
    ));
    out.push(parse(
        "wavelet and gabor with abs, min, max, remap",
        json!({"seed": 4, "output": "out", "nodes": [
            {"id": "a", "type": "wavelet", "frequency": 3.0, "tile": 32},
            {"id": "b", "type": "gabor", "frequency": 2.0, "impulses": 4},
            {"id": "c", "type": "abs", "source": "a"},
            {"id": "d", "type": "min", "inputs": ["c", "b"]},
            {"id": "e", "type": "remap", "source": "d", "from": [-1.0, 1.0], "to": [0.0, 2.0]},
            {"id": "f", "type": "neg", "source": "b"},
            {"id": "out", "type": "max", "inputs": ["e", "f"]}]}),
    ));
    out.extend(remaps_and_blends());
    out.extend(multifractals());
    out
}

/// The fractals whose octaves carry a state (issue 31): `hybrid`, `hetero`, and fbm, ridged
/// and billow with a `derivative_weight`, unwarped and warped.
fn multifractals() -> Vec<CatalogGraph> {
    vec![
        parse(
            "hybrid, hetero and derivative-weighted fbm, added",
            json!({"seed": 17, "output": "out", "nodes": [
                {"id": "p", "type": "perlin", "frequency": 3.0},
                {"id": "s", "type": "simplex", "frequency": 2.0, "seed_offset": 4},
                {"id": "hy", "type": "hybrid", "source": "p", "octaves": 5},
                {"id": "he", "type": "hetero", "source": "s", "octaves": 4},
                {"id": "dw", "type": "fbm", "source": "p", "octaves": 4, "derivative_weight": 1.5},
                {"id": "a", "type": "add", "inputs": ["hy", "he"]},
                {"id": "out", "type": "add", "inputs": ["a", "dw"]}]}),
        ),
        parse(
            "warped derivative-weighted ridged of value 3D",
            json!({"seed": 23, "output": "w", "nodes": [
                {"id": "v", "type": "value", "dims": 3, "frequency": 2.5, "z": 0.3},
                {"id": "r", "type": "ridged", "source": "v", "octaves": 3, "derivative_weight": 0.5},
                {"id": "dx", "type": "perlin", "dims": 3, "frequency": 2.0, "seed_offset": 7},
                {"id": "dy", "type": "fbm", "source": "dx", "octaves": 2, "seed_offset": 9},
                {"id": "w", "type": "warp", "source": "r", "displace": ["dx", "dy", "dx"], "amplitude": 0.2}]}),
        ),
    ]
}

/// The remaps and blends (`pow`, `smoothstep`, `quantize`, `terrace`, `smooth_min`,
/// `smooth_max`, `select`, `curve` in both modes), smooth and creased settings.
fn remaps_and_blends() -> Vec<CatalogGraph> {
    let sources = || {
        vec![
            json!({"id": "p", "type": "perlin", "frequency": 3.0}),
            json!({"id": "a", "type": "fbm", "source": "p", "octaves": 3}),
            json!({"id": "b", "type": "simplex", "frequency": 2.5, "seed_offset": 3}),
            json!({"id": "c", "type": "value", "frequency": 2.0, "seed_offset": 5}),
        ]
    };
    let mut out = Vec::new();
    for (label, ops) in [
        (
            "remaps pow, smoothstep, terrace",
            vec![
                json!({"id": "pw", "type": "pow", "source": "a", "exponent": 3.0}),
                json!({"id": "ss", "type": "smoothstep", "source": "b", "low": -0.5, "high": 0.6}),
                json!({"id": "t", "type": "terrace", "source": "pw", "step": 0.1, "smoothness": 0.4}),
                json!({"id": "out", "type": "add", "inputs": ["t", "ss"]}),
            ],
        ),
        (
            "blends smooth_min, smooth_max, select",
            vec![
                json!({"id": "lo", "type": "smooth_min", "inputs": ["a", "b"], "k": 0.3}),
                json!({"id": "hi", "type": "smooth_max", "inputs": ["a", "b"], "k": 0.2}),
                json!({"id": "out", "type": "select", "inputs": ["lo", "hi", "c"], "threshold": 0.1, "falloff": 0.2}),
            ],
        ),
        (
            "curves monotone and free",
            vec![
                json!({"id": "cm", "type": "curve", "source": "a",
                       "points": [[-1.0, -0.8], [-0.2, -0.5], [0.1, 0.4], [0.5, 0.45], [1.0, 1.0]]}),
                json!({"id": "cf", "type": "curve", "source": "b", "mode": "free",
                       "points": [[-0.8, 0.2], [-0.1, -0.6], [0.4, 0.7], [0.9, 0.1]]}),
                json!({"id": "out", "type": "add", "inputs": ["cm", "cf"]}),
            ],
        ),
        (
            "creased quantize, pow 0.5, hard select",
            vec![
                json!({"id": "q", "type": "quantize", "source": "b", "step": 0.25}),
                json!({"id": "pw", "type": "pow", "source": "a", "exponent": 0.5}),
                json!({"id": "out", "type": "select", "inputs": ["q", "pw", "c"], "threshold": -0.2}),
            ],
        ),
    ] {
        let mut nodes = sources();
        nodes.extend(ops);
        out.push(parse(
            label,
            json!({"seed": 13, "output": "out", "nodes": nodes}),
        ));
    }
    out
}

/// The presets and the example graphs.
pub fn presets_and_examples() -> Vec<CatalogGraph> {
    let mut out: Vec<CatalogGraph> = noisegraph::presets::PRESETS
        .iter()
        .map(|p| CatalogGraph {
            label: format!("preset {}", p.name),
            graph: NoiseGraph::from_json(p.json).unwrap_or_else(|e| panic!("{}: {e}", p.name)),
        })
        .collect();
    // Every example graph, examples/*.json, so that a new one is checked too.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        out.push(CatalogGraph {
            label: format!("example {name}"),
            graph: NoiseGraph::from_json(&text)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display())),
        });
    }
    out
}

/// Everything above.
pub fn all() -> Vec<CatalogGraph> {
    let mut out = families();
    out.extend(variants());
    out.extend(presets_and_examples());
    out
}

/// Whether a graph reads a family whose kernel is not exactly continuous across its cells'
/// borders: simplex and OpenSimplex2 in 3D and 4D sum corners out to r^2 = 0.6 (or more),
/// past the nearest cell borders, so their value jumps by up to a few 1e-3 there. Wherever two
/// computations of a position differ in the last bits (a bake's `o.local + pixel * o.step`, a
/// query's exact split, a shader's `p * frequency`), a point next to a seam can land on either
/// side: README.md allows 1% of such pixels.
pub fn has_seams(graph: &NoiseGraph) -> bool {
    graph.nodes.iter().any(|n| match &n.kind {
        noisegraph::graph::NodeKind::Family(f) => {
            (f.family == "simplex" || f.family == "opensimplex2") && f.dims >= 3
        }
        _ => false,
    })
}

/// The fraction of pixels allowed over the tolerance when positions are computed two ways
/// (see [`has_seams`]).
pub const SEAM_ALLOWANCE: f64 = 0.01;

/// The catalog graphs the GLSL ES and MSL exports take (they inline every table): all but
/// those reading a table over `MAX_TRANSLATED_TABLE_FLOATS` (wavelet 3D's default 128^3
/// tile), which are checked to be refused with a message naming the limit. GLSL 4.50 and
/// HLSL take every graph (large tables go to their storage buffer).
pub fn translatable() -> Vec<CatalogGraph> {
    use noisegraph::export::{export_shader, Language, ShaderOptions};
    let mut refused = Vec::new();
    let kept = all()
        .into_iter()
        .filter(|case| {
            match export_shader(&case.graph, &ShaderOptions::new("probe", Language::GlslEs)) {
                Ok(_) => true,
                Err(e) => {
                    let e = e.to_string();
                    assert!(
                        e.contains("inline tables of at most"),
                        "{}: {e}",
                        case.label
                    );
                    refused.push(case.label.clone());
                    false
                }
            }
        })
        .collect();
    assert_eq!(refused, ["wavelet 3D"], "refused for their tables");
    kept
}
