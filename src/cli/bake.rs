//! `noisegraph bake`: its flags, and the order of work: the jobs they describe (one graph, a
//! batch, a manifest), each share of a job array's, run by the [`Runner`]; a batch's failures
//! counted.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use noisegraph::io::{ExrCompression, Format, PngCompression, Ramp, WriteOptions};
use noisegraph::tiling::Shard;
use noisegraph::Backend;

use super::job::{
    check_inside, extension, job_from_entry, parse_format, parse_normalize, view_from, BakeField,
    Defaults, GraphSource, Job,
};
use super::pack::parse_channels;
use super::runner::{NormalMode, Runner};
use super::Failure;

#[derive(Args)]
pub struct BakeArgs {
    /// Graph files (JSON). With one graph, -o is the output file; with several (or with
    /// --manifest), -o is the output folder and each graph writes <stem>.<ext> there.
    pub graphs: Vec<PathBuf>,
    /// Output file (one graph) or output folder (several graphs, or a manifest).
    #[arg(short = 'o', long = "out", value_name = "PATH")]
    pub out: Option<PathBuf>,
    /// What each pixel holds: `value` (the field), `gradient` (value and exact gradient: npy
    /// (H, W, 3) = value, d/dx, d/dy, or (D, H, W, 4) with d/dz for a volume; exr channels
    /// value, gradient.x, gradient.y[, gradient.z]) or `curl` (a divergence-free flow: npy
    /// (H, W, 2) = (d/dy, -d/dx), or (D, H, W, 3) for a volume, the curl of three decorrelated
    /// copies of the graph; exr channels curl.x, curl.y[, curl.z]). Gradient and curl are
    /// written as npy or exr only. (`--output` is the old spelling, still accepted.)
    #[arg(
        long = "field",
        alias = "output",
        value_name = "value|gradient|curl",
        default_value = "value",
        value_parser = BakeField::parse
    )]
    pub field: BakeField,
    /// A JSON list of jobs: {"graph" or "preset", "output", "size", "origin", "extent",
    /// "node", "format", "normalize", "tile", "stitch", "field", "channels"}; missing fields take
    /// the flags' values.
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
    /// png | png16 | exr | npy | tif | r16 | r32 (default: from the output extension; png for
    /// several graphs).
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
    /// falloff, a cellular, gabor or phasor node, or a fractal (fbm, ridged, billow, pingpong,
    /// hybrid, hetero) over one) or
    /// `central` (central differences of the baked field, any node). PNG gets RGB
    /// n * 0.5 + 0.5; npy (H, W, 4) and exr RGBA get (nx, ny, nz, height).
    #[arg(long, value_name = "analytic|central")]
    pub normal_map: Option<String>,
    /// PNG deflate effort: `fast` (each piece Huffman-coded without a search for matches, about
    /// the speed of the noise), `default` (zlib's level 6) or `best` (9). Bands are deflated on
    /// every core either way. PNG only [default: fast].
    #[arg(long, value_name = "fast|default|best")]
    pub png_compression: Option<String>,
    /// EXR block compression (lossless): `zip` (16-line zlib blocks), `piz` (wavelet, 32
    /// lines), `rle` or `none`. EXR only [default: zip].
    #[arg(long, value_name = "zip|piz|rle|none")]
    pub exr_compression: Option<String>,
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
    /// Bake the six faces of a cube map of the graph's 3D output: -o must hold `{face}`,
    /// replaced by px, nx, py, ny, pz, nz (OpenGL / Vulkan order and orientation; see the
    /// README's "Mappings").
    #[arg(long)]
    pub cube_map: bool,
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

/// The settings every job takes from the flags, each flag parsed once.
fn defaults_of(args: &BakeArgs) -> Result<Defaults, Failure> {
    Ok(Defaults {
        view: view_from(&args.size, args.origin.as_deref(), args.extent.as_deref())?,
        node: args.node.clone(),
        format: args.format.as_deref().map(parse_format).transpose()?,
        minmax: parse_normalize(&args.normalize)?,
        tile: args.tile,
        stitch: args.stitch,
        field: args.field,
        channels: args.channels.as_deref().map(parse_channels).transpose()?,
        write: WriteOptions {
            png_compression: args
                .png_compression
                .as_deref()
                .map(PngCompression::parse)
                .transpose()?
                .unwrap_or_default(),
            exr_compression: args
                .exr_compression
                .as_deref()
                .map(ExrCompression::parse)
                .transpose()?
                .unwrap_or_default(),
            exr_half: args.exr_half,
            ramp: args.ramp.as_deref().map(Ramp::parse).transpose()?,
        },
    })
}

/// `--png-compression` or `--exr-compression` given for one output of another format: the
/// flag would do nothing, so it is refused. (A batch's flags apply to its PNG or EXR outputs
/// and are unused by the others.)
fn check_compression_flags(args: &BakeArgs, format: Format) -> Result<(), Failure> {
    if args.png_compression.is_some() && !matches!(format, Format::Png | Format::Png16) {
        return Err(Failure::bad_input(format!(
            "--png-compression: sets PNG's deflate (png, png16), not {}'s",
            format.name()
        )));
    }
    if args.exr_compression.is_some() && format != Format::Exr {
        return Err(Failure::bad_input(format!(
            "--exr-compression: sets EXR's block compression, not {}'s",
            format.name()
        )));
    }
    Ok(())
}

pub fn run(args: BakeArgs) -> Result<i32, Failure> {
    let backend: Backend = args.backend.parse().map_err(Failure::bad_input)?;
    let shard = args
        .shard
        .as_deref()
        .map(Shard::parse)
        .transpose()
        .map_err(Failure::bad_input)?;
    let defaults = defaults_of(&args)?;
    let normal_map = args
        .normal_map
        .as_deref()
        .map(NormalMode::parse)
        .transpose()?;
    if normal_map.is_some() && args.channels.is_some() {
        return Err(Failure::bad_input(
            "--channels: not with --normal-map (pack the normal map's components as normal.x, normal.y, normal.z)",
        ));
    }
    if normal_map.is_some() && args.field != BakeField::Value {
        return Err(Failure::bad_input(format!(
            "--field {}: not with --normal-map (a normal map is its own output)",
            args.field.name()
        )));
    }
    let mut sources: Vec<GraphSource> =
        args.graphs.iter().cloned().map(GraphSource::File).collect();
    if let Some(p) = &args.preset {
        sources.push(GraphSource::Preset(p.clone()));
    }
    let mut runner = Runner::new(backend, shard, args.resume, args.height_scale);
    let start = Instant::now();

    if let Some(mode) = normal_map {
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
            .out
            .clone()
            .ok_or_else(|| Failure::bad_input("-o/--out: required (the output file)"))?;
        let job = Job::from_flags(sources.remove(0), output, &defaults)?;
        check_compression_flags(&args, job.format)?;
        runner.bake_normal_map(&job, mode, args.height_scale)?;
        runner.summary(0, start);
        return Ok(0);
    }

    if args.cube_map {
        if sources.len() != 1 || args.manifest.is_some() {
            return Err(Failure::bad_input(
                "--cube-map: bakes one graph (a file or --preset), not a batch or a manifest",
            ));
        }
        let output = args.out.clone().ok_or_else(|| {
            Failure::bad_input("-o/--out: required (a path with {face}, e.g. sky_{face}.png)")
        })?;
        let jobs = super::cube_map::jobs(sources.remove(0), &output, &args, &defaults)?;
        for job in &jobs {
            let units: Vec<usize> = (0..job.units()).filter(|&u| runner.selected(u)).collect();
            if !units.is_empty() {
                runner.run_job(job, &units)?;
            }
        }
        runner.summary(0, start);
        return Ok(0);
    }

    if sources.len() == 1 && args.manifest.is_none() {
        // One graph: -o is the file; failures exit 2 (bad input) or 1.
        let output = args
            .out
            .clone()
            .ok_or_else(|| Failure::bad_input("-o/--out: required (the output file)"))?;
        let job = Job::from_flags(sources.remove(0), output, &defaults)?;
        check_compression_flags(&args, job.format)?;
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
    let out_dir = args.out.clone();
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
        let format = defaults.format.unwrap_or(Format::Png);
        let output = dir.join(format!("{}.{}", source.stem(), extension(format)));
        jobs.push((label, Job::from_flags(source, output, &defaults)));
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
