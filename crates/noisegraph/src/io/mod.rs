//! Writing fields to files: 8-bit PNG, 16-bit PNG, OpenEXR (f32) and NumPy `.npy` (f32).
//! Every write goes to a temporary file in the destination folder and is renamed into place,
//! so an interrupted bake never leaves a file under the final name.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::field::Field;

/// Output file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// 8-bit grayscale PNG, remapped from a value range.
    Png,
    /// 16-bit grayscale PNG, remapped from a value range.
    Png16,
    /// OpenEXR, 32-bit float (the value in R, G and B).
    Exr,
    /// NumPy array, float32 little-endian, C order, shape (H, W) or (D, H, W).
    Npy,
}

impl Format {
    /// Parses a format name (`png`, `png16`, `exr`, `npy`).
    pub fn parse(name: &str) -> Result<Format> {
        match name {
            "png" => Ok(Format::Png),
            "png16" => Ok(Format::Png16),
            "exr" => Ok(Format::Exr),
            "npy" => Ok(Format::Npy),
            other => Err(Error::InvalidRequest(format!(
                "format: unknown format '{other}' (png, png16, exr, npy)"
            ))),
        }
    }
    /// The format implied by a file extension (`.png` is 8-bit).
    pub fn from_path(path: &Path) -> Result<Format> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
            Some("png") => Ok(Format::Png),
            Some("exr") => Ok(Format::Exr),
            Some("npy") => Ok(Format::Npy),
            other => Err(Error::InvalidRequest(format!(
                "format: cannot infer a format from the extension {:?} of {}; use --format png|png16|exr|npy",
                other.unwrap_or(""),
                path.display()
            ))),
        }
    }
    /// The format's name, as [`Format::parse`] accepts it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Png16 => "png16",
            Format::Exr => "exr",
            Format::Npy => "npy",
        }
    }
}

/// Maps a value in `range` to [0, 1], clamping (NaN maps to 0).
pub fn normalize(v: f32, range: (f32, f32)) -> f32 {
    let span = range.1 - range.0;
    if span <= 0.0 || !span.is_finite() {
        return 0.5;
    }
    let t = (v - range.0) / span;
    if t.is_nan() {
        0.0
    } else {
        t.clamp(0.0, 1.0)
    }
}

/// The temporary files this process is writing, so that an interrupt can remove them
/// ([`remove_partial_files`]). Creating one and removing them all take the same lock, so no
/// temporary file appears after the removal.
static PARTIALS: Mutex<Partials> = Mutex::new(Partials {
    paths: Vec::new(),
    closed: false,
});

struct Partials {
    paths: Vec<PathBuf>,
    /// Set by [`remove_partial_files`]: the process is ending; no new temporary file.
    closed: bool,
}

fn partials() -> std::sync::MutexGuard<'static, Partials> {
    PARTIALS.lock().unwrap_or_else(|e| e.into_inner())
}

fn interrupted() -> Error {
    Error::InvalidRequest("interrupted: no new file is started".into())
}

/// Creates the temporary file `tmp` and records it for [`remove_partial_files`].
fn create_partial(tmp: &Path, path: &Path) -> Result<File> {
    let mut p = partials();
    if p.closed {
        return Err(interrupted());
    }
    let file = File::create(tmp).map_err(io_err(path))?;
    p.paths.push(tmp.to_path_buf());
    Ok(file)
}

/// Forgets `tmp` (renamed into place or removed).
fn forget_partial(tmp: &Path) {
    partials().paths.retain(|p| p != tmp);
}

/// Removes every temporary file this process is writing and refuses new ones; returns how
/// many were removed. For an interrupt handler (the command-line tool calls it on SIGINT,
/// SIGTERM and SIGHUP, then exits): files already renamed into place are whole and stay.
pub fn remove_partial_files() -> usize {
    let mut p = partials();
    p.closed = true;
    let paths = std::mem::take(&mut p.paths);
    paths
        .iter()
        .filter(|t| std::fs::remove_file(t).is_ok())
        .count()
}

/// Removes the temporary files that bakes killed without a chance to clean up left beside
/// `path` (`.NAME.PID.partial`, of a process that no longer runs; checked through `/proc`,
/// so on systems without it nothing is removed). Returns how many were removed.
pub fn remove_stale_partials(path: &Path) -> usize {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return 0;
    };
    if !Path::new("/proc/self").exists() {
        return 0;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let prefix = format!(".{name}.");
    let own = std::process::id().to_string();
    entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = file
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(".partial"))
            else {
                return false;
            };
            !pid.is_empty()
                && pid.bytes().all(|b| b.is_ascii_digit())
                && pid != own
                && !Path::new("/proc").join(pid).exists()
                && e.file_type().is_ok_and(|t| t.is_file())
        })
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// The 8-bit grey level of `v` in a PNG: `range` mapped to 0..255, rounded.
pub fn gray8(v: f32, range: (f32, f32)) -> u8 {
    (normalize(v, range) * 255.0).round() as u8
}

/// A temporary path beside `path`, renamed into place by [`commit`].
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.partial", std::process::id()))
}

/// Refuses an output path that exists and is not a regular file (a directory, a device node,
/// a fifo, a socket, or a link to one), without touching it: renaming the finished file into
/// place would replace it. Also clears a leftover temporary file of this process's id.
fn check_target(path: &Path, tmp: &Path) -> Result<()> {
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            let kind = if meta.is_dir() {
                "a directory"
            } else {
                "not a regular file (a device, fifo or socket)"
            };
            return Err(Error::InvalidRequest(format!(
                "output {} exists and is {kind}; refusing to replace it",
                path.display()
            )));
        }
    }
    match std::fs::symlink_metadata(tmp) {
        Ok(meta) if meta.is_dir() => Err(Error::InvalidRequest(format!(
            "temporary file {} is a directory; remove it",
            tmp.display()
        ))),
        Ok(_) => std::fs::remove_file(tmp).map_err(io_err(tmp)),
        Err(_) => Ok(()),
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Writes bytes produced by `write` atomically to `path`.
/// The whole write holds the lock [`remove_partial_files`] takes, so an interrupt waits for it
/// and then removes the temporary file.
pub fn write_atomic(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let tmp = temp_path(path);
    check_target(path, &tmp)?;
    let p = partials();
    if p.closed {
        return Err(interrupted());
    }
    let result = write(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(io_err(path)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    drop(p);
    result
}

/// The NumPy header for a float32 array of `shape`.
fn npy_header(shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = if dims.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape}, }}");
    // magic (6) + version (2) + length (2) + dict + newline, padded to a multiple of 64.
    let total = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat(total.div_ceil(64) * 64 - total));
    dict.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// Writes a field. `range` is the value range mapped to black..white for PNG formats.
/// A volume becomes a PNG with its slices stacked vertically.
pub fn write_field(field: &Field, path: &Path, format: Format, range: (f32, f32)) -> Result<()> {
    let mut writer = StreamWriter::create(
        path,
        format,
        [field.width, field.height, field.depth],
        range,
    )?;
    writer.write_rows(&field.data)?;
    writer.finish()
}

/// PNG sample bytes of `data`: 8-bit grey, or 16-bit big-endian, mapped from `range`.
fn png_samples(data: &[f32], range: (f32, f32), sixteen: bool, out: &mut Vec<u8>) {
    if sixteen {
        out.extend(
            data.iter()
                .flat_map(|&v| (((normalize(v, range) * 65535.0).round()) as u16).to_be_bytes()),
        );
    } else {
        out.extend(data.iter().map(|&v| gray8(v, range)));
    }
}

/// A field encoded in memory as [`write_field`] would write it to a file (the same samples;
/// for a page that downloads a bake without a file on the server). `range` maps to
/// black..white for the PNG formats.
pub fn encode_field(field: &Field, format: Format, range: (f32, f32)) -> Result<Vec<u8>> {
    let (w, h) = (field.width, field.height * field.depth.max(1));
    let encode = |e: String| Error::Encode {
        path: "(in memory)".into(),
        message: e,
    };
    match format {
        Format::Png | Format::Png16 => {
            let sixteen = format == Format::Png16;
            let mut samples = Vec::new();
            png_samples(&field.data, range, sixteen, &mut samples);
            let mut out = Vec::new();
            let mut encoder = png::Encoder::new(&mut out, w, h);
            encoder.set_color(png::ColorType::Grayscale);
            encoder.set_depth(if sixteen {
                png::BitDepth::Sixteen
            } else {
                png::BitDepth::Eight
            });
            encoder
                .write_header()
                .and_then(|mut writer| writer.write_image_data(&samples))
                .map_err(|e| encode(e.to_string()))?;
            Ok(out)
        }
        Format::Npy => {
            let shape: Vec<usize> = if field.depth > 1 {
                vec![
                    field.depth as usize,
                    field.height as usize,
                    field.width as usize,
                ]
            } else {
                vec![field.height as usize, field.width as usize]
            };
            let mut out = npy_header(&shape);
            out.extend(field.data.iter().flat_map(|v| v.to_le_bytes()));
            Ok(out)
        }
        Format::Exr => {
            let pixels: Vec<f32> = field.data.iter().flat_map(|&v| [v, v, v]).collect();
            let img = image::Rgb32FImage::from_raw(w, h, pixels)
                .ok_or_else(|| encode("the field's size does not match its samples".into()))?;
            let mut out = std::io::Cursor::new(Vec::new());
            img.write_to(&mut out, image::ImageFormat::OpenExr)
                .map_err(|e| encode(e.to_string()))?;
            Ok(out.into_inner())
        }
    }
}

/// A grayscale PNG stream of `width` x `height` pixels, 8 or 16 bits, writing to `file`.
fn png_stream(
    file: File,
    width: u32,
    height: u32,
    sixteen: bool,
) -> std::result::Result<png::StreamWriter<'static, File>, png::EncodingError> {
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(if sixteen {
        png::BitDepth::Sixteen
    } else {
        png::BitDepth::Eight
    });
    encoder.write_header()?.into_stream_writer()
}

/// The encoder behind a [`StreamWriter`].
enum Encoder {
    Npy(BufWriter<File>),
    Png {
        stream: Box<png::StreamWriter<'static, File>>,
        sixteen: bool,
    },
    /// OpenEXR is buffered whole and encoded at the end (the `image` crate's encoder takes
    /// the full image), so EXR output is not streamed.
    Exr(Vec<f32>),
}

/// Writes an image row band by row band, so a bake larger than memory can stream to disk:
/// npy and PNG are encoded as rows arrive. The file is written under a temporary name and
/// renamed into place by [`StreamWriter::finish`]; dropped unfinished (an error, a panic),
/// the temporary file is removed and nothing appears under the final name.
pub struct StreamWriter {
    path: PathBuf,
    tmp: PathBuf,
    format: Format,
    size: [u32; 3],
    range: (f32, f32),
    /// Channel names of a multi-channel file (see [`StreamWriter::create_channels`]); empty
    /// for a plain field.
    channels: Vec<String>,
    rows_written: u64,
    encoder: Option<Encoder>,
}

/// The shape of a `.npy` array of `size` (width, height, depth) with `channels` numbers per
/// sample: (H, W) or (D, H, W), with a last axis of `channels` when there are several.
fn npy_shape([w, h, d]: [u32; 3], channels: usize) -> Vec<usize> {
    let mut shape = if d > 1 {
        vec![d as usize, h as usize, w as usize]
    } else {
        vec![h as usize, w as usize]
    };
    if channels > 1 {
        shape.push(channels);
    }
    shape
}

impl StreamWriter {
    /// Starts a `size` (width, height, depth) file; a volume's slices are stacked vertically
    /// in PNG formats.
    pub fn create(path: &Path, format: Format, size: [u32; 3], range: (f32, f32)) -> Result<Self> {
        Self::create_with(path, format, size, range, &[])
    }

    /// Starts a `size` file with several numbers per sample, named `channels` (rows then hold
    /// `width x channels` numbers, channel fastest): `.npy` as an array of shape
    /// (H, W, channels) or (D, H, W, channels); OpenEXR with one named channel each (a
    /// volume's slices stacked vertically). PNG formats, which hold one channel of values in
    /// a range, are refused.
    pub fn create_channels(
        path: &Path,
        format: Format,
        size: [u32; 3],
        channels: &[&str],
    ) -> Result<Self> {
        if matches!(format, Format::Png | Format::Png16) {
            return Err(Error::InvalidRequest(format!(
                "{}: {} channels ({}) do not fit a PNG, which holds one channel mapped from a value range; write .npy or .exr",
                path.display(),
                channels.len(),
                channels.join(", ")
            )));
        }
        Self::create_with(path, format, size, (0.0, 1.0), channels)
    }

    fn create_with(
        path: &Path,
        format: Format,
        size: [u32; 3],
        range: (f32, f32),
        channels: &[&str],
    ) -> Result<Self> {
        let tmp = temp_path(path);
        check_target(path, &tmp)?;
        let encode_err = |e: png::EncodingError| Error::Encode {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        let open = || -> Result<BufWriter<File>> {
            Ok(BufWriter::with_capacity(
                1 << 20,
                create_partial(&tmp, path)?,
            ))
        };
        let [w, h, d] = size;
        let encoder = match format {
            Format::Npy => {
                let mut file = open()?;
                let shape = npy_shape(size, channels.len());
                if let Err(e) = file.write_all(&npy_header(&shape)) {
                    drop(file);
                    let _ = std::fs::remove_file(&tmp);
                    forget_partial(&tmp);
                    return Err(io_err(path)(e));
                }
                Encoder::Npy(file)
            }
            Format::Png | Format::Png16 => {
                let height = h.checked_mul(d).ok_or_else(|| {
                    Error::InvalidRequest(format!("{}: image too tall for PNG", path.display()))
                })?;
                // The encoder buffers a chunk before writing, so the file needs no BufWriter.
                let file = create_partial(&tmp, path)?;
                let sixteen = format == Format::Png16;
                let stream = png_stream(file, w, height, sixteen).map_err(|e| {
                    let _ = std::fs::remove_file(&tmp);
                    forget_partial(&tmp);
                    encode_err(e)
                })?;
                Encoder::Png {
                    stream: Box::new(stream),
                    sixteen,
                }
            }
            Format::Exr => {
                // Buffered whole, then expanded to RGB for the encoder: 16 bytes a pixel.
                let pixels = w as u64 * h as u64 * d as u64;
                crate::memory::check_available(
                    &format!(
                        "the EXR file {} ({w}x{h}x{d}, encoded whole)",
                        path.display()
                    ),
                    pixels * 16,
                )?;
                Encoder::Exr(Vec::new())
            }
        };
        Ok(StreamWriter {
            path: path.to_path_buf(),
            tmp,
            format,
            size,
            range,
            channels: channels.iter().map(|c| c.to_string()).collect(),
            rows_written: 0,
            encoder: Some(encoder),
        })
    }

    /// Numbers per sample: the channel count, 1 for a plain field.
    fn samples_per_pixel(&self) -> usize {
        self.channels.len().max(1)
    }

    fn total_rows(&self) -> u64 {
        self.size[1] as u64 * self.size[2] as u64
    }

    /// Appends whole rows (x fastest; channel fastest within a pixel for a multi-channel
    /// file), top to bottom.
    pub fn write_rows(&mut self, data: &[f32]) -> Result<()> {
        let width = self.size[0] as usize * self.samples_per_pixel();
        if !data.len().is_multiple_of(width)
            || self.rows_written + (data.len() / width) as u64 > self.total_rows()
        {
            return Err(Error::InvalidRequest(format!(
                "{}: {} samples are not whole rows that fit the image",
                self.path.display(),
                data.len()
            )));
        }
        let path = self.path.clone();
        let range = self.range;
        // Converted in chunks: a copy of a whole large field would double its memory.
        const CHUNK: usize = 1 << 16;
        let mut bytes: Vec<u8> = Vec::new();
        match self.encoder.as_mut().expect("writer not finished") {
            Encoder::Npy(w) => {
                // The samples' own bytes on little-endian machines (no copy); converted in
                // chunks elsewhere.
                if cfg!(target_endian = "little") {
                    w.write_all(bytemuck::cast_slice(data))
                        .map_err(io_err(&path))?;
                } else {
                    for chunk in data.chunks(CHUNK) {
                        bytes.clear();
                        bytes.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
                        w.write_all(&bytes).map_err(io_err(&path))?;
                    }
                }
            }
            Encoder::Png { stream, sixteen } => {
                for chunk in data.chunks(CHUNK) {
                    bytes.clear();
                    png_samples(chunk, range, *sixteen, &mut bytes);
                    stream.write_all(&bytes).map_err(io_err(&path))?;
                }
            }
            Encoder::Exr(buffer) => {
                buffer.try_reserve(data.len()).map_err(|_| {
                    Error::Limit(format!(
                        "{}: no memory to buffer {} samples for the EXR encoder",
                        path.display(),
                        data.len()
                    ))
                })?;
                buffer.extend_from_slice(data)
            }
        }
        self.rows_written += (data.len() / width) as u64;
        Ok(())
    }

    /// Whether every row has been written.
    pub fn is_complete(&self) -> bool {
        self.rows_written == self.total_rows()
    }

    /// Asks the OS to start writing what has been written so far to disk, without waiting
    /// (Linux: `sync_file_range`; elsewhere nothing): the final sync in
    /// [`finish`](Self::finish) then waits for less. Only a hint; errors are left to `finish`.
    pub fn start_writeback(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some(Encoder::Npy(w)) = &mut self.encoder {
            use std::os::fd::AsRawFd;
            if w.flush().is_ok() {
                // SAFETY: a valid open descriptor; the call only schedules writeback.
                unsafe {
                    libc::sync_file_range(
                        w.get_ref().as_raw_fd(),
                        0,
                        0,
                        libc::SYNC_FILE_RANGE_WRITE,
                    );
                }
            }
        }
    }

    /// Finishes the file, syncs it and renames it into place (on failure the temporary
    /// file is removed).
    pub fn finish(mut self) -> Result<()> {
        let result = self.finish_inner();
        if result.is_err() {
            let _ = std::fs::remove_file(&self.tmp);
        }
        forget_partial(&self.tmp);
        result
    }

    fn finish_inner(&mut self) -> Result<()> {
        if self.rows_written != self.total_rows() {
            return Err(Error::InvalidRequest(format!(
                "{}: {} of {} rows written",
                self.path.display(),
                self.rows_written,
                self.total_rows()
            )));
        }
        let path = self.path.clone();
        let file = match self.encoder.take().expect("writer not finished") {
            Encoder::Npy(w) => w.into_inner().map_err(|e| io_err(&path)(e.into_error()))?,
            Encoder::Png { stream, .. } => {
                stream.finish().map_err(|e| Error::Encode {
                    path: path.display().to_string(),
                    message: e.to_string(),
                })?;
                File::open(&self.tmp).map_err(io_err(&path))?
            }
            Encoder::Exr(buffer) if !self.channels.is_empty() => {
                write_exr_channels(&self.tmp, &path, self.size, &self.channels, &buffer)?;
                File::open(&self.tmp).map_err(io_err(&path))?
            }
            Encoder::Exr(buffer) => {
                let [w, h, d] = self.size;
                let pixels: Vec<f32> = buffer.iter().flat_map(|&v| [v, v, v]).collect();
                drop(buffer);
                let img = image::Rgb32FImage::from_raw(w, h * d, pixels).expect("size matches");
                // The encoder creates the file: under the lock an interrupt takes, so the
                // interrupt finds it recorded (or this finds the process ending).
                let mut p = partials();
                if p.closed {
                    return Err(interrupted());
                }
                p.paths.push(self.tmp.clone());
                img.save_with_format(&self.tmp, image::ImageFormat::OpenExr)
                    .map_err(|e| Error::Encode {
                        path: path.display().to_string(),
                        message: e.to_string(),
                    })?;
                drop(p);
                File::open(&self.tmp).map_err(io_err(&path))?
            }
        };
        file.sync_all().map_err(io_err(&path))?;
        drop(file);
        std::fs::rename(&self.tmp, &self.path).map_err(io_err(&path))?;
        Ok(())
    }

    /// The format being written.
    pub fn format(&self) -> Format {
        self.format
    }
}

impl Drop for StreamWriter {
    fn drop(&mut self) {
        if self.encoder.is_some() {
            // Unfinished: leave nothing behind.
            self.encoder = None;
            let _ = std::fs::remove_file(&self.tmp);
            forget_partial(&self.tmp);
        }
    }
}

/// Writes `data` (`size` samples of `channels.len()` numbers, channel fastest) to `tmp` as an
/// OpenEXR file with one f32 channel per name, a volume's slices stacked vertically.
fn write_exr_channels(
    tmp: &Path,
    path: &Path,
    [w, h, d]: [u32; 3],
    channels: &[String],
    data: &[f32],
) -> Result<()> {
    use exr::prelude::{
        AnyChannel, AnyChannels, Encoding, FlatSamples, Image, Layer, LayerAttributes, SmallVec,
        WritableImage,
    };
    let n = channels.len();
    let list: SmallVec<[AnyChannel<FlatSamples>; 4]> = channels
        .iter()
        .enumerate()
        .map(|(c, name)| {
            let samples = data.iter().skip(c).step_by(n).copied().collect();
            AnyChannel::new(name.as_str(), FlatSamples::F32(samples))
        })
        .collect();
    let layer = Layer::new(
        (w as usize, (h * d) as usize),
        LayerAttributes::default(),
        Encoding::FAST_LOSSLESS,
        AnyChannels::sort(list),
    );
    Image::from_layer(layer)
        .write()
        .to_file(tmp)
        .map_err(|e| Error::Encode {
            path: path.display().to_string(),
            message: e.to_string(),
        })
}

/// Writes `data` (`size` samples of `channels.len()` numbers each, channel fastest) to a
/// multi-channel file (see [`StreamWriter::create_channels`]), atomically.
pub fn write_channels(
    path: &Path,
    format: Format,
    size: [u32; 3],
    channels: &[&str],
    data: &[f32],
) -> Result<()> {
    let mut writer = StreamWriter::create_channels(path, format, size, channels)?;
    writer.write_rows(data)?;
    writer.finish()
}

/// Whether `path` holds a whole file of `format` and `size`, as a finished bake leaves it
/// (used by `--resume`): npy by its header and length, PNG by its header and IEND trailer.
pub fn is_complete(path: &Path, format: Format, size: [u32; 3]) -> bool {
    is_complete_channels(path, format, size, 1)
}

/// [`is_complete`] for a file of `channels` numbers per sample (see
/// [`StreamWriter::create_channels`]).
pub fn is_complete_channels(path: &Path, format: Format, size: [u32; 3], channels: usize) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() == 0 {
        return false;
    }
    let [w, h, d] = size;
    match format {
        Format::Npy => {
            let header = npy_header(&npy_shape(size, channels));
            let expected =
                header.len() as u64 + w as u64 * h as u64 * d as u64 * 4 * channels.max(1) as u64;
            let mut start = vec![0u8; header.len()];
            meta.len() == expected
                && File::open(path)
                    .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut start))
                    .is_ok()
                && start == header
        }
        Format::Png | Format::Png16 => {
            let Ok(bytes) = std::fs::read(path) else {
                return false;
            };
            bytes.len() > 33
                && &bytes[..8] == b"\x89PNG\r\n\x1a\n"
                && bytes[16..20] == w.to_be_bytes()
                && bytes[20..24] == (h * d).to_be_bytes()
                && bytes.ends_with(&[0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82])
        }
        // Written atomically, so a file under the final name is whole; its header says
        // whether it has the size asked for (a volume's slices are stacked vertically).
        Format::Exr => image::ImageReader::open(path)
            .ok()
            .and_then(|r| r.with_guessed_format().ok())
            .filter(|r| r.format() == Some(image::ImageFormat::OpenExr))
            .and_then(|r| r.into_dimensions().ok())
            .is_some_and(|dims| {
                u64::from(dims.0) == w as u64 && u64::from(dims.1) == h as u64 * d as u64
            }),
    }
}

/// A `.npy` file's header: element type, shape and where the data starts.
struct NpyHeader {
    /// The dtype string, e.g. `<f4`.
    descr: String,
    shape: Vec<usize>,
    data_start: usize,
}

/// Parses the header of a C-order `.npy` file (versions 1 to 3).
fn parse_npy_header(bytes: &[u8], path: &Path) -> Result<NpyHeader> {
    let bad = |m: &str| Error::InvalidRequest(format!("{}: {m}", path.display()));
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err(bad("not a .npy file"));
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        _ => return Err(bad("unsupported .npy version")),
    };
    let header = std::str::from_utf8(
        bytes
            .get(start..start + header_len)
            .ok_or_else(|| bad("truncated header"))?,
    )
    .map_err(|_| bad("header is not text"))?;
    if header.contains("'fortran_order': True") {
        return Err(bad("Fortran-order arrays are not supported"));
    }
    let descr = header
        .split("'descr':")
        .nth(1)
        .and_then(|s| s.split('\'').nth(1))
        .ok_or_else(|| bad("no dtype ('descr') in header"))?
        .to_string();
    let shape_text = header
        .split("'shape':")
        .nth(1)
        .and_then(|s| s.split('(').nth(1))
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| bad("no shape in header"))?;
    let shape: Vec<usize> = shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>().map_err(|_| bad("bad shape")))
        .collect::<Result<_>>()?;
    Ok(NpyHeader {
        descr,
        shape,
        data_start: start + header_len,
    })
}

/// Reads a float32 `.npy` file written by [`write_field`] (or NumPy) back into a field.
pub fn read_npy(path: &Path) -> Result<Field> {
    let bytes = std::fs::read(path).map_err(io_err(path))?;
    let bad = |m: &str| Error::InvalidRequest(format!("{}: {m}", path.display()));
    let header = parse_npy_header(&bytes, path)?;
    if header.descr != "<f4" {
        return Err(bad(
            "only little-endian float32 arrays ('<f4') are supported",
        ));
    }
    let (d, h, w) = match header.shape.as_slice() {
        [w] => (1, 1, *w),
        [h, w] => (1, *h, *w),
        [d, h, w] => (*d, *h, *w),
        _ => return Err(bad("only 1D, 2D and 3D arrays are supported")),
    };
    let count = d * h * w;
    let body = bytes
        .get(header.data_start..header.data_start + count * 4)
        .ok_or_else(|| bad("file is shorter than its shape says (truncated?)"))?;
    let data = body
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok(Field::new(w as u32, h as u32, d as u32, data))
}

/// Reads positions for point queries: a `.npy` array of little-endian float64 (`<f8`) or
/// float32 (`<f4`) of shape (N, `dims`), C order, widened to f64. Errors name the file and
/// the problem (dtype, shape, truncation); more than `max_points` rows is an
/// [`Error::Limit`], checked from the header before the data is read.
pub fn read_npy_points(path: &Path, dims: u32, max_points: usize) -> Result<Vec<f64>> {
    use std::io::Read;
    let bad = |m: String| Error::InvalidRequest(format!("{}: {m}", path.display()));
    let mut file = File::open(path).map_err(io_err(path))?;
    // The header alone first, so an oversized array is refused before its data is read.
    let mut prefix = vec![0u8; 12];
    let got = read_up_to(&mut file, &mut prefix).map_err(io_err(path))?;
    prefix.truncate(got);
    let header_end = match prefix.get(6) {
        Some(1) if got >= 10 => 10 + u16::from_le_bytes([prefix[8], prefix[9]]) as usize,
        Some(2 | 3) if got >= 12 => {
            12 + u32::from_le_bytes([prefix[8], prefix[9], prefix[10], prefix[11]]) as usize
        }
        _ => return Err(bad("not a .npy file (or an unsupported version)".into())),
    };
    if header_end > prefix.len() {
        let more = header_end - prefix.len();
        let mut rest = Vec::new();
        (&mut file)
            .take(more as u64)
            .read_to_end(&mut rest)
            .map_err(io_err(path))?;
        prefix.extend_from_slice(&rest);
    }
    let header = parse_npy_header(&prefix, path)?;
    let width = match header.descr.as_str() {
        "<f8" => 8,
        "<f4" => 4,
        other => {
            return Err(bad(format!(
                "dtype '{other}' is not supported: positions must be little-endian float64 \
                 ('<f8') or float32 ('<f4')"
            )))
        }
    };
    let n = match header.shape.as_slice() {
        [n, d] if *d == dims as usize => *n,
        shape => {
            return Err(bad(format!(
                "shape {shape:?} is not (N, {dims}): the node is {dims}D, so each row must \
                 hold {dims} coordinates"
            )))
        }
    };
    if n > max_points {
        return Err(Error::Limit(format!(
            "{}: {n} points exceed the limit of {max_points} per query",
            path.display()
        )));
    }
    let size = n * dims as usize * width;
    let mut body = Vec::with_capacity(size);
    (&mut file)
        .take(size as u64)
        .read_to_end(&mut body)
        .map_err(io_err(path))?;
    if body.len() < size {
        return Err(bad(format!(
            "file is shorter than its shape says (truncated?): {} of {size} data bytes",
            body.len()
        )));
    }
    Ok(if width == 8 {
        body.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    } else {
        body.chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")) as f64)
            .collect()
    })
}

/// Reads until `buf` is full or the file ends; returns the bytes read.
fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    use std::io::Read;
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..])? {
            0 => break,
            k => got += k,
        }
    }
    Ok(got)
}

/// Writes `data` as a float32 `.npy` array of `shape` (C order), atomically: an interrupted
/// write leaves no file under `path`.
pub fn write_npy(path: &Path, shape: &[usize], data: &[f32]) -> Result<()> {
    let count: usize = shape.iter().product();
    if count != data.len() {
        return Err(Error::InvalidRequest(format!(
            "{}: {} numbers do not fill the shape {shape:?}",
            path.display(),
            data.len()
        )));
    }
    write_atomic(path, |tmp| {
        let mut file = BufWriter::new(File::create(tmp).map_err(io_err(tmp))?);
        file.write_all(&npy_header(shape)).map_err(io_err(tmp))?;
        for v in data {
            file.write_all(&v.to_le_bytes()).map_err(io_err(tmp))?;
        }
        file.flush().map_err(io_err(tmp))
    })
}

/// Writes a normal map given as signed `(nx, ny, nz, height)` per pixel (x fastest, as
/// [`crate::gpu::NormalMapFormat::Rgba32Float`] holds it) for a `width x height` image:
/// PNG and 16-bit PNG as RGB `n * 0.5 + 0.5`, the classic normal-map encoding; npy as a
/// `(height, width, 4)` float32 array and OpenEXR as RGBA float, both keeping the signed
/// normal and the height. Written atomically.
pub fn write_normal_map(
    normals: &[[f32; 4]],
    [width, height]: [u32; 2],
    path: &Path,
    format: Format,
) -> Result<()> {
    if normals.len() as u64 != width as u64 * height as u64 {
        return Err(Error::InvalidRequest(format!(
            "{}: {} normals for a {width}x{height} image",
            path.display(),
            normals.len()
        )));
    }
    let encode_err = |e: image::ImageError| Error::Encode {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    let unorm = |v: f32| (v * 0.5 + 0.5).clamp(0.0, 1.0);
    write_atomic(path, |tmp| match format {
        Format::Png => {
            let data = normals
                .iter()
                .flat_map(|n| [0, 1, 2].map(|c| (unorm(n[c]) * 255.0).round() as u8))
                .collect();
            image::RgbImage::from_raw(width, height, data)
                .expect("size checked")
                .save_with_format(tmp, image::ImageFormat::Png)
                .map_err(encode_err)
        }
        Format::Png16 => {
            let data = normals
                .iter()
                .flat_map(|n| [0, 1, 2].map(|c| (unorm(n[c]) * 65535.0).round() as u16))
                .collect();
            image::ImageBuffer::<image::Rgb<u16>, Vec<u16>>::from_raw(width, height, data)
                .expect("size checked")
                .save_with_format(tmp, image::ImageFormat::Png)
                .map_err(encode_err)
        }
        Format::Exr => {
            let data = normals.iter().flatten().copied().collect();
            image::Rgba32FImage::from_raw(width, height, data)
                .expect("size checked")
                .save_with_format(tmp, image::ImageFormat::OpenExr)
                .map_err(encode_err)
        }
        Format::Npy => {
            let mut file = BufWriter::new(File::create(tmp).map_err(io_err(path))?);
            file.write_all(&npy_header(&[height as usize, width as usize, 4]))
                .map_err(io_err(path))?;
            for n in normals {
                for v in n {
                    file.write_all(&v.to_le_bytes()).map_err(io_err(path))?;
                }
            }
            file.flush().map_err(io_err(path))
        }
    })
}
