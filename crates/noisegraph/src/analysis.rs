//! Field statistics and power spectra: what `noisegraph analyze` reports and what the tests
//! use to check the papers' claims (spectral peaks, isotropy, Gaussianity).

use rustfft::num_complex::Complex;
use rustfft::FftPlanner;

use crate::field::Field;

/// Moments and a histogram of a set of samples.
#[derive(Debug, Clone)]
pub struct Stats {
    /// Number of samples.
    pub count: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Standard deviation.
    pub std: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Fourth standardized moment minus 3 (0 for a Gaussian).
    pub excess_kurtosis: f64,
    /// Third standardized moment (0 for a symmetric distribution).
    pub skewness: f64,
    /// Counts of `bins` equal-width bins over [min, max].
    pub histogram: Vec<u64>,
}

/// Statistics of the finite samples of `data`.
pub fn stats(data: &[f32], bins: usize) -> Stats {
    let values: Vec<f64> = data
        .iter()
        .filter(|v| v.is_finite())
        .map(|&v| v as f64)
        .collect();
    let n = values.len().max(1) as f64;
    let mean = values.iter().sum::<f64>() / n;
    let (mut m2, mut m3, mut m4) = (0.0, 0.0, 0.0);
    let mut min = f64::INFINITY;
    let mut max = f64::NEG_INFINITY;
    for &v in &values {
        let d = v - mean;
        m2 += d * d;
        m3 += d * d * d;
        m4 += d * d * d * d;
        min = min.min(v);
        max = max.max(v);
    }
    let (m2, m3, m4) = (m2 / n, m3 / n, m4 / n);
    let std = m2.sqrt();
    let mut histogram = vec![0u64; bins.max(1)];
    let span = (max - min).max(f64::MIN_POSITIVE);
    for &v in &values {
        let b = (((v - min) / span) * bins as f64) as usize;
        histogram[b.min(bins.max(1) - 1)] += 1;
    }
    Stats {
        count: values.len(),
        mean,
        std,
        min,
        max,
        excess_kurtosis: if m2 > 0.0 { m4 / (m2 * m2) - 3.0 } else { 0.0 },
        skewness: if m2 > 0.0 { m3 / m2.powf(1.5) } else { 0.0 },
        histogram,
    }
}

/// The 2D power spectrum |FFT|^2 of one slice of a field (mean removed), unshifted:
/// index (u, v) holds frequency (u, v) cycles per image, wrapping to negative above half.
pub struct PowerSpectrum {
    /// Spectrum width in frequency bins (the slice width in pixels).
    pub width: usize,
    /// Spectrum height in frequency bins (the slice height in pixels).
    pub height: usize,
    /// Power per (u, v) bin, row-major with u fastest.
    pub power: Vec<f64>,
}

impl PowerSpectrum {
    /// Signed frequency (cycles per image) of column `u` / row `v`.
    pub fn freq(&self, u: usize, v: usize) -> (f64, f64) {
        let fu = if u <= self.width / 2 {
            u as f64
        } else {
            u as f64 - self.width as f64
        };
        let fv = if v <= self.height / 2 {
            v as f64
        } else {
            v as f64 - self.height as f64
        };
        (fu, fv)
    }

    /// Mean power per integer radius (cycles per image), from 0 to the Nyquist radius.
    pub fn radial_profile(&self) -> Vec<f64> {
        let max_r = self.width.min(self.height) / 2;
        let mut sum = vec![0.0; max_r + 1];
        let mut count = vec![0usize; max_r + 1];
        for v in 0..self.height {
            for u in 0..self.width {
                let (fu, fv) = self.freq(u, v);
                let r = (fu * fu + fv * fv).sqrt().round() as usize;
                if r <= max_r {
                    sum[r] += self.power[v * self.width + u];
                    count[r] += 1;
                }
            }
        }
        sum.iter()
            .zip(&count)
            .map(|(s, &c)| if c > 0 { s / c as f64 } else { 0.0 })
            .collect()
    }

    /// Total power in the annulus r_min <= r < r_max, by direction: `bins` bins over
    /// [0, pi) (the spectrum of a real field is symmetric, so angles are folded).
    pub fn angular_energy(&self, r_min: f64, r_max: f64, bins: usize) -> Vec<f64> {
        let mut out = vec![0.0; bins];
        for v in 0..self.height {
            for u in 0..self.width {
                let (fu, fv) = self.freq(u, v);
                let r = (fu * fu + fv * fv).sqrt();
                if r >= r_min && r < r_max {
                    let a = fv.atan2(fu).rem_euclid(std::f64::consts::PI);
                    let b = ((a / std::f64::consts::PI) * bins as f64) as usize;
                    out[b.min(bins - 1)] += self.power[v * self.width + u];
                }
            }
        }
        out
    }

    /// Energy within 22.5 degrees of the axes divided by energy within 22.5 degrees of the
    /// diagonals (1 for an isotropic field; above 1 when the lattice shows along the axes).
    pub fn anisotropy(&self) -> f64 {
        let bins = self.angular_energy(1.0, (self.width.min(self.height) / 2) as f64, 8);
        // 8 bins of 22.5 degrees over [0, 180): 0, 3, 4, 7 touch an axis, 1, 2, 5, 6 a diagonal.
        let axes = bins[0] + bins[7] + bins[3] + bins[4];
        let diagonals = bins[1] + bins[2] + bins[5] + bins[6];
        axes / diagonals.max(f64::MIN_POSITIVE)
    }

    /// The radius (cycles per image) with the most power, ignoring r < 1.
    pub fn peak_radius(&self) -> f64 {
        let profile = self.radial_profile();
        profile
            .iter()
            .enumerate()
            .skip(1)
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map_or(0.0, |(r, _)| r as f64)
    }
}

/// Power spectrum of slice `z` of `field`.
pub fn power_spectrum(field: &Field, z: u32) -> PowerSpectrum {
    let (w, h) = (field.width as usize, field.height as usize);
    let start = z as usize * w * h;
    let slice = &field.data[start..start + w * h];
    let mean = slice.iter().map(|&v| v as f64).sum::<f64>() / (w * h) as f64;
    let mut data: Vec<Complex<f64>> = slice
        .iter()
        .map(|&v| Complex::new(v as f64 - mean, 0.0))
        .collect();
    let mut planner = FftPlanner::new();
    let row_fft = planner.plan_fft_forward(w);
    for row in data.chunks_exact_mut(w) {
        row_fft.process(row);
    }
    let col_fft = planner.plan_fft_forward(h);
    let mut column = vec![Complex::new(0.0, 0.0); h];
    for u in 0..w {
        for v in 0..h {
            column[v] = data[v * w + u];
        }
        col_fft.process(&mut column);
        for v in 0..h {
            data[v * w + u] = column[v];
        }
    }
    let norm = (w * h) as f64;
    PowerSpectrum {
        width: w,
        height: h,
        power: data.iter().map(|c| c.norm_sqr() / norm).collect(),
    }
}

/// A derivative view of a field, for seeing what a fade function does to the surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DerivativeView {
    /// Gradient magnitude (central differences, one-sided at the edges), per pixel.
    Slope,
    /// The 5-point Laplacian (edges clamped), per pixel squared. A cubic fade's second
    /// derivative jumps at every lattice line, so its Laplacian shows grid-aligned creases;
    /// a quintic's is continuous (Perlin 2002).
    Curvature,
}

impl DerivativeView {
    /// Parses a view name (`slope` or `curvature`); `None` if unknown.
    pub fn parse(name: &str) -> Option<DerivativeView> {
        match name {
            "slope" => Some(DerivativeView::Slope),
            "curvature" => Some(DerivativeView::Curvature),
            _ => None,
        }
    }
}

/// Radii (cycles per image, up to `max_r`) at which a report samples a radial power
/// profile: about half an octave apart, each once (what `noisegraph analyze` prints and the
/// Python package's `analyze` returns).
pub fn report_radii(max_r: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let mut r = 1.0f64;
    while r.round() as usize <= max_r {
        let ri = r.round() as usize;
        if out.last() != Some(&ri) {
            out.push(ri);
        }
        r *= std::f64::consts::SQRT_2;
    }
    out
}

/// The slope or curvature of slice `z` of `field`, in units of the field per pixel.
pub fn derivative_view(field: &Field, z: u32, view: DerivativeView) -> Field {
    let (w, h) = (field.width as usize, field.height as usize);
    let start = z as usize * w * h;
    let slice = &field.data[start..start + w * h];
    let at = |x: isize, y: isize| {
        let x = x.clamp(0, w as isize - 1) as usize;
        let y = y.clamp(0, h as isize - 1) as usize;
        slice[y * w + x]
    };
    let mut out = vec![0f32; w * h];
    for y in 0..h as isize {
        for x in 0..w as isize {
            let c = at(x, y);
            let (l, r, u, d) = (at(x - 1, y), at(x + 1, y), at(x, y - 1), at(x, y + 1));
            out[y as usize * w + x as usize] = match view {
                DerivativeView::Slope => {
                    // One-sided at the edges: the clamped neighbour is the pixel itself.
                    let sx = if x == 0 || x == w as isize - 1 {
                        1.0
                    } else {
                        0.5
                    };
                    let sy = if y == 0 || y == h as isize - 1 {
                        1.0
                    } else {
                        0.5
                    };
                    let gx = (r - l) * sx;
                    let gy = (d - u) * sy;
                    (gx * gx + gy * gy).sqrt()
                }
                DerivativeView::Curvature => l + r + u + d - 4.0 * c,
            };
        }
    }
    Field::new(w as u32, h as u32, 1, out)
}
