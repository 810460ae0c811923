//! Writing fields to files, one module per format: PNG 8/16-bit (`png.rs`, deflated on every
//! core), OpenEXR (`exr.rs`, half or float, streamed in line blocks), NumPy `.npy`, float32
//! TIFF (`tiff.rs`) and raw heightmaps `.r16` / `.r32` (`raw.rs`); colour ramps for PNG
//! ([`Ramp`]). Every format is written band by band through one [`StreamWriter`], under a
//! temporary name renamed into place when whole (`atomic.rs`), so an interrupted bake never
//! leaves a file under the final name.

mod atomic;
mod bands;
mod exr;
mod huffman;
mod levels;
mod npy;
mod png;
mod ramp;
mod raw;
mod stream;
mod tiff;

use std::path::Path;

pub use self::atomic::{remove_partial_files, remove_stale_partials, write_atomic};
pub use self::exr::ExrCompression;
pub use self::levels::{gray16, gray8};
pub use self::npy::{read_npy, read_npy_points, write_npy};
pub use self::png::PngCompression;
pub use self::ramp::Ramp;
pub use self::stream::{
    encode_field, encode_field_with, is_complete, is_complete_channels, is_complete_with,
    write_channels, write_field, write_field_with, write_normal_map, StreamWriter,
};

use crate::error::{Error, Result};

/// Output file formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// PNG, 8 bits a channel: grey, or up to RGBA when channels are packed, each channel
    /// mapped from its value range; RGB through a colour ramp.
    Png,
    /// PNG, 16 bits a channel, as [`Format::Png`].
    Png16,
    /// OpenEXR, 32-bit float (or half): one channel `Y` for a field, named channels for
    /// gradient, curl, normal-map and packed outputs.
    Exr,
    /// NumPy array, float32 little-endian, C order, shape (H, W) or (D, H, W), with a last
    /// axis for several channels.
    Npy,
    /// TIFF, one float32 channel, deflate-compressed (GIS and terrain tools).
    Tiff,
    /// Raw heightmap, 16-bit unsigned little-endian (Unity / Unreal terrain import), the
    /// levels of the 16-bit PNG.
    R16,
    /// Raw heightmap, 32-bit float little-endian, the values of the `.npy`.
    R32,
}

/// Every format's name, as [`Format::parse`] takes it.
const NAMES: &str = "png, png16, exr, npy, tif, r16, r32";

impl Format {
    /// Parses a format name (`png`, `png16`, `exr`, `npy`, `tif` (or `tiff`), `r16`, `r32`).
    pub fn parse(name: &str) -> Result<Format> {
        match name {
            "png" => Ok(Format::Png),
            "png16" => Ok(Format::Png16),
            "exr" => Ok(Format::Exr),
            "npy" => Ok(Format::Npy),
            "tif" | "tiff" => Ok(Format::Tiff),
            "r16" => Ok(Format::R16),
            "r32" => Ok(Format::R32),
            other => Err(Error::InvalidRequest(format!(
                "format: unknown format '{other}' ({NAMES})"
            ))),
        }
    }
    /// The format implied by a file extension (`.png` is 8-bit; `.tif` and `.tiff` TIFF).
    pub fn from_path(path: &Path) -> Result<Format> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("png") => Ok(Format::Png),
            Some("exr") => Ok(Format::Exr),
            Some("npy") => Ok(Format::Npy),
            Some("tif" | "tiff") => Ok(Format::Tiff),
            Some("r16") => Ok(Format::R16),
            Some("r32") => Ok(Format::R32),
            other => Err(Error::InvalidRequest(format!(
                "format: cannot infer a format from the extension {:?} of {}; use --format {}",
                other.unwrap_or(""),
                path.display(),
                NAMES.replace(", ", "|")
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
            Format::Tiff => "tif",
            Format::R16 => "r16",
            Format::R32 => "r32",
        }
    }
    /// The file extension (16-bit PNG is still `.png`).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Png | Format::Png16 => "png",
            other => other.name(),
        }
    }
    /// The most channels one file holds: 4 for PNG (RGBA), 1 for TIFF and the raw formats,
    /// any number for `.npy` and EXR.
    pub fn max_channels(self) -> usize {
        match self {
            Format::Png | Format::Png16 => 4,
            Format::Tiff | Format::R16 | Format::R32 => 1,
            Format::Exr | Format::Npy => usize::MAX,
        }
    }
    /// Whether samples are stored as integer levels mapped from a value range (PNG, `.r16`)
    /// rather than as the values themselves.
    pub fn is_mapped(self) -> bool {
        matches!(self, Format::Png | Format::Png16 | Format::R16)
    }
}

/// One channel of a file: its name (EXR) and the value range its levels map from (PNG,
/// `.r16`; float formats keep values as they are).
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    /// The channel's name in an EXR file (`Y`, `R`, `gradient.x`, ...).
    pub name: String,
    /// The values mapped to black..white (0..max) in integer formats.
    pub range: (f32, f32),
}

impl Channel {
    /// A channel named `name` mapped from `range`.
    pub fn new(name: &str, range: (f32, f32)) -> Channel {
        Channel {
            name: name.to_string(),
            range,
        }
    }
    /// The one channel of a plain field: `Y` (luminance, as OpenEXR names a grey image).
    pub fn field(range: (f32, f32)) -> Channel {
        Channel::new("Y", range)
    }
}

/// How files are encoded, beyond their format and channels.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct WriteOptions {
    /// PNG deflate effort.
    pub png_compression: PngCompression,
    /// EXR block compression.
    pub exr_compression: ExrCompression,
    /// EXR samples as half floats (16-bit) instead of f32.
    pub exr_half: bool,
    /// Map the one channel through a colour ramp into an 8-bit RGB PNG.
    pub ramp: Option<Ramp>,
}

impl WriteOptions {
    /// Checks that `format` can hold `channels` channels with these options; the error names
    /// the flag that does not fit.
    pub fn check(&self, format: Format, channels: usize) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidRequest(m));
        if self.exr_half && format != Format::Exr {
            return bad(format!(
                "--exr-half: half floats are for EXR output, not {}",
                format.name()
            ));
        }
        if self.ramp.is_some() {
            if format != Format::Png {
                return bad(format!(
                    "--ramp: maps values to an 8-bit RGB PNG (format png), not {}",
                    format.name()
                ));
            }
            if channels != 1 {
                return bad(format!(
                    "--ramp: maps one channel to colours, not {channels} (no --channels, --field gradient or curl, or --normal-map with it)"
                ));
            }
        }
        if channels == 0 || channels > format.max_channels() {
            let most = match format.max_channels() {
                1 => "one channel".to_string(),
                n => format!("at most {n} channels"),
            };
            return bad(format!(
                "format {}: holds {most}, not {channels}; write .npy or .exr",
                format.name()
            ));
        }
        Ok(())
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
