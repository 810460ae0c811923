//! Headerless heightmaps for terrain import (Unity, Unreal): `.r16`, 16-bit unsigned
//! little-endian, the same levels as the 16-bit PNG ([`super::gray16`]); `.r32`, 32-bit float
//! little-endian, the `.npy`'s values. Rows run top to bottom as in the PNG: the first row is
//! the view's origin row (smallest y), x grows along a row; a volume's slices follow one
//! another. The file holds nothing but the samples, so its size tells a whole file.

use std::fs::File;
use std::io::{BufWriter, Write};

use super::levels::Levels;

/// Bits per sample of a raw heightmap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum RawDepth {
    /// `.r16`: `range` mapped to 0..65535.
    Sixteen { range: (f32, f32) },
    /// `.r32`: the values as they are.
    Float,
}

/// A raw heightmap written as rows arrive.
pub(crate) struct RawEncoder {
    out: BufWriter<File>,
    depth: RawDepth,
    bytes: Vec<u8>,
}

impl RawEncoder {
    pub(crate) fn new(file: File, depth: RawDepth) -> Self {
        RawEncoder {
            out: BufWriter::with_capacity(1 << 20, file),
            depth,
            bytes: Vec::new(),
        }
    }

    pub(crate) fn write_rows(&mut self, data: &[f32]) -> std::io::Result<()> {
        // Converted in chunks: a copy of a whole band would double its memory.
        for chunk in data.chunks(1 << 16) {
            self.bytes.clear();
            match self.depth {
                RawDepth::Sixteen { range } => {
                    self.bytes.resize(chunk.len() * 2, 0);
                    Levels::new(range).row16_le(chunk, &mut self.bytes);
                }
                RawDepth::Float => self
                    .bytes
                    .extend(chunk.iter().flat_map(|v| v.to_le_bytes())),
            }
            self.out.write_all(&self.bytes)?;
        }
        Ok(())
    }

    pub(crate) fn finish(mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
