//! `noisegraph wgsl GRAPH.json -o height.wgsl --name height`: a node as one self-contained
//! WGSL module for your own shaders (see `noisegraph::export::wgsl`); `noisegraph shader
//! --lang wgsl` with the same flags.

use std::path::PathBuf;

use clap::Args;

use super::shader::{self, ShaderArgs};
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
    shader::run(ShaderArgs {
        graph: args.graph,
        preset: args.preset,
        lang: Some("wgsl".into()),
        target: None,
        output: args.output,
        name: args.name,
        node: args.node,
        table_binding: Some(args.table_binding),
    })
}
