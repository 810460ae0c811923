//! Exact gradients put to work: a slope map (the gradient's length) of an fBm terrain, and a
//! divergence-free flow (the curl of an fBm) that carries particles, drawn as their trails.
//!
//! `cargo run --release --example flow_field -- slope.png flow.png [size]` (default size 512;
//! on the GPU when there is a real one, else on the CPU path, as `bake --backend auto`).

use noisegraph::{Backend, Executor, NoiseGraph, View};

/// A colour ramp from dark blue through teal and orange to pale yellow, `t` in [0, 1].
fn ramp(t: f32) -> [f32; 3] {
    const STOPS: [[f32; 3]; 5] = [
        [0.02, 0.02, 0.08],
        [0.05, 0.20, 0.45],
        [0.10, 0.55, 0.55],
        [0.95, 0.55, 0.15],
        [1.00, 0.95, 0.75],
    ];
    let x = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f32;
    let i = (x as usize).min(STOPS.len() - 2);
    let f = x - i as f32;
    std::array::from_fn(|c| STOPS[i][c] + (STOPS[i + 1][c] - STOPS[i][c]) * f)
}

/// Writes RGB in [0, 1] (linear) as an sRGB-ish 8-bit PNG.
pub fn save(path: &str, size: u32, rgb: &[[f32; 3]]) {
    let bytes = rgb
        .iter()
        .flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0).powf(1.0 / 2.2) * 255.0).round() as u8))
        .collect();
    image::RgbImage::from_raw(size, size, bytes)
        .expect("size matches")
        .save(path)
        .unwrap_or_else(|e| panic!("writing {path}: {e}"));
    println!("wrote {path}");
}

/// The `q`-quantile of `values`.
fn quantile(values: &[f32], q: f64) -> f32 {
    let mut v: Vec<f32> = values.iter().copied().filter(|x| x.is_finite()).collect();
    v.sort_by(f32::total_cmp);
    v[((v.len() - 1) as f64 * q) as usize]
}

/// Bilinear sample of a 2-component field at pixel position (x, y), clamped to the edges.
fn sample(field: &[f32], size: u32, x: f32, y: f32) -> [f32; 2] {
    let n = size as usize;
    let (x, y) = (x.clamp(0.0, (n - 1) as f32), y.clamp(0.0, (n - 1) as f32));
    let (x0, y0) = (x.floor() as usize, y.floor() as usize);
    let (x1, y1) = ((x0 + 1).min(n - 1), (y0 + 1).min(n - 1));
    let (fx, fy) = (x - x0 as f32, y - y0 as f32);
    let at = |x: usize, y: usize, c: usize| field[(y * n + x) * 2 + c];
    std::array::from_fn(|c| {
        let top = at(x0, y0, c) + (at(x1, y0, c) - at(x0, y0, c)) * fx;
        let bottom = at(x0, y1, c) + (at(x1, y1, c) - at(x0, y1, c)) * fx;
        top + (bottom - top) * fy
    })
}

/// A deterministic number in [0, 1) for particle `i`, coordinate `k` (a Weyl sequence).
fn jitter(i: usize, k: usize) -> f32 {
    const ALPHA: [f64; 2] = [0.754_877_666_246_692_7, 0.569_840_290_998_053_3];
    ((i as f64 + 0.5) * ALPHA[k]).fract() as f32
}

/// The slope map: |grad h| of an fBm terrain (height units per unit of the view), through
/// the colour ramp scaled to its 99.5th percentile. One RGB per pixel, x fastest.
pub fn slope_map(executor: &Executor, size: u32) -> noisegraph::Result<Vec<[f32; 3]>> {
    let terrain = NoiseGraph::from_json(
        r#"{"seed": 1337, "output": "terrain", "nodes": [
            {"id": "base", "type": "perlin", "frequency": 3.0},
            {"id": "terrain", "type": "fbm", "source": "base", "octaves": 5, "gain": 0.35}]}"#,
    )?;
    let slope = executor
        .bake_gradient(&terrain, None, &View::image(size, size))?
        .slope();
    let top = quantile(&slope.data, 0.995);
    Ok(slope.data.iter().map(|&s| ramp(s / top)).collect())
}

/// The flow: particles carried by the curl (d psi/dy, -d psi/dx) of an fBm stream function
/// psi, drawn as their trails (coloured by psi where each started). The curl has no
/// divergence, so particles neither bunch up nor thin out: they follow psi's level lines.
pub fn flow_map(executor: &Executor, size: u32) -> noisegraph::Result<Vec<[f32; 3]>> {
    let view = View::image(size, size);
    let stream = NoiseGraph::from_json(
        r#"{"seed": 7, "output": "psi", "nodes": [
            {"id": "base", "type": "simplex", "frequency": 2.5},
            {"id": "psi", "type": "fbm", "source": "base", "octaves": 4, "gain": 0.5}]}"#,
    )?;
    let curl = executor.bake_curl(&stream, None, &view)?;
    let psi = executor.bake(&stream, None, &view)?;
    let speeds: Vec<f32> = curl
        .data
        .chunks_exact(2)
        .map(|v| v[0].hypot(v[1]))
        .collect();
    // Velocities are in view units per unit time; one step moves a typical particle 0.6 px.
    let pixels_per_unit = size as f32;
    let dt = 0.6 / (quantile(&speeds, 0.5) * pixels_per_unit);
    let (lo, hi) = psi.min_max().unwrap_or((-1.0, 1.0));
    let mut light = vec![[0.0f32; 3]; (size * size) as usize];
    let grid = (size / 6).max(1) as usize;
    let steps = 160;
    for i in 0..grid * grid {
        let mut x = ((i % grid) as f32 + jitter(i, 0)) * size as f32 / grid as f32;
        let mut y = ((i / grid) as f32 + jitter(i, 1)) * size as f32 / grid as f32;
        let colour = {
            let v = psi.get(x as u32, y as u32, 0);
            ramp(0.25 + 0.75 * (v - lo) / (hi - lo))
        };
        for step in 0..steps {
            // Midpoint (second-order Runge-Kutta) step along the curl, in pixels.
            let v = sample(&curl.data, size, x, y);
            let (mx, my) = (
                x + 0.5 * dt * v[0] * pixels_per_unit,
                y + 0.5 * dt * v[1] * pixels_per_unit,
            );
            let v = sample(&curl.data, size, mx, my);
            x += dt * v[0] * pixels_per_unit;
            y += dt * v[1] * pixels_per_unit;
            if !(0.0..size as f32 - 1.0).contains(&x) || !(0.0..size as f32 - 1.0).contains(&y) {
                break;
            }
            // The trail fades from the head back to where the particle started.
            let weight = 0.05 * step as f32 / steps as f32;
            let p = &mut light[y as usize * size as usize + x as usize];
            for c in 0..3 {
                p[c] += weight * colour[c];
            }
        }
    }
    let peak = quantile(
        &light.iter().map(|p| p[0] + p[1] + p[2]).collect::<Vec<_>>(),
        0.998,
    ) / 3.0;
    Ok(light
        .iter()
        .map(|p| p.map(|c| 1.0 - (-2.0 * c / peak).exp()))
        .collect())
}

fn main() -> noisegraph::Result<()> {
    let mut args = std::env::args().skip(1);
    let slope_path = args.next().unwrap_or_else(|| "slope.png".into());
    let flow_path = args.next().unwrap_or_else(|| "flow.png".into());
    let size: u32 = args.next().map_or(512, |s| s.parse().expect("size"));
    let (executor, note) = Executor::choose(Backend::Auto)?;
    println!(
        "{}{}",
        executor.describe(),
        note.map_or(String::new(), |n| format!(" ({n})"))
    );
    save(&slope_path, size, &slope_map(&executor, size)?);
    save(&flow_path, size, &flow_map(&executor, size)?);
    Ok(())
}
