//! [`AnalyticNormalPass`]: a normal map computed from the analytic gradient of a generator
//! chain (a family node, or fBm / ridged / billow over one) instead of central differences of
//! a materialized field (`shaders/analytic_normal.wgsl`, CPU twin
//! `src/cpu/analytic_normal.rs`). Same formats, encodings, `height_scale` and `spacing` as
//! [`NormalMapPass`](super::NormalMapPass), so the two maps of one field are comparable.

use std::sync::Arc;

use wgpu::util::DeviceExt;

use super::assemble::{
    analytic_normal_source, BINDING_NORMAL_PARAMS, BINDING_OUT, BINDING_PARAMS, WORKGROUP,
};
use super::pipeline::{CachedPipeline, LayoutKey};
use super::requirements::DeviceRequirements;
use super::target::{on_device, TargetSpec, TargetView};
use super::{GpuContext, NormalMapOptions};
use crate::cpu::analytic_normal::run_analytic_normal;
use crate::error::{Error, Result};
use crate::family::GradSampler;
use crate::graph::{GenerateStage, NodeKind, NoiseGraph, Plan, StageKind, StageUniform, View};

/// What to do instead, appended to every refusal.
const USE_CENTRAL: &str =
    "use central differences instead (NormalMapPass on the baked field, or --normal-map central)";

/// The generator chain whose analytic gradient gives the normal map of `node` (the graph's
/// output when `None`), or an error naming the node and the reason it cannot be
/// differentiated analytically: a warp (its displacement fields would need gradients too), a
/// point-wise node, a family without a gradient variant in its dims (4D included).
pub fn analytic_chain(graph: &NoiseGraph, node: Option<&str>) -> Result<GenerateStage> {
    let plan = Plan::new(graph, node)?;
    let stage = &plan.stages[plan.target];
    let id = stage.node.as_str();
    let refuse = |why: String| {
        Error::InvalidRequest(format!(
            "node '{id}': no analytic gradient: {why}; {USE_CENTRAL}"
        ))
    };
    let chain = match &stage.kind {
        StageKind::Combine { op, .. } => {
            return Err(refuse(format!(
                "it is a point-wise '{}' node over materialized fields",
                op.name()
            )))
        }
        StageKind::Generate(g) => g.as_ref(),
    };
    if !chain.displace.is_empty() {
        return Err(refuse(
            "it is a warp, whose displacement fields move the sample point".into(),
        ));
    }
    let family_id = match graph.node(id).map(|n| &n.kind) {
        Some(NodeKind::Fractal(f)) => f.source.as_str(),
        _ => id,
    };
    let dims = chain.dims();
    let name = chain.family.name();
    if chain
        .family
        .wgsl_grad_call(dims, &chain.source.params)
        .is_none()
    {
        let reason = chain.family.no_gradient_reason(dims, &chain.source.params);
        let why = if family_id == id {
            reason
        } else {
            format!("its source '{family_id}' is family '{name}': {reason}")
        };
        return Err(refuse(why));
    }
    if chain.aux_data(plan.seed).is_some() {
        return Err(refuse(format!(
            "family '{name}' reads an auxiliary table the analytic pass does not bind"
        )));
    }
    Ok(chain.clone())
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

/// The chain's uniforms at `time` (added to the z of a 3D family, the w of a 4D one, as
/// [`CompiledGraph::set_time`](super::CompiledGraph::set_time) does): every octave in one pass.
fn chain_uniform(chain: &GenerateStage, seed: u32, view: &View, time: f64) -> StageUniform {
    let mut timed = chain.clone();
    match timed.source.dims {
        3 => timed.source.z += time,
        4 => timed.source.w += time,
        _ => {}
    }
    timed.uniforms(seed, view)
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
    let chain = analytic_chain(graph, node)?;
    let dims = chain.dims();
    let params = &chain.source.params;
    let sample: GradSampler = chain
        .family
        .cpu_grad_sampler(
            dims,
            params,
            chain.family.uniforms(dims, params),
            Arc::from(Vec::new()),
        )
        .ok_or_else(|| {
            Error::InvalidRequest(format!(
                "internal: family '{}' has a WGSL gradient but no CPU twin",
                chain.family.name()
            ))
        })?;
    let u = chain_uniform(&chain, graph.seed, view, 0.0);
    let mut out = vec![[0.0; 4]; view.pixel_count() as usize];
    run_analytic_normal(
        &u,
        &options.uniform([view.size[0], view.size[1]]),
        &sample,
        &mut out,
    );
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

/// A recordable pass writing the normal map of a generator chain from its analytic gradient,
/// for one 2D view: one dispatch evaluates every octave's value and derivative per pixel, so
/// no height field is materialized and no neighbour is read (the height is still written in
/// `w` of the float formats). The pipeline and uniform buffers are made once;
/// [`record`](Self::record) records into the caller's encoder and texture like
/// [`NormalMapPass::record`](super::NormalMapPass::record), and time, seed, origin and height
/// scale change through uniforms only.
///
/// Every octave runs in one dispatch (no split across passes), at most 32 octaves.
/// `options.border` does not apply: no neighbour is read. Ridged and billow have a crease
/// where an octave crosses 0; there the slope of that octave is taken as 0.
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
    chain: GenerateStage,
    seed: u32,
    view: View,
    time: f64,
    options: NormalMapOptions,
    pipeline: Arc<CachedPipeline>,
    stage_uniform: wgpu::Buffer,
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
    /// analytically (see [`analytic_chain`]: the message names the node and suggests central
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
        let chain = analytic_chain(graph, node)?;
        view.check()?;
        ctx.check_requirements(&DeviceRequirements::for_texture_pass(&view, 0))?;
        let source = analytic_normal_source(&chain, options.format.wgsl_name())
            .expect("analytic_chain checked the gradient variant");
        let pipeline = ctx.pipelines().get(
            ctx.device(),
            &source,
            LayoutKey::AnalyticNormal {
                format: options.format.texture_format(),
            },
        )?;
        let u = chain_uniform(&chain, graph.seed, &view, 0.0);
        let buffer = |label: &str, bytes: &[u8]| {
            ctx.device()
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(label),
                    contents: bytes,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                })
        };
        let stage_uniform = buffer("noisegraph analytic normal chain", bytemuck::bytes_of(&u));
        let normal_uniform = buffer(
            "noisegraph analytic normal",
            bytemuck::bytes_of(&options.uniform([view.size[0], view.size[1]])),
        );
        Ok(AnalyticNormalPass {
            ctx: ctx.clone(),
            chain,
            seed: graph.seed,
            view,
            time: 0.0,
            options,
            pipeline,
            stage_uniform,
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
        &self.view
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

    /// Sets the time: added to the `z` of a 3D family node, the `w` of a 4D one (2D nodes do
    /// not move), as
    /// [`CompiledGraph::set_time`](super::CompiledGraph::set_time) does.
    pub fn set_time(&mut self, time: f64) -> Result<()> {
        if !time.is_finite() {
            return Err(Error::InvalidRequest(format!(
                "time must be finite (got {time})"
            )));
        }
        self.time = time;
        self.dirty = true;
        Ok(())
    }

    /// Sets the graph seed (each node adds its `seed_offset`, each octave its index). Every
    /// `u32` is a valid seed, so this never fails; it returns a `Result` like the other
    /// setters.
    pub fn set_seed(&mut self, seed: u32) -> Result<()> {
        self.seed = seed;
        self.dirty = true;
        Ok(())
    }

    /// Moves the view: pixel (x, y) samples `origin + (x, y, 0) * extent / size`.
    pub fn set_origin(&mut self, origin: [f64; 3]) -> Result<()> {
        if origin.iter().any(|v| !v.is_finite()) {
            return Err(Error::InvalidRequest(format!(
                "origin must be finite (got {origin:?})"
            )));
        }
        self.view.origin = origin;
        self.dirty = true;
        Ok(())
    }

    /// Creates a texture the pass can write: the options' format, the view's size,
    /// [`OUTPUT_USAGE`](Self::OUTPUT_USAGE).
    pub fn create_output(&self) -> wgpu::Texture {
        super::normal_map::create_normal_texture(
            &self.ctx,
            "noisegraph analytic normal map",
            [self.view.size[0], self.view.size[1]],
            self.options.format,
            Self::OUTPUT_USAGE,
        )
    }

    /// Records the pass writing `normals` (the options' format, STORAGE_BINDING, the view's
    /// size), checked before anything is recorded. Nothing is submitted.
    pub fn record(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        normals: &wgpu::Texture,
    ) -> Result<()> {
        let [w, h, _] = self.view.size;
        TargetSpec {
            role: "normal map",
            formats: &[self.options.format.texture_format()],
            dimension: wgpu::TextureDimension::D2,
            size: Some([w, h, 1]),
            usage: wgpu::TextureUsages::STORAGE_BINDING,
        }
        .check(&TargetView::new(normals))?;
        if self.dirty {
            let u = chain_uniform(&self.chain, self.seed, &self.view, self.time);
            let queue = self.ctx.queue();
            queue.write_buffer(&self.stage_uniform, 0, bytemuck::bytes_of(&u));
            queue.write_buffer(
                &self.normal_uniform,
                0,
                bytemuck::bytes_of(&self.options.uniform([w, h])),
            );
            self.dirty = false;
        }
        // Checked on every call: wgpu compares textures by id within their own instance.
        let textures = [("normal map", normals)];
        if self.binding.as_ref().map(|(t, _)| t) == Some(normals) {
            on_device(self.ctx.device(), &textures, || ())?;
        } else {
            let device = self.ctx.device();
            let group = on_device(device, &textures, || {
                let view = TargetView::new(normals).create_view("noisegraph analytic normal map");
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("noisegraph analytic normal map"),
                    layout: &self.pipeline.layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: BINDING_PARAMS,
                            resource: self.stage_uniform.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: BINDING_OUT,
                            resource: wgpu::BindingResource::TextureView(&view),
                        },
                        wgpu::BindGroupEntry {
                            binding: BINDING_NORMAL_PARAMS,
                            resource: self.normal_uniform.as_entire_binding(),
                        },
                    ],
                })
            })?;
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
