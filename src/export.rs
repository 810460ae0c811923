//! Writing fields to files: 8-bit PNG, 16-bit PNG, OpenEXR (f32) and NumPy `.npy` (f32).
//! Every write goes to a temporary file in the destination folder and is renamed into place,
//! so an interrupted bake never leaves a file under the final name.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

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

/// A temporary path beside `path`, renamed into place by [`commit`].
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.partial", std::process::id()))
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Writes bytes produced by `write` atomically to `path`.
pub fn write_atomic(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let tmp = temp_path(path);
    let result = write(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(io_err(path)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
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

fn shape_of(field: &Field) -> Vec<usize> {
    if field.depth > 1 {
        vec![
            field.depth as usize,
            field.height as usize,
            field.width as usize,
        ]
    } else {
        vec![field.height as usize, field.width as usize]
    }
}

/// Writes a field. `range` is the value range mapped to black..white for PNG formats.
/// A volume becomes a PNG with its slices stacked vertically.
pub fn write_field(field: &Field, path: &Path, format: Format, range: (f32, f32)) -> Result<()> {
    let width = field.width;
    let height = field.height * field.depth;
    let encode_err = |e: image::ImageError| Error::Encode {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    write_atomic(path, |tmp| match format {
        Format::Npy => {
            let file = File::create(tmp).map_err(io_err(path))?;
            let mut w = BufWriter::new(file);
            w.write_all(&npy_header(&shape_of(field)))
                .map_err(io_err(path))?;
            for v in &field.data {
                w.write_all(&v.to_le_bytes()).map_err(io_err(path))?;
            }
            w.flush().map_err(io_err(path))?;
            w.get_ref().sync_all().map_err(io_err(path))
        }
        Format::Png => {
            let pixels: Vec<u8> = field
                .data
                .iter()
                .map(|&v| (normalize(v, range) * 255.0).round() as u8)
                .collect();
            let img = image::GrayImage::from_raw(width, height, pixels).expect("size matches");
            img.save_with_format(tmp, image::ImageFormat::Png)
                .map_err(encode_err)
        }
        Format::Png16 => {
            let pixels: Vec<u16> = field
                .data
                .iter()
                .map(|&v| (normalize(v, range) * 65535.0).round() as u16)
                .collect();
            let img = image::ImageBuffer::<image::Luma<u16>, _>::from_raw(width, height, pixels)
                .expect("size matches");
            img.save_with_format(tmp, image::ImageFormat::Png)
                .map_err(encode_err)
        }
        Format::Exr => {
            let pixels: Vec<f32> = field.data.iter().flat_map(|&v| [v, v, v]).collect();
            let img = image::Rgb32FImage::from_raw(width, height, pixels).expect("size matches");
            img.save_with_format(tmp, image::ImageFormat::OpenExr)
                .map_err(encode_err)
        }
    })
}

/// Reads a float32 `.npy` file written by [`write_field`] (or NumPy) back into a field.
pub fn read_npy(path: &Path) -> Result<Field> {
    let bytes = std::fs::read(path).map_err(io_err(path))?;
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
    if !header.contains("'descr': '<f4'") {
        return Err(bad(
            "only little-endian float32 arrays ('<f4') are supported",
        ));
    }
    if header.contains("'fortran_order': True") {
        return Err(bad("Fortran-order arrays are not supported"));
    }
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
    let (d, h, w) = match shape.as_slice() {
        [w] => (1, 1, *w),
        [h, w] => (1, *h, *w),
        [d, h, w] => (*d, *h, *w),
        _ => return Err(bad("only 1D, 2D and 3D arrays are supported")),
    };
    let data_start = start + header_len;
    let count = d * h * w;
    let body = bytes
        .get(data_start..data_start + count * 4)
        .ok_or_else(|| bad("file is shorter than its shape says (truncated?)"))?;
    let data = body
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    Ok(Field::new(w as u32, h as u32, d as u32, data))
}
