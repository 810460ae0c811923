//! The textures a caller hands the engine: [`TargetView`] (one mip level of one array layer
//! of a texture) and the checks made before anything is recorded: the texture's descriptor
//! against what a pass expects ([`TargetSpec::check`]), and the device it was created on
//! ([`on_device`]).

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{Error, Result, TargetProblem};

/// The part of a texture a pass writes (or reads): one mip level of one array layer of a 2D
/// texture, or one mip level of a 3D texture (every depth slice).
///
/// `&wgpu::Texture` converts into the whole of a single-level texture (mip level 0, layer
/// 0), so `record(&mut encoder, &texture)` needs no `TargetView`; name a layer or a level
/// when the texture has several:
///
/// ```no_run
/// # fn frame(noise: &mut noisegraph::CompiledGraph, encoder: &mut wgpu::CommandEncoder,
/// #          tiles: &wgpu::Texture) -> noisegraph::Result<()> {
/// use noisegraph::gpu::TargetView;
/// // Layer 3 of an array of terrain tiles, each the graph's view size.
/// noise.record(encoder, TargetView::new(tiles).with_array_layer(3))?;
/// # Ok(()) }
/// ```
///
/// The rules, checked before anything is recorded (see [`TargetProblem`]): the format is the
/// pass's (R32Float for a [`CompiledGraph`](super::CompiledGraph)); a 2D texture for an image
/// view, a 3D texture for a volume view; the chosen mip level and array layer exist (a 3D
/// texture has only layer 0); the mip level's size is the view's size (each side of level
/// `m` is the texture's side shifted right by `m`, at least 1; a 2D layer has depth 1); one
/// sample; the pass's usages; and the texture was created on the pass's device. wgpu 30 gives
/// no way to read back a `wgpu::TextureView`'s range, so the engine takes this description
/// and makes the view itself.
#[derive(Debug, Clone, Copy)]
pub struct TargetView<'a> {
    texture: &'a wgpu::Texture,
    mip_level: u32,
    array_layer: u32,
}

impl<'a> From<&'a wgpu::Texture> for TargetView<'a> {
    fn from(texture: &'a wgpu::Texture) -> Self {
        TargetView::new(texture)
    }
}

impl<'a> TargetView<'a> {
    /// Mip level 0 of layer 0 of `texture`.
    pub fn new(texture: &'a wgpu::Texture) -> Self {
        TargetView {
            texture,
            mip_level: 0,
            array_layer: 0,
        }
    }

    /// The same texture and layer at mip level `mip_level`.
    pub fn with_mip_level(self, mip_level: u32) -> Self {
        TargetView { mip_level, ..self }
    }

    /// The same texture and mip level at array layer `array_layer` (2D textures only).
    pub fn with_array_layer(self, array_layer: u32) -> Self {
        TargetView {
            array_layer,
            ..self
        }
    }

    /// The texture.
    pub fn texture(&self) -> &'a wgpu::Texture {
        self.texture
    }

    /// The mip level written.
    pub fn mip_level(&self) -> u32 {
        self.mip_level
    }

    /// The array layer written (0 for a 3D texture).
    pub fn array_layer(&self) -> u32 {
        self.array_layer
    }

    /// Width, height and depth of the chosen mip level (depth 1 for a layer of a 2D
    /// texture).
    pub fn size(&self) -> [u32; 3] {
        let t = self.texture;
        let at_level = |side: u32| side.checked_shr(self.mip_level).unwrap_or(0).max(1);
        match t.dimension() {
            wgpu::TextureDimension::D3 => [
                at_level(t.width()),
                at_level(t.height()),
                at_level(t.depth_or_array_layers()),
            ],
            _ => [at_level(t.width()), at_level(t.height()), 1],
        }
    }

    /// The one-level, one-layer view of the chosen subresource (checked first).
    pub(crate) fn create_view(&self, label: &str) -> wgpu::TextureView {
        let dimension = match self.texture.dimension() {
            wgpu::TextureDimension::D3 => wgpu::TextureViewDimension::D3,
            wgpu::TextureDimension::D2 => wgpu::TextureViewDimension::D2,
            wgpu::TextureDimension::D1 => wgpu::TextureViewDimension::D1,
        };
        self.texture.create_view(&wgpu::TextureViewDescriptor {
            label: Some(label),
            dimension: Some(dimension),
            base_mip_level: self.mip_level,
            mip_level_count: Some(1),
            base_array_layer: self.array_layer,
            array_layer_count: Some(1),
            ..Default::default()
        })
    }
}

/// What a pass expects of a texture it writes or reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TargetSpec<'a> {
    /// Which texture, for the error: `target`, `height`, `normal map`, `readback`.
    pub role: &'static str,
    /// The formats accepted.
    pub formats: &'a [wgpu::TextureFormat],
    /// 2D or 3D.
    pub dimension: wgpu::TextureDimension,
    /// The size of the subresource, or `None` for any size.
    pub size: Option<[u32; 3]>,
    /// The usages needed.
    pub usage: wgpu::TextureUsages,
}

impl TargetSpec<'_> {
    /// Checks a caller's texture before anything is recorded; the error
    /// ([`Error::WrongTarget`]) lists every mismatch.
    pub fn check(&self, target: &TargetView) -> Result<()> {
        let texture = target.texture;
        let mut problems = Vec::new();
        if !self.formats.contains(&texture.format()) {
            problems.push(TargetProblem::Format {
                expected: self.formats.to_vec(),
                found: texture.format(),
            });
        }
        let dimension_ok = texture.dimension() == self.dimension;
        if !dimension_ok {
            problems.push(TargetProblem::Dimension {
                expected: self.dimension,
                found: texture.dimension(),
            });
        }
        let levels = texture.mip_level_count();
        let level_ok = target.mip_level < levels;
        if !level_ok {
            problems.push(TargetProblem::MipLevel {
                requested: target.mip_level,
                count: levels,
            });
        }
        let layers = match texture.dimension() {
            wgpu::TextureDimension::D3 => 1,
            _ => texture.depth_or_array_layers(),
        };
        if target.array_layer >= layers {
            problems.push(TargetProblem::ArrayLayer {
                requested: target.array_layer,
                count: layers,
            });
        }
        if let Some(expected) = self.size {
            // A size of the wrong dimension or of a missing level says nothing more.
            if dimension_ok && level_ok && target.size() != expected {
                problems.push(TargetProblem::Size {
                    expected,
                    found: target.size(),
                    mip_level: target.mip_level,
                });
            }
        }
        if !texture.usage().contains(self.usage) {
            problems.push(TargetProblem::Usage {
                needed: self.usage,
                found: texture.usage(),
            });
        }
        if texture.sample_count() != 1 {
            problems.push(TargetProblem::SampleCount {
                found: texture.sample_count(),
            });
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(Error::WrongTarget {
                role: self.role,
                problems,
            })
        }
    }
}

/// The label of the command encoder [`created_on`] records into and drops.
const DEVICE_CHECK_LABEL: &str = "noisegraph device check";

/// A state `usage` allows a texture to be in, for [`created_on`]'s transition: what the pass
/// that checks it uses it for (every [`TargetSpec`] needs one of these usages).
fn allowed_state(usage: wgpu::TextureUsages) -> wgpu::TextureUses {
    use wgpu::TextureUsages as U;
    if usage.contains(U::STORAGE_BINDING) {
        wgpu::TextureUses::STORAGE_READ_WRITE
    } else if usage.contains(U::TEXTURE_BINDING) {
        wgpu::TextureUses::RESOURCE
    } else if usage.contains(U::COPY_SRC) {
        wgpu::TextureUses::COPY_SRC
    } else {
        wgpu::TextureUses::COPY_DST
    }
}

/// Whether `texture` was created on `device`, asked of `device` alone.
///
/// wgpu 30 has no identity query, and whatever is asked of the texture itself (a view, say)
/// reports its errors to the device the texture was created on: a check that provoked an
/// error there would raise it on the caller's device, in the caller's uncaptured-error
/// handler. So the check is made by `device`: an encoder of `device` records a transition of
/// the texture to a state its usage allows, and is finished (never submitted) inside an error
/// scope of `device`. A texture of another device of the same wgpu instance fails wgpu's
/// same-device rule there, and that error goes to `device`, the encoder's, where the scope
/// catches it. Ids are resolved per instance, so for a texture of another wgpu instance
/// wgpu-core either panics (no resource of that id; caught here: refused) or finds one of
/// this instance's textures under the same id: that case no call of wgpu 30 tells apart
/// without raising an error on the other device, and the rule that a target is created on
/// the pass's device (`ctx.device()`, or `create_target`) is then the caller's to keep.
fn created_on(device: &wgpu::Device, texture: &wgpu::Texture) -> bool {
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let recorded = catch_unwind(AssertUnwindSafe(|| {
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some(DEVICE_CHECK_LABEL),
        });
        encoder.transition_resources(
            std::iter::empty(),
            std::iter::once(wgpu::TextureTransition {
                texture,
                selector: None,
                state: allowed_state(texture.usage()),
            }),
        );
        encoder.finish()
    }));
    let caught = pollster::block_on(scope.pop());
    recorded.is_ok() && caught.is_none()
}

/// Runs `create` (which makes views of and bind groups for the caller's `textures`) once
/// every texture is known to belong to `device`; a validation error `create` still meets
/// comes back as [`Error::Gpu`] instead of reaching the device's error handler.
pub(crate) fn on_device<T>(
    device: &wgpu::Device,
    textures: &[(&'static str, &wgpu::Texture)],
    create: impl FnOnce() -> T,
) -> Result<T> {
    for &(role, texture) in textures {
        if !created_on(device, texture) {
            return Err(Error::WrongTarget {
                role,
                problems: vec![TargetProblem::Device],
            });
        }
    }
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let made = create();
    match pollster::block_on(scope.pop()) {
        None => Ok(made),
        Some(e) => Err(Error::Gpu(format!(
            "binding the caller's textures failed: {e}"
        ))),
    }
}
