//! Bake jobs: what one output needs (graph, view, node, format, tiling), built from command
//! line flags or from a manifest entry, with every problem reported for that entry alone.

use std::path::{Component, Path, PathBuf};

use noisegraph::io::Format;
use noisegraph::tiling::TileGrid;
use noisegraph::{NoiseGraph, View};
use serde_json::{Map, Value};

use super::bake::pack::{parse_channels, PackedChannel};
use super::{parse_axes, parse_size, Failure};

/// Where a job's graph comes from.
#[derive(Debug, Clone)]
pub enum GraphSource {
    File(PathBuf),
    Preset(String),
}

impl GraphSource {
    pub fn load(&self) -> Result<NoiseGraph, Failure> {
        match self {
            GraphSource::File(path) => {
                let text = super::read_input_file("graph file", path)?;
                NoiseGraph::from_json(&text)
                    .map_err(|e| Failure::bad_input(format!("{}: {e}", path.display())))
            }
            GraphSource::Preset(name) => Ok(noisegraph::presets::graph(name)?),
        }
    }
    /// A short name for outputs and messages: the file stem or the preset name.
    pub fn stem(&self) -> String {
        match self {
            GraphSource::File(p) => p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "graph".into()),
            GraphSource::Preset(name) => name.clone(),
        }
    }
}

/// One output to bake.
#[derive(Debug, Clone)]
pub struct Job {
    /// How messages name the job ("entry 3 (terrain.json)").
    pub label: String,
    pub source: GraphSource,
    pub view: View,
    pub node: Option<String>,
    pub output: PathBuf,
    pub format: Format,
    pub minmax: bool,
    /// Tile edge in pixels (`--tile N`).
    pub tile: Option<u32>,
    /// Tiles written into one file (`--stitch`) instead of one file each.
    pub stitch: bool,
    /// Several sources packed into the channels of one file (`--channels`).
    pub channels: Option<Vec<PackedChannel>>,
}

impl Job {
    /// Whether each tile goes to its own file.
    pub fn per_tile_files(&self) -> bool {
        self.tile.is_some() && !self.stitch
    }
    /// The tile grid of a per-tile or explicitly tiled job.
    pub fn grid(&self) -> Option<TileGrid> {
        self.tile
            .map(|t| TileGrid::new([self.view.size[0], self.view.size[1]], t))
    }
    /// The number of work units the job is for sharding: its tiles when each goes to its own
    /// file, else 1 (a single output is baked by one process).
    pub fn units(&self) -> usize {
        match self.grid() {
            Some(g) if self.per_tile_files() => g.count(),
            _ => 1,
        }
    }
    /// The file of tile (row, column): `<stem>_r<row>_c<column>.<ext>`, zero-padded so the
    /// names sort in grid order.
    pub fn tile_path(&self, grid: &TileGrid, row: u32, column: u32) -> PathBuf {
        let digits = (grid.rows().max(grid.columns()).saturating_sub(1))
            .to_string()
            .len()
            .max(2);
        let stem = self
            .output
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let ext = self
            .output
            .extension()
            .map(|e| format!(".{}", e.to_string_lossy()))
            .unwrap_or_default();
        self.output
            .with_file_name(format!("{stem}_r{row:0digits$}_c{column:0digits$}{ext}"))
    }
}

/// Settings shared by every job unless an entry overrides them (from the command line).
#[derive(Debug, Clone)]
pub struct Defaults {
    pub size: String,
    pub origin: Option<String>,
    pub extent: Option<String>,
    pub node: Option<String>,
    pub format: Option<String>,
    pub normalize: String,
    pub tile: Option<u32>,
    pub stitch: bool,
    pub channels: Option<String>,
}

pub fn parse_format(name: &str) -> Result<Format, Failure> {
    Ok(Format::parse(name)?)
}

/// The file extension of a format (16-bit PNG is still `.png`).
pub fn extension(format: Format) -> &'static str {
    format.extension()
}

pub fn parse_normalize(text: &str) -> Result<bool, Failure> {
    match text {
        "range" => Ok(false),
        "minmax" => Ok(true),
        other => Err(Failure::bad_input(format!(
            "normalize: unknown mode '{other}' (range, minmax)"
        ))),
    }
}

fn parse_extent(text: &str) -> Result<[f64; 3], Failure> {
    let parts = parse_axes("extent", text, f64::NAN)?;
    let first = parts[0];
    let extent = parts.map(|v| if v.is_nan() { first } else { v });
    if extent.iter().any(|v| *v <= 0.0) {
        return Err(Failure::bad_input(format!(
            "extent: every extent must be greater than 0 (got '{text}')"
        )));
    }
    Ok(extent)
}

/// Builds the view from size / origin / extent texts.
pub fn view_from(size: &str, origin: Option<&str>, extent: Option<&str>) -> Result<View, Failure> {
    let mut view = View::image(1, 1);
    view.size = parse_size(size)?;
    if let Some(o) = origin {
        view.origin = parse_axes("origin", o, 0.0)?;
    }
    if let Some(e) = extent {
        view.extent = parse_extent(e)?;
    }
    Ok(view)
}

/// The longest side a bake may have: tiled bakes hold one row band (the width times a tile's
/// height) in memory, so the width bounds it.
pub const MAX_SIDE: u32 = 1 << 20;
/// The most pixels one output may have (2^36: 256 GiB of f32).
pub const MAX_PIXELS: u64 = 1 << 36;

/// Checks job-level consistency (size limits, tiling against volumes, normalisation).
pub fn check_job(job: &Job) -> Result<(), Failure> {
    let [w, h, d] = job.view.size;
    if w.max(h).max(d) > MAX_SIDE || job.view.pixel_count() > MAX_PIXELS {
        return Err(Failure::bad_input(format!(
            "size: {w}x{h}x{d} is over the bake limits ({MAX_SIDE} pixels per side, {MAX_PIXELS} pixels in all)"
        )));
    }
    if let Some(t) = job.tile {
        if t == 0 {
            return Err(Failure::bad_input(
                "tile: the tile size must be at least 1 pixel",
            ));
        }
        if job.view.is_volume() {
            return Err(Failure::bad_input(
                "tile: tiles cover images (x and y); bake a volume whole",
            ));
        }
        if job.per_tile_files() && job.minmax && job.format.is_mapped() {
            return Err(Failure::bad_input(
                "normalize: minmax with one file per tile would give every tile its own scale; use --normalize range, --stitch, or a float format (npy, exr)",
            ));
        }
    }
    if job.stitch && job.tile.is_none() {
        return Err(Failure::bad_input("stitch: needs --tile N"));
    }
    Ok(())
}

/// Resolves a manifest output path inside the output folder. With a folder given, the path
/// must be relative and may not climb out of it with `..`; without one, paths are relative to
/// the current directory and `..` is still refused.
pub fn resolve_output(out_dir: Option<&Path>, output: &str) -> Result<PathBuf, Failure> {
    let path = Path::new(output);
    if output.is_empty() {
        return Err(Failure::bad_input("output: empty path"));
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(Failure::bad_input(format!(
            "output: '{output}' climbs out of the output folder with '..'"
        )));
    }
    match out_dir {
        Some(dir) => {
            if path.is_absolute() || path.has_root() {
                return Err(Failure::bad_input(format!(
                    "output: '{output}' is absolute, but outputs must stay inside the output folder {}",
                    dir.display()
                )));
            }
            Ok(dir.join(path))
        }
        None => Ok(path.to_path_buf()),
    }
}

/// Checks that `output`, inside the output folder `dir`, stays there once symbolic links are
/// followed: the deepest folder of its path that exists must resolve inside `dir` (the folders
/// below it do not exist yet and will be created as plain folders).
pub fn check_inside(dir: &Path, output: &Path) -> Result<(), Failure> {
    let Ok(root) = dir.canonicalize() else {
        // The output folder does not exist yet: nothing in it can be a link.
        return Ok(());
    };
    let mut existing = output.parent();
    while let Some(p) = existing {
        if p.as_os_str().is_empty() || std::fs::symlink_metadata(p).is_ok() {
            break;
        }
        existing = p.parent();
    }
    let Some(existing) = existing.filter(|p| !p.as_os_str().is_empty()) else {
        return Ok(());
    };
    let resolved = existing
        .canonicalize()
        .map_err(|e| Failure::bad_input(format!("output: {}: {e}", existing.display())))?;
    if !resolved.starts_with(&root) {
        return Err(Failure::bad_input(format!(
            "output: '{}' leaves the output folder {}: '{}' resolves to {} (a symbolic link)",
            output.display(),
            dir.display(),
            existing.display(),
            resolved.display()
        )));
    }
    Ok(())
}

const ENTRY_KEYS: &[&str] = &[
    "graph",
    "preset",
    "size",
    "origin",
    "extent",
    "node",
    "output",
    "format",
    "normalize",
    "tile",
    "stitch",
    "channels",
];

/// A number list or a comma-separated string, as text for `parse_axes` / `parse_size`.
fn axes_text(key: &str, v: &Value, sep: &str) -> Result<String, Failure> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Array(items) if items.iter().all(Value::is_number) => Ok(items
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
            .join(sep)),
        other => Err(Failure::bad_input(format!(
            "{key}: expected a list of numbers or a string (got {other})"
        ))),
    }
}

fn string_field(entry: &Map<String, Value>, key: &str) -> Result<Option<String>, Failure> {
    match entry.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(Failure::bad_input(format!(
            "{key}: expected a string (got {other})"
        ))),
    }
}

/// Builds the job of one manifest entry. `base` is the manifest's folder (graph paths are
/// relative to it); `out_dir` the output folder, when given.
pub fn job_from_entry(
    index: usize,
    entry: &Value,
    base: &Path,
    out_dir: Option<&Path>,
    defaults: &Defaults,
) -> Result<Job, Failure> {
    let Value::Object(entry) = entry else {
        return Err(Failure::bad_input(format!(
            "expected an object with graph and output (got {entry})"
        )));
    };
    let unknown: Vec<&String> = entry
        .keys()
        .filter(|k| !ENTRY_KEYS.contains(&k.as_str()))
        .collect();
    if !unknown.is_empty() {
        return Err(Failure::bad_input(format!(
            "unknown key(s) {unknown:?} (known: {})",
            ENTRY_KEYS.join(", ")
        )));
    }
    let source = match (
        string_field(entry, "graph")?,
        string_field(entry, "preset")?,
    ) {
        (Some(g), None) => {
            let path = Path::new(&g);
            GraphSource::File(if path.is_absolute() {
                path.to_path_buf()
            } else {
                base.join(path)
            })
        }
        (None, Some(p)) => GraphSource::Preset(p),
        (Some(_), Some(_)) => {
            return Err(Failure::bad_input("give either graph or preset, not both"))
        }
        (None, None) => return Err(Failure::bad_input("graph: required (or preset)")),
    };
    let output =
        string_field(entry, "output")?.ok_or_else(|| Failure::bad_input("output: required"))?;
    let output = resolve_output(out_dir, &output)?;
    let size = match entry.get("size") {
        Some(v) => axes_text("size", v, "x")?,
        None => defaults.size.clone(),
    };
    let origin = match entry.get("origin") {
        Some(v) => Some(axes_text("origin", v, ",")?),
        None => defaults.origin.clone(),
    };
    let extent = match entry.get("extent") {
        Some(v) => Some(axes_text("extent", v, ",")?),
        None => defaults.extent.clone(),
    };
    let view = view_from(&size, origin.as_deref(), extent.as_deref())?;
    let format = match string_field(entry, "format")?.or_else(|| defaults.format.clone()) {
        Some(f) => parse_format(&f)?,
        None => Format::from_path(&output)?,
    };
    let minmax = parse_normalize(
        &string_field(entry, "normalize")?.unwrap_or_else(|| defaults.normalize.clone()),
    )?;
    let tile = match entry.get("tile") {
        None | Some(Value::Null) => defaults.tile,
        Some(v) => Some(
            v.as_u64()
                .filter(|&t| (1..=u32::MAX as u64).contains(&t))
                .ok_or_else(|| {
                    Failure::bad_input(format!("tile: expected a whole number >= 1 (got {v})"))
                })? as u32,
        ),
    };
    let stitch = match entry.get("stitch") {
        None | Some(Value::Null) => defaults.stitch,
        Some(Value::Bool(b)) => *b,
        Some(v) => {
            return Err(Failure::bad_input(format!(
                "stitch: expected true or false (got {v})"
            )))
        }
    };
    let job = Job {
        label: format!("entry {index} ({})", source.stem()),
        source,
        view,
        node: string_field(entry, "node")?.or_else(|| defaults.node.clone()),
        output,
        format,
        minmax,
        tile,
        stitch,
        channels: string_field(entry, "channels")?
            .or_else(|| defaults.channels.clone())
            .map(|c| parse_channels(&c))
            .transpose()?,
    };
    check_job(&job)?;
    Ok(job)
}
