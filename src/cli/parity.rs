//! `noisegraph parity GRAPH.json`: runs every stage on the GPU and on the CPU reference and
//! prints a table; exits 1 when any stage is over the tolerance.

use std::path::PathBuf;

use clap::Args;
use noisegraph::graph::PlanOptions;
use noisegraph::parity::{run_parity, PARITY_TOLERANCE};
use noisegraph::{GpuContext, Plan, View};

use super::job::GraphSource;
use super::{parse_size, Failure};

#[derive(Args)]
pub struct ParityArgs {
    /// Graph file (JSON).
    pub graph: Option<PathBuf>,
    /// Check an embedded preset instead of a file.
    #[arg(long)]
    pub preset: Option<String>,
    /// Size in pixels: WxH (or WxHxD).
    #[arg(long, default_value = "256x256")]
    pub size: String,
    /// Check the stages of this node instead of the graph's output.
    #[arg(long)]
    pub node: Option<String>,
}

pub fn run(args: ParityArgs) -> Result<i32, Failure> {
    let source = match (&args.graph, &args.preset) {
        (Some(g), None) => GraphSource::File(g.clone()),
        (None, Some(p)) => GraphSource::Preset(p.clone()),
        _ => {
            return Err(Failure::bad_input(
                "give a graph file or --preset NAME (one of them)",
            ))
        }
    };
    let graph = source.load()?;
    let mut view = View::image(1, 1);
    view.size = parse_size(&args.size)?;
    // Unfused: every node a stage of its own gives the finest per-stage table (fused
    // kernels are held to the same contract by tests/fusion.rs).
    let plan = Plan::with_options(&graph, args.node.as_deref(), PlanOptions { fuse: false })?;
    plan.check_view(&view)?;
    let ctx = GpuContext::new()?;
    let results = run_parity(&ctx, &plan, &view)?;
    println!(
        "parity of {} at {}x{}x{}, GPU: {}, tolerance {PARITY_TOLERANCE:e} (a warp's: more, as its row says)",
        source.stem(),
        view.size[0],
        view.size[1],
        view.size[2],
        ctx.describe()
    );
    println!(
        "{:<20} {:<14} {:>12} {:>10} {:>16} {:>8}",
        "stage", "family", "max abs err", "tolerance", "px over tol", "verdict"
    );
    let mut failed = 0;
    for r in &results {
        let verdict = if r.passed() { "ok" } else { "FAIL" };
        if !r.passed() {
            failed += 1;
        }
        println!(
            "{:<20} {:<14} {:>12.3e} {:>10.1e} {:>16} {:>8}",
            r.node,
            r.family,
            r.max_abs,
            r.tolerance,
            format!("{}/{}", r.over, r.total),
            verdict
        );
    }
    println!(
        "{} of {} stages within tolerance",
        results.len() - failed,
        results.len()
    );
    Ok(i32::from(failed > 0))
}
