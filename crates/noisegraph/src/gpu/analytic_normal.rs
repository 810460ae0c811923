//! [`AnalyticNormalPass`]: a normal map from the exact gradient of any differentiable graph
//! instead of central differences of a materialized field. The graph runs in gradient form
//! (every stage writes value and gradient, see [`CompiledGraph::new_gradient`]), then one
//! dispatch encodes each pixel's own gradient as a normal (`shaders/analytic_normal.wgsl`,
//! CPU twin `src/cpu/analytic_normal.rs`). Same formats, encodings, `height_scale` and
//! `spacing` as [`NormalMapPass`](super::NormalMapPass), so the two maps of one field are
//! comparable.

use std::sync::Arc;

use wgpu::util::DeviceExt;

use super::assemble::{
    analytic_normal_source, BINDING_GRADIENT, BINDING_OUT, BINDING_PARAMS, WORKGROUP,
};
use super::pipeline::{CachedPipeline, LayoutKey};
use super::requirements::DeviceRequirements;
use super::target::{on_device, TargetSpec, TargetView};
use super::{CompiledGraph, GpuContext, NormalMapOptions};
use crate::engine::run_cpu_gradient;
use crate::error::{Error, Result};
use crate::graph::{gradient_refusal, NoiseGraph, Plan, View};
use crate::twin::analytic_normal::run_analytic_normal;
use crate::twin::normal_map::NormalMapUniform;

/// What to do instead, appended to every refusal.
const USE_CENTRAL: &str =
    "use central differences instead (NormalMapPass on the baked field, or --normal-map central)";

/// The plan of `node` (the graph's output when `None`) for an analytic normal map, or an
/// error naming the node that cannot be differentiated and why (a family without a gradient
/// form in its dims, or a node sampling one), with the advice to use central differences.
/// Fractals, warps (of warps) and every point-wise node differentiate.
pub fn analytic_plan(graph: &NoiseGraph, node: Option<&str>) -> Result<Plan> {
    let plan = Plan::new(graph, node)?;
    match gradient_refusal(&plan, graph) {
        Some(why) => Err(Error::InvalidRequest(format!("{why}; {USE_CENTRAL}"))),
        None => Ok(plan),
    }
}

/// Checks a view for a normal map: 2D only.
fn check_normal_view(view: &View) -> Result<()> {
    view.check()?;
    if view.is_volume() {
        return Err(Error::InvalidRequest(format!(
            "analytic normal map: the view must be 2D (depth {})",
            view.size[2]
        )));
    }
    Ok(())
}

/// The encoding pass's uniform: the normal-map uniform with the spacing expressed in units of
/// the view's pixel size (`extent / size` of the whole view, for a tile), so that the slope
/// `height_scale * dh/dp / that ratio` is the one central differences over `spacing` approach.
fn analytic_uniform(options: &NormalMapOptions, view: &View) -> NormalMapUniform {
    let mut u = options.uniform([view.size[0], view.size[1]]);
    let full = view.full_size();
    let ratio = |a: usize| (options.spacing[a] as f64 * full[a] as f64 / view.extent[a]) as f32;
    u.scalars[1] = ratio(0);
    u.scalars[2] = ratio(1);
    u
}

/// The analytic normal map of `node` (the graph's output when `None`) over a 2D `view` on
/// the CPU path, the reference the GPU pass is tested against: one `[f32; 4]` per pixel, x
/// fastest, before any format quantization. `options.border` does not apply (no neighbour
/// is read).
///
/// ```
/// use noisegraph::gpu::{analytic_normal_map_cpu, NormalMapOptions};
/// use noisegraph::{NoiseGraph, View};
/// let graph = NoiseGraph::from_json(r#"{"seed": 3, "output": "f", "nodes": [
///     {"id": "n", "type": "perlin", "frequency": 4},
///     {"id": "f", "type": "fbm", "source": "n", "octaves": 5}]}"#)?;
/// let view = View::image(64, 64);
/// let normals = analytic_normal_map_cpu(&graph, None, &view, &NormalMapOptions::for_view(&view))?;
/// assert!(normals.iter().all(|n| (n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0).abs() < 1e-5));
/// # Ok::<(), noisegraph::Error>(())
/// ```
pub fn analytic_normal_map_cpu(
    graph: &NoiseGraph,
    node: Option<&str>,
    view: &View,
    options: &NormalMapOptions,
) -> Result<Vec<[f32; 4]>> {
    options.check()?;
    check_normal_view(view)?;
    let plan = analytic_plan(graph, node)?;
    let gradient = run_cpu_gradient(&plan, view, &Default::default())?;
    let mut out = vec![[0.0; 4]; view.pixel_count() as usize];
    run_analytic_normal(&analytic_uniform(options, view), &gradient.data, &mut out);
    Ok(out)
}

/// The analytic normal map of `node` over `view` on the GPU, read back: one
/// `[f32; 4]` per pixel as the texture holds it (Rgba8Unorm values in `[0, 1]`). Submits
/// and waits; a renderer records an [`AnalyticNormalPass`] instead.
pub fn analytic_normal_map(
    ctx: &Arc<GpuContext>,
    graph: &NoiseGraph,
    node: Option<&str>,
    view: View,
    options: NormalMapOptions,
) -> Result<Vec<[f32; 4]>> {
    let mut pass = AnalyticNormalPass::new(ctx, graph, node, view, options)?;
    let out = pass.create_output();
    let mut encoder = ctx.device().create_command_encoder(&Default::default());
    pass.record(&mut encoder, &out)?;
    ctx.queue().submit(Some(encoder.finish()));
    ctx.read_rgba(&out)
}

/// A recordable pass writing the normal map of a differentiable graph from its exact
/// gradient, for one 2D view: the graph's stages run in gradient form into a gradient
/// texture the pass owns (Rgba32Float: value, d/dx, d/dy, d/dz), then one dispatch turns each
/// pixel's gradient into a normal, reading no neighbour (the height is still written in `w`
/// of the float formats). Pipelines, buffers and textures are made once;
/// [`record`](Self::record) records into the caller's encoder and texture like
/// [`NormalMapPass::record`](super::NormalMapPass::record), and time, seed, origin and height
/// scale change through uniforms only.
///
/// `options.border` does not apply: no neighbour is read. Where the field has a crease
/// (ridged and billow octaves crossing 0, `abs` at 0, `min` / `max` ties, `clamp` at its
/// bounds) the slope is one side's (see [`crate::GradientField`]).
///
/// ```no_run
/// use std::sync::Arc;
/// use noisegraph::gpu::{AnalyticNormalPass, NormalMapOptions};
/// use noisegraph::{GpuContext, NoiseGraph, View};
/// # fn f(ctx: Arc<GpuContext>, graph: NoiseGraph) -> noisegraph::Result<()> {
/// let view = View::image(1024, 1024);
/// let mut normals =
///     AnalyticNormalPass::new(&ctx, &graph, None, view, NormalMapOptions::for_view(&view))?;
/// let texture = normals.create_output(); // Rgba16Float: (nx, ny, nz, height)
/// let mut encoder = ctx.device().create_command_encoder(&Default::default());
/// normals.record(&mut encoder, &texture)?;
/// ctx.queue().submit(Some(encoder.finish()));
/// # Ok(()) }
/// ```
pub struct AnalyticNormalPass {
    ctx: Arc<GpuContext>,
    graph: CompiledGraph,
    /// The graph's target: its gradient field.
    gradient: wgpu::Texture,
    options: NormalMapOptions,
    pipeline: Arc<CachedPipeline>,
    normal_uniform: wgpu::Buffer,
    dirty: bool,
    /// The last output bound, and its bind group.
    binding: Option<(wgpu::Texture, wgpu::BindGroup)>,
}

impl AnalyticNormalPass {
    /// The usage [`AnalyticNormalPass::create_output`] gives.
    pub const OUTPUT_USAGE: wgpu::TextureUsages = super::NormalMapPass::OUTPUT_USAGE;

    /// Compiles (or fetches) the pass for `node` (the graph's output when `None`) over a 2D
    /// `view`. Errors, before anything is created, when the node cannot be differentiated
    /// analytically (see [`analytic_plan`]: the message names the node and suggests central
    /// differences), for a volume view, bad options or a device short of a limit.
    pub fn new(
        ctx: &Arc<GpuContext>,
        graph: &NoiseGraph,
        node: Option<&str>,
        view: View,
        options: NormalMapOptions,
    ) -> Result<Self> {
        options.check()?;
        check_normal_view(&view)?;
        analytic_plan(graph, node)?;
        ctx.check_requirements(&DeviceRequirements::for_texture_pass(&view, 1))?;
        let compiled = CompiledGraph::new_gradient(ctx, graph, node, view)?;
        let gradient = compiled.create_target();
        let source = analytic_normal_source(options.format.wgsl_name());
        let pipeline = ctx.pipelines().get(
            ctx.device(),
            &source,
            LayoutKey::AnalyticNormal {
                format: options.format.texture_format(),
            },
        )?;
        let normal_uniform = ctx
            .device()
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("noisegraph analytic normal"),
                contents: bytemuck::bytes_of(&analytic_uniform(&options, &view)),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            });
        Ok(AnalyticNormalPass {
            ctx: ctx.clone(),
            graph: compiled,
            gradient,
            options,
            pipeline,
            normal_uniform,
            dirty: false,
            binding: None,
        })
    }

    /// The options in effect.
    pub fn options(&self) -> &NormalMapOptions {
        &self.options
    }

    /// The view (its origin follows [`set_origin`](Self::set_origin)).
    pub fn view(&self) -> &View {
        self.graph.view()
    }

    /// The graph compiled in gradient form that the pass runs (its per-frame setters, such
    /// as [`CompiledGraph::set_node_param`], apply to the next [`record`](Self::record)).
    pub fn graph_mut(&mut self) -> &mut CompiledGraph {
        &mut self.graph
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

    /// Sets the time: added to the `z` of every 3D family node and the `w` of every 4D one
    /// (2D nodes do not move), as [`CompiledGraph::set_time`] does.
    pub fn set_time(&mut self, time: f64) -> Result<()> {
        self.graph.set_time(time)
    }

    /// Sets the graph seed (each node adds its `seed_offset`, each octave its index). Every
    /// `u32` is a valid seed, so this never fails; it returns a `Result` like the other
    /// setters.
    pub fn set_seed(&mut self, seed: u32) -> Result<()> {
        self.graph.set_seed(seed)
    }

    /// Moves the view: pixel (x, y) samples `origin + (x, y, 0) * extent / size`.
    pub fn set_origin(&mut self, origin: [f64; 3]) -> Result<()> {
        self.graph.set_origin(origin)
    }

    /// Creates a texture the pass can write: the options' format, the view's size,
    /// [`OUTPUT_USAGE`](Self::OUTPUT_USAGE).
    pub fn create_output(&self) -> wgpu::Texture {
        let [w, h, _] = self.graph.view().size;
        super::normal_map::create_normal_texture(
            &self.ctx,
            "noisegraph analytic normal map",
            [w, h],
            self.options.format,
            Self::OUTPUT_USAGE,
        )
    }

    /// Records the graph's gradient stages and the encoding pass writing `normals` (the
    /// options' format, STORAGE_BINDING, the view's size), checked before anything is
    /// recorded. Nothing is submitted.
    pub fn record(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        normals: &wgpu::Texture,
    ) -> Result<()> {
        let view = *self.graph.view();
        let [w, h, _] = view.size;
        TargetSpec {
            role: "normal map",
            formats: &[self.options.format.texture_format()],
            dimension: wgpu::TextureDimension::D2,
            size: Some([w, h, 1]),
            usage: wgpu::TextureUsages::STORAGE_BINDING,
        }
        .check(&TargetView::new(normals))?;
        // Checked on every call: wgpu compares textures by id within their own instance.
        let textures = [("normal map", normals)];
        on_device(self.ctx.device(), &textures, || ())?;
        self.graph.record(encoder, &self.gradient)?;
        if self.dirty {
            self.ctx.queue().write_buffer(
                &self.normal_uniform,
                0,
                bytemuck::bytes_of(&analytic_uniform(&self.options, &view)),
            );
            self.dirty = false;
        }
        if self.binding.as_ref().map(|(t, _)| t) != Some(normals) {
            let out_view = TargetView::new(normals).create_view("noisegraph analytic normal map");
            let gradient_view = self
                .gradient
                .create_view(&wgpu::TextureViewDescriptor::default());
            let group = self
                .ctx
                .device()
                .create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("noisegraph analytic normal map"),
                    layout: &self.pipeline.layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: BINDING_PARAMS,
                            resource: self.normal_uniform.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: BINDING_OUT,
                            resource: wgpu::BindingResource::TextureView(&out_view),
                        },
                        wgpu::BindGroupEntry {
                            binding: BINDING_GRADIENT,
                            resource: wgpu::BindingResource::TextureView(&gradient_view),
                        },
                    ],
                });
            self.binding = Some((normals.clone(), group));
        }
        let group = &self.binding.as_ref().expect("bound above").1;
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("noisegraph analytic normal map"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline.pipeline);
        pass.set_bind_group(0, group, &[]);
        pass.dispatch_workgroups(w.div_ceil(WORKGROUP[0]), h.div_ceil(WORKGROUP[1]), 1);
        Ok(())
    }

    /// Reads an output back (submits a copy and waits): for tests and bakes.
    pub fn read_output(&self, normals: &wgpu::Texture) -> Result<Vec<[f32; 4]>> {
        self.ctx.read_rgba(normals)
    }
}
