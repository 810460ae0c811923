//! Float32 TIFF (`.tif`): one channel, deflate-compressed strips, written as rows arrive; what
//! GIS and terrain tools read (GDAL, Pillow, libtiff). An image over 4 GiB is a BigTIFF. The
//! `tiff` crate's encoder borrows its file for the whole image, so it runs on a thread of its
//! own fed band by band (see [`super::bands`]).

use std::fs::File;
use std::io::{BufReader, BufWriter, Seek, Write};
use std::path::Path;

use tiff::encoder::colortype::Gray32Float;
use tiff::encoder::{Compression, DeflateLevel, TiffEncoder, TiffKind};

use super::bands::{PulledWriter, Rows};

/// Rows in one strip, the unit the encoder compresses (about 256 KiB at 4096 pixels wide).
const ROWS_PER_STRIP: u32 = 16;

/// The largest image a standard (32-bit offset) TIFF holds comfortably, in bytes of samples.
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
    encoder: TiffEncoder<W, K>,
    width: u32,
    height: u32,
    rows: &mut Rows,
) -> tiff::TiffResult<()> {
    let mut encoder = encoder.with_compression(Compression::Deflate(DeflateLevel::Fast));
    let mut image = encoder.new_image::<Gray32Float>(width, height)?;
    image.rows_per_strip(ROWS_PER_STRIP)?;
    let mut y = 0;
    while y < height {
        let count = ROWS_PER_STRIP.min(height - y);
        let strip = rows.get(y as usize, count as usize).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the bake stopped before the last row",
            )
        })?;
        image.write_strip(strip)?;
        y += count;
    }
    image.finish()
}

/// Whether the TIFF file at `path` is `width` x `height` pixels.
pub(crate) fn has_size(path: &Path, width: u32, height: u32) -> bool {
    File::open(path)
        .ok()
        .and_then(|f| tiff::decoder::Decoder::new(BufReader::new(f)).ok())
        .and_then(|mut d| d.dimensions().ok())
        == Some((width, height))
}
