//! Noise in your own vertex shader: a graph exported as a WGSL module
//! (`noisegraph::export::wgsl`) displaces a grid mesh in a render pipeline this example owns,
//! rendered headless; then the heights are probed on the CPU with the point-query API
//! (`noisegraph::query::PointQuery`) at a few vertices and compared with the rendered mesh.
//!
//! The mesh is a `(GRID + 1) x (GRID + 1)` grid of vertices spaced `SPACING` apart in the
//! graph's coordinates. The vertex shader calls the exported `height(p)` and moves each vertex to
//! z = height; the camera looks straight down at a render target with one pixel per vertex,
//! so the pixel centre over a vertex is that vertex, and the fragment shader writes the
//! surface's interpolated height there (a depth test keeps the displaced surface in front).
//!
//! `cargo run --example vertex_displace` (runs on lavapipe).

use noisegraph::export::wgsl::{export_wgsl, WgslModule, WgslOptions};
use noisegraph::query::PointQuery;
use noisegraph::NoiseGraph;

/// Pixels per side, one per vertex (64 f32 = one 256-byte row of readback); the mesh has one
/// more vertex per side.
pub const GRID: u32 = 64;
/// Distance between neighbouring vertices in the graph's coordinates (exact in f32).
pub const SPACING: f64 = 1.0 / 32.0;

/// The user's shader around the exported module: everything below is the example's own code.
const USER_SHADER: &str = r#"
struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) surface_height: f32,
}

const GRID: f32 = 64.0;
const SPACING: f32 = 0.03125;

@vertex
fn vs_main(@location(0) grid: vec2<f32>) -> VertexOut {
    let p = grid * SPACING;
    let h = height(p);
    // Top-down orthographic camera: grid vertex (i, j) lands on the centre of pixel (i, j);
    // the displaced z becomes depth (higher = nearer).
    let ndc = (grid + 0.5) / GRID * 2.0 - 1.0;
    var out: VertexOut;
    out.clip = vec4<f32>(ndc.x, -ndc.y, clamp(0.5 - 0.25 * h, 0.0, 1.0), 1.0);
    out.surface_height = h;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    return vec4<f32>(in.surface_height, 0.0, 0.0, 1.0);
}
"#;

/// The terrain: an 8-octave Perlin fBm.
pub fn graph() -> NoiseGraph {
    NoiseGraph::from_json(
        r#"{ "seed": 77, "output": "height", "nodes": [
            { "id": "base", "type": "perlin", "frequency": 2.5 },
            { "id": "height", "type": "fbm", "source": "base", "octaves": 8 } ] }"#,
    )
    .expect("valid graph")
}

/// One probe: a vertex, its height on the rendered mesh and from the CPU point query.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    pub vertex: [u32; 2],
    pub position: [f64; 2],
    pub rendered: f32,
    pub point_query: f32,
}

/// The rendered heights (`GRID x GRID`, row by row) and the probes at `vertices`.
pub struct Displaced {
    pub rendered: Vec<f32>,
    pub probes: Vec<Probe>,
}

/// Opens a device of the example's own (a renderer's, not the engine's).
pub fn open_device() -> Option<(wgpu::Device, wgpu::Queue)> {
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter = pollster::block_on(instance.request_adapter(&Default::default())).ok()?;
    pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("vertex_displace"),
        ..Default::default()
    }))
    .ok()
}

/// Renders `graph` as a displaced mesh and probes it at `vertices`.
pub fn run(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    graph: &NoiseGraph,
    vertices: &[[u32; 2]],
) -> noisegraph::Result<Displaced> {
    let module = export_wgsl(graph, &WgslOptions::new("height"))?;
    let rendered = render(device, queue, &module)?;
    let query = PointQuery::new(graph, None)?;
    let positions: Vec<f64> = vertices
        .iter()
        .flat_map(|v| [v[0] as f64 * SPACING, v[1] as f64 * SPACING])
        .collect();
    let heights = query.values(&positions)?;
    let probes = vertices
        .iter()
        .zip(heights)
        .map(|(&v, point_query)| Probe {
            vertex: v,
            position: [v[0] as f64 * SPACING, v[1] as f64 * SPACING],
            rendered: rendered[(v[1] * GRID + v[0]) as usize],
            point_query,
        })
        .collect();
    Ok(Displaced { rendered, probes })
}

/// The mesh: grid coordinates per vertex, two triangles per quad. One more row and column of
/// vertices than pixels, so that the last pixel centres (on the right and bottom edges of
/// the last triangles otherwise, which the rasterizer's top-left rule leaves out) are covered.
fn mesh() -> (Vec<[f32; 2]>, Vec<u32>) {
    let side = GRID + 1;
    let vertices = (0..side)
        .flat_map(|j| (0..side).map(move |i| [i as f32, j as f32]))
        .collect();
    let mut indices = Vec::new();
    for j in 0..GRID {
        for i in 0..GRID {
            let a = j * side + i;
            indices.extend_from_slice(&[a, a + 1, a + side, a + 1, a + side + 1, a + side]);
        }
    }
    (vertices, indices)
}

fn render(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    module: &WgslModule,
) -> noisegraph::Result<Vec<f32>> {
    use wgpu::util::DeviceExt;
    // The exported module is text: prepended to the user's shader, nothing else to link.
    let source = format!("{}\n{USER_SHADER}", module.source);
    let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("user shader with the exported noise"),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    });
    // Families with tables too large to inline read them from one storage buffer.
    let tables = module.tables.as_ref().map(|t| {
        let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("noise tables"),
            contents: bytemuck::cast_slice(&t.data),
            usage: wgpu::BufferUsages::STORAGE,
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("noise tables"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: t.binding,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Storage { read_only: true },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("noise tables"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: t.binding,
                resource: buffer.as_entire_binding(),
            }],
        });
        (t.group, layout, group)
    });
    // The tables' layout at the group the module names, the groups before it unused.
    let mut layouts: Vec<Option<&wgpu::BindGroupLayout>> = Vec::new();
    if let Some((index, layout, _)) = &tables {
        layouts.resize(*index as usize, None);
        layouts.push(Some(layout));
    }
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("vertex_displace"),
        bind_group_layouts: &layouts,
        immediate_size: 0,
    });
    let depth_format = wgpu::TextureFormat::Depth32Float;
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("displaced grid"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: &shader,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: 8,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x2],
            })],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: Some(wgpu::DepthStencilState {
            format: depth_format,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &shader,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::TextureFormat::R32Float.into())],
        }),
        multiview_mask: None,
        cache: None,
    });
    let (vertices, indices) = mesh();
    let vertex_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("grid vertices"),
        contents: bytemuck::cast_slice(&vertices),
        usage: wgpu::BufferUsages::VERTEX,
    });
    let index_buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("grid indices"),
        contents: bytemuck::cast_slice(&indices),
        usage: wgpu::BufferUsages::INDEX,
    });
    let target = texture(
        device,
        wgpu::TextureFormat::R32Float,
        wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
    );
    let depth = texture(device, depth_format, wgpu::TextureUsages::RENDER_ATTACHMENT);
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("rendered heights"),
        size: (GRID * GRID * 4) as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let target_view = target.create_view(&Default::default());
        let depth_view = depth.create_view(&Default::default());
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("displaced grid"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &target_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: f64::NAN,
                        g: 0.0,
                        b: 0.0,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        if let Some((index, _, group)) = &tables {
            pass.set_bind_group(*index, group, &[]);
        }
        pass.set_vertex_buffer(0, vertex_buffer.slice(..));
        pass.set_index_buffer(index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..indices.len() as u32, 0, 0..1);
    }
    encoder.copy_texture_to_buffer(
        target.as_image_copy(),
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(GRID * 4),
                rows_per_image: Some(GRID),
            },
        },
        wgpu::Extent3d {
            width: GRID,
            height: GRID,
            depth_or_array_layers: 1,
        },
    );
    queue.submit(Some(encoder.finish()));
    let slice = readback.slice(..);
    let (sender, receiver) = std::sync::mpsc::channel();
    slice.map_async(wgpu::MapMode::Read, move |r| {
        let _ = sender.send(r);
    });
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| noisegraph::Error::Gpu(format!("waiting for the render failed: {e}")))?;
    receiver
        .recv()
        .map_err(|e| noisegraph::Error::Gpu(format!("mapping was dropped: {e}")))?
        .map_err(|e| noisegraph::Error::Gpu(format!("mapping the heights failed: {e}")))?;
    let view = slice
        .get_mapped_range()
        .map_err(|e| noisegraph::Error::Gpu(format!("reading the heights failed: {e}")))?;
    let heights = bytemuck::cast_slice::<u8, f32>(&view).to_vec();
    Ok(heights)
}

fn texture(
    device: &wgpu::Device,
    format: wgpu::TextureFormat,
    usage: wgpu::TextureUsages,
) -> wgpu::Texture {
    device.create_texture(&wgpu::TextureDescriptor {
        label: Some("vertex_displace target"),
        size: wgpu::Extent3d {
            width: GRID,
            height: GRID,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    })
}

/// A few vertices spread over the mesh, corners included.
pub fn probe_vertices() -> Vec<[u32; 2]> {
    vec![
        [0, 0],
        [GRID - 1, 0],
        [0, GRID - 1],
        [GRID - 1, GRID - 1],
        [17, 40],
        [33, 9],
        [50, 51],
    ]
}

#[allow(dead_code)]
fn main() {
    let Some((device, queue)) = open_device() else {
        eprintln!("no GPU adapter (wgpu found none; lavapipe works)");
        std::process::exit(1);
    };
    let displaced = run(&device, &queue, &graph(), &probe_vertices()).unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(1);
    });
    println!(
        "{:>10} {:>22} {:>12} {:>12} {:>10}",
        "vertex", "position", "rendered", "point query", "|diff|"
    );
    let mut worst = 0f32;
    for p in &displaced.probes {
        let diff = (p.rendered - p.point_query).abs();
        worst = worst.max(diff);
        println!(
            "{:>10} {:>22} {:>12.6} {:>12.6} {:>10.2e}",
            format!("{:?}", p.vertex),
            format!("({:.5}, {:.5})", p.position[0], p.position[1]),
            p.rendered,
            p.point_query,
            diff
        );
    }
    println!("largest difference {worst:.2e} (parity tolerance 1e-4)");
    if worst > 1e-4 || worst.is_nan() {
        std::process::exit(1);
    }
}
