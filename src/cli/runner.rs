//! Running bake jobs: one loop for every field a job bakes (value, gradient, curl), whole, in
//! tiles written to their own files, or in tiles and row bands streamed into one file while
//! the next band is baked; `--resume` (stale temporary files cleared, whole files skipped)
//! and the automatic tiling of large images alike for all of them. Normal maps beside.

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
    is_complete_channels, remove_stale_partials, write_normal_map, Format, StreamWriter,
};
use noisegraph::tiling::{Shard, TileGrid};
use noisegraph::{Backend, Executor, Plan, RunOptions, View};

use super::job::{BakeField, Job};
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
    tally: Tally,
}

/// The file a job writes: its format, its channels (none for a plain value field) and, for
/// a PNG, the value range mapped to black..white.
struct OutputFile {
    format: Format,
    channels: &'static [&'static str],
    /// The node's documented range (PNG formats).
    range: (f32, f32),
    /// `--normalize minmax`: the range of the data instead.
    minmax: bool,
}

impl OutputFile {
    /// Numbers per pixel.
    fn numbers(&self) -> usize {
        self.channels.len().max(1)
    }

    /// Whether the format takes rows as they come (npy, and PNG mapped from a known range);
    /// EXR is encoded whole, and a PNG of the data's own range needs all the data first.
    fn streams(&self) -> bool {
        match self.format {
            Format::Npy => true,
            Format::Png | Format::Png16 => !self.minmax,
            Format::Exr => false,
        }
    }

    /// Whether a PNG of the data's own range: the range must be known before the first row.
    fn needs_range_first(&self) -> bool {
        self.minmax && matches!(self.format, Format::Png | Format::Png16)
    }

    /// The range a PNG of `data` maps from.
    fn range_of(&self, data: &[f32]) -> (f32, f32) {
        if self.minmax {
            min_max(data).unwrap_or((0.0, 1.0))
        } else {
            self.range
        }
    }

    /// Whether `path` holds a whole file of `size`, as a finished bake leaves it.
    fn is_complete(&self, path: &Path, size: [u32; 3]) -> bool {
        is_complete_channels(path, self.format, size, self.numbers())
    }

    fn create(
        &self,
        path: &Path,
        size: [u32; 3],
        range: (f32, f32),
    ) -> noisegraph::Result<StreamWriter> {
        if self.channels.is_empty() {
            StreamWriter::create(path, self.format, size, range)
        } else {
            StreamWriter::create_channels(path, self.format, size, self.channels)
        }
    }

    /// Writes the whole of `data` (`size` pixels of [`Self::numbers`] each) to `path`.
    fn write(&self, path: &Path, size: [u32; 3], data: &[f32]) -> Result<(), Failure> {
        let mut writer = self.create(path, size, self.range_of(data))?;
        writer.write_rows(data)?;
        Ok(writer.finish()?)
    }
}

/// The smallest and largest finite number of `data`.
fn min_max(data: &[f32]) -> Option<(f32, f32)> {
    let mut it = data.iter().copied().filter(|v| v.is_finite());
    let first = it.next()?;
    Some(it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
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

/// How a job's message describes its field: nothing for a value, else the field and its
/// channels.
fn field_note(field: BakeField, channels: &[&str]) -> String {
    match field {
        BakeField::Value => String::new(),
        other => format!("{}: channels {}, ", other.name(), channels.join(", ")),
    }
}

impl Runner {
    pub fn new(backend: Backend, shard: Option<Shard>, resume: bool) -> Runner {
        Runner {
            backend,
            executor: None,
            shard,
            resume,
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

    /// Bakes `field` of `plan` over a tile or a whole view: the numbers of every pixel,
    /// channel fastest.
    fn bake(&mut self, field: BakeField, plan: &Plan, view: &View) -> Result<Vec<f32>, Failure> {
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

    /// Bakes the job's work units `units` (its tiles when each has its own file, else the
    /// one output).
    pub fn run_job(&mut self, job: &Job, units: &[usize]) -> Result<(), Failure> {
        let graph = job.source.load()?;
        let target = job.node.as_deref().unwrap_or(&graph.output).to_string();
        let plan = match job.field {
            BakeField::Value => Plan::new(&graph, Some(&target))?,
            BakeField::Gradient | BakeField::Curl => gradient_plan(&graph, Some(&target))?,
        };
        plan.check_view(&job.view)?;
        let out = OutputFile {
            format: job.format,
            channels: job.field.channels(job.view.is_volume()),
            range: graph.range_of(&target),
            minmax: job.minmax,
        };
        if job.per_tile_files() {
            self.bake_tile_files(job, units, &plan, &out)
        } else {
            self.bake_whole(job, &plan, &out, &target)
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
        plan: &Plan,
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
                let data = self.bake(job.field, plan, &view)?;
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
            field_note(job.field, out.channels),
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
        plan: &Plan,
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
                let data = self.bake(job.field, plan, &job.view)?;
                out.write(&job.output, job.view.size, &data)?;
            }
            Some(grid) => {
                let two_pass = out.needs_range_first();
                let total = job.view.pixel_count() * if two_pass { 2 } else { 1 };
                let bar = progress_bar(total, &job.label);
                let range = if two_pass {
                    // The data's range must be known before the first row is encoded: bake
                    // the tiles once for it, then again to write.
                    let mut lo_hi: Option<(f32, f32)> = None;
                    for tile in grid.tiles() {
                        let view = tile.view(&job.view);
                        let data = self.bake(job.field, plan, &view)?;
                        if let Some((lo, hi)) = min_max(&data) {
                            lo_hi = Some(lo_hi.map_or((lo, hi), |(a, b)| (a.min(lo), b.max(hi))));
                        }
                        bar.inc(view.pixel_count());
                    }
                    lo_hi.unwrap_or((0.0, 1.0))
                } else {
                    out.range
                };
                self.bake_stitched(plan, job, grid, out, range, &bar)?;
                bar.finish_and_clear();
            }
        }
        self.tally.written += 1;
        eprintln!(
            "noisegraph: wrote {} ({}{} {}x{}x{}, node '{target}'{})",
            job.output.display(),
            field_note(job.field, out.channels),
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
        plan: &Plan,
        job: &Job,
        grid: &TileGrid,
        out: &OutputFile,
        range: (f32, f32),
        bar: &ProgressBar,
    ) -> Result<(), Failure> {
        let writer = out.create(&job.output, job.view.size, range)?;
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
                    let band = self.bake_band(plan, job, grid, row, out.numbers(), bar)?;
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
        plan: &Plan,
        job: &Job,
        grid: &TileGrid,
        row: u32,
        numbers: usize,
        bar: &ProgressBar,
    ) -> Result<Vec<f32>, Failure> {
        if grid.columns() == 1 {
            let view = grid.tile(row as usize).view(&job.view);
            let data = self.bake(job.field, plan, &view)?;
            bar.inc(view.pixel_count());
            return Ok(data);
        }
        let line = job.view.size[0] as usize * numbers;
        let mut band: Vec<f32> = Vec::new();
        for column in 0..grid.columns() {
            let tile = grid.tile((row * grid.columns() + column) as usize);
            let view = tile.view(&job.view);
            let data = self.bake(job.field, plan, &view)?;
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
