//! The GPU bench's operation counts (benches/gpu/ops.rs, cost.rs): the counting rules on
//! small kernels, and the counts of the engine's own kernels.

#[allow(dead_code)] // point_cost: the bench's
#[path = "../benches/gpu/cost.rs"]
mod cost;
#[path = "../benches/gpu/ops.rs"]
mod ops;

use noisegraph::gpu::RunOptions;
use noisegraph::{FieldForm, NoiseGraph, Plan, View};
use ops::count_entry_point;

fn kernel(body: &str) -> String {
    format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<f32>;\n\
         @group(0) @binding(1) var<uniform> n: u32;\n\
         fn twice(x: f32) -> f32 {{ return x * 2.0 + 1.0; }}\n\
         @compute @workgroup_size(64)\n\
         fn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n\
             var acc = out[id.x];\n{body}\n    out[id.x] = acc;\n}}\n"
    )
}

#[test]
fn a_constant_loop_counts_its_body_per_trip() {
    let c = count_entry_point(&kernel(
        "for (var i = 0; i < 4; i++) { acc = acc * 1.5 + 1.0; }\n\
         for (var j = -1; j <= 1; j++) { acc = acc - 0.5; }",
    ))
    .unwrap();
    assert_eq!(c.float, 4.0 * 2.0 + 3.0);
    // The counters' compares and increments.
    assert_eq!(c.int, 4.0 * 2.0 + 3.0 * 2.0);
    assert!(!c.lower_bound);
}

#[test]
fn a_loop_bound_read_from_a_uniform_is_a_lower_bound() {
    let c =
        count_entry_point(&kernel("for (var i = 0u; i < n; i++) { acc = acc * 1.5; }")).unwrap();
    assert_eq!(c.float, 1.0);
    assert!(c.lower_bound);
    let exit = count_entry_point(&kernel(
        "for (var i = 0; i < 8; i++) { acc = acc * 1.5; if (acc > 4.0) { break; } }",
    ))
    .unwrap();
    assert!(exit.lower_bound, "a data-dependent break: counted once");
    assert_eq!(exit.float, 2.0);
}

#[test]
fn vectors_calls_and_branches() {
    let vector = count_entry_point(&kernel(
        "let v = vec4<f32>(acc) * vec4<f32>(1.0, 2.0, 3.0, 4.0) + 1.0; acc = dot(v, v);",
    ))
    .unwrap();
    assert_eq!(vector.float, 4.0 + 4.0 + 7.0);
    let calls = count_entry_point(&kernel("acc = twice(twice(acc));")).unwrap();
    assert_eq!(calls.float, 4.0);
    let branch = count_entry_point(&kernel(
        "if (acc > 0.0) { acc = acc * 2.0; } else { acc = acc * 2.0 + acc * 3.0 + 1.0; }",
    ))
    .unwrap();
    assert_eq!(branch.float, 1.0 + 4.0, "the compare and the larger side");
    let constant = count_entry_point(
        &kernel("if (FLAG) { acc = acc * 2.0; } else { acc = acc * 2.0 + acc * 3.0 + 1.0; }")
            .replace("fn twice", "const FLAG: bool = true;\nfn twice"),
    )
    .unwrap();
    assert_eq!(constant.float, 1.0, "a constant condition: the side taken");
}

#[test]
fn engine_kernels_count_per_octave_and_per_form() {
    let fbm = |octaves: u32| {
        let fractal = if octaves > 1 {
            format!(r#", {{"id": "f", "type": "fbm", "source": "n", "octaves": {octaves}}}"#)
        } else {
            String::new()
        };
        let output = if octaves > 1 { "f" } else { "n" };
        NoiseGraph::from_json(&format!(
            r#"{{"seed": 1, "output": "{output}", "nodes": [{{"id": "n", "type": "perlin", "frequency": 8}}{fractal}]}}"#
        ))
        .unwrap()
    };
    let view = View::image(64, 64);
    let cost = |graph: &NoiseGraph, form| {
        let plan = Plan::new(graph, None).unwrap();
        cost::plan_cost(&plan, &view, &RunOptions::default(), form).unwrap()
    };
    let one = cost(&fbm(1), FieldForm::Value);
    let eight = cost(&fbm(8), FieldForm::Value);
    assert!(one.ops.float > 10.0, "{one:?}");
    assert!(
        !eight.ops.lower_bound,
        "Perlin fBm has no data-dependent loop: {eight:?}"
    );
    let ratio = eight.ops.total() / one.ops.total();
    assert!(
        (6.0..9.0).contains(&ratio),
        "8 octaves / 1 octave = {ratio}"
    );
    assert_eq!(eight.bytes_written, 4.0);
    let gradient = cost(&fbm(8), FieldForm::Gradient);
    assert!(gradient.ops.float > 1.5 * eight.ops.float, "{gradient:?}");
    assert_eq!(gradient.bytes_written, 16.0);
    // Octaves split across passes: each pass stores, each later one reads the partial sum.
    let plan = Plan::new(&fbm(8), None).unwrap();
    let split = RunOptions {
        octave_budget: 2 * view.pixel_count(),
        ..RunOptions::default()
    };
    let split = cost::plan_cost(&plan, &view, &split, FieldForm::Value).unwrap();
    assert_eq!((split.bytes_written, split.bytes_read), (16.0, 12.0));
    assert_eq!(split.ops, eight.ops);
}

#[test]
fn nested_constant_loops_multiply() {
    // The inner counter is declared inside the outer loop: naga sets it with a store.
    let c = count_entry_point(&kernel(
        "for (var a = 0; a < 3; a++) { for (var b = 0; b < 2; b++) { acc = acc * 1.5; } }",
    ))
    .unwrap();
    assert_eq!(c.float, 6.0);
    assert!(!c.lower_bound);
    // Cellular's 3x3 (and outer-ring) cell loops are such loops.
    let g = NoiseGraph::from_json(
        r#"{"seed": 1, "output": "n", "nodes": [{"id": "n", "type": "cellular", "frequency": 8}]}"#,
    )
    .unwrap();
    let plan = Plan::new(&g, None).unwrap();
    let view = View::image(8, 8);
    let cellular = cost::plan_cost(&plan, &view, &RunOptions::default(), FieldForm::Value).unwrap();
    assert!(!cellular.ops.lower_bound, "{cellular:?}");
    assert!(cellular.ops.float > 9.0 * 20.0, "{cellular:?}");
}
