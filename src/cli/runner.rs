//! Running bake jobs: one loop for every field a job bakes (value, gradient, curl), whole, in
//! tiles written to their own files, or in tiles and row bands streamed into one file while
//! the next band is baked; `--resume` (stale temporary files cleared, whole files skipped)
//! and the automatic tiling of large images alike for all of them, and for packed channels
//! (`--channels`), in every format. Normal maps beside.

use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use noisegraph::gpu::{
    analytic_normal_map, analytic_normal_map_cpu, analytic_plan, normal_map_cpu, NormalMapFormat,
    NormalMapOptions,
};
use noisegraph::graph::gradient_plan;
use noisegraph::io::{
    is_complete_with, remove_stale_partials, write_normal_map, Channel, Format, StreamWriter,
    WriteOptions,
};
use noisegraph::tiling::{Shard, TileGrid};
use noisegraph::{Backend, Executor, NoiseGraph, Plan, RunOptions, View};

use super::job::{BakeField, Job};
use super::pack::{describe, PackPlan, Packing};
use super::Failure;

/// Images with more pixels than this are baked in tiles and streamed to disk even without
/// `--tile` (64 MiB per f32 field).
pub const AUTO_TILE_PIXELS: u64 = 1 << 24;
/// The tile edge used when tiling automatically.
pub const AUTO_TILE: u32 = 1024;
/// Pixels of one row band of automatic tiles: wide images get shorter tiles.
const AUTO_BAND_PIXELS: u64 = 1 << 26;
/// On the CPU path, images of at least this many pixels (2D, streamed formats) are baked in
/// row bands of about half as many, each written while the next is baked: writing and the
/// disk's work overlap the generation instead of following it.
pub const CPU_BAND_PIXELS: u64 = 1 << 22;

/// What a batch did, for the summary line.
#[derive(Default)]
struct Tally {
    written: usize,
    skipped: usize,
    pixels: u64,
    seconds: f64,
}

/// Runs jobs with one executor, created when the first job needs it.
pub struct Runner {
    backend: Backend,
    executor: Option<Executor>,
    shard: Option<Shard>,
    resume: bool,
    /// `--height-scale`, for the normal maps of packed channels.
    height_scale: f32,
    tally: Tally,
}

/// What a job bakes over a view: its numbers per pixel, channel fastest.
enum Source<'g> {
    /// One field of one node (value, gradient, curl).
    Field(BakeField, Plan),
    /// Several nodes' values and normal-map components packed into the channels of one file
    /// (`--channels`); `target` is the node whose normal map `normal.*` channels hold.
    Packed {
        packing: Packing,
        graph: &'g NoiseGraph,
        target: &'g str,
    },
}

/// The file a job writes: its format and encoding, its channels (names, and the value
/// ranges integer levels map from) and which of them map from their data's own range.
struct OutputFile {
    format: Format,
    channels: Vec<Channel>,
    /// Per channel: `--normalize minmax` into integer levels, the range of the data instead.
    from_data: Vec<bool>,
    write: WriteOptions,
    /// How messages describe what the file holds beyond its format ("" for a value).
    note: String,
}

impl OutputFile {
    /// Numbers per pixel.
    fn numbers(&self) -> usize {
        self.channels.len()
    }

    /// Whether the file takes rows as they come: every format does, except integer levels
    /// of the data's own range, which need all the data first.
    fn streams(&self) -> bool {
        !self.needs_range_first()
    }

    /// Whether a channel maps from its data's range: then the ranges must be known before
    /// the first row.
    fn needs_range_first(&self) -> bool {
        self.from_data.iter().any(|&d| d)
    }

    /// Each channel's range: its fixed one, or its data's in `seen` (per channel, the
    /// finite min..max of the data, see [`min_max_channels`]).
    fn ranges(&self, seen: &[Option<(f32, f32)>]) -> Vec<(f32, f32)> {
        self.channels
            .iter()
            .zip(&self.from_data)
            .enumerate()
            .map(|(c, (channel, &from_data))| {
                if from_data {
                    seen.get(c).copied().flatten().unwrap_or((0.0, 1.0))
                } else {
                    channel.range
                }
            })
            .collect()
    }

    /// Whether `path` holds a whole file of `size`, as a finished bake leaves it.
    fn is_complete(&self, path: &Path, size: [u32; 3]) -> bool {
        is_complete_with(path, self.format, size, self.numbers(), &self.write)
    }

    fn create(
        &self,
        path: &Path,
        size: [u32; 3],
        ranges: &[(f32, f32)],
    ) -> noisegraph::Result<StreamWriter> {
        let layout: Vec<Channel> = self
            .channels
            .iter()
            .zip(ranges)
            .map(|(c, &range)| Channel::new(&c.name, range))
            .collect();
        StreamWriter::open(path, self.format, size, &layout, &self.write)
    }

    /// Writes the whole of `data` (`size` pixels of [`Self::numbers`] each) to `path`.
    fn write(&self, path: &Path, size: [u32; 3], data: &[f32]) -> Result<(), Failure> {
        let seen = if self.needs_range_first() {
            min_max_channels(data, self.numbers())
        } else {
            Vec::new()
        };
        let mut writer = self.create(path, size, &self.ranges(&seen))?;
        writer.write_rows(data)?;
        Ok(writer.finish()?)
    }
}

/// Per channel of `data` (`channels` numbers per pixel, channel fastest), the smallest and
/// largest finite number.
fn min_max_channels(data: &[f32], channels: usize) -> Vec<Option<(f32, f32)>> {
    let mut seen = vec![None; channels];
    for pixel in data.chunks_exact(channels) {
        for (range, &v) in seen.iter_mut().zip(pixel) {
            if v.is_finite() {
                *range = Some(widen(*range, (v, v)));
            }
        }
    }
    seen
}

/// The range covering `range` (if any) and `with`.
fn widen(range: Option<(f32, f32)>, with: (f32, f32)) -> (f32, f32) {
    range.map_or(with, |(lo, hi)| (lo.min(with.0), hi.max(with.1)))
}

/// How `--normal-map` differentiates the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NormalMode {
    Analytic,
    Central,
}

impl NormalMode {
    pub fn parse(text: &str) -> Result<NormalMode, Failure> {
        match text {
            "analytic" => Ok(NormalMode::Analytic),
            "central" => Ok(NormalMode::Central),
            other => Err(Failure::bad_input(format!(
                "--normal-map: unknown mode '{other}' (analytic, central)"
            ))),
        }
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
    pub fn new(backend: Backend, shard: Option<Shard>, resume: bool, height_scale: f32) -> Runner {
        Runner {
            backend,
            executor: None,
            shard,
            resume,
            height_scale,
            tally: Tally::default(),
        }
    }

    /// Whether work unit `unit` (of all the jobs, counted in order) is this process's share.
    pub fn selected(&self, unit: usize) -> bool {
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

    /// Bakes `source` over a tile or a whole view: the numbers of every pixel, channel
    /// fastest.
    fn bake(&mut self, source: &Source<'_>, view: &View) -> Result<Vec<f32>, Failure> {
        match source {
            Source::Field(field, plan) => self.bake_field(*field, plan, view),
            Source::Packed {
                packing,
                graph,
                target,
            } => self.bake_packed(packing, graph, target, view),
        }
    }

    /// Bakes `field` of `plan` over `view`.
    fn bake_field(
        &mut self,
        field: BakeField,
        plan: &Plan,
        view: &View,
    ) -> Result<Vec<f32>, Failure> {
        let start = Instant::now();
        let options = RunOptions::default();
        let executor = self.executor()?;
        let data = match field {
            BakeField::Value => executor.run(plan, view, &options)?.data,
            BakeField::Gradient => {
                let channels = if view.is_volume() { 4 } else { 3 };
                executor
                    .run_gradient(plan, view, &options)?
                    .interleaved(channels)
            }
            BakeField::Curl => executor.run_curl(plan, view, &options)?.data,
        };
        self.tally.seconds += start.elapsed().as_secs_f64();
        self.tally.pixels += view.pixel_count();
        Ok(data)
    }

    /// Bakes every packed channel's source over `view` and interleaves them, channel
    /// fastest; the normal map, when channels take its components, once.
    fn bake_packed(
        &mut self,
        packing: &Packing,
        graph: &NoiseGraph,
        target: &str,
        view: &View,
    ) -> Result<Vec<f32>, Failure> {
        let n = packing.plans.len();
        let mut out = vec![0.0f32; view.pixel_count() as usize * n];
        let mut normals: Option<Vec<[f32; 4]>> = None;
        for (c, plan) in packing.plans.iter().enumerate() {
            let channel = out.iter_mut().skip(c).step_by(n);
            match plan {
                PackPlan::Node(plan) => {
                    let values = self.bake_field(BakeField::Value, plan, view)?;
                    channel.zip(values).for_each(|(o, v)| *o = v);
                }
                PackPlan::Normal(axis) => {
                    if normals.is_none() {
                        normals = Some(self.analytic_normals(graph, target, view)?);
                    }
                    let normals = normals.as_deref().expect("just baked");
                    channel.zip(normals).for_each(|(o, n)| *o = n[*axis]);
                }
                PackPlan::Zero => {}
            }
        }
        Ok(out)
    }

    /// The analytic normal map of `target` over `view` (`--height-scale`).
    fn analytic_normals(
        &mut self,
        graph: &NoiseGraph,
        target: &str,
        view: &View,
    ) -> Result<Vec<[f32; 4]>, Failure> {
        let options = NormalMapOptions {
            format: NormalMapFormat::Rgba32Float,
            height_scale: self.height_scale,
            ..NormalMapOptions::for_view(view)
        };
        let start = Instant::now();
        let normals = match self.executor()? {
            Executor::Gpu(ctx) => analytic_normal_map(ctx, graph, Some(target), *view, options)?,
            Executor::Cpu => analytic_normal_map_cpu(graph, Some(target), view, &options)?,
        };
        self.tally.seconds += start.elapsed().as_secs_f64();
        Ok(normals)
    }

    /// Bakes the job's work units `units` (its tiles when each has its own file, else the
    /// one output).
    pub fn run_job(&mut self, job: &Job, units: &[usize]) -> Result<(), Failure> {
        let graph = job.source.load()?;
        let target = job.node.as_deref().unwrap_or(&graph.output).to_string();
        let mapped = job.minmax && job.format.is_mapped();
        let (source, out) = match &job.channels {
            None => {
                let plan = match job.field {
                    BakeField::Value => Plan::new(&graph, Some(&target))?,
                    BakeField::Gradient | BakeField::Curl => gradient_plan(&graph, Some(&target))?,
                };
                plan.check_view(&job.view)?;
                let names = job.field.channels(job.view.is_volume());
                let out = OutputFile {
                    format: job.format,
                    channels: if names.is_empty() {
                        vec![Channel::field(graph.range_of(&target))]
                    } else {
                        names.iter().map(|n| Channel::new(n, (0.0, 1.0))).collect()
                    },
                    from_data: vec![mapped && names.is_empty(); names.len().max(1)],
                    write: job.write.clone(),
                    note: match job.field {
                        BakeField::Value => String::new(),
                        other => format!("{}: channels {}, ", other.name(), names.join(", ")),
                    },
                };
                (Source::Field(job.field, plan), out)
            }
            Some(given) => {
                let packing = Packing::new(&graph, &target, given, job.format)?;
                for plan in &packing.plans {
                    match plan {
                        PackPlan::Node(plan) => plan.check_view(&job.view)?,
                        PackPlan::Normal(_) => check_height_scale(
                            self.height_scale,
                            graph.range_of(&target),
                            &job.view,
                        )?,
                        PackPlan::Zero => {}
                    }
                }
                let out = OutputFile {
                    format: job.format,
                    channels: packing.layout(&graph),
                    from_data: packing.data_ranged().iter().map(|&d| d && mapped).collect(),
                    write: job.write.clone(),
                    note: format!(
                        "packed: channels {}, ",
                        packing
                            .channels
                            .iter()
                            .map(|c| format!("{}={}", c.letter, describe(&c.source)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                let source = Source::Packed {
                    packing,
                    graph: &graph,
                    target: &target,
                };
                (source, out)
            }
        };
        if job.per_tile_files() {
            self.bake_tile_files(job, units, &source, &out)
        } else {
            self.bake_whole(job, &source, &out, &target)
        }
    }

    /// `--resume`: clears what killed bakes left beside `path`; true when `path` is already
    /// whole (then skipped).
    fn already_there(&self, out: &OutputFile, path: &Path, size: [u32; 3]) -> bool {
        if !self.resume {
            return false;
        }
        remove_stale_partials(path);
        out.is_complete(path, size)
    }

    /// The tiles `units` of a job, each to its own file.
    fn bake_tile_files(
        &mut self,
        job: &Job,
        units: &[usize],
        source: &Source<'_>,
        out: &OutputFile,
    ) -> Result<(), Failure> {
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
            if self.already_there(out, &path, view.size) {
                skipped += 1;
            } else {
                let data = self.bake(source, &view)?;
                out.write(&path, view.size, &data)?;
                written += 1;
            }
            bar.inc(view.pixel_count());
        }
        bar.finish_and_clear();
        self.tally.written += written;
        self.tally.skipped += skipped;
        eprintln!(
            "noisegraph: {}: {written} tile(s) of {} written, {skipped} already there ({}x{} tiles of {} px, {}{} {})",
            job.label,
            grid.count(),
            grid.columns(),
            grid.rows(),
            grid.tile[0],
            out.note,
            job.format.name(),
            job.output.with_file_name(format!("{}_r*_c*", job.output.file_stem().unwrap_or_default().to_string_lossy())).display()
        );
        Ok(())
    }

    /// The tiles a job's one file is baked in when it gives none (`--tile`): none for a
    /// volume or a small image; tiles of [`AUTO_TILE`] when the image is large or wider
    /// than the executor bakes at once; whole-width row bands on the CPU path when the file
    /// streams, so that writing overlaps baking.
    fn auto_grid(&mut self, job: &Job, out: &OutputFile) -> Result<Option<TileGrid>, Failure> {
        if job.view.is_volume() {
            return Ok(None);
        }
        let max = self.max_dimension()?;
        let on_cpu = matches!(self.executor()?, Executor::Cpu);
        let [w, h, _] = job.view.size;
        let pixels = job.view.pixel_count();
        Ok(if pixels > AUTO_TILE_PIXELS || w > max || h > max {
            let tile_w = AUTO_TILE.min(max);
            let tile_h = (AUTO_BAND_PIXELS / w as u64).clamp(16, AUTO_TILE as u64) as u32;
            Some(TileGrid::with_tile_size([w, h], [tile_w, tile_h.min(max)]))
        } else if on_cpu && out.streams() && pixels >= CPU_BAND_PIXELS {
            // Whole-width bands (the CPU path splits rows between its threads).
            let band_h = ((CPU_BAND_PIXELS / 2) / w as u64).max(16) as u32;
            Some(TileGrid::with_tile_size([w, h], [w, band_h]))
        } else {
            None
        })
    }

    /// A job's one file: baked whole, or in tiles streamed into it.
    fn bake_whole(
        &mut self,
        job: &Job,
        source: &Source<'_>,
        out: &OutputFile,
        target: &str,
    ) -> Result<(), Failure> {
        if self.already_there(out, &job.output, job.view.size) {
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
            None => self.auto_grid(job, out)?,
        };
        match &grid {
            None => {
                let data = self.bake(source, &job.view)?;
                out.write(&job.output, job.view.size, &data)?;
            }
            Some(grid) => {
                let two_pass = out.needs_range_first();
                let total = job.view.pixel_count() * if two_pass { 2 } else { 1 };
                let bar = progress_bar(total, &job.label);
                let mut seen: Vec<Option<(f32, f32)>> = vec![None; out.numbers()];
                if two_pass {
                    // The data's ranges must be known before the first row is encoded: bake
                    // the tiles once for them, then again to write.
                    for tile in grid.tiles() {
                        let view = tile.view(&job.view);
                        let data = self.bake(source, &view)?;
                        for (range, tile_range) in
                            seen.iter_mut().zip(min_max_channels(&data, out.numbers()))
                        {
                            if let Some(t) = tile_range {
                                *range = Some(widen(*range, t));
                            }
                        }
                        bar.inc(view.pixel_count());
                    }
                }
                let ranges = out.ranges(&seen);
                self.bake_stitched(source, job, grid, out, &ranges, &bar)?;
                bar.finish_and_clear();
            }
        }
        self.tally.written += 1;
        eprintln!(
            "noisegraph: wrote {} ({}{} {}x{}x{}, node '{target}'{})",
            job.output.display(),
            out.note,
            job.format.name(),
            job.view.size[0],
            job.view.size[1],
            job.view.size[2],
            match grid {
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
        source: &Source<'_>,
        job: &Job,
        grid: &TileGrid,
        out: &OutputFile,
        ranges: &[(f32, f32)],
        bar: &ProgressBar,
    ) -> Result<(), Failure> {
        let writer = out.create(&job.output, job.view.size, ranges)?;
        // One band waiting while one is written and the next is baked.
        let (bands, received) = std::sync::mpsc::sync_channel::<Vec<f32>>(1);
        std::thread::scope(|scope| {
            let written = scope.spawn(move || -> Result<(), Failure> {
                let mut writer = writer;
                for band in received {
                    writer.write_band(band)?;
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
                    let band = self.bake_band(source, job, grid, row, out.numbers(), bar)?;
                    if bands.send(band).is_err() {
                        break; // the writer failed: its error is reported below
                    }
                }
                Ok(())
            })();
            drop(bands);
            let written = written.join().unwrap_or_else(|_| {
                Err(Failure {
                    code: super::EXIT_INTERNAL,
                    message: format!("{}: the writing thread panicked", job.output.display()),
                })
            });
            baked.and(written)
        })
    }

    /// Bakes row `row` of the grid's tiles into one whole-width band of `numbers` per pixel.
    fn bake_band(
        &mut self,
        source: &Source<'_>,
        job: &Job,
        grid: &TileGrid,
        row: u32,
        numbers: usize,
        bar: &ProgressBar,
    ) -> Result<Vec<f32>, Failure> {
        if grid.columns() == 1 {
            let view = grid.tile(row as usize).view(&job.view);
            let data = self.bake(source, &view)?;
            bar.inc(view.pixel_count());
            return Ok(data);
        }
        let line = job.view.size[0] as usize * numbers;
        let mut band: Vec<f32> = Vec::new();
        for column in 0..grid.columns() {
            let tile = grid.tile((row * grid.columns() + column) as usize);
            let view = tile.view(&job.view);
            let data = self.bake(source, &view)?;
            let (tw, th) = (tile.size[0] as usize * numbers, tile.size[1] as usize);
            if band.is_empty() {
                band.resize(line * th, 0.0);
            }
            let x0 = tile.offset[0] as usize * numbers;
            for (y, part) in data.chunks_exact(tw).enumerate() {
                band[y * line + x0..y * line + x0 + tw].copy_from_slice(part);
            }
            bar.inc(view.pixel_count());
        }
        Ok(band)
    }

    /// Bakes the normal map of a job's node (2D): from the analytic gradient, refused with
    /// the node's name when it has none, or by central differences of the baked field.
    pub fn bake_normal_map(
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
        let channels = if matches!(job.format, Format::Png | Format::Png16) {
            3
        } else {
            4
        };
        job.write
            .check(job.format, channels)
            .map_err(|e| Failure::bad_input(format!("--normal-map: {e}")))?;
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
            &job.write,
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

    pub fn summary(&self, failed: usize, start: Instant) {
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
