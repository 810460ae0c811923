//! Channel packing (`--channels r=height,g=mask,b=normal.x`): several nodes, or the components
//! of the baked node's normal map, into the R, G, B and A channels of one PNG (8/16-bit) or
//! EXR (`.npy` too), each channel mapped from its own range. A packed channel holds exactly
//! what that node's own single-channel file of the same view holds.

use noisegraph::gpu::{analytic_normal_map, analytic_normal_map_cpu, NormalMapFormat, NormalMapOptions};
use noisegraph::io::{is_complete_with, remove_stale_partials, Channel, Format, StreamWriter};
use noisegraph::tiling::TileGrid;
use noisegraph::{Executor, NoiseGraph, Plan, View};

use super::{progress_bar, Failure, Job, Runner, CPU_BAND_PIXELS};

/// The file's channels, in order.
const LETTERS: [char; 4] = ['r', 'g', 'b', 'a'];

/// What one packed channel holds.
#[derive(Debug, Clone, PartialEq)]
pub enum PackSource {
    /// A node's value.
    Node(String),
    /// Component 0, 1 or 2 (x, y, z) of the baked node's analytic normal map, mapped from
    /// -1..1 as in a normal-map PNG.
    Normal(usize),
    /// Nothing given: level 0 (an unnamed R, G or B of a PNG).
    Zero,
}

/// One channel of a packed file.
#[derive(Debug, Clone, PartialEq)]
pub struct PackedChannel {
    /// `r`, `g`, `b` or `a`.
    pub letter: char,
    pub source: PackSource,
    /// The range given after the source (`height:0:1`); else the node's documented range,
    /// or its data's with `--normalize minmax`.
    pub range: Option<(f32, f32)>,
}

/// Parses `r=SOURCE[:LO:HI],g=...`: SOURCE a node id or `normal.x|y|z`, each letter of r, g,
/// b, a at most once. Errors start with `--channels`.
pub fn parse_channels(text: &str) -> Result<Vec<PackedChannel>, Failure> {
    let bad = |m: String| {
        Failure::bad_input(format!(
            "--channels: {m} (expected r=SOURCE[:LO:HI],g=...,b=...,a=... with SOURCE a node id or normal.x, normal.y, normal.z)"
        ))
    };
    let mut given: Vec<PackedChannel> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (letter, rest) = part
            .split_once('=')
            .ok_or_else(|| bad(format!("'{part}' has no '='")))?;
        let letter = match letter.trim().to_ascii_lowercase().as_str() {
            "r" => 'r',
            "g" => 'g',
            "b" => 'b',
            "a" => 'a',
            other => return Err(bad(format!("'{other}' is not a channel (r, g, b, a)"))),
        };
        if given.iter().any(|c| c.letter == letter) {
            return Err(bad(format!("channel {letter} is given twice")));
        }
        let mut fields = rest.trim().split(':');
        let source = fields.next().unwrap_or("").trim();
        let range = match (fields.next(), fields.next(), fields.next()) {
            (None, _, _) => None,
            (Some(lo), Some(hi), None) => {
                let parse = |t: &str| t.trim().parse::<f32>().ok().filter(|v| v.is_finite());
                match (parse(lo), parse(hi)) {
                    (Some(lo), Some(hi)) if lo < hi => Some((lo, hi)),
                    _ => {
                        return Err(bad(format!(
                            "channel {letter}: the range '{lo}:{hi}' must be two finite numbers LO < HI"
                        )))
                    }
                }
            }
            _ => return Err(bad(format!("channel {letter}: '{rest}' is not SOURCE or SOURCE:LO:HI"))),
        };
        let source = match source {
            "" => return Err(bad(format!("channel {letter} has no source"))),
            "normal.x" => PackSource::Normal(0),
            "normal.y" => PackSource::Normal(1),
            "normal.z" => PackSource::Normal(2),
            node => PackSource::Node(node.to_string()),
        };
        given.push(PackedChannel {
            letter,
            source,
            range,
        });
    }
    if given.is_empty() {
        return Err(bad("no channel given".into()));
    }
    given.sort_by_key(|c| LETTERS.iter().position(|&l| l == c.letter));
    Ok(given)
}

/// The channels a `format` file gets: a PNG always has R, G and B (a missing one is level 0)
/// and A when `a` is given; float formats get the channels given.
fn file_channels(given: &[PackedChannel], format: Format) -> Vec<PackedChannel> {
    if !matches!(format, Format::Png | Format::Png16) {
        return given.to_vec();
    }
    let has_alpha = given.iter().any(|c| c.letter == 'a');
    LETTERS[..if has_alpha { 4 } else { 3 }]
        .iter()
        .map(|&letter| {
            given
                .iter()
                .find(|c| c.letter == letter)
                .cloned()
                .unwrap_or(PackedChannel {
                    letter,
                    source: PackSource::Zero,
                    range: None,
                })
        })
        .collect()
}

/// A packed job's sources, ready to bake: a plan per node channel.
struct Packing<'g> {
    channels: Vec<PackedChannel>,
    plans: Vec<Option<Plan>>,
    graph: &'g NoiseGraph,
    /// The node whose normal map `normal.*` channels hold.
    target: &'g str,
    height_scale: f32,
}

impl Packing<'_> {
    /// Whether a channel's range is its data's own (`--normalize minmax`, a mapped format,
    /// a node channel without a range given): then the samples are baked once for it.
    fn needs_data(&self, job: &Job) -> bool {
        job.minmax
            && job.format.is_mapped()
            && self
                .channels
                .iter()
                .any(|c| c.range.is_none() && matches!(c.source, PackSource::Node(_)))
    }

    /// Each channel's value range: given, else fixed by its source, else (nodes) the
    /// documented range or the data's own in `samples` (see [`Packing::needs_data`]).
    fn ranges(&self, samples: Option<&[f32]>) -> Vec<(f32, f32)> {
        let n = self.channels.len();
        self.channels
            .iter()
            .enumerate()
            .map(|(i, c)| match (&c.source, c.range, samples) {
                (_, Some(range), _) => range,
                (PackSource::Normal(_), None, _) => (-1.0, 1.0),
                (PackSource::Zero, None, _) => (0.0, 1.0),
                (PackSource::Node(_), None, Some(samples)) => {
                    min_max(samples.iter().skip(i).step_by(n).copied()).unwrap_or((0.0, 1.0))
                }
                (PackSource::Node(node), None, None) => self.graph.range_of(node),
            })
            .collect()
    }
}

impl Runner {
    /// A job with `--channels`: whole, in row bands streamed into one file, or one file per
    /// tile, like value jobs.
    pub(super) fn run_packed_job(
        &mut self,
        job: &Job,
        units: &[usize],
        graph: &NoiseGraph,
        target: &str,
        given: &[PackedChannel],
    ) -> Result<(), Failure> {
        let channels = file_channels(given, job.format);
        self.write
            .check(job.format, channels.len())
            .map_err(|e| Failure::bad_input(format!("--channels: {e}")))?;
        if job.view.is_volume() {
            return Err(Failure::bad_input(
                "--channels: packs images (2D); bake a volume's nodes one by one",
            ));
        }
        let mut plans = Vec::with_capacity(channels.len());
        for c in &channels {
            plans.push(match &c.source {
                PackSource::Node(node) => {
                    let plan = Plan::new(graph, Some(node)).map_err(|e| {
                        Failure::bad_input(format!("--channels: channel {}: {e}", c.letter))
                    })?;
                    plan.check_view(&job.view)?;
                    Some(plan)
                }
                PackSource::Normal(_) => {
                    noisegraph::gpu::analytic_plan(graph, Some(target)).map_err(|e| {
                        Failure::bad_input(format!("--channels: channel {}: {e}", c.letter))
                    })?;
                    None
                }
                PackSource::Zero => None,
            });
        }
        let packing = Packing {
            channels,
            plans,
            graph,
            target,
            height_scale: self.height_scale,
        };
        let names: Vec<String> = packing.channels.iter().map(|c| c.letter.to_ascii_uppercase().to_string()).collect();

        if job.per_tile_files() {
            let grid = job.grid().expect("per-tile jobs have a grid");
            let (mut written, mut skipped) = (0, 0);
            for &u in units {
                let tile = grid.tile(u);
                let path = job.tile_path(&grid, tile.row, tile.column);
                let view = tile.view(&job.view);
                let n = packing.channels.len();
                if self.resume {
                    remove_stale_partials(&path);
                }
                if self.resume && is_complete_with(&path, job.format, view.size, n, &self.write) {
                    skipped += 1;
                    continue;
                }
                let data = self.bake_packed(&packing, &view)?;
                let ranges = packing.ranges(packing.needs_data(job).then_some(&data[..]));
                let layout = layout(&names, &ranges);
                let mut writer = StreamWriter::open(&path, job.format, view.size, &layout, &self.write)?;
                writer.write_rows(&data)?;
                writer.finish()?;
                written += 1;
            }
            self.tally.written += written;
            self.tally.skipped += skipped;
            eprintln!(
                "noisegraph: {}: {written} packed tile(s) of {} written, {skipped} already there",
                job.label,
                grid.count()
            );
            return Ok(());
        }
        let n = packing.channels.len();
        if self.resume {
            remove_stale_partials(&job.output);
        }
        if self.resume && is_complete_with(&job.output, job.format, job.view.size, n, &self.write) {
            self.tally.skipped += 1;
            eprintln!("noisegraph: {}: {} already there, skipped", job.label, job.output.display());
            return Ok(());
        }
        let [w, h, _] = job.view.size;
        let grid = job.grid().unwrap_or_else(|| {
            // Whole-width bands, as the value path streams large images.
            let band_h = ((CPU_BAND_PIXELS / 2) / w as u64).clamp(16, h as u64) as u32;
            TileGrid::with_tile_size([w, h], [w, band_h])
        });
        let bar = progress_bar(job.view.pixel_count(), &job.label);
        let ranges = if packing.needs_data(job) {
            // The data's own ranges must be known before the first row is encoded: bake
            // once for them (min and max per channel), then again to write.
            let n = packing.channels.len();
            let mut lo_hi: Vec<Option<(f32, f32)>> = vec![None; n];
            for row in 0..grid.rows() {
                let band = self.bake_packed_band(&packing, job, &grid, row)?;
                for (c, range) in packing.ranges(Some(&band)).into_iter().enumerate() {
                    lo_hi[c] = Some(lo_hi[c].map_or(range, |(a, b)| (a.min(range.0), b.max(range.1))));
                }
            }
            let band_ranges: Vec<(f32, f32)> = lo_hi.into_iter().map(|r| r.unwrap_or((0.0, 1.0))).collect();
            let fixed = packing.ranges(None);
            packing
                .channels
                .iter()
                .enumerate()
                .map(|(c, ch)| match (&ch.source, ch.range) {
                    (PackSource::Node(_), None) => band_ranges[c],
                    _ => fixed[c],
                })
                .collect()
        } else {
            packing.ranges(None)
        };
        let layout = layout(&names, &ranges);
        let mut writer = StreamWriter::open(&job.output, job.format, job.view.size, &layout, &self.write)?;
        for row in 0..grid.rows() {
            let band = self.bake_packed_band(&packing, job, &grid, row)?;
            bar.inc((band.len() / n) as u64);
            writer.write_rows(&band)?;
        }
        writer.finish()?;
        bar.finish_and_clear();
        self.tally.written += 1;
        eprintln!(
            "noisegraph: wrote {} (packed {} {}x{}, channels {})",
            job.output.display(),
            job.format.name(),
            w,
            h,
            packing
                .channels
                .iter()
                .map(|c| format!("{}={}", c.letter, describe(&c.source)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        Ok(())
    }

    /// Bakes row `row` of the grid into one whole-width band of packed samples.
    fn bake_packed_band(
        &mut self,
        packing: &Packing<'_>,
        job: &Job,
        grid: &TileGrid,
        row: u32,
    ) -> Result<Vec<f32>, Failure> {
        let n = packing.channels.len();
        let width = job.view.size[0] as usize * n;
        let mut band: Vec<f32> = Vec::new();
        for column in 0..grid.columns() {
            let tile = grid.tile((row * grid.columns() + column) as usize);
            let data = self.bake_packed(packing, &tile.view(&job.view))?;
            let tw = tile.size[0] as usize * n;
            if band.is_empty() {
                band.resize(width * tile.size[1] as usize, 0.0);
            }
            let x0 = tile.offset[0] as usize * n;
            for (y, line) in data.chunks_exact(tw).enumerate() {
                band[y * width + x0..y * width + x0 + tw].copy_from_slice(line);
            }
        }
        Ok(band)
    }

    /// Bakes every channel's source over `view` and interleaves them, channel fastest.
    fn bake_packed(&mut self, packing: &Packing<'_>, view: &View) -> Result<Vec<f32>, Failure> {
        let n = packing.channels.len();
        let pixels = view.pixel_count() as usize;
        let mut out = vec![0.0f32; pixels * n];
        let mut normals: Option<Vec<[f32; 4]>> = None;
        for (i, c) in packing.channels.iter().enumerate() {
            match (&c.source, &packing.plans[i]) {
                (PackSource::Node(_), Some(plan)) => {
                    let field = self.bake(plan, view)?;
                    for (o, v) in out.iter_mut().skip(i).step_by(n).zip(field.data) {
                        *o = v;
                    }
                }
                (PackSource::Normal(axis), _) => {
                    if normals.is_none() {
                        normals = Some(self.bake_normals(packing, view)?);
                    }
                    let normals = normals.as_ref().expect("just baked");
                    for (o, nrm) in out.iter_mut().skip(i).step_by(n).zip(normals) {
                        *o = nrm[*axis];
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// The analytic normal map of the job's node over `view`.
    fn bake_normals(&mut self, packing: &Packing<'_>, view: &View) -> Result<Vec<[f32; 4]>, Failure> {
        let options = NormalMapOptions {
            format: NormalMapFormat::Rgba32Float,
            height_scale: packing.height_scale,
            ..NormalMapOptions::for_view(view)
        };
        let start = std::time::Instant::now();
        let target = Some(packing.target);
        let normals = match self.executor()? {
            Executor::Gpu(ctx) => analytic_normal_map(ctx, packing.graph, target, *view, options)?,
            Executor::Cpu => analytic_normal_map_cpu(packing.graph, target, view, &options)?,
        };
        self.tally.seconds += start.elapsed().as_secs_f64();
        Ok(normals)
    }
}

/// The file's channels: named R, G, B, A (EXR), each with its range.
fn layout(names: &[String], ranges: &[(f32, f32)]) -> Vec<Channel> {
    names.iter().zip(ranges).map(|(name, &range)| Channel::new(name, range)).collect()
}

fn describe(source: &PackSource) -> String {
    match source {
        PackSource::Node(node) => node.clone(),
        PackSource::Normal(axis) => format!("normal.{}", ["x", "y", "z"][*axis]),
        PackSource::Zero => "0".into(),
    }
}

/// The finite minimum and maximum (as [`noisegraph::Field::min_max`]).
fn min_max(values: impl Iterator<Item = f32>) -> Option<(f32, f32)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| Some(acc.map_or((v, v), |(lo, hi): (f32, f32)| (lo.min(v), hi.max(v)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_parse_in_file_order_with_ranges() {
        let c = parse_channels("b=normal.x, r=height:-1:1,g=mask").unwrap();
        assert_eq!(
            c.iter().map(|c| c.letter).collect::<String>(),
            "rgb"
        );
        assert_eq!(c[0].range, Some((-1.0, 1.0)));
        assert_eq!(c[1].source, PackSource::Node("mask".into()));
        assert_eq!(c[2].source, PackSource::Normal(0));
        for bad in ["", "x=height", "r=height,r=mask", "r=", "r=h:1", "r=h:2:1", "r"] {
            let e = parse_channels(bad).unwrap_err();
            assert!(e.message.starts_with("--channels: "), "{bad}: {}", e.message);
        }
    }
}
