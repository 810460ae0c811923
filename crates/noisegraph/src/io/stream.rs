//! The streaming writer: one file of any format written row band by row band, so a bake
//! larger than memory streams to disk, and the helpers that write a whole field through it.

use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use super::atomic::{io_err, PartialFile};
use super::bands::PulledWriter;
use super::npy::{npy_header, npy_shape};
use super::png::{PngEncoder, PngPixels};
use super::raw::{RawDepth, RawEncoder};
use super::{exr, tiff, Channel, Format, WriteOptions};
use crate::error::{Error, Result};
use crate::field::Field;

/// Rows handed to [`StreamWriter::write_rows`] or [`StreamWriter::write_band`].
enum Rows<'a> {
    Borrowed(&'a [f32]),
    Owned(Vec<f32>),
}

/// The encoder behind a [`StreamWriter`].
enum Encoder {
    Npy(BufWriter<File>),
    Png(Box<PngEncoder>),
    /// EXR and TIFF: encoders that pull rows, on a thread of their own.
    Pulled(PulledWriter),
    Raw(RawEncoder),
}

/// Writes an image row band by row band, in any [`Format`]: rows are encoded as they arrive.
/// The file is written under a temporary name and renamed into place by
/// [`StreamWriter::finish`]; dropped unfinished (an error, a panic), the temporary file is
/// removed and nothing appears under the final name.
pub struct StreamWriter {
    // Dropped first: an encoder thread stops and closes the file before the temporary file
    // is removed.
    encoder: Option<Encoder>,
    /// A second handle on the temporary file, to sync it once the encoder is done.
    file: File,
    partial: PartialFile,
    format: Format,
    size: [u32; 3],
    /// Numbers per sample (channels), 1 for a plain field.
    channels: usize,
    rows_written: u64,
}

impl StreamWriter {
    /// Starts a `size` (width, height, depth) file of one channel, mapped from `range` in
    /// PNG and `.r16`; a volume's slices are stacked vertically in image formats.
    pub fn create(path: &Path, format: Format, size: [u32; 3], range: (f32, f32)) -> Result<Self> {
        Self::open(
            path,
            format,
            size,
            &[Channel::field(range)],
            &WriteOptions::default(),
        )
    }

    /// Starts a `size` file with several numbers per sample, named `channels` (rows then hold
    /// `width x channels` numbers, channel fastest): `.npy` as an array of shape
    /// (H, W, channels) or (D, H, W, channels); OpenEXR with one named channel each. Formats
    /// that map values from a range (PNG, `.r16`) or hold one channel are refused.
    pub fn create_channels(
        path: &Path,
        format: Format,
        size: [u32; 3],
        channels: &[&str],
        options: &WriteOptions,
    ) -> Result<Self> {
        if format.is_mapped() || format.max_channels() < channels.len() {
            return Err(Error::InvalidRequest(format!(
                "{}: {} channels ({}) do not fit {}, which holds {}; write .npy or .exr",
                path.display(),
                channels.len(),
                channels.join(", "),
                format.name(),
                if format.is_mapped() {
                    "channels mapped from value ranges"
                } else {
                    "one channel"
                }
            )));
        }
        let channels: Vec<Channel> = channels
            .iter()
            .map(|c| Channel::new(c, (0.0, 1.0)))
            .collect();
        Self::open(path, format, size, &channels, options)
    }

    /// Starts a `size` file of `channels` (rows hold `width x channels` numbers, channel
    /// fastest) encoded with `options`: PNG as grey, grey + alpha, RGB or RGBA with each
    /// channel mapped from its own range (or RGB through `options.ramp`); EXR with the
    /// channels' names; `.npy` with a last axis of channels when there are several.
    pub fn open(
        path: &Path,
        format: Format,
        size: [u32; 3],
        channels: &[Channel],
        options: &WriteOptions,
    ) -> Result<Self> {
        options
            .check(format, channels.len())
            .map_err(|e| Error::InvalidRequest(format!("{}: {e}", path.display())))?;
        let [w, h, d] = size;
        let stacked = h.checked_mul(d).ok_or_else(|| {
            Error::InvalidRequest(format!(
                "{}: {w}x{h}x{d} is too tall for one image",
                path.display()
            ))
        })?;
        let (partial, file) = PartialFile::create(path)?;
        let handle = file.try_clone().map_err(io_err(path))?;
        let encode_err = |message: String| Error::Encode {
            path: path.display().to_string(),
            message,
        };
        let encoder = match format {
            Format::Npy => {
                let mut out = BufWriter::with_capacity(1 << 20, file);
                out.write_all(&npy_header(&npy_shape(size, channels.len())))
                    .map_err(io_err(path))?;
                Encoder::Npy(out)
            }
            Format::Png | Format::Png16 => {
                let pixels = PngPixels::for_channels(
                    channels,
                    format == Format::Png16,
                    options.ramp.as_ref(),
                );
                let png = PngEncoder::new(file, w, stacked, pixels, options.png_compression)
                    .map_err(|e| encode_err(e.to_string()))?;
                Encoder::Png(Box::new(png))
            }
            Format::Exr => {
                let names: Vec<String> = channels.iter().map(|c| c.name.clone()).collect();
                let writer = exr::start(
                    file,
                    [w as usize, stacked as usize],
                    &names,
                    options.exr_compression,
                    options.exr_half,
                )
                .map_err(encode_err)?;
                Encoder::Pulled(writer)
            }
            Format::Tiff => Encoder::Pulled(tiff::start(file, w, stacked).map_err(encode_err)?),
            Format::R16 => Encoder::Raw(RawEncoder::new(
                file,
                RawDepth::Sixteen {
                    range: channels[0].range,
                },
            )),
            Format::R32 => Encoder::Raw(RawEncoder::new(file, RawDepth::Float)),
        };
        Ok(StreamWriter {
            encoder: Some(encoder),
            file: handle,
            partial,
            format,
            size,
            channels: channels.len(),
            rows_written: 0,
        })
    }

    fn total_rows(&self) -> u64 {
        self.size[1] as u64 * self.size[2] as u64
    }

    /// Appends whole rows (x fastest; channel fastest within a pixel for a multi-channel
    /// file), top to bottom.
    pub fn write_rows(&mut self, data: &[f32]) -> Result<()> {
        self.write(Rows::Borrowed(data))
    }

    /// [`write_rows`](Self::write_rows) of rows the writer may keep: EXR and TIFF encode on
    /// a thread of their own and take the band itself instead of a copy (a bake streaming
    /// large bands holds no more of them than for a `.npy`).
    pub fn write_band(&mut self, band: Vec<f32>) -> Result<()> {
        self.write(Rows::Owned(band))
    }

    fn write(&mut self, rows: Rows<'_>) -> Result<()> {
        let data: &[f32] = match &rows {
            Rows::Borrowed(data) => data,
            Rows::Owned(band) => band,
        };
        let width = self.size[0] as usize * self.channels;
        let path = self.partial.path().to_path_buf();
        if !data.len().is_multiple_of(width)
            || self.rows_written + (data.len() / width) as u64 > self.total_rows()
        {
            return Err(Error::InvalidRequest(format!(
                "{}: {} samples are not whole rows that fit the image",
                path.display(),
                data.len()
            )));
        }
        let encode_err = |message: String| Error::Encode {
            path: path.display().to_string(),
            message,
        };
        match self.encoder.as_mut().expect("writer not finished") {
            Encoder::Npy(out) => {
                // The samples' own bytes on little-endian machines (no copy).
                if cfg!(target_endian = "little") {
                    out.write_all(bytemuck::cast_slice(data))
                        .map_err(io_err(&path))?;
                } else {
                    for v in data {
                        out.write_all(&v.to_le_bytes()).map_err(io_err(&path))?;
                    }
                }
            }
            Encoder::Png(png) => png
                .write_rows(data)
                .map_err(|e| encode_err(e.to_string()))?,
            Encoder::Raw(raw) => raw.write_rows(data).map_err(io_err(&path))?,
            Encoder::Pulled(writer) => {
                let count = data.len() / width;
                match rows {
                    Rows::Borrowed(data) => writer.write_rows(data),
                    Rows::Owned(band) => writer.write_band(band),
                }
                .map_err(encode_err)?;
                self.rows_written += count as u64;
                return Ok(());
            }
        }
        self.rows_written += (data.len() / width) as u64;
        Ok(())
    }

    /// Whether every row has been written.
    pub fn is_complete(&self) -> bool {
        self.rows_written == self.total_rows()
    }

    /// Asks the OS to start writing what has reached the file so far to disk, without waiting
    /// (Linux: `sync_file_range`; elsewhere nothing): the final sync in
    /// [`finish`](Self::finish) then waits for less. Only a hint; errors are left to `finish`.
    pub fn start_writeback(&mut self) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            if let Some(Encoder::Npy(out)) = &mut self.encoder {
                let _ = out.flush();
            }
            // SAFETY: a valid open descriptor; the call only schedules writeback.
            unsafe {
                libc::sync_file_range(self.file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
            }
        }
    }

    /// Finishes the file, syncs it and renames it into place (on failure the temporary
    /// file is removed).
    pub fn finish(mut self) -> Result<()> {
        let path = self.partial.path().to_path_buf();
        if self.rows_written != self.total_rows() {
            return Err(Error::InvalidRequest(format!(
                "{}: {} of {} rows written",
                path.display(),
                self.rows_written,
                self.total_rows()
            )));
        }
        let encode_err = |message: String| Error::Encode {
            path: path.display().to_string(),
            message,
        };
        match self.encoder.take().expect("writer not finished") {
            Encoder::Npy(out) => {
                out.into_inner()
                    .map_err(|e| io_err(&path)(e.into_error()))?;
            }
            Encoder::Png(png) => png.finish().map_err(|e| encode_err(e.to_string()))?,
            Encoder::Pulled(writer) => writer.finish().map_err(encode_err)?,
            Encoder::Raw(raw) => raw.finish().map_err(io_err(&path))?,
        }
        let StreamWriter { file, partial, .. } = self;
        partial.commit(file)
    }

    /// The format being written.
    pub fn format(&self) -> Format {
        self.format
    }
}

/// Writes a field of one channel. `range` is the value range mapped to black..white in PNG
/// and `.r16`. A volume's slices are stacked vertically in image formats.
pub fn write_field(field: &Field, path: &Path, format: Format, range: (f32, f32)) -> Result<()> {
    write_field_with(field, path, format, range, &WriteOptions::default())
}

/// [`write_field`] with encoding options (compression, half floats, a colour ramp).
pub fn write_field_with(
    field: &Field,
    path: &Path,
    format: Format,
    range: (f32, f32),
    options: &WriteOptions,
) -> Result<()> {
    let mut writer = StreamWriter::open(
        path,
        format,
        [field.width, field.height, field.depth],
        &[Channel::field(range)],
        options,
    )?;
    writer.write_rows(&field.data)?;
    writer.finish()
}

/// A field encoded as [`write_field`] writes it to a file, byte for byte, returned instead
/// (for a page that downloads a bake without a file on the server). `range` maps to the
/// levels of PNG and `.r16`.
pub fn encode_field(field: &Field, format: Format, range: (f32, f32)) -> Result<Vec<u8>> {
    encode_field_with(field, format, range, &WriteOptions::default())
}

/// [`encode_field`] with encoding options. The encoders write to files (EXR and TIFF seek
/// back to patch offsets), so the bytes go through a temporary file of this process, removed
/// afterwards.
pub fn encode_field_with(
    field: &Field,
    format: Format,
    range: (f32, f32),
    options: &WriteOptions,
) -> Result<Vec<u8>> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!(
        "noisegraph-encode-{}-{n}.{}",
        std::process::id(),
        format.extension()
    ));
    let written = write_field_with(field, &path, format, range, options)
        .and_then(|()| std::fs::read(&path).map_err(io_err(&path)));
    let _ = std::fs::remove_file(&path);
    written
}

/// Writes `data` (`size` samples of `channels.len()` numbers each, channel fastest) to a
/// multi-channel file (see [`StreamWriter::create_channels`]), atomically.
pub fn write_channels(
    path: &Path,
    format: Format,
    size: [u32; 3],
    channels: &[&str],
    data: &[f32],
    options: &WriteOptions,
) -> Result<()> {
    let mut writer = StreamWriter::create_channels(path, format, size, channels, options)?;
    writer.write_rows(data)?;
    writer.finish()
}

/// Writes a normal map given as signed `(nx, ny, nz, height)` per pixel (x fastest, as
/// [`crate::gpu::NormalMapFormat::Rgba32Float`] holds it) for a `width x height` image:
/// PNG and 16-bit PNG as RGB `n * 0.5 + 0.5`, the classic normal-map encoding; npy as a
/// `(height, width, 4)` float32 array and OpenEXR as RGBA float, both keeping the signed
/// normal and the height. Written atomically, encoded with `options`.
pub fn write_normal_map(
    normals: &[[f32; 4]],
    [width, height]: [u32; 2],
    path: &Path,
    format: Format,
    options: &WriteOptions,
) -> Result<()> {
    if normals.len() as u64 != width as u64 * height as u64 {
        return Err(Error::InvalidRequest(format!(
            "{}: {} normals for a {width}x{height} image",
            path.display(),
            normals.len()
        )));
    }
    let size = [width, height, 1];
    let signed = (-1.0, 1.0);
    let writer = if matches!(format, Format::Png | Format::Png16) {
        let rgb = ["R", "G", "B"].map(|c| Channel::new(c, signed));
        let mut writer = StreamWriter::open(path, format, size, &rgb, options)?;
        let data: Vec<f32> = normals.iter().flat_map(|n| [n[0], n[1], n[2]]).collect();
        writer.write_rows(&data)?;
        writer
    } else {
        let rgba = ["R", "G", "B", "A"].map(|c| Channel::new(c, signed));
        let mut writer = StreamWriter::open(path, format, size, &rgba, options)?;
        writer.write_rows(bytemuck::cast_slice(normals))?;
        writer
    };
    writer.finish()
}

/// Whether `path` holds a whole file of `format` and `size`, as a finished bake leaves it
/// (used by `--resume`).
pub fn is_complete(path: &Path, format: Format, size: [u32; 3]) -> bool {
    is_complete_with(path, format, size, 1, &WriteOptions::default())
}

/// [`is_complete`] for a file of `channels` numbers per sample (see
/// [`StreamWriter::create_channels`]).
pub fn is_complete_channels(path: &Path, format: Format, size: [u32; 3], channels: usize) -> bool {
    is_complete_with(path, format, size, channels, &WriteOptions::default())
}

/// [`is_complete`] for a file of `channels` channels written with `options`. Every format is
/// written atomically, so a file under its final name was whole when written; this checks
/// that it is still there whole and has the size and layout asked for: npy by its header and
/// length, PNG by its header (size, colour type, depth) and trailer, EXR and TIFF by their
/// headers, raw files by their length.
pub fn is_complete_with(
    path: &Path,
    format: Format,
    size: [u32; 3],
    channels: usize,
    options: &WriteOptions,
) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() == 0 {
        return false;
    }
    let [w, h, d] = size;
    let samples = w as u64 * h as u64 * d as u64 * channels.max(1) as u64;
    match format {
        Format::Npy => {
            let header = npy_header(&npy_shape(size, channels));
            let mut start = vec![0u8; header.len()];
            meta.len() == header.len() as u64 + samples * 4
                && File::open(path)
                    .and_then(|mut f| f.read_exact(&mut start))
                    .is_ok()
                && start == header
        }
        Format::Png | Format::Png16 => {
            let channels: Vec<Channel> =
                (0..channels).map(|_| Channel::field((0.0, 1.0))).collect();
            let pixels =
                PngPixels::for_channels(&channels, format == Format::Png16, options.ramp.as_ref());
            let (mut head, mut tail) = ([0u8; 26], [0u8; 8]);
            let read = File::open(path).and_then(|mut f| {
                f.read_exact(&mut head)?;
                f.seek(SeekFrom::End(-8))?;
                f.read_exact(&mut tail)
            });
            read.is_ok()
                && &head[..8] == b"\x89PNG\r\n\x1a\n"
                && head[16..20] == w.to_be_bytes()
                && u64::from(u32::from_be_bytes([head[20], head[21], head[22], head[23]]))
                    == h as u64 * d as u64
                && head[24] == pixels.depth() as u8
                && head[25] == pixels.color() as u8
                && tail == [0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82]
        }
        Format::Exr => exr::has_layout(path, [w as usize, (h * d) as usize], channels.max(1)),
        Format::Tiff => tiff::has_size(path, w, h * d),
        Format::R16 | Format::R32 => {
            let depth = if format == Format::R16 { 2 } else { 4 };
            meta.len() == samples * depth
        }
    }
}
