//! WGSL export: every family, the example graphs and the presets export to modules that naga
//! validates alone, pasted into a user's shader full of common names, and two at once; every
//! name they define carries the prefix.

mod common;
use common::catalog;

use noisegraph::export::wgsl::{export_wgsl, module_names, WgslOptions};
use noisegraph::gpu::assemble::validate_wgsl;

/// A user's shader: the names a noise library would likely use, a binding and an entry point.
const USER_SHADER: &str = "
struct NoiseGrad { v: f32 }
struct Octave { f: f32 }
struct Lattice { x: i32 }
const TAU: f32 = 6.2831853;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> aux: array<f32>;
fn hash(x: u32) -> u32 { return x * 747796405u; }
fn hash_2d(x: vec2<u32>) -> u32 { return x.x ^ x.y; }
fn pcg(x: u32) -> u32 { return x; }
fn fade(t: f32) -> f32 { return t; }
fn lerp(a: f32, b: f32, t: f32) -> f32 { return a + t * (b - a); }
fn noise(p: vec2<f32>) -> f32 { return fade(p.x); }
fn fbm(p: vec2<f32>) -> f32 { return noise(p) * 0.5; }
fn perlin_2d(p: vec2<f32>) -> f32 { return p.x; }
fn simplex_2d(p: vec2<f32>) -> f32 { return p.y; }
fn fractal_remap(n: f32) -> f32 { return n; }
fn combine_op(a: f32) -> f32 { return a; }
fn lattice_mul(a: i32) -> i32 { return a; }
fn sample_family(a: f32) -> f32 { return a; }
";

fn user_entry(call: &str) -> String {
    format!(
        "@compute @workgroup_size(1)\nfn main(@builtin(global_invocation_id) id: vec3<u32>) {{\n    out[id.x] = {call} + fade(0.5) + f32(hash(1u)) + fbm(vec2<f32>(0.5)) + lerp(0.0, 1.0, 0.5) + aux[0];\n}}\n"
    )
}

#[test]
fn every_catalog_graph_exports_a_valid_prefixed_module() {
    for case in catalog::all() {
        // Tables too large to inline go to a binding the user's shader leaves free.
        let mut options = WgslOptions::new("height");
        options.table_binding = [1, 0];
        let module =
            export_wgsl(&case.graph, &options).unwrap_or_else(|e| panic!("{}: {e}", case.label));
        if let Some(tables) = &module.tables {
            assert!(module
                .source
                .contains("@group(1) @binding(0) var<storage, read> height_tables: array<f32>;"));
            assert!(tables.data.len() > noisegraph::export::wgsl::INLINE_TABLE_FLOATS);
        }
        validate_wgsl(&module.source).unwrap_or_else(|e| panic!("{}: {e}", case.label));
        for name in module_names(&module) {
            assert!(
                name == "height" || name.starts_with("height_"),
                "{}: unprefixed name {name}",
                case.label
            );
        }
        let dims = module.dims;
        let vf = format!("vec{dims}<f32>");
        let vi = format!("vec{dims}<i32>");
        let mut call = format!("height({vf}(0.25)) + height_precise({vi}(1000000), {vf}(0.5))");
        if module.no_gradient.is_none() {
            call.push_str(&format!(
                " + height_grad({vf}(0.1)).d.x + height_grad_precise({vi}(-3), {vf}(0.5)).value"
            ));
        }
        let pasted = format!("{USER_SHADER}\n{}\n{}", module.source, user_entry(&call));
        validate_wgsl(&pasted)
            .unwrap_or_else(|e| panic!("{}: pasted into a user shader: {e}", case.label));
    }
}

#[test]
fn two_exports_live_in_one_shader() {
    let all = catalog::all();
    let a = export_wgsl(&all[1].graph, &WgslOptions::new("ground")).unwrap();
    let b = export_wgsl(&all[5].graph, &WgslOptions::new("clouds")).unwrap();
    let call = format!(
        "ground(vec{}<f32>(0.5)) + clouds(vec{}<f32>(0.5))",
        a.dims, b.dims
    );
    let source = format!(
        "{USER_SHADER}\n{}\n{}\n{}",
        a.source,
        b.source,
        user_entry(&call)
    );
    validate_wgsl(&source).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn bad_names_and_nodes_are_refused() {
    let graph = &catalog::families()[2].graph;
    for bad in ["", "1up", "a-b", "fn", "height_", "_x", "loop"] {
        let err = export_wgsl(graph, &WgslOptions::new(bad))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("not usable as a WGSL function name"),
            "{bad}: {err}"
        );
    }
    let mut options = WgslOptions::new("n");
    options.node = Some("missing".into());
    let err = export_wgsl(graph, &options).unwrap_err().to_string();
    assert!(err.contains("'missing'"), "{err}");
}

#[test]
fn gradients_are_exported_where_the_families_have_them() {
    let mut with = 0;
    for case in catalog::all() {
        let module = export_wgsl(&case.graph, &WgslOptions::new("h")).unwrap();
        let query = noisegraph::query::PointQuery::new(&case.graph, None).unwrap();
        assert_eq!(
            module.no_gradient.is_none(),
            query.check_gradient().is_ok(),
            "{}",
            case.label
        );
        assert_eq!(
            module.source.contains("fn h_grad("),
            module.no_gradient.is_none()
        );
        with += module.no_gradient.is_none() as usize;
    }
    assert!(with >= 20);
}

/// Which graphs need the storage binding, as the README lists them: wavelet's default tile,
/// OpenSimplex2 smooth 4D and wave past 1024 waves; everything else inlines its table.
#[test]
fn only_tables_over_the_inline_limit_need_the_storage_binding() {
    use serde_json::json;
    let needs_binding = |node: serde_json::Value| {
        let graph = common::single_node(3, node.clone());
        let module = export_wgsl(&graph, &WgslOptions::new("height")).unwrap();
        assert_eq!(
            module.tables.is_some(),
            module.source.contains("var<storage, read> height_tables"),
            "{node}"
        );
        module.tables.is_some()
    };
    for (node, expected) in [
        (json!({"type": "wavelet"}), true),
        (json!({"type": "wavelet", "tile": 64}), false),
        (json!({"type": "wavelet", "dims": 3, "tile": 16}), false),
        (json!({"type": "wavelet", "dims": 3, "tile": 32}), true),
        (
            json!({"type": "opensimplex2", "dims": 4, "variant": "smooth"}),
            true,
        ),
        (json!({"type": "opensimplex2", "dims": 4}), false),
        (
            json!({"type": "opensimplex2", "dims": 3, "variant": "smooth"}),
            false,
        ),
        (json!({"type": "opensimplex2"}), false),
        (json!({"type": "wave"}), false),
        (json!({"type": "wave", "waves": 1024}), false),
        (json!({"type": "wave", "waves": 1025}), true),
        (json!({"type": "wave", "dims": 3, "waves": 1025}), true),
        (json!({"type": "value"}), false),
        (json!({"type": "perlin", "dims": 3}), false),
        (json!({"type": "simplex", "dims": 4}), false),
        (json!({"type": "cellular"}), false),
        (json!({"type": "gabor"}), false),
        (json!({"type": "phasor"}), false),
    ] {
        assert_eq!(needs_binding(node.clone()), expected, "{node}");
    }
}
