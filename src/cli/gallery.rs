//! `noisegraph gallery -o gallery.png`: every registered family and the fractal, warp and
//! point-wise operators, each baked at the same frequency and labelled, in one contact sheet.

use std::path::PathBuf;

use clap::Args;
use noisegraph::{family, Backend, Executor, NoiseGraph, Plan, RunOptions, View};
use serde_json::{json, Value};

use noisegraph::io::Ramp;

use super::plot::{Canvas, BLACK, WHITE};
use super::Failure;

#[derive(Args)]
pub struct GalleryArgs {
    /// Output PNG.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Edge of each panel in pixels.
    #[arg(long, default_value_t = 128)]
    pub cell: u32,
    /// Panels per row.
    #[arg(long, default_value_t = 6)]
    pub columns: u32,
    /// auto | gpu | cpu.
    #[arg(long, default_value = "auto")]
    pub backend: String,
    /// Graph seed of every panel.
    #[arg(long, default_value_t = 1337)]
    pub seed: u32,
    /// Colour the panels through a ramp (as `bake --ramp`: a built-in name or stops) instead
    /// of grey.
    #[arg(long, value_name = "NAME|STOPS")]
    pub ramp: Option<String>,
}

/// One panel: its label and graph (nodes; the output is the node called "out").
pub struct Panel {
    pub label: String,
    pub nodes: Vec<Value>,
}

fn family_node(id: &str, name: &str) -> Value {
    json!({ "id": id, "type": name, "frequency": 6.0 })
}

/// The panels: one per registered family (so families added later appear on their own),
/// then operators applied to Perlin noise.
pub fn panels() -> Vec<Panel> {
    let mut out: Vec<Panel> = family::registry()
        .iter()
        .map(|f| Panel {
            label: f.name().to_string(),
            nodes: vec![family_node("out", f.name())],
        })
        .collect();
    // Variants a family's default panel does not show.
    let variant = |label: &str, name: &str, extra: Value| {
        let mut node = family_node("out", name);
        if let (Some(n), Some(e)) = (node.as_object_mut(), extra.as_object()) {
            n.extend(e.clone());
        }
        Panel {
            label: label.to_string(),
            nodes: vec![node],
        }
    };
    if family::lookup("opensimplex2").is_some() {
        out.push(variant(
            "os2 smooth",
            "opensimplex2",
            json!({ "variant": "smooth" }),
        ));
    }
    // Slices of the 3D and 4D lattices (their kernels differ from 2D's).
    for (label, name) in [("simplex", "simplex"), ("os2", "opensimplex2")] {
        if family::lookup(name).is_some() {
            for dims in [3, 4] {
                out.push(variant(
                    &format!("{label} {dims}D"),
                    name,
                    json!({ "dims": dims, "z": 0.37 }),
                ));
            }
        }
    }
    if family::lookup("cellular").is_some() {
        for ret in ["f2", "f2_minus_f1", "cell_value"] {
            out.push(variant(
                &format!("cell {ret}"),
                "cellular",
                json!({ "return": ret }),
            ));
        }
        for metric in ["euclidean_squared", "manhattan", "chebyshev"] {
            let short = metric.replace("euclidean_squared", "euclid^2");
            out.push(variant(
                &format!("cell {short}"),
                "cellular",
                json!({ "metric": metric }),
            ));
        }
    }
    if family::lookup("perlin").is_some() {
        out.push(variant(
            "perlin 1985",
            "perlin",
            json!({ "fade": "cubic", "gradients": "random" }),
        ));
    }
    let base = || family_node("base", "perlin");
    for kind in ["fbm", "ridged", "billow"] {
        out.push(Panel {
            label: format!("{kind} perlin"),
            nodes: vec![
                base(),
                json!({ "id": "out", "type": kind, "source": "base", "octaves": 6 }),
            ],
        });
    }
    // The fractals of issue 31.
    out.push(Panel {
        label: "pingpong perlin".into(),
        nodes: vec![
            base(),
            json!({ "id": "out", "type": "pingpong", "source": "base", "octaves": 3 }),
        ],
    });
    for kind in ["hybrid", "hetero"] {
        out.push(Panel {
            label: format!("{kind} perlin"),
            nodes: vec![
                base(),
                json!({ "id": "out", "type": kind, "source": "base", "octaves": 6 }),
            ],
        });
    }
    out.push(Panel {
        label: "fbm deriv-weight".into(),
        nodes: vec![
            base(),
            json!({ "id": "out", "type": "fbm", "source": "base", "octaves": 6, "derivative_weight": 1.0 }),
        ],
    });
    out.push(Panel {
        label: "warp fbm".into(),
        nodes: vec![
            base(),
            json!({ "id": "f", "type": "fbm", "source": "base", "octaves": 5 }),
            json!({ "id": "dx", "type": "fbm", "source": "base", "octaves": 4, "seed_offset": 31 }),
            json!({ "id": "dy", "type": "fbm", "source": "base", "octaves": 4, "seed_offset": 37 }),
            json!({ "id": "out", "type": "warp", "source": "f", "displace": ["dx", "dy"], "amplitude": 0.3 }),
        ],
    });
    let two = || {
        vec![
            base(),
            json!({ "id": "other", "type": "simplex", "frequency": 3.0, "seed_offset": 5 }),
        ]
    };
    for (label, node) in [
        (
            "abs perlin",
            json!({ "id": "out", "type": "abs", "source": "base" }),
        ),
        (
            "mul perl*simp",
            json!({ "id": "out", "type": "mul", "inputs": ["base", "other"] }),
        ),
        (
            "max perl,simp",
            json!({ "id": "out", "type": "max", "inputs": ["base", "other"] }),
        ),
        (
            "clamp perlin",
            json!({ "id": "out", "type": "clamp", "source": "base", "min": -0.2, "max": 0.2 }),
        ),
    ] {
        let mut nodes = two();
        nodes.push(node);
        out.push(Panel {
            label: label.into(),
            nodes,
        });
    }
    out.extend(remap_and_blend_panels());
    out.extend(mapping_panels());
    out
}

/// The mappings (issue 31): a transform of a subgraph, and the sphere, torus and cylinder
/// maps (the torus panel tiles: its opposite edges meet).
fn mapping_panels() -> Vec<Panel> {
    let f = |dims: u32, family: &str, frequency: f64| {
        vec![
            json!({ "id": "n", "type": family, "dims": dims, "frequency": frequency }),
            json!({ "id": "f", "type": "fbm", "source": "n", "octaves": 5 }),
        ]
    };
    let cellular = || {
        vec![
            json!({ "id": "c", "type": "cellular", "frequency": 5.0, "return": "f2_minus_f1" }),
            json!({ "id": "f", "type": "ridged", "source": "c", "octaves": 2 }),
        ]
    };
    [
        (
            "transform cells",
            cellular(),
            json!({ "type": "transform", "source": "f", "rotate": 30, "scale": [1.0, 3.0] }),
        ),
        (
            "sphere equirect",
            f(3, "simplex", 2.0),
            json!({ "type": "sphere", "source": "f" }),
        ),
        (
            "torus osimplex2",
            f(4, "opensimplex2", 4.0),
            json!({ "type": "torus", "source": "f" }),
        ),
        (
            "cylinder simplex",
            f(3, "simplex", 4.0),
            json!({ "type": "cylinder", "source": "f" }),
        ),
    ]
    .into_iter()
    .map(|(label, mut nodes, mut node)| {
        node["id"] = json!("out");
        nodes.push(node);
        Panel {
            label: label.into(),
            nodes,
        }
    })
    .collect()
}

/// The remaps and blends (issue 31), on fBm of Perlin and on simplex.
fn remap_and_blend_panels() -> Vec<Panel> {
    let sources = || {
        vec![
            family_node("base", "perlin"),
            json!({ "id": "f", "type": "fbm", "source": "base", "octaves": 5 }),
            json!({ "id": "other", "type": "simplex", "frequency": 3.0, "seed_offset": 5 }),
            json!({ "id": "mask", "type": "value", "frequency": 2.0, "seed_offset": 9 }),
        ]
    };
    [
        (
            "pow 0.4 fbm",
            json!({ "type": "pow", "source": "f", "exponent": 0.4 }),
        ),
        (
            "smoothstep fbm",
            json!({ "type": "smoothstep", "source": "f", "low": -0.2, "high": 0.2 }),
        ),
        (
            "quantize fbm",
            json!({ "type": "quantize", "source": "f", "step": 0.15 }),
        ),
        (
            "terrace fbm",
            json!({ "type": "terrace", "source": "f", "step": 0.15, "smoothness": 0.3 }),
        ),
        (
            "smooth_min",
            json!({ "type": "smooth_min", "inputs": ["f", "other"], "k": 0.4 }),
        ),
        (
            "smooth_max",
            json!({ "type": "smooth_max", "inputs": ["f", "other"], "k": 0.4 }),
        ),
        (
            "select by value",
            json!({ "type": "select", "inputs": ["f", "other", "mask"], "falloff": 0.1 }),
        ),
        (
            "curve fbm",
            json!({ "type": "curve", "source": "f",
                    "points": [[-0.6, -1.0], [-0.3, 0.6], [-0.1, -0.4], [0.1, 0.8], [0.3, -0.2], [0.6, 1.0]] }),
        ),
    ]
    .into_iter()
    .map(|(label, mut node)| {
        node["id"] = json!("out");
        let mut nodes = sources();
        nodes.push(node);
        Panel {
            label: label.into(),
            nodes,
        }
    })
    .collect()
}

pub fn run(args: GalleryArgs) -> Result<(), Failure> {
    if args.cell < 8 || args.columns == 0 {
        return Err(Failure::bad_input(
            "--cell: at least 8; --columns: at least 1",
        ));
    }
    let backend: Backend = args.backend.parse().map_err(Failure::bad_input)?;
    let ramp = args.ramp.as_deref().map(Ramp::parse).transpose()?;
    let (executor, note) = Executor::choose(backend)?;
    if let Some(note) = note {
        eprintln!("noisegraph: {note}");
    }
    let panels = panels();
    let label_h = 14u32;
    let pad = 4u32;
    let rows = (panels.len() as u32).div_ceil(args.columns);
    let (cw, ch) = (args.cell + pad, args.cell + label_h + pad);
    let mut canvas = Canvas::new(args.columns * cw + pad, rows * ch + pad, WHITE);
    let view = View::image(args.cell, args.cell);
    for (i, panel) in panels.iter().enumerate() {
        let x = (pad + (i as u32 % args.columns) * cw) as i64;
        let y = (pad + (i as u32 / args.columns) * ch) as i64;
        let label: String = panel.label.chars().take((args.cell / 8) as usize).collect();
        canvas.text(x, y + 3, &label, BLACK);
        let graph = json!({ "seed": args.seed, "output": "out", "nodes": panel.nodes });
        let field = NoiseGraph::from_value(&graph)
            .map_err(noisegraph::Error::from)
            .and_then(|g| Plan::new(&g, None))
            .and_then(|plan| executor.run(&plan, &view, &RunOptions::default()));
        match field {
            // Each panel spans its own data range, so every family's structure shows.
            Ok(f) => {
                let range = f.min_max().unwrap_or((0.0, 1.0));
                canvas.field(x, y + label_h as i64, &f, range, ramp.as_ref());
            }
            Err(e) => {
                eprintln!("noisegraph: gallery panel '{}': {e}", panel.label);
                canvas.text(x, y + label_h as i64 + 8, "error", [200, 0, 0]);
            }
        }
    }
    canvas.save(&args.output)?;
    eprintln!(
        "noisegraph: wrote {} ({} panels, {})",
        args.output.display(),
        panels.len(),
        executor.describe()
    );
    Ok(())
}
