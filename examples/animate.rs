//! N frames of a time-varying 3D graph, written as PNGs: the graph is compiled once and each
//! frame only moves the time (the z of the 3D noise) and records again.
//! `cargo run --example animate -- [out_dir] [frames]`

use std::path::{Path, PathBuf};
use std::sync::Arc;

use noisegraph::io::{write_field, Format};
use noisegraph::{CompiledGraph, Field, GpuContext, NoiseGraph, View};

/// The animated graph: a domain-warped 3D simplex fBm.
pub fn graph() -> NoiseGraph {
    NoiseGraph::from_json(
        r#"{ "seed": 7, "output": "flow", "nodes": [
            { "id": "base", "type": "simplex", "dims": 3, "frequency": 3 },
            { "id": "fbm", "type": "fbm", "source": "base", "octaves": 5 },
            { "id": "dx", "type": "fbm", "source": "base", "octaves": 3, "seed_offset": 11 },
            { "id": "dy", "type": "fbm", "source": "base", "octaves": 3, "seed_offset": 23 },
            { "id": "dz", "type": "fbm", "source": "base", "octaves": 3, "seed_offset": 37 },
            { "id": "flow", "type": "warp", "source": "fbm", "displace": ["dx", "dy", "dz"], "amplitude": 0.25 }
        ]}"#,
    )
    .expect("the example graph is valid")
}

/// Time of frame `i`: the z of the noise advances by `step` per frame.
pub fn frame_time(i: u32, step: f64) -> f64 {
    i as f64 * step
}

/// Renders `frames` frames of `size` into `out_dir/frame_NNN.png`; returns the paths and
/// the fields.
pub fn animate(
    ctx: &Arc<GpuContext>,
    out_dir: &Path,
    frames: u32,
    size: [u32; 2],
    step: f64,
) -> noisegraph::Result<Vec<(PathBuf, Field)>> {
    std::fs::create_dir_all(out_dir).map_err(|source| noisegraph::Error::Io {
        path: out_dir.display().to_string(),
        source,
    })?;
    let graph = graph();
    let range = graph.range_of(&graph.output);
    let mut compiled = CompiledGraph::new(ctx, &graph, None, View::image(size[0], size[1]))?;
    let target = compiled.create_target();
    let mut written = Vec::new();
    for i in 0..frames {
        compiled.set_time(frame_time(i, step))?;
        let mut encoder = ctx.device().create_command_encoder(&Default::default());
        compiled.record(&mut encoder, &target)?;
        ctx.queue().submit(Some(encoder.finish()));
        let field = compiled.read_target(&target)?;
        let path = out_dir.join(format!("frame_{i:03}.png"));
        write_field(&field, &path, Format::Png, range)?;
        written.push((path, field));
    }
    Ok(written)
}

fn main() -> noisegraph::Result<()> {
    let mut args = std::env::args().skip(1);
    let out_dir = PathBuf::from(args.next().unwrap_or_else(|| "frames".into()));
    let frames = args.next().and_then(|n| n.parse().ok()).unwrap_or(24);
    let ctx = Arc::new(GpuContext::new()?);
    let written = animate(&ctx, &out_dir, frames, [256, 256], 0.04)?;
    println!(
        "wrote {} frames to {} on {}",
        written.len(),
        out_dir.display(),
        ctx.describe()
    );
    Ok(())
}
