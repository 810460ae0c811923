//! Point queries on the CPU path: a query at a point equals a one-pixel bake with its origin
//! at the point (bit for bit, near and far from the origin), a query at a grid bake's pixel
//! positions returns its pixels (within the documented bound), gradients follow the values,
//! and bad input is refused with a message.

mod common;
use common::catalog;

use noisegraph::engine::run_cpu;
use noisegraph::query::PointQuery;
use noisegraph::{NoiseGraph, Plan, View};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn one_pixel(graph: &NoiseGraph, p: &[f64]) -> f32 {
    let plan = Plan::new(graph, None).expect("plan");
    let z = p.get(2).copied().unwrap_or(0.0);
    let view = View::image(1, 1).with_origin([p[0], p[1], z]);
    run_cpu(&plan, &view, &Default::default())
        .expect("bake")
        .data[0]
}

/// Positions near the origin, around 1e6, around -3e7 and around 1e9 (bakes refuse origins
/// past 2^40, and lattice positions past 2^40 cells at octaves that count); the w coordinate
/// is 0 (grid bakes have no w axis).
fn positions(dims: usize, rng: &mut Rng) -> Vec<f64> {
    let centres = [0.0, 1.0e6, -3.0e7, 1.0e9];
    let mut out = Vec::new();
    for (i, c) in centres.iter().enumerate() {
        for _ in 0..if i == 3 { 2 } else { 6 } {
            for a in 0..dims {
                out.push(if a == 3 {
                    0.0
                } else {
                    c + rng.next() * 4.0 - 2.0
                });
            }
        }
    }
    out
}

#[test]
fn a_query_equals_a_one_pixel_bake_at_the_point() {
    let mut rng = Rng(7);
    for case in catalog::all() {
        let query = PointQuery::new(&case.graph, None).expect("query");
        let dims = query.dims() as usize;
        let pts = positions(dims, &mut rng);
        let values = query.values(&pts).expect("values");
        for (i, p) in pts.chunks(dims).enumerate() {
            let bake = one_pixel(&case.graph, p);
            assert_eq!(
                values[i].to_bits(),
                bake.to_bits(),
                "{}: at {p:?} the query gives {} and the one-pixel bake {bake}",
                case.label,
                values[i]
            );
        }
    }
}

/// The pixel positions of `view` (`origin + pixel * extent / size`, f64) for a node of
/// `dims` coordinates, and the pixels themselves (x, y[, z]).
fn pixel_positions(view: &View, dims: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut positions, mut pixels) = (Vec::new(), Vec::new());
    for z in 0..view.size[2] {
        for y in 0..view.size[1] {
            for x in 0..view.size[0] {
                let pix = [x, y, z];
                let at = |a: usize| {
                    view.origin[a] + pix[a] as f64 * view.extent[a] / view.size[a] as f64
                };
                positions.extend((0..dims).map(|a| if a < 3 { at(a) } else { 0.0 }));
                let axes = if view.is_volume() { 3 } else { 2 };
                pixels.extend(pix[..axes].iter().map(|&p| p as f64));
            }
        }
    }
    (positions, pixels)
}

fn views() -> [View; 3] {
    let near = View::image(96, 64)
        .with_origin([0.1, -0.3, 0.0])
        .with_extent([1.5, 1.0, 1.0]);
    let far = near.with_origin([1.0e6 + 0.25, -2.0e5, 0.0]);
    [near, far, View::image(37, 23).with_extent([0.7, 0.3, 1.0])]
}

#[test]
fn a_query_in_a_view_equals_the_bake_pixel_for_pixel() {
    for case in catalog::all() {
        let query = PointQuery::new(&case.graph, None).expect("query");
        let plan = Plan::new(&case.graph, None).unwrap();
        let mut all_views = views().to_vec();
        // A tile of the near view and a small volume for 3D and 4D graphs.
        all_views.push(views()[0].tile([40, 17, 0], [30, 20, 1]));
        if query.dims() >= 3 {
            all_views.push(View::volume(9, 7, 5).with_origin([3.5, -1.0, 2.0]));
        }
        for view in all_views {
            let field = run_cpu(&plan, &view, &Default::default()).unwrap();
            let (_, pixels) = pixel_positions(&view, query.dims() as usize);
            let values = query.values_in_view(&view, &pixels).unwrap();
            for (i, (v, p)) in values.iter().zip(&field.data).enumerate() {
                assert_eq!(
                    v.to_bits(),
                    p.to_bits(),
                    "{}: view {view:?}, pixel {i}: query {v}, bake {p}",
                    case.label
                );
            }
        }
    }
}

/// World positions at a view's pixels, computed in f64 as `origin + (pixel * extent) / size`:
/// the bake splits each pixel's position exactly as the query splits the point, so the query
/// gives the bake's pixels bit for bit (near the origin, far from it, and in a tile).
#[test]
fn a_query_at_a_pixel_position_is_the_pixel_bit_for_bit() {
    for case in catalog::all() {
        let query = PointQuery::new(&case.graph, None).expect("query");
        let plan = Plan::new(&case.graph, None).unwrap();
        for view in views() {
            let field = run_cpu(&plan, &view, &Default::default()).unwrap();
            let (positions, _) = pixel_positions(&view, query.dims() as usize);
            let values = query.values(&positions).unwrap();
            let differ = values
                .iter()
                .zip(&field.data)
                .filter(|(a, b)| a.to_bits() != b.to_bits())
                .count();
            assert_eq!(differ, 0, "{}: view {view:?}", case.label);
        }
    }
}

/// The gradient of every differentiable catalog graph against central differences of the
/// values (f64 positions, h = 1e-5 or 2e-6; near the origin and at 1e6, a curved map near the
/// origin only), and its value channel equal to the value query.
#[test]
fn gradients_follow_the_values() {
    let mut rng = Rng(99);
    let mut checked = 0;
    for case in catalog::all() {
        let query = PointQuery::new(&case.graph, None).expect("query");
        if query.check_gradient().is_err() {
            continue;
        }
        checked += 1;
        let dims = query.dims() as usize;
        let n = 200;
        // Half the points at 1e6, but for a curved map (whose views belong near [0, 1]).
        let far = if catalog::has_curved_mapping(&case.graph) {
            0.0
        } else {
            1.0e6
        };
        let pts: Vec<f64> = (0..n * dims)
            .map(|i| {
                let centre = if i < n * dims / 2 { 0.0 } else { far };
                if i % dims == 3 {
                    0.0
                } else {
                    centre + rng.next() * 3.0
                }
            })
            .collect();
        let grads = query.gradients(&pts).unwrap();
        let values = query.values(&pts).unwrap();
        let mut bad = 0;
        for (i, p) in pts.chunks(dims).enumerate() {
            let g = &grads[i * (1 + dims)..(i + 1) * (1 + dims)];
            assert_eq!(
                g[0].to_bits(),
                values[i].to_bits(),
                "{}: value channel",
                case.label
            );
            for a in 0..dims {
                let d = g[1 + a] as f64;
                let agrees = |h: f64| {
                    let mut lo = p.to_vec();
                    let mut hi = p.to_vec();
                    lo[a] -= h;
                    hi[a] += h;
                    let fd = (query.value_at(&hi).unwrap() as f64
                        - query.value_at(&lo).unwrap() as f64)
                        / (2.0 * h);
                    (d - fd).abs() <= 2e-2 * (1.0 + d.abs())
                };
                // A kink (a ridged crest, abs, min / max, clamp) or a simplex seam within h
                // of the point spoils a difference quotient: the smaller step then passes.
                if !agrees(1e-5) && !agrees(2e-6) {
                    bad += 1;
                }
            }
        }
        assert!(
            bad * 50 <= n * dims,
            "{}: {bad} of {} derivatives off",
            case.label,
            n * dims
        );
    }
    assert!(checked >= 20, "differentiable catalog graphs: {checked}");
}

#[test]
fn a_graph_without_gradients_is_refused_naming_the_node() {
    let graph = NoiseGraph::from_json(
        r#"{"seed": 1, "output": "sum", "nodes": [
            {"id": "p", "type": "perlin", "dims": 3, "frequency": 2},
            {"id": "jumpy", "type": "simplex", "dims": 3, "frequency": 4, "falloff": "classic"},
            {"id": "sum", "type": "add", "inputs": ["p", "jumpy"]}]}"#,
    )
    .unwrap();
    let query = PointQuery::new(&graph, None).unwrap();
    let err = query.gradients(&[0.5, 0.5, 0.5]).unwrap_err().to_string();
    assert!(
        err.contains("'jumpy'") && err.contains("falloff 'classic'") && err.contains("'sum'"),
        "{err}"
    );
    // The perlin input alone differentiates.
    let perlin = PointQuery::new(&graph, Some("p")).unwrap();
    assert_eq!(perlin.gradients(&[0.5, 0.5, 0.5]).unwrap().len(), 4);
}

#[test]
fn bad_positions_are_refused_with_a_message() {
    let query = PointQuery::new(&catalog::families()[2].graph, None).unwrap();
    assert_eq!(query.dims(), 2);
    let err = query.values(&[0.0, 1.0, 2.0]).unwrap_err().to_string();
    assert!(err.contains("whole number of 2D points"), "{err}");
    let err = query
        .values(&[0.0, 1.0, 2.0, f64::NAN])
        .unwrap_err()
        .to_string();
    assert!(err.contains("point 1") && err.contains("NaN"), "{err}");
    let err = query.values(&[f64::INFINITY, 0.0]).unwrap_err().to_string();
    assert!(err.contains("point 0") && err.contains("inf"), "{err}");
    assert!(query.values(&[]).unwrap().is_empty());
    let err = query
        .values(&[0.0, 0.0, 0.5, -3.0e12])
        .unwrap_err()
        .to_string();
    assert!(err.contains("point 1") && err.contains("2^40"), "{err}");
    let err = PointQuery::new(&catalog::families()[2].graph, Some("nope"))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("'nope'"), "{err}");
}

/// Every family's split is its lattice's split, bit for bit: what point queries and the
/// exported precise form rely on.
#[test]
fn every_family_splits_on_its_lattice() {
    use noisegraph::family::{registry, Family};
    let mut rng = Rng(3);
    for case in catalog::all() {
        for node in &case.graph.nodes {
            let noisegraph::graph::NodeKind::Family(f) = &node.kind else {
                continue;
            };
            let family: &dyn Family = *registry().iter().find(|x| x.name() == f.family).unwrap();
            let lattice = family.lattice(f.dims, &f.params);
            for i in 0..200 {
                let scale = [1.0, 1e3, 1e7, 1e12][i % 4];
                let p: [f64; 4] = std::array::from_fn(|_| (rng.next() - 0.5) * scale);
                let period = if i % 3 == 0 && family.supports_period() {
                    [4, 6, 8, 2]
                } else {
                    [0; 4]
                };
                let ours = lattice.split(f.dims, p, period);
                let theirs = family.split_origin_with(f.dims, &f.params, p, period);
                assert_eq!(ours.0, theirs.0, "{} at {p:?}", case.label);
                assert_eq!(
                    ours.1.map(f32::to_bits),
                    theirs.1.map(f32::to_bits),
                    "{} at {p:?}",
                    case.label
                );
            }
        }
    }
}
