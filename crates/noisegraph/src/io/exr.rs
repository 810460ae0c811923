//! OpenEXR, written in scan-line blocks as the bake streams: one f32 (or half) channel per
//! named channel (`Y` for a plain field), compressed on every core by the `exr` crate's block
//! compressor. Its writer pulls blocks, so it runs on a thread of its own (see
//! [`super::bands`]); memory holds a band and the blocks being compressed, not the image.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use exr::block::writer::ChunksWriter;
use exr::block::{BlockIndex, UncompressedBlock};
use exr::meta::attribute::{ChannelDescription, LineOrder, SampleType, Text};
use exr::meta::header::{Header, LayerAttributes};
use exr::meta::{BlockDescription, MetaData};
use exr::prelude::{f16, SmallVec};

use super::bands::{PulledWriter, Rows};
use crate::error::{Error, Result};

/// How an EXR file's blocks are compressed (`--exr-compression`); all lossless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExrCompression {
    /// zlib over blocks of 16 lines (OpenEXR's ZIP).
    #[default]
    Zip,
    /// Wavelet and Huffman over blocks of 32 lines, good on noisy images.
    Piz,
    /// Run-length encoding, one line a block.
    Rle,
    /// Uncompressed.
    None,
}

impl ExrCompression {
    /// Parses `zip`, `piz`, `rle` or `none`.
    pub fn parse(name: &str) -> Result<ExrCompression> {
        match name {
            "zip" => Ok(ExrCompression::Zip),
            "piz" => Ok(ExrCompression::Piz),
            "rle" => Ok(ExrCompression::Rle),
            "none" => Ok(ExrCompression::None),
            other => Err(Error::InvalidRequest(format!(
                "--exr-compression: unknown compression '{other}' (zip, piz, rle, none)"
            ))),
        }
    }
    /// The name [`ExrCompression::parse`] accepts.
    pub fn name(self) -> &'static str {
        match self {
            ExrCompression::Zip => "zip",
            ExrCompression::Piz => "piz",
            ExrCompression::Rle => "rle",
            ExrCompression::None => "none",
        }
    }
    fn method(self) -> exr::compression::Compression {
        match self {
            ExrCompression::Zip => exr::compression::Compression::ZIP16,
            ExrCompression::Piz => exr::compression::Compression::PIZ,
            ExrCompression::Rle => exr::compression::Compression::RLE,
            ExrCompression::None => exr::compression::Compression::Uncompressed,
        }
    }
}

/// Starts a `width` x `height` EXR file of the `channels` named (rows then hold `width x
/// channels` numbers, channel fastest), f16 samples when `half`, written on its own thread.
pub(crate) fn start(
    file: File,
    [width, height]: [usize; 2],
    channels: &[String],
    compression: ExrCompression,
    half: bool,
) -> std::result::Result<PulledWriter, String> {
    let sample = if half {
        SampleType::F16
    } else {
        SampleType::F32
    };
    // EXR lists channels sorted by name; `order[k]` is the input channel stored k-th.
    let mut order: Vec<usize> = (0..channels.len()).collect();
    order.sort_by(|&a, &b| channels[a].cmp(&channels[b]));
    let mut list: SmallVec<[ChannelDescription; 5]> = SmallVec::new();
    for &c in &order {
        let name = Text::new_or_none(&channels[c])
            .ok_or_else(|| format!("channel name '{}' is not ASCII", channels[c]))?;
        list.push(ChannelDescription::new(name, sample, true));
    }
    let header = Header::new(Text::default(), (width, height), list)
        .with_encoding(
            compression.method(),
            BlockDescription::ScanLines,
            LineOrder::Increasing,
        )
        .with_attributes(LayerAttributes::default());
    PulledWriter::spawn("exr writer", width * channels.len(), move |rows| {
        write_blocks(file, header, rows, &order, half).map_err(|e| e.to_string())
    })
}

/// Writes every block of the file from the bands, in increasing line order.
fn write_blocks(
    file: File,
    header: Header,
    rows: &mut Rows,
    order: &[usize],
    half: bool,
) -> exr::error::UnitResult {
    let channels = order.len();
    let uncompressed = header.compression == exr::compression::Compression::Uncompressed;
    let mut headers: exr::meta::Headers = SmallVec::new();
    headers.push(header);
    exr::block::write(
        BufWriter::with_capacity(1 << 20, file),
        headers,
        true,
        |meta: MetaData, chunks| {
            let blocks: Vec<(usize, BlockIndex)> =
                exr::block::enumerate_ordered_header_block_indices(&meta.headers).collect();
            let mut block_of = |index: BlockIndex| -> exr::error::Result<UncompressedBlock> {
                let (width, height) = (index.pixel_size.x(), index.pixel_size.y());
                let data = rows
                    .get(index.pixel_position.y(), height)
                    .ok_or(exr::error::Error::Aborted)?;
                Ok(UncompressedBlock {
                    index,
                    data: block_bytes(data, width, channels, order, half),
                })
            };
            let parallel = if uncompressed {
                None
            } else {
                chunks.parallel_blocks_compressor(&meta)
            };
            match parallel {
                Some(mut compressor) => {
                    for (i, index) in blocks {
                        compressor.add_block_to_compression_queue(i, block_of(index)?)?;
                    }
                    Ok(())
                }
                None => {
                    let mut compressor = chunks.sequential_blocks_compressor(&meta);
                    for (i, index) in blocks {
                        compressor.compress_block(i, block_of(index)?)?;
                    }
                    Ok(())
                }
            }
        },
    )
}

/// A block's bytes: for each line, each channel's samples in turn (in the file's channel
/// order), native-endian (the `exr` crate converts when compressing).
fn block_bytes(
    data: &[f32],
    width: usize,
    channels: usize,
    order: &[usize],
    half: bool,
) -> Vec<u8> {
    let size = if half { 2 } else { 4 };
    let mut bytes = Vec::with_capacity(data.len() * size);
    for line in data.chunks_exact(width * channels) {
        for &c in order {
            let samples = line.iter().skip(c).step_by(channels);
            if half {
                bytes.extend(samples.flat_map(|&v| f16::from_f32(v).to_ne_bytes()));
            } else {
                bytes.extend(samples.flat_map(|&v| v.to_ne_bytes()));
            }
        }
    }
    bytes
}

/// Whether the EXR file at `path` is one part of `width` x `height` pixels and `channels`
/// channels (it was written atomically, so a file under its final name is whole).
pub(crate) fn has_layout(path: &Path, [width, height]: [usize; 2], channels: usize) -> bool {
    MetaData::read_from_file(path, false).is_ok_and(|meta| {
        meta.headers.len() == 1
            && meta.headers[0].layer_size.x() == width
            && meta.headers[0].layer_size.y() == height
            && meta.headers[0].channels.list.len() == channels
    })
}
