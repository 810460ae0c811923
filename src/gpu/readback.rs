//! Readback of a texture of any size (R32Float fields, and the RGBA formats of normal maps): rows padded to 256 bytes
//! (`COPY_BYTES_PER_ROW_ALIGNMENT`) for the copy, the padding stripped on the way out. Large
//! textures come back in bands through one reused staging buffer, so the host holds the
//! output plus one band, never a second full copy.

use super::GpuContext;
use crate::error::{Error, Result};

/// Upper bound of the staging buffer, in bytes.
pub const STAGING_BYTES: u64 = 64 << 20;

/// Reads `texture` (width x height x depth, R32Float) into a Vec, x fastest.
pub fn read_texture(ctx: &GpuContext, texture: &wgpu::Texture, size: [u32; 3]) -> Result<Vec<f32>> {
    let mut out: Vec<f32> = Vec::with_capacity(size.iter().map(|&s| s as usize).product());
    for_each_row(ctx, texture, size, 4, |row| {
        // Mapped rows start on 256-byte boundaries, so the cast cannot fail in practice.
        match bytemuck::try_cast_slice::<u8, f32>(row) {
            Ok(values) => out.extend_from_slice(values),
            Err(_) => out.extend(
                row.chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            ),
        }
    })?;
    Ok(out)
}

/// Reads the texels of `texture` (width x height x depth, `texel_bytes` each) as bytes, x
/// fastest, row padding removed.
pub fn read_texture_bytes(
    ctx: &GpuContext,
    texture: &wgpu::Texture,
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

/// Copies `texture` band by band through a pooled staging buffer and hands every row (padding
/// removed) to `row_sink`, x fastest, then y, then z.
fn for_each_row(
    ctx: &GpuContext,
    texture: &wgpu::Texture,
    size: [u32; 3],
    texel_bytes: u32,
    mut row_sink: impl FnMut(&[u8]),
) -> Result<()> {
    let (device, queue) = (ctx.device(), ctx.queue());
    let [width, height, _] = size;
    let row_bytes = width as u64 * texel_bytes as u64;
    let align = wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64;
    let padded = row_bytes.div_ceil(align) * align;
    let rows_per_band = (STAGING_BYTES / padded).clamp(1, height as u64) as u32;
    let staging = ctx
        .pool()
        .take_staging(device, padded * rows_per_band as u64);
    let result = copy_bands(
        device,
        queue,
        texture,
        size,
        [row_bytes, padded],
        rows_per_band,
        &staging,
        &mut row_sink,
    );
    // A failed band may leave the buffer mapped: only a clean one goes back to the pool.
    if result.is_ok() {
        ctx.pool().give_staging(staging);
    }
    result
}

#[allow(clippy::too_many_arguments)]
fn copy_bands(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    texture: &wgpu::Texture,
    [width, height, depth]: [u32; 3],
    [row_bytes, padded]: [u64; 2],
    rows_per_band: u32,
    staging: &wgpu::Buffer,
    row_sink: &mut impl FnMut(&[u8]),
) -> Result<()> {
    for z in 0..depth {
        let mut y = 0;
        while y < height {
            let rows = rows_per_band.min(height - y);
            let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("noisegraph readback"),
            });
            encoder.copy_texture_to_buffer(
                wgpu::TexelCopyTextureInfo {
                    texture,
                    mip_level: 0,
                    origin: wgpu::Origin3d { x: 0, y, z },
                    aspect: wgpu::TextureAspect::All,
                },
                wgpu::TexelCopyBufferInfo {
                    buffer: staging,
                    layout: wgpu::TexelCopyBufferLayout {
                        offset: 0,
                        bytes_per_row: Some(padded as u32),
                        rows_per_image: Some(rows),
                    },
                },
                wgpu::Extent3d {
                    width,
                    height: rows,
                    depth_or_array_layers: 1,
                },
            );
            let index = queue.submit(Some(encoder.finish()));
            let used = padded * rows as u64;
            let slice = staging.slice(..used);
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
            match pollster::block_on(receiver.receive()) {
                Some(Ok(())) => {}
                Some(Err(e)) => {
                    return Err(Error::Gpu(format!("mapping readback buffer failed: {e}")))
                }
                None => return Err(Error::Gpu("readback buffer mapping was dropped".into())),
            }
            {
                let view = slice
                    .get_mapped_range()
                    .map_err(|e| Error::Gpu(format!("reading mapped buffer failed: {e:?}")))?;
                for r in 0..rows as u64 {
                    let start = (r * padded) as usize;
                    row_sink(&view[start..start + row_bytes as usize]);
                }
            }
            staging.unmap();
            y += rows;
        }
    }
    Ok(())
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
