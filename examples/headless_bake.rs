//! The shortest path from a graph to a PNG: the GPU when wgpu finds one, else the CPU path.
//! `cargo run --example headless_bake -- [out.png]`

use std::path::Path;

use noisegraph::io::{write_field, Format};
use noisegraph::{Backend, Executor, NoiseGraph, View};

/// Bakes a 512 x 512 fBm into an 8-bit PNG at `out`.
pub fn bake(out: &Path) -> noisegraph::Result<()> {
    let graph = NoiseGraph::from_json(
        r#"{ "seed": 1337, "output": "terrain", "nodes": [
            { "id": "base", "type": "perlin", "frequency": 4 },
            { "id": "terrain", "type": "fbm", "source": "base", "octaves": 6 } ]}"#,
    )?;
    let field = Executor::new(Backend::Auto)?.bake(&graph, None, &View::image(512, 512))?;
    write_field(&field, out, Format::Png, graph.range_of(&graph.output))
}

fn main() -> noisegraph::Result<()> {
    let out = std::env::args().nth(1).unwrap_or_else(|| "bake.png".into());
    bake(Path::new(&out))
}
