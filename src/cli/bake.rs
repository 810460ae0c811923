//! `noisegraph bake`: graph file(s) to texture file(s).

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use noisegraph::export::{write_field, Format};
use noisegraph::{Backend, Executor, NoiseGraph, Plan, RunOptions, View};

use super::{parse_axes, parse_size, Failure};

#[derive(Args)]
pub struct BakeArgs {
    /// Graph file (JSON, see the README for the format).
    pub graph: PathBuf,
    /// Output file; the format follows the extension unless --format is given.
    #[arg(short, long)]
    pub output: PathBuf,
    /// Size in pixels: WxH, or WxHxD for a volume.
    #[arg(long, default_value = "512x512")]
    pub size: String,
    /// auto: a GPU adapter when there is one, else the CPU path; gpu; cpu.
    #[arg(long, default_value = "auto")]
    pub backend: String,
    /// png | png16 | exr | npy (default: from the output extension).
    #[arg(long)]
    pub format: Option<String>,
    /// Bake this node instead of the graph's output.
    #[arg(long)]
    pub node: Option<String>,
    /// Origin of the baked region: X,Y[,Z] (f64; large values stay smooth).
    #[arg(long, allow_hyphen_values = true)]
    pub origin: Option<String>,
    /// Extent of the baked region: EX[,EY[,EZ]] (default 1 on each axis).
    #[arg(long)]
    pub extent: Option<String>,
    /// PNG value mapping: `range` (the node's documented range) or `minmax` (of the data).
    #[arg(long, default_value = "range")]
    pub normalize: String,
}

pub fn load_graph(path: &Path) -> Result<NoiseGraph, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::bad_input(format!("graph file {}: {e}", path.display())))?;
    NoiseGraph::from_json(&text).map_err(|e| Failure::bad_input(format!("{}: {e}", path.display())))
}

pub fn run(args: BakeArgs) -> Result<(), Failure> {
    let graph = load_graph(&args.graph)?;
    let size = parse_size(&args.size)?;
    let mut view = View {
        size,
        origin: [0.0; 3],
        extent: [1.0; 3],
        window: None,
    };
    if let Some(o) = &args.origin {
        view.origin = parse_axes("--origin", o, 0.0)?;
    }
    if let Some(e) = &args.extent {
        let parts = parse_axes("--extent", e, f64::NAN)?;
        let first = parts[0];
        view.extent = parts.map(|v| if v.is_nan() { first } else { v });
        if view.extent.iter().any(|v| *v <= 0.0) {
            return Err(Failure::bad_input(format!(
                "--extent: every extent must be greater than 0 (got '{e}')"
            )));
        }
    }
    let format = match &args.format {
        Some(f) => Format::parse(f)?,
        None => Format::from_path(&args.output)?,
    };
    let minmax = match args.normalize.as_str() {
        "range" => false,
        "minmax" => true,
        other => {
            return Err(Failure::bad_input(format!(
                "--normalize: unknown mode '{other}' (range, minmax)"
            )))
        }
    };
    let backend: Backend = args.backend.parse().map_err(Failure::bad_input)?;
    let node = args.node.as_deref();
    let plan = Plan::new(&graph, node)?;
    plan.check_view(&view)?;
    if let Some(parent) = args.output.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return Err(Failure::bad_input(format!(
                "output folder {} does not exist",
                parent.display()
            )));
        }
    }

    let executor = Executor::new(backend)?;
    if matches!(executor, Executor::Cpu) && backend == Backend::Auto {
        eprintln!("noisegraph: no GPU adapter found; using the CPU reference path");
    } else {
        eprintln!("noisegraph: using {}", executor.describe());
    }
    let start = Instant::now();
    let field = executor.run(&plan, &view, &RunOptions::default())?;
    let elapsed = start.elapsed().as_secs_f64();
    let target = node.unwrap_or(&graph.output);
    let range = if minmax {
        field.min_max().unwrap_or((0.0, 1.0))
    } else {
        graph.range_of(target)
    };
    write_field(&field, &args.output, format, range)?;
    let pixels = view.pixel_count();
    eprintln!(
        "noisegraph: wrote {} ({} {}x{}x{}, node '{}'): {} samples in {:.3} s, {:.1} Msamples/s, {}",
        args.output.display(),
        format.name(),
        size[0],
        size[1],
        size[2],
        target,
        pixels,
        elapsed,
        pixels as f64 / elapsed / 1e6,
        executor.describe()
    );
    Ok(())
}
