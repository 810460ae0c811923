//! A renderer embedding noisegraph. The renderer owns its device, queue, encoder and
//! submission; noisegraph records its compute passes (the noise graph, then a normal map)
//! into the renderer's encoder, and the renderer's own render pipelines sample the results:
//!
//! 1. a 1:1 pass: a full-screen triangle over a render target the size of the field, whose
//!    fragment shader writes `textureLoad(height, pixel)`, so the render target must equal the
//!    field the engine reads back, bit for bit (tests/renderer.rs checks it);
//! 2. a lit material: the Rgba16Float normal map (normal in xyz, height in w, filterable on
//!    every device) sampled with a linear filter at twice the field's resolution, coloured by
//!    height and lit by a directional light, written to a PNG.
//!
//! Headless: it runs on lavapipe. `cargo run --example renderer -- [out.png]`

use std::path::Path;
use std::sync::Arc;

use noisegraph::gpu::{NormalMapFormat, NormalMapOptions};
use noisegraph::{CompiledGraph, Field, GpuContext, NoiseGraph, NormalMapPass, View};

/// The renderer's shaders: a full-screen triangle and the two fragment entry points.
const SHADER: &str = r#"
@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    // One triangle covering the screen: (-1, -1), (3, -1), (-1, 3).
    let x = f32(i32(i & 1u) * 4 - 1);
    let y = f32(i32(i >> 1u) * 4 - 1);
    return vec4<f32>(x, y, 0.0, 1.0);
}

@group(0) @binding(0) var height_tex: texture_2d<f32>;

// 1:1: the render target has the field's size, so pixel (x, y) reads texel (x, y).
@fragment
fn fs_height(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(textureLoad(height_tex, vec2<i32>(floor(pos.xy)), 0).x, 0.0, 0.0, 1.0);
}

struct Light {
    // xyz: direction towards the light in the normal map's frame (x = +u, y = +v, z = up)
    direction: vec4<f32>,
    // x: 1 / target width, y: 1 / target height, z: height of the water line
    scalars: vec4<f32>,
}

@group(0) @binding(0) var normal_tex: texture_2d<f32>;
@group(0) @binding(1) var linear_sampler: sampler;
@group(0) @binding(2) var<uniform> light: Light;

fn ground_colour(h: f32) -> vec3<f32> {
    let water = vec3<f32>(0.10, 0.25, 0.45);
    let sand = vec3<f32>(0.76, 0.70, 0.50);
    let grass = vec3<f32>(0.25, 0.50, 0.20);
    let rock = vec3<f32>(0.45, 0.40, 0.38);
    let snow = vec3<f32>(0.95, 0.95, 0.97);
    if (h < light.scalars.z) {
        return water;
    }
    let t = h - light.scalars.z;
    if (t < 0.05) {
        return mix(sand, grass, t / 0.05);
    }
    if (t < 0.35) {
        return mix(grass, rock, (t - 0.05) / 0.3);
    }
    return mix(rock, snow, clamp((t - 0.35) / 0.2, 0.0, 1.0));
}

@fragment
fn fs_lit(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let uv = pos.xy * light.scalars.xy;
    let texel = textureSample(normal_tex, linear_sampler, uv);
    // Water is flat: lit with the up vector, not the terrain's normal below it.
    var n = normalize(texel.xyz);
    if (texel.w < light.scalars.z) {
        n = vec3<f32>(0.0, 0.0, 1.0);
    }
    let diffuse = max(dot(n, normalize(light.direction.xyz)), 0.0);
    let colour = ground_colour(texel.w) * (0.25 + 0.75 * diffuse);
    return vec4<f32>(colour, 1.0);
}
"#;

/// What one rendered frame gives back.
pub struct Frame {
    /// The field as the engine reads it back from its target.
    pub field: Field,
    /// The render target of the 1:1 pass: what the render pipeline sampled.
    pub sampled: Field,
    /// The lit image, RGBA8, `lit_size` pixels.
    pub lit: image::RgbaImage,
}

/// The renderer's own device and queue (as a real renderer would create them); `None` when
/// wgpu finds no adapter.
pub fn open_device() -> Option<(wgpu::Device, wgpu::Queue)> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).ok()?;
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("renderer"),
        ..Default::default()
    }))
    .ok()
}

/// The terrain the example renders: a ridged 3D Perlin fBm, sliced at `time`.
pub fn terrain_graph() -> NoiseGraph {
    NoiseGraph::from_json(
        r#"{ "seed": 2024, "output": "terrain", "nodes": [
            { "id": "base", "type": "perlin", "dims": 3, "frequency": 3 },
            { "id": "terrain", "type": "fbm", "source": "base", "octaves": 6, "gain": 0.5 }
        ]}"#,
    )
    .expect("the example graph is valid")
}

fn render_target(
    device: &wgpu::Device,
    size: [u32; 2],
    format: wgpu::TextureFormat,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("renderer target"),
        size: wgpu::Extent3d {
            width: size[0],
            height: size[1],
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

fn texture_entry(binding: u32, filterable: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    }
}

fn pipeline(
    device: &wgpu::Device,
    module: &wgpu::ShaderModule,
    layout: &wgpu::BindGroupLayout,
    fragment: &str,
    format: wgpu::TextureFormat,
) -> wgpu::RenderPipeline {
    let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some(fragment),
        bind_group_layouts: &[Some(layout)],
        immediate_size: 0,
    });
    device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some(fragment),
        layout: Some(&pipeline_layout),
        vertex: wgpu::VertexState {
            module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module,
            entry_point: Some(fragment),
            compilation_options: Default::default(),
            targets: &[Some(format.into())],
        }),
        multiview_mask: None,
        cache: None,
    })
}

fn draw(
    encoder: &mut wgpu::CommandEncoder,
    target: &wgpu::Texture,
    pipeline: &wgpu::RenderPipeline,
    bind_group: &wgpu::BindGroup,
) {
    let view = target.create_view(&Default::default());
    let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some("renderer pass"),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view: &view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, bind_group, &[]);
    pass.draw(0..3, 0..1);
}

/// Renders one frame of `graph` (sliced at `time`) on the caller's device: the field is
/// `size`, the lit image `lit_size`.
pub fn render(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    graph: &NoiseGraph,
    size: [u32; 2],
    lit_size: [u32; 2],
    time: f64,
) -> noisegraph::Result<Frame> {
    // The engine on the renderer's device: compiled once for the view.
    let ctx = Arc::new(GpuContext::from_device(device.clone(), queue.clone()));
    let view = View::image(size[0], size[1]);
    let mut noise = CompiledGraph::new(&ctx, graph, None, view)?;
    noise.set_time(time)?;
    let normal_options = NormalMapOptions {
        format: NormalMapFormat::Rgba16Float,
        height_scale: 0.15,
        ..NormalMapOptions::for_view(&view)
    };
    let mut normals = NormalMapPass::new(&ctx, size, normal_options)?;
    let height = noise.create_target();
    let normal_map = normals.create_output();

    // The renderer's own pipelines and targets.
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("renderer"),
        source: wgpu::ShaderSource::Wgsl(SHADER.into()),
    });
    let height_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("height"),
        entries: &[texture_entry(0, false)],
    });
    let lit_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("lit"),
        entries: &[
            texture_entry(0, true),
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
        ],
    });
    let sampled_target = render_target(device, size, wgpu::TextureFormat::R32Float);
    let lit_target = render_target(device, lit_size, wgpu::TextureFormat::Rgba8Unorm);
    let height_pipeline = pipeline(
        device,
        &module,
        &height_layout,
        "fs_height",
        wgpu::TextureFormat::R32Float,
    );
    let lit_pipeline = pipeline(
        device,
        &module,
        &lit_layout,
        "fs_lit",
        wgpu::TextureFormat::Rgba8Unorm,
    );
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("linear"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        ..Default::default()
    });
    let light: [f32; 8] = [
        -0.5,
        -0.6,
        0.7,
        0.0,
        1.0 / lit_size[0] as f32,
        1.0 / lit_size[1] as f32,
        -0.15,
        0.0,
    ];
    let light_buffer = wgpu::util::DeviceExt::create_buffer_init(
        device,
        &wgpu::util::BufferInitDescriptor {
            label: Some("light"),
            contents: bytemuck::cast_slice(&light),
            usage: wgpu::BufferUsages::UNIFORM,
        },
    );
    let height_view = height.create_view(&Default::default());
    let normal_view = normal_map.create_view(&Default::default());
    let height_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("height"),
        layout: &height_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::TextureView(&height_view),
        }],
    });
    let lit_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("lit"),
        layout: &lit_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&normal_view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(&sampler),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: light_buffer.as_entire_binding(),
            },
        ],
    });

    // One frame: the engine's compute passes, then the renderer's render passes, in the
    // renderer's encoder and the renderer's submit.
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("renderer frame"),
    });
    noise.record(&mut encoder, &height)?;
    normals.record(&mut encoder, &height, &normal_map)?;
    draw(
        &mut encoder,
        &sampled_target,
        &height_pipeline,
        &height_group,
    );
    draw(&mut encoder, &lit_target, &lit_pipeline, &lit_group);
    queue.submit(Some(encoder.finish()));

    let field = noise.read_target(&height)?;
    let sampled = ctx.read_field(&sampled_target)?;
    let lit_pixels = ctx.read_rgba(&lit_target)?;
    let bytes = lit_pixels
        .iter()
        .flat_map(|p| p.map(|c| (c * 255.0).round() as u8))
        .collect();
    let lit = image::RgbaImage::from_raw(lit_size[0], lit_size[1], bytes)
        .expect("one RGBA texel per pixel");
    Ok(Frame {
        field,
        sampled,
        lit,
    })
}

/// Renders the example terrain and writes the lit image to `out`.
pub fn run(device: &wgpu::Device, queue: &wgpu::Queue, out: &Path) -> noisegraph::Result<Frame> {
    let frame = render(device, queue, &terrain_graph(), [256, 256], [512, 512], 0.0)?;
    frame.lit.save(out).map_err(|e| noisegraph::Error::Encode {
        path: out.display().to_string(),
        message: e.to_string(),
    })?;
    Ok(frame)
}

fn main() {
    let out = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "renderer.png".to_string());
    let Some((device, queue)) = open_device() else {
        eprintln!("no GPU adapter (install a Vulkan driver such as Mesa's lavapipe)");
        std::process::exit(1);
    };
    match run(&device, &queue, Path::new(&out)) {
        Ok(frame) => println!(
            "wrote {out}; the render pipeline sampled the field exactly: {}",
            frame.sampled.data == frame.field.data
        ),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
