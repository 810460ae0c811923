//! GPU vs CPU parity for Gabor, phasor, wave and wavelet noise: every dims and choice, plus
//! far-away origins and volumes.

mod common;
use common::*;
use noisegraph::graph::StageKind;
use noisegraph::View;
use serde_json::json;

#[test]
fn gabor_parity() {
    for dims in [2, 3] {
        for orientation in ["anisotropic", "isotropic"] {
            assert_parity_node(
                json!({"type": "gabor", "frequency": 6.3, "dims": dims, "z": 0.41, "f0": 1.7,
                       "bandwidth": 1.3, "impulses": 6.0, "orientation": orientation, "angle": 25.0,
                       "elevation": 20.0}),
                &format!("gabor {dims}D {orientation}"),
            );
        }
    }
}

#[test]
fn gabor_tiles_with_a_period() {
    assert_parity_node(
        json!({"type": "gabor", "frequency": 4.0, "period": 4, "impulses": 6.0}),
        "gabor period 4",
    );
}

#[test]
fn phasor_parity() {
    for dims in [2, 3] {
        for (i, profile) in ["sine", "triangle", "sawtooth", "square"]
            .iter()
            .enumerate()
        {
            let orientation = if i % 2 == 0 {
                "anisotropic"
            } else {
                "isotropic"
            };
            assert_parity_node(
                json!({"type": "phasor", "frequency": 5.1, "dims": dims, "z": 0.23, "f0": 2.2,
                       "bandwidth": 1.1, "impulses": 5.0, "orientation": orientation,
                       "angle": -40.0, "profile": profile}),
                &format!("phasor {dims}D {profile} {orientation}"),
            );
        }
    }
}

#[test]
fn wave_parity() {
    for dims in [2, 3] {
        for (i, profile) in ["none", "sine", "triangle", "sawtooth", "square"]
            .iter()
            .enumerate()
        {
            let orientation = if i % 2 == 0 {
                "isotropic"
            } else {
                "directional"
            };
            assert_parity_node(
                json!({"type": "wave", "frequency": 3.0, "dims": dims, "z": 0.7, "waves": 48,
                       "f_min": 2.0, "f_max": 9.0, "exponent": 1.5, "orientation": orientation,
                       "angle": 60.0, "spread": 20.0, "elevation": 10.0, "profile": profile}),
                &format!("wave {dims}D {profile} {orientation}"),
            );
        }
    }
}

#[test]
fn wavelet_parity() {
    for dims in [2, 3] {
        assert_parity_node(
            json!({"type": "wavelet", "frequency": 13.7, "dims": dims, "z": 0.37, "tile": 32}),
            &format!("wavelet {dims}D"),
        );
    }
}

/// Far from the origin (and with octaves, whose seeds shift the wave and wavelet tables)
/// the two paths still agree.
#[test]
fn far_origins_and_octaves() {
    let Some(ctx) = gpu() else { return };
    for family in [
        json!({"type": "gabor", "impulses": 4.0}),
        json!({"type": "phasor", "impulses": 4.0, "profile": "triangle"}),
        json!({"type": "wave", "waves": 32}),
        json!({"type": "wavelet", "tile": 64}),
    ] {
        let name = family["type"].as_str().unwrap().to_string();
        let mut source = family.clone();
        source["id"] = json!("base");
        source["frequency"] = json!(4.0);
        let graph = noisegraph::NoiseGraph::from_value(&json!({
            "seed": 7, "output": "fbm",
            "nodes": [source, {"id": "fbm", "type": "fbm", "source": "base", "octaves": 3}]
        }))
        .expect("graph");
        let view = View::image(67, 45).with_origin([1.0e6, -2.5e7, 0.0]);
        assert_parity_view(&ctx, &graph, &view, &format!("{name} far fbm"));
    }
}

#[test]
fn volume_parity() {
    let Some(ctx) = gpu() else { return };
    for family in [
        json!({"type": "gabor", "dims": 3, "frequency": 3.0, "impulses": 4.0, "orientation": "isotropic"}),
        json!({"type": "phasor", "dims": 3, "frequency": 3.0, "impulses": 4.0}),
        json!({"type": "wave", "dims": 3, "frequency": 2.0, "waves": 40}),
        json!({"type": "wavelet", "dims": 3, "frequency": 9.0, "tile": 16}),
    ] {
        let name = family["type"].as_str().unwrap().to_string();
        let graph = single_node(99, family);
        assert_parity_view(
            &ctx,
            &graph,
            &View::volume(17, 9, 5),
            &format!("{name} volume"),
        );
    }
}

/// The phase-based outputs may differ at a few pixels (profile jumps, singular points of the
/// phase): the fraction stays well under the documented allowance of 0.001.
#[test]
fn phase_discontinuities_stay_rare() {
    let Some(ctx) = gpu() else { return };
    for node in [
        json!({"type": "phasor", "frequency": 12.0, "impulses": 6.0, "profile": "square"}),
        json!({"type": "phasor", "frequency": 12.0, "impulses": 6.0, "profile": "sawtooth", "orientation": "isotropic"}),
        json!({"type": "phasor", "frequency": 12.0, "impulses": 6.0, "profile": "sine", "orientation": "isotropic"}),
        json!({"type": "wave", "frequency": 2.0, "waves": 64, "profile": "square"}),
    ] {
        let label = format!(
            "{} {}",
            node["type"].as_str().unwrap(),
            node["profile"].as_str().unwrap()
        );
        let plan = noisegraph::Plan::new(&single_node(17, node), None).expect("plan");
        let stages =
            noisegraph::parity::run_parity(&ctx, &plan, &View::image(256, 128)).expect("parity");
        let s = &stages[0];
        eprintln!(
            "{label}: {} of {} pixels over tolerance ({:.2e}), max |gpu - cpu| {:e}",
            s.over,
            s.total,
            s.fraction_over(),
            s.max_abs
        );
        assert!(s.passed(), "{label}: {} pixels over tolerance", s.over);
        assert!(
            s.fraction_over() <= 0.25 * s.allowed_fraction,
            "{label}: {}",
            s.fraction_over()
        );
    }
}

/// Sine and triangle phasor (and wave) profiles are continuous but at singular points, where
/// the complex sum vanishes and its phase is ill-conditioned. Both paths evaluate the same
/// arithmetic there (the envelope's exp is the CPU twin's polynomial on the GPU too), so they
/// hold the 1e-4 tolerance on every pixel with no allowance; only the jumping profiles
/// (sawtooth, square) keep one. The reported case (issue 18): seed 6, frequency 6.1, f0 2.4,
/// isotropic, 8 impulses, 129x67 had one pixel at 1.45e-4 while the kernel used the driver's
/// exp.
#[test]
fn continuous_phase_profiles_hold_the_tolerance_at_singular_points() {
    use noisegraph::family::lookup;
    let Some(ctx) = gpu() else { return };
    for seed in [6, 0, 1337] {
        for dims in [2, 3] {
            for profile in ["sine", "triangle"] {
                let node = json!({"type": "phasor", "dims": dims, "frequency": 6.1, "f0": 2.4,
                                  "orientation": "isotropic", "impulses": 8.0, "profile": profile});
                let label = format!("phasor {profile} {dims}D seed {seed}");
                let plan = noisegraph::Plan::new(&single_node(seed, node), None).expect("plan");
                let stages = noisegraph::parity::run_parity(&ctx, &plan, &View::image(129, 67))
                    .expect("parity");
                let s = &stages[0];
                assert_eq!(s.allowed_fraction, 0.0, "{label}: no allowance");
                assert_eq!(
                    s.over, 0,
                    "{label}: max |gpu - cpu| = {:e}, {} pixels over",
                    s.max_abs, s.over
                );
            }
        }
    }
    // The contract as the code states it: an allowance for the jumping profiles only.
    let phasor = lookup("phasor").expect("phasor");
    let wave = lookup("wave").expect("wave");
    for profile in ["none", "sine", "triangle", "sawtooth", "square"] {
        let jumps = matches!(profile, "sawtooth" | "square");
        for family in [phasor, wave] {
            // Phasor noise has no `none` profile.
            if profile == "none" && family.name() == "phasor" {
                continue;
            }
            let node = json!({"type": family.name(), "profile": profile});
            let plan = noisegraph::Plan::new(&single_node(1, node), None).expect("plan");
            let StageKind::Generate(g) = &plan.stages[0].kind else {
                panic!("a family stage")
            };
            let allowance = family.discontinuity_allowance(2, &g.source.params);
            assert_eq!(
                allowance > 0.0,
                jumps,
                "{} {profile}: allowance {allowance}",
                family.name()
            );
        }
    }
}

/// Mean |difference| between horizontal neighbours.
fn roughness(f: &noisegraph::Field) -> f64 {
    let w = f.width as usize;
    let mut sum = 0.0;
    let mut n = 0usize;
    for row in f.data.chunks(w) {
        for pair in row.windows(2) {
            sum += (pair[1] - pair[0]).abs() as f64;
            n += 1;
        }
    }
    sum / n as f64
}

/// The lattice split (and, for wave noise, the exact fixed-point phase of the lattice offset)
/// keeps a tile a billion units away as clean as one at the origin.
#[test]
fn far_tiles_are_as_clean_as_near_ones() {
    for node in [
        json!({"type": "gabor", "frequency": 8.0, "impulses": 4.0}),
        json!({"type": "phasor", "frequency": 8.0, "impulses": 4.0}),
        json!({"type": "wave", "frequency": 8.0}),
        json!({"type": "wavelet", "frequency": 16.0}),
    ] {
        let label = node["type"].as_str().unwrap().to_string();
        let graph = single_node(3, node);
        let near = roughness(&cpu_field(&graph, &View::image(128, 64)));
        let far = roughness(&cpu_field(
            &graph,
            &View::image(128, 64).with_origin([1.0e9, -3.0e8, 0.0]),
        ));
        assert!(
            far.is_finite() && (far / near - 1.0).abs() < 0.3,
            "{label}: neighbour difference {far} far away vs {near} near"
        );
    }
}
