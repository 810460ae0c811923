//! `noisegraph wgsl GRAPH.json -o height.wgsl --name height`: a node as one self-contained
//! WGSL module for your own shaders (see `noisegraph::export::wgsl`).

use std::path::{Path, PathBuf};

use clap::Args;
use noisegraph::export::wgsl::{export_wgsl, WgslOptions};
use noisegraph::io::write_atomic;

use super::job::GraphSource;
use super::Failure;

#[derive(Args)]
pub struct WgslArgs {
    /// Graph file (JSON).
    pub graph: Option<PathBuf>,
    /// Export an embedded preset instead of a file.
    #[arg(long)]
    pub preset: Option<String>,
    /// Output .wgsl file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// The function's name and the prefix of every other name in the module.
    #[arg(long, default_value = "noise")]
    pub name: String,
    /// Export this node instead of the graph's output.
    #[arg(long)]
    pub node: Option<String>,
    /// Where a module whose tables are too large to inline declares its storage buffer:
    /// GROUP,BINDING. The buffer's data (little-endian f32) is written beside the module as
    /// <output stem>.tables.bin.
    #[arg(long, default_value = "0,0", value_name = "GROUP,BINDING")]
    pub table_binding: String,
}

pub fn run(args: WgslArgs) -> Result<(), Failure> {
    let source = match (&args.graph, &args.preset) {
        (Some(g), None) => GraphSource::File(g.clone()),
        (None, Some(p)) => GraphSource::Preset(p.clone()),
        _ => {
            return Err(Failure::bad_input(
                "give a graph file or --preset NAME (one of them)",
            ))
        }
    };
    let table_binding = parse_binding(&args.table_binding)?;
    let graph = source.load()?;
    let options = WgslOptions {
        name: args.name.clone(),
        node: args.node.clone(),
        table_binding,
    };
    let module = export_wgsl(&graph, &options)?;
    let tables_path = tables_path(&args.output);
    if let Some(tables) = &module.tables {
        write_atomic(&tables_path, |tmp| {
            let bytes: Vec<u8> = tables.data.iter().flat_map(|v| v.to_le_bytes()).collect();
            std::fs::write(tmp, bytes).map_err(|source| noisegraph::Error::Io {
                path: tmp.display().to_string(),
                source,
            })
        })?;
    }
    write_atomic(&args.output, |tmp| {
        std::fs::write(tmp, &module.source).map_err(|source| noisegraph::Error::Io {
            path: tmp.display().to_string(),
            source,
        })
    })?;
    let v = ["", "", "vec2<f32>", "vec3<f32>", "vec4<f32>"][module.dims as usize];
    eprintln!(
        "noisegraph: node '{}' -> {}: fn {}(p: {v}) -> f32, {}_precise(cell, local){}",
        module.node,
        args.output.display(),
        module.name,
        module.name,
        if module.no_gradient.is_none() {
            format!(", {}_grad(p)", module.name)
        } else {
            String::new()
        }
    );
    if let Some(t) = &module.tables {
        eprintln!(
            "noisegraph: the module reads a storage buffer at @group({}) @binding({}): upload {} \
             ({} f32)",
            t.group,
            t.binding,
            tables_path.display(),
            t.data.len()
        );
    }
    Ok(())
}

/// `height.wgsl` -> `height.tables.bin` beside it.
pub fn tables_path(output: &Path) -> PathBuf {
    let stem = output
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "module".into());
    output.with_file_name(format!("{stem}.tables.bin"))
}

/// Parses "GROUP,BINDING".
fn parse_binding(text: &str) -> Result<[u32; 2], Failure> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    match parts.as_slice() {
        [g, b] => match (g.parse::<u32>(), b.parse::<u32>()) {
            (Ok(g), Ok(b)) => Ok([g, b]),
            _ => Err(Failure::bad_input(format!(
                "--table-binding: '{text}' is not two whole numbers GROUP,BINDING"
            ))),
        },
        _ => Err(Failure::bad_input(format!(
            "--table-binding: expected GROUP,BINDING (got '{text}')"
        ))),
    }
}
