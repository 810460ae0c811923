//! Command-line interface. Bad input exits with code 2 and a message naming the problem;
//! other failures exit with 1.

mod analyze;
mod bake;
mod gallery;
mod info;
mod job;
mod parity;
mod plot;
mod serve;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "noisegraph",
    version,
    about = "GPU compute-shader noise engine: bake noise graphs to textures"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bake graphs, presets or a manifest of jobs to PNG / 16-bit PNG / EXR / .npy files,
    /// whole or in tiles, optionally one share of a job array (--shard I/N).
    Bake(Box<bake::BakeArgs>),
    /// Field statistics, histogram, radial power spectrum and anisotropy of a .npy file.
    Analyze(analyze::AnalyzeArgs),
    /// Every family and operator, labelled, in one contact sheet.
    Gallery(gallery::GalleryArgs),
    /// List the embedded preset graphs (bake --preset NAME).
    Presets,
    /// Run a graph on the GPU and the CPU reference and compare every stage.
    Parity(parity::ParityArgs),
    /// Print the GPU adapter noisegraph would use and the limits that matter to it.
    Info,
    /// A live preview playground in the browser: edit a graph with controls built from the
    /// engine's metadata and see each change rendered (http://127.0.0.1:8765/ by default).
    Serve(serve::ServeArgs),
}

/// A failure with its exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

impl From<noisegraph::Error> for Failure {
    fn from(e: noisegraph::Error) -> Self {
        Failure {
            code: e.exit_code(),
            message: e.to_string(),
        }
    }
}

impl Failure {
    pub fn bad_input(message: impl Into<String>) -> Self {
        Failure {
            code: 2,
            message: message.into(),
        }
    }
}

pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Bake(args) => bake::run(*args),
        Command::Analyze(args) => analyze::run(args).map(|()| 0),
        Command::Gallery(args) => gallery::run(args).map(|()| 0),
        Command::Presets => {
            for p in noisegraph::presets::PRESETS {
                println!("{:<10} {}", p.name, p.description);
            }
            Ok(0)
        }
        Command::Parity(args) => parity::run(args),
        Command::Info => info::run().map(|()| 0),
        Command::Serve(args) => serve::run(args).map(|()| 0),
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            eprintln!("error: {}", f.message);
            f.code
        }
    }
}

/// Parses "W", "WxH" or "WxHxD".
pub fn parse_size(text: &str) -> Result<[u32; 3], Failure> {
    let parts: Vec<&str> = text.split(['x', 'X']).collect();
    if parts.is_empty() || parts.len() > 3 {
        return Err(Failure::bad_input(format!(
            "--size: expected WxH or WxHxD (got '{text}')"
        )));
    }
    let mut out = [1u32; 3];
    for (i, p) in parts.iter().enumerate() {
        out[i] = p.trim().parse::<u32>().map_err(|_| {
            Failure::bad_input(format!(
                "--size: '{p}' is not a whole number of pixels (in '{text}')"
            ))
        })?;
        if out[i] == 0 {
            return Err(Failure::bad_input(format!(
                "--size: every dimension must be at least 1 (got '{text}')"
            )));
        }
    }
    if parts.len() == 1 {
        out[1] = out[0];
    }
    Ok(out)
}

/// Parses a comma-separated list of 1 to 3 finite numbers ("X,Y[,Z]").
pub fn parse_axes(flag: &str, text: &str, default: f64) -> Result<[f64; 3], Failure> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() > 3 {
        return Err(Failure::bad_input(format!(
            "{flag}: at most 3 numbers (got '{text}')"
        )));
    }
    let mut out = [default; 3];
    for (i, p) in parts.iter().enumerate() {
        let v: f64 = p.trim().parse().map_err(|_| {
            Failure::bad_input(format!("{flag}: '{p}' is not a number (in '{text}')"))
        })?;
        if !v.is_finite() {
            return Err(Failure::bad_input(format!("{flag}: '{p}' is not finite")));
        }
        out[i] = v;
    }
    Ok(out)
}
