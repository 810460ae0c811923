//! The mappings of issue 31 (`transform`, `sphere`, `torus`, `cylinder`): GPU against CPU
//! within the parity tolerance (values and gradients), the exact gradient against central
//! differences, continuity across the torus's and cylinder's wraps and the sphere's seam and
//! poles, the identities (a quarter turn is the source rotated, bit for bit; translate and
//! scale are shifted and scaled views), mappings pushed down through point-wise nodes,
//! fractals (the fractals whose octaves carry a state too: hybrid, hetero, a derivative
//! weight) and warps, nested mappings composing, point queries and the WGSL export, and the
//! errors of bad fields.

mod common;
use common::gradient_check::{central_difference_error, cpu_gradient, cpu_value, gradient_scale};

use noisegraph::engine::run_cpu;
use noisegraph::graph::gradient_plan;
use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::{NoiseGraph, Plan, RunOptions, View};
use serde_json::{json, Value};

/// A graph of `nodes` (objects with ids) whose output is `out`.
fn graph(seed: u32, nodes: Value) -> NoiseGraph {
    NoiseGraph::from_value(&json!({ "seed": seed, "output": "out", "nodes": nodes }))
        .unwrap_or_else(|e| panic!("test graph: {e}"))
}

/// The mapped graphs every check runs: each mapping over a chain, a point-wise node, a warp
/// and a nested mapping, so "any subgraph" is covered.
fn cases() -> Vec<(&'static str, NoiseGraph, View)> {
    let unit = View::image(61, 47);
    let off = View::image(61, 47)
        .with_origin([-1.3, 0.7, 0.0])
        .with_extent([1.5, 1.2, 1.0]);
    vec![
        (
            "transform 2D of fbm",
            graph(
                3,
                json!([
                    { "id": "p", "type": "perlin", "frequency": 3 },
                    { "id": "f", "type": "fbm", "source": "p", "octaves": 4 },
                    { "id": "out", "type": "transform", "source": "f", "translate": [0.3, -1.2], "rotate": 33, "scale": [1.5, 0.75] }
                ]),
            ),
            off,
        ),
        (
            "transform 3D of a sum (point-wise)",
            graph(
                5,
                json!([
                    { "id": "s", "type": "simplex", "dims": 3, "frequency": 2.5 },
                    { "id": "v", "type": "value", "dims": 3, "frequency": 4, "seed_offset": 2 },
                    { "id": "a", "type": "add", "inputs": ["s", "v"] },
                    { "id": "out", "type": "transform", "source": "a", "axis": [1, 2, 0.5], "angle": 50, "scale": 1.3, "translate": [0.1, 0.2, 0.7] }
                ]),
            ),
            off,
        ),
        (
            "transform of a warp",
            graph(
                7,
                json!([
                    { "id": "p", "type": "perlin", "frequency": 3 },
                    { "id": "dx", "type": "simplex", "frequency": 2, "seed_offset": 1 },
                    { "id": "dy", "type": "simplex", "frequency": 2, "seed_offset": 2 },
                    { "id": "w", "type": "warp", "source": "p", "displace": ["dx", "dy"], "amplitude": 0.2 },
                    { "id": "out", "type": "transform", "source": "w", "rotate": -70, "translate": [2, 1] }
                ]),
            ),
            off,
        ),
        (
            "torus of OpenSimplex2 fbm",
            graph(
                9,
                json!([
                    { "id": "o", "type": "opensimplex2", "dims": 4, "frequency": 4 },
                    { "id": "f", "type": "fbm", "source": "o", "octaves": 3 },
                    { "id": "out", "type": "torus", "source": "f" }
                ]),
            ),
            unit,
        ),
        (
            "sphere of simplex",
            graph(
                11,
                json!([
                    { "id": "s", "type": "simplex", "dims": 3, "frequency": 2 },
                    { "id": "out", "type": "sphere", "source": "s" }
                ]),
            ),
            unit,
        ),
        (
            "cylinder of a rotated perlin (nested)",
            graph(
                13,
                json!([
                    { "id": "p", "type": "perlin", "dims": 3, "frequency": 3 },
                    { "id": "t", "type": "transform", "source": "p", "axis": [1, 0, 0], "angle": 30 },
                    { "id": "out", "type": "cylinder", "source": "t", "radius": 0.3 }
                ]),
            ),
            unit,
        ),
        (
            "transform of a sphere (nested above a curve)",
            graph(
                17,
                json!([
                    { "id": "s", "type": "perlin", "dims": 3, "frequency": 3 },
                    { "id": "m", "type": "sphere", "source": "s", "radius": 0.8 },
                    { "id": "out", "type": "transform", "source": "m", "translate": [0.25, 0], "scale": [1, 0.5] }
                ]),
            ),
            unit,
        ),
    ]
}

/// The fractals whose octaves carry a state (hybrid, hetero, fbm with a derivative weight)
/// under each kind of map: a 2D quarter turn, a 3D turn about an axis, a sphere and a torus,
/// and two of them warped. Every check of [`cases`] runs them too ([`all_cases`]).
fn stateful_cases() -> Vec<(&'static str, NoiseGraph, View)> {
    let near = View::image(61, 47)
        .with_origin([-0.4, 0.3, 0.0])
        .with_extent([1.25, 1.0, 1.0]);
    let maps = [
        (
            "a quarter turn",
            json!({ "id": "b", "type": "perlin", "frequency": 3 }),
            json!({ "id": "out", "type": "transform", "source": "f", "rotate": 90 }),
            near,
        ),
        (
            "a 3D turn about an axis",
            json!({ "id": "b", "type": "simplex", "dims": 3, "frequency": 2.5 }),
            json!({ "id": "out", "type": "transform", "source": "f", "axis": [1, 2, 0.5], "angle": 50, "translate": [0.1, 0.2, 0.7] }),
            near,
        ),
        (
            "a sphere",
            json!({ "id": "b", "type": "perlin", "dims": 3, "frequency": 2 }),
            json!({ "id": "out", "type": "sphere", "source": "f" }),
            View::image(61, 47),
        ),
        (
            "a torus",
            json!({ "id": "b", "type": "simplex", "dims": 4, "frequency": 4 }),
            json!({ "id": "out", "type": "torus", "source": "f" }),
            View::image(61, 47),
        ),
    ];
    let fractals = [
        (
            "hybrid",
            json!({ "id": "f", "type": "hybrid", "source": "b", "octaves": 3 }),
        ),
        (
            "hetero",
            json!({ "id": "f", "type": "hetero", "source": "b", "octaves": 3 }),
        ),
        (
            "fbm with derivative_weight 2",
            json!({ "id": "f", "type": "fbm", "source": "b", "octaves": 3, "derivative_weight": 2 }),
        ),
    ];
    let mut out = Vec::new();
    for (fractal, f) in &fractals {
        for (map, base, m, view) in &maps {
            let label: &'static str = Box::leak(format!("{fractal} under {map}").into_boxed_str());
            let g = graph(23, json!([base, f, m]));
            out.push((label, g, *view));
        }
    }
    // Warped: the displacements' gradients enter the chain rule and the Hessian's term.
    out.push((
        "a warped derivative-weighted fbm under a turn",
        graph(
            27,
            json!([
                { "id": "p", "type": "perlin", "frequency": 3 },
                { "id": "f", "type": "fbm", "source": "p", "octaves": 3, "derivative_weight": 1.5 },
                { "id": "dx", "type": "simplex", "frequency": 2, "seed_offset": 1 },
                { "id": "dy", "type": "simplex", "frequency": 2, "seed_offset": 2 },
                { "id": "w", "type": "warp", "source": "f", "displace": ["dx", "dy"], "amplitude": 0.2 },
                { "id": "out", "type": "transform", "source": "w", "rotate": -70, "translate": [2, 1] }
            ]),
        ),
        near,
    ));
    out.push((
        "a warped hybrid on a sphere",
        graph(
            29,
            json!([
                { "id": "p", "type": "perlin", "dims": 3, "frequency": 2 },
                { "id": "f", "type": "hybrid", "source": "p", "octaves": 3 },
                { "id": "d", "type": "perlin", "dims": 3, "frequency": 1.5, "seed_offset": 3 },
                { "id": "w", "type": "warp", "source": "f", "displace": ["d", "d", "d"], "amplitude": 0.15 },
                { "id": "out", "type": "sphere", "source": "w" }
            ]),
        ),
        View::image(61, 47),
    ));
    out
}

/// [`cases`] and [`stateful_cases`].
fn all_cases() -> Vec<(&'static str, NoiseGraph, View)> {
    cases().into_iter().chain(stateful_cases()).collect()
}

/// The GPU's gradient tolerance relative to the gradient's scale: the parity tolerance, or
/// README.md's 2e-4 under a derivative weight (its Hessian is a difference quotient of two
/// gradients 2^-6 lattice units apart, which amplifies the paths' differences: here the CPU
/// maps each pixel's f64 position, the GPU its f32 pixel; measured up to 1.8e-4 on lavapipe).
fn gradient_tolerance(graph: &NoiseGraph) -> f32 {
    let weighted = graph.nodes.iter().any(|n| {
        matches!(&n.kind, noisegraph::graph::NodeKind::Fractal(f) if f.derivative_weight != 0.0)
    });
    if weighted {
        2e-4
    } else {
        PARITY_TOLERANCE
    }
}

/// Values within 1e-4 stage by stage on parity sizes; gradients within 1e-4 of the
/// gradient scale (2e-4 under a derivative weight, [`gradient_tolerance`]) on 0.1% of
/// pixels at most (1% for a graph with seams).
#[test]
fn gpu_matches_the_cpu_twin() {
    let Some(ctx) = common::gpu() else { return };
    for (label, g, view) in all_cases() {
        for [w, h] in [[1, 1], [67, 3], [33, 29]] {
            let v = View {
                size: [w, h, 1],
                ..view
            };
            common::assert_parity_view(&ctx, &g, &v, label);
        }
        let plan = gradient_plan(&g, None).expect("gradient plan");
        let gpu = ctx
            .run_gradient(&plan, &view, &RunOptions::default())
            .expect("gpu gradient");
        let cpu = cpu_gradient(&g, &view);
        let scale = gradient_scale(&cpu);
        let tolerance = gradient_tolerance(&g);
        let over = gpu
            .data
            .iter()
            .zip(&cpu.data)
            .filter(|(a, b)| {
                (a[0] - b[0]).abs() > PARITY_TOLERANCE
                    || (1..4).any(|c| {
                        let d = (a[c] - b[c]).abs();
                        d.is_nan() || d > tolerance * scale.max(b[c].abs())
                    })
            })
            .count();
        // The CPU maps each pixel's f64 position, the GPU its f32 pixel: near a seam of 3D or
        // 4D simplex (`catalog::has_seams`) the two land on either side, as README.md allows
        // for 1% of such pixels (a derivative weight's Hessian term sees them most).
        let allowed = if common::catalog::has_seams(&g) {
            common::catalog::SEAM_ALLOWANCE
        } else {
            0.001
        };
        assert!(
            over as f64 <= allowed * cpu.data.len() as f64,
            "{label}: {over} of {} gradient pixels over the tolerance",
            cpu.data.len()
        );
    }
}

/// Specialized kernels (the octaves' numbers compiled in) of mapped stages that carry a state
/// agree with the CPU in value and gradient form: every third of [`stateful_cases`] (each
/// fractal, each map, a warp), small views.
#[test]
fn specialized_kernels_of_mapped_stateful_fractals_match_the_cpu() {
    use noisegraph::Executor;
    let Some(ctx) = common::gpu() else { return };
    let always = RunOptions {
        specialize: noisegraph::gpu::Specialize::Always,
        ..RunOptions::default()
    };
    for (label, g, view) in stateful_cases().into_iter().step_by(3) {
        let view = View {
            size: [24, 20, 1],
            ..view
        };
        let plan = Plan::new(&g, None).unwrap();
        let cpu = Executor::Cpu.run(&plan, &view, &always).unwrap();
        let gpu = ctx.run(&plan, &view, &always).unwrap();
        let diff = gpu.max_abs_diff(&cpu);
        assert!(diff <= PARITY_TOLERANCE, "{label}: {diff}");
        let cpu = Executor::Cpu.run_gradient(&plan, &view, &always).unwrap();
        let gpu = ctx.run_gradient(&plan, &view, &always).unwrap();
        let scale = gradient_scale(&cpu);
        let tolerance = gradient_tolerance(&g);
        for (c, g) in cpu.data.iter().zip(&gpu.data) {
            assert!(
                (c[0] - g[0]).abs() <= PARITY_TOLERANCE
                    && (1..3).all(|a| (c[a] - g[a]).abs() <= tolerance * scale.max(c[a].abs())),
                "{label}: cpu {c:?}, gpu {g:?}"
            );
        }
    }
}

/// The exact gradient (d/dx, d/dy of the mapped field along the view) against central
/// differences: second order, under 1% of the typical gradient.
#[test]
fn gradients_match_central_differences() {
    for (label, g, view) in all_cases() {
        let view = View {
            size: [32, 28, 1],
            ..view
        };
        // Steps the f32 positions resolve: a mapped position is computed in f32.
        let h = 2e-3;
        let grad = cpu_gradient(&g, &view);
        let (coarse, size) = central_difference_error(&g, &view, &grad, h);
        let (fine, _) = central_difference_error(&g, &view, &grad, h / 2.0);
        eprintln!("{label}: median |gradient| {size:.3}, error {coarse:.2e} -> {fine:.2e}");
        assert!(size > 0.01, "{label}: a flat test field ({size})");
        assert!(fine < 0.01 * size, "{label}: error {fine:e} against {size}");
        assert!(
            coarse / fine > 2.5 || fine < 1e-3 * size,
            "{label}: halving the step divided the error by {}",
            coarse / fine
        );
    }
}

/// A 2D field's samples on a `w` x `h` grid over the unit square.
fn unit_bake(graph: &NoiseGraph, w: u32, h: u32, gpu: bool) -> Vec<f32> {
    let view = View::image(w, h);
    if gpu {
        common::gpu_field(graph, &view).expect("gpu").data
    } else {
        cpu_value(graph, &view)
    }
}

/// The largest difference between neighbouring samples inside a bake (the field's own
/// variation per pixel), and across its wrap: along x, the last column against the first
/// sample of the next period (x = 1, baked as its own one-pixel-wide view), and the same
/// along y.
fn wrap_steps(graph: &NoiseGraph, n: u32, gpu: bool) -> (f64, f64, f64) {
    let inside = unit_bake(graph, n, n, gpu);
    let at = |x: usize, y: usize| inside[y * n as usize + x] as f64;
    let mut within = 0.0f64;
    for y in 0..n as usize {
        for x in 0..n as usize - 1 {
            within = within.max((at(x + 1, y) - at(x, y)).abs());
            within = within.max((at(y, x + 1) - at(y, x)).abs());
        }
    }
    let h = 1.0 / n as f64;
    let column = |x0: f64| {
        let view = View::image(1, n)
            .with_origin([x0, 0.0, 0.0])
            .with_extent([h, 1.0, 1.0]);
        if gpu {
            common::gpu_field(graph, &view).expect("gpu").data
        } else {
            cpu_value(graph, &view)
        }
    };
    let row = |y0: f64| {
        let view = View::image(n, 1)
            .with_origin([0.0, y0, 0.0])
            .with_extent([1.0, h, 1.0]);
        if gpu {
            common::gpu_field(graph, &view).expect("gpu").data
        } else {
            cpu_value(graph, &view)
        }
    };
    let next_x = column(1.0);
    let across_x = (0..n as usize)
        .map(|y| (next_x[y] as f64 - at(n as usize - 1, y)).abs())
        .fold(0.0, f64::max);
    let next_y = row(1.0);
    let across_y = (0..n as usize)
        .map(|x| (next_y[x] as f64 - at(x, n as usize - 1)).abs())
        .fold(0.0, f64::max);
    (within, across_x, across_y)
}

/// A torus bake's opposite edges meet: the step from the last column to x = 1 (the first
/// column again, one period on) is no larger than a step inside the bake, and x = 1 equals
/// x = 0 within rounding; the same along y. Simplex and OpenSimplex2 (which have no period
/// of their own) tile this way.
#[test]
fn torus_bakes_tile() {
    let gpu = common::gpu().is_some();
    // Plain fbm of both families, and the fractals whose octaves carry a state.
    let sums = [
        ("simplex", json!({ "type": "fbm" })),
        ("opensimplex2", json!({ "type": "fbm" })),
        ("opensimplex2", json!({ "type": "hybrid" })),
        ("simplex", json!({ "type": "hetero" })),
        (
            "opensimplex2",
            json!({ "type": "fbm", "derivative_weight": 2 }),
        ),
    ];
    for (family, sum) in sums {
        let mut f = json!({ "id": "f", "source": "n", "octaves": 3 });
        for (k, v) in sum.as_object().unwrap() {
            f[k] = v.clone();
        }
        let g = graph(
            21,
            json!([
                { "id": "n", "type": family, "dims": 4, "frequency": 5 },
                f,
                { "id": "out", "type": "torus", "source": "f" }
            ]),
        );
        let family = format!("{family} {sum}");
        for on_gpu in [false, gpu] {
            let (within, across_x, across_y) = wrap_steps(&g, 64, on_gpu);
            eprintln!("torus {family} (gpu {on_gpu}): step inside {within:.4}, across x {across_x:.4}, across y {across_y:.4}");
            assert!(within > 0.01, "{family}: a flat field");
            assert!(
                across_x <= within,
                "{family}: x edges do not meet ({across_x} > {within})"
            );
            assert!(
                across_y <= within,
                "{family}: y edges do not meet ({across_y} > {within})"
            );
        }
        // x = 1 is x = 0: the first column again.
        let first = cpu_value(&g, &View::image(1, 16).with_extent([1.0 / 16.0, 1.0, 1.0]));
        let again = cpu_value(
            &g,
            &View::image(1, 16)
                .with_origin([1.0, 0.0, 0.0])
                .with_extent([1.0 / 16.0, 1.0, 1.0]),
        );
        for (a, b) in first.iter().zip(&again) {
            assert!(
                (a - b).abs() < 1e-4,
                "{family}: x = 0 gives {a}, x = 1 gives {b}"
            );
        }
    }
}

/// A fine scan across a wrap (x or y from 0.9 to 1.1, the other coordinate at 0.37): the
/// largest first difference relative to what the exact slope allows, |v[i + 1] - v[i]| / (h *
/// max(|slope| at i, i + 1) * 1.5 + 1e-5), as tests/remaps_blends.rs scans. Above 1 only where
/// the field jumps; also x = 1 equals x = 0 (y likewise) within 1e-4.
fn scan_across_wrap(graph: &NoiseGraph, axis: usize, gpu: bool) -> f64 {
    let n = 2048u32;
    let (size, origin, extent) = if axis == 0 {
        ([n, 1], [0.9, 0.37, 0.0], [0.2, 1e-3, 1.0])
    } else {
        ([1, n], [0.37, 0.9, 0.0], [1e-3, 0.2, 1.0])
    };
    let view = View::image(size[0], size[1])
        .with_origin(origin)
        .with_extent(extent);
    let h = 0.2 / n as f64;
    let values = if gpu {
        common::gpu_field(graph, &view).expect("gpu").data
    } else {
        cpu_value(graph, &view)
    };
    let slope = cpu_gradient(graph, &view);
    let mut worst = 0.0f64;
    for i in 0..n as usize - 1 {
        let step = (values[i + 1] as f64 - values[i] as f64).abs();
        let s = (slope.data[i][1 + axis] as f64)
            .abs()
            .max((slope.data[i + 1][1 + axis] as f64).abs());
        worst = worst.max(step / (h * s * 1.5 + 1e-5));
    }
    // One period on, the same values.
    let at = |o: [f64; 2]| {
        let v = View::image(8, 1)
            .with_origin([o[0], o[1], 0.0])
            .with_extent([0.5, 1e-3, 1.0]);
        let v = if axis == 1 {
            View::image(1, 8)
                .with_origin([o[0], o[1], 0.0])
                .with_extent([1e-3, 0.5, 1.0])
        } else {
            v
        };
        if gpu {
            common::gpu_field(graph, &v).expect("gpu").data
        } else {
            cpu_value(graph, &v)
        }
    };
    let (zero, one) = if axis == 0 {
        (at([0.0, 0.37]), at([1.0, 0.37]))
    } else {
        (at([0.37, 0.0]), at([0.37, 1.0]))
    };
    for (a, b) in zero.iter().zip(&one) {
        assert!(
            (a - b).abs() < 1e-4,
            "axis {axis} (gpu {gpu}): {a} at 0, {b} one period on"
        );
    }
    worst
}

/// Fine scans across each wrap of the torus (x and y), the cylinder (x) and the sphere's
/// seam (x) find no jump on either path.
#[test]
fn fine_scans_across_the_wraps_find_no_jump() {
    let gpu = common::gpu().is_some();
    let with = |dims: u32, family: &str, map: &str| {
        graph(
            43,
            json!([
                { "id": "n", "type": family, "dims": dims, "frequency": 4 },
                { "id": "f", "type": "fbm", "source": "n", "octaves": 3 },
                { "id": "out", "type": map, "source": "f" }
            ]),
        )
    };
    let cases = [
        ("torus simplex", with(4, "simplex", "torus"), vec![0, 1]),
        (
            "torus opensimplex2",
            with(4, "opensimplex2", "torus"),
            vec![0, 1],
        ),
        ("cylinder perlin", with(3, "perlin", "cylinder"), vec![0]),
        ("sphere simplex", with(3, "simplex", "sphere"), vec![0]),
    ];
    for (label, g, axes) in cases {
        for axis in axes {
            for on_gpu in [false, gpu] {
                let worst = scan_across_wrap(&g, axis, on_gpu);
                eprintln!("{label} axis {axis} (gpu {on_gpu}): worst step ratio {worst:.3}");
                assert!(
                    worst <= 1.0,
                    "{label}: a jump across axis {axis} (gpu {on_gpu}): {worst}"
                );
            }
        }
    }
}

/// A cylinder tiles in x (its y runs along the axis, so it does not tile in y).
#[test]
fn cylinder_bakes_tile_in_x() {
    let g = graph(
        23,
        json!([
            { "id": "n", "type": "simplex", "dims": 3, "frequency": 4 },
            { "id": "out", "type": "cylinder", "source": "n" }
        ]),
    );
    for on_gpu in [false, common::gpu().is_some()] {
        let (within, across_x, across_y) = wrap_steps(&g, 64, on_gpu);
        eprintln!("cylinder (gpu {on_gpu}): inside {within:.4}, across x {across_x:.4}, across y {across_y:.4}");
        assert!(
            across_x <= within,
            "x edges do not meet ({across_x} > {within})"
        );
    }
}

/// A sphere is continuous across its seam (x = 0 and x = 1 are one meridian) and at its
/// poles (every longitude at y = 0 is the same point, and at y = 1).
#[test]
fn sphere_seam_and_poles_are_continuous() {
    let g = graph(
        25,
        json!([
            { "id": "n", "type": "simplex", "dims": 3, "frequency": 3 },
            { "id": "f", "type": "fbm", "source": "n", "octaves": 3 },
            { "id": "out", "type": "sphere", "source": "f" }
        ]),
    );
    for on_gpu in [false, common::gpu().is_some()] {
        let (within, across_x, _) = wrap_steps(&g, 64, on_gpu);
        eprintln!("sphere (gpu {on_gpu}): inside {within:.4}, across the seam {across_x:.4}");
        assert!(across_x <= within, "the seam jumps ({across_x} > {within})");
        // The pole rows: one value whatever the longitude.
        for y0 in [0.0, 1.0] {
            let view = View::image(97, 1)
                .with_origin([0.0, y0, 0.0])
                .with_extent([1.0, 1e-3, 1.0]);
            let row = if on_gpu {
                common::gpu_field(&g, &view).expect("gpu").data
            } else {
                cpu_value(&g, &view)
            };
            let spread = row.iter().fold(0.0f32, |m, v| m.max((v - row[0]).abs()));
            assert!(
                spread < 1e-4,
                "pole y = {y0} (gpu {on_gpu}): values spread by {spread}"
            );
        }
    }
}

/// A quarter turn is the source rotated, bit for bit on the CPU path (and within the
/// tolerance on the GPU): out(x, y) = source(-y, x), so the transform's pixel (i, j) is the
/// source's pixel (n - 1 - j, i) of the view starting at x = -(n - 1) h. Steps and
/// frequencies are powers of two, so both place every sample exactly.
#[test]
fn a_quarter_turn_is_the_rotated_source() {
    let n = 64usize;
    let h = 1.0 / n as f64;
    for family in ["perlin", "value", "cellular"] {
        let nodes = |rotate: Option<f64>| {
            let mut nodes = vec![json!({ "id": "src", "type": family, "frequency": 4 })];
            nodes.push(match rotate {
                Some(r) => {
                    json!({ "id": "out", "type": "transform", "source": "src", "rotate": r })
                }
                None => json!({ "id": "out", "type": "scale_bias", "source": "src" }),
            });
            graph(31, Value::Array(nodes))
        };
        let turned = cpu_value(&nodes(Some(90.0)), &View::image(n as u32, n as u32));
        let source_view =
            View::image(n as u32, n as u32).with_origin([-((n - 1) as f64) * h, 0.0, 0.0]);
        let source = cpu_value(&nodes(None), &source_view);
        for j in 0..n {
            for i in 0..n {
                let (a, b) = (turned[j * n + i], source[i * n + (n - 1 - j)]);
                assert_eq!(
                    a.to_bits(),
                    b.to_bits(),
                    "{family} at ({i}, {j}): {a} vs {b}"
                );
            }
        }
        // A full turn (and -270 degrees, a quarter turn again) change nothing.
        let again = cpu_value(&nodes(Some(-270.0)), &View::image(n as u32, n as u32));
        assert_eq!(turned, again, "{family}: -270 degrees is 90 degrees");
        if let Some(gpu) = common::gpu_field(&nodes(Some(90.0)), &View::image(n as u32, n as u32)) {
            let worst = gpu
                .data
                .iter()
                .zip(&turned)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            assert!(
                worst <= PARITY_TOLERANCE,
                "{family}: GPU differs by {worst}"
            );
        }
    }
}

/// A quarter turn of the fractals whose octaves carry a state (hybrid, hetero, fbm with a
/// derivative weight) is the fractal sampled at the rotated positions: out(x, y) = f(-y, x),
/// and the gradient turned with it: (d/dx, d/dy) out = (d/dy f, -d/dx f), within 1e-4 of its
/// scale (a derivative weight's Hessian is a difference quotient in each bake's own local
/// coordinates). One octave is the same bit for bit (as in
/// [`a_quarter_turn_is_the_rotated_source`], every sample placed exactly); past the first,
/// each octave is shifted by the irrational `OCTAVE_SHIFT`, which the two views split into
/// lattice cell and f32 local part differently, so three octaves agree within 1e-6 (as plain
/// fbm's do). The GPU bake agrees within the parity tolerance.
#[test]
fn a_quarter_turn_of_a_stateful_fractal_is_the_rotated_fractal() {
    let n = 64usize;
    let h = 1.0 / n as f64;
    let fractals = [
        json!({ "type": "hybrid" }),
        json!({ "type": "hetero" }),
        json!({ "type": "fbm", "derivative_weight": 2 }),
    ];
    for (sum, octaves) in fractals.iter().flat_map(|f| [(f, 1), (f, 3)]) {
        let nodes = |rotate: bool| {
            let mut f = json!({ "id": "f", "source": "src", "octaves": octaves });
            for (k, v) in sum.as_object().unwrap() {
                f[k] = v.clone();
            }
            let top = if rotate {
                json!({ "id": "out", "type": "transform", "source": "f", "rotate": 90 })
            } else {
                json!({ "id": "out", "type": "scale_bias", "source": "f" })
            };
            graph(
                31,
                json!([{ "id": "src", "type": "perlin", "frequency": 4 }, f, top]),
            )
        };
        let label = format!("{sum} of {octaves} octaves");
        let view = View::image(n as u32, n as u32);
        let source_view = view.with_origin([-((n - 1) as f64) * h, 0.0, 0.0]);
        let turned = cpu_value(&nodes(true), &view);
        let source = cpu_value(&nodes(false), &source_view);
        let turned_grad = cpu_gradient(&nodes(true), &view);
        let source_grad = cpu_gradient(&nodes(false), &source_view);
        for j in 0..n {
            for i in 0..n {
                let (a, b) = (turned[j * n + i], source[i * n + (n - 1 - j)]);
                if octaves == 1 {
                    assert_eq!(
                        a.to_bits(),
                        b.to_bits(),
                        "{label} at ({i}, {j}): {a} vs {b}"
                    );
                } else {
                    assert!((a - b).abs() <= 1e-6, "{label} at ({i}, {j}): {a} vs {b}");
                }
                let (ga, gb) = (
                    turned_grad.data[j * n + i],
                    source_grad.data[i * n + (n - 1 - j)],
                );
                let scale = gb[1].abs().max(gb[2].abs()).max(1.0);
                assert!(
                    (ga[1] - gb[2]).abs() <= 1e-4 * scale && (ga[2] + gb[1]).abs() <= 1e-4 * scale,
                    "{label} gradient at ({i}, {j}): {ga:?} vs the source's {gb:?}"
                );
            }
        }
        if let Some(gpu) = common::gpu_field(&nodes(true), &view) {
            let worst = gpu
                .data
                .iter()
                .zip(&turned)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            assert!(worst <= PARITY_TOLERANCE, "{label}: GPU differs by {worst}");
        }
    }
}

/// A 3D quarter turn about z is the same permutation on every slice.
#[test]
fn a_quarter_turn_about_z_is_the_rotated_volume_source() {
    let n = 16usize;
    let h = 1.0 / n as f64;
    let with = |out: Value| {
        graph(
            33,
            json!([{ "id": "src", "type": "perlin", "dims": 3, "frequency": 4 }, out]),
        )
    };
    let turned = cpu_value(
        &with(
            json!({ "id": "out", "type": "transform", "source": "src", "axis": [0, 0, 2], "angle": 90 }),
        ),
        &View::volume(n as u32, n as u32, 4),
    );
    let source = cpu_value(
        &with(json!({ "id": "out", "type": "scale_bias", "source": "src" })),
        &View::volume(n as u32, n as u32, 4).with_origin([-((n - 1) as f64) * h, 0.0, 0.0]),
    );
    for k in 0..4 {
        for j in 0..n {
            for i in 0..n {
                let (a, b) = (
                    turned[(k * n + j) * n + i],
                    source[(k * n + i) * n + (n - 1 - j)],
                );
                assert_eq!(a.to_bits(), b.to_bits(), "({i}, {j}, {k}): {a} vs {b}");
            }
        }
    }
}

/// Translate and scale are views moved and scaled: the transform's bake of a view equals the
/// source's bake of the view the map takes it to (within rounding of the split positions).
#[test]
fn translate_and_scale_are_shifted_views() {
    let g = |out: Value| {
        graph(
            35,
            json!([
                { "id": "p", "type": "simplex", "frequency": 3 },
                { "id": "f", "type": "fbm", "source": "p", "octaves": 5 },
                out
            ]),
        )
    };
    let view = View::image(50, 40)
        .with_origin([0.25, -0.5, 0.0])
        .with_extent([1.0, 0.8, 1.0]);
    let mapped = cpu_value(
        &g(
            json!({ "id": "out", "type": "transform", "source": "f", "translate": [3.5, -1.25], "scale": [2, 0.5] }),
        ),
        &view,
    );
    // scale * p + translate over the view: origin 2 * 0.25 + 3.5, extent 2 * 1.0; y: 0.5 *
    // -0.5 - 1.25, extent 0.5 * 0.8.
    let moved = View::image(50, 40)
        .with_origin([4.0, -1.5, 0.0])
        .with_extent([2.0, 0.4, 1.0]);
    let plain = cpu_value(
        &g(json!({ "id": "out", "type": "scale_bias", "source": "f" })),
        &moved,
    );
    let worst = mapped
        .iter()
        .zip(&plain)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(
        worst < 1e-5,
        "translate and scale differ from the moved view by {worst}"
    );
    // A translate of far coordinates keeps the precision of a plain view far away: the
    // constant part of the map is split in f64.
    let far = cpu_value(
        &g(
            json!({ "id": "out", "type": "transform", "source": "f", "translate": [1.0e6, -2.0e6] }),
        ),
        &View::image(50, 40),
    );
    let far_plain = cpu_value(
        &g(json!({ "id": "out", "type": "scale_bias", "source": "f" })),
        &View::image(50, 40).with_origin([1.0e6, -2.0e6, 0.0]),
    );
    let worst = far
        .iter()
        .zip(&far_plain)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-5, "far translate differs by {worst}");
}

/// Nested transforms compose: a transform of a transform equals the one transform of the
/// composed map.
#[test]
fn nested_transforms_compose() {
    let view = View::image(40, 30).with_origin([0.3, 0.1, 0.0]);
    let nested = graph(
        37,
        json!([
            { "id": "p", "type": "perlin", "frequency": 3 },
            { "id": "a", "type": "transform", "source": "p", "translate": [1, 0] },
            { "id": "out", "type": "transform", "source": "a", "scale": 2 }
        ]),
    );
    // out(p) = a(2 p) = p_source(2 p + (1, 0))
    let single = graph(
        37,
        json!([
            { "id": "p", "type": "perlin", "frequency": 3 },
            { "id": "out", "type": "transform", "source": "p", "scale": 2, "translate": [1, 0] }
        ]),
    );
    let (a, b) = (cpu_value(&nested, &view), cpu_value(&single, &view));
    let worst = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0f32, f32::max);
    assert!(
        worst < 1e-6,
        "nested transforms differ from the composed one by {worst}"
    );
}

/// A point query of a mapped node agrees with the bake, in value and gradient, at positions
/// computed as `origin + i * extent / size` (another rounding than the bake's
/// `origin + (i * extent) / size`, so within the tolerance; at the bake's own positions the
/// two are equal bit for bit, `tests/pixel_position.rs`).
#[test]
fn point_queries_match_bakes() {
    use noisegraph::query::PointQuery;
    for (label, g, view) in all_cases() {
        let view = View {
            size: [16, 12, 1],
            ..view
        };
        let bake = cpu_value(&g, &view);
        let grad = cpu_gradient(&g, &view);
        let query = PointQuery::new(&g, None).expect("query");
        let dims = query.dims() as usize;
        assert_eq!(
            dims as u32,
            g.dims_of("out"),
            "{label}: the mapped node's dims"
        );
        let mut coords = Vec::new();
        for j in 0..12 {
            for i in 0..16 {
                coords.push(view.origin[0] + i as f64 * view.extent[0] / 16.0);
                coords.push(view.origin[1] + j as f64 * view.extent[1] / 12.0);
                coords.extend(std::iter::repeat_n(0.0, dims - 2));
            }
        }
        let values = query.values(&coords).expect("values");
        let gradients = query.gradients(&coords).expect("gradients");
        for (i, (a, b)) in values.iter().zip(&bake).enumerate() {
            assert!(
                (a - b).abs() < 1e-4,
                "{label} point {i}: query {a}, bake {b}"
            );
            let q = &gradients[(dims + 1) * i..(dims + 1) * i + 3];
            let s = grad.data[i];
            let scale = s[1].abs().max(s[2].abs()).max(1.0);
            assert!(
                (q[1] - s[1]).abs() < 1e-3 * scale && (q[2] - s[2]).abs() < 1e-3 * scale,
                "{label} point {i}: query gradient {q:?}, bake {s:?}"
            );
        }
    }
}

/// Bad fields are refused naming the node, the field and the limit.
#[test]
fn bad_fields_are_refused() {
    let refused = |nodes: Value, field: &str, words: &str| {
        let err = NoiseGraph::from_value(&json!({ "seed": 1, "output": "out", "nodes": nodes }))
            .expect_err("refused");
        let issue = err
            .0
            .iter()
            .find(|i| i.field == field && i.node.as_deref() == Some("out"))
            .unwrap_or_else(|| panic!("no issue at out.{field}: {err}"));
        assert!(issue.message.contains(words), "{field}: {}", issue.message);
    };
    let p2 = json!({ "id": "p", "type": "perlin" });
    let p3 = json!({ "id": "p", "type": "perlin", "dims": 3 });
    refused(
        json!([p2, { "id": "out", "type": "sphere", "source": "p" }]),
        "source",
        "3D",
    );
    refused(
        json!([p3, { "id": "out", "type": "torus", "source": "p" }]),
        "source",
        "4D",
    );
    refused(
        json!([p2, { "id": "out", "type": "sphere", "source": "q" }]),
        "source",
        "unknown id",
    );
    refused(
        json!([p3, { "id": "out", "type": "cylinder", "source": "p", "radius": 0 }]),
        "radius",
        "0",
    );
    refused(
        json!([p3, { "id": "out", "type": "sphere", "source": "p", "radius": 1e9 }]),
        "radius",
        "1048576",
    );
    refused(
        json!([p2, { "id": "out", "type": "transform", "source": "p", "angle": 10 }]),
        "angle",
        "rotate",
    );
    refused(
        json!([p3, { "id": "out", "type": "transform", "source": "p", "rotate": 10 }]),
        "rotate",
        "axis",
    );
    refused(
        json!([p3, { "id": "out", "type": "transform", "source": "p", "axis": [0, 0, 0] }]),
        "axis",
        "[0, 0, 0]",
    );
    refused(
        json!([p3, { "id": "out", "type": "transform", "source": "p", "axis": [0, 1] }]),
        "axis",
        "three numbers",
    );
    refused(
        json!([p2, { "id": "out", "type": "transform", "source": "p", "translate": [1, 2, 3] }]),
        "translate",
        "2 numbers",
    );
    refused(
        json!([p2, { "id": "out", "type": "transform", "source": "p", "scale": 1e7 }]),
        "scale",
        "2^20",
    );
    refused(
        json!([p2, { "id": "out", "type": "transform", "source": "p", "rotate": "x" }]),
        "rotate",
        "finite number",
    );
    // A volume of a curved mapping, and a view too large for the mapped lattice.
    let g = graph(
        1,
        json!([p3, { "id": "out", "type": "sphere", "source": "p" }]),
    );
    let plan = Plan::new(&g, None).unwrap();
    let err = run_cpu(&plan, &View::volume(4, 4, 4), &RunOptions::default()).unwrap_err();
    assert!(err.to_string().contains("2D view"), "{err}");
}

/// A point query of a mapped node equals a one-pixel bake at the point, bit for bit, in value
/// and gradient (as for every node: the query runs the bake's arithmetic).
#[test]
fn a_query_equals_a_one_pixel_bake() {
    use noisegraph::query::PointQuery;
    for (label, g, _) in all_cases() {
        let query = PointQuery::new(&g, None).expect("query");
        let dims = query.dims() as usize;
        for (k, p) in [[0.1, 0.2], [0.77, 0.5], [-3.25, 1.0e3 + 0.125]]
            .iter()
            .enumerate()
        {
            let mut at = p.to_vec();
            at.resize(dims, 0.0);
            let value = query.values(&at).expect("value")[0];
            let pixel = View::image(1, 1).with_origin([p[0], p[1], 0.0]);
            let bake = cpu_value(&g, &pixel)[0];
            assert_eq!(
                value.to_bits(),
                bake.to_bits(),
                "{label} point {k}: query {value}, bake {bake}"
            );
            // The gradient too: value, d/dx, d/dy.
            let query_grad = query.gradients(&at).expect("gradient");
            let bake_grad = cpu_gradient(&g, &pixel).data[0];
            for c in 0..3 {
                assert_eq!(
                    query_grad[c].to_bits(),
                    bake_grad[c].to_bits(),
                    "{label} point {k}, component {c}: query {query_grad:?}, bake {bake_grad:?}"
                );
            }
        }
    }
}

/// The WGSL export of a mapped node validates, and run on the GPU (`GpuPointQuery`, the
/// exported module behind a compute entry point) it agrees with the CPU point queries in
/// value and gradient.
#[test]
fn the_wgsl_export_runs_mapped_nodes() {
    use noisegraph::export::wgsl::{export_wgsl, WgslOptions};
    use noisegraph::gpu::GpuPointQuery;
    use noisegraph::query::PointQuery;
    for (label, g, _) in all_cases() {
        let module = export_wgsl(&g, &WgslOptions::new("height")).expect("export");
        assert_eq!(
            (module.dims, module.node.as_str()),
            (g.dims_of("out"), "out"),
            "{label}"
        );
        noisegraph::gpu::assemble::validate_wgsl(&module.source)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        {
            use noisegraph::export::{export_shader, Language, ShaderOptions};
            for language in [
                Language::Glsl,
                Language::GlslEs,
                Language::Hlsl,
                Language::Msl,
            ] {
                export_shader(&g, &ShaderOptions::new("height", language))
                    .unwrap_or_else(|e| panic!("{label} as {language:?}: {e}"));
            }
        }
        let Some(ctx) = common::gpu() else { continue };
        let cpu = PointQuery::new(&g, None).expect("query");
        let dims = cpu.dims() as usize;
        let pts: Vec<f64> = (0..64 * dims)
            .map(|i| {
                if i % dims < 2 {
                    (i * 37 % 101) as f64 / 101.0
                } else {
                    0.0
                }
            })
            .collect();
        let want = cpu.values(&pts).unwrap();
        let got = GpuPointQuery::new(ctx.clone(), &g, None, false)
            .unwrap()
            .run(&pts)
            .unwrap();
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!(
                (a - b).abs() <= PARITY_TOLERANCE,
                "{label} point {i}: gpu {a}, cpu {b}"
            );
        }
        let want = cpu.gradients(&pts).unwrap();
        let got = GpuPointQuery::new(ctx.clone(), &g, None, true)
            .unwrap()
            .run(&pts)
            .unwrap();
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!(
                (a - b).abs() <= PARITY_TOLERANCE * b.abs().max(1.0) * 10.0,
                "{label} number {i}: gpu {a}, cpu {b}"
            );
        }
    }
}

/// A cube map's faces meet at their edges (OpenGL / Vulkan convention): +x's right edge is
/// -z's left, +z's right is +x's left, +y's bottom is +z's top, -y's top is +z's bottom.
#[test]
fn cube_faces_meet_at_their_edges() {
    let face = |name: &str| {
        graph(
            41,
            json!([
                { "id": "n", "type": "simplex", "dims": 3, "frequency": 3 },
                { "id": "f", "type": "fbm", "source": "n", "octaves": 4 },
                { "id": "out", "type": "cube_face", "source": "f", "face": name }
            ]),
        )
    };
    let n = 33;
    // A column (x = s fixed) or a row (y = t fixed) along a face's edge.
    let column =
        |name: &str, s: f64| cpu_value(&face(name), &View::image(1, n).with_origin([s, 0.0, 0.0]));
    let row =
        |name: &str, t: f64| cpu_value(&face(name), &View::image(n, 1).with_origin([0.0, t, 0.0]));
    let pairs = [
        ("px right, nz left", column("px", 1.0), column("nz", 0.0)),
        ("pz right, px left", column("pz", 1.0), column("px", 0.0)),
        ("py bottom, pz top", row("py", 1.0), row("pz", 0.0)),
        ("ny top, pz bottom", row("ny", 0.0), row("pz", 1.0)),
        ("nx right, pz left", column("nx", 1.0), column("pz", 0.0)),
    ];
    for (label, a, b) in pairs {
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-5, "{label}: the edges differ by {worst}");
        assert!(
            a.iter().any(|v| (v - a[0]).abs() > 1e-3),
            "{label}: a flat edge"
        );
    }
    // Not a pair: +x's right edge is not +z's left.
    let (a, b) = (column("px", 1.0), column("pz", 0.0));
    assert!(a.iter().zip(&b).any(|(x, y)| (x - y).abs() > 1e-3));
}

/// `bake --cube-map` writes the six faces, each the library's `cube_face` bake at the texel
/// centres, bit for bit on the CPU path; bad combinations exit 2 and write nothing.
#[test]
fn bake_cube_map_writes_six_faces() {
    use std::process::Command;
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cube_map");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let nodes = json!([
        { "id": "n", "type": "simplex", "dims": 3, "frequency": 3 },
        { "id": "f", "type": "fbm", "source": "n", "octaves": 3 }
    ]);
    let file = dir.join("sky.json");
    let graph_json = json!({ "seed": 5, "output": "f", "nodes": nodes });
    std::fs::write(&file, graph_json.to_string()).unwrap();
    let bake = |extra: &[&str]| {
        let size = if extra.contains(&"--size") {
            &[][..]
        } else {
            &["--size", "24x24"][..]
        };
        Command::new(env!("CARGO_BIN_EXE_noisegraph"))
            .arg("bake")
            .arg(&file)
            .args(["--backend", "cpu", "--cube-map"])
            .args(size)
            .args(extra)
            .output()
            .expect("run noisegraph")
    };
    let out = dir.join("sky_{face}.npy");
    let run = bake(&["-o", out.to_str().unwrap()]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for (index, face) in ["px", "nx", "py", "ny", "pz", "nz"].iter().enumerate() {
        let baked = noisegraph::io::read_npy(&dir.join(format!("sky_{face}.npy"))).unwrap();
        let mut with_face = graph_json.clone();
        with_face["nodes"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "id": "c", "type": "cube_face", "source": "f", "face": face }));
        with_face["output"] = json!("c");
        let g = NoiseGraph::from_value(&with_face).unwrap();
        let view = View::image(24, 24).with_origin([0.5 / 24.0, 0.5 / 24.0, 0.0]);
        let want = cpu_value(&g, &view);
        assert_eq!(baked.data, want, "face {index} ({face})");
    }
    for (extra, words) in [
        (vec!["-o", dir.join("sky.npy").to_str().unwrap()], "{face}"),
        (
            vec!["-o", out.to_str().unwrap(), "--size", "24x12"],
            "square",
        ),
        (
            vec!["-o", out.to_str().unwrap(), "--origin", "1,2"],
            "--origin",
        ),
        (vec!["-o", out.to_str().unwrap(), "--node", "nope"], "nope"),
    ] {
        let run = bake(&extra);
        assert_eq!(run.status.code(), Some(2), "{extra:?}");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(stderr.contains(words), "{extra:?}: {stderr}");
    }
    // A 2D graph cannot be a cube map.
    let flat = dir.join("flat.json");
    std::fs::write(
        &flat,
        json!({ "seed": 1, "output": "p", "nodes": [{ "id": "p", "type": "perlin" }] }).to_string(),
    )
    .unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_noisegraph"))
        .arg("bake")
        .arg(&flat)
        .args([
            "--cube-map",
            "-o",
            dir.join("flat_{face}.png").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&run.stderr).contains("3D"));
    assert!(!dir.join("flat_px.png").exists());
    // A bad mapping in a plain bake: exit 2, the node and field named, nothing written.
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        json!({ "seed": 1, "output": "out", "nodes": [
            { "id": "p", "type": "perlin" },
            { "id": "out", "type": "sphere", "source": "p", "radius": -1 }] })
        .to_string(),
    )
    .unwrap();
    let run = Command::new(env!("CARGO_BIN_EXE_noisegraph"))
        .arg("bake")
        .arg(&bad)
        .args(["-o", dir.join("bad.png").to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains("'out'") && stderr.contains("radius") && stderr.contains("source"),
        "{stderr}"
    );
    assert!(!dir.join("bad.png").exists());
}

/// A renderer's `CompiledGraph` of mapped graphs records what the CPU path bakes, also after
/// moving the view, changing a parameter of a node below the mapping, and changing the
/// mapping's own fields (`set_node_param`).
#[test]
fn compiled_graphs_of_mapped_nodes_match_the_cpu() {
    use noisegraph::gpu::{CompiledGraph, NodeParam};
    let Some(ctx) = common::gpu() else { return };
    for (label, g, view) in all_cases() {
        let view = View {
            size: [40, 32, 1],
            ..view
        };
        let mut compiled = CompiledGraph::new(&ctx, &g, None, view).expect("compile");
        let target = compiled.create_target();
        let frame = |compiled: &mut CompiledGraph| {
            let mut encoder = ctx.device().create_command_encoder(&Default::default());
            compiled.record(&mut encoder, &target).expect("record");
            ctx.queue().submit(Some(encoder.finish()));
            compiled.read_target(&target).expect("readback")
        };
        let diff = frame(&mut compiled).max_abs_diff(&common::cpu_field(&g, &view));
        assert!(diff <= PARITY_TOLERANCE, "{label}: {diff}");
        // Moved, and the first family node's frequency changed, as a graph built so.
        let moved = view.with_origin([view.origin[0] + 0.125, view.origin[1] - 0.25, 0.0]);
        compiled.set_origin(moved.origin).expect("origin");
        let family = g
            .nodes
            .iter()
            .find(|n| matches!(n.kind, noisegraph::graph::NodeKind::Family(_)))
            .unwrap()
            .id
            .clone();
        compiled
            .set_node_param(&family, NodeParam::Frequency(2.75))
            .expect("frequency");
        let mut rebuilt = g.to_json();
        for node in rebuilt["nodes"].as_array_mut().unwrap() {
            if node["id"] == family.as_str() {
                node["frequency"] = json!(2.75);
            }
        }
        let rebuilt_graph = NoiseGraph::from_value(&rebuilt).unwrap();
        let diff = frame(&mut compiled).max_abs_diff(&common::cpu_field(&rebuilt_graph, &moved));
        assert!(
            diff <= PARITY_TOLERANCE,
            "{label}, moved and changed: {diff}"
        );
        // The mapping's own fields, per frame: the compiled graph takes the new composed map
        // (no new pipeline), as the graph built with those fields bakes.
        let out = rebuilt["nodes"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|n| n["id"] == "out")
            .unwrap();
        let dims = g.dims_of("out");
        let changes: Vec<(NodeParam, &str, Value)> = match out["type"].as_str().unwrap() {
            "transform" if dims == 2 => vec![
                (NodeParam::Rotate(47.0), "rotate", json!(47.0)),
                (
                    NodeParam::Translate([0.5, -0.25, 0.0, 0.0]),
                    "translate",
                    json!([0.5, -0.25]),
                ),
            ],
            "transform" => vec![
                (NodeParam::Angle(20.0), "angle", json!(20.0)),
                (
                    NodeParam::Scale([1.25, 0.8, 1.1, 0.0]),
                    "scale",
                    json!([1.25, 0.8, 1.1]),
                ),
            ],
            "torus" => vec![
                (NodeParam::RadiusX(0.2), "radius_x", json!(0.2)),
                (NodeParam::RadiusY(0.13), "radius_y", json!(0.13)),
            ],
            _ => vec![(NodeParam::Radius(0.7), "radius", json!(0.7))],
        };
        for (param, field, value) in changes {
            compiled
                .set_node_param("out", param)
                .unwrap_or_else(|e| panic!("{label}: {field}: {e}"));
            out[field] = value;
        }
        let remapped = NoiseGraph::from_value(&rebuilt).unwrap();
        let diff = frame(&mut compiled).max_abs_diff(&common::cpu_field(&remapped, &moved));
        assert!(
            diff <= PARITY_TOLERANCE,
            "{label}, the mapping's fields changed: {diff}"
        );
    }
}

/// A mapping's per-frame fields create no pipeline (a context of its own counts them), and
/// bad ones are refused naming the node and the field: a field of another mapping kind, a
/// value out of the field's bounds, a non-finite number, a mapping the compiled output does
/// not read; the compiled graph keeps its map.
#[test]
fn per_frame_mapping_fields_compile_nothing_and_bad_ones_are_refused() {
    use noisegraph::gpu::{CompiledGraph, NodeParam};
    use noisegraph::GpuContext;
    let Some(shared) = common::gpu() else { return };
    let ctx = std::sync::Arc::new(GpuContext::from_device(
        shared.device().clone(),
        shared.queue().clone(),
    ));
    let g = graph(
        3,
        json!([
            { "id": "p", "type": "perlin", "frequency": 3 },
            { "id": "f", "type": "hybrid", "source": "p", "octaves": 3 },
            { "id": "out", "type": "transform", "source": "f", "rotate": 30 },
            { "id": "aside", "type": "transform", "source": "p", "rotate": 10 }
        ]),
    );
    let view = View::image(16, 16);
    let mut compiled = CompiledGraph::new(&ctx, &g, None, view).expect("compile");
    let target = compiled.create_target();
    let frame = |compiled: &mut CompiledGraph| {
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        compiled.record(&mut encoder, &target).expect("record");
        ctx.queue().submit(Some(encoder.finish()));
        compiled.read_target(&target).expect("readback")
    };
    frame(&mut compiled);
    let pipelines = ctx.pipeline_creations();
    assert!(pipelines > 0, "the first frame compiled pipelines");
    for turn in 0..10 {
        let rotate = 30.0 + 7.0 * turn as f64;
        compiled
            .set_node_param("out", NodeParam::Rotate(rotate))
            .expect("rotate");
        compiled
            .set_node_param(
                "out",
                NodeParam::Scale([1.0 + 0.1 * turn as f64, 0.9, 1.0, 1.0]),
            )
            .expect("scale");
        frame(&mut compiled);
    }
    assert_eq!(
        ctx.pipeline_creations(),
        pipelines,
        "a new map compiled a pipeline"
    );
    compiled
        .set_node_param("out", NodeParam::Rotate(30.0))
        .expect("rotate");
    compiled
        .set_node_param("out", NodeParam::Scale([1.0; 4]))
        .expect("scale");
    for (node, param, words) in [
        ("out", NodeParam::Radius(0.5), "'radius'"),
        ("out", NodeParam::Angle(10.0), "angle"),
        ("out", NodeParam::Scale([1e7, 1.0, 1.0, 1.0]), "scale"),
        ("out", NodeParam::Rotate(f64::NAN), "finite"),
        ("p", NodeParam::Rotate(10.0), "'rotate'"),
        ("aside", NodeParam::Rotate(20.0), "not evaluated"),
    ] {
        let err = compiled
            .set_node_param(node, param)
            .expect_err("refused")
            .to_string();
        assert!(
            err.contains(&format!("'{node}'")) && err.contains(words),
            "{param:?}: {err}"
        );
    }
    let diff = frame(&mut compiled).max_abs_diff(&common::cpu_field(&g, &view));
    assert!(diff <= PARITY_TOLERANCE, "the map changed: {diff}");
}
