//! Every embedded preset parses, plans and bakes to a finite, non-constant field.

use noisegraph::presets::{self, PRESETS};
use noisegraph::{engine::run_cpu, Plan, RunOptions, View};

#[test]
fn every_preset_bakes_to_a_varied_finite_field() {
    assert!(PRESETS.len() >= 6);
    for preset in PRESETS {
        let graph = presets::graph(preset.name).unwrap_or_else(|e| panic!("{}: {e}", preset.name));
        let plan = Plan::new(&graph, None).unwrap();
        let field = run_cpu(&plan, &View::image(48, 40), &RunOptions::default()).unwrap();
        assert!(field.data.iter().all(|v| v.is_finite()), "{}", preset.name);
        let (lo, hi) = field.min_max().unwrap();
        assert!(
            hi - lo > 0.05,
            "{}: nearly constant ({lo}..{hi})",
            preset.name
        );
        let (rlo, rhi) = graph.range_of(&graph.output);
        assert!(
            lo >= rlo - 1e-3 && hi <= rhi + 1e-3,
            "{}: {lo}..{hi} outside its documented range {rlo}..{rhi}",
            preset.name
        );
    }
}

#[test]
fn unknown_preset_names_the_known_ones() {
    let err = presets::graph("no-such").err().unwrap().to_string();
    assert!(err.contains("terrain") && err.contains("no-such"), "{err}");
}
