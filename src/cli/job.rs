//! Bake jobs: what one output needs (graph, view, node, format, tiling), built from command
//! line flags or from a manifest entry, with every problem reported for that entry alone.

use std::path::{Component, Path, PathBuf};

use noisegraph::io::{Format, WriteOptions};
use noisegraph::tiling::TileGrid;
use noisegraph::{NoiseGraph, View};
use serde_json::{Map, Value};

use super::pack::{parse_channels, PackedChannel};
use super::{parse_size, Failure};

/// Where a job's graph comes from.
#[derive(Debug, Clone)]
pub enum GraphSource {
    File(PathBuf),
    Preset(String),
    /// One face of a cube map (`bake --cube-map`): the graph's output (or `node`) under a
    /// `cube_face` node.
    CubeFace {
        inner: Box<GraphSource>,
        node: Option<String>,
        face: usize,
    },
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
            GraphSource::CubeFace { inner, node, face } => {
                super::cube_map::face_graph(&inner.load()?, node.as_deref(), *face)
            }
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
            GraphSource::CubeFace { inner, face, .. } => {
                format!("{} {}", inner.stem(), noisegraph::graph::CUBE_FACES[*face])
            }
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
    /// What each pixel holds.
    pub field: BakeField,
    /// Several sources packed into the channels of one file (`--channels`).
    pub channels: Option<Vec<PackedChannel>>,
    /// How the file is encoded (compression, half floats, a colour ramp).
    pub write: WriteOptions,
}

impl Job {
    /// The job of one graph (a file or a preset) baked to `output` with the flags' settings;
    /// the format from `output`'s extension unless `--format` gives one.
    pub fn from_flags(
        source: GraphSource,
        output: PathBuf,
        defaults: &Defaults,
    ) -> Result<Job, Failure> {
        let format = match defaults.format {
            Some(f) => f,
            None => Format::from_path(&output)?,
        };
        let job = Job {
            label: source.stem(),
            source,
            view: defaults.view,
            node: defaults.node.clone(),
            output,
            format,
            minmax: defaults.minmax,
            tile: defaults.tile,
            stitch: defaults.stitch,
            field: defaults.field,
            channels: defaults.channels.clone(),
            write: defaults.write.clone(),
        };
        check_job(&job)?;
        Ok(job)
    }
    /// The number of channels the job's file holds: the packed channels (a PNG always has
    /// R, G and B), the field's, or 1 for a plain value.
    pub fn file_channels(&self) -> usize {
        match &self.channels {
            Some(given) => super::pack::file_channels(given, self.format).len(),
            None => self.field.channels(self.view.is_volume()).len().max(1),
        }
    }
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

/// What a bake writes per pixel (`bake --field`, a manifest entry's `field`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BakeField {
    /// The node's value: one number per pixel.
    #[default]
    Value,
    /// The value and its exact gradient: 3 numbers per pixel (4 for a volume).
    Gradient,
    /// The curl of the gradient, a divergence-free flow: 2 numbers per pixel (3 for a volume).
    Curl,
}

impl BakeField {
    /// The names `--field` and manifests take, in order.
    pub const NAMES: &'static str = "value, gradient, curl";

    pub fn parse(text: &str) -> Result<BakeField, String> {
        match text {
            "value" => Ok(BakeField::Value),
            "gradient" => Ok(BakeField::Gradient),
            "curl" => Ok(BakeField::Curl),
            other => Err(format!("unknown field '{other}' ({})", Self::NAMES)),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            BakeField::Value => "value",
            BakeField::Gradient => "gradient",
            BakeField::Curl => "curl",
        }
    }

    /// The channel names of a multi-channel file for an image or a volume; none for the
    /// value (a plain one-channel field).
    pub fn channels(self, volume: bool) -> &'static [&'static str] {
        match (self, volume) {
            (BakeField::Value, _) => &[],
            (BakeField::Gradient, false) => &["value", "gradient.x", "gradient.y"],
            (BakeField::Gradient, true) => &["value", "gradient.x", "gradient.y", "gradient.z"],
            (BakeField::Curl, false) => &["curl.x", "curl.y"],
            (BakeField::Curl, true) => &["curl.x", "curl.y", "curl.z"],
        }
    }
}

/// What every job takes from the command line's flags unless its manifest entry says
/// otherwise; each flag parsed once, before any job is built.
#[derive(Debug, Clone)]
pub struct Defaults {
    pub view: View,
    pub node: Option<String>,
    /// `--format`; `None`: from each output's extension.
    pub format: Option<Format>,
    /// `--normalize minmax`.
    pub minmax: bool,
    pub tile: Option<u32>,
    pub stitch: bool,
    pub field: BakeField,
    /// `--channels`, parsed.
    pub channels: Option<Vec<PackedChannel>>,
    /// `--png-compression`, `--exr-compression`, `--exr-half`, `--ramp`.
    pub write: WriteOptions,
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

pub fn parse_origin(text: &str) -> Result<[f64; 3], Failure> {
    parse_axes("origin", text, 0.0)
}

pub fn parse_extent(text: &str) -> Result<[f64; 3], Failure> {
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

/// The view of the `--size`, `--origin` and `--extent` texts.
pub fn view_from(size: &str, origin: Option<&str>, extent: Option<&str>) -> Result<View, Failure> {
    let mut view = View::image(1, 1);
    view.size = parse_size(size)?;
    if let Some(o) = origin {
        view.origin = parse_origin(o)?;
    }
    if let Some(e) = extent {
        view.extent = parse_extent(e)?;
    }
    Ok(view)
}

/// Parses a comma-separated list of 1 to 3 finite numbers ("X,Y[,Z]").
fn parse_axes(flag: &str, text: &str, default: f64) -> Result<[f64; 3], Failure> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() > 3 {
        return Err(Failure::bad_input(format!(
            "{flag}: at most 3 numbers (got '{text}')"
        )));
    }
    let mut out = [default; 3];
    for (i, p) in parts.iter().enumerate() {
        let v: f64 = p.trim().parse().map_err(|_| {
            Failure::bad_input(format!("{flag}: '{p}' is not a number (in '{text}')"))
        })?;
        if !v.is_finite() {
            return Err(Failure::bad_input(format!("{flag}: '{p}' is not finite")));
        }
        out[i] = v;
    }
    Ok(out)
}

pub use noisegraph::graph::limits::MAX_SIDE;
/// The most pixels one output may have (2^36: 256 GiB of f32).
pub const MAX_PIXELS: u64 = 1 << 36;

/// Checks job-level consistency (size limits, tiling against volumes, normalisation, the
/// field against the format).
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
                "normalize: minmax with one file per tile would give every tile its own scale; use --normalize range, --stitch, or a float format (npy, exr, tif, r32)",
            ));
        }
    }
    let channels = job.field.channels(job.view.is_volume());
    if !channels.is_empty() && (job.format.is_mapped() || job.format.max_channels() == 1) {
        return Err(Failure::bad_input(format!(
            "--field {}: writes .npy or .exr ({} signed numbers per pixel: {}; png, r16, tif and r32 hold one channel, or levels mapped from ranges), not {}",
            job.field.name(),
            channels.len(),
            channels.join(", "),
            job.format.name()
        )));
    }
    if job.channels.is_some() {
        if job.field != BakeField::Value {
            return Err(Failure::bad_input(format!(
                "--channels: packs node values and normal-map components, not with --field {}",
                job.field.name()
            )));
        }
        if job.view.is_volume() {
            return Err(Failure::bad_input(
                "--channels: packs images (2D); bake a volume's nodes one by one",
            ));
        }
    }
    job.write
        .check(job.format, job.file_channels())
        .map_err(|e| match &job.channels {
            Some(_) => Failure::bad_input(format!("--channels: {e}")),
            None => Failure::from(e),
        })?;
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
    "field",
    "channels",
];

/// A number list or a comma-separated string, as text for the size, origin and extent parsers.
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
    let mut view = defaults.view;
    if let Some(v) = entry.get("size") {
        view.size = parse_size(&axes_text("size", v, "x")?)?;
    }
    if let Some(v) = entry.get("origin") {
        view.origin = parse_origin(&axes_text("origin", v, ",")?)?;
    }
    if let Some(v) = entry.get("extent") {
        view.extent = parse_extent(&axes_text("extent", v, ",")?)?;
    }
    let format = match string_field(entry, "format")? {
        Some(f) => parse_format(&f)?,
        None => match defaults.format {
            Some(f) => f,
            None => Format::from_path(&output)?,
        },
    };
    let minmax = match string_field(entry, "normalize")? {
        Some(n) => parse_normalize(&n)?,
        None => defaults.minmax,
    };
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
        field: match string_field(entry, "field")? {
            Some(f) => {
                BakeField::parse(&f).map_err(|e| Failure::bad_input(format!("field: {e}")))?
            }
            None => defaults.field,
        },
        channels: match string_field(entry, "channels")? {
            Some(c) => Some(parse_channels(&c)?),
            None => defaults.channels.clone(),
        },
        write: defaults.write.clone(),
    };
    check_job(&job)?;
    Ok(job)
}
