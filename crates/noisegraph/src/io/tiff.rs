//! Float32 TIFF (`.tif`): one channel in strips of rows, each strip deflated (zlib, TIFF's
//! compression 8) after the floating-point predictor (TIFF predictor 3: each row's bytes
//! split into planes by significance, then differenced), the strips of a band compressed on
//! every core. What GIS and terrain tools read (GDAL, QGIS, Pillow / libtiff). The `tiff`
//! crate writes the header, the tags and the directory (a BigTIFF over 3 GiB); it borrows its
//! file for the whole image, so the encoder runs on a thread of its own fed band by band (see
//! [`super::bands`]).

use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, Write};
use std::path::Path;

use flate2::write::ZlibEncoder;
use flate2::Compression;
use rayon::prelude::*;
use tiff::encoder::{TiffEncoder, TiffKind};
use tiff::tags::Tag;

use super::bands::{PulledWriter, Rows};

/// Rows in one strip, the unit that is compressed (256 KiB at 4096 pixels wide).
const ROWS_PER_STRIP: u32 = 16;

/// The most sample bytes a standard (32-bit offset) TIFF is given; larger images are BigTIFF.
const STANDARD_TIFF_BYTES: u64 = 3 << 30;

/// Starts a `width` x `height` float32 TIFF, written on its own thread.
pub(crate) fn start(file: File, width: u32, height: u32) -> Result<PulledWriter, String> {
    let big = u64::from(width) * u64::from(height) * 4 > STANDARD_TIFF_BYTES;
    PulledWriter::spawn("tiff writer", width as usize, move |rows| {
        let out = BufWriter::with_capacity(1 << 20, file);
        let written = if big {
            TiffEncoder::new_big(out).and_then(|e| write_strips(e, width, height, rows))
        } else {
            TiffEncoder::new(out).and_then(|e| write_strips(e, width, height, rows))
        };
        written.map_err(|e| e.to_string())
    })
}

fn write_strips<W: Write + Seek, K: TiffKind>(
    mut encoder: TiffEncoder<W, K>,
    width: u32,
    height: u32,
    rows: &mut Rows,
) -> tiff::TiffResult<()> {
    let mut dir = encoder.image_directory()?;
    let (mut offsets, mut byte_counts) = (Vec::new(), Vec::new());
    // Several strips at a time, one per core and more, compressed in parallel.
    let group = ROWS_PER_STRIP * 4 * rayon::current_num_threads().max(1) as u32;
    let mut y = 0;
    while y < height {
        let count = group.min(height - y);
        let samples = rows.get(y as usize, count as usize).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the bake stopped before the last row",
            )
        })?;
        let strips: Vec<Vec<u8>> = samples
            .par_chunks(width as usize * ROWS_PER_STRIP as usize)
            .map(|strip| compress_strip(strip, width as usize))
            .collect::<std::io::Result<_>>()?;
        for strip in strips {
            offsets.push(K::convert_offset(dir.write_data(&strip[..])?)?);
            byte_counts.push(K::convert_offset(strip.len() as u64)?);
        }
        y += count;
    }
    dir.write_tag(Tag::ImageWidth, width)?;
    dir.write_tag(Tag::ImageLength, height)?;
    dir.write_tag(Tag::BitsPerSample, 32u16)?;
    dir.write_tag(Tag::Compression, 8u16)?; // Deflate (zlib)
    dir.write_tag(Tag::PhotometricInterpretation, 1u16)?; // black is zero
    dir.write_tag(Tag::StripOffsets, K::convert_slice(&offsets))?;
    dir.write_tag(Tag::SamplesPerPixel, 1u16)?;
    dir.write_tag(Tag::RowsPerStrip, ROWS_PER_STRIP)?;
    dir.write_tag(Tag::StripByteCounts, K::convert_slice(&byte_counts))?;
    dir.write_tag(Tag::PlanarConfiguration, 1u16)?;
    dir.write_tag(Tag::Predictor, 3u16)?; // floating point
    dir.write_tag(Tag::SampleFormat, 3u16)?; // IEEE float
    dir.finish()
}

/// One strip (whole rows of `width` samples): the floating-point predictor, then zlib.
fn compress_strip(samples: &[f32], width: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = vec![0u8; samples.len() * 4];
    for (row, out) in samples
        .chunks_exact(width)
        .zip(bytes.chunks_exact_mut(width * 4))
    {
        // Byte planes, most significant first (the predictor's byte order is big-endian).
        for (i, v) in row.iter().enumerate() {
            for (plane, b) in v.to_be_bytes().into_iter().enumerate() {
                out[plane * width + i] = b;
            }
        }
        for i in (1..out.len()).rev() {
            out[i] = out[i].wrapping_sub(out[i - 1]);
        }
    }
    let mut zlib = ZlibEncoder::new(Vec::with_capacity(bytes.len() / 2), Compression::new(1));
    zlib.write_all(&bytes)?;
    zlib.finish()
}

/// Whether the TIFF file at `path` is `width` x `height` pixels.
pub(crate) fn has_size(path: &Path, width: u32, height: u32) -> bool {
    File::open(path)
        .ok()
        .and_then(|f| tiff::decoder::Decoder::new(BufReader::new(f)).ok())
        .and_then(|mut d| d.dimensions().ok())
        == Some((width, height))
}
