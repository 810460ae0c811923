//! Readback of a texture of any size (R32Float fields, and the RGBA formats of normal maps): rows padded to 256 bytes
//! (`COPY_BYTES_PER_ROW_ALIGNMENT`) for the copy, the padding stripped on the way out.
//! Textures come back in bands through two reused staging buffers (half the budget each), so
//! the host holds the output plus two bands, never a second full copy.

use super::target::TargetView;
use super::GpuContext;
use crate::error::{Error, Result};

/// Upper bound of the two staging buffers together, in bytes.
pub const STAGING_BYTES: u64 = 64 << 20;
/// Bands a texture is read in at least (fewer when it has fewer rows): with two, the host
/// copies the first while the device copies the second; more bands overlap more of the two.
const MIN_BANDS: u32 = 4;

/// Reads one mip level of one layer of a texture (width x height x depth, R32Float) into a
/// Vec, x fastest.
pub fn read_texture(ctx: &GpuContext, texture: &TargetView, size: [u32; 3]) -> Result<Vec<f32>> {
    read_texels(ctx, texture, size)
}

/// Reads one mip level of one layer of a texture (width x height x depth texels of `T`'s size
/// and layout: `f32` for R32Float, `[f32; 4]` for Rgba32Float) into a Vec, x fastest.
pub fn read_texels<T: bytemuck::Pod>(
    ctx: &GpuContext,
    texture: &TargetView,
    size: [u32; 3],
) -> Result<Vec<T>> {
    let texel = std::mem::size_of::<T>();
    let len: usize = size.iter().map(|&s| s as usize).product();
    let mut out: Vec<T> = Vec::new();
    out.try_reserve_exact(len).map_err(|_| {
        Error::Limit(format!(
            "size: no memory to read back a field of {}x{}x{} samples",
            size[0], size[1], size[2]
        ))
    })?;
    for_each_row(ctx, texture, size, texel as u32, |row| {
        // Mapped rows start on 256-byte boundaries, so the cast cannot fail in practice.
        match bytemuck::try_cast_slice::<u8, T>(row) {
            Ok(values) => out.extend_from_slice(values),
            Err(_) => out.extend(
                row.chunks_exact(texel)
                    .map(bytemuck::pod_read_unaligned::<T>),
            ),
        }
    })?;
    Ok(out)
}

/// Reads the texels of one mip level of one layer of a texture (width x height x depth,
/// `texel_bytes` each) as bytes, x fastest, row padding removed.
pub fn read_texture_bytes(
    ctx: &GpuContext,
    texture: &TargetView,
    size: [u32; 3],
    texel_bytes: u32,
) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(
        size.iter().map(|&s| s as usize).product::<usize>() * texel_bytes as usize,
    );
    for_each_row(ctx, texture, size, texel_bytes, |row| {
        out.extend_from_slice(row)
    })?;
    Ok(out)
}

/// Copies `texture` band by band through two pooled staging buffers and hands every row
/// (padding removed) to `row_sink`, x fastest, then y, then z. The two alternate: while the
/// rows of one band are handed out, the device copies the next band into the other, so the
/// device's copy and the host's overlap (on lavapipe both are CPU work on different threads).
fn for_each_row(
    ctx: &GpuContext,
    texture: &TargetView,
    size: [u32; 3],
    texel_bytes: u32,
    mut row_sink: impl FnMut(&[u8]),
) -> Result<()> {
    let [width, height, depth] = size;
    let row_bytes = width as u64 * texel_bytes as u64;
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64;
    let padded = row_bytes.div_ceil(align) * align;
    let bands = plan_bands([height, depth], padded);
    let staging_bytes = bands
        .iter()
        .map(|b| padded * b.rows as u64 * b.layers as u64)
        .max()
        .unwrap_or(padded);
    let staging: Vec<wgpu::Buffer> = (0..bands.len().min(2))
        .map(|_| ctx.pool().take_staging(ctx.device(), staging_bytes))
        .collect();
    let copier = BandCopier {
        ctx,
        texture,
        width,
        row_bytes,
        padded,
    };
    let result = copier.bands(&bands, &staging, &mut row_sink);
    // A failed band may leave a buffer mapped: only clean ones go back to the pool.
    if result.is_ok() {
        for b in staging {
            ctx.pool().give_staging(b);
        }
    }
    result
}

/// Rows `y..y + rows` of layers `z..z + layers` (several layers only with all their rows).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Band {
    z: u32,
    layers: u32,
    y: u32,
    rows: u32,
}

/// The bands of a `height` x `depth` texture with `padded` bytes per row: at least
/// [`MIN_BANDS`] where there are enough rows (whole layers when there are that many layers,
/// else rows of each layer), each at most half of [`STAGING_BYTES`].
fn plan_bands([height, depth]: [u32; 2], padded: u64) -> Vec<Band> {
    let half = STAGING_BYTES / 2;
    let layer_bytes = padded * height as u64;
    if depth >= MIN_BANDS && layer_bytes <= half {
        let layers = (half / layer_bytes).clamp(1, depth.div_ceil(MIN_BANDS) as u64) as u32;
        return (0..depth)
            .step_by(layers as usize)
            .map(|z| Band {
                z,
                layers: layers.min(depth - z),
                y: 0,
                rows: height,
            })
            .collect();
    }
    let rows_per_band = (half / padded).clamp(1, height.div_ceil(MIN_BANDS).max(1) as u64) as u32;
    (0..depth)
        .flat_map(|z| {
            (0..height)
                .step_by(rows_per_band as usize)
                .map(move |y| Band {
                    z,
                    layers: 1,
                    y,
                    rows: rows_per_band.min(height - y),
                })
        })
        .collect()
}

/// What copying a texture's bands needs.
struct BandCopier<'a> {
    ctx: &'a GpuContext,
    texture: &'a TargetView<'a>,
    width: u32,
    row_bytes: u64,
    padded: u64,
}

impl BandCopier<'_> {
    /// Submits the copy of `band` into `staging`.
    fn submit(&self, band: Band, staging: &wgpu::Buffer) -> wgpu::SubmissionIndex {
        let device = self.ctx.device();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("noisegraph readback"),
        });
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: self.texture.texture(),
                mip_level: self.texture.mip_level(),
                // A layer of a 2D texture is read at z = its index; a 3D texture has only
                // layer 0.
                origin: wgpu::Origin3d {
                    x: 0,
                    y: band.y,
                    z: band.z + self.texture.array_layer(),
                },
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: staging,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(self.padded as u32),
                    rows_per_image: Some(band.rows),
                },
            },
            wgpu::Extent3d {
                width: self.width,
                height: band.rows,
                depth_or_array_layers: band.layers,
            },
        );
        self.ctx.queue().submit(Some(encoder.finish()))
    }

    /// Copies every band, band `i` through `staging[i % 2]`, the next band's copy submitted
    /// before this one's rows are handed out.
    fn bands(
        &self,
        bands: &[Band],
        staging: &[wgpu::Buffer],
        row_sink: &mut impl FnMut(&[u8]),
    ) -> Result<()> {
        let mut pending: Vec<wgpu::SubmissionIndex> = bands
            .iter()
            .zip(staging)
            .map(|(&band, buffer)| self.submit(band, buffer))
            .collect();
        for (i, band) in bands.iter().enumerate() {
            let buffer = &staging[i % staging.len()];
            let slice = buffer.slice(..self.padded * band.rows as u64 * band.layers as u64);
            wait_for_mapping(self.ctx.device(), slice, pending[i].clone())?;
            {
                let view = slice
                    .get_mapped_range()
                    .map_err(|e| Error::Gpu(format!("reading mapped buffer failed: {e:?}")))?;
                for r in 0..band.rows as u64 * band.layers as u64 {
                    let start = (r * self.padded) as usize;
                    row_sink(&view[start..start + self.row_bytes as usize]);
                }
            }
            buffer.unmap();
            if let Some(&next) = bands.get(i + staging.len()) {
                pending.push(self.submit(next, buffer));
            }
        }
        Ok(())
    }
}

/// Maps `slice` for reading once submission `index` is done.
pub(super) fn wait_for_mapping(
    device: &wgpu::Device,
    slice: wgpu::BufferSlice,
    index: wgpu::SubmissionIndex,
) -> Result<()> {
    let (sender, receiver) = futures_intrusive::channel::shared::oneshot_channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = sender.send(r);
    });
    device
        .poll(wgpu::PollType::Wait {
            submission_index: Some(index),
            timeout: None,
        })
        .map_err(|e| Error::Gpu(format!("waiting for readback failed: {e}")))?;
    // The callback has run, or runs now on a thread polling the same device; a callback
    // dropped without running closes the channel (None).
    match pollster::block_on(receiver.receive()) {
        Some(Ok(())) => Ok(()),
        Some(Err(e)) => Err(Error::Gpu(format!("mapping readback buffer failed: {e}"))),
        None => Err(Error::Gpu("readback buffer mapping was dropped".into())),
    }
}

/// An IEEE half-precision value as f32 (exact: every f16 is an f32).
pub fn f16_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exponent = ((bits >> 10) & 0x1f) as i32;
    let mantissa = (bits & 0x3ff) as f32;
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of every layer exactly once, in order, within the staging budget.
    fn covers(height: u32, depth: u32, padded: u64) -> Vec<Band> {
        let bands = plan_bands([height, depth], padded);
        let mut next = (0, 0);
        for b in &bands {
            assert_eq!((b.z, b.y), next, "{bands:?}");
            assert!(padded * b.rows as u64 * b.layers as u64 <= STAGING_BYTES / 2);
            assert!(b.layers == 1 || (b.y == 0 && b.rows == height));
            next = if b.y + b.rows == height {
                (b.z + b.layers, 0)
            } else {
                (b.z, b.y + b.rows)
            };
        }
        assert_eq!(next, (depth, 0), "{bands:?}");
        bands
    }

    #[test]
    fn bands_cover_every_row_and_overlap_where_they_can() {
        // An image: four row bands. A volume: four slabs of whole layers.
        assert_eq!(covers(2048, 1, 8192).len(), 4);
        assert_eq!(covers(128, 128, 512).len(), 4);
        // Few rows: one band per row; a single row: one band.
        assert_eq!(covers(3, 1, 256).len(), 3);
        assert_eq!(covers(1, 1, 256).len(), 1);
        // Layers too large for half the budget: rows within each layer.
        let big = covers(8192, 5, 32768);
        assert!(big.iter().all(|b| b.layers == 1) && big.len() >= 5 * 4);
        // Odd shapes.
        covers(45, 19, 256);
        covers(1000, 3, 4096);
    }
}
