//! `noisegraph analyze FILE.npy`: the field-statistics-and-spectra study as a tool. Moments,
//! histogram, radial power spectrum and anisotropy as text; a figure with `--plot`; slope or
//! curvature images with `--view`.

use std::path::PathBuf;

use clap::Args;
use noisegraph::analysis::{
    derivative_view, power_spectrum, report_radii, stats, DerivativeView, Stats,
};
use noisegraph::io::{read_npy, write_field, Format};

use super::plot::{Canvas, BLACK, GREY, WHITE};
use super::Failure;

#[derive(Args)]
pub struct AnalyzeArgs {
    /// A float32 .npy file (as `bake --format npy` writes).
    pub file: PathBuf,
    /// Write a figure (histogram and radial power spectrum) to this PNG.
    #[arg(long, value_name = "OUT.png")]
    pub plot: Option<PathBuf>,
    /// Render the gradient magnitude (slope) or the Laplacian (curvature) as a PNG.
    #[arg(long, value_name = "slope|curvature")]
    pub view: Option<String>,
    /// Where --view writes (default: <FILE stem>_<view>.png beside FILE).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Histogram bins.
    #[arg(long, default_value_t = 16)]
    pub bins: usize,
    /// Which slice of a volume the spectrum and views use.
    #[arg(long, default_value_t = 0)]
    pub slice: u32,
}

pub fn run(args: AnalyzeArgs) -> Result<(), Failure> {
    if args.bins == 0 {
        return Err(Failure::bad_input("--bins: at least 1"));
    }
    let view = args
        .view
        .as_deref()
        .map(|v| {
            DerivativeView::parse(v).ok_or_else(|| {
                Failure::bad_input(format!("--view: unknown view '{v}' (slope, curvature)"))
            })
        })
        .transpose()?;
    let field = read_npy(&args.file).map_err(|e| Failure::bad_input(e.to_string()))?;
    if args.slice >= field.depth {
        return Err(Failure::bad_input(format!(
            "--slice: {} is past the last slice ({})",
            args.slice,
            field.depth - 1
        )));
    }
    let s = stats(&field.data, args.bins);
    println!(
        "file: {} ({} x {} x {})",
        args.file.display(),
        field.width,
        field.height,
        field.depth
    );
    println!("samples: {} finite of {}", s.count, field.data.len());
    println!("mean: {:.6}", s.mean);
    println!("std: {:.6}", s.std);
    println!("min: {:.6}", s.min);
    println!("max: {:.6}", s.max);
    println!("skewness: {:.4}", s.skewness);
    println!("excess kurtosis: {:.4}", s.excess_kurtosis);
    println!("histogram ({} bins over [min, max]):", args.bins);
    let peak = s.histogram.iter().copied().max().unwrap_or(1).max(1);
    let span = (s.max - s.min) / args.bins as f64;
    for (i, &c) in s.histogram.iter().enumerate() {
        println!(
            "  [{:>10.5}, {:>10.5}) {:>9} {}",
            s.min + span * i as f64,
            s.min + span * (i + 1) as f64,
            c,
            "#".repeat((c * 40 / peak) as usize)
        );
    }
    let spectrum = power_spectrum(&field, args.slice);
    let profile = spectrum.radial_profile();
    println!("radial power spectrum (mean power at radius r, cycles per image):");
    for r in report_radii(profile.len().saturating_sub(1)) {
        println!("  r={r:<6} {:.6e}", profile[r]);
    }
    println!("peak radius: {}", spectrum.peak_radius());
    let anisotropy = spectrum.anisotropy();
    println!(
        "anisotropy (energy along the axes / along the diagonals; 1 = isotropic): {anisotropy:.4}"
    );

    if let Some(path) = &args.plot {
        plot(&s, &profile, anisotropy)
            .save(path)
            .map_err(Failure::from)?;
        eprintln!("noisegraph: wrote {}", path.display());
    }
    if let Some(view) = view {
        let name = match view {
            DerivativeView::Slope => "slope",
            DerivativeView::Curvature => "curvature",
        };
        let out = args.output.clone().unwrap_or_else(|| {
            let stem = args.file.file_stem().unwrap_or_default().to_string_lossy();
            args.file.with_file_name(format!("{stem}_{name}.png"))
        });
        let image = derivative_view(&field, args.slice, view);
        let range = match view {
            DerivativeView::Slope => (0.0, image.min_max().map_or(1.0, |m| m.1)),
            // Symmetric about 0 so that flat curvature is mid-grey.
            DerivativeView::Curvature => {
                let m = image
                    .min_max()
                    .map_or(1.0, |(lo, hi)| lo.abs().max(hi.abs()));
                (-m, m)
            }
        };
        write_field(&image, &out, Format::Png, range)?;
        eprintln!("noisegraph: wrote {} ({name})", out.display());
    }
    Ok(())
}

/// Histogram (left) and radial power spectrum on log-log axes (right).
fn plot(s: &Stats, profile: &[f64], anisotropy: f64) -> Canvas {
    let (pw, ph) = (300i64, 200i64);
    let mut c = Canvas::new(2 * pw as u32 + 60, ph as u32 + 70, WHITE);
    let (x0, y0) = (20i64, 30i64);
    c.text(x0, 8, "histogram", BLACK);
    c.line(
        x0 as f64,
        (y0 + ph) as f64,
        (x0 + pw) as f64,
        (y0 + ph) as f64,
        BLACK,
    );
    let peak = s.histogram.iter().copied().max().unwrap_or(1).max(1) as f64;
    let bw = pw as f64 / s.histogram.len() as f64;
    for (i, &count) in s.histogram.iter().enumerate() {
        let h = (count as f64 / peak * ph as f64).round() as i64;
        let x = x0 + (i as f64 * bw) as i64;
        let w = (((i + 1) as f64 * bw) as i64 - (i as f64 * bw) as i64 - 1).max(1);
        c.fill_rect(x, y0 + ph - h, w, h, GREY);
    }
    c.text(x0, y0 + ph + 6, &format!("{:.3}", s.min), BLACK);
    let max_label = format!("{:.3}", s.max);
    c.text(
        x0 + pw - 8 * max_label.len() as i64,
        y0 + ph + 6,
        &max_label,
        BLACK,
    );
    c.text(
        x0,
        y0 + ph + 20,
        &format!("mean {:.3} std {:.3}", s.mean, s.std),
        BLACK,
    );

    let x1 = x0 + pw + 20;
    c.text(x1, 8, "radial power (log-log)", BLACK);
    c.line(
        x1 as f64,
        (y0 + ph) as f64,
        (x1 + pw) as f64,
        (y0 + ph) as f64,
        BLACK,
    );
    c.line(x1 as f64, y0 as f64, x1 as f64, (y0 + ph) as f64, BLACK);
    let points: Vec<(f64, f64)> = profile
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, &p)| p > 0.0)
        .map(|(r, &p)| ((r as f64).log2(), p.log10()))
        .collect();
    if points.len() >= 2 {
        let max_x = points.last().map_or(1.0, |p| p.0).max(1e-9);
        let (lo, hi) = points
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.1), b.max(p.1))
            });
        let span = (hi - lo).max(1e-9);
        let map = |p: &(f64, f64)| {
            (
                x1 as f64 + p.0 / max_x * pw as f64,
                (y0 + ph) as f64 - (p.1 - lo) / span * ph as f64,
            )
        };
        for pair in points.windows(2) {
            let (a, b) = (map(&pair[0]), map(&pair[1]));
            c.line(a.0, a.1, b.0, b.1, [200, 40, 40]);
        }
        c.text(x1 + 4, y0 + ph + 6, "r=1", BLACK);
        let r_label = format!("r={}", profile.len() - 1);
        c.text(
            x1 + pw - 8 * r_label.len() as i64,
            y0 + ph + 6,
            &r_label,
            BLACK,
        );
    }
    c.text(
        x1,
        y0 + ph + 20,
        &format!("anisotropy {anisotropy:.3}"),
        BLACK,
    );
    c
}
