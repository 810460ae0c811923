//! `noisegraph bake`: graph file(s), presets or a manifest of jobs to texture file(s), whole
//! or in tiles, streamed to disk, sharded across processes of a job array.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use noisegraph::gpu::{
    analytic_normal_map, analytic_normal_map_cpu, analytic_plan, normal_map_cpu, NormalMapFormat,
    NormalMapOptions,
};
use noisegraph::graph::gradient_plan;
use noisegraph::io::{
    is_complete_with, remove_stale_partials, write_channels, write_field_with, write_normal_map,
    Channel, ExrCompression, Format, PngCompression, Ramp, StreamWriter, WriteOptions,
};
use noisegraph::tiling::{Shard, TileGrid};
use noisegraph::{Backend, Executor, NoiseGraph, Plan, RunOptions, View};

use super::job::{
    check_inside, check_job, extension, job_from_entry, parse_format, parse_normalize, view_from,
    Defaults, GraphSource, Job,
};
use super::Failure;

pub(super) mod pack;

/// Images with more pixels than this are baked in tiles and streamed to disk even without
/// `--tile` (64 MiB per f32 field).
pub const AUTO_TILE_PIXELS: u64 = 1 << 24;
/// The tile edge used when tiling automatically.
pub const AUTO_TILE: u32 = 1024;
/// On the CPU path, images of at least this many pixels (2D, streamed formats) are baked in
/// row bands of about half as many, each written while the next is baked: writing and the
/// disk's work overlap the generation instead of following it.
pub const CPU_BAND_PIXELS: u64 = 1 << 22;

#[derive(Args)]
pub struct BakeArgs {
    /// Graph files (JSON). With one graph, -o is the output file; with several (or with
    /// --manifest), -o is the output folder and each graph writes <stem>.<ext> there.
    pub graphs: Vec<PathBuf>,
    /// Output file (one graph) or output folder (several graphs, or a manifest).
    #[arg(short = 'o', long = "out", value_name = "PATH")]
    pub output: Option<PathBuf>,
    /// What to bake: `value` (the field), `gradient` (value and exact gradient: npy
    /// (H, W, 3) = value, d/dx, d/dy, or (D, H, W, 4) with d/dz for a volume; exr channels
    /// value, gradient.x, gradient.y[, gradient.z]) or `curl` (a divergence-free flow: npy
    /// (H, W, 2) = (d/dy, -d/dx), or (D, H, W, 3) for a volume, the curl of three decorrelated
    /// copies of the graph; exr channels curl.x, curl.y[, curl.z]). Gradient and curl are
    /// written as npy or exr only.
    #[arg(
        long = "output",
        value_name = "value|gradient|curl",
        default_value = "value"
    )]
    pub quantity: String,
    /// A JSON list of jobs: {"graph" or "preset", "output", "size", "origin", "extent",
    /// "node", "format", "normalize", "tile", "stitch"}; missing fields take the flags' values.
    #[arg(long)]
    pub manifest: Option<PathBuf>,
    /// Bake an embedded preset graph (see `noisegraph presets`) instead of a file.
    #[arg(long)]
    pub preset: Option<String>,
    /// Size in pixels: WxH, or WxHxD for a volume.
    #[arg(long, default_value = "512x512", allow_hyphen_values = true)]
    pub size: String,
    /// auto: a GPU adapter when there is one, else the CPU path; gpu; cpu.
    #[arg(long, default_value = "auto")]
    pub backend: String,
    /// png | png16 | exr | npy (default: from the output extension; png for several graphs).
    #[arg(long)]
    pub format: Option<String>,
    /// Bake this node instead of the graph's output.
    #[arg(long)]
    pub node: Option<String>,
    /// Origin of the baked region: X,Y[,Z] (f64; large values stay smooth).
    #[arg(long, allow_hyphen_values = true)]
    pub origin: Option<String>,
    /// Extent of the baked region: EX[,EY[,EZ]] (default 1 on each axis).
    #[arg(long, allow_hyphen_values = true)]
    pub extent: Option<String>,
    /// PNG value mapping: `range` (the node's documented range) or `minmax` (of the data).
    #[arg(long, default_value = "range")]
    pub normalize: String,
    /// Cut the output into N x N-pixel tiles, one file each (<stem>_r<row>_c<col>.<ext>).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_tile)]
    pub tile: Option<u32>,
    /// With --tile: write the tiles into one file (streamed row band by row band).
    #[arg(long)]
    pub stitch: bool,
    /// Bake only share I of N (0 <= I < N) of the work units (tiles written to their own
    /// files, or whole outputs), e.g. --shard $SLURM_ARRAY_TASK_ID/$N.
    #[arg(long, value_name = "I/N", allow_hyphen_values = true)]
    pub shard: Option<String>,
    /// Skip outputs (and tiles) that already exist whole.
    #[arg(long)]
    pub resume: bool,
    /// Bake the node's normal map instead of its values: `analytic` (from the families'
    /// derivatives: a value or perlin node in 2D or 3D, a simplex node with the default
    /// falloff, a cellular, gabor or phasor node, or fbm / ridged / billow over one) or
    /// `central` (central differences of the baked field, any node). PNG gets RGB
    /// n * 0.5 + 0.5; npy (H, W, 4) and exr RGBA get (nx, ny, nz, height).
    #[arg(long, value_name = "analytic|central")]
    pub normal_map: Option<String>,
    /// PNG deflate effort: `fast` (level 1, about the speed of the noise), `default` (6) or
    /// `best` (9). Bands are deflated on every core either way.
    #[arg(long, value_name = "fast|default|best", default_value = "fast")]
    pub png_compression: String,
    /// EXR block compression (lossless): `zip` (16-line zlib blocks), `piz` (wavelet, 32
    /// lines), `rle` or `none`.
    #[arg(long, value_name = "zip|piz|rle|none", default_value = "zip")]
    pub exr_compression: String,
    /// EXR samples as half floats (16-bit) instead of f32. EXR only.
    #[arg(long)]
    pub exr_half: bool,
    /// Map the value through a colour ramp into an 8-bit RGB PNG: a built-in ramp
    /// (grayscale, terrain, magma, viridis, inferno, ocean) or stops `#rrggbb,#rrggbb,...`
    /// (evenly spaced) or `T:#rrggbb,...` (T from 0 to 1). The value range mapped is
    /// --normalize's. PNG (8-bit) only.
    #[arg(long, value_name = "NAME|STOPS")]
    pub ramp: Option<String>,
    /// Pack several sources into the channels of one PNG (8/16-bit, RGB or RGBA), EXR
    /// (channels R, G, B, A) or npy: `r=SOURCE[:LO:HI],g=...,b=...,a=...`, SOURCE a node id
    /// or normal.x / normal.y / normal.z (the analytic normal map of --node, mapped from
    /// -1..1). Each channel maps its own range: LO:HI if given, else the node's documented
    /// range (or its data's with --normalize minmax). A PNG's missing R, G or B is 0.
    #[arg(long, value_name = "r=NODE,g=NODE,...")]
    pub channels: Option<String>,
    /// With --normal-map: the surface is z = height_scale * value, x and y in view units.
    #[arg(long, default_value_t = 1.0, allow_hyphen_values = true)]
    pub height_scale: f32,
}

/// `--tile N`: a whole number of pixels, at least 1.
fn parse_tile(text: &str) -> Result<u32, String> {
    match text.trim().parse::<i64>() {
        Ok(n) if (1..=u32::MAX as i64).contains(&n) => Ok(n as u32),
        _ => Err(format!(
            "the tile size must be a whole number of pixels from 1 to {} (got '{text}')",
            u32::MAX
        )),
    }
}

/// Steepest surface slope a normal map may have: the normal's f32 arithmetic squares it.
const MAX_SLOPE: f64 = 1e18;

/// `--height-scale`: finite, and small enough that the steepest slope the node's documented
/// range allows over one pixel (|height scale| x range span / pixel spacing) stays under
/// [`MAX_SLOPE`], so the normal stays finite.
fn check_height_scale(height_scale: f32, range: (f32, f32), view: &View) -> Result<(), Failure> {
    let scale = f64::from(height_scale);
    let span = f64::from(range.1) - f64::from(range.0);
    let spacing =
        (view.extent[0] / f64::from(view.size[0])).min(view.extent[1] / f64::from(view.size[1]));
    let slope = scale.abs() * span / spacing;
    let steep = slope.is_nan() || slope > MAX_SLOPE;
    if !scale.is_finite() || steep {
        return Err(Failure::bad_input(format!(
            "--height-scale: {height_scale} gives slopes up to {slope:e} (height scale x value span {span} / pixel spacing {spacing:e}), over the limit {MAX_SLOPE:e}"
        )));
    }
    Ok(())
}

/// How `--normal-map` differentiates the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NormalMode {
    Analytic,
    Central,
}

fn parse_normal_mode(text: &str) -> Result<NormalMode, Failure> {
    match text {
        "analytic" => Ok(NormalMode::Analytic),
        "central" => Ok(NormalMode::Central),
        other => Err(Failure::bad_input(format!(
            "--normal-map: unknown mode '{other}' (analytic, central)"
        ))),
    }
}

/// What a bake writes per pixel (`--output`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quantity {
    Value,
    Gradient,
    Curl,
}

fn parse_quantity(text: &str) -> Result<Quantity, Failure> {
    match text {
        "value" => Ok(Quantity::Value),
        "gradient" => Ok(Quantity::Gradient),
        "curl" => Ok(Quantity::Curl),
        other => Err(Failure::bad_input(format!(
            "--output: unknown output '{other}' (value, gradient, curl)"
        ))),
    }
}

impl Quantity {
    fn name(self) -> &'static str {
        match self {
            Quantity::Value => "value",
            Quantity::Gradient => "gradient",
            Quantity::Curl => "curl",
        }
    }
    /// The channel names of a multi-channel output for an image or a volume.
    fn channels(self, volume: bool) -> &'static [&'static str] {
        match (self, volume) {
            (Quantity::Value, _) => &[],
            (Quantity::Gradient, false) => &["value", "gradient.x", "gradient.y"],
            (Quantity::Gradient, true) => &["value", "gradient.x", "gradient.y", "gradient.z"],
            (Quantity::Curl, false) => &["curl.x", "curl.y"],
            (Quantity::Curl, true) => &["curl.x", "curl.y", "curl.z"],
        }
    }
}

/// What a batch did, for the summary line.
#[derive(Default)]
struct Tally {
    written: usize,
    skipped: usize,
    pixels: u64,
    seconds: f64,
}

/// Runs jobs with one executor, created when the first job needs it.
struct Runner {
    backend: Backend,
    executor: Option<Executor>,
    /// What every job bakes (`--output`).
    quantity: Quantity,
    /// How every file is encoded (compression, half floats, colour ramp).
    write: WriteOptions,
    /// `--height-scale`, for the normal maps of packed channels.
    height_scale: f32,
    shard: Option<Shard>,
    resume: bool,
    tally: Tally,
}

pub fn run(args: BakeArgs) -> Result<i32, Failure> {
    let backend: Backend = args.backend.parse().map_err(Failure::bad_input)?;
    let shard = args
        .shard
        .as_deref()
        .map(Shard::parse)
        .transpose()
        .map_err(Failure::bad_input)?;
    parse_normalize(&args.normalize)?;
    if let Some(f) = &args.format {
        parse_format(f)?;
    }
    let quantity = parse_quantity(&args.quantity)?;
    let write = WriteOptions {
        png_compression: PngCompression::parse(&args.png_compression)?,
        exr_compression: ExrCompression::parse(&args.exr_compression)?,
        exr_half: args.exr_half,
        ramp: args.ramp.as_deref().map(Ramp::parse).transpose()?,
    };
    if args.channels.is_some() && args.normal_map.is_some() {
        return Err(Failure::bad_input(
            "--channels: not with --normal-map (pack the normal map's components as normal.x, normal.y, normal.z)",
        ));
    }
    if quantity != Quantity::Value && args.normal_map.is_some() {
        return Err(Failure::bad_input(format!(
            "--output {}: not with --normal-map (a normal map is its own output)",
            quantity.name()
        )));
    }
    let defaults = Defaults {
        size: args.size.clone(),
        origin: args.origin.clone(),
        extent: args.extent.clone(),
        node: args.node.clone(),
        format: args.format.clone(),
        normalize: args.normalize.clone(),
        tile: args.tile,
        stitch: args.stitch,
        channels: args.channels.clone(),
    };
    let mut sources: Vec<GraphSource> =
        args.graphs.iter().cloned().map(GraphSource::File).collect();
    if let Some(p) = &args.preset {
        sources.push(GraphSource::Preset(p.clone()));
    }
    let mut runner = Runner {
        backend,
        executor: None,
        quantity,
        write,
        height_scale: args.height_scale,
        shard,
        resume: args.resume,
        tally: Tally::default(),
    };
    let start = Instant::now();

    if let Some(mode) = &args.normal_map {
        let mode = parse_normal_mode(mode)?;
        if sources.len() != 1 || args.manifest.is_some() {
            return Err(Failure::bad_input(
                "--normal-map: bakes one graph (a file or --preset), not a batch or a manifest",
            ));
        }
        if args.tile.is_some() || args.stitch || args.shard.is_some() {
            return Err(Failure::bad_input(
                "--normal-map: not with --tile, --stitch or --shard (a normal map is baked whole)",
            ));
        }
        let output = args
            .output
            .clone()
            .ok_or_else(|| Failure::bad_input("-o/--out: required (the output file)"))?;
        let job = single_job(sources.remove(0), output, &defaults)?;
        runner.bake_normal_map(&job, mode, args.height_scale)?;
        runner.summary(0, start);
        return Ok(0);
    }

    if sources.len() == 1 && args.manifest.is_none() {
        // One graph: -o is the file; failures exit 2 (bad input) or 1.
        let output = args
            .output
            .clone()
            .ok_or_else(|| Failure::bad_input("-o/--out: required (the output file)"))?;
        let job = single_job(sources.remove(0), output, &defaults)?;
        if let Some(parent) = job.output.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                return Err(Failure::bad_input(format!(
                    "output folder {} does not exist",
                    parent.display()
                )));
            }
        }
        let units: Vec<usize> = (0..job.units()).filter(|&u| runner.selected(u)).collect();
        if units.is_empty() {
            eprintln!("noisegraph: {}: nothing in this shard", job.label);
        } else {
            runner.run_job(&job, &units)?;
        }
        runner.summary(0, start);
        return Ok(0);
    }
    if sources.is_empty() && args.manifest.is_none() {
        return Err(Failure::bad_input(
            "nothing to bake: give a graph file, --preset NAME or --manifest FILE",
        ));
    }

    // A batch: every job's failure is reported and counted; the others still run. Nothing is
    // created before the manifest is read: a bad one fails with no output folder made.
    let out_dir = args.output.clone();
    if args.manifest.is_none() && out_dir.is_none() {
        return Err(Failure::bad_input(
            "-o/--out: required (the output folder, with several graphs)",
        ));
    }
    if let Some(dir) = out_dir.as_deref().filter(|d| d.exists() && !d.is_dir()) {
        return Err(Failure::bad_input(format!(
            "output folder {}: exists and is not a folder",
            dir.display()
        )));
    }
    let mut jobs: Vec<(String, Result<Job, Failure>)> = Vec::new();
    for source in sources {
        let label = source.stem();
        let dir = out_dir.as_deref().unwrap_or(Path::new("."));
        let job = defaults
            .format
            .as_deref()
            .map_or(Ok(Format::Png), parse_format)
            .and_then(|format| {
                let output = dir.join(format!("{}.{}", source.stem(), extension(format)));
                single_job(source, output, &defaults)
            });
        jobs.push((label, job));
    }
    if let Some(manifest) = &args.manifest {
        let text = super::read_input_file("manifest", manifest)?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| Failure::bad_input(format!("manifest {}: {e}", manifest.display())))?;
        let entries = value.as_array().ok_or_else(|| {
            Failure::bad_input(format!(
                "manifest {}: expected a JSON list of jobs",
                manifest.display()
            ))
        })?;
        let base = manifest.parent().unwrap_or(Path::new(""));
        for (i, entry) in entries.iter().enumerate() {
            let job = job_from_entry(i, entry, base, out_dir.as_deref(), &defaults);
            jobs.push((format!("entry {i}"), job));
        }
    }

    let mut failed = 0;
    let mut unit = 0usize;
    for (label, job) in &jobs {
        let count = job.as_ref().map_or(1, Job::units);
        let units: Vec<usize> = (0..count).filter(|&u| runner.selected(unit + u)).collect();
        unit += count;
        if units.is_empty() {
            continue;
        }
        let result = job.as_ref().map_err(|f| Failure {
            code: f.code,
            message: f.message.clone(),
        });
        let result = result.and_then(|job| {
            if let Some(dir) = &out_dir {
                check_inside(dir, &job.output)?;
            }
            if let Some(parent) = job.output.parent().filter(|p| !p.as_os_str().is_empty()) {
                std::fs::create_dir_all(parent).map_err(|e| {
                    Failure::bad_input(format!("output folder {}: {e}", parent.display()))
                })?;
            }
            runner.run_job(job, &units)
        });
        if let Err(f) = result {
            let label = job.as_ref().map_or(label.as_str(), |j| j.label.as_str());
            eprintln!("error: {label}: {}", f.message);
            failed += 1;
        }
    }
    runner.summary(failed, start);
    Ok(if failed > 0 {
        super::EXIT_JOBS_FAILED
    } else {
        super::EXIT_OK
    })
}

/// The job of one graph (file or preset) baked to `output` with the flags' settings.
fn single_job(source: GraphSource, output: PathBuf, d: &Defaults) -> Result<Job, Failure> {
    let format = match &d.format {
        Some(f) => parse_format(f)?,
        None => Format::from_path(&output)?,
    };
    let job = Job {
        label: source.stem(),
        source,
        view: view_from(&d.size, d.origin.as_deref(), d.extent.as_deref())?,
        node: d.node.clone(),
        output,
        format,
        minmax: parse_normalize(&d.normalize)?,
        tile: d.tile,
        stitch: d.stitch,
        channels: d.channels.as_deref().map(pack::parse_channels).transpose()?,
    };
    check_job(&job)?;
    Ok(job)
}

fn progress_bar(total: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(total);
    if std::io::stderr().is_terminal() {
        bar.set_style(
            ProgressStyle::with_template(
                "{msg} [{bar:32}] {percent:>3}% {human_pos}/{human_len} px, ETA {eta}",
            )
            .expect("valid template")
            .progress_chars("=> "),
        );
        bar.set_message(label.to_string());
    } else {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

impl Runner {
    fn selected(&self, unit: usize) -> bool {
        self.shard.is_none_or(|s| s.contains(unit))
    }

    fn executor(&mut self) -> Result<&Executor, Failure> {
        if self.executor.is_none() {
            let (executor, note) = Executor::choose(self.backend)?;
            if let Some(note) = note {
                eprintln!("noisegraph: {note}");
            }
            self.executor = Some(executor);
        }
        Ok(self.executor.as_ref().expect("just set"))
    }

    /// The largest image the executor bakes in one run.
    fn max_dimension(&mut self) -> Result<u32, Failure> {
        Ok(match self.executor()? {
            Executor::Gpu(ctx) => ctx.limits().max_texture_dimension_2d,
            Executor::Cpu => u32::MAX,
        })
    }

    fn bake(&mut self, plan: &Plan, view: &View) -> Result<noisegraph::Field, Failure> {
        let start = Instant::now();
        let field = self.executor()?.run(plan, view, &RunOptions::default())?;
        self.tally.seconds += start.elapsed().as_secs_f64();
        self.tally.pixels += view.pixel_count();
        Ok(field)
    }

    /// Bakes the normal map of a job's node (2D): from the analytic gradient, refused with
    /// the node's name when it has none, or by central differences of the baked field.
    fn bake_normal_map(
        &mut self,
        job: &Job,
        mode: NormalMode,
        height_scale: f32,
    ) -> Result<(), Failure> {
        let graph = job.source.load()?;
        let target = job.node.as_deref().unwrap_or(&graph.output).to_string();
        let view = job.view;
        if view.is_volume() {
            return Err(Failure::bad_input(format!(
                "--normal-map: the size must be 2D (got depth {})",
                view.size[2]
            )));
        }
        check_height_scale(height_scale, graph.range_of(&target), &view)?;
        let channels = if matches!(job.format, Format::Png | Format::Png16) { 3 } else { 4 };
        self.write.check(job.format, channels).map_err(|e| {
            Failure::bad_input(format!("--normal-map: {e}"))
        })?;
        let options = NormalMapOptions {
            format: NormalMapFormat::Rgba32Float,
            height_scale,
            ..NormalMapOptions::for_view(&view)
        };
        if mode == NormalMode::Analytic {
            // Refuse before opening a device.
            analytic_plan(&graph, Some(&target))?;
        }
        let start = Instant::now();
        let normals = match (mode, self.executor()?) {
            (NormalMode::Analytic, Executor::Gpu(ctx)) => {
                analytic_normal_map(ctx, &graph, Some(&target), view, options)?
            }
            (NormalMode::Analytic, Executor::Cpu) => {
                analytic_normal_map_cpu(&graph, Some(&target), &view, &options)?
            }
            (NormalMode::Central, executor) => {
                let field = executor.bake(&graph, Some(&target), &view)?;
                normal_map_cpu(&field, &options)?
            }
        };
        self.tally.seconds += start.elapsed().as_secs_f64();
        self.tally.pixels += view.pixel_count();
        write_normal_map(
            &normals,
            [view.size[0], view.size[1]],
            &job.output,
            job.format,
            &self.write,
        )?;
        self.tally.written += 1;
        eprintln!(
            "noisegraph: wrote {} ({} normal map, {} {}x{}, node '{}', height scale {height_scale})",
            job.output.display(),
            if mode == NormalMode::Analytic {
                "analytic"
            } else {
                "central-difference"
            },
            job.format.name(),
            view.size[0],
            view.size[1],
            target
        );
        Ok(())
    }

    fn run_job(&mut self, job: &Job, units: &[usize]) -> Result<(), Failure> {
        let graph = job.source.load()?;
        let target = job.node.as_deref().unwrap_or(&graph.output).to_string();
        if let Some(channels) = &job.channels {
            if self.quantity != Quantity::Value {
                return Err(Failure::bad_input(format!(
                    "--channels: packs node values and normal-map components, not with --output {}",
                    self.quantity.name()
                )));
            }
            return self.run_packed_job(job, units, &graph, &target, channels);
        }
        if self.quantity != Quantity::Value {
            return self.run_channels_job(job, units, &graph, &target);
        }
        self.write.check(job.format, 1)?;
        let plan = Plan::new(&graph, Some(&target))?;
        plan.check_view(&job.view)?;
        let range_of = |graph: &NoiseGraph| graph.range_of(&target);

        if job.per_tile_files() {
            let grid = job.grid().expect("per-tile jobs have a grid");
            let bar = progress_bar(
                units.iter().map(|&u| tile_pixels(&grid, u)).sum(),
                &job.label,
            );
            let (mut written, mut skipped) = (0, 0);
            for &u in units {
                let tile = grid.tile(u);
                let path = job.tile_path(&grid, tile.row, tile.column);
                let view = tile.view(&job.view);
                if self.resume {
                    remove_stale_partials(&path);
                }
                if self.resume && is_complete_with(&path, job.format, view.size, 1, &self.write) {
                    skipped += 1;
                } else {
                    let field = self.bake(&plan, &view)?;
                    let range = if job.minmax {
                        field.min_max().unwrap_or((0.0, 1.0))
                    } else {
                        range_of(&graph)
                    };
                    write_field_with(&field, &path, job.format, range, &self.write)?;
                    written += 1;
                }
                bar.inc(view.pixel_count());
            }
            bar.finish_and_clear();
            self.tally.written += written;
            self.tally.skipped += skipped;
            eprintln!(
                "noisegraph: {}: {written} tile(s) of {} written, {skipped} already there ({}x{} tiles of {} px, {} {})",
                job.label,
                grid.count(),
                grid.columns(),
                grid.rows(),
                grid.tile[0],
                job.format.name(),
                job.output.with_file_name(format!("{}_r*_c*", job.output.file_stem().unwrap_or_default().to_string_lossy())).display()
            );
            return Ok(());
        }

        if self.resume {
            remove_stale_partials(&job.output);
        }
        if self.resume && is_complete_with(&job.output, job.format, job.view.size, 1, &self.write)
        {
            self.tally.skipped += 1;
            eprintln!(
                "noisegraph: {}: {} already there, skipped",
                job.label,
                job.output.display()
            );
            return Ok(());
        }
        let grid = match job.grid() {
            Some(g) => Some(g),
            None if job.view.is_volume() => None,
            None => {
                let max = self.max_dimension()?;
                let [w, h, _] = job.view.size;
                let on_cpu = matches!(self.executor()?, Executor::Cpu);
                // Levels mapped from the data's own range need the whole field first.
                let streamed = !(job.minmax && job.format.is_mapped());
                if job.view.pixel_count() > AUTO_TILE_PIXELS || w > max || h > max {
                    // Wide images get shorter tiles, so a row band stays near 2^26 pixels.
                    let tile_w = AUTO_TILE.min(max);
                    let tile_h = ((1u64 << 26) / w as u64).clamp(16, AUTO_TILE as u64) as u32;
                    Some(TileGrid::with_tile_size([w, h], [tile_w, tile_h.min(max)]))
                } else if on_cpu && streamed && job.view.pixel_count() >= CPU_BAND_PIXELS {
                    // Whole-width bands (the CPU path splits rows between its threads).
                    let band_h = ((CPU_BAND_PIXELS / 2) / w as u64).max(16) as u32;
                    Some(TileGrid::with_tile_size([w, h], [w, band_h]))
                } else {
                    None
                }
            }
        };
        match grid {
            None => {
                let field = self.bake(&plan, &job.view)?;
                let range = if job.minmax {
                    field.min_max().unwrap_or((0.0, 1.0))
                } else {
                    range_of(&graph)
                };
                write_field_with(&field, &job.output, job.format, range, &self.write)?;
            }
            Some(grid) => {
                let two_pass = job.minmax && job.format.is_mapped();
                let total = job.view.pixel_count() * if two_pass { 2 } else { 1 };
                let bar = progress_bar(total, &job.label);
                let range = if two_pass {
                    // The data's range must be known before the first row is encoded: bake
                    // the tiles once for it, then again to write.
                    let mut lo_hi: Option<(f32, f32)> = None;
                    for tile in grid.tiles() {
                        let field = self.bake(&plan, &tile.view(&job.view))?;
                        if let Some((lo, hi)) = field.min_max() {
                            lo_hi = Some(lo_hi.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
                        }
                        bar.inc(field.data.len() as u64);
                    }
                    lo_hi.unwrap_or((0.0, 1.0))
                } else {
                    range_of(&graph)
                };
                self.bake_stitched(&plan, job, &grid, range, &bar)?;
                bar.finish_and_clear();
            }
        }
        self.tally.written += 1;
        eprintln!(
            "noisegraph: wrote {} ({} {}x{}x{}, node '{}'{})",
            job.output.display(),
            job.format.name(),
            job.view.size[0],
            job.view.size[1],
            job.view.size[2],
            target,
            match job.grid().or(grid) {
                Some(g) => format!(", {} tiles of {}x{} px", g.count(), g.tile[0], g.tile[1]),
                None => String::new(),
            }
        );
        Ok(())
    }

    /// Bakes the grid's tiles one row band at a time and streams each band to the file:
    /// memory holds a few bands (width x tile height) and one tile, not the image. A second
    /// thread writes (and encodes) each band while the next is baked, and asks the OS to
    /// start putting it on disk, so that little is left for the final sync.
    fn bake_stitched(
        &mut self,
        plan: &Plan,
        job: &Job,
        grid: &TileGrid,
        range: (f32, f32),
        bar: &ProgressBar,
    ) -> Result<(), Failure> {
        let width = job.view.size[0] as usize;
        let writer = StreamWriter::open(
            &job.output,
            job.format,
            job.view.size,
            &[Channel::field(range)],
            &self.write,
        )?;
        // One band waiting while one is written and the next is baked.
        let (bands, received) = std::sync::mpsc::sync_channel::<Vec<f32>>(1);
        std::thread::scope(|scope| {
            let written = scope.spawn(move || -> Result<(), Failure> {
                let mut writer = writer;
                for band in received {
                    writer.write_rows(&band)?;
                    writer.start_writeback();
                }
                // All bands sent, or the baking side stopped: finish only a whole image
                // (an unfinished writer removes its temporary file when dropped).
                if writer.is_complete() {
                    writer.finish()?;
                }
                Ok(())
            });
            let baked = (|| -> Result<(), Failure> {
                for row in 0..grid.rows() {
                    let band = self.bake_band(plan, job, grid, row, width, bar)?;
                    if bands.send(band).is_err() {
                        break; // the writer failed: its error is reported below
                    }
                }
                Ok(())
            })();
            drop(bands);
            let written = written.join().unwrap_or_else(|_| {
                Err(Failure {
                    code: 1,
                    message: format!("{}: the writing thread panicked", job.output.display()),
                })
            });
            baked.and(written)
        })
    }

    /// Bakes row `row` of the grid's tiles into one whole-width band of samples.
    fn bake_band(
        &mut self,
        plan: &Plan,
        job: &Job,
        grid: &TileGrid,
        row: u32,
        width: usize,
        bar: &ProgressBar,
    ) -> Result<Vec<f32>, Failure> {
        if grid.columns() == 1 {
            let field = self.bake(plan, &grid.tile(row as usize).view(&job.view))?;
            bar.inc(field.data.len() as u64);
            return Ok(field.data);
        }
        let mut band: Vec<f32> = Vec::new();
        for column in 0..grid.columns() {
            let tile = grid.tile((row * grid.columns() + column) as usize);
            let field = self.bake(plan, &tile.view(&job.view))?;
            let (tw, th) = (tile.size[0] as usize, tile.size[1] as usize);
            if band.is_empty() {
                band.resize(width * th, 0.0);
            }
            let x0 = tile.offset[0] as usize;
            for (y, line) in field.data.chunks_exact(tw).enumerate() {
                band[y * width + x0..y * width + x0 + tw].copy_from_slice(line);
            }
            bar.inc(field.data.len() as u64);
        }
        Ok(band)
    }

    /// Bakes a tile or a whole view as the job's multi-channel quantity: the numbers of
    /// every pixel, channel fastest.
    fn bake_channels(&mut self, plan: &Plan, view: &View) -> Result<Vec<f32>, Failure> {
        let start = Instant::now();
        let options = RunOptions::default();
        let quantity = self.quantity;
        let executor = self.executor()?;
        let data = match quantity {
            Quantity::Gradient => {
                let channels = if view.is_volume() { 4 } else { 3 };
                executor
                    .run_gradient(plan, view, &options)?
                    .interleaved(channels)
            }
            Quantity::Curl => executor.run_curl(plan, view, &options)?.data,
            Quantity::Value => executor.run(plan, view, &options)?.data,
        };
        self.tally.seconds += start.elapsed().as_secs_f64();
        self.tally.pixels += view.pixel_count();
        Ok(data)
    }

    /// A job baking `--output gradient` or `curl`: whole, in tiles written to their own files,
    /// or in tiles streamed into one file (npy; EXR is buffered), like value jobs.
    fn run_channels_job(
        &mut self,
        job: &Job,
        units: &[usize],
        graph: &NoiseGraph,
        target: &str,
    ) -> Result<(), Failure> {
        let name = self.quantity.name();
        if job.format.is_mapped() || job.format.max_channels() == 1 {
            return Err(Failure::bad_input(format!(
                "--output {name}: writes .npy or .exr (signed numbers in several channels; png, r16, tif and r32 hold one channel, or levels mapped from ranges), not {}",
                job.format.name()
            )));
        }
        let channels = self.quantity.channels(job.view.is_volume());
        self.write.check(job.format, channels.len())?;
        let plan = gradient_plan(graph, Some(target))?;
        plan.check_view(&job.view)?;
        if job.per_tile_files() {
            let grid = job.grid().expect("per-tile jobs have a grid");
            let (mut written, mut skipped) = (0, 0);
            for &u in units {
                let tile = grid.tile(u);
                let path = job.tile_path(&grid, tile.row, tile.column);
                let view = tile.view(&job.view);
                if self.resume
                    && is_complete_with(&path, job.format, view.size, channels.len(), &self.write)
                {
                    skipped += 1;
                    continue;
                }
                let data = self.bake_channels(&plan, &view)?;
                write_channels(&path, job.format, view.size, channels, &data, &self.write)?;
                written += 1;
            }
            self.tally.written += written;
            self.tally.skipped += skipped;
            eprintln!(
                "noisegraph: {}: {written} {name} tile(s) of {} written, {skipped} already there",
                job.label,
                grid.count()
            );
            return Ok(());
        }
        if self.resume
            && is_complete_with(
                &job.output,
                job.format,
                job.view.size,
                channels.len(),
                &self.write,
            )
        {
            self.tally.skipped += 1;
            eprintln!(
                "noisegraph: {}: {} already there, skipped",
                job.label,
                job.output.display()
            );
            return Ok(());
        }
        let [w, h, _] = job.view.size;
        let grid = match job.grid() {
            Some(g) => Some(g),
            None if job.view.is_volume() => None,
            None => {
                let max = self.max_dimension()?;
                (job.view.pixel_count() > AUTO_TILE_PIXELS || w > max || h > max).then(|| {
                    let tile_h = ((1u64 << 26) / w as u64).clamp(16, AUTO_TILE as u64) as u32;
                    TileGrid::with_tile_size([w, h], [AUTO_TILE.min(max), tile_h.min(max)])
                })
            }
        };
        match &grid {
            None => {
                let data = self.bake_channels(&plan, &job.view)?;
                write_channels(
                    &job.output,
                    job.format,
                    job.view.size,
                    channels,
                    &data,
                    &self.write,
                )?;
            }
            Some(grid) => {
                let bar = progress_bar(job.view.pixel_count(), &job.label);
                let n = channels.len();
                let row = w as usize * n;
                let mut writer = StreamWriter::create_channels(
                    &job.output,
                    job.format,
                    job.view.size,
                    channels,
                    &self.write,
                )?;
                let mut band: Vec<f32> = Vec::new();
                for r in 0..grid.rows() {
                    let mut band_height = 0usize;
                    for column in 0..grid.columns() {
                        let tile = grid.tile((r * grid.columns() + column) as usize);
                        let data = self.bake_channels(&plan, &tile.view(&job.view))?;
                        let (tw, th) = (tile.size[0] as usize * n, tile.size[1] as usize);
                        if band_height == 0 {
                            band_height = th;
                            band.clear();
                            band.resize(row * th, 0.0);
                        }
                        let x0 = tile.offset[0] as usize * n;
                        for (y, line) in data.chunks_exact(tw).enumerate() {
                            band[y * row + x0..y * row + x0 + tw].copy_from_slice(line);
                        }
                        bar.inc((tile.size[0] * tile.size[1]) as u64);
                    }
                    writer.write_rows(&band[..row * band_height])?;
                }
                writer.finish()?;
                bar.finish_and_clear();
            }
        }
        self.tally.written += 1;
        eprintln!(
            "noisegraph: wrote {} ({name}: {} {}x{}x{}, channels {}, node '{target}'{})",
            job.output.display(),
            job.format.name(),
            job.view.size[0],
            job.view.size[1],
            job.view.size[2],
            channels.join(", "),
            match grid {
                Some(g) => format!(", {} tiles of {}x{} px", g.count(), g.tile[0], g.tile[1]),
                None => String::new(),
            }
        );
        Ok(())
    }

    fn summary(&self, failed: usize, start: Instant) {
        let t = &self.tally;
        let backend = self
            .executor
            .as_ref()
            .map_or_else(|| "no backend used".to_string(), Executor::describe);
        // On a GPU: the kernels compiled and what the persistent pipeline cache did (written
        // back here, before the total time is taken).
        let pipelines = match &self.executor {
            Some(Executor::Gpu(ctx)) => {
                let cache = match ctx.save_pipeline_cache() {
                    Ok(save) => save.summary(),
                    Err(e) => format!("pipeline cache not saved: {e}"),
                };
                format!(
                    "; {} pipelines compiled in {:.3} s, {cache}",
                    ctx.pipeline_creations(),
                    ctx.pipelines().compile_seconds()
                )
            }
            _ => String::new(),
        };
        eprintln!(
            "noisegraph: {} written, {} skipped, {} failed: {} pixels baked in {:.3} s ({:.3} s total), {:.1} Msamples/s, {}{pipelines}",
            t.written,
            t.skipped,
            failed,
            t.pixels,
            t.seconds,
            start.elapsed().as_secs_f64(),
            t.pixels as f64 / t.seconds.max(1e-9) / 1e6,
            backend
        );
    }
}

fn tile_pixels(grid: &TileGrid, unit: usize) -> u64 {
    let t = grid.tile(unit);
    t.size[0] as u64 * t.size[1] as u64
}
