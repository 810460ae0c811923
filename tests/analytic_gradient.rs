//! The analytic gradient: each family's derivative against finite differences of its own
//! plain sampler, the analytic normal map against its CPU twin (GPU), against central
//! differences of the baked field, its height channel against the plain stage, per-frame
//! changes, and refusals that name the node.

mod common;

use std::sync::Arc;

use noisegraph::engine::run_cpu;
use noisegraph::family::{lookup, FamilyParams, ParamValue, SamplePoint};
use noisegraph::gpu::{
    analytic_normal_map, analytic_normal_map_cpu, normal_map_cpu, AnalyticNormalPass, Border,
    NormalMapFormat, NormalMapOptions,
};
use noisegraph::parity::PARITY_TOLERANCE;
use noisegraph::{CompiledGraph, NoiseGraph, Plan, RunOptions, View};
use serde_json::{json, Value};

/// Every family variant with a gradient: (type, extra JSON fields, label).
fn variants() -> Vec<(&'static str, Value, String)> {
    let fades = ["linear", "cubic", "quintic"];
    let mut v = Vec::new();
    for fade in fades {
        v.push(("value", json!({ "fade": fade }), format!("value {fade}")));
        for grads in ["improved", "random"] {
            v.push((
                "perlin",
                json!({ "fade": fade, "gradients": grads }),
                format!("perlin {fade} {grads}"),
            ));
        }
    }
    v.push(("simplex", json!({}), "simplex".into()));
    v
}

/// A graph whose output is `fractal` ("none", "fbm", "ridged", "billow") over a family node.
fn graph(family: &str, extra: &Value, dims: u32, fractal: &str, seed: u32) -> NoiseGraph {
    let mut node = json!({ "id": "n", "type": family, "dims": dims, "frequency": 5, "z": 0.37 });
    for (k, v) in extra.as_object().expect("object") {
        node[k] = v.clone();
    }
    let mut nodes = vec![node];
    let output = if fractal == "none" {
        "n"
    } else {
        nodes.push(json!({ "id": "f", "type": fractal, "source": "n", "octaves": 4 }));
        "f"
    };
    NoiseGraph::from_value(&json!({ "seed": seed, "output": output, "nodes": nodes }))
        .unwrap_or_else(|e| panic!("test graph: {e}"))
}

fn options(view: &View, format: NormalMapFormat, height_scale: f32) -> NormalMapOptions {
    NormalMapOptions {
        format,
        height_scale,
        ..NormalMapOptions::for_view(view)
    }
}

/// Largest per-channel difference, NaN counted as infinite, and the fraction of pixels over
/// `tolerance`.
fn compare(a: &[[f32; 4]], b: &[[f32; 4]], tolerance: f32) -> (f32, f64) {
    assert_eq!(a.len(), b.len());
    let mut worst = 0.0f32;
    let mut over = 0usize;
    for (x, y) in a.iter().zip(b) {
        let d = x
            .iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs())
            .fold(
                0.0f32,
                |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) },
            );
        worst = worst.max(d);
        over += usize::from(d > tolerance);
    }
    (worst, over as f64 / a.len() as f64)
}

/// Ridged and billow have a kink where an octave crosses n = 0: a pixel whose n is within
/// rounding of 0 may take the slope of either side on the two paths.
const KINK_ALLOWANCE: f64 = 0.001;

/// A family's parameters: its defaults, with the choices named in `extra` applied.
fn params_of(fam: &dyn noisegraph::family::Family, extra: &Value) -> FamilyParams {
    use noisegraph::family::ParamKind;
    let mut p = FamilyParams::default();
    for spec in fam.params() {
        let v = match spec.kind {
            ParamKind::Number { default, .. } => ParamValue::Number(default),
            ParamKind::Integer { default, .. } => ParamValue::Integer(default),
            ParamKind::Choice { options, default } => {
                let name = extra
                    .get(spec.name)
                    .and_then(Value::as_str)
                    .unwrap_or(default);
                let index = options.iter().position(|o| *o == name).expect("option");
                ParamValue::Choice(index as u32)
            }
        };
        p.values.insert(spec.name.to_string(), v);
    }
    p
}

/// A deterministic spread of sample points: a Weyl sequence (fractional parts of multiples of
/// irrational numbers), so the test needs no random generator.
fn weyl(i: usize, axis: usize) -> f64 {
    const ALPHA: [f64; 3] = [
        0.754_877_666_246_692_7,
        0.569_840_290_998_053_3,
        0.438_135_6,
    ];
    ((i as f64 + 0.5) * ALPHA[axis]).fract()
}

/// The analytic derivative of every family variant against a central finite difference of
/// the plain sampler, step 1e-3 of a cell, in every axis of 2D and 3D. A stencil across a
/// crease or a jump of the field itself has no finite difference to compare with, and is
/// skipped (at most 2%): the linear fade's creases on the cell faces, recognised by the
/// stencil's forward and backward differences disagreeing, which does not involve the
/// analytic derivative. (Simplex 4D and OpenSimplex2 are checked in tests/gradient_forms.rs.)
#[test]
fn derivatives_match_finite_differences_of_the_plain_sampler() {
    const POINTS: usize = 20_000;
    const H: f32 = 1e-3;
    for (family, extra, label) in variants() {
        let fam = lookup(family).expect("family");
        let params = params_of(fam, &extra);
        for dims in [2u32, 3] {
            let uniforms = fam.uniforms(dims, &params);
            let plain = fam.cpu_sampler(dims, &params, uniforms, Arc::from(Vec::new()));
            let grad = fam
                .cpu_grad_sampler(dims, &params, uniforms, Arc::from(Vec::new()))
                .unwrap_or_else(|| panic!("{label} {dims}D has a gradient"));
            let linear = extra.get("fade").and_then(Value::as_str) == Some("linear");
            let mut errors = Vec::with_capacity(POINTS);
            let mut skipped = 0usize;
            for i in 0..POINTS {
                let mut local = [0.0f32; 4];
                for (a, l) in local.iter_mut().enumerate().take(dims as usize) {
                    *l = (weyl(i, a) * 3.0) as f32;
                }
                let point = |local: [f32; 4]| SamplePoint {
                    cell: [(i % 97) as i32 - 40, (i % 89) as i32, -((i % 83) as i32), 0],
                    local,
                    seed: 1234 + (i % 7) as u32,
                    period: [0; 4],
                };
                let g = grad(&point(local));
                let v = plain(&point(local));
                assert_eq!(
                    g.value, v,
                    "{label} {dims}D: the value is the plain sampler's"
                );
                // The linear fade's creases lie on the cell faces.
                let on_face =
                    (0..dims as usize).any(|a| (local[a] + H).floor() != (local[a] - H).floor());
                if linear && on_face {
                    skipped += 1;
                    continue;
                }
                let mut diff2 = 0.0f64;
                let mut norm2 = 0.0f64;
                let mut smooth = true;
                for a in 0..dims as usize {
                    let (mut lo, mut hi) = (local, local);
                    lo[a] -= H;
                    hi[a] += H;
                    let (f_lo, f_hi) = (plain(&point(lo)) as f64, plain(&point(hi)) as f64);
                    // The steps f32 actually took.
                    let (h_lo, h_hi) = ((local[a] - lo[a]) as f64, (hi[a] - local[a]) as f64);
                    let backward = (v as f64 - f_lo) / h_lo;
                    let forward = (f_hi - v as f64) / h_hi;
                    let scale = backward.abs().max(forward.abs()).max(1.0);
                    smooth &= (forward - backward).abs() <= 0.05 * scale;
                    let fd = (f_hi - f_lo) / (h_lo + h_hi);
                    diff2 += (g.d[a] as f64 - fd).powi(2);
                    norm2 += (g.d[a] as f64).powi(2);
                }
                if !smooth {
                    skipped += 1;
                    continue;
                }
                errors.push(diff2.sqrt() / norm2.sqrt().max(1.0));
            }
            errors.sort_by(f64::total_cmp);
            let p999 = errors[(errors.len() as f64 * 0.999) as usize - 1];
            let median = errors[errors.len() / 2];
            let skipped_fraction = skipped as f64 / POINTS as f64;
            eprintln!(
                "{label} {dims}D: relative error median {median:.1e}, p99.9 {p999:.1e}, max {:.1e} ({:.2}% of stencils skipped as non-smooth)",
                errors.last().expect("points"),
                100.0 * skipped_fraction
            );
            assert!(
                p999 < 2e-3,
                "{label} {dims}D: 99.9% of points within 2e-3 of the finite difference, but p99.9 = {p999:e}"
            );
            assert!(
                skipped_fraction <= 0.02,
                "{label} {dims}D: {skipped} of {POINTS} stencils look non-smooth"
            );
        }
    }
}

/// GPU against the CPU twin, every family variant in 2D and 3D with fBm, every fractal kind
/// over each family's default variant, and simplex 4D, in f32; then every output format once.
#[test]
fn gpu_analytic_normal_map_matches_cpu_twin() {
    let Some(ctx) = common::gpu() else { return };
    let mut cases = Vec::new();
    for (family, extra, label) in variants() {
        for dims in [2, 3] {
            cases.push((family, extra.clone(), label.clone(), dims, "fbm"));
        }
    }
    for family in ["value", "perlin", "simplex"] {
        for dims in [2, 3] {
            for fractal in ["none", "ridged", "billow"] {
                cases.push((family, json!({}), family.to_string(), dims, fractal));
            }
        }
    }
    // Simplex 4D (continuous falloff) has a gradient too.
    cases.push(("simplex", json!({}), "simplex".into(), 4, "fbm"));
    let (mut worst_all, mut kinked) = (0.0f32, 0usize);
    for (i, (family, extra, label, dims, fractal)) in cases.iter().enumerate() {
        let seed = common::PARITY_SEEDS[i % common::PARITY_SEEDS.len()];
        let g = graph(family, extra, *dims, fractal, seed);
        let [w, h] = common::PARITY_SIZES[i % common::PARITY_SIZES.len()];
        // An origin off every half cell: a row along an exact zero line of an octave would
        // put a whole row on the ridged / billow kink.
        let view = View::image(w, h).with_origin([-3.21, 7.13, 0.0]);
        let opts = options(&view, NormalMapFormat::Rgba32Float, 0.02);
        let gpu = analytic_normal_map(&ctx, &g, None, view, opts).expect("gpu");
        let cpu = analytic_normal_map_cpu(&g, None, &view, &opts).expect("cpu");
        let (worst, over) = compare(&gpu, &cpu, PARITY_TOLERANCE);
        let allowance = if matches!(*fractal, "ridged" | "billow") {
            KINK_ALLOWANCE
        } else {
            0.0
        };
        assert!(
            over <= allowance && worst.is_finite(),
            "{label} {dims}D {fractal} {w}x{h}: max |gpu - cpu| = {worst:e}, {over} of pixels over {PARITY_TOLERANCE}"
        );
        if over == 0.0 {
            worst_all = worst_all.max(worst);
        } else {
            kinked += 1;
        }
    }
    eprintln!(
        "analytic normal map parity over {} cases: max |gpu - cpu| = {worst_all:e} ({kinked} cases used the kink allowance)",
        cases.len()
    );
    let g = graph("perlin", &json!({}), 2, "fbm", 5);
    let view = View::image(129, 67);
    for format in NormalMapFormat::ALL {
        let opts = options(&view, format, 0.02);
        let gpu = analytic_normal_map(&ctx, &g, None, view, opts).expect("gpu");
        let cpu = analytic_normal_map_cpu(&g, None, &view, &opts).expect("cpu");
        let tolerance = match format {
            NormalMapFormat::Rgba32Float => PARITY_TOLERANCE,
            NormalMapFormat::Rgba16Float => 1e-3,
            NormalMapFormat::Rgba8Unorm => 0.5 / 255.0 + 1e-4,
        };
        let (worst, over) = compare(&gpu, &cpu, tolerance);
        assert_eq!(over, 0.0, "{format:?}: max |gpu - cpu| = {worst:e}");
    }
}

/// The angle in degrees between two encoded (signed) normals.
fn angle_degrees(a: &[f32; 4], b: &[f32; 4]) -> f64 {
    let dot: f64 = (0..3).map(|c| a[c] as f64 * b[c] as f64).sum();
    let la: f64 = (0..3).map(|c| (a[c] as f64).powi(2)).sum::<f64>().sqrt();
    let lb: f64 = (0..3).map(|c| (b[c] as f64).powi(2)).sum::<f64>().sqrt();
    (dot / (la * lb)).clamp(-1.0, 1.0).acos().to_degrees()
}

/// Mean, median and largest angle between two normal maps, away from the one-pixel border
/// where central differences are one-sided.
fn angles(a: &[[f32; 4]], b: &[[f32; 4]], [w, h]: [u32; 2]) -> (f64, f64, f64) {
    let mut all = Vec::new();
    for y in 1..h - 1 {
        for x in 1..w - 1 {
            let i = (y * w + x) as usize;
            all.push(angle_degrees(&a[i], &b[i]));
        }
    }
    all.sort_by(f64::total_cmp);
    let mean = all.iter().sum::<f64>() / all.len() as f64;
    (mean, all[all.len() / 2], *all.last().expect("pixels"))
}

/// On a finely sampled field the analytic normals and central differences of the baked
/// field describe the same surface: the angle between them is small, and for smooth fields
/// it falls about 4 times when the resolution doubles (central differences are second
/// order), which a wrong derivative would not do. Ridged and billow: see below.
#[test]
fn analytic_normals_agree_with_central_differences() {
    for (family, extra, fractal) in [
        ("perlin", json!({}), "fbm"),
        ("value", json!({ "fade": "cubic" }), "fbm"),
        ("simplex", json!({}), "fbm"),
        ("perlin", json!({ "gradients": "random" }), "ridged"),
        ("simplex", json!({}), "billow"),
    ] {
        let mut g = graph(family, &extra, 2, fractal, 11);
        let mut value = g.to_json();
        value["nodes"][0]["frequency"] = json!(2);
        g = NoiseGraph::from_value(&value).expect("graph");
        let (mut means, mut medians) = (Vec::new(), Vec::new());
        for size in [256u32, 512] {
            let view = View::image(size, size);
            let opts = options(&view, NormalMapFormat::Rgba32Float, 0.05);
            let analytic = analytic_normal_map_cpu(&g, None, &view, &opts).expect("analytic");
            let plan = Plan::new(&g, None).expect("plan");
            let field = run_cpu(&plan, &view, &RunOptions::default()).expect("field");
            let central = normal_map_cpu(&field, &opts).expect("central");
            let (mean, median, max) = angles(&analytic, &central, [size, size]);
            eprintln!(
                "{family} {fractal} {size}x{size} (finest octave {} px per cell): angle mean {mean:.4} deg, median {median:.4} deg, max {max:.3} deg",
                size / 16
            );
            means.push(mean);
            medians.push(median);
        }
        let ratio = means[1] / means[0];
        if fractal == "fbm" {
            assert!(
                means[1] < 0.1,
                "{family} {fractal}: mean angle {} deg",
                means[1]
            );
            assert!(
                ratio < 0.35,
                "{family} {fractal}: error ratio {ratio} when doubling the resolution"
            );
        } else {
            // Central differences round the creases off over a pixel or two: there the
            // normals differ, so the mean falls only with the creases' share of pixels
            // (halving with the pixel size), while away from them (the median) they agree.
            assert!(
                means[1] < 3.0,
                "{family} {fractal}: mean angle {} deg",
                means[1]
            );
            assert!(ratio < 0.6, "{family} {fractal}: error ratio {ratio}");
            assert!(
                medians[1] < 0.25,
                "{family} {fractal}: median angle {} deg",
                medians[1]
            );
        }
    }
}

/// The `w` channel is the field itself: the value the plain stage computes, bit for bit on
/// the CPU and within parity on the GPU.
#[test]
fn height_channel_is_the_plain_field() {
    let view = View::image(129, 67).with_origin([1.5, -2.0, 0.0]);
    for (family, extra, label) in variants() {
        for (dims, fractal) in [(2, "fbm"), (3, "ridged"), (2, "billow"), (3, "none")] {
            let g = graph(family, &extra, dims, fractal, 77);
            let opts = options(&view, NormalMapFormat::Rgba32Float, 1.0);
            let normals = analytic_normal_map_cpu(&g, None, &view, &opts).expect("analytic");
            let field = run_cpu(
                &Plan::new(&g, None).expect("plan"),
                &view,
                &Default::default(),
            )
            .expect("field");
            for (i, (n, v)) in normals.iter().zip(&field.data).enumerate() {
                assert_eq!(n[3], *v, "{label} {dims}D {fractal}: pixel {i}");
            }
        }
    }
    let Some(ctx) = common::gpu() else { return };
    for (family, extra, label) in variants() {
        let g = graph(family, &extra, 3, "fbm", 78);
        let opts = options(&view, NormalMapFormat::Rgba32Float, 1.0);
        let normals = analytic_normal_map(&ctx, &g, None, view, opts).expect("analytic");
        let mut noise = CompiledGraph::new(&ctx, &g, None, view).expect("compile");
        let target = noise.create_target();
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        noise.record(&mut encoder, &target).expect("record");
        ctx.queue().submit(Some(encoder.finish()));
        let field = noise.read_target(&target).expect("field");
        let worst = normals
            .iter()
            .zip(&field.data)
            .map(|(n, v)| (n[3] - v).abs())
            .fold(0.0f32, f32::max);
        assert!(
            worst <= PARITY_TOLERANCE,
            "{label}: max |w - field| = {worst:e}"
        );
    }
}

/// Time, seed, origin and height scale change through uniforms: the recorded pass then
/// equals the CPU map of the changed graph, with no new pipeline.
#[test]
fn per_frame_changes_follow_the_graph() {
    let Some(shared) = common::gpu() else { return };
    let ctx = Arc::new(noisegraph::GpuContext::from_device(
        shared.device().clone(),
        shared.queue().clone(),
    ));
    let g = graph("perlin", &json!({}), 3, "fbm", 5);
    let view = View::image(64, 48);
    let opts = options(&view, NormalMapFormat::Rgba32Float, 0.02);
    let mut pass = AnalyticNormalPass::new(&ctx, &g, None, view, opts).expect("pass");
    let out = pass.create_output();
    let created = ctx.pipeline_creations();
    pass.set_time(0.25).expect("time");
    pass.set_seed(99).expect("seed");
    pass.set_origin([10.0, -4.0, 0.0]).expect("origin");
    pass.set_height_scale(0.04).expect("scale");
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    pass.record(&mut encoder, &out).expect("record");
    ctx.queue().submit(Some(encoder.finish()));
    let gpu = pass.read_output(&out).expect("read");
    assert_eq!(ctx.pipeline_creations(), created, "no pipeline per frame");

    let mut moved = g.clone();
    moved.seed = 99;
    let mut value = moved.to_json();
    value["nodes"][0]["z"] = json!(0.37 + 0.25);
    let moved = NoiseGraph::from_value(&value).expect("moved graph");
    let view = view.with_origin([10.0, -4.0, 0.0]);
    let cpu = analytic_normal_map_cpu(
        &moved,
        None,
        &view,
        &options(&view, NormalMapFormat::Rgba32Float, 0.04),
    )
    .expect("cpu");
    let (worst, over) = compare(&gpu, &cpu, PARITY_TOLERANCE);
    assert_eq!(over, 0.0, "max |gpu - cpu| = {worst:e}");
    assert!(pass.set_time(f64::NAN).is_err());
    assert!(pass.set_origin([0.0, f64::INFINITY, 0.0]).is_err());
    assert!(pass.set_height_scale(f32::NAN).is_err());
}

fn assert_refused(g: &NoiseGraph, node: Option<&str>, names: &str, reason: &str) {
    let view = View::image(16, 16);
    let opts = NormalMapOptions::for_view(&view);
    let message = analytic_normal_map_cpu(g, node, &view, &opts)
        .expect_err("refused")
        .to_string();
    for part in [format!("'{names}'").as_str(), reason, "central differences"] {
        assert!(message.contains(part), "'{part}' missing from: {message}");
    }
    if let Some(ctx) = common::gpu() {
        let gpu = AnalyticNormalPass::new(&ctx, g, node, view, opts)
            .err()
            .expect("refused on the GPU too")
            .to_string();
        assert_eq!(gpu, message);
    }
}

/// Warps (of warps, with fused and materialized displacements) and point-wise nodes have an
/// analytic normal map; nodes sampling a family, or a variant, without a gradient form
/// (simplex's classic falloff) are refused before anything is recorded, each error naming
/// the node; a volume view is refused too.
#[test]
fn only_nodes_without_an_analytic_gradient_are_refused_by_name() {
    let g = NoiseGraph::from_value(&json!({ "seed": 1, "output": "warped", "nodes": [
        { "id": "base", "type": "perlin", "frequency": 4 },
        { "id": "dx", "type": "simplex", "frequency": 2 },
        { "id": "dy", "type": "simplex", "frequency": 2, "seed_offset": 1 },
        { "id": "warped", "type": "warp", "source": "base", "displace": ["dx", "dy"], "amplitude": 0.1 },
        { "id": "sum", "type": "add", "inputs": ["base", "dx"] },
        { "id": "twice", "type": "warp", "source": "base", "displace": ["warped", "sum"], "amplitude": 0.05 },
        { "id": "cells", "type": "cellular", "frequency": 4 },
        { "id": "cells_fbm", "type": "fbm", "source": "cells", "octaves": 3 },
        { "id": "waves", "type": "wave", "frequency": 4 },
        { "id": "waves_fbm", "type": "fbm", "source": "waves", "octaves": 3 },
        { "id": "s4", "type": "simplex", "dims": 4, "frequency": 4, "falloff": "classic" }
    ]}))
    .expect("graph");
    let view = View::image(8, 8);
    let opts = NormalMapOptions::for_view(&view);
    for ok in [
        "base",
        "dx",
        "warped",
        "sum",
        "twice",
        "cells",
        "cells_fbm",
        "waves",
        "waves_fbm",
    ] {
        let normals = analytic_normal_map_cpu(&g, Some(ok), &view, &opts)
            .unwrap_or_else(|e| panic!("{ok}: {e}"));
        assert!(normals.iter().flatten().all(|v| v.is_finite()), "{ok}");
    }
    // Simplex's classic falloff jumps: never differentiable.
    assert_refused(&g, Some("s4"), "s4", "falloff 'classic'");
    let volume = View::volume(8, 8, 4);
    let three_d = graph("perlin", &json!({}), 3, "fbm", 1);
    let err = analytic_normal_map_cpu(&three_d, None, &volume, &opts).expect_err("volume");
    assert!(err.to_string().contains("2D"), "{err}");
    // Options are checked like the central-difference pass's.
    let bad = NormalMapOptions {
        spacing: [0.0, 1.0],
        border: Border::Wrap,
        ..opts
    };
    assert!(analytic_normal_map_cpu(&g, Some("base"), &view, &bad).is_err());
}

fn tool() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_noisegraph"))
}

/// A `(height, width, 4)` float32 npy file as pixels.
fn read_rgba_npy(path: &std::path::Path) -> Vec<[f32; 4]> {
    let bytes = std::fs::read(path).expect("npy file");
    let header = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let text = String::from_utf8_lossy(&bytes[10..10 + header]);
    assert!(text.contains(", 4)"), "shape (H, W, 4): {text}");
    bytes[10 + header..]
        .chunks_exact(16)
        .map(|p| {
            std::array::from_fn(|c| f32::from_le_bytes(p[c * 4..c * 4 + 4].try_into().unwrap()))
        })
        .collect()
}

/// `noisegraph bake --normal-map analytic|central` writes what the library computes, for
/// warps and point-wise nodes too, and refuses an analytic map of a node that cannot be
/// differentiated with exit code 2, naming the node.
#[test]
fn cli_bakes_analytic_and_central_normal_maps() {
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("analytic_cli");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let text = json!({ "seed": 4, "output": "f", "nodes": [
        { "id": "n", "type": "simplex", "dims": 3, "frequency": 3 },
        { "id": "f", "type": "ridged", "source": "n", "octaves": 3 },
        { "id": "d", "type": "perlin", "frequency": 2 },
        { "id": "w", "type": "warp", "source": "f", "displace": ["d", "d", "d"], "amplitude": 0.1 },
        { "id": "m", "type": "mul", "inputs": ["f", "d"] }
    ]});
    let graph_path = dir.join("g.json");
    std::fs::write(&graph_path, text.to_string()).expect("graph");
    let g = NoiseGraph::from_value(&text).expect("graph");
    let view = View::image(48, 40);
    let opts = options(&view, NormalMapFormat::Rgba32Float, 0.1);
    let bake = |mode: &str, node: &str, out: &str, backend: &str| {
        tool()
            .args(["bake", graph_path.to_str().unwrap(), "-o"])
            .arg(dir.join(out))
            .args(["--normal-map", mode, "--node", node, "--size", "48x40"])
            .args(["--height-scale", "0.1", "--backend", backend])
            .output()
            .expect("run noisegraph")
    };
    let run = bake("analytic", "f", "a.npy", "cpu");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let expected = analytic_normal_map_cpu(&g, Some("f"), &view, &opts).expect("analytic");
    assert_eq!(read_rgba_npy(&dir.join("a.npy")), expected);

    let run = bake("central", "w", "c.npy", "cpu");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let field = run_cpu(
        &Plan::new(&g, Some("w")).unwrap(),
        &view,
        &Default::default(),
    )
    .unwrap();
    assert_eq!(
        read_rgba_npy(&dir.join("c.npy")),
        normal_map_cpu(&field, &opts).expect("central")
    );

    let run = bake("analytic", "f", "a.png", "auto");
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let png = image::open(dir.join("a.png")).expect("png");
    assert_eq!((png.width(), png.height()), (48, 40));
    assert_eq!(png.color(), image::ColorType::Rgb8);

    // Warps and point-wise nodes differentiate too.
    for node in ["w", "m"] {
        let out = format!("{node}.npy");
        let run = bake("analytic", node, &out, "cpu");
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let expected = analytic_normal_map_cpu(&g, Some(node), &view, &opts).expect("analytic");
        assert_eq!(read_rgba_npy(&dir.join(&out)), expected, "{node}");
    }
    // A variant without a gradient form (simplex's classic falloff jumps) is refused by name.
    let text = json!({ "seed": 4, "output": "c", "nodes": [
        { "id": "c", "type": "simplex", "dims": 3, "frequency": 3, "falloff": "classic" }
    ]});
    let classic = dir.join("classic.json");
    std::fs::write(&classic, text.to_string()).expect("graph");
    let run = tool()
        .args(["bake", classic.to_str().unwrap(), "-o"])
        .arg(dir.join("c.png"))
        .args(["--normal-map", "analytic", "--size", "16x16"])
        .output()
        .expect("run noisegraph");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    for part in ["node 'c'", "falloff 'classic'", "--normal-map central"] {
        assert!(stderr.contains(part), "'{part}' missing from: {stderr}");
    }
    assert!(
        !dir.join("c.png").exists(),
        "nothing written for a refused bake"
    );
    let run = bake("sobel", "f", "x.png", "cpu");
    assert_eq!(run.status.code(), Some(2));
}

/// A family has a WGSL gradient exactly where it has a CPU one: value and Perlin in 2D and
/// 3D, simplex and OpenSimplex2 (both variants) in every dims, except simplex's classic
/// falloff in 3D and 4D, which jumps; cellular, gabor, phasor, wave and wavelet in every dims
/// they have.
#[test]
fn gradient_variants_come_in_twins() {
    let mut cases = Vec::new();
    for fam in noisegraph::family::registry() {
        cases.push((*fam, json!({})));
    }
    let os2 = lookup("opensimplex2").expect("family");
    cases.push((os2, json!({ "variant": "smooth" })));
    let simplex = lookup("simplex").expect("family");
    cases.push((simplex, json!({ "falloff": "classic" })));
    for (fam, extra) in cases {
        for &dims in fam.dims() {
            let params = params_of(fam, &extra);
            let wgsl = fam.wgsl_grad_call(dims, &params).is_some();
            let cpu = fam
                .cpu_grad_sampler(
                    dims,
                    &params,
                    fam.uniforms(dims, &params),
                    Arc::from(Vec::new()),
                )
                .is_some();
            assert_eq!(wgsl, cpu, "{} {extra} {dims}D", fam.name());
            let classic = extra.get("falloff").is_some() && dims >= 3;
            let expected = match fam.name() {
                "value" | "perlin" => dims <= 3,
                "simplex" => !classic,
                "opensimplex2" => true,
                "cellular" | "gabor" | "phasor" | "wave" | "wavelet" => true,
                _ => false,
            };
            assert_eq!(wgsl, expected, "{} {extra} {dims}D", fam.name());
        }
    }
}

/// A tile of a view gets exactly the normals of the same pixels of the whole view (the
/// lattice split and the step are the whole view's), on both paths.
#[test]
fn tiles_match_the_whole_view() {
    let g = graph("perlin", &json!({ "fade": "cubic" }), 2, "ridged", 21);
    let whole = View::image(96, 80).with_origin([3.3, -1.7, 0.0]);
    let opts = options(&whole, NormalMapFormat::Rgba32Float, 0.05);
    let full = analytic_normal_map_cpu(&g, None, &whole, &opts).expect("whole");
    let (offset, size) = ([40, 24, 0], [33, 29, 1]);
    let tile = whole.tile(offset, size);
    let part = analytic_normal_map_cpu(&g, None, &tile, &opts).expect("tile");
    for y in 0..size[1] {
        for x in 0..size[0] {
            let t = part[(y * size[0] + x) as usize];
            let f = full[((y + offset[1]) * 96 + x + offset[0]) as usize];
            assert_eq!(t, f, "tile pixel ({x}, {y})");
        }
    }
    let Some(ctx) = common::gpu() else { return };
    let gpu = analytic_normal_map(&ctx, &g, None, tile, opts).expect("gpu tile");
    let (worst, over) = compare(&gpu, &part, PARITY_TOLERANCE);
    assert!(over <= KINK_ALLOWANCE, "max |gpu - cpu| = {worst:e}");
}
