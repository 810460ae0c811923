use std::sync::{Arc, Mutex};

use super::{
    xy, xyz, Family, FamilyParams, FamilyUniforms, GradSampler, ParamKind, ParamSpec, Sampler,
};
use crate::twin::hash::{hash_to_signed, pcg4d, seed_hash};
use crate::twin::wavelet::{wavelet_2d, wavelet_2d_grad, wavelet_3d, wavelet_3d_grad};

/// Wavelet noise (Cook and DeRose 2005): a band-pass tile reconstructed with quadratic B-splines.
pub struct Wavelet;

/// The field is scaled to this standard deviation over the tile (so [-1, 1] holds about 99.7%).
pub const OUTPUT_STD: f64 = 1.0 / 3.0;
/// Largest 3D tile edge: 128^3 floats are 8 MiB.
pub const MAX_TILE_3D: i64 = 128;

const PARAMS: &[ParamSpec] = &[ParamSpec {
    name: "tile",
    kind: ParamKind::Integer { default: 128, min: 16, max: 512 },
    help: "edge n of the coefficient tile, a power of two (at most 128 in 3D); the field repeats every n cells",
}];

/// The paper's analysis (downsampling) filter for quadratic B-splines, taps -16..15.
const DOWNSAMPLE_TAPS: [f64; 32] = [
    0.000334, -0.001528, 0.000410, 0.003545, -0.000938, -0.008233, 0.002172, 0.019120, -0.005040,
    -0.044412, 0.011655, 0.103311, -0.025936, -0.243780, 0.033979, 0.655340, 0.655340, 0.033979,
    -0.243780, -0.025936, 0.103311, 0.011655, -0.044412, -0.005040, 0.019120, 0.002172, -0.008233,
    -0.000938, 0.003546, 0.000410, -0.001528, 0.000334,
];
/// The refinement (upsampling) filter of the quadratic B-spline, taps -2..1.
const UPSAMPLE_TAPS: [f64; 4] = [0.25, 0.75, 0.75, 0.25];
/// Autocorrelation of the quadratic B-spline at offsets -2..2 (the quintic B-spline): used
/// to get the field's variance from its coefficients exactly.
const SPLINE_AUTOCORRELATION: [f64; 5] = [
    1.0 / 120.0,
    26.0 / 120.0,
    66.0 / 120.0,
    26.0 / 120.0,
    1.0 / 120.0,
];

/// Upsample(Downsample(line)) on a periodic line of even length n.
fn low_pass_line(line: &[f64]) -> Vec<f64> {
    let n = line.len() as i64;
    let half = n / 2;
    let coarse: Vec<f64> = (0..half)
        .map(|i| {
            (0..32)
                .map(|t| {
                    DOWNSAMPLE_TAPS[t as usize] * line[(2 * i + t - 16).rem_euclid(n) as usize]
                })
                .sum()
        })
        .collect();
    (0..n)
        .map(|i| {
            let k0 = i / 2;
            (k0..=k0 + 1)
                .map(|k| {
                    UPSAMPLE_TAPS[(i - 2 * k + 2) as usize] * coarse[k.rem_euclid(half) as usize]
                })
                .sum()
        })
        .collect()
}

/// Applies `f` to every line of an n^dims grid along `axis` (x fastest).
fn map_lines(data: &mut [f64], n: usize, axis: usize, f: impl Fn(&[f64]) -> Vec<f64>) {
    let stride = n.pow(axis as u32);
    let mut line = vec![0.0; n];
    for start in 0..data.len() {
        // A line starts wherever the coordinate along `axis` is 0.
        if !(start / stride).is_multiple_of(n) {
            continue;
        }
        for (k, v) in line.iter_mut().enumerate() {
            *v = data[start + k * stride];
        }
        for (k, v) in f(&line).into_iter().enumerate() {
            data[start + k * stride] = v;
        }
    }
}

/// The band-pass coefficient tile for a seed, scaled so the reconstructed field has mean 0 and
/// standard deviation [`OUTPUT_STD`]. Host only, f64, every random number from pcg4d.
pub fn wavelet_tile(dims: u32, n: usize, seed: u32) -> Vec<f32> {
    let len = n.pow(dims);
    let sh = seed_hash(seed);
    // Approximately Gaussian white noise: a sum of four hashed uniforms (integer hash only).
    let noise: Vec<f64> = (0..len)
        .map(|i| {
            let (x, y, z) = (i % n, (i / n) % n, i / (n * n));
            pcg4d([x as u32, y as u32, z as u32, sh])
                .iter()
                .map(|&h| hash_to_signed(h) as f64)
                .sum()
        })
        .collect();
    // Cook and DeRose: subtract the separable downsample-then-upsample reconstruction.
    let mut low = noise.clone();
    for axis in 0..dims as usize {
        map_lines(&mut low, n, axis, low_pass_line);
    }
    let band: Vec<f64> = noise.iter().zip(&low).map(|(a, b)| a - b).collect();
    // The paper adds the tile to a copy of itself shifted by an odd offset, evening out the
    // variance of even and odd coefficients.
    let mut offset = n / 2;
    if offset.is_multiple_of(2) {
        offset += 1;
    }
    let mut tile: Vec<f64> = (0..len)
        .map(|i| {
            let (x, y, z) = (i % n, (i / n) % n, i / (n * n));
            let (sx, sy) = ((x + offset) % n, (y + offset) % n);
            let sz = if dims == 3 { (z + offset) % n } else { 0 };
            band[i] + band[sx + n * sy + n * n * sz]
        })
        .collect();
    let mean = tile.iter().sum::<f64>() / len as f64;
    tile.iter_mut().for_each(|c| *c -= mean);
    // Mean square of the reconstruction = c . (A c) / len, A the separable spline autocorrelation.
    let mut smooth = tile.clone();
    for axis in 0..dims as usize {
        map_lines(&mut smooth, n, axis, |line| {
            let m = line.len() as i64;
            (0..m)
                .map(|i| {
                    (0..5)
                        .map(|t| {
                            SPLINE_AUTOCORRELATION[t as usize]
                                * line[(i + t - 2).rem_euclid(m) as usize]
                        })
                        .sum()
                })
                .collect()
        });
    }
    let variance = tile.iter().zip(&smooth).map(|(a, b)| a * b).sum::<f64>() / len as f64;
    let scale = OUTPUT_STD / variance.max(f64::MIN_POSITIVE).sqrt();
    tile.iter().map(|c| (c * scale) as f32).collect()
}

/// Recent tiles, so one bake (which asks for the tile on both paths) builds it once.
fn cached_tile(dims: u32, n: usize, seed: u32) -> Vec<f32> {
    type Entry = ((u32, usize, u32), Arc<Vec<f32>>);
    static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());
    let key = (dims, n, seed);
    if let Ok(cache) = CACHE.lock() {
        if let Some((_, tile)) = cache.iter().find(|(k, _)| *k == key) {
            return tile.as_ref().clone();
        }
    }
    let tile = Arc::new(wavelet_tile(dims, n, seed));
    if let Ok(mut cache) = CACHE.lock() {
        if cache.len() >= 4 {
            cache.remove(0);
        }
        cache.push((key, tile.clone()));
    }
    tile.as_ref().clone()
}

impl Family for Wavelet {
    fn name(&self) -> &'static str {
        "wavelet"
    }
    fn summary(&self) -> &'static str {
        "wavelet noise (Cook and DeRose 2005): band-limited, tiles every `tile` cells; std 1/3"
    }
    fn dims(&self) -> &'static [u32] {
        &[2, 3]
    }
    fn params(&self) -> &'static [ParamSpec] {
        PARAMS
    }
    fn range(&self, _dims: u32, _params: &FamilyParams) -> (f32, f32) {
        // Three standard deviations of a Gaussian-like field.
        (-1.0, 1.0)
    }
    fn shader_files(&self) -> &'static [&'static str] {
        &["wavelet.wgsl"]
    }
    fn wgsl_call(&self, dims: u32, _params: &FamilyParams) -> String {
        match dims {
            2 => "wavelet_2d(cell.xy, local.xy, seed, u32(params.family[0].x))".into(),
            _ => "wavelet_3d(cell.xyz, local.xyz, seed, u32(params.family[0].x))".into(),
        }
    }
    fn uniforms(&self, _dims: u32, params: &FamilyParams) -> FamilyUniforms {
        let mut u = [0f32; 16];
        u[0] = params.integer("tile") as f32;
        u
    }
    fn aux_data(&self, dims: u32, params: &FamilyParams, seed: u32) -> Option<Vec<f32>> {
        Some(cached_tile(dims, params.integer("tile") as usize, seed))
    }
    fn cpu_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        uniforms: FamilyUniforms,
        aux: Arc<[f32]>,
    ) -> Sampler {
        let n = uniforms[0] as u32;
        match dims {
            2 => Box::new(move |s| wavelet_2d(xy(s.cell), xy(s.local), s.seed, n, &aux)),
            _ => Box::new(move |s| wavelet_3d(xyz(s.cell), xyz(s.local), s.seed, n, &aux)),
        }
    }
    fn wgsl_grad_call(&self, dims: u32, _params: &FamilyParams) -> Option<String> {
        Some(match dims {
            2 => "wavelet_2d_grad(cell.xy, local.xy, seed, u32(params.family[0].x))".into(),
            _ => "wavelet_3d_grad(cell.xyz, local.xyz, seed, u32(params.family[0].x))".into(),
        })
    }
    fn cpu_grad_sampler(
        &self,
        dims: u32,
        _params: &FamilyParams,
        uniforms: FamilyUniforms,
        aux: Arc<[f32]>,
    ) -> Option<GradSampler> {
        let n = uniforms[0] as u32;
        Some(match dims {
            2 => Box::new(move |s| wavelet_2d_grad(xy(s.cell), xy(s.local), s.seed, n, &aux)),
            _ => Box::new(move |s| wavelet_3d_grad(xyz(s.cell), xyz(s.local), s.seed, n, &aux)),
        })
    }
    fn validate(&self, dims: u32, params: &FamilyParams) -> Vec<(String, String)> {
        let n = params.integer("tile");
        let mut issues = Vec::new();
        if n <= 0 || (n & (n - 1)) != 0 {
            issues.push(("tile".into(), format!("must be a power of two (got {n})")));
        } else if dims == 3 && n > MAX_TILE_3D {
            issues.push((
                "tile".into(),
                format!(
                    "a 3D tile is at most {MAX_TILE_3D} cells on a side (got {n}: {} MiB)",
                    n * n * n * 4 / (1 << 20)
                ),
            ));
        }
        issues
    }
}
