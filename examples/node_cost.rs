//! The cost per sample of each node kind issue 31 added (the remaps and blends, `curve`, the
//! `pingpong` fractal, the mappings) on both paths, beside one octave of Perlin: `cargo run
//! --release --example node_cost -- [runs]`. Each point-wise node reads a 2048² field of one
//! Perlin octave (frequency 32; for the blends, that field as every input); a fractal is one
//! octave of it; a mapping samples one simplex octave in its source's dims. A node's cost is
//! the median time of the graph less the median time of the field alone (the simplex source
//! for a mapping), per sample.
//! The GPU figures are whatever adapter wgpu finds (lavapipe here), readback included in both
//! times (so it cancels); CPU first, then GPU if there is one. `-- [runs] fbm` times the
//! 8-octave Perlin fBm 2048² (frequency 32) on both paths instead, the figure adding node
//! kinds must not slow; `-- [runs] fractals` times 6-octave Perlin fbm, hybrid, hetero and a
//! derivative-weighted fbm on both paths, per sample and octave.

use std::time::Instant;

use noisegraph::engine::run_cpu;
use noisegraph::{GpuContext, NoiseGraph, Plan, RunOptions, View};
use serde_json::json;

fn graph(op: Option<serde_json::Value>) -> NoiseGraph {
    let mut nodes = vec![json!({ "id": "p", "type": "perlin", "frequency": 32.0 })];
    let output = if let Some(mut op) = op {
        op["id"] = json!("out");
        nodes.push(op);
        "out"
    } else {
        "p"
    };
    NoiseGraph::from_value(&json!({ "seed": 1337, "output": output, "nodes": nodes }))
        .expect("benchmark graph")
}

/// `n` control points across [-0.9, 0.9] on a wave (a curve that uses every piece).
fn curve_points(n: u32) -> Vec<[f64; 2]> {
    (0..n)
        .map(|i| {
            let x = -0.9 + 1.8 * f64::from(i) / f64::from(n - 1);
            [x, (4.0 * x).sin() * 0.8]
        })
        .collect()
}

fn median_ms(runs: usize, mut run: impl FnMut()) -> f64 {
    run();
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            run();
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(7);
    let fbm_only = std::env::args().any(|a| a == "fbm");
    let fractals = std::env::args().any(|a| a == "fractals");
    let n = 2048u32;
    let view = View::image(n, n);
    let samples = (n * n) as f64;
    let ops = [
        (
            "pow",
            json!({ "type": "pow", "source": "p", "exponent": 2.5 }),
        ),
        ("smoothstep", json!({ "type": "smoothstep", "source": "p" })),
        ("quantize", json!({ "type": "quantize", "source": "p" })),
        ("terrace", json!({ "type": "terrace", "source": "p" })),
        (
            "smooth_min",
            json!({ "type": "smooth_min", "inputs": ["p", "p"] }),
        ),
        (
            "smooth_max",
            json!({ "type": "smooth_max", "inputs": ["p", "p"] }),
        ),
        (
            "select",
            json!({ "type": "select", "inputs": ["p", "p", "p"], "falloff": 0.2 }),
        ),
        (
            "curve 5 points",
            json!({ "type": "curve", "source": "p",
                    "points": [[-0.6, -0.9], [-0.1, -0.2], [0.05, 0.3], [0.3, 0.32], [0.6, 1.0]] }),
        ),
        (
            "curve 32 free",
            json!({ "type": "curve", "source": "p", "mode": "free", "points": curve_points(32) }),
        ),
        (
            "add (for scale)",
            json!({ "type": "add", "inputs": ["p", "p"] }),
        ),
        // The fractals: one octave, a generator stage of its own in place of the field
        // (their cost is their remap's, beside fbm's identity).
        (
            "fbm 1 octave",
            json!({ "type": "fbm", "source": "p", "octaves": 1 }),
        ),
        (
            "pingpong 1 oct.",
            json!({ "type": "pingpong", "source": "p", "octaves": 1 }),
        ),
    ];
    let gpu = GpuContext::new().ok();
    let time = |g: &NoiseGraph, on_gpu: bool| {
        let plan = Plan::new(g, None).expect("plan");
        median_ms(runs, || {
            let field = match (&gpu, on_gpu) {
                (Some(ctx), true) => ctx.run(&plan, &view, &RunOptions::default()),
                _ => run_cpu(&plan, &view, &RunOptions::default()),
            };
            std::hint::black_box(field.expect("run"));
        })
    };
    // The mappings: each over one simplex octave (Perlin has no 4D) in its source's dims
    // (frequency 32), less that source alone on the same 2048² view.
    let source =
        |dims: u32| json!({ "id": "p", "type": "simplex", "dims": dims, "frequency": 32.0 });
    let mapped = |dims: u32, map: Option<serde_json::Value>| {
        let mut nodes = vec![source(dims)];
        if let Some(mut m) = map {
            m["id"] = json!("out");
            m["source"] = json!("p");
            nodes.push(m);
        }
        let output = if nodes.len() == 2 { "out" } else { "p" };
        NoiseGraph::from_value(&json!({ "seed": 1337, "output": output, "nodes": nodes }))
            .expect("mapping graph")
    };
    let mappings = [
        (
            "transform 2D",
            2,
            json!({ "type": "transform", "rotate": 30, "scale": [1.0, 3.0] }),
        ),
        ("sphere", 3, json!({ "type": "sphere" })),
        ("cylinder", 3, json!({ "type": "cylinder" })),
        ("torus", 4, json!({ "type": "torus" })),
    ];
    for on_gpu in [false, true] {
        if on_gpu && gpu.is_none() {
            println!("no GPU adapter: GPU figures skipped");
            continue;
        }
        let path = if on_gpu { "GPU" } else { "CPU" };
        if fractals {
            // The fractals of issue 31 beside fBm: 6 octaves of Perlin each, per sample and
            // octave.
            let base = time(&graph(None), on_gpu);
            println!(
                "{path}: perlin 1 octave 2048²: median {base:.1} ms, {:.2} ns/sample",
                base * 1e6 / samples
            );
            for (name, fields) in [
                ("fbm", json!({ "type": "fbm" })),
                ("hybrid", json!({ "type": "hybrid" })),
                ("hetero", json!({ "type": "hetero" })),
                (
                    "fbm, derivative_weight 1",
                    json!({ "type": "fbm", "derivative_weight": 1.0 }),
                ),
            ] {
                let mut node = fields;
                node["id"] = json!("f");
                node["source"] = json!("p");
                node["octaves"] = json!(6);
                let g = NoiseGraph::from_value(&json!({ "seed": 1337, "output": "f", "nodes": [
                    { "id": "p", "type": "perlin", "frequency": 32.0 }, node
                ]}))
                .expect("fractal graph");
                let t = time(&g, on_gpu);
                println!(
                    "{path}: {name:>24}, 6 octaves: median {t:.1} ms, {:.2} ns per sample and octave",
                    t * 1e6 / samples / 6.0
                );
            }
            continue;
        }
        if fbm_only {
            let fbm = NoiseGraph::from_value(&json!({ "seed": 1337, "output": "f", "nodes": [
                { "id": "p", "type": "perlin", "frequency": 32.0 },
                { "id": "f", "type": "fbm", "source": "p", "octaves": 8, "lacunarity": 2.0, "gain": 0.5 }
            ]}))
            .expect("fbm graph");
            println!(
                "{path}: fBm 8 octaves 2048²: median {:.1} ms of {runs}",
                time(&fbm, on_gpu)
            );
            continue;
        }
        let base = time(&graph(None), on_gpu);
        println!(
            "{path}: perlin 1 octave 2048²: median {base:.1} ms, {:.2} ns/sample",
            base * 1e6 / samples
        );
        for (name, op) in &ops {
            let t = time(&graph(Some(op.clone())), on_gpu);
            println!(
                "{path}: {name:>15}: graph {t:.1} ms, node {:+.2} ns/sample",
                (t - base) * 1e6 / samples
            );
        }
        for (name, dims, map) in &mappings {
            let plain = time(&mapped(*dims, None), on_gpu);
            let t = time(&mapped(*dims, Some(map.clone())), on_gpu);
            println!(
                "{path}: {name:>15}: simplex {dims}D {plain:.1} ms, mapped {t:.1} ms, node {:+.2} ns/sample",
                (t - plain) * 1e6 / samples
            );
        }
    }
}
