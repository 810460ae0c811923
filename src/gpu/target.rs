//! Checks of the textures a caller hands the engine (format, dimension, size, usage,
//! mips and samples), made before anything is recorded into the caller's encoder.

use crate::error::{Error, Result};

/// Checks a caller's texture before anything is recorded; the error lists every mismatch.
pub(crate) fn check_texture(
    role: &str,
    texture: &wgpu::Texture,
    format: wgpu::TextureFormat,
    dimension: wgpu::TextureDimension,
    size: [u32; 3],
    usage: wgpu::TextureUsages,
) -> Result<()> {
    let mut wrong = Vec::new();
    if texture.format() != format {
        wrong.push(format!(
            "format is {:?}, needs {format:?}",
            texture.format()
        ));
    }
    if texture.dimension() != dimension {
        wrong.push(format!(
            "dimension is {:?}, needs {dimension:?}",
            texture.dimension()
        ));
    }
    let have = [
        texture.width(),
        texture.height(),
        texture.depth_or_array_layers(),
    ];
    if have != size {
        wrong.push(format!(
            "size is {}x{}x{}, needs {}x{}x{}",
            have[0], have[1], have[2], size[0], size[1], size[2]
        ));
    }
    let missing = usage - texture.usage();
    if !missing.is_empty() {
        wrong.push(format!(
            "usage {} lacks {} (needs at least {})",
            usage_names(texture.usage()),
            usage_names(missing),
            usage_names(usage)
        ));
    }
    if texture.mip_level_count() != 1 || texture.sample_count() != 1 {
        wrong.push(format!(
            "has {} mip levels and {} samples, needs 1 and 1",
            texture.mip_level_count(),
            texture.sample_count()
        ));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidRequest(format!(
            "{role} texture: {}",
            wrong.join("; ")
        )))
    }
}

/// Texture usage flags by name, `A | B`.
fn usage_names(usage: wgpu::TextureUsages) -> String {
    let names: Vec<&str> = usage.iter_names().map(|(name, _)| name).collect();
    if names.is_empty() {
        "(none)".into()
    } else {
        names.join(" | ")
    }
}
