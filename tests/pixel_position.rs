//! One pixel position (issue 25 item 3): a bake samples pixel (x, y, z) at `origin + (x *
//! extent) / size` per axis, in f64, and splits it per octave exactly as a point query splits
//! a point. So a query at a bake's pixel positions, computed by the user in f64, returns the
//! CPU bake's pixels bit for bit (values and gradients, near the origin, near 1e6 and as far
//! as the graph's limits allow), and the GPU bake's within the parity tolerance.

mod common;

use common::catalog;
use noisegraph::engine::{run_cpu, run_cpu_gradient};
use noisegraph::graph::gradient_plan;
use noisegraph::query::PointQuery;
use noisegraph::{NoiseGraph, Plan, View};

/// The input-space positions of every pixel of `view` for a node of `dims` coordinates, as a
/// user computes them: `origin + (x * extent) / size` in f64 (the origin's z for an image, 0
/// on w), pixel after pixel, x fastest.
fn pixel_positions(view: &View, dims: usize) -> Vec<f64> {
    let mut positions = Vec::new();
    for z in 0..view.size[2] {
        for y in 0..view.size[1] {
            for x in 0..view.size[0] {
                let pixel = [x, y, z];
                positions.extend((0..dims).map(|a| {
                    if a < 3 {
                        view.origin[a] + (pixel[a] as f64 * view.extent[a]) / view.size[a] as f64
                    } else {
                        0.0
                    }
                }));
            }
        }
    }
    positions
}

/// A small view of the graph's dims at `origin`, with an extent that is not a power of two
/// (so that `x * extent / size` rounds) and sizes that are not multiples of the vector width.
fn view_at(dims: u32, origin: f64) -> View {
    let base = if dims >= 3 {
        View::volume(19, 11, 3)
    } else {
        View::image(37, 23)
    };
    base.with_origin([origin + 0.371, -origin - 0.813, origin * 0.5 + 0.25])
        .with_extent([0.731, 0.517, 0.3])
}

/// The views every graph is checked at: origin 0, near 1e6, and the farthest of a few origins
/// toward 2^40 (the bound of a coordinate) that the graph's limits accept.
fn views(graph: &NoiseGraph) -> Vec<(String, View)> {
    let dims = graph.dims_of(&graph.output);
    let plan = Plan::new(graph, None).unwrap();
    let mut out = vec![
        ("origin 0".to_string(), view_at(dims, 0.0)),
        ("origin 1e6".to_string(), view_at(dims, 1.0e6)),
    ];
    let far = [1.0e12, 1.0e11, 1.0e10, 1.0e9, 1.0e8, 1.0e7];
    if let Some(&o) = far
        .iter()
        .find(|&&o| plan.check_view(&view_at(dims, o)).is_ok())
    {
        out.push((format!("origin {o:e}"), view_at(dims, o)));
    }
    out
}

/// Whether every generator of the graph is on a cubic lattice (the GPU kernels then read the
/// CPU's per-axis splits).
fn split_per_axis(graph: &NoiseGraph) -> bool {
    use noisegraph::graph::position::PositionTable;
    use noisegraph::graph::StageKind;
    let plan = Plan::new(graph, None).unwrap();
    plan.stages.iter().all(|s| match &s.kind {
        StageKind::Generate(g) => {
            PositionTable::has_table(g)
                && g.displace_inline()
                    .all(|(_, _, c)| PositionTable::has_table(c))
        }
        StageKind::Combine { .. } => true,
    })
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// The pixels of the CPU bake of `graph` over `view` that differ from a query at their
/// positions, and the number of pixels.
fn value_mismatches(graph: &NoiseGraph, view: &View) -> (usize, usize) {
    let query = PointQuery::new(graph, None).expect("query");
    let plan = Plan::new(graph, None).unwrap();
    let bake = run_cpu(&plan, view, &Default::default()).unwrap();
    let values = query
        .values(&pixel_positions(view, query.dims() as usize))
        .unwrap();
    let differ = values
        .iter()
        .zip(&bake.data)
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count();
    (differ, values.len())
}

/// The pixels of the CPU gradient bake of `graph` over `view` (every channel: value, d/dx,
/// d/dy[, d/dz]) that differ from the query's gradient at their positions; `None` when the
/// graph has no gradient.
fn gradient_mismatches(graph: &NoiseGraph, view: &View) -> Option<Vec<String>> {
    let plan = gradient_plan(graph, None).ok()?;
    let query = PointQuery::new(graph, None).expect("query");
    let dims = query.dims() as usize;
    let bake = run_cpu_gradient(&plan, view, &Default::default()).unwrap();
    let grads = query.gradients(&pixel_positions(view, dims)).unwrap();
    let channels = if view.is_volume() { 4 } else { 3 };
    let mut differ = Vec::new();
    for (i, texel) in bake.data.iter().enumerate() {
        let q = &grads[i * (1 + dims)..i * (1 + dims) + channels];
        if bits(q) != bits(&texel[..channels]) {
            differ.push(format!("pixel {i}: query {q:?}, bake {texel:?}"));
        }
    }
    Some(differ)
}

#[test]
fn a_query_at_a_bakes_pixel_positions_is_the_cpu_bake_bit_for_bit() {
    let mut checked = 0;
    for case in catalog::all() {
        for (name, view) in views(&case.graph) {
            let (differ, n) = value_mismatches(&case.graph, &view);
            assert_eq!(
                differ, 0,
                "{} at {name}: {differ} of {n} pixels differ from the query",
                case.label
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} bakes checked");
}

/// The gradient form too: every channel of a gradient bake (value, d/dx, d/dy[, d/dz]) is the
/// query's gradient at the pixel's position.
#[test]
fn a_gradient_query_at_a_bakes_pixel_positions_is_the_cpu_gradient_bake_bit_for_bit() {
    let mut checked = 0;
    for case in catalog::all() {
        for (name, view) in views(&case.graph) {
            let Some(differ) = gradient_mismatches(&case.graph, &view) else {
                continue;
            };
            assert!(
                differ.is_empty(),
                "{} at {name}: {} pixels differ, first {}",
                case.label,
                differ.len(),
                differ[0]
            );
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} gradient bakes checked");
}

/// Mapped chains (below `transform`, `sphere`, `torus`, `cylinder`, `cube_face`; warped
/// sources, a hybrid and a derivative-weighted fbm too) put each pixel's f64 position through
/// the map as a query's point goes, so the query at a bake's pixel positions is its pixels bit
/// for bit, values and gradients: an affine map at origin 0 and near 1e6, the curved maps on
/// views of [0, 1]².
#[test]
fn a_query_at_a_mapped_bakes_pixel_positions_is_the_cpu_bake_bit_for_bit() {
    let source = r#"{"id": "p", "type": "perlin", "frequency": 5.3},
        {"id": "f", "type": "fbm", "source": "p", "octaves": 4},
        {"id": "q", "type": "simplex", "frequency": 2.2, "seed_offset": 5},
        {"id": "w", "type": "warp", "source": "f", "displace": ["q", "q"], "amplitude": 0.1}"#;
    let source3 = r#"{"id": "p", "type": "perlin", "dims": 3, "frequency": 3.1},
        {"id": "f", "type": "ridged", "source": "p", "octaves": 3},
        {"id": "o", "type": "opensimplex2", "dims": 3, "frequency": 2.3},
        {"id": "w", "type": "add", "inputs": ["f", "o"]}"#;
    let source4 = r#"{"id": "p", "type": "simplex", "dims": 4, "frequency": 2.0},
        {"id": "w", "type": "fbm", "source": "p", "octaves": 3}"#;
    let stateful = r#"{"id": "p", "type": "perlin", "dims": 3, "frequency": 2.7},
        {"id": "w", "type": "hybrid", "source": "p", "octaves": 4}"#;
    let weighted = r#"{"id": "p", "type": "perlin", "frequency": 3.3},
        {"id": "w", "type": "fbm", "source": "p", "octaves": 3, "derivative_weight": 2.0}"#;
    let cases = [
        (
            "hybrid under a sphere",
            stateful,
            r#"{"id": "m", "type": "sphere", "source": "w"}"#,
            false,
        ),
        (
            "derivative-weighted fbm under a transform",
            weighted,
            r#"{"id": "m", "type": "transform", "source": "w", "rotate": 90.0}"#,
            true,
        ),
        (
            "transform 2D",
            source,
            r#"{"id": "m", "type": "transform", "source": "w", "rotate": 33.0, "scale": [1.7, 0.6], "translate": [0.3, -2.0]}"#,
            true,
        ),
        (
            "transform 3D",
            source3,
            r#"{"id": "m", "type": "transform", "source": "w", "axis": [1.0, 2.0, 0.5], "angle": 71.0, "translate": [4.0, 0.0, -1.5]}"#,
            true,
        ),
        (
            "sphere",
            source3,
            r#"{"id": "m", "type": "sphere", "source": "w", "radius": 1.3}"#,
            false,
        ),
        (
            "cylinder",
            source3,
            r#"{"id": "m", "type": "cylinder", "source": "w"}"#,
            false,
        ),
        (
            "cube face",
            source3,
            r#"{"id": "m", "type": "cube_face", "source": "w", "face": "ny"}"#,
            false,
        ),
        (
            "torus",
            source4,
            r#"{"id": "m", "type": "torus", "source": "w"}"#,
            false,
        ),
    ];
    for (label, nodes, mapping, affine) in cases {
        let graph = NoiseGraph::from_json(&format!(
            r#"{{"seed": 17, "output": "m", "nodes": [{nodes}, {mapping}]}}"#
        ))
        .unwrap_or_else(|e| panic!("{label}: {e}"));
        let dims = graph.dims_of("m");
        let mut views = vec![("[0, 1]", View::image(37, 23).with_extent([1.0, 1.0, 1.0]))];
        if affine {
            views.push(("origin 1e6", view_at(dims, 1.0e6)));
            views.push(("origin 0", view_at(dims, 0.0)));
        } else {
            views.push((
                "a window",
                View::image(29, 31)
                    .with_origin([0.137, 0.291, 0.0])
                    .with_extent([0.517, 0.731, 1.0]),
            ));
        }
        for (name, view) in views {
            let (differ, n) = value_mismatches(&graph, &view);
            assert_eq!(
                differ, 0,
                "{label} at {name}: {differ} of {n} pixels differ"
            );
            let differ = gradient_mismatches(&graph, &view).expect("a gradient");
            assert!(
                differ.is_empty(),
                "{label} at {name}: {} gradient pixels differ, first {}",
                differ.len(),
                differ[0]
            );
        }
    }
}

/// Tiles of a view are the view's pixels: the tile's pixel (x, y) is pixel (offset + x,
/// offset + y) of the whole view, and a query there gives it too.
#[test]
fn a_tile_samples_the_whole_views_positions() {
    let graph = NoiseGraph::from_json(
        r#"{"seed": 3, "output": "w", "nodes": [
            {"id": "b", "type": "perlin", "frequency": 3.7},
            {"id": "f", "type": "fbm", "source": "b", "octaves": 6},
            {"id": "s", "type": "simplex", "frequency": 2.1},
            {"id": "w", "type": "warp", "source": "f", "displace": ["s", "s"], "amplitude": 0.2}]}"#,
    )
    .unwrap();
    let plan = Plan::new(&graph, None).unwrap();
    let view = View::image(300, 40)
        .with_origin([1.0e6 + 0.25, -3.5, 0.0])
        .with_extent([1.3, 0.17, 1.0]);
    let whole = run_cpu(&plan, &view, &Default::default()).unwrap();
    let tile = view.tile([123, 17, 0], [77, 9, 1]);
    let part = run_cpu(&plan, &tile, &Default::default()).unwrap();
    for y in 0..9 {
        for x in 0..77 {
            let (a, b) = (part.data[y * 77 + x], whole.data[(17 + y) * 300 + 123 + x]);
            assert_eq!(a.to_bits(), b.to_bits(), "tile pixel ({x}, {y})");
        }
    }
    let query = PointQuery::new(&graph, None).unwrap();
    let pixels: Vec<f64> = (0..9)
        .flat_map(|y| (0..77).flat_map(move |x| [x as f64, y as f64]))
        .collect();
    assert_eq!(
        bits(&query.values_in_view(&tile, &pixels).unwrap()),
        bits(&part.data)
    );
}

/// The GPU bake of every catalog graph is within the parity tolerance of the query at its
/// pixel positions near the origin, near 1e6 and at the farthest origin the graph accepts (a
/// graph with seams, see `catalog::has_seams`, may have up to 1% of its pixels past it): on a
/// cubic lattice the kernels read the CPU's per-column, per-row splits, so only the family
/// arithmetic differs; on the skewed and linear lattices (simplex, OpenSimplex2) and under a
/// map they add pixel x step to the origin's split, which stays within the tolerance as far
/// as 1e9 (farther out the f64 rounding of a pixel's own position, which the query splits,
/// is more than that f32 step reproduces).
#[test]
fn a_query_at_a_bakes_pixel_positions_is_within_the_tolerance_of_the_gpu_bake() {
    let Some(ctx) = common::gpu() else {
        return;
    };
    let tolerance = noisegraph::parity::PARITY_TOLERANCE;
    let mut failed = Vec::new();
    for case in catalog::all() {
        let query = PointQuery::new(&case.graph, None).expect("query");
        let dims = query.dims() as usize;
        let mut views = views(&case.graph);
        if catalog::has_curved_mapping(&case.graph) {
            // A curved map is computed in f32 from the pixel on the GPU, so its views belong
            // near [0, 1] (README.md, Mappings): a graph with one is checked at origin 0 only.
            views.truncate(1);
        } else if !split_per_axis(&case.graph) {
            // Kernels that add pixel x step to the origin's exact split: as far as 1e9.
            // Farther out a pixel's f64 position is itself that far from the exact one (1.5e-5
            // at 1e11), the query splits that rounded position, and the bakes differ from it
            // (measured: warped graphs past the tolerance at 1e10, simplex and OpenSimplex2 by
            // up to 8.4e-4 at 1e11).
            views.truncate(2);
            let dims = case.graph.dims_of(&case.graph.output);
            let plan = Plan::new(&case.graph, None).unwrap();
            let far = view_at(dims, 1.0e9);
            if plan.check_view(&far).is_ok() {
                views.push(("origin 1e9".to_string(), far));
            }
        }
        for (name, view) in views {
            let gpu = noisegraph::Executor::Gpu(ctx.clone())
                .bake(&case.graph, None, &view)
                .unwrap();
            let values = query.values(&pixel_positions(&view, dims)).unwrap();
            let over = values
                .iter()
                .zip(&gpu.data)
                .filter(|(a, b)| {
                    let d = (*a - *b).abs();
                    d.is_nan() || d > tolerance
                })
                .count();
            let allowed = if catalog::has_seams(&case.graph) {
                (catalog::SEAM_ALLOWANCE * values.len() as f64) as usize
            } else {
                0
            };
            if over > allowed {
                failed.push(format!(
                    "{} at {name}: {over} of {} GPU pixels past {tolerance} from the query",
                    case.label,
                    values.len()
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The pixels this change moved (`tests/data/recorded_bakes.txt` was recorded anew with it)
/// moved by no more than the position error it removed. Before, octave k of pixel x sampled
/// the origin's cell at `o.local + x * o.step` in f32; now it samples the exact split of the
/// pixel's f64 position. For every unwarped chain on a cubic lattice with a gradient, at the
/// recorded views, the old pixel is recomputed from the uniforms and the two differ by at most
/// the first-order effect of that position error, `norm * sum_k |amp_k| * |grad n_k| *
/// |error_k|` (plus 1e-5 for the rounding of the two evaluations), and some pixels did move.
#[test]
fn moved_pixels_moved_by_at_most_the_position_error_removed() {
    use noisegraph::family::{Lattice, SamplePoint};
    use noisegraph::graph::{octave_position, StageKind};
    use std::sync::Arc;
    let (mut moved, mut checked, mut largest) = (0usize, 0usize, 0f64);
    for case in catalog::all() {
        let plan = Plan::new(&case.graph, None).unwrap();
        let StageKind::Generate(g) = &plan.stages[plan.target].kind else {
            continue;
        };
        let (dims, params) = (g.dims(), &g.source.params);
        // A mapped chain's pixels go through its map: the old position recomputed below is
        // an unmapped pixel's (and a curved map refuses the volume view of a 3D source).
        if plan.stages.len() != 1
            || g.mapping.is_some()
            || !g.displace.is_empty()
            || g.family.lattice(dims, params) != Lattice::Cubic
            || g.source.period.is_some()
        {
            continue;
        }
        let base_view = if dims >= 3 {
            View::volume(37, 29, 5)
        } else {
            View::image(61, 43)
        };
        let far = base_view
            .with_origin([1.0e6 + 0.371, -1.0e6 + 0.813, 0.25])
            .with_extent([0.731, 0.517, 0.3]);
        for view in [base_view, far] {
            let u = g.uniforms(plan.seed, &view);
            let aux: Arc<[f32]> = g.aux_data(plan.seed).unwrap_or_default().into();
            let sample = g.family.cpu_sampler(dims, params, u.family, aux.clone());
            let Some(grad) = g.family.cpu_grad_sampler(dims, params, u.family, aux) else {
                continue;
            };
            let bake = run_cpu(&plan, &view, &Default::default()).unwrap();
            let positions = pixel_positions(&view, dims as usize);
            let kind = g.fractal_code();
            let remap = |n: f32| match kind {
                1 => (1.0 - n.abs()) * (1.0 - n.abs()),
                2 => 2.0 * n.abs() - 1.0,
                _ => n,
            };
            let slope = |n: f32| match kind {
                1 => 2.0 * (1.0 - n.abs()),
                2 => 2.0,
                _ => 1.0,
            } as f64;
            let [w, h, _] = view.size;
            for (i, &new) in bake.data.iter().enumerate() {
                let pixel = [i as u32 % w, i as u32 / w % h, i as u32 / (w * h)];
                let at = &positions[i * dims as usize..(i + 1) * dims as usize];
                let mut position = [0.0f64; 4];
                position[..at.len()].copy_from_slice(at);
                let base = g.sample_base(position);
                let (mut old, mut bound) = (0.0f32, 0.0f64);
                for k in 0..g.octave_count() {
                    let o = &u.octaves[k as usize];
                    let local: [f32; 4] = std::array::from_fn(|a| {
                        let pix = if a < 3 { pixel[a] as f32 } else { 0.0 };
                        o.local[a] + pix * o.step[a]
                    });
                    let point = SamplePoint {
                        cell: o.cell,
                        local,
                        seed: o.seed,
                        period: o.period,
                    };
                    let n = sample(&point);
                    old += o.amp * remap(n);
                    let exact = octave_position(base, g.octave_frequency(k), k);
                    let g_n = grad(&point);
                    let (mut error, mut gradient) = (0.0f64, 0.0f64);
                    for a in 0..dims as usize {
                        let e = o.cell[a] as f64 + local[a] as f64 - exact[a];
                        error += e * e;
                        gradient += (g_n.d[a] as f64).powi(2);
                    }
                    bound += (o.amp as f64).abs() * slope(n) * gradient.sqrt() * error.sqrt();
                }
                old *= u.scalars[0];
                let bound = bound * u.scalars[0] as f64 * 1.01 + 1e-5;
                let diff = (new as f64 - old as f64).abs();
                assert!(
                    diff <= bound,
                    "{}: pixel {i} moved by {diff:e}, more than its position error allows ({bound:e})",
                    case.label
                );
                moved += usize::from(new.to_bits() != old.to_bits());
                largest = largest.max(diff);
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked} pixels checked");
    assert!(moved > 0, "no pixel moved");
    println!("{moved} of {checked} pixels moved, by at most {largest:e}");
}
