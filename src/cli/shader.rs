//! `noisegraph shader GRAPH.json --lang wgsl|glsl|glsl-es|hlsl|msl -o FILE --name NAME`
//! (or `--target unity|unreal|godot|threejs|shadertoy|metal`): a node as source code for your
//! own shaders in any shading language (see `noisegraph::export::shader`). `noisegraph wgsl`
//! is this command with `--lang wgsl`.

use std::path::{Path, PathBuf};

use clap::Args;
use noisegraph::export::{
    export_shader, table_buffer_declaration, Language, ShaderExport, ShaderOptions, Target,
};
use noisegraph::io::write_atomic;

use super::job::GraphSource;
use super::Failure;

#[derive(Args)]
pub struct ShaderArgs {
    /// Graph file (JSON).
    pub graph: Option<PathBuf>,
    /// Export an embedded preset instead of a file.
    #[arg(long)]
    pub preset: Option<String>,
    /// The shading language: wgsl, glsl (GLSL 4.50), glsl-es (GLSL ES 3.00), hlsl (shader
    /// model 5 and 6) or msl (Metal 2). --target implies it.
    #[arg(long, value_name = "LANG")]
    pub lang: Option<String>,
    /// Write the shape an engine needs: unity (HLSL Custom Function file), unreal (HLSL .ush),
    /// godot (.gdshaderinc), threejs (GLSL ES 3.00), shadertoy (Common tab) or metal (MSL
    /// header).
    #[arg(long, value_name = "ENGINE")]
    pub target: Option<String>,
    /// Output file.
    #[arg(short, long)]
    pub output: PathBuf,
    /// The function's name and the prefix of every other name in the file.
    #[arg(long, default_value = "noise")]
    pub name: String,
    /// Export this node instead of the graph's output.
    #[arg(long)]
    pub node: Option<String>,
    /// WGSL, GLSL and HLSL: where a file whose tables are too large to inline declares its
    /// storage buffer, GROUP,BINDING (WGSL @group / @binding; GLSL binding, and set in Vulkan;
    /// HLSL register(tBINDING, spaceGROUP)). The buffer's data (little-endian f32) is written
    /// beside the file as <output stem>.tables.bin. GLSL ES and MSL inline every table.
    #[arg(long, value_name = "GROUP,BINDING")]
    pub table_binding: Option<String>,
}

/// The language and engine shape the flags ask for.
fn language_and_target(args: &ShaderArgs) -> Result<(Language, Option<Target>), Failure> {
    let target = args
        .target
        .as_deref()
        .map(str::parse::<Target>)
        .transpose()?;
    let language = args
        .lang
        .as_deref()
        .map(str::parse::<Language>)
        .transpose()?;
    match (language, target) {
        (Some(l), _) => Ok((l, target)),
        (None, Some(t)) => Ok((t.language(), Some(t))),
        (None, None) => Err(Failure::bad_input(
            "give --lang wgsl|glsl|glsl-es|hlsl|msl or --target \
             unity|unreal|godot|threejs|shadertoy|metal",
        )),
    }
}

pub fn run(args: ShaderArgs) -> Result<(), Failure> {
    let source = match (&args.graph, &args.preset) {
        (Some(g), None) => GraphSource::File(g.clone()),
        (None, Some(p)) => GraphSource::Preset(p.clone()),
        _ => {
            return Err(Failure::bad_input(
                "give a graph file or --preset NAME (one of them)",
            ))
        }
    };
    let (language, target) = language_and_target(&args)?;
    let table_binding = match &args.table_binding {
        Some(text) if !language.has_table_buffer() => {
            return Err(Failure::bad_input(format!(
                "--table-binding {text}: only WGSL, GLSL 4.50 and HLSL declare a table buffer \
                 (--lang {language} inlines every table)"
            )))
        }
        Some(text) => parse_binding(text)?,
        None => [0, 0],
    };
    let graph = source.load()?;
    let options = ShaderOptions {
        table_binding,
        target,
        node: args.node.clone(),
        ..ShaderOptions::new(args.name.clone(), language)
    };
    let export = export_shader(&graph, &options)?;
    write(&args.output, &export)?;
    summarize(&args.output, &export);
    Ok(())
}

/// Writes the file (and a WGSL module's table buffer beside it), each atomically.
fn write(output: &Path, export: &ShaderExport) -> Result<(), Failure> {
    let write_bytes = |path: &Path, bytes: &[u8]| {
        write_atomic(path, |tmp| {
            std::fs::write(tmp, bytes).map_err(|source| noisegraph::Error::Io {
                path: tmp.display().to_string(),
                source,
            })
        })
    };
    if let Some(tables) = &export.tables {
        let bytes: Vec<u8> = tables.data.iter().flat_map(|v| v.to_le_bytes()).collect();
        write_bytes(&tables_path(output), &bytes)?;
    }
    write_bytes(output, export.source.as_bytes())?;
    Ok(())
}

/// One line on stderr naming what the file defines (and the buffer a WGSL module reads).
fn summarize(output: &Path, export: &ShaderExport) {
    let n = &export.name;
    let shape = match export.target {
        Some(t) => format!(" for {t}"),
        None => String::new(),
    };
    eprintln!(
        "noisegraph: node '{}' -> {} ({}{shape}): {n}(p), {n}_precise(cell, local){}",
        export.node,
        output.display(),
        export.language.version(),
        if export.no_gradient.is_none() {
            format!(", {n}_grad(p), {n}_grad_precise(cell, local)")
        } else {
            String::new()
        }
    );
    if let Some(why) = &export.no_gradient {
        eprintln!("noisegraph: no {n}_grad: {why}");
    }
    if let Some(t) = &export.tables {
        eprintln!(
            "noisegraph: the file reads a storage buffer, {}: upload {} ({} f32)",
            table_buffer_declaration(export.language, n, t),
            tables_path(output).display(),
            t.data.len()
        );
    }
}

/// `height.wgsl` -> `height.tables.bin` beside it.
fn tables_path(output: &Path) -> PathBuf {
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
