//! Command-line interface. Exit codes (also in `--help` and the README): 0 success, 1 an
//! internal or device failure (GPU, I/O, a panic), 2 usage or bad input (nothing baked), 3 a
//! batch in which some jobs failed (the others ran; the summary line counts them), 130 / 143
//! / 129 interrupted by SIGINT / SIGTERM / SIGHUP (the bake's temporary files removed).

mod analyze;
mod bake;
mod cube_map;
mod gallery;
mod info;
mod job;
mod pack;
mod parity;
mod plot;
mod runner;
mod sample;
mod serve;
mod shader;
mod wgsl;

use clap::{Parser, Subcommand};

/// The exit codes, as `--help` lists them.
pub const EXIT_CODES_HELP: &str = "Exit codes:
  0    success (every output written or already there with --resume)
  1    internal or device failure: GPU error, I/O error, a bug (nothing about the input)
  2    usage or bad input: unknown flag, invalid graph or manifest, a missing input file,
       size over the limits
  3    a batch (several graphs or a manifest) in which some jobs failed; the others ran,
       and the summary line says how many failed
  130  interrupted by SIGINT (143: SIGTERM, 129: SIGHUP); the bake's temporary files are
       removed";

/// Exit code: success.
pub const EXIT_OK: i32 = 0;
/// Exit code: an internal or device failure.
pub const EXIT_INTERNAL: i32 = 1;
/// Exit code: usage or bad input.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code: some jobs of a batch failed.
pub const EXIT_JOBS_FAILED: i32 = 3;

/// Largest graph or manifest file read (64 MiB): a larger one (or `/dev/zero`) is refused
/// instead of filling memory.
pub const MAX_INPUT_FILE_BYTES: u64 = 64 << 20;

#[derive(Parser)]
#[command(
    name = "noisegraph",
    version,
    about = "GPU compute-shader noise engine: bake noise graphs to textures",
    after_help = EXIT_CODES_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bake graphs, presets or a manifest of jobs to PNG / 16-bit PNG / EXR / .npy files,
    /// whole or in tiles, optionally one share of a job array (--shard I/N).
    #[command(after_help = EXIT_CODES_HELP)]
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
    /// A node's value (and gradient) at the positions of a .npy array (N, dims), written as
    /// a float32 .npy of shape (N,) or (N, 1 + dims).
    Sample(sample::SampleArgs),
    /// A node as one self-contained WGSL module (fn NAME(p), NAME_precise(cell, local),
    /// NAME_grad(p)) to paste into your own shaders.
    Wgsl(wgsl::WgslArgs),
    /// A node as source code in WGSL, GLSL 4.50, GLSL ES 3.00, HLSL or MSL (NAME(p),
    /// NAME_precise(cell, local), NAME_grad(p)), optionally in an engine's shape (--target
    /// unity|unreal|godot|threejs|shadertoy|metal).
    Shader(shader::ShaderArgs),
}

/// A failure with its exit code.
#[derive(Debug)]
pub struct Failure {
    pub code: i32,
    pub message: String,
}

/// The exit code of an engine error: bad input (a graph, a request, a size or device limit,
/// a texture that does not fit) is the caller's to fix; anything else (the GPU, I/O,
/// encoding) is a failure of the machine.
pub fn exit_code(error: &noisegraph::Error) -> i32 {
    use noisegraph::Error;
    match error {
        Error::Graph(_)
        | Error::InvalidRequest(_)
        | Error::Limit(_)
        | Error::WrongTarget { .. }
        | Error::DeviceLimits { .. } => EXIT_BAD_INPUT,
        _ => EXIT_INTERNAL,
    }
}

impl From<noisegraph::Error> for Failure {
    fn from(e: noisegraph::Error) -> Self {
        Failure {
            code: exit_code(&e),
            message: e.to_string(),
        }
    }
}

impl Failure {
    pub fn bad_input(message: impl Into<String>) -> Self {
        Failure {
            code: EXIT_BAD_INPUT,
            message: message.into(),
        }
    }
}

/// Whether an I/O error on a file the user named is the name's fault (bad input, exit 2): the
/// file is missing, not permitted, a folder, or the name is not a valid path. Anything else
/// (a read error of the disk, a full disk) is a failure of the machine (exit 1).
pub fn is_bad_path(error: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        error.kind(),
        NotFound | PermissionDenied | IsADirectory | NotADirectory | InvalidFilename | InvalidInput
    )
}

/// The failure for an I/O error on the input file `path` (`what` names it: "graph file",
/// "manifest", "--points"): bad input naming the file when [`is_bad_path`], else a failure
/// of the machine, also naming it.
pub fn input_file_failure(what: &str, path: &std::path::Path, error: std::io::Error) -> Failure {
    Failure {
        code: if is_bad_path(&error) {
            EXIT_BAD_INPUT
        } else {
            EXIT_INTERNAL
        },
        message: format!("{what} {}: {error}", path.display()),
    }
}

/// Reads a text input file (a graph or a manifest) of at most [`MAX_INPUT_FILE_BYTES`];
/// `what` names it in messages ("graph file", "manifest").
pub fn read_input_file(what: &str, path: &std::path::Path) -> Result<String, Failure> {
    use std::io::Read;
    let fail = |e: String| Failure::bad_input(format!("{what} {}: {e}", path.display()));
    let file = std::fs::File::open(path).map_err(|e| input_file_failure(what, path, e))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| input_file_failure(what, path, e))?;
    if bytes.len() as u64 > MAX_INPUT_FILE_BYTES {
        return Err(fail(format!(
            "larger than the limit of {} MiB",
            MAX_INPUT_FILE_BYTES >> 20
        )));
    }
    String::from_utf8(bytes).map_err(|e| fail(format!("not UTF-8 text ({e})")))
}

pub fn main() -> i32 {
    // Before any other thread exists: it may set an environment variable.
    noisegraph::gpu::quiet_headless_probe();
    #[cfg(unix)]
    clean_up_on_signals();
    let cli = Cli::parse();
    // A panic is a bug, not bad input: its message is printed by the hook, and the exit code
    // is the one for internal failures rather than Rust's 101.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli))) {
        Ok(code) => code,
        Err(_) => {
            eprintln!("error: internal failure (a bug: please report it with the command line)");
            EXIT_INTERNAL
        }
    }
}

/// On SIGINT, SIGTERM or SIGHUP: removes the temporary files of the files being written (so
/// an interrupted bake leaves nothing that looks complete, and no `.partial` litter), then
/// exits with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
#[cfg(unix)]
fn clean_up_on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            let removed = noisegraph::io::remove_partial_files();
            eprintln!(
                "noisegraph: interrupted by signal {signal}; removed {removed} unfinished file(s)"
            );
            std::process::exit(128 + signal);
        }
    });
}

fn run(cli: Cli) -> i32 {
    let result = match cli.command {
        Command::Bake(args) => bake::run(*args),
        Command::Analyze(args) => analyze::run(args).map(|()| 0),
        Command::Gallery(args) => gallery::run(args).map(|()| 0),
        Command::Presets => {
            for p in noisegraph::presets::PRESETS {
                println!("{:<10} {}", p.name, p.description);
            }
            Ok(EXIT_OK)
        }
        Command::Parity(args) => parity::run(args),
        Command::Info => info::run().map(|()| 0),
        Command::Serve(args) => serve::run(args).map(|()| 0),
        Command::Sample(args) => sample::run(args).map(|()| 0),
        Command::Wgsl(args) => wgsl::run(args).map(|()| 0),
        Command::Shader(args) => shader::run(args).map(|()| 0),
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
