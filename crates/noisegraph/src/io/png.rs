//! PNG, 8 or 16 bits per channel, deflated on every core: each band of rows is cut into
//! pieces that are filtered and compressed independently (raw deflate ending in a sync
//! flush, so each piece ends on a byte boundary with a non-final block) and joined, in order,
//! into the one zlib stream of the file's IDAT chunks. The `png` crate writes the header, the
//! chunks and the trailer. `fast` Huffman-codes each piece's bytes (`huffman.rs`); `default`
//! and `best` deflate with zlib-rs (through `flate2`).

use std::fs::File;
use std::io::BufWriter;

use flate2::{Compress, Compression, FlushCompress, Status};
use rayon::prelude::*;

use super::huffman::deflate_literals;
use super::levels::Levels;
use super::ramp::Ramp;
use super::{normalize, Channel};
use crate::error::{Error, Result};

/// How hard the PNG encoder compresses (`--png-compression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PngCompression {
    /// Each piece's bytes Huffman-coded with a code made for that piece, no search for
    /// matches: about the speed of the noise, files about the size of zlib's level 1
    /// (smaller on detailed images, larger on smooth ones).
    #[default]
    Fast,
    /// Deflate level 6, zlib's default.
    Default,
    /// Deflate level 9: the smallest files, several times slower.
    Best,
}

impl PngCompression {
    /// Parses `fast`, `default` or `best`.
    pub fn parse(name: &str) -> Result<PngCompression> {
        match name {
            "fast" => Ok(PngCompression::Fast),
            "default" => Ok(PngCompression::Default),
            "best" => Ok(PngCompression::Best),
            other => Err(Error::InvalidRequest(format!(
                "--png-compression: unknown level '{other}' (fast, default, best)"
            ))),
        }
    }
    /// The name [`PngCompression::parse`] accepts.
    pub fn name(self) -> &'static str {
        match self {
            PngCompression::Fast => "fast",
            PngCompression::Default => "default",
            PngCompression::Best => "best",
        }
    }
    /// zlib's level, or `None` for Huffman coding of literals only ([`deflate_literals`]).
    fn level(self) -> Option<u32> {
        match self {
            PngCompression::Fast => None,
            PngCompression::Default => Some(6),
            PngCompression::Best => Some(9),
        }
    }
    /// The zlib header for this level (window 32 KiB; FLEVEL says fast, default or best).
    fn zlib_header(self) -> [u8; 2] {
        match self {
            PngCompression::Fast => [0x78, 0x01],
            PngCompression::Default => [0x78, 0x9c],
            PngCompression::Best => [0x78, 0xda],
        }
    }
}

/// The pixel bytes of a PNG row, from rows of `channels` numbers per pixel.
#[derive(Debug, Clone)]
pub(crate) enum PngPixels {
    /// One PNG channel per input channel, each mapped from its own range: grey, grey and
    /// alpha, RGB or RGBA.
    Mapped {
        /// Each channel's value range, mapped to 0..max.
        ranges: Vec<(f32, f32)>,
        sixteen: bool,
    },
    /// One input channel mapped from `range` through a colour ramp to 8-bit RGB.
    Ramp { range: (f32, f32), ramp: Ramp },
}

impl PngPixels {
    pub(crate) fn for_channels(channels: &[Channel], sixteen: bool, ramp: Option<&Ramp>) -> Self {
        match ramp {
            Some(ramp) => PngPixels::Ramp {
                range: channels[0].range,
                ramp: ramp.clone(),
            },
            None => PngPixels::Mapped {
                ranges: channels.iter().map(|c| c.range).collect(),
                sixteen,
            },
        }
    }
    /// Numbers per pixel in the rows given.
    fn inputs(&self) -> usize {
        match self {
            PngPixels::Mapped { ranges, .. } => ranges.len(),
            PngPixels::Ramp { .. } => 1,
        }
    }
    /// Bytes per pixel in the PNG.
    fn bytes_per_pixel(&self) -> usize {
        match self {
            PngPixels::Mapped { ranges, sixteen } => ranges.len() * if *sixteen { 2 } else { 1 },
            PngPixels::Ramp { .. } => 3,
        }
    }
    pub(crate) fn color(&self) -> png::ColorType {
        match self {
            PngPixels::Ramp { .. } => png::ColorType::Rgb,
            PngPixels::Mapped { ranges, .. } => match ranges.len() {
                1 => png::ColorType::Grayscale,
                2 => png::ColorType::GrayscaleAlpha,
                3 => png::ColorType::Rgb,
                _ => png::ColorType::Rgba,
            },
        }
    }
    pub(crate) fn depth(&self) -> png::BitDepth {
        match self {
            PngPixels::Mapped { sixteen: true, .. } => png::BitDepth::Sixteen,
            _ => png::BitDepth::Eight,
        }
    }
    /// Converts one row of numbers to the PNG's pixel bytes.
    fn encode_row(&self, row: &[f32], out: &mut [u8]) {
        match self {
            PngPixels::Mapped { ranges, sixteen } => match ranges[..] {
                [range] if *sixteen => Levels::new(range).row16_be(row, out),
                [range] => Levels::new(range).row8(row, out),
                _ => {
                    let n = ranges.len();
                    let levels: Vec<Levels> = ranges.iter().map(|&r| Levels::new(r)).collect();
                    if *sixteen {
                        for (o, px) in out.chunks_exact_mut(2 * n).zip(row.chunks_exact(n)) {
                            for (c, l) in levels.iter().enumerate() {
                                o[2 * c..2 * c + 2]
                                    .copy_from_slice(&l.level16(px[c]).to_be_bytes());
                            }
                        }
                    } else {
                        for (o, px) in out.chunks_exact_mut(n).zip(row.chunks_exact(n)) {
                            for (c, l) in levels.iter().enumerate() {
                                o[c] = l.level8(px[c]);
                            }
                        }
                    }
                }
            },
            PngPixels::Ramp { range, ramp } => {
                for (o, &v) in out.chunks_exact_mut(3).zip(row) {
                    o.copy_from_slice(&ramp.rgb8(normalize(v, *range)));
                }
            }
        }
    }
}

/// Filtered bytes a piece holds at least, so each piece's deflate has data enough to find
/// matches. Pieces are whole multiples of rows counted from the top of the image, whatever
/// bands the rows come in: the file's bytes do not depend on how the bake was cut up.
const PIECE_BYTES: usize = 1 << 18;

/// A PNG written band by band.
pub(crate) struct PngEncoder {
    writer: png::Writer<BufWriter<File>>,
    pixels: PngPixels,
    width: usize,
    compression: PngCompression,
    /// The last row of the previous band in PNG bytes (the first row's filter needs the row
    /// above); empty before the first band.
    previous: Vec<u8>,
    /// The zlib header goes in front of the first piece.
    started: bool,
    /// Adler-32 of every filtered byte so far.
    adler: u32,
    /// Rows per piece.
    piece_rows: usize,
    /// Rows given that do not yet fill a piece (numbers, as given).
    pending: Vec<f32>,
}

impl PngEncoder {
    /// Writes the PNG header of a `width` x `height` image to `file`.
    pub(crate) fn new(
        file: File,
        width: u32,
        height: u32,
        pixels: PngPixels,
        compression: PngCompression,
    ) -> std::result::Result<Self, png::EncodingError> {
        let mut encoder = png::Encoder::new(BufWriter::with_capacity(1 << 20, file), width, height);
        encoder.set_color(pixels.color());
        encoder.set_depth(pixels.depth());
        let row_bytes = width as usize * pixels.bytes_per_pixel();
        Ok(PngEncoder {
            piece_rows: PIECE_BYTES.div_ceil(row_bytes + 1),
            pending: Vec::new(),
            writer: encoder.write_header()?,
            pixels,
            width: width as usize,
            compression,
            previous: Vec::new(),
            started: false,
            adler: 1,
        })
    }

    /// Takes whole rows (`width x inputs` numbers each): every piece they complete is
    /// encoded (the pieces on every core) and written as IDAT chunks; the rows left over wait
    /// for the next band.
    pub(crate) fn write_rows(
        &mut self,
        mut data: &[f32],
    ) -> std::result::Result<(), png::EncodingError> {
        let piece = self.piece_rows * self.width * self.pixels.inputs();
        if !self.pending.is_empty() {
            let take = (piece - self.pending.len()).min(data.len());
            self.pending.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.pending.len() < piece {
                return Ok(());
            }
            let pending = std::mem::take(&mut self.pending);
            self.encode(&pending)?;
            self.pending = pending;
            self.pending.clear();
        }
        let whole = data.len() / piece * piece;
        self.encode(&data[..whole])?;
        self.pending.extend_from_slice(&data[whole..]);
        Ok(())
    }

    /// Encodes whole rows, in pieces of `piece_rows` (the last may be shorter), and writes
    /// them.
    fn encode(&mut self, data: &[f32]) -> std::result::Result<(), png::EncodingError> {
        let inputs = self.width * self.pixels.inputs();
        let row_bytes = self.width * self.pixels.bytes_per_pixel();
        let rows = data.len() / inputs;
        if rows == 0 {
            return Ok(());
        }
        let piece_rows = self.piece_rows;
        let pieces: Vec<(usize, usize)> = (0..rows)
            .step_by(piece_rows)
            .map(|start| (start, (start + piece_rows).min(rows)))
            .collect();
        let pixels = &self.pixels;
        let previous = &self.previous;
        let level = self.compression.level();
        let compressed: Vec<(Vec<u8>, u32, usize)> = pieces
            .par_iter()
            .map(|&(start, end)| {
                let mut above = vec![0u8; row_bytes];
                if start > 0 {
                    pixels.encode_row(&data[(start - 1) * inputs..start * inputs], &mut above);
                } else if !previous.is_empty() {
                    above.copy_from_slice(previous);
                }
                let mut filtered = vec![0u8; (end - start) * (row_bytes + 1)];
                let mut current = vec![0u8; row_bytes];
                for (r, out) in filtered.chunks_exact_mut(row_bytes + 1).enumerate() {
                    let y = start + r;
                    pixels.encode_row(&data[y * inputs..(y + 1) * inputs], &mut current);
                    filter_up(&current, &above, out);
                    std::mem::swap(&mut above, &mut current);
                }
                let adler = simd_adler32::adler32(&filtered.as_slice());
                let deflated = match level {
                    Some(level) => deflate_piece(&filtered, level),
                    None => deflate_literals(&filtered),
                };
                (deflated, adler, filtered.len())
            })
            .collect();
        for (bytes, adler, len) in compressed {
            self.adler = adler32_combine(self.adler, adler, len as u64);
            if self.started {
                self.write_idat(&bytes)?;
            } else {
                let mut first = self.compression.zlib_header().to_vec();
                first.extend_from_slice(&bytes);
                self.write_idat(&first)?;
                self.started = true;
            }
        }
        self.previous.resize(row_bytes, 0);
        let last = &data[(rows - 1) * inputs..rows * inputs];
        self.pixels.encode_row(last, &mut self.previous);
        Ok(())
    }

    fn write_idat(&mut self, bytes: &[u8]) -> std::result::Result<(), png::EncodingError> {
        // A chunk holds at most 2^31 - 1 bytes.
        for part in bytes.chunks(1 << 30) {
            self.writer.write_chunk(png::chunk::IDAT, part)?;
        }
        Ok(())
    }

    /// Ends the zlib stream (a final empty block and the Adler-32 checksum) and writes the
    /// trailer.
    pub(crate) fn finish(mut self) -> std::result::Result<(), png::EncodingError> {
        let pending = std::mem::take(&mut self.pending);
        self.encode(&pending)?;
        let mut end = Vec::with_capacity(8);
        if !self.started {
            end.extend_from_slice(&self.compression.zlib_header());
        }
        // A final block with fixed codes holding only its end code.
        end.extend_from_slice(&[0x03, 0x00]);
        end.extend_from_slice(&self.adler.to_be_bytes());
        self.write_idat(&end)?;
        self.writer.finish()
    }
}

/// PNG filter type 2 ("Up"): each byte minus the byte above. It compresses noise fields as
/// well as Paeth or adaptive filtering and costs one subtraction a byte.
fn filter_up(current: &[u8], above: &[u8], out: &mut [u8]) {
    out[0] = 2;
    for ((o, &c), &a) in out[1..].iter_mut().zip(current).zip(above) {
        *o = c.wrapping_sub(a);
    }
}

/// Raw deflate of `data` at `level`, ended by a sync flush: byte-aligned, with no final
/// block, so pieces can be concatenated into one stream.
fn deflate_piece(data: &[u8], level: u32) -> Vec<u8> {
    let mut compress = Compress::new(Compression::new(level), false);
    let mut out = Vec::with_capacity(data.len() / 2 + 1024);
    loop {
        if out.len() == out.capacity() {
            out.reserve(out.capacity() / 2 + 1024);
        }
        let consumed = compress.total_in() as usize;
        let status = compress
            .compress_vec(&data[consumed..], &mut out, FlushCompress::Sync)
            .expect("deflate of an in-memory buffer");
        // The flush is done when all input is taken and output space was left over.
        if compress.total_in() as usize == data.len()
            && out.len() < out.capacity()
            && status != Status::BufError
        {
            return out;
        }
    }
}

/// The Adler-32 of two byte strings joined, from the checksum of each and the second's
/// length (as zlib's `adler32_combine`).
fn adler32_combine(first: u32, second: u32, second_len: u64) -> u32 {
    const MOD: u64 = 65521;
    let rem = second_len % MOD;
    let (a1, b1) = (u64::from(first & 0xffff), u64::from(first >> 16));
    let (a2, b2) = (u64::from(second & 0xffff), u64::from(second >> 16));
    let a = (a1 + a2 + MOD - 1) % MOD;
    let b = (b1 + b2 + rem * a1 + MOD - rem) % MOD;
    ((b as u32) << 16) | a as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adler_of_joined_strings_is_combined() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        for cut in [0, 1, 5552, 65521, 70_000, 100_000] {
            let (a, b) = data.split_at(cut);
            assert_eq!(
                adler32_combine(
                    simd_adler32::adler32(&a),
                    simd_adler32::adler32(&b),
                    b.len() as u64
                ),
                simd_adler32::adler32(&data.as_slice()),
                "cut at {cut}"
            );
        }
    }
}
