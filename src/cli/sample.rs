//! `noisegraph sample GRAPH.json --points pts.npy -o values.npy`: a node's value (and
//! gradient) at the positions of a `.npy` array, written as a float32 `.npy`.

use std::path::PathBuf;

use clap::Args;
use noisegraph::io::{read_npy_points, write_npy};
use noisegraph::query::{check_positions, PointQuery, MAX_POINTS};
use noisegraph::{Backend, Executor};

use super::job::GraphSource;
use super::Failure;

#[derive(Args)]
pub struct SampleArgs {
    /// Graph file (JSON).
    pub graph: Option<PathBuf>,
    /// Sample an embedded preset instead of a file.
    #[arg(long)]
    pub preset: Option<String>,
    /// Positions: a .npy array of float64 (or float32), shape (N, dims) for the node's dims,
    /// in the coordinates of bakes (pixel (x, y) of a view lies at origin + (x, y) * extent /
    /// size).
    #[arg(long)]
    pub points: PathBuf,
    /// Output .npy: float32 of shape (N,), or (N, 1 + dims) with --gradient (the value, then
    /// d/dx, d/dy[, d/dz[, d/dw]]).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Sample this node instead of the graph's output.
    #[arg(long)]
    pub node: Option<String>,
    /// Also write the gradient with respect to the position (nodes whose families all have
    /// an analytic gradient).
    #[arg(long)]
    pub gradient: bool,
    /// auto: a GPU adapter when there is one, else the CPU path; gpu; cpu.
    #[arg(long, default_value = "auto")]
    pub backend: String,
}

pub fn run(args: SampleArgs) -> Result<(), Failure> {
    let backend: Backend = args.backend.parse().map_err(Failure::bad_input)?;
    let source = match (&args.graph, &args.preset) {
        (Some(g), None) => GraphSource::File(g.clone()),
        (None, Some(p)) => GraphSource::Preset(p.clone()),
        _ => {
            return Err(Failure::bad_input(
                "give a graph file or --preset NAME (one of them)",
            ))
        }
    };
    if args.output.extension().and_then(|e| e.to_str()) != Some("npy") {
        return Err(Failure::bad_input(format!(
            "-o {}: the output is a .npy file (name it *.npy)",
            args.output.display()
        )));
    }
    let graph = source.load()?;
    // Compiled here first so a bad node or a gradient the node lacks is reported before any
    // file is read or device opened.
    let query = PointQuery::new(&graph, args.node.as_deref())?;
    if args.gradient {
        query.check_gradient()?;
    }
    let dims = query.dims();
    let (limit, why) = point_limit(dims, args.gradient);
    let positions = read_npy_points(&args.points, dims, limit).map_err(|e| match e {
        noisegraph::Error::Limit(m) => Failure::bad_input(format!("{m} ({why})")),
        noisegraph::Error::Io { path, source } => {
            super::input_file_failure("--points", std::path::Path::new(&path), source)
        }
        e => e.into(),
    })?;
    let n = check_positions(&positions, dims)
        .map_err(|e| Failure::bad_input(format!("{}: {e}", args.points.display())))?;
    let values = match backend {
        Backend::Cpu => {
            if args.gradient {
                query.gradients(&positions)?
            } else {
                query.values(&positions)?
            }
        }
        _ => {
            let (executor, note) = Executor::choose(backend)?;
            if let Some(note) = note {
                eprintln!("noisegraph: {note}");
            }
            executor.sample_points(&graph, args.node.as_deref(), &positions, args.gradient)?
        }
    };
    let shape = if args.gradient {
        vec![n, 1 + dims as usize]
    } else {
        vec![n]
    };
    write_npy(&args.output, &shape, &values)?;
    eprintln!(
        "noisegraph: {n} points of node '{}' -> {} {:?}",
        query.node(),
        args.output.display(),
        shape
    );
    Ok(())
}

/// The most points one run takes: [`MAX_POINTS`], or fewer when the memory the process may
/// still allocate (`noisegraph::memory::available_bytes`) cannot hold the positions, their GPU
/// split and the results; with the reason, for the message.
fn point_limit(dims: u32, gradient: bool) -> (usize, String) {
    // f64 positions, a 32-byte GPU point (the larger path), f32 results.
    let per_point = 8 * dims as usize + 32 + 4 * if gradient { 1 + dims as usize } else { 1 };
    match noisegraph::memory::available_bytes() {
        Some(bytes) if (bytes / per_point as u64) < MAX_POINTS as u64 => (
            (bytes / per_point as u64) as usize,
            format!(
                "{per_point} bytes per point and {} MiB of memory available",
                bytes >> 20
            ),
        ),
        _ => (MAX_POINTS, "the largest query is 2^28 points".into()),
    }
}
