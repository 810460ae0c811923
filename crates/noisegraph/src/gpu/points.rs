//! Point queries on a GPU: the node's exported WGSL module (`crate::export::wgsl`, the code
//! `noisegraph wgsl` writes) behind a small compute entry point that reads one split
//! position per invocation and writes its value (and gradient). [`GpuPointQuery::run`] uploads
//! f64 positions split on the host and reads the results back; [`GpuPointQuery::record`]
//! records the work into a caller's encoder, between a caller's buffers, for queries whose
//! results stay on the GPU.

use std::sync::Arc;

use rayon::prelude::*;
use wgpu::util::DeviceExt;

use super::GpuContext;
use crate::error::{Error, Result};
use crate::export::wgsl::{export_wgsl, WgslModule, WgslOptions};
use crate::graph::NoiseGraph;
use crate::query::check_positions;

/// One position as the GPU query reads it (32 bytes, `struct { cell: vec4<i32>, local:
/// vec4<f32> }`): the position is `cell + local` per axis, unused axes 0. Split f64 positions
/// with [`GpuPoint::split`].
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuPoint {
    /// floor(p) per axis.
    pub cell: [i32; 4],
    /// p - floor(p) per axis, in [0, 1).
    pub local: [f32; 4],
}

impl GpuPoint {
    /// Splits a position of up to 4 coordinates (the rest 0): `cell` = floor(p), `local` =
    /// p - cell. An error past the i32 range (|p| >= 2^31) or for a non-finite coordinate.
    pub fn split(p: &[f64]) -> Result<GpuPoint> {
        let mut point = GpuPoint {
            cell: [0; 4],
            local: [0.0; 4],
        };
        for (a, &v) in p.iter().enumerate().take(4) {
            let fl = v.floor();
            if !(-2_147_483_648.0..2_147_483_648.0).contains(&fl) {
                return Err(Error::InvalidRequest(format!(
                    "position {v} on axis {} is outside the GPU query's i32 cells (|p| < 2^31)",
                    ["x", "y", "z", "w"][a]
                )));
            }
            point.cell[a] = fl as i32;
            point.local[a] = (v - fl) as f32;
        }
        Ok(point)
    }
}

/// Invocations per workgroup of the query kernel.
const WORKGROUP: u32 = 64;
/// Bindings of the query kernel (group 0).
const BINDING_POINTS: u32 = 0;
const BINDING_OUT: u32 = 1;
const BINDING_TABLES: u32 = 2;
/// The export's name inside the query kernel.
const KERNEL_NAME: &str = "noise";

/// A node of a graph compiled for evaluation at points on a GPU.
pub struct GpuPointQuery {
    ctx: Arc<GpuContext>,
    module: WgslModule,
    gradient: bool,
    pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    tables: Option<wgpu::Buffer>,
}

impl GpuPointQuery {
    /// Compiles `node` (the graph's output when `None`) for `ctx`'s device, with gradients
    /// when `gradient` (an error naming the node when it cannot be differentiated).
    pub fn new(
        ctx: Arc<GpuContext>,
        graph: &NoiseGraph,
        node: Option<&str>,
        gradient: bool,
    ) -> Result<Self> {
        let options = WgslOptions {
            name: KERNEL_NAME.into(),
            node: node.map(String::from),
            table_binding: [0, BINDING_TABLES],
        };
        let module = export_wgsl(graph, &options)?;
        if gradient {
            if let Some(why) = &module.no_gradient {
                return Err(Error::InvalidRequest(format!(
                    "{why}, so '{}' cannot be differentiated",
                    module.node
                )));
            }
        }
        let source = kernel_source(&module, gradient);
        let device = ctx.device();
        let storage = |binding: u32, read_only: bool| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let mut entries = vec![storage(BINDING_POINTS, true), storage(BINDING_OUT, false)];
        if module.tables.is_some() {
            entries.push(storage(BINDING_TABLES, true));
        }
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("noisegraph point query"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("noisegraph point query"),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("noisegraph point query"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("noisegraph point query"),
            layout: Some(&pipeline_layout),
            module: &shader,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!(
                "compiling the point query pipeline failed: {err}"
            )));
        }
        let tables = module.tables.as_ref().map(|t| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("noisegraph point query tables"),
                contents: bytemuck::cast_slice(&t.data),
                usage: wgpu::BufferUsages::STORAGE,
            })
        });
        Ok(GpuPointQuery {
            ctx,
            module,
            gradient,
            pipeline,
            layout,
            tables,
        })
    }

    /// Coordinates per point: the node's dimension.
    pub fn dims(&self) -> u32 {
        self.module.dims
    }

    /// Numbers written per point: 1, or `1 + dims` with gradients (the value, then d/dx,
    /// d/dy[, d/dz[, d/dw]]).
    pub fn output_width(&self) -> usize {
        if self.gradient {
            1 + self.dims() as usize
        } else {
            1
        }
    }

    /// The exported module the kernel is built from.
    pub fn module(&self) -> &WgslModule {
        &self.module
    }

    /// Most points one [`GpuPointQuery::record`] takes: the device's storage binding size
    /// over the larger of a point (32 bytes) and a result.
    pub fn max_points_per_record(&self) -> u64 {
        let limit = self.ctx.limits().max_storage_buffer_binding_size;
        let per_point =
            (std::mem::size_of::<GpuPoint>() as u64).max(4 * self.output_width() as u64);
        let groups = u64::from(self.ctx.limits().max_compute_workgroups_per_dimension);
        (limit / per_point).min(groups * groups * u64::from(WORKGROUP))
    }

    /// Values (and gradients) at `positions` (`dims` coordinates per point, point after
    /// point): split on the host, uploaded, evaluated, read back. [`GpuPointQuery::output_width`]
    /// numbers per point.
    pub fn run(&self, positions: &[f64]) -> Result<Vec<f32>> {
        let dims = self.dims() as usize;
        let n = check_positions(positions, self.dims())?;
        let points: Vec<GpuPoint> = positions
            .par_chunks(dims)
            .map(GpuPoint::split)
            .collect::<Result<_>>()?;
        let width = self.output_width();
        let mut out = Vec::with_capacity(n * width);
        let batch = self.max_points_per_record().max(1) as usize;
        let device = self.ctx.device();
        for points in points.chunks(batch) {
            let count = points.len();
            let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("noisegraph point query positions"),
                contents: bytemuck::cast_slice(points),
                usage: wgpu::BufferUsages::STORAGE,
            });
            let bytes = (count * width * 4) as u64;
            let results = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("noisegraph point query results"),
                size: bytes.max(4),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let staging = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("noisegraph point query readback"),
                size: bytes.max(4),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut encoder = device.create_command_encoder(&Default::default());
            self.record(&mut encoder, &input, &results, count as u32)?;
            encoder.copy_buffer_to_buffer(&results, 0, &staging, 0, bytes.max(4));
            let index = self.ctx.queue().submit(Some(encoder.finish()));
            let slice = staging.slice(..);
            super::readback::wait_for_mapping(device, slice, index)?;
            {
                let view = slice
                    .get_mapped_range()
                    .map_err(|e| Error::Gpu(format!("reading the results failed: {e}")))?;
                out.extend_from_slice(&bytemuck::cast_slice::<u8, f32>(&view)[..count * width]);
            }
            staging.unmap();
        }
        Ok(out)
    }

    /// Records the evaluation of the first `count` points of `points` (an array of
    /// [`GpuPoint`], with `STORAGE` usage) into `out` ([`GpuPointQuery::output_width`] f32
    /// per point, point after point, with `STORAGE` usage) in the caller's encoder. Nothing is
    /// submitted. Errors, before anything is recorded, for buffers too small or without
    /// `STORAGE`, or more than [`GpuPointQuery::max_points_per_record`] points.
    pub fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        points: &wgpu::Buffer,
        out: &wgpu::Buffer,
        count: u32,
    ) -> Result<()> {
        if count == 0 {
            return Ok(());
        }
        if u64::from(count) > self.max_points_per_record() {
            return Err(Error::Limit(format!(
                "{count} points exceed the {} one record can take on this device (its storage binding size)",
                self.max_points_per_record()
            )));
        }
        let point_bytes = u64::from(count) * std::mem::size_of::<GpuPoint>() as u64;
        let out_bytes = u64::from(count) * 4 * self.output_width() as u64;
        for (name, buffer, bytes) in [("points", points, point_bytes), ("out", out, out_bytes)] {
            if !buffer.usage().contains(wgpu::BufferUsages::STORAGE) {
                return Err(Error::InvalidRequest(format!(
                    "{name} buffer: usage {:?} lacks STORAGE",
                    buffer.usage()
                )));
            }
            if buffer.size() < bytes {
                return Err(Error::InvalidRequest(format!(
                    "{name} buffer: {} bytes, {count} points need {bytes}",
                    buffer.size()
                )));
            }
        }
        fn binding(binding: u32, buffer: &wgpu::Buffer, size: u64) -> wgpu::BindGroupEntry<'_> {
            wgpu::BindGroupEntry {
                binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer,
                    offset: 0,
                    size: wgpu::BufferSize::new(size),
                }),
            }
        }
        let mut entries = vec![
            binding(BINDING_POINTS, points, point_bytes),
            binding(BINDING_OUT, out, out_bytes),
        ];
        if let Some(tables) = &self.tables {
            entries.push(wgpu::BindGroupEntry {
                binding: BINDING_TABLES,
                resource: tables.as_entire_binding(),
            });
        }
        let group = self
            .ctx
            .device()
            .create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("noisegraph point query"),
                layout: &self.layout,
                entries: &entries,
            });
        let workgroups = count.div_ceil(WORKGROUP);
        let max = self.ctx.limits().max_compute_workgroups_per_dimension;
        let x = workgroups.min(max);
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("noisegraph point query"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.dispatch_workgroups(x, workgroups.div_ceil(x), 1);
        Ok(())
    }
}

/// The query kernel: the exported module, then one invocation per point reading its split
/// position and writing the value (and gradient) through the precise form. The number of
/// points is the length of the bound output (the binding is sized to it).
fn kernel_source(module: &WgslModule, gradient: bool) -> String {
    let dims = module.dims as usize;
    let swizzle = ["", "", "xy", "xyz", "xyzw"][dims];
    let width = if gradient { 1 + dims } else { 1 };
    let n = KERNEL_NAME;
    let body = if gradient {
        let mut s = format!(
            "    let r = {n}_grad_precise(point.cell.{swizzle}, point.local.{swizzle});\n    {n}_query_out[i * {width}u] = r.value;\n"
        );
        for a in 0..dims {
            s.push_str(&format!(
                "    {n}_query_out[i * {width}u + {}u] = r.d[{a}];\n",
                a + 1
            ));
        }
        s
    } else {
        format!(
            "    {n}_query_out[i] = {n}_precise(point.cell.{swizzle}, point.local.{swizzle});\n"
        )
    };
    format!(
        "{}\n// ---- point query entry point\n\
         struct {n}_QueryPoint {{ cell: vec4<i32>, local: vec4<f32> }}\n\
         @group(0) @binding({BINDING_POINTS}) var<storage, read> {n}_query_points: array<{n}_QueryPoint>;\n\
         @group(0) @binding({BINDING_OUT}) var<storage, read_write> {n}_query_out: array<f32>;\n\
         @compute @workgroup_size({WORKGROUP})\n\
         fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {{\n\
         \x20   let i = id.x + id.y * groups.x * {WORKGROUP}u;\n\
         \x20   if (i >= arrayLength(&{n}_query_out) / {width}u) {{\n\
         \x20       return;\n\
         \x20   }}\n\
         \x20   let point = {n}_query_points[i];\n\
         {body}}}\n",
        module.source
    )
}
