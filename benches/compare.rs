//! Benchmark: noisegraph (GPU path on whatever adapter wgpu finds, CPU reference path) against
//! the crates users pick today (`noise` 0.9, `fastnoise-lite` 1.1, `libnoise` 1.2) on the same
//! workloads. Prints a Markdown table of medians (Msamples/s and ratios) and writes it to
//! target/bench-report.md. Run with `cargo bench --bench compare` (`-- --quick` for 3 runs).

use std::hint::black_box;
use std::time::{Duration, Instant};

use noisegraph::engine::run_cpu;
use noisegraph::gpu::Specialize;
use noisegraph::{GpuContext, NoiseGraph, Plan, RunOptions, View};
use rayon::prelude::*;

struct Row {
    workload: String,
    implementation: String,
    median: Duration,
    samples: u64,
    detail: String,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn measure(runs: usize, mut f: impl FnMut() -> f64) -> Duration {
    black_box(f()); // warm-up: caches, pipelines, thread pool
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn graph(family: &str, dims: u32, frequency: f64, octaves: u32, extra: &str) -> NoiseGraph {
    let fractal = if octaves > 1 {
        format!(
            r#", {{"id": "f", "type": "fbm", "source": "n", "octaves": {octaves}, "lacunarity": 2.0, "gain": 0.5}}"#
        )
    } else {
        String::new()
    };
    let output = if octaves > 1 { "f" } else { "n" };
    NoiseGraph::from_json(&format!(
        r#"{{"seed": 1337, "output": "{output}", "nodes": [{{"id": "n", "type": "{family}", "frequency": {frequency}, "dims": {dims}{extra}}}{fractal}]}}"#
    ))
    .expect("benchmark graph")
}

/// Sums a 2D grid sampled by `f(x, y)` on one thread.
fn grid_2d(n: u32, f: impl Fn(f32, f32) -> f32) -> f64 {
    let mut s = 0.0f64;
    for y in 0..n {
        for x in 0..n {
            s += f(x as f32, y as f32) as f64;
        }
    }
    s
}

/// Same on every core, one row per task.
fn grid_2d_par(n: u32, f: impl Fn(f32, f32) -> f32 + Sync) -> f64 {
    (0..n)
        .into_par_iter()
        .map(|y| (0..n).map(|x| f(x as f32, y as f32) as f64).sum::<f64>())
        .sum()
}

fn grid_3d(n: u32, f: impl Fn(f32, f32, f32) -> f32) -> f64 {
    let mut s = 0.0f64;
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                s += f(x as f32, y as f32, z as f32) as f64;
            }
        }
    }
    s
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let runs = if quick { 3 } else { 5 };
    let gpu = GpuContext::new().ok();
    let adapter = gpu.as_ref().map_or("none".to_string(), |g| g.describe());
    let mut rows: Vec<Row> = Vec::new();
    let threads = rayon::current_num_threads();

    let run_noisegraph = |rows: &mut Vec<Row>, workload: &str, g: &NoiseGraph, view: View| {
        let plan = Plan::new(g, None).unwrap();
        let samples = view.pixel_count();
        if let Some(ctx) = &gpu {
            // Specialized kernels (what the default picks for large jobs on a CPU adapter) and,
            // for comparison, the generic kernels that read the octave parameters from uniforms.
            for (name, specialize) in [
                ("noisegraph GPU", Specialize::Always),
                ("noisegraph GPU, generic kernels", Specialize::Never),
            ] {
                let options = RunOptions {
                    specialize,
                    ..RunOptions::default()
                };
                let mut dispatch = Vec::new();
                let mut readback = Vec::new();
                // One run before `measure`'s warm-up: the default policy compiles the
                // specialized kernels on the second run of the same numbers.
                ctx.run(&plan, &view, &options).unwrap();
                let total = measure(runs, || {
                    let (f, t) = ctx.run_timed(&plan, &view, &options).unwrap();
                    dispatch.push(t.dispatch);
                    readback.push(t.readback);
                    f.data[0] as f64
                });
                rows.push(Row {
                    workload: workload.into(),
                    implementation: name.into(),
                    median: total,
                    samples,
                    detail: format!(
                        "dispatch {:.1} ms + readback {:.1} ms",
                        median(dispatch).as_secs_f64() * 1e3,
                        median(readback).as_secs_f64() * 1e3
                    ),
                });
            }
        }
        let t = measure(runs, || {
            run_cpu(&plan, &view, &RunOptions::default()).unwrap().data[0] as f64
        });
        rows.push(Row {
            workload: workload.into(),
            implementation: format!("noisegraph CPU ({threads} threads)"),
            median: t,
            samples,
            detail: String::new(),
        });
    };

    // 1. 2048^2 Perlin fBm, 8 octaves, frequency 1/64 per pixel (= 32 cells across the image).
    let n = 2048u32;
    let w1 = "fBm 8 oct. Perlin 2D 2048²";
    run_noisegraph(
        &mut rows,
        w1,
        &graph("perlin", 2, 32.0, 8, ""),
        View::image(n, n),
    );
    {
        use fastnoise_lite::{FastNoiseLite, FractalType, NoiseType};
        let mut fnl = FastNoiseLite::with_seed(1337);
        fnl.set_noise_type(Some(NoiseType::Perlin));
        fnl.set_fractal_type(Some(FractalType::FBm));
        fnl.set_fractal_octaves(Some(8));
        fnl.set_frequency(Some(1.0 / 64.0));
        let t = measure(runs, || grid_2d(n, |x, y| fnl.get_noise_2d(x, y)));
        rows.push(Row {
            workload: w1.into(),
            implementation: "fastnoise-lite (1 thread)".into(),
            median: t,
            samples: (n * n) as u64,
            detail: String::new(),
        });
        let t = measure(runs, || grid_2d_par(n, |x, y| fnl.get_noise_2d(x, y)));
        rows.push(Row {
            workload: w1.into(),
            implementation: format!("fastnoise-lite ({threads} threads)"),
            median: t,
            samples: (n * n) as u64,
            detail: String::new(),
        });
    }
    // The headline ratio once more, from interleaved pairs: one GPU run, then one
    // fastnoise-lite run, so that a slow spell of this shared machine hits both sides of a
    // pair alike.
    let paired = gpu.as_ref().map(|ctx| {
        use fastnoise_lite::{FastNoiseLite, FractalType, NoiseType};
        let mut fnl = FastNoiseLite::with_seed(1337);
        fnl.set_noise_type(Some(NoiseType::Perlin));
        fnl.set_fractal_type(Some(FractalType::FBm));
        fnl.set_fractal_octaves(Some(8));
        fnl.set_frequency(Some(1.0 / 64.0));
        let plan = Plan::new(&graph("perlin", 2, 32.0, 8, ""), None).unwrap();
        let view = View::image(n, n);
        let options = RunOptions::default();
        let mut ratios: Vec<f64> = (0..runs.max(7))
            .map(|_| {
                let t = Instant::now();
                black_box(ctx.run(&plan, &view, &options).unwrap().data[0]);
                let gpu_time = t.elapsed().as_secs_f64();
                let t = Instant::now();
                black_box(grid_2d(n, |x, y| fnl.get_noise_2d(x, y)));
                t.elapsed().as_secs_f64() / gpu_time
            })
            .collect();
        ratios.sort_by(f64::total_cmp);
        ratios
    });
    {
        use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
        let fbm = Fbm::<Perlin>::new(1337)
            .set_octaves(8)
            .set_frequency(1.0 / 64.0);
        let t = measure(runs.min(3), || {
            grid_2d(n, |x, y| fbm.get([x as f64, y as f64]) as f32)
        });
        rows.push(Row {
            workload: w1.into(),
            implementation: "noise 0.9 (1 thread)".into(),
            median: t,
            samples: (n * n) as u64,
            detail: String::new(),
        });
    }
    {
        use libnoise::prelude::*;
        let g = Source::<2>::perlin(1337).fbm(8, 1.0 / 64.0, 2.0, 0.5);
        let t = measure(runs.min(3), || {
            grid_2d(n, |x, y| g.sample([x as f64, y as f64]) as f32)
        });
        rows.push(Row {
            workload: w1.into(),
            implementation: "libnoise 1.2 (1 thread)".into(),
            median: t,
            samples: (n * n) as u64,
            detail: String::new(),
        });
    }

    // 2. One octave of 2D value, Perlin, simplex and cellular F1 at 2048^2.
    for family in ["value", "perlin", "simplex", "cellular"] {
        if noisegraph::family::lookup(family).is_none() {
            continue;
        }
        let w = format!("1 oct. {family} 2D 2048²");
        run_noisegraph(
            &mut rows,
            &w,
            &graph(family, 2, 32.0, 1, ""),
            View::image(n, n),
        );
        use fastnoise_lite::{
            CellularDistanceFunction, CellularReturnType, FastNoiseLite, NoiseType,
        };
        let mut fnl = FastNoiseLite::with_seed(1337);
        fnl.set_noise_type(Some(match family {
            "value" => NoiseType::Value,
            "perlin" => NoiseType::Perlin,
            "simplex" => NoiseType::OpenSimplex2,
            _ => NoiseType::Cellular,
        }));
        fnl.set_cellular_return_type(Some(CellularReturnType::Distance));
        fnl.set_cellular_distance_function(Some(CellularDistanceFunction::Euclidean));
        fnl.set_frequency(Some(1.0 / 64.0));
        let t = measure(runs, || grid_2d(n, |x, y| fnl.get_noise_2d(x, y)));
        rows.push(Row {
            workload: w.clone(),
            implementation: "fastnoise-lite (1 thread)".into(),
            median: t,
            samples: (n * n) as u64,
            detail: if family == "simplex" {
                "OpenSimplex2 (its simplex)".into()
            } else {
                String::new()
            },
        });
        {
            use noise::{NoiseFn, Perlin, Simplex, Value, Worley};
            let f = 1.0 / 64.0;
            let t = match family {
                "value" => {
                    let g = Value::new(1337);
                    measure(runs, || {
                        grid_2d(n, |x, y| g.get([x as f64 * f, y as f64 * f]) as f32)
                    })
                }
                "perlin" => {
                    let g = Perlin::new(1337);
                    measure(runs, || {
                        grid_2d(n, |x, y| g.get([x as f64 * f, y as f64 * f]) as f32)
                    })
                }
                "simplex" => {
                    let g = Simplex::new(1337);
                    measure(runs, || {
                        grid_2d(n, |x, y| g.get([x as f64 * f, y as f64 * f]) as f32)
                    })
                }
                _ => {
                    let g = Worley::new(1337);
                    measure(runs.min(3), || {
                        grid_2d(n, |x, y| g.get([x as f64 * f, y as f64 * f]) as f32)
                    })
                }
            };
            rows.push(Row {
                workload: w.clone(),
                implementation: "noise 0.9 (1 thread)".into(),
                median: t,
                samples: (n * n) as u64,
                detail: String::new(),
            });
        }
        {
            use libnoise::prelude::*;
            let f = 1.0 / 64.0;
            let t = match family {
                "value" => {
                    let g = Source::<2>::value(1337);
                    measure(runs, || {
                        grid_2d(n, |x, y| g.sample([x as f64 * f, y as f64 * f]) as f32)
                    })
                }
                "perlin" => {
                    let g = Source::<2>::perlin(1337);
                    measure(runs, || {
                        grid_2d(n, |x, y| g.sample([x as f64 * f, y as f64 * f]) as f32)
                    })
                }
                "simplex" => {
                    let g = Source::<2>::simplex(1337);
                    measure(runs, || {
                        grid_2d(n, |x, y| g.sample([x as f64 * f, y as f64 * f]) as f32)
                    })
                }
                _ => {
                    let g = Source::<2>::worley(1337);
                    measure(runs, || {
                        grid_2d(n, |x, y| g.sample([x as f64 * f, y as f64 * f]) as f32)
                    })
                }
            };
            rows.push(Row {
                workload: w.clone(),
                implementation: "libnoise 1.2 (1 thread)".into(),
                median: t,
                samples: (n * n) as u64,
                detail: String::new(),
            });
        }
    }

    // 3. One octave of 3D Perlin on 128^3 (frequency 1/16 per voxel = 8 cells across).
    let m = 128u32;
    let w3 = "1 oct. Perlin 3D 128³";
    run_noisegraph(
        &mut rows,
        w3,
        &graph("perlin", 3, 8.0, 1, ""),
        View::volume(m, m, m),
    );
    {
        use fastnoise_lite::{FastNoiseLite, NoiseType};
        let mut fnl = FastNoiseLite::with_seed(1337);
        fnl.set_noise_type(Some(NoiseType::Perlin));
        fnl.set_frequency(Some(1.0 / 16.0));
        let t = measure(runs, || grid_3d(m, |x, y, z| fnl.get_noise_3d(x, y, z)));
        rows.push(Row {
            workload: w3.into(),
            implementation: "fastnoise-lite (1 thread)".into(),
            median: t,
            samples: (m * m * m) as u64,
            detail: String::new(),
        });
    }
    {
        use noise::{NoiseFn, Perlin};
        let g = Perlin::new(1337);
        let f = 1.0 / 16.0;
        let t = measure(runs, || {
            grid_3d(m, |x, y, z| {
                g.get([x as f64 * f, y as f64 * f, z as f64 * f]) as f32
            })
        });
        rows.push(Row {
            workload: w3.into(),
            implementation: "noise 0.9 (1 thread)".into(),
            median: t,
            samples: (m * m * m) as u64,
            detail: String::new(),
        });
    }
    {
        use libnoise::prelude::*;
        let g = Source::<3>::perlin(1337);
        let f = 1.0 / 16.0;
        let t = measure(runs, || {
            grid_3d(m, |x, y, z| {
                g.sample([x as f64 * f, y as f64 * f, z as f64 * f]) as f32
            })
        });
        rows.push(Row {
            workload: w3.into(),
            implementation: "libnoise 1.2 (1 thread)".into(),
            median: t,
            samples: (m * m * m) as u64,
            detail: String::new(),
        });
    }

    // Report: Msamples/s and the ratio to fastnoise-lite on one thread, per workload.
    let mut out = String::new();
    out.push_str(&format!(
        "Adapter: {adapter}. CPU threads: {threads}. Median of {runs} runs (noise/libnoise fBm and Worley: {}).\n\n",
        runs.min(3)
    ));
    out.push_str("| workload | implementation | median ms | Msamples/s | vs fastnoise-lite 1 thread | notes |\n|---|---|---:|---:|---:|---|\n");
    for r in &rows {
        let base = rows
            .iter()
            .find(|b| b.workload == r.workload && b.implementation == "fastnoise-lite (1 thread)")
            .map(|b| b.median.as_secs_f64());
        let ms = r.median.as_secs_f64() * 1e3;
        let msps = r.samples as f64 / r.median.as_secs_f64() / 1e6;
        let ratio = base.map_or("".into(), |b| format!("{:.2}x", b / r.median.as_secs_f64()));
        out.push_str(&format!(
            "| {} | {} | {ms:.1} | {msps:.1} | {ratio} | {} |\n",
            r.workload, r.implementation, r.detail
        ));
    }
    if let Some(r) = paired {
        out.push_str(&format!(
            "\n{w1}, noisegraph GPU against fastnoise-lite on 1 thread in {} interleaved pairs: median ratio {:.2}x (lowest {:.2}x, highest {:.2}x).\n",
            r.len(),
            r[r.len() / 2],
            r[0],
            r[r.len() - 1]
        ));
    }
    println!("{out}");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-report.md");
    let _ = std::fs::write(&path, &out);
    eprintln!("written to {}", path.display());
}
