//! [`NormalMapPass`]: a recordable compute pass turning a materialized 2D height field
//! (R32Float) into a normal map renderers can light, by central differences
//! (`shaders/normal_map.wgsl`, CPU twin `src/cpu/normal_map.rs`).

use std::sync::Arc;

use wgpu::util::DeviceExt;

use super::assemble::{normal_map_source, BINDING_HEIGHT, BINDING_OUT, BINDING_PARAMS, WORKGROUP};
use super::pipeline::{CachedPipeline, LayoutKey};
use super::requirements::DeviceRequirements;
use super::target::{on_device, TargetSpec, TargetView};
use super::GpuContext;
use crate::error::{Error, Result};
use crate::field::Field;
use crate::graph::View;
use crate::twin::normal_map::{
    run_normal_map, NormalMapUniform, BORDER_CLAMP, BORDER_WRAP, ENCODING_SIGNED, ENCODING_UNORM,
};

/// The texture format a normal map is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NormalMapFormat {
    /// `(n * 0.5 + 0.5, 1)`: the classic 8-bit normal map.
    Rgba8Unorm,
    /// `(nx, ny, nz, height)`: filterable on every device, so a renderer can sample both the
    /// normal and the height with a linear filter.
    Rgba16Float,
    /// `(nx, ny, nz, height)` in full precision (filterable only with `FLOAT32_FILTERABLE`).
    Rgba32Float,
}

impl NormalMapFormat {
    /// The wgpu format.
    pub fn texture_format(self) -> wgpu::TextureFormat {
        match self {
            NormalMapFormat::Rgba8Unorm => wgpu::TextureFormat::Rgba8Unorm,
            NormalMapFormat::Rgba16Float => wgpu::TextureFormat::Rgba16Float,
            NormalMapFormat::Rgba32Float => wgpu::TextureFormat::Rgba32Float,
        }
    }
    /// Its name in a WGSL storage texture type.
    pub fn wgsl_name(self) -> &'static str {
        match self {
            NormalMapFormat::Rgba8Unorm => "rgba8unorm",
            NormalMapFormat::Rgba16Float => "rgba16float",
            NormalMapFormat::Rgba32Float => "rgba32float",
        }
    }
    pub(crate) fn encoding(self) -> u32 {
        match self {
            NormalMapFormat::Rgba8Unorm => ENCODING_UNORM,
            _ => ENCODING_SIGNED,
        }
    }
    /// Bytes per texel.
    pub fn texel_bytes(self) -> u32 {
        match self {
            NormalMapFormat::Rgba8Unorm => 4,
            NormalMapFormat::Rgba16Float => 8,
            NormalMapFormat::Rgba32Float => 16,
        }
    }
    /// Every format, for tests and listings.
    pub const ALL: [NormalMapFormat; 3] = [
        NormalMapFormat::Rgba8Unorm,
        NormalMapFormat::Rgba16Float,
        NormalMapFormat::Rgba32Float,
    ];
}

/// What the normal-map pass does at the edges of the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Border {
    /// One-sided differences at the edges (the default: right for any field).
    Clamp,
    /// The field wraps around (for tileable fields, made with `period`).
    Wrap,
}

/// A 2D texture of `size` in `format` for a normal-map pass to write.
pub(crate) fn create_normal_texture(
    ctx: &GpuContext,
    label: &str,
    size: [u32; 2],
    format: NormalMapFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    ctx.device().create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width: size[0],
            height: size[1],
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: format.texture_format(),
        usage,
        view_formats: &[],
    })
}

/// Parameters of a normal map.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NormalMapOptions {
    /// The output texture's format and encoding.
    pub format: NormalMapFormat,
    /// What happens at the edges.
    pub border: Border,
    /// Surface height per unit of the field: the surface is `z = height_scale * h(x, y)`.
    pub height_scale: f32,
    /// Distance between neighbouring pixels along x and y, in the same units as the height
    /// (for a view: `extent / size`).
    pub spacing: [f32; 2],
}

impl NormalMapOptions {
    /// Options for a field baked over `view`: spacing `extent / size`, clamped borders,
    /// height scale 1, Rgba16Float.
    pub fn for_view(view: &View) -> Self {
        NormalMapOptions {
            format: NormalMapFormat::Rgba16Float,
            border: Border::Clamp,
            height_scale: 1.0,
            spacing: [
                (view.extent[0] / view.size[0] as f64) as f32,
                (view.extent[1] / view.size[1] as f64) as f32,
            ],
        }
    }

    pub(crate) fn check(&self) -> Result<()> {
        if !self.height_scale.is_finite() {
            return Err(Error::InvalidRequest(format!(
                "normal map: height_scale must be finite (got {})",
                self.height_scale
            )));
        }
        if self.spacing.iter().any(|s| !s.is_finite() || *s <= 0.0) {
            return Err(Error::InvalidRequest(format!(
                "normal map: spacing must be finite and greater than 0 (got {:?})",
                self.spacing
            )));
        }
        Ok(())
    }

    /// The uniform the kernel (and its CPU twin) reads, for a field of `size`.
    pub fn uniform(&self, size: [u32; 2]) -> NormalMapUniform {
        NormalMapUniform {
            size: [
                size[0],
                size[1],
                match self.border {
                    Border::Clamp => BORDER_CLAMP,
                    Border::Wrap => BORDER_WRAP,
                },
                self.format.encoding(),
            ],
            scalars: [self.height_scale, self.spacing[0], self.spacing[1], 0.0],
        }
    }
}

/// The normal map of a 2D field on the CPU path (the reference the GPU pass is tested
/// against): one `[f32; 4]` per pixel, x fastest, before any format quantization.
///
/// ```
/// use noisegraph::gpu::{normal_map_cpu, NormalMapOptions};
/// use noisegraph::{Field, View};
/// // A ramp rising by 0.5 per pixel along x, on pixels 1 unit apart: slope 0.5.
/// let field = Field::new(4, 2, 1, vec![0.0, 0.5, 1.0, 1.5, 0.0, 0.5, 1.0, 1.5]);
/// let options = NormalMapOptions {
///     spacing: [1.0, 1.0],
///     ..NormalMapOptions::for_view(&View::image(4, 2))
/// };
/// let normals = normal_map_cpu(&field, &options).unwrap();
/// let expected = [-0.5 / 1.25f32.sqrt(), 0.0, 1.0 / 1.25f32.sqrt()];
/// for n in &normals {
///     assert!((0..3).all(|c| (n[c] - expected[c]).abs() < 1e-6));
/// }
/// ```
pub fn normal_map_cpu(field: &Field, options: &NormalMapOptions) -> Result<Vec<[f32; 4]>> {
    options.check()?;
    if field.depth != 1 {
        return Err(Error::InvalidRequest(format!(
            "normal map: the field must be 2D (depth {})",
            field.depth
        )));
    }
    let mut out = vec![[0.0; 4]; field.data.len()];
    run_normal_map(
        &options.uniform([field.width, field.height]),
        &field.data,
        &mut out,
    );
    Ok(out)
}

/// A recordable normal-map pass for fields of one size: its pipeline and uniform buffer are
/// made once; [`NormalMapPass::record`] records one compute pass into the caller's encoder.
///
/// ```no_run
/// use std::sync::Arc;
/// use noisegraph::gpu::{NormalMapOptions, NormalMapPass};
/// use noisegraph::{CompiledGraph, GpuContext, NoiseGraph, View};
/// # fn f(ctx: Arc<GpuContext>, graph: NoiseGraph) -> noisegraph::Result<()> {
/// let view = View::image(256, 256);
/// let mut noise = CompiledGraph::new(&ctx, &graph, None, view)?;
/// let mut normals = NormalMapPass::new(&ctx, [256, 256], NormalMapOptions::for_view(&view))?;
/// let (height, normal_tex) = (noise.create_target(), normals.create_output());
/// let mut encoder = ctx.device().create_command_encoder(&Default::default());
/// noise.record(&mut encoder, &height)?;
/// normals.record(&mut encoder, &height, &normal_tex)?;
/// ctx.queue().submit(Some(encoder.finish()));
/// # Ok(()) }
/// ```
pub struct NormalMapPass {
    ctx: Arc<GpuContext>,
    size: [u32; 2],
    options: NormalMapOptions,
    pipeline: Arc<CachedPipeline>,
    uniform: wgpu::Buffer,
    dirty: bool,
    /// The last (height, normals) pair bound, and its bind group.
    binding: Option<(wgpu::Texture, wgpu::Texture, wgpu::BindGroup)>,
}

impl NormalMapPass {
    /// The usage [`NormalMapPass::create_output`] gives.
    pub const OUTPUT_USAGE: wgpu::TextureUsages = wgpu::TextureUsages::STORAGE_BINDING
        .union(wgpu::TextureUsages::TEXTURE_BINDING)
        .union(wgpu::TextureUsages::COPY_SRC);

    /// Compiles (or fetches) the pass for fields of `size` (width, height).
    pub fn new(ctx: &Arc<GpuContext>, size: [u32; 2], options: NormalMapOptions) -> Result<Self> {
        options.check()?;
        let view = View::image(size[0], size[1]);
        view.check()?;
        ctx.check_requirements(&DeviceRequirements::for_texture_pass(&view, 1))?;
        let pipeline = ctx.pipelines().get(
            ctx.device(),
            &normal_map_source(options.format.wgsl_name()),
            LayoutKey::NormalMap {
                format: options.format.texture_format(),
            },
        )?;
        let uniform = ctx
            .device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("noisegraph normal map"),
                contents: bytemuck::bytes_of(&options.uniform(size)),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            });
        Ok(NormalMapPass {
            ctx: ctx.clone(),
            size,
            options,
            pipeline,
            uniform,
            dirty: false,
            binding: None,
        })
    }

    /// The options in effect.
    pub fn options(&self) -> &NormalMapOptions {
        &self.options
    }

    /// Changes the height scale (written at the next [`record`](Self::record); no pipeline).
    pub fn set_height_scale(&mut self, height_scale: f32) -> Result<()> {
        let options = NormalMapOptions {
            height_scale,
            ..self.options
        };
        options.check()?;
        self.options = options;
        self.dirty = true;
        Ok(())
    }

    /// Creates a texture the pass can write: the options' format, the field's size,
    /// [`OUTPUT_USAGE`](Self::OUTPUT_USAGE).
    pub fn create_output(&self) -> wgpu::Texture {
        create_normal_texture(
            &self.ctx,
            "noisegraph normal map",
            self.size,
            self.options.format,
            Self::OUTPUT_USAGE,
        )
    }

    /// Records the pass: reads `height` (R32Float, TEXTURE_BINDING), writes `normals` (the
    /// options' format, STORAGE_BINDING). Both are checked before anything is recorded.
    pub fn record(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        height: &wgpu::Texture,
        normals: &wgpu::Texture,
    ) -> Result<()> {
        let size = [self.size[0], self.size[1], 1];
        TargetSpec {
            role: "height",
            formats: &[wgpu::TextureFormat::R32Float],
            dimension: wgpu::TextureDimension::D2,
            size: Some(size),
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
        }
        .check(&TargetView::new(height))?;
        TargetSpec {
            role: "normal map",
            formats: &[self.options.format.texture_format()],
            dimension: wgpu::TextureDimension::D2,
            size: Some(size),
            usage: wgpu::TextureUsages::STORAGE_BINDING,
        }
        .check(&TargetView::new(normals))?;
        if self.dirty {
            self.ctx.queue().write_buffer(
                &self.uniform,
                0,
                bytemuck::bytes_of(&self.options.uniform(self.size)),
            );
            self.dirty = false;
        }
        let bound = self
            .binding
            .as_ref()
            .is_some_and(|(h, n, _)| h == height && n == normals);
        // Checked on every call: wgpu compares textures by id within their own instance.
        let textures = [("height", height), ("normal map", normals)];
        if bound {
            on_device(self.ctx.device(), &textures, || ())?;
        } else {
            let view = |t: &wgpu::Texture| TargetView::new(t).create_view("noisegraph normal map");
            let device = self.ctx.device();
            let group = on_device(device, &textures, || {
                let (height_view, normal_view) = (view(height), view(normals));
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("noisegraph normal map"),
                    layout: &self.pipeline.layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: BINDING_PARAMS,
                            resource: self.uniform.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: BINDING_OUT,
                            resource: wgpu::BindingResource::TextureView(&normal_view),
                        },
                        wgpu::BindGroupEntry {
                            binding: BINDING_HEIGHT,
                            resource: wgpu::BindingResource::TextureView(&height_view),
                        },
                    ],
                })
            })?;
            self.binding = Some((height.clone(), normals.clone(), group));
        }
        let group = &self.binding.as_ref().expect("bound above").2;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("noisegraph normal map"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline.pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(
            self.size[0].div_ceil(WORKGROUP[0]),
            self.size[1].div_ceil(WORKGROUP[1]),
            1,
        );
        Ok(())
    }
}
