//! NumPy `.npy` files: float32 little-endian, C order, written as rows arrive; read back
//! for `analyze` and point queries.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use super::atomic::{io_err, write_atomic};
use crate::error::{Error, Result};
use crate::field::Field;

/// The NumPy header for a float32 array of `shape`.
pub(crate) fn npy_header(shape: &[usize]) -> Vec<u8> {
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

/// The shape of a `.npy` array of `size` (width, height, depth) with `channels` numbers per
/// sample: (H, W) or (D, H, W), with a last axis of `channels` when there are several.
pub(crate) fn npy_shape([w, h, d]: [u32; 3], channels: usize) -> Vec<usize> {
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

/// Reads a float32 `.npy` file written by [`write_field`](super::write_field) (or NumPy) back into a field.
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
