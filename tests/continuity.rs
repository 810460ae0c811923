//! Continuity of every family: fine 1-D scans through the field, on the CPU twins and on the
//! GPU (the family probe), and through whole graphs on both paths, looking for jumps.
//!
//! A scan takes `SCAN` steps along a segment one lattice unit long (about 2.4e-4 of a cell per
//! step). Where a first difference departs most from its neighbours' average (a jump of size J
//! moves it by J; elsewhere it moves by the field's curvature times the step squared), the
//! interval is sampled again `ZOOM` times finer: a jump stays concentrated in one sub-step,
//! which then stands out above every other sub-step of the interval, while a continuous
//! field's sub-steps are all of the same size, kinks included (a kink only changes the slope).
//! A jump is reported as the excess of the largest sub-step over the second largest, where the
//! largest is more than 4 times the second (plus 2e-6 of f32 noise); none may exceed
//! `JUMP_LIMIT`. Families with documented discontinuities (cellular `cell_value`, phasor and
//! wave `square` / `sawtooth` profiles, simplex's `classic` falloff) must show jumps, which
//! checks that the detector sees them. The analytic gradients are scanned the same way
//! (component by component), except where a family documents a crease (`documented_creases`:
//! the linear fade's must be found, the others are exempt).

mod common;

use noisegraph::family::{lookup, NoiseGrad, SamplePoint};
use noisegraph::gpu::FamilyProbe;
use noisegraph::{NoiseGraph, Plan, View};
use serde_json::{json, Value};

/// Steps per scan.
const SCAN: usize = 4096;
/// Sub-steps per zoomed interval.
const ZOOM: usize = 128;
/// Intervals zoomed per scan: those whose first difference departs most from its neighbours'.
const CANDIDATES: usize = 12;
/// Intervals zoomed per graph scan (each zoom is a bake).
const GRAPH_CANDIDATES: usize = 6;
/// f32 noise allowed in a sub-step comparison.
const NOISE: f64 = 2e-6;
/// The largest jump a continuous field may show (values are of order 1; a lattice point's
/// term dropped or added while not zero is of order 1e-4 to 1e-2).
const JUMP_LIMIT: f64 = 2e-5;

/// A straight segment through `local` space, `length` lattice units from `start`, in a fixed
/// far `cell`, with one seed hash.
#[derive(Clone, Copy)]
struct Line {
    cell: [i32; 4],
    start: [f64; 4],
    dir: [f64; 4],
    length: f64,
    seed: u32,
}

impl Line {
    /// The sample at fraction `t` of the segment.
    fn point(&self, t: f64) -> SamplePoint {
        SamplePoint {
            cell: self.cell,
            local: std::array::from_fn(|a| (self.start[a] + t * self.length * self.dir[a]) as f32),
            seed: self.seed,
            period: [0; 4],
        }
    }
}

/// Deterministic numbers in [0, 1) for positions and directions (not noise: no hash contract).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Scans for `dims`: along each axis and in random directions, from random starts, in cells
/// near the origin, far away and at the i32 wrap, with several seeds.
fn lines(dims: usize, count: usize) -> Vec<Line> {
    const CELLS: [[i32; 4]; 3] = [
        [0, 0, 0, 0],
        [123_456, -654_321, 99, -5],
        [i32::MAX, i32::MIN, i32::MAX - 1, 7],
    ];
    let mut rng = Lcg(0x5EED_0FC0_471A);
    (0..count)
        .map(|i| {
            let mut dir = [0.0; 4];
            if i < dims {
                dir[i] = 1.0;
            } else {
                // A Gaussian-ish direction (sum of uniforms), normalized.
                for d in dir.iter_mut().take(dims) {
                    *d = (0..4).map(|_| rng.next()).sum::<f64>() - 2.0;
                }
                let n = dir.iter().map(|v| v * v).sum::<f64>().sqrt();
                dir.iter_mut().for_each(|v| *v /= n);
            }
            let mut cell = CELLS[i % CELLS.len()];
            cell[dims..].fill(0);
            Line {
                cell,
                start: std::array::from_fn(|a| if a < dims { 2.0 * rng.next() } else { 0.0 }),
                dir,
                length: 1.0,
                seed: noisegraph::twin::hash::seed_hash(3 + 8 * i as u32),
            }
        })
        .collect()
}

/// The worst jump found: its size and where.
#[derive(Debug, Clone, Default)]
struct Jump {
    size: f64,
    at: String,
}

/// The indices of the `CANDIDATES` intervals of a scan whose first difference departs most
/// from the average of its neighbours'.
fn candidates(v: &[f64]) -> Vec<usize> {
    let d: Vec<f64> = v.windows(2).map(|w| w[1] - w[0]).collect();
    let mut r: Vec<(f64, usize)> = (1..d.len() - 1)
        .map(|i| ((d[i] - 0.5 * (d[i - 1] + d[i + 1])).abs(), i))
        .collect();
    r.sort_by(|a, b| b.0.total_cmp(&a.0));
    r.iter().take(CANDIDATES).map(|&(_, i)| i).collect()
}

/// The jump inside a zoomed interval (see the module docs), 0 when there is none; `scale` is
/// the series' order of magnitude (1 for values), which scales the f32 noise allowed.
fn zoomed_jump(z: &[f64], scale: f64) -> f64 {
    let mut e: Vec<f64> = z.windows(2).map(|w| (w[1] - w[0]).abs()).collect();
    e.sort_by(|a, b| b.total_cmp(a));
    if e[0] > 4.0 * e[1] + NOISE * scale {
        e[0] - e[1]
    } else {
        0.0
    }
}

/// The worst jump of the series `series(values)` along `lines`, the points evaluated in two
/// batches by `eval` (every scan, then every zoomed interval). `series` maps each evaluated
/// point to the numbers scanned (the value, or the derivative components).
fn worst_jump<T: Copy>(
    lines: &[Line],
    eval: &dyn Fn(&[SamplePoint]) -> Vec<T>,
    series: &dyn Fn(&T) -> Vec<f64>,
    scale: f64,
    label: &str,
) -> Jump {
    let coarse: Vec<SamplePoint> = lines
        .iter()
        .flat_map(|l| (0..=SCAN).map(move |i| l.point(i as f64 / SCAN as f64)))
        .collect();
    let values: Vec<Vec<f64>> = eval(&coarse).iter().map(series).collect();
    let channels = values[0].len();
    for (i, v) in values.iter().enumerate() {
        assert!(
            v.iter().all(|x| x.is_finite()),
            "{label}: not finite at {:?}: {v:?}",
            coarse[i]
        );
    }
    let mut windows = Vec::new();
    for (k, _) in lines.iter().enumerate() {
        let scan = &values[k * (SCAN + 1)..(k + 1) * (SCAN + 1)];
        for c in 0..channels {
            let v: Vec<f64> = scan.iter().map(|s| s[c]).collect();
            for i in candidates(&v) {
                windows.push((k, i, c));
            }
        }
    }
    let fine: Vec<SamplePoint> = windows
        .iter()
        .flat_map(|&(k, i, _)| {
            (0..=ZOOM)
                .map(move |j| lines[k].point((i as f64 + j as f64 / ZOOM as f64) / SCAN as f64))
        })
        .collect();
    let zoomed: Vec<Vec<f64>> = eval(&fine).iter().map(series).collect();
    let mut worst = Jump::default();
    for (w, &(k, i, c)) in windows.iter().enumerate() {
        let z: Vec<f64> = zoomed[w * (ZOOM + 1)..(w + 1) * (ZOOM + 1)]
            .iter()
            .map(|s| s[c])
            .collect();
        let size = zoomed_jump(&z, scale);
        if size > worst.size {
            let p = lines[k].point(i as f64 / SCAN as f64);
            worst = Jump {
                size,
                at: format!("channel {c} near cell {:?} local {:?}", p.cell, p.local),
            };
        }
    }
    worst
}

/// What a scan must show.
#[derive(Clone, Copy)]
enum Expect {
    /// No jump over the limit.
    Continuous,
    /// Documented jumps, frequent enough that the scans must find them (which checks that
    /// the detector sees jumps).
    Jumps(&'static str),
    /// Documented jumps or creases that the scans may or may not cross (not checked).
    Exempt(&'static str),
}

/// What a family documents about jumps of its value.
fn documented_jumps(family: &str, extra: &Value, dims: u32) -> Expect {
    let is = |k: &str, v: &str| extra.get(k).and_then(Value::as_str) == Some(v);
    match family {
        "cellular" if is("return", "cell_value") => {
            Expect::Jumps("cell_value jumps at cell borders")
        }
        "phasor" | "wave" if is("profile", "square") || is("profile", "sawtooth") => {
            Expect::Jumps("square and sawtooth profiles jump")
        }
        "simplex" if is("falloff", "classic") && dims >= 3 => {
            Expect::Jumps("the classic falloff drops corners' tails where the simplex changes")
        }
        _ => Expect::Continuous,
    }
}

/// What a family documents about jumps of its gradient (creases of its value). Families
/// whose gradient forms do not exist yet are listed so that they are scanned when they
/// come; only the linear fade's creases are dense enough to be sure to be crossed.
fn documented_creases(family: &str, extra: &Value) -> Expect {
    let is = |k: &str, v: &str| extra.get(k).and_then(Value::as_str) == Some(v);
    match family {
        "value" | "perlin" if is("fade", "linear") => {
            Expect::Jumps("the linear fade creases at cell faces")
        }
        "cellular" => Expect::Exempt("distances crease on Voronoi borders and at feature points"),
        "gabor" => Expect::Exempt("the envelope's cut leaves a crease"),
        "phasor" => Expect::Exempt("singular points, and the profiles' kinks and jumps"),
        "wave" if !is("profile", "none") && extra.get("profile").is_some() => {
            Expect::Exempt("profiles crease or jump")
        }
        _ => Expect::Continuous,
    }
}

/// Every family variant the scans cover: (family, extra parameters, dims).
fn variants() -> Vec<(&'static str, Value, u32)> {
    let mut v = Vec::new();
    let mut add = |family: &'static str, extra: Value| {
        for &dims in lookup(family).expect("family").dims() {
            v.push((family, extra.clone(), dims));
        }
    };
    for fade in ["linear", "cubic", "quintic"] {
        add("value", json!({ "fade": fade }));
        for gradients in ["improved", "random"] {
            add("perlin", json!({ "fade": fade, "gradients": gradients }));
        }
    }
    add("simplex", json!({}));
    add("simplex", json!({ "falloff": "classic" }));
    add("opensimplex2", json!({ "variant": "fast" }));
    add("opensimplex2", json!({ "variant": "smooth" }));
    for ret in ["f1", "f2", "f2_minus_f1", "cell_value"] {
        for metric in ["euclidean", "euclidean_squared", "manhattan", "chebyshev"] {
            add("cellular", json!({ "return": ret, "metric": metric }));
        }
    }
    add("cellular", json!({ "jitter": 0.5 }));
    add("gabor", json!({}));
    add(
        "gabor",
        json!({ "orientation": "isotropic", "impulses": 8 }),
    );
    for profile in ["sine", "triangle", "sawtooth", "square"] {
        add("phasor", json!({ "profile": profile, "impulses": 8 }));
    }
    for profile in ["none", "sine", "square"] {
        add("wave", json!({ "profile": profile, "waves": 32 }));
    }
    add("wavelet", json!({ "tile": 32 }));
    v
}

fn probe_of(family: &str, extra: &Value, dims: u32) -> FamilyProbe {
    let mut node = json!({ "type": family, "dims": dims });
    for (k, val) in extra.as_object().expect("object") {
        node[k] = val.clone();
    }
    common::family_probe(11, node)
}

fn label_of(family: &str, extra: &Value, dims: u32) -> String {
    format!("{family} {extra} {dims}D")
}

/// The jump in a variant's value on one path.
fn value_jump(dims: u32, eval: &dyn Fn(&[SamplePoint]) -> Vec<f32>, label: &str) -> Jump {
    worst_jump(
        &lines(dims as usize, 12),
        eval,
        &|v: &f32| vec![*v as f64],
        1.0,
        label,
    )
}

fn check_value(label: &str, documented: Expect, jump: &Jump, limit: f64) {
    match documented {
        Expect::Continuous => assert!(
            jump.size <= limit,
            "{label}: a jump of {:.2e} at {} (limit {limit:.0e})",
            jump.size,
            jump.at
        ),
        Expect::Jumps(why) => assert!(
            jump.size > 10.0 * limit,
            "{label}: documented jumps ({why}) not found (largest {:.2e}): the scan misses jumps",
            jump.size
        ),
        Expect::Exempt(why) => eprintln!("{label}: exempt ({why}); largest jump {:.2e}", jump.size),
    }
}

/// The value of every family variant along fine scans in many directions, on the CPU twins.
#[test]
fn cpu_twins_are_continuous() {
    for (family, extra, dims) in variants() {
        let label = label_of(family, &extra, dims);
        let probe = probe_of(family, &extra, dims);
        let jump = value_jump(dims, &|p| probe.cpu(p), &label);
        eprintln!("CPU {label}: largest jump {:.2e}", jump.size);
        check_value(
            &label,
            documented_jumps(family, &extra, dims),
            &jump,
            JUMP_LIMIT,
        );
    }
}

/// The same scans through the WGSL kernels (the family probe on the GPU).
#[test]
fn gpu_kernels_are_continuous() {
    let Some(ctx) = common::gpu() else { return };
    for (family, extra, dims) in variants() {
        let label = label_of(family, &extra, dims);
        let probe = probe_of(family, &extra, dims);
        let jump = value_jump(
            dims,
            &|p| ctx.probe_family(&probe, p).expect("GPU probe"),
            &label,
        );
        eprintln!("GPU {label}: largest jump {:.2e}", jump.size);
        check_value(
            &label,
            documented_jumps(family, &extra, dims),
            &jump,
            JUMP_LIMIT,
        );
    }
}

/// The gradient's scale: the root mean square of |d| over a scan's points.
fn grad_scale(grads: &[NoiseGrad]) -> f64 {
    let sum: f64 = grads
        .iter()
        .map(|g| g.d.iter().map(|v| (*v as f64).powi(2)).sum::<f64>())
        .sum();
    (sum / grads.len() as f64).sqrt()
}

/// The analytic gradients along the scans, on both paths: no jumps in any component except
/// where a family documents a crease (the linear fade's must then be found; others are
/// exempt).
#[test]
fn gradients_are_continuous() {
    let ctx = common::gpu();
    let mut checked = 0;
    for (family, extra, dims) in variants() {
        let label = label_of(family, &extra, dims);
        let probe = probe_of(family, &extra, dims);
        let lines = lines(dims as usize, 8);
        let Some(sample) = probe.cpu_grad(&[lines[0].point(0.0)]) else {
            continue;
        };
        assert_eq!(sample.len(), 1);
        let series = |g: &NoiseGrad| g.d.iter().map(|v| *v as f64).collect::<Vec<f64>>();
        let scale = grad_scale(&probe.cpu_grad(&lines_points(&lines)).expect("gradient"));
        // Derivatives are the value's scale times the lattice frequency (tens): the same
        // relative limit as the values.
        let limit = JUMP_LIMIT * scale.max(1.0);
        let cpu = worst_jump(
            &lines,
            &|p| probe.cpu_grad(p).expect("gradient"),
            &series,
            scale.max(1.0),
            &label,
        );
        eprintln!(
            "CPU {label}: gradient scale {scale:.2}, largest gradient jump {:.2e}",
            cpu.size
        );
        let creased = documented_creases(family, &extra);
        check_value(&format!("{label} gradient"), creased, &cpu, limit);
        if let Some(ctx) = &ctx {
            let gpu = worst_jump(
                &lines,
                &|p| {
                    ctx.probe_family_grad(&probe, p)
                        .expect("GPU gradient probe")
                },
                &series,
                scale.max(1.0),
                &label,
            );
            eprintln!("GPU {label}: largest gradient jump {:.2e}", gpu.size);
            check_value(&format!("{label} GPU gradient"), creased, &gpu, limit);
        }
        checked += 1;
    }
    // value, Perlin (three fades each), simplex and OpenSimplex2 in every dims at least.
    assert!(checked >= 26, "gradient variants scanned: {checked}");
}

fn lines_points(lines: &[Line]) -> Vec<SamplePoint> {
    lines
        .iter()
        .flat_map(|l| (0..=64).map(move |i| l.point(i as f64 / 64.0)))
        .collect()
}

/// A one-node graph of `family` (frequency 1.7) under a 2-octave fBm. The spectral families
/// get fewer impulses and a smaller tile, to keep the test's time down.
fn fbm_graph(family: &str, extra: &Value, dims: u32) -> NoiseGraph {
    let mut node = json!({ "id": "n", "type": family, "dims": dims, "frequency": 1.7 });
    if dims >= 3 {
        node["z"] = json!(0.37);
    }
    if dims >= 4 {
        node["w"] = json!(0.21);
    }
    match family {
        "gabor" | "phasor" => node["impulses"] = json!(4),
        "wave" => node["waves"] = json!(16),
        "wavelet" => node["tile"] = json!(32),
        _ => {}
    }
    for (k, val) in extra.as_object().expect("object") {
        node[k] = val.clone();
    }
    NoiseGraph::from_value(&json!({ "seed": 29, "output": "f", "nodes": [
        node,
        { "id": "f", "type": "fbm", "source": "n", "octaves": 2 }
    ]}))
    .expect("graph")
}

/// Scans of a whole graph as views (the host's lattice split, octave shifts and sums
/// included): along x, y and (for 3D and 4D families) z, `SCAN` pixels over one unit, far
/// from the origin; candidate intervals zoomed as views `ZOOM` pixels wide. `bake` runs a
/// view on one path.
fn graph_jump(dims: u32, bake: &dyn Fn(&View) -> Vec<f32>) -> Jump {
    let origin = [1.0e5 + 0.37, -2.0e5 + 0.61, 3.0e4 + 0.13];
    let mut worst = Jump::default();
    let axes = if dims >= 3 { 3 } else { 2 };
    for axis in 0..axes {
        let view_along = |start: [f64; 3], length: f64, pixels: u32| {
            let mut size = [1u32; 3];
            size[axis] = pixels;
            let mut extent = [1e-3; 3];
            // Pixel i samples start + i * extent / size: the last pixel at start + length.
            extent[axis] = length * pixels as f64 / (pixels - 1) as f64;
            View {
                size,
                origin: start,
                extent,
                window: None,
            }
        };
        // SCAN pixels (a volume's depth is limited to 4096).
        let coarse = bake(&view_along(origin, 1.0, SCAN as u32));
        let v: Vec<f64> = coarse.iter().map(|x| *x as f64).collect();
        assert!(v.iter().all(|x| x.is_finite()), "axis {axis}: not finite");
        let h = 1.0 / (SCAN - 1) as f64;
        for &i in candidates(&v).iter().take(GRAPH_CANDIDATES) {
            let mut start = origin;
            start[axis] += i as f64 * h;
            let z: Vec<f64> = bake(&view_along(start, h, ZOOM as u32 + 1))
                .iter()
                .map(|x| *x as f64)
                .collect();
            let size = zoomed_jump(&z, 1.0);
            if size > worst.size {
                worst = Jump {
                    size,
                    at: format!("axis {axis}, {start:?}"),
                };
            }
        }
    }
    worst
}

/// Every family's default variant in every dims (and simplex classic, whose jumps must show),
/// as fBm graphs baked as fine scans on the CPU path and on the GPU.
#[test]
fn graphs_are_continuous_on_both_paths() {
    let ctx = common::gpu();
    let mut cases: Vec<(&str, Value)> = noisegraph::family::registry()
        .iter()
        .map(|f| (f.name(), json!({})))
        .collect();
    cases.push(("opensimplex2", json!({ "variant": "smooth" })));
    cases.push(("simplex", json!({ "falloff": "classic" })));
    for (family, extra) in cases {
        for &dims in lookup(family).expect("family").dims() {
            if family == "simplex" && extra.get("falloff").is_some() && dims == 2 {
                continue;
            }
            let label = format!("{family} {extra} {dims}D fbm");
            let graph = fbm_graph(family, &extra, dims);
            let plan = Plan::new(&graph, None).expect("plan");
            let cpu = graph_jump(dims, &|view| {
                noisegraph::engine::run_cpu(&plan, view, &Default::default())
                    .expect("cpu run")
                    .data
            });
            eprintln!("CPU graph {label}: largest jump {:.2e}", cpu.size);
            let documented = documented_jumps(family, &extra, dims);
            check_value(&label, documented, &cpu, JUMP_LIMIT);
            if let Some(ctx) = &ctx {
                let gpu = graph_jump(dims, &|view| {
                    ctx.run(&plan, view, &Default::default())
                        .expect("gpu run")
                        .data
                });
                eprintln!("GPU graph {label}: largest jump {:.2e}", gpu.size);
                check_value(&format!("{label} GPU"), documented, &gpu, JUMP_LIMIT);
            }
        }
    }
}

/// The fractals whose octaves carry a state (issue 31): hybrid, hetero and a
/// derivative-weighted fbm over Perlin and simplex (smooth families: a derivative weight is
/// continuous where the family's gradient is), scanned as views on both paths.
#[test]
fn multifractals_are_continuous_on_both_paths() {
    let ctx = common::gpu();
    for family in ["perlin", "simplex"] {
        for (kind, extra) in [
            ("hybrid", json!({})),
            ("hetero", json!({})),
            ("fbm", json!({ "derivative_weight": 2.0 })),
        ] {
            let mut fractal = json!({ "id": "f", "type": kind, "source": "n", "octaves": 3 });
            for (k, v) in extra.as_object().expect("object") {
                fractal[k] = v.clone();
            }
            let graph = NoiseGraph::from_value(&json!({ "seed": 29, "output": "f", "nodes": [
                { "id": "n", "type": family, "frequency": 1.7 },
                fractal
            ]}))
            .expect("graph");
            let label = format!("{kind} {extra} of {family}");
            let plan = Plan::new(&graph, None).expect("plan");
            let cpu = graph_jump(2, &|view| {
                noisegraph::engine::run_cpu(&plan, view, &Default::default())
                    .expect("cpu run")
                    .data
            });
            eprintln!("CPU {label}: largest jump {:.2e}", cpu.size);
            check_value(&label, Expect::Continuous, &cpu, JUMP_LIMIT);
            if let Some(ctx) = &ctx {
                let gpu = graph_jump(2, &|view| {
                    ctx.run(&plan, view, &Default::default())
                        .expect("gpu run")
                        .data
                });
                eprintln!("GPU {label}: largest jump {:.2e}", gpu.size);
                check_value(
                    &format!("{label} GPU"),
                    Expect::Continuous,
                    &gpu,
                    JUMP_LIMIT,
                );
            }
        }
    }
}
