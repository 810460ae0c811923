//! The analysis functions on fields whose answers are known analytically.

use noisegraph::analysis::{power_spectrum, stats};
use noisegraph::Field;

fn cosine_field(n: u32, fx: f64, fy: f64) -> Field {
    let data = (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f64 / n as f64, (i / n) as f64 / n as f64);
            (std::f64::consts::TAU * (fx * x + fy * y)).cos() as f32
        })
        .collect();
    Field::new(n, n, 1, data)
}

#[test]
fn spectrum_of_a_plane_wave_peaks_at_its_frequency_and_direction() {
    let s = power_spectrum(&cosine_field(64, 12.0, 0.0), 0);
    assert_eq!(s.peak_radius(), 12.0);
    assert!(s.anisotropy() > 100.0, "axis-aligned wave is anisotropic");
    let diag = power_spectrum(&cosine_field(64, 8.0, 8.0), 0);
    assert_eq!(diag.peak_radius(), 11.0); // sqrt(128) = 11.3
    assert!(
        diag.anisotropy() < 0.01,
        "diagonal wave has its energy on the diagonals"
    );
    let angles = diag.angular_energy(10.0, 12.0, 4);
    assert!(
        angles[1] > 100.0 * angles[0],
        "45 degree bin holds the energy: {angles:?}"
    );
}

#[test]
fn stats_of_known_samples() {
    let s = stats(&[1.0, 2.0, 3.0, 4.0, f32::NAN], 4);
    assert_eq!(s.count, 4);
    assert!((s.mean - 2.5).abs() < 1e-12);
    assert!((s.std - 1.25f64.sqrt()).abs() < 1e-12);
    assert_eq!(s.histogram, vec![1, 1, 1, 1]);
    // A uniform distribution has excess kurtosis -1.2.
    let uniform: Vec<f32> = (0..100_000).map(|i| i as f32 / 100_000.0).collect();
    assert!((stats(&uniform, 10).excess_kurtosis + 1.2).abs() < 1e-3);
}
