//! The output scales of simplex (2D, 3D, 4D, both falloffs) and OpenSimplex2 are the maxima of
//! their corner sums over a lattice cell, every lattice point's gradient chosen from the family's set to align best
//! with its offset (each point is independent, so that sum is reachable by some hash). This
//! file mirrors each kernel's choice of lattice points in f64, searches the cell for the
//! maximum (random starts, then hill climbing), and checks the constants: none may be
//! exceeded, and none may be loose by more than 1%. With NOISEGRAPH_SCALE_SEARCH=<starts>
//! it searches harder and prints the maxima instead of checking (how the constants were
//! derived).

use noisegraph::family::{lookup, FamilyParams, ParamValue};
use noisegraph::twin::opensimplex2::*;
use noisegraph::twin::simplex::*;

/// A lattice point's offset from the sample in the isometric (input-distance) frame.
type Offsets = Vec<[f64; 4]>;

fn os2_gradients(dims: u32, variant: u32) -> Vec<[f64; 4]> {
    let mut params = FamilyParams::default();
    params
        .values
        .insert("variant".into(), ParamValue::Choice(variant));
    let fam = lookup("opensimplex2").expect("registered");
    let aux = fam.aux_data(dims, &params, 0).expect("gradient table");
    let (n, count) = match dims {
        2 => (2, OS2_GRADS_2D),
        3 => (3, OS2_GRADS_3D),
        _ => (4, OS2_GRADS_4D),
    };
    (0..count as usize)
        .map(|i| std::array::from_fn(|k| if k < n { aux[i * n + k] as f64 } else { 0.0 }))
        .collect()
}

/// Simplex 2D's gradients: the improved Perlin set, unit vectors at 22.5 + k * 45 degrees.
fn simplex_gradients_2d() -> Vec<[f64; 4]> {
    (0..8)
        .map(|k| {
            let a = (22.5 + 45.0 * k as f64).to_radians();
            [a.cos(), a.sin(), 0.0, 0.0]
        })
        .collect()
}

/// Simplex 3D's gradients: the 12 cube-edge directions at unit length.
fn simplex_gradients_3d() -> Vec<[f64; 4]> {
    let r = 1.0 / 2f64.sqrt();
    let mut out = Vec::new();
    for zero in 0..3 {
        for signs in 0..4 {
            let mut g = [0.0; 4];
            let mut bit = 0;
            for (k, gk) in g.iter_mut().enumerate().take(3) {
                if k != zero {
                    *gk = if signs >> bit & 1 == 1 { -r } else { r };
                    bit += 1;
                }
            }
            out.push(g);
        }
    }
    out
}

/// The 32 unit edge gradients of simplex 4D.
fn simplex_gradients_4d() -> Vec<[f64; 4]> {
    let mut out = Vec::new();
    let r = 1.0 / 3f64.sqrt();
    for zero in 0..4 {
        for signs in 0..8 {
            let mut g = [0.0; 4];
            let mut bit = 0;
            for (k, gk) in g.iter_mut().enumerate() {
                if k != zero {
                    *gk = if signs >> bit & 1 == 1 { -r } else { r };
                    bit += 1;
                }
            }
            out.push(g);
        }
    }
    out
}

fn unskew(p: [f64; 4], n: usize, g: f64) -> [f64; 4] {
    let t = p[..n].iter().sum::<f64>() * g;
    std::array::from_fn(|k| if k < n { p[k] + t } else { 0.0 })
}

/// Simplex in n dimensions: the n + 1 corners of the simplex holding skewed position s in
/// [0, 1)^n (the kernels step along the axes in decreasing order of the offset).
fn simplex_points(s: [f64; 4], n: usize) -> Offsets {
    let r = (n as f64 + 1.0).sqrt();
    let g = -(n as f64 + 1.0 - r) / (n as f64 * (n as f64 + 1.0));
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| s[b].total_cmp(&s[a]));
    let mut v = [0.0; 4];
    let mut out = vec![unskew(s, n, g)];
    for &axis in &order {
        v[axis] += 1.0;
        out.push(unskew(std::array::from_fn(|k| s[k] - v[k]), n, g));
    }
    out
}

/// OpenSimplex2 2D: fast = the triangle's 3 corners, smooth = every point within range.
fn os2_2d_points(s: [f64; 4], variant: u32) -> Offsets {
    let g = -(3.0 - 3f64.sqrt()) / 6.0;
    let at = |v: [f64; 2]| unskew([s[0] - v[0], s[1] - v[1], 0.0, 0.0], 2, g);
    if variant == OS2_FAST {
        let d0 = at([0.0, 0.0]);
        let third = if d0[1] > d0[0] {
            [0.0, 1.0]
        } else {
            [1.0, 0.0]
        };
        return vec![d0, at([1.0, 1.0]), at(third)];
    }
    let mut out = Vec::new();
    for a in -3..=4 {
        for b in -3..=4 {
            out.push(at([a as f64, b as f64]));
        }
    }
    out
}

/// OpenSimplex2 3D in the rotated frame, r in [0, 1)^3 (a cell of the cubic lattice).
fn os2_3d_points(r: [f64; 4], variant: u32) -> Offsets {
    let mut out = Vec::new();
    for copy in 0..2 {
        let q: [f64; 3] = std::array::from_fn(|k| r[k] - 0.5 * copy as f64);
        if variant == OS2_FAST {
            let n = q.map(|v| (v + 0.5).floor());
            let d: [f64; 3] = std::array::from_fn(|k| q[k] - n[k]);
            out.push([d[0], d[1], d[2], 0.0]);
            let ad = d.map(f64::abs);
            let axis = if ad[0] >= ad[1] && ad[0] >= ad[2] {
                0
            } else if ad[1] > ad[0] && ad[1] >= ad[2] {
                1
            } else {
                2
            };
            let mut d2 = d;
            d2[axis] -= if d[axis] >= 0.0 { 1.0 } else { -1.0 };
            out.push([d2[0], d2[1], d2[2], 0.0]);
        } else {
            for a in -2..=2 {
                for b in -2..=2 {
                    for c in -2..=2 {
                        out.push([q[0] - a as f64, q[1] - b as f64, q[2] - c as f64, 0.0]);
                    }
                }
            }
        }
    }
    out
}

/// OpenSimplex2 4D at skewed position s in [0, 1)^4.
fn os2_4d_points(s: [f64; 4], variant: u32) -> Offsets {
    let mut out = Vec::new();
    if variant == OS2_FAST {
        let g = 0.309016994374947;
        let sum: f64 = s.iter().sum();
        let start = ((sum * 1.25) as i32).min(4);
        let mut p = s.map(|v| v - 0.2 * start as f64);
        for _ in 0..5 {
            let score0 = 1.0 - p.iter().sum::<f64>();
            let axis = if p[0] >= p[1] && p[0] >= p[2] && p[0] >= p[3] && p[0] >= score0 {
                0
            } else if p[1] > p[0] && p[1] >= p[2] && p[1] >= p[3] && p[1] >= score0 {
                1
            } else if p[2] > p[0] && p[2] > p[1] && p[2] >= p[3] && p[2] >= score0 {
                2
            } else if p[3] > p[0] && p[3] > p[1] && p[3] > p[2] && p[3] >= score0 {
                3
            } else {
                4
            };
            if axis < 4 {
                p[axis] -= 1.0;
            }
            out.push(unskew(p, 4, g));
            p = p.map(|v| v + 0.2);
        }
        return out;
    }
    let g = -0.138196601125011;
    for code in 0..625 {
        let v: [f64; 4] = std::array::from_fn(|k| ((code / 5usize.pow(k as u32)) % 5) as f64 - 2.0);
        out.push(unskew(std::array::from_fn(|k| s[k] - v[k]), 4, g));
    }
    out
}

/// (largest, most negative) corner sum at a position with best-aligned gradients.
fn extremes(points: &Offsets, rsq: f64, grads: &[[f64; 4]]) -> (f64, f64) {
    let (mut hi, mut lo) = (0.0, 0.0);
    for d in points {
        let a = rsq - d.iter().map(|x| x * x).sum::<f64>();
        if a <= 0.0 {
            continue;
        }
        let w = a * a * a * a;
        let dots = grads
            .iter()
            .map(|g| g[0] * d[0] + g[1] * d[1] + g[2] * d[2] + g[3] * d[3]);
        let (mx, mn) = dots.fold((f64::MIN, f64::MAX), |(a, b), x| (a.max(x), b.min(x)));
        hi += w * mx;
        lo += w * mn;
    }
    (hi, lo)
}

/// Small deterministic generator for search positions (not noise: no hash contract here).
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

/// The largest |sum| over the unit cell of the given lattice coordinates.
fn search(dims: usize, starts: usize, eval: &dyn Fn([f64; 4]) -> f64) -> f64 {
    let mut rng = Lcg(12345);
    let mut seeds: Vec<(f64, [f64; 4])> = (0..starts * 20)
        .map(|_| {
            let p: [f64; 4] = std::array::from_fn(|k| if k < dims { rng.next() } else { 0.0 });
            (eval(p), p)
        })
        .collect();
    seeds.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut best = 0.0f64;
    for &(mut value, mut p) in seeds.iter().take(starts) {
        let mut step = 0.02;
        while step > 1e-7 {
            let mut improved = false;
            for _ in 0..8 * dims {
                let q: [f64; 4] = std::array::from_fn(|k| {
                    if k < dims {
                        p[k] + step * (2.0 * rng.next() - 1.0)
                    } else {
                        0.0
                    }
                });
                let v = eval(q);
                if v > value {
                    value = v;
                    p = q;
                    improved = true;
                }
            }
            if !improved {
                step *= 0.5;
            }
        }
        best = best.max(value);
    }
    best
}

fn starts() -> (usize, bool) {
    match std::env::var("NOISEGRAPH_SCALE_SEARCH") {
        Ok(v) => (v.parse().expect("NOISEGRAPH_SCALE_SEARCH=<starts>"), true),
        Err(_) => (12, false),
    }
}

fn check(name: &str, scale: f32, dims: usize, eval: &dyn Fn([f64; 4]) -> f64) {
    let (n, verbose) = starts();
    let max = search(dims, n, eval);
    if verbose {
        println!("{name}: max {max:.9}, scale {:.6}", 1.0 / max);
        return;
    }
    let peak = max * scale as f64;
    assert!(
        peak <= 1.0 + 1e-5,
        "{name}: the sum reaches {max}, so scale {scale} gives {peak} > 1"
    );
    assert!(
        peak >= 0.99,
        "{name}: the largest sum found is {max}: scale {scale} only reaches {peak}"
    );
}

fn both(p: (f64, f64)) -> f64 {
    p.0.max(-p.1)
}

#[test]
fn simplex_scales_are_the_maxima() {
    let cases: [(&str, usize, f32, f64); 5] = [
        ("simplex 2D", 2, SIMPLEX_SCALE_2D, SIMPLEX_R2 as f64),
        ("simplex 3D", 3, SIMPLEX_SCALE_3D, SIMPLEX_R2 as f64),
        (
            "simplex 3D classic",
            3,
            SIMPLEX_SCALE_3D_CLASSIC,
            SIMPLEX_R2_CLASSIC as f64,
        ),
        ("simplex 4D", 4, SIMPLEX_SCALE_4D, SIMPLEX_R2 as f64),
        (
            "simplex 4D classic",
            4,
            SIMPLEX_SCALE_4D_CLASSIC,
            SIMPLEX_R2_CLASSIC as f64,
        ),
    ];
    for (name, dims, scale, rsq) in cases {
        let grads = match dims {
            2 => simplex_gradients_2d(),
            3 => simplex_gradients_3d(),
            _ => simplex_gradients_4d(),
        };
        check(name, scale, dims, &|s| {
            both(extremes(&simplex_points(s, dims), rsq, &grads))
        });
    }
}

#[test]
fn opensimplex2_scales_are_the_maxima() {
    let cases: [(&str, u32, u32, f32, f32); 6] = [
        ("os2 2D fast", 2, OS2_FAST, OS2_SCALE_2D_FAST, OS2_RSQ_FAST),
        (
            "os2 2D smooth",
            2,
            OS2_SMOOTH,
            OS2_SCALE_2D_SMOOTH,
            OS2_RSQ_2D_SMOOTH,
        ),
        ("os2 3D fast", 3, OS2_FAST, OS2_SCALE_3D_FAST, OS2_RSQ_FAST),
        (
            "os2 3D smooth",
            3,
            OS2_SMOOTH,
            OS2_SCALE_3D_SMOOTH,
            OS2_RSQ_3D_SMOOTH,
        ),
        ("os2 4D fast", 4, OS2_FAST, OS2_SCALE_4D_FAST, OS2_RSQ_FAST),
        (
            "os2 4D smooth",
            4,
            OS2_SMOOTH,
            OS2_SCALE_4D_SMOOTH,
            OS2_RSQ_4D_SMOOTH,
        ),
    ];
    for (name, dims, variant, scale, rsq) in cases {
        let grads = os2_gradients(dims, variant);
        let eval = |s: [f64; 4]| -> f64 {
            let points = match dims {
                2 => os2_2d_points(s, variant),
                3 => os2_3d_points(s, variant),
                _ => os2_4d_points(s, variant),
            };
            both(extremes(&points, rsq as f64, &grads))
        };
        check(name, scale, dims as usize, &eval);
    }
}
