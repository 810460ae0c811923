//! Properties of the lattice families on the CPU reference path: cellular distance
//! ordering, tileable output, output ranges over a million samples, the smooth OpenSimplex2
//! candidate sets, and errors for bad parameters.

mod common;
use common::*;
use noisegraph::twin::cellular::{
    cellular_2d, cellular_3d, cellular_feature_2d, cellular_feature_3d,
};
use noisegraph::twin::hash::seed_hash;
use noisegraph::{NoiseGraph, View};
use serde_json::json;

fn bake(node: serde_json::Value, view: &View) -> Vec<f32> {
    cpu_field(&single_node(21, node), view).data
}

fn cellular(dims: u32, ret: &str, metric: &str, jitter: f64) -> Vec<f32> {
    let view = if dims == 2 {
        View::image(160, 120)
    } else {
        View::volume(40, 30, 12)
    };
    let offset = [0.3, -1.7, 0.9][..dims as usize].to_vec();
    bake(
        json!({"type": "cellular", "dims": dims, "return": ret, "metric": metric,
               "jitter": jitter, "frequency": 9.3,
               "offset": offset}),
        &view,
    )
}

const METRICS: [&str; 4] = ["euclidean", "euclidean_squared", "manhattan", "chebyshev"];

#[test]
fn cellular_f1_le_f2_and_difference_is_pointwise() {
    for dims in [2, 3] {
        for metric in METRICS {
            let f1 = cellular(dims, "f1", metric, 1.0);
            let f2 = cellular(dims, "f2", metric, 1.0);
            let diff = cellular(dims, "f2_minus_f1", metric, 1.0);
            for i in 0..f1.len() {
                assert!(f1[i] >= 0.0, "{dims}D {metric}: F1 = {} < 0", f1[i]);
                assert!(
                    f1[i] <= f2[i],
                    "{dims}D {metric}: F1 {} > F2 {}",
                    f1[i],
                    f2[i]
                );
                assert!(
                    (diff[i] - (f2[i] - f1[i])).abs() <= 1e-6,
                    "{dims}D {metric}: f2_minus_f1 {} != {} - {}",
                    diff[i],
                    f2[i],
                    f1[i]
                );
            }
        }
    }
}

#[test]
fn cellular_metrics_are_ordered() {
    for dims in [2, 3] {
        for jitter in [1.0, 0.4] {
            let man = cellular(dims, "f1", "manhattan", jitter);
            let euc = cellular(dims, "f1", "euclidean", jitter);
            let che = cellular(dims, "f1", "chebyshev", jitter);
            for i in 0..man.len() {
                assert!(
                    man[i] >= euc[i] - 1e-6 && euc[i] >= che[i] - 1e-6,
                    "{dims}D jitter {jitter} pixel {i}: manhattan {} euclidean {} chebyshev {}",
                    man[i],
                    euc[i],
                    che[i]
                );
            }
        }
    }
}

#[test]
fn cellular_is_zero_at_feature_points() {
    for seed in [0u32, 77, 4_000_000_007] {
        let sh = seed_hash(seed);
        for c in [[0, 0], [5, -3], [-1_000_000, 123_456]] {
            let (p, _) = cellular_feature_2d(c, sh, 0.9);
            for metric in 0..4 {
                let f1 = cellular_2d(c, p, sh, [0, 0], 0, metric, 0.9);
                assert_eq!(f1, 0.0, "2D cell {c:?} metric {metric}");
            }
        }
        for c in [[0, 0, 0], [5, -3, 9], [-1_000_000, 123_456, 7]] {
            let (p, _) = cellular_feature_3d(c, sh, 1.0);
            for metric in 0..4 {
                let f1 = cellular_3d(c, p, sh, [0, 0, 0], 0, metric, 1.0);
                assert_eq!(f1, 0.0, "3D cell {c:?} metric {metric}");
            }
        }
    }
}

/// F1 and F2 by brute force over a 9^d neighbourhood (far more than any point can need).
/// `sh` is the seed hash the kernels take.
fn brute_force(dims: usize, local: [f32; 3], sh: u32, metric: u32) -> (f32, f32) {
    let fl = local.map(f32::floor);
    let f = [local[0] - fl[0], local[1] - fl[1], local[2] - fl[2]];
    let reach = 4;
    let mut d = Vec::new();
    let zr = if dims == 3 { reach } else { 0 };
    for dz in -zr..=zr {
        for dy in -reach..=reach {
            for dx in -reach..=reach {
                let c = [fl[0] as i32 + dx, fl[1] as i32 + dy, fl[2] as i32 + dz];
                let off: Vec<f32> = if dims == 2 {
                    let (p, _) = cellular_feature_2d([c[0], c[1]], sh, 1.0);
                    vec![dx as f32 + p[0] - f[0], dy as f32 + p[1] - f[1], 0.0]
                } else {
                    let (p, _) = cellular_feature_3d(c, sh, 1.0);
                    vec![
                        dx as f32 + p[0] - f[0],
                        dy as f32 + p[1] - f[1],
                        dz as f32 + p[2] - f[2],
                    ]
                };
                // The length itself, not the kernels' comparison key.
                let [x, y, z] = [off[0], off[1], off[2]];
                d.push(match metric {
                    0 => (x * x + y * y + z * z).sqrt(),
                    1 => x * x + y * y + z * z,
                    2 => x.abs() + y.abs() + z.abs(),
                    _ => x.abs().max(y.abs()).max(z.abs()),
                });
            }
        }
    }
    d.sort_by(f32::total_cmp);
    (d[0], d[1])
}

#[test]
fn cellular_neighbourhood_is_wide_enough_at_full_jitter() {
    let mut state = 0x2545F491u32;
    let mut next = || {
        state = noisegraph::twin::hash::pcg(state);
        noisegraph::twin::hash::hash_to_unit(state) * 40.0 - 20.0
    };
    for metric in 0..4 {
        for _ in 0..3000 {
            let local = [next(), next(), next()];
            let seed = seed_hash(3);
            let (b1, b2) = brute_force(2, local, seed, metric);
            let l2 = [local[0], local[1]];
            assert_eq!(
                cellular_2d([0, 0], l2, seed, [0, 0], 0, metric, 1.0),
                b1,
                "2D F1 at {l2:?}"
            );
            assert_eq!(
                cellular_2d([0, 0], l2, seed, [0, 0], 1, metric, 1.0),
                b2,
                "2D F2 at {l2:?}"
            );
        }
        for _ in 0..600 {
            let local = [next(), next(), next()];
            let seed = seed_hash(8);
            let (b1, b2) = brute_force(3, local, seed, metric);
            assert_eq!(
                cellular_3d([0, 0, 0], local, seed, [0; 3], 0, metric, 1.0),
                b1,
                "3D F1 at {local:?}"
            );
            assert_eq!(
                cellular_3d([0, 0, 0], local, seed, [0; 3], 1, metric, 1.0),
                b2,
                "3D F2 at {local:?}"
            );
        }
    }
}

/// Largest jump across the wrap (last column/row/slice to the first) and largest jump
/// between neighbouring interior columns/rows/slices, for one axis of a w x h x d field.
fn seam_and_interior(data: &[f32], size: [usize; 3], axis: usize) -> (f32, f32, f32, f32) {
    let at = |p: [usize; 3]| data[(p[2] * size[1] + p[1]) * size[0] + p[0]];
    let (mut seam, mut interior, mut seam_sum, mut interior_sum) = (0f32, 0f32, 0f32, 0f32);
    let (mut seams, mut interiors) = (0f32, 0f32);
    for z in 0..size[2] {
        for y in 0..size[1] {
            for x in 0..size[0] {
                let p = [x, y, z];
                if p[axis] + 1 < size[axis] {
                    let mut q = p;
                    q[axis] += 1;
                    let j = (at(q) - at(p)).abs();
                    interior = interior.max(j);
                    interior_sum += j;
                    interiors += 1.0;
                } else {
                    let mut q = p;
                    q[axis] = 0;
                    let j = (at(q) - at(p)).abs();
                    seam = seam.max(j);
                    seam_sum += j;
                    seams += 1.0;
                }
            }
        }
    }
    (seam, interior, seam_sum / seams, interior_sum / interiors)
}

fn tiling_view(dims: u32) -> (View, [usize; 3]) {
    if dims == 2 {
        (View::image(96, 80), [96, 80, 1])
    } else {
        (View::volume(40, 36, 32), [40, 36, 32])
    }
}

#[test]
fn tileable_output_wraps_at_the_image_edge() {
    for dims in [2u32, 3] {
        let (view, size) = tiling_view(dims);
        for family in ["value", "perlin", "cellular"] {
            for period in [3, 5] {
                let data = bake(
                    json!({"type": family, "dims": dims, "frequency": period, "period": period,
                           "offset": vec![0.0; dims as usize]}),
                    &view,
                );
                for axis in 0..dims as usize {
                    let (seam, interior, _, _) = seam_and_interior(&data, size, axis);
                    assert!(
                        seam <= interior,
                        "{family} {dims}D period {period} axis {axis}: jump across the edge {seam} > largest interior jump {interior}"
                    );
                }
            }
        }
    }
}

#[test]
fn without_period_the_edge_is_a_seam() {
    // The control for the tiling test: the same measurement sees the seam of untiled noise.
    for dims in [2u32, 3] {
        let (view, size) = tiling_view(dims);
        for family in ["value", "perlin", "cellular"] {
            let data = bake(
                json!({"type": family, "dims": dims, "frequency": 5.0}),
                &view,
            );
            let (_, _, seam_mean, interior_mean) = seam_and_interior(&data, size, 0);
            assert!(
                seam_mean > 3.0 * interior_mean,
                "{family} {dims}D: mean edge jump {seam_mean} vs interior {interior_mean}"
            );
        }
    }
}

/// A million samples (1000 x 1000) of a family at high frequency; returns (min, max).
fn range_of(node: serde_json::Value) -> (f32, f32) {
    let data = bake(node, &View::image(1000, 1000));
    assert_eq!(data.len(), 1_000_000);
    data.iter().fold((f32::MAX, f32::MIN), |(lo, hi), &v| {
        assert!(v.is_finite());
        (lo.min(v), hi.max(v))
    })
}

#[test]
fn simplex_and_opensimplex2_stay_in_range() {
    let mut nodes = Vec::new();
    for dims in [2, 3, 4] {
        nodes.push(json!({"type": "simplex", "dims": dims, "frequency": axes(&[211.3, 197.9], dims), "z": 3.3, "w": 7.1}));
        for variant in ["fast", "smooth"] {
            nodes.push(
                json!({"type": "opensimplex2", "variant": variant, "dims": dims,
                              "frequency": axes(&[211.3, 197.9], dims), "z": 3.3, "w": 7.1}),
            );
        }
    }
    for node in nodes {
        let (lo, hi) = range_of(node.clone());
        assert!(
            lo >= -1.0 && hi <= 1.0,
            "{node}: range [{lo}, {hi}] leaves [-1, 1]"
        );
        // The scale is the true maximum, so a million samples come near it.
        assert!(
            hi.max(-lo) > 0.6,
            "{node}: range [{lo}, {hi}] is far inside [-1, 1]"
        );
    }
}

#[test]
fn cellular_stays_in_its_documented_range() {
    use noisegraph::family::lookup;
    let fam = lookup("cellular").unwrap();
    for dims in [2, 3] {
        for ret in ["f1", "f2", "f2_minus_f1", "cell_value"] {
            for metric in METRICS {
                let graph = single_node(
                    4,
                    json!({"type": "cellular", "dims": dims, "return": ret, "metric": metric, "frequency": 61.0}),
                );
                let noisegraph::graph::NodeKind::Family(node) = &graph.nodes[0].kind else {
                    panic!("family node")
                };
                let (lo, hi) = fam.range(dims, &node.params);
                let data = cpu_field(&graph, &View::image(300, 300)).data;
                for v in data {
                    assert!(
                        v >= lo && v <= hi,
                        "{dims}D {ret} {metric}: {v} outside [{lo}, {hi}]"
                    );
                }
            }
        }
    }
}

#[test]
fn opensimplex2_smooth_sums_every_point_in_range() {
    use noisegraph::family::{lookup, FamilyParams, ParamValue};
    use noisegraph::twin::hash::hash_4d;
    use noisegraph::twin::opensimplex2::*;
    let mut params = FamilyParams::default();
    params
        .values
        .insert("variant".into(), ParamValue::Choice(OS2_SMOOTH));
    let aux = lookup("opensimplex2")
        .unwrap()
        .aux_data(4, &params, 0)
        .unwrap();
    let mut state = 99u32;
    let mut next = || {
        state = noisegraph::twin::hash::pcg(state);
        noisegraph::twin::hash::hash_to_unit(state) * 6.0 - 3.0
    };
    for _ in 0..4000 {
        let local = [next(), next(), next(), next()];
        let seed = seed_hash(17);
        let kernel = opensimplex2_4d([0; 4], local, seed, OS2_SMOOTH, &aux);
        // Every A4 lattice point near the sample, not just the table's candidates.
        let s = os2_skew_4d(local, OS2_SMOOTH);
        let fl = s.map(f32::floor);
        let si = [s[0] - fl[0], s[1] - fl[1], s[2] - fl[2], s[3] - fl[3]];
        let mut sum = 0.0f64;
        for code in 0..6usize.pow(4) {
            let v: [i32; 4] =
                std::array::from_fn(|k| ((code / 6usize.pow(k as u32)) % 6) as i32 - 2);
            let p: [f32; 4] = std::array::from_fn(|k| si[k] - v[k] as f32);
            let t = ((p[0] + p[1]) + (p[2] + p[3])) * OS2_UNSKEW_4D_SMOOTH;
            let d = p.map(|x| x + t);
            let a = 0.8 - d.iter().map(|x| x * x).sum::<f32>();
            if a > 0.0 {
                let point: [i32; 4] = std::array::from_fn(|k| fl[k] as i32 + v[k]);
                let g = (hash_4d(point, seed) % OS2_GRADS_4D) as usize * 4;
                let dot: f32 = (0..4).map(|k| aux[g + k] * d[k]).sum();
                sum += (a * a * a * a * dot) as f64;
            }
        }
        let expected = sum as f32 * OS2_SCALE_4D_SMOOTH;
        assert!(
            (kernel - expected).abs() < 1e-4,
            "at {local:?}: kernel {kernel}, all points {expected}"
        );
    }
}

/// The continuity of simplex (continuous falloff) and fast OpenSimplex2 rests on their
/// kernels visiting every lattice point whose term is not zero: each term is continuous, so
/// the sum of all of them is, and a point the selection skipped while in range would show
/// as a jump where the selection changes. Checked here against every lattice point near the
/// sample (all copies of the OpenSimplex2 lattices), at random positions.
#[test]
fn simplex_and_fast_opensimplex2_sum_every_point_in_range() {
    use noisegraph::family::{lookup, FamilyParams, ParamValue};
    use noisegraph::twin::hash::{hash_3d, hash_4d};
    use noisegraph::twin::opensimplex2::*;
    use noisegraph::twin::perlin::{perlin_grad_3d, GRADIENTS_IMPROVED};
    use noisegraph::twin::simplex::*;
    let mut state = 77u32;
    let mut next = || {
        state = noisegraph::twin::hash::pcg(state);
        noisegraph::twin::hash::hash_to_unit(state) * 6.0 - 3.0
    };
    let mut params = FamilyParams::default();
    params
        .values
        .insert("variant".into(), ParamValue::Choice(OS2_FAST));
    let os2 = lookup("opensimplex2").unwrap();
    let aux3 = os2.aux_data(3, &params, 0).unwrap();
    let aux4 = os2.aux_data(4, &params, 0).unwrap();
    let seed = seed_hash(23);
    let term = |a: f32, dot: f32| (a * a * a * a * dot) as f64;
    let check = |label: &str, local: &[f32], kernel: f32, expected: f64| {
        assert!(
            (kernel as f64 - expected).abs() < 1e-4,
            "{label} at {local:?}: kernel {kernel}, every point in range {expected}"
        );
    };
    for _ in 0..3000 {
        let l4 = [next(), next(), next(), next()];
        let l3 = [l4[0], l4[1], l4[2]];

        // Simplex 3D: every skewed lattice point m near the sample.
        let s = (l3[0] + l3[1] + l3[2]) * SIMPLEX_F3;
        let fl = l3.map(|v| (v + s).floor());
        let t = (fl[0] + fl[1] + fl[2]) * SIMPLEX_G3;
        let d0: [f32; 3] = std::array::from_fn(|k| l3[k] - (fl[k] - t));
        let mut sum = 0.0f64;
        for code in 0..4usize.pow(3) {
            let m: [i32; 3] = std::array::from_fn(|k| ((code >> (2 * k)) & 3) as i32 - 1);
            let mt = (m[0] + m[1] + m[2]) as f32 * SIMPLEX_G3;
            let d: [f32; 3] = std::array::from_fn(|k| d0[k] - (m[k] as f32 - mt));
            let a = SIMPLEX_R2 - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if a > 0.0 {
                let h = hash_3d(std::array::from_fn(|k| fl[k] as i32 + m[k]), seed);
                sum += term(a, perlin_grad_3d(h, d, GRADIENTS_IMPROVED));
            }
        }
        let kernel = simplex_3d([0; 3], l3, seed, SIMPLEX_FALLOFF_CONTINUOUS);
        check("simplex 3D", &l3, kernel, sum * SIMPLEX_SCALE_3D as f64);

        // Simplex 4D.
        let s = ((l4[0] + l4[1]) + (l4[2] + l4[3])) * SIMPLEX_F4;
        let fl = l4.map(|v| (v + s).floor());
        let t = ((fl[0] + fl[1]) + (fl[2] + fl[3])) * SIMPLEX_G4;
        let d0: [f32; 4] = std::array::from_fn(|k| l4[k] - (fl[k] - t));
        let mut sum = 0.0f64;
        for code in 0..4usize.pow(4) {
            let m: [i32; 4] = std::array::from_fn(|k| ((code >> (2 * k)) & 3) as i32 - 1);
            let mt = (m.iter().sum::<i32>()) as f32 * SIMPLEX_G4;
            let d: [f32; 4] = std::array::from_fn(|k| d0[k] - (m[k] as f32 - mt));
            let a = SIMPLEX_R2 - d.iter().map(|x| x * x).sum::<f32>();
            if a > 0.0 {
                let h = hash_4d(std::array::from_fn(|k| fl[k] as i32 + m[k]), seed);
                sum += term(a, simplex_grad_4d(h, d));
            }
        }
        let kernel = simplex_4d([0; 4], l4, seed, SIMPLEX_FALLOFF_CONTINUOUS);
        check("simplex 4D", &l4, kernel, sum * SIMPLEX_SCALE_4D as f64);

        // OpenSimplex2 fast 3D: both cubic lattices (copy 1 shifted by half a cell).
        let r = os2_rotate_3d(l3);
        let mut sum = 0.0f64;
        for copy in 0..2 {
            let q = r.map(|v| v - 0.5 * copy as f32);
            let b = q.map(f32::floor);
            for code in 0..4usize.pow(3) {
                let m: [i32; 3] = std::array::from_fn(|k| ((code >> (2 * k)) & 3) as i32 - 1);
                let d: [f32; 3] = std::array::from_fn(|k| q[k] - (b[k] + m[k] as f32));
                let a = OS2_RSQ_FAST - (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
                if a > 0.0 {
                    let n = [0, 1, 2].map(|k| b[k] as i32 + m[k]);
                    let g = (hash_4d([n[0], n[1], n[2], copy], seed) % OS2_GRADS_3D) as usize * 3;
                    let dot = aux3[g] * d[0] + aux3[g + 1] * d[1] + aux3[g + 2] * d[2];
                    sum += term(a, dot);
                }
            }
        }
        let kernel = opensimplex2_3d([0; 3], l3, seed, OS2_FAST, &aux3);
        check(
            "opensimplex2 fast 3D",
            &l3,
            kernel,
            sum * OS2_SCALE_3D_FAST as f64,
        );

        // OpenSimplex2 fast 4D: all five copies; point m of copy c sits at skewed m + 0.2 c.
        let sk = os2_skew_4d(l4, OS2_FAST);
        let mut sum = 0.0f64;
        for copy in 0..5u32 {
            let salted = seed.wrapping_add(copy.wrapping_mul(OS2_COPY_SALT));
            let shift = OS2_LATTICE_STEP_4D * copy as f32;
            let b = sk.map(|v| (v - shift).floor());
            for code in 0..4usize.pow(4) {
                let m: [i32; 4] = std::array::from_fn(|k| ((code >> (2 * k)) & 3) as i32 - 1);
                let p: [f32; 4] = std::array::from_fn(|k| sk[k] - shift - (b[k] + m[k] as f32));
                let t = ((p[0] + p[1]) + (p[2] + p[3])) * OS2_UNSKEW_4D_FAST;
                let d = p.map(|x| x + t);
                let a = OS2_RSQ_FAST - d.iter().map(|x| x * x).sum::<f32>();
                if a > 0.0 {
                    let n: [i32; 4] = std::array::from_fn(|k| b[k] as i32 + m[k]);
                    let g = (hash_4d(n, salted) % OS2_GRADS_4D) as usize * 4;
                    let dot: f32 = (0..4).map(|k| aux4[g + k] * d[k]).sum();
                    sum += term(a, dot);
                }
            }
        }
        let kernel = opensimplex2_4d([0; 4], l4, seed, OS2_FAST, &aux4);
        check(
            "opensimplex2 fast 4D",
            &l4,
            kernel,
            sum * OS2_SCALE_4D_FAST as f64,
        );
    }
}

fn issue_for(node: serde_json::Value) -> String {
    let mut node = node;
    node["id"] = json!("bad");
    let graph = json!({"seed": 1, "output": "bad", "nodes": [node]});
    match NoiseGraph::from_value(&graph) {
        Ok(_) => panic!("accepted {graph}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_parameters_name_the_node_and_field() {
    let cases = [
        (json!({"type": "cellular", "metric": "minkowski"}), "metric"),
        (json!({"type": "cellular", "return": "f3"}), "return"),
        (json!({"type": "cellular", "jitter": 1.5}), "jitter"),
        (json!({"type": "cellular", "jitter": -0.1}), "jitter"),
        (json!({"type": "cellular", "period": 2.5}), "period"),
        (json!({"type": "cellular", "period": 0}), "period"),
        (json!({"type": "cellular", "period": -4}), "period"),
        (json!({"type": "value", "period": "8"}), "period"),
        (json!({"type": "cellular", "dims": 4}), "dims"),
        (json!({"type": "opensimplex2", "dims": 5}), "dims"),
        (
            json!({"type": "opensimplex2", "variant": "medium"}),
            "variant",
        ),
        (json!({"type": "opensimplex2", "period": 4}), "period"),
        (json!({"type": "simplex", "dims": 1}), "dims"),
    ];
    for (node, field) in cases {
        let message = issue_for(node.clone());
        assert!(
            message.contains("node 'bad'") && message.contains(&format!("field '{field}'")),
            "{node}: {message}"
        );
    }
}

/// Largest difference between horizontally or vertically neighbouring pixels.
fn largest_step(data: &[f32], w: usize) -> f32 {
    let mut m = 0f32;
    for (i, v) in data.iter().enumerate() {
        if (i + 1) % w != 0 {
            m = m.max((data[i + 1] - v).abs());
        }
        if i + w < data.len() {
            m = m.max((data[i + w] - v).abs());
        }
    }
    m
}

#[test]
fn gradient_families_are_continuous() {
    // 1024 pixels over 4 cells: a step of 1/256 cell. A continuous field moves by at most its
    // slope times the step (about 0.03 here); a lattice point dropped or swapped while its
    // contribution is not zero shows as a jump of order 0.1 to 1.
    let mut nodes = Vec::new();
    for dims in [2, 3, 4] {
        nodes.push(json!({"type": "simplex", "dims": dims, "frequency": 4.0, "z": 0.3, "w": 0.6}));
        for variant in ["fast", "smooth"] {
            nodes.push(
                json!({"type": "opensimplex2", "variant": variant, "dims": dims,
                              "frequency": 4.0, "z": 0.3, "w": 0.6}),
            );
        }
    }
    // The same far from the origin: the host splits the lattice in f64, so it stays clean.
    let far: Vec<_> = nodes
        .iter()
        .map(|n| {
            let mut n = n.clone();
            let dims = n["dims"].as_u64().unwrap() as usize;
            n["offset"] = json!([1.0e6, -2.5e5, 0.0, 0.0][..dims]);
            n["z"] = json!(3.0e5);
            n["w"] = json!(-7.0e5);
            n
        })
        .collect();
    nodes.extend(far);
    nodes.push(json!({"type": "cellular", "dims": 3, "frequency": 4.0, "offset": [1.0e6, -2.5e5, 0.0], "z": 3.0e5}));
    for node in nodes {
        let data = bake(node.clone(), &View::image(1024, 1024));
        let step = largest_step(&data, 1024);
        assert!(step < 0.045, "{node}: neighbouring pixels differ by {step}");
    }
}

/// Every family and dimension with each parameter set of `extras` whose keys it knows (a
/// `period` only where it tiles), as a one-node graph with `seed`: the family, dims, the extra
/// and the node's generate stage, whose uniforms are those of a 64x64 view.
fn one_node_stages(
    seed: u32,
    extras: &[serde_json::Value],
) -> Vec<(
    &'static dyn noisegraph::family::Family,
    u32,
    serde_json::Value,
    noisegraph::graph::GenerateStage,
    noisegraph::graph::StageUniform,
)> {
    use noisegraph::graph::StageKind;
    let mut cases = Vec::new();
    for &family in noisegraph::family::registry() {
        for &dims in family.dims() {
            for extra in extras {
                let mut node =
                    json!({"id": "n", "type": family.name(), "dims": dims, "frequency": 8.0});
                let mut known = true;
                for (k, v) in extra.as_object().unwrap() {
                    known &= family.params().iter().any(|p| p.name == k)
                        || (k == "period" && family.supports_period());
                    node[k] = v.clone();
                }
                if !known {
                    continue;
                }
                let g =
                    NoiseGraph::from_value(&json!({"seed": seed, "output": "n", "nodes": [node]}))
                        .unwrap_or_else(|e| panic!("{e}"));
                let plan = noisegraph::Plan::new(&g, None).unwrap();
                let StageKind::Generate(stage) = &plan.stages[0].kind else {
                    unreachable!()
                };
                let u = stage.uniforms(seed, &View::image(64, 64));
                cases.push((family, dims, extra.clone(), (**stage).clone(), u));
            }
        }
    }
    cases
}

/// The x lanes of a row of `n` samples at `x0 + (first + i) * step` from cell `cell0`: as
/// they are, or (`split`) each split into a cell and an offset in [0, 1), as a view's columns
/// are split (`noisegraph::graph::position`).
fn row_lanes(
    cell0: i32,
    x0: f32,
    step: f32,
    first: u32,
    n: usize,
    split: bool,
) -> (Vec<i32>, Vec<f32>) {
    (0..n)
        .map(|i| {
            let x = x0 + first.wrapping_add(i as u32) as f32 * step;
            if split {
                let fl = x.floor();
                (cell0.wrapping_add(fl as i32), x - fl)
            } else {
                (cell0, x)
            }
        })
        .unzip()
}

#[test]
fn row_samplers_equal_point_samplers_bit_for_bit() {
    // A family's row sampler must return exactly what its point sampler returns for each
    // sample of the row, on every parameter choice, with and without a period, for rows far
    // from the origin and at a tile offset, at every vector width this CPU has.
    use noisegraph::family::SampleRow;
    use noisegraph::vector::{with_vector_width, VectorWidth};
    let mut state = 0x9E37_79B9u32;
    let mut next = || {
        state = noisegraph::twin::hash::pcg(state);
        state
    };
    let extras = [
        json!({}),
        json!({"fade": "cubic"}),
        json!({"fade": "linear", "gradients": "random"}),
        json!({"period": 8}),
        // Cellular: every return and metric; jitter 0.5 makes the outer ring count.
        json!({"return": "f2_minus_f1", "metric": "manhattan"}),
        json!({"return": "f2", "metric": "euclidean_squared", "jitter": 0.5}),
        json!({"return": "cell_value", "metric": "chebyshev", "jitter": 0.5}),
        json!({"return": "f1", "metric": "euclidean", "jitter": 0.5}),
        // Gabor and phasor: random directions, wider kernels (more cells per sample).
        json!({"orientation": "isotropic", "impulses": 4, "bandwidth": 0.6}),
        json!({"profile": "square", "f0": 5.0}),
        json!({"falloff": "classic"}),
    ];
    let mut checked = 0;
    for (family, dims, extra, stage, u) in one_node_stages(5, &extras) {
        let Some(rows) = family.cpu_row_sampler(dims, &stage.source.params, u.family) else {
            continue;
        };
        let aux = stage.aux_data(5).unwrap_or_default().into();
        let point = family.cpu_sampler(dims, &stage.source.params, u.family, aux);
        for _ in 0..200 {
            let big = (next() % 3) as i32 - 1;
            // One row in four starts just below 2^23 (or -2^23) in x and crosses it, where
            // the row samplers leave their short form of the lattice split.
            let edge = match next() % 8 {
                0 => 8_388_000.0,
                1 => -8_389_000.0,
                _ => 0.0,
            };
            let cell = [
                big * 1_000_000 + (next() % 64) as i32,
                -((next() % 50_000) as i32),
                (next() % 9) as i32,
                0,
            ];
            let local = [
                edge + (next() % 4096) as f32 / 512.0 - 4.0,
                (next() % 4096) as f32 / 1024.0,
                (next() % 100) as f32 / 64.0,
                0.0,
            ];
            let step = (next() % 1000 + 1) as f32 / if edge == 0.0 { 4096.0 } else { 0.25 };
            let n = 1 + (next() % 77) as usize;
            let (cells_x, local_x) =
                row_lanes(cell[0], local[0], step, next() % 3000, n, next() % 2 == 0);
            let row = SampleRow {
                cell,
                local,
                cells_x: &cells_x,
                local_x: &local_x,
                cells_monotonic: true,
                // The rows' unit path where every offset lies in [0, 1) (most split rows).
                x_unit: local_x.iter().all(|l| (0.0..1.0).contains(l)),
                seed: next(),
                period: u.octaves[0].period,
            };
            let mut out = vec![0.0f32; n];
            for width in VectorWidth::supported() {
                with_vector_width(width, || rows(&row, &mut out));
                for (i, v) in out.iter().enumerate() {
                    let expected = point(&row.point(i));
                    assert_eq!(
                        v.to_bits(),
                        expected.to_bits(),
                        "{} {dims}D {extra} ({width}): sample {i} of {row:?}: row {v}, point {expected}",
                        family.name()
                    );
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 42, "row samplers checked: {checked}");
}

#[test]
fn long_row_samplers_equal_point_samplers_bit_for_bit() {
    // Whole image rows (hundreds to thousands of samples over a few to many cells), where
    // cellular rows take their block paths (each cell's points drawn once, blocks within one
    // or two cells) and fall back per sample elsewhere; steps of either sign, every width.
    use noisegraph::family::SampleRow;
    use noisegraph::vector::{with_vector_width, VectorWidth};
    let mut state = 0x51ED_2701u32;
    let mut next = || {
        state = noisegraph::twin::hash::pcg(state);
        state
    };
    let extras = [json!({}), json!({"fade": "cubic"})];
    let mut checked = 0;
    for (family, dims, extra, stage, u) in one_node_stages(11, &extras) {
        if !["value", "perlin", "simplex", "cellular"].contains(&family.name()) {
            continue;
        }
        let Some(rows) = family.cpu_row_sampler(dims, &stage.source.params, u.family) else {
            continue;
        };
        let point = family.cpu_sampler(
            dims,
            &stage.source.params,
            u.family,
            stage.aux_data(11).unwrap_or_default().into(),
        );
        for case in 0..12 {
            let n = [2048, 1000, 333, 4096][case % 4];
            // From 1/256 of a cell per sample (16 samples well inside a cell) to 1/3.
            let step = [1.0 / 256.0, 1.0 / 64.0, 1.0 / 17.0, 1.0 / 3.0][(case / 4 + case) % 4];
            let sign = if next() % 4 == 0 { -1.0 } else { 1.0 };
            let cell = [
                (next() % 2000) as i32 - 1000,
                (next() % 2000) as i32 - 1000,
                (next() % 9) as i32,
                0,
            ];
            let local = [
                (next() % 1024) as f32 / 256.0,
                (next() % 4096) as f32 / 1024.0,
                (next() % 100) as f32 / 64.0,
                0.0,
            ];
            let (cells_x, local_x) = row_lanes(
                cell[0],
                local[0],
                sign * step,
                next() % 64,
                n,
                next() % 2 == 0,
            );
            let row = SampleRow {
                cell,
                local,
                cells_x: &cells_x,
                local_x: &local_x,
                cells_monotonic: true,
                // The rows' unit path where every offset lies in [0, 1) (most split rows).
                x_unit: local_x.iter().all(|l| (0.0..1.0).contains(l)),
                seed: next(),
                period: u.octaves[0].period,
            };
            let mut out = vec![0.0f32; n];
            for width in VectorWidth::supported() {
                with_vector_width(width, || rows(&row, &mut out));
                for (i, v) in out.iter().enumerate() {
                    let expected = point(&row.point(i));
                    assert_eq!(
                        v.to_bits(),
                        expected.to_bits(),
                        "{} {dims}D {extra} ({width}): sample {i} of {row:?}: row {v}, point {expected}",
                        family.name()
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 12 * 8, "long rows checked: {checked}");
}

#[test]
fn row_samplers_equal_point_samplers_on_lattice_lines_and_signed_zeros() {
    // Rows whose y and z lie on lattice lines (offsets of exactly 0 or 1, either sign of
    // zero) and whose x steps over lattice points: where the gradient terms are zeros whose
    // sign depends on the order of operations. Every width this CPU has.
    use noisegraph::family::SampleRow;
    use noisegraph::vector::{with_vector_width, VectorWidth};
    let mut checked = 0;
    for (family, dims, extra, stage, u) in one_node_stages(3, &[json!({})]) {
        let Some(rows) = family.cpu_row_sampler(dims, &stage.source.params, u.family) else {
            continue;
        };
        let aux = stage.aux_data(3).unwrap_or_default().into();
        let point = family.cpu_sampler(dims, &stage.source.params, u.family, aux);
        for (y, z, x0, step) in [
            (0.0, 0.0, 0.0, 0.25),
            (-0.0, -0.0, -0.0, 0.5),
            (1.0, -0.0, -2.0, 0.25),
            (-0.0, 1.0, -0.0, -0.25),
            (0.5, -0.0, 3.0, 1.0),
        ] {
            let (cells_x, local_x) = row_lanes(5, x0, step, 0, 40, false);
            let row = SampleRow {
                cell: [5, -7, 2, 0],
                local: [x0, y, z, 0.0],
                cells_x: &cells_x,
                local_x: &local_x,
                cells_monotonic: true,
                // The rows' unit path where every offset lies in [0, 1) (most split rows).
                x_unit: local_x.iter().all(|l| (0.0..1.0).contains(l)),
                seed: 0x1234_5678,
                period: [0; 4],
            };
            let mut out = vec![0.0f32; 40];
            for width in VectorWidth::supported() {
                with_vector_width(width, || rows(&row, &mut out));
                for (i, v) in out.iter().enumerate() {
                    let expected = point(&row.point(i));
                    assert_eq!(
                        v.to_bits(),
                        expected.to_bits(),
                        "{} {dims}D {extra} ({width}): sample {i} of {row:?}: row {v}, point {expected}",
                        family.name()
                    );
                }
            }
        }
        checked += 1;
    }
    assert!(checked >= 8, "row samplers checked: {checked}");
}

#[test]
fn points_samplers_equal_point_samplers_bit_for_bit() {
    // A family's sampler for a warped row (positions given axis by axis) must return exactly
    // what its point sampler returns at each position, on every parameter choice, with and
    // without a period, near and far from the origin, at positions in any order, at every
    // vector width this CPU has.
    use noisegraph::family::SamplePoints;
    use noisegraph::vector::{with_vector_width, VectorWidth};
    let mut state = 0x85EB_CA6Bu32;
    let mut next = || {
        state = noisegraph::twin::hash::pcg(state);
        state
    };
    let extras = [
        json!({}),
        json!({"fade": "cubic"}),
        json!({"fade": "linear"}),
        json!({"fade": "linear", "gradients": "random"}),
        json!({"period": 8}),
        json!({"falloff": "classic"}),
    ];
    let mut checked = 0;
    for (family, dims, extra, stage, u) in one_node_stages(9, &extras) {
        let Some(points) = family.cpu_points_sampler(dims, &stage.source.params, u.family) else {
            continue;
        };
        let aux = stage.aux_data(9).unwrap_or_default().into();
        let point = family.cpu_sampler(dims, &stage.source.params, u.family, aux);
        for _ in 0..100 {
            let n = 1 + (next() % 77) as usize;
            let scale = [1.0f32, 64.0, 4096.0][(next() % 3) as usize];
            let local: Vec<Vec<f32>> = (0..4)
                .map(|_| {
                    (0..n)
                        .map(|_| ((next() % 65536) as f32 / 32768.0 - 1.0) * scale)
                        .collect()
                })
                .collect();
            let big = (next() % 3) as i32 - 1;
            // Per-point cells (a point query's form) far apart, as well as the common cell.
            let cells: Vec<Vec<i32>> = (0..4)
                .map(|_| (0..n).map(|_| next() as i32 >> (next() % 32)).collect())
                .collect();
            for per_point in [false, true] {
                let pts = SamplePoints {
                    cell: [
                        big * 1_000_000 + (next() % 64) as i32,
                        -((next() % 50_000) as i32),
                        (next() % 9) as i32,
                        0,
                    ],
                    cells: per_point.then_some([&cells[0], &cells[1], &cells[2], &cells[3]]),
                    local: [&local[0], &local[1], &local[2], &local[3]],
                    seed: next(),
                    period: u.octaves[0].period,
                };
                let mut out = vec![0.0f32; n];
                for width in VectorWidth::supported() {
                    with_vector_width(width, || points(&pts, &mut out));
                    for (i, v) in out.iter().enumerate() {
                        let expected = point(&pts.point(i));
                        assert_eq!(
                        v.to_bits(),
                        expected.to_bits(),
                        "{} {dims}D {extra} (per-point cells: {per_point}, {width}): point {i}: {v} against {expected}",
                        family.name()
                    );
                    }
                }
            }
        }
        checked += 1;
    }
    // value and Perlin (2D and 3D, three fades, a period; Perlin also random gradients) and
    // simplex (2D and 3D, both falloffs).
    assert!(checked >= 20, "points samplers checked: {checked}");
}

#[test]
fn gradient_row_and_points_samplers_equal_the_point_gradient_sampler_bit_for_bit() {
    // A family's vectorized gradient samplers (rows of an unwarped stage, points of a warped
    // one) must return exactly the value and derivatives of its point gradient sampler, on
    // every parameter choice, with and without a period, near and far from the origin.
    use noisegraph::family::{GradSamples, NoiseGrad, SamplePoints, SampleRow};
    let mut state = 0x27D4_EB2Fu32;
    let mut next = || {
        state = noisegraph::twin::hash::pcg(state);
        state
    };
    let extras = [
        json!({}),
        json!({"fade": "cubic"}),
        json!({"fade": "linear"}),
        json!({"fade": "linear", "gradients": "random"}),
        json!({"period": 8}),
    ];
    let same = |a: NoiseGrad, b: NoiseGrad| {
        a.value.to_bits() == b.value.to_bits()
            && a.d
                .iter()
                .zip(&b.d)
                .all(|(x, y)| x.to_bits() == y.to_bits())
    };
    let (mut rows_checked, mut points_checked) = (0, 0);
    for (family, dims, extra, stage, u) in one_node_stages(13, &extras) {
        let params = &stage.source.params;
        let aux: std::sync::Arc<[f32]> = stage.aux_data(13).unwrap_or_default().into();
        let Some(point) = family.cpu_grad_sampler(dims, params, u.family, aux) else {
            assert!(family
                .cpu_grad_row_sampler(dims, params, u.family)
                .is_none());
            assert!(family
                .cpu_grad_points_sampler(dims, params, u.family)
                .is_none());
            continue;
        };
        let label = format!("{} {dims}D {extra}", family.name());
        let mut out = GradSamples::default();
        if let Some(rows) = family.cpu_grad_row_sampler(dims, params, u.family) {
            for _ in 0..100 {
                let big = (next() % 3) as i32 - 1;
                let cell = [
                    big * 1_000_000 + (next() % 64) as i32,
                    -((next() % 50_000) as i32),
                    (next() % 9) as i32,
                    0,
                ];
                let local = [
                    (next() % 4096) as f32 / 512.0 - 4.0,
                    (next() % 4096) as f32 / 1024.0,
                    (next() % 100) as f32 / 64.0,
                    0.0,
                ];
                let step = (next() % 1000 + 1) as f32 / 4096.0;
                let n = 1 + (next() % 77) as usize;
                let (cells_x, local_x) =
                    row_lanes(cell[0], local[0], step, next() % 3000, n, next() % 2 == 0);
                let row = SampleRow {
                    cell,
                    local,
                    cells_x: &cells_x,
                    local_x: &local_x,
                    cells_monotonic: true,
                    // The rows' unit path where every offset lies in [0, 1) (most split rows).
                    x_unit: local_x.iter().all(|l| (0.0..1.0).contains(l)),
                    seed: next(),
                    period: u.octaves[0].period,
                };
                out.resize(n);
                rows(&row, &mut out);
                for i in 0..out.len() {
                    let expected = point(&row.point(i));
                    assert!(
                        same(out.get(i), expected),
                        "{label}: sample {i} of {row:?}: row {:?}, point {expected:?}",
                        out.get(i)
                    );
                }
            }
            rows_checked += 1;
        }
        if let Some(points) = family.cpu_grad_points_sampler(dims, params, u.family) {
            for _ in 0..100 {
                let n = 1 + (next() % 77) as usize;
                let scale = [1.0f32, 64.0, 4096.0][(next() % 3) as usize];
                let local: Vec<Vec<f32>> = (0..4)
                    .map(|_| {
                        (0..n)
                            .map(|_| ((next() % 65536) as f32 / 32768.0 - 1.0) * scale)
                            .collect()
                    })
                    .collect();
                // Every other draw with per-point cells (a point query's form), far apart.
                let cells: Vec<Vec<i32>> = (0..4)
                    .map(|_| (0..n).map(|_| next() as i32 >> (next() % 32)).collect())
                    .collect();
                let pts = SamplePoints {
                    cell: [(next() % 64) as i32, -((next() % 50_000) as i32), 3, 0],
                    cells: (next() % 2 == 0)
                        .then_some([&cells[0], &cells[1], &cells[2], &cells[3]]),
                    local: [&local[0], &local[1], &local[2], &local[3]],
                    seed: next(),
                    period: u.octaves[0].period,
                };
                out.resize(n);
                points(&pts, &mut out);
                for i in 0..n {
                    let expected = point(&pts.point(i));
                    assert!(
                        same(out.get(i), expected),
                        "{label}: point {i}: {:?} against {expected:?}",
                        out.get(i)
                    );
                }
            }
            points_checked += 1;
        }
    }
    // value and Perlin (2D and 3D, three fades, a period; Perlin also random gradients) and
    // simplex (2D and 3D).
    assert!(
        rows_checked >= 20 && points_checked >= 20,
        "gradient samplers checked: {rows_checked} row, {points_checked} points"
    );
}
