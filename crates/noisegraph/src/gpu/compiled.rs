//! [`CompiledGraph`]: a graph compiled once for a fixed view on a caller's device, whose
//! passes are recorded into the caller's command encoder frame after frame, with time, seed,
//! frequency, amplitude, origin and a mapping's fields changed through uniform buffers only.

use std::sync::Arc;

use super::pipeline::form_format;
use super::readback::read_texels;
use super::requirements::DeviceRequirements;
use super::stages::texture_view;
use super::stages::{
    dispatch_size, inline_uniforms, pass_uniforms, record_stage, PreparedStage, StageBuffers,
};
use super::target::{on_device, TargetSpec, TargetView};
use super::{GpuContext, RunOptions, Specialize};
use crate::error::{Error, Result};
use crate::field::{Field, FieldForm, GradientField};
use crate::graph::position::PositionTable;
use crate::graph::{
    gradient_refusal, Displacement, GenerateStage, NodeKind, NoiseGraph, Plan, Stage, StageKind,
    View,
};

/// A per-node number that a frame may change without recompiling (see
/// [`CompiledGraph::set_node_param`]). Each applies to one kind of node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NodeParam {
    /// Family node: the same frequency on every axis (greater than 0).
    Frequency(f64),
    /// Family node: frequency per axis x, y, z, w (each greater than 0).
    FrequencyPerAxis([f64; 4]),
    /// Family or fractal node: added to the graph seed.
    SeedOffset(i64),
    /// Family or fractal node: shift of the coordinates, per axis x, y, z, w.
    Offset([f64; 4]),
    /// Family node: the slice coordinate of 3D / 4D noise.
    Z(f64),
    /// Family node: the 4th coordinate of 4D noise.
    W(f64),
    /// Fractal node: frequency ratio between octaves (greater than 0).
    Lacunarity(f64),
    /// Fractal node: amplitude ratio between octaves.
    Gain(f64),
    /// Warp node: how far the displacement fields move the sample point.
    Amplitude(f64),
    /// `transform` of a 2D source: the rotation in degrees.
    Rotate(f64),
    /// `transform` of a 3D or 4D source: the rotation angle about its `axis`, in degrees.
    Angle(f64),
    /// `transform`: the translation per axis x, y, z, w (the source's dims are used).
    Translate([f64; 4]),
    /// `transform`: the scale per axis x, y, z, w (the source's dims are used).
    Scale([f64; 4]),
    /// `sphere`, `cylinder` or `cube_face`: the radius.
    Radius(f64),
    /// `torus`: the first circle's radius.
    RadiusX(f64),
    /// `torus`: the second circle's radius.
    RadiusY(f64),
}

impl NodeParam {
    /// The JSON field the parameter sets.
    pub fn field(&self) -> &'static str {
        match self {
            NodeParam::Frequency(_) | NodeParam::FrequencyPerAxis(_) => "frequency",
            NodeParam::SeedOffset(_) => "seed_offset",
            NodeParam::Offset(_) => "offset",
            NodeParam::Z(_) => "z",
            NodeParam::W(_) => "w",
            NodeParam::Lacunarity(_) => "lacunarity",
            NodeParam::Gain(_) => "gain",
            NodeParam::Amplitude(_) => "amplitude",
            NodeParam::Rotate(_) => "rotate",
            NodeParam::Angle(_) => "angle",
            NodeParam::Translate(_) => "translate",
            NodeParam::Scale(_) => "scale",
            NodeParam::Radius(_) => "radius",
            NodeParam::RadiusX(_) => "radius_x",
            NodeParam::RadiusY(_) => "radius_y",
        }
    }

    /// Whether the parameter is a mapping node's (it changes the stages' composed maps).
    fn is_mapping(&self) -> bool {
        matches!(
            self,
            NodeParam::Rotate(_)
                | NodeParam::Angle(_)
                | NodeParam::Translate(_)
                | NodeParam::Scale(_)
                | NodeParam::Radius(_)
                | NodeParam::RadiusX(_)
                | NodeParam::RadiusY(_)
        )
    }

    fn check(&self, node: &str) -> Result<()> {
        let numbers: Vec<f64> = match *self {
            NodeParam::Frequency(f) => vec![f],
            NodeParam::FrequencyPerAxis(f)
            | NodeParam::Offset(f)
            | NodeParam::Translate(f)
            | NodeParam::Scale(f) => f.to_vec(),
            NodeParam::SeedOffset(_) => vec![],
            NodeParam::Z(v)
            | NodeParam::W(v)
            | NodeParam::Lacunarity(v)
            | NodeParam::Gain(v)
            | NodeParam::Amplitude(v)
            | NodeParam::Rotate(v)
            | NodeParam::Angle(v)
            | NodeParam::Radius(v)
            | NodeParam::RadiusX(v)
            | NodeParam::RadiusY(v) => vec![v],
        };
        let positive = matches!(
            self,
            NodeParam::Frequency(_) | NodeParam::FrequencyPerAxis(_) | NodeParam::Lacunarity(_)
        );
        for v in numbers {
            if !v.is_finite() || (positive && v <= 0.0) {
                return Err(Error::InvalidRequest(format!(
                    "node '{node}', field '{}': must be {} (got {v})",
                    self.field(),
                    if positive {
                        "a finite number greater than 0"
                    } else {
                        "finite"
                    }
                )));
            }
        }
        Ok(())
    }
}

/// The ids a generate stage evaluates: the materialized node, then its warp source or
/// fractal, down to the family node.
fn chain_ids(graph: &NoiseGraph, id: &str) -> Vec<String> {
    let mut ids = vec![id.to_string()];
    let mut current = id;
    while let Some(node) = graph.node(current) {
        current = match &node.kind {
            NodeKind::Warp(w) => &w.source,
            NodeKind::Fractal(f) => &f.source,
            _ => break,
        };
        if ids.iter().any(|i| i == current) {
            break;
        }
        ids.push(current.to_string());
    }
    ids
}

/// The uniform bytes of one stage: one per octave pass, then (axis, bytes) per inline
/// displacement chain.
struct StageUniforms {
    passes: Vec<Vec<u8>>,
    inline: Vec<(u32, Vec<u8>)>,
}

/// Sets one per-frame number in a generator chain evaluating the node of kind `kind`.
fn apply_param(g: &mut GenerateStage, kind: &NodeKind, param: NodeParam) {
    match (kind, param) {
        (NodeKind::Family(_), p) => {
            let src = &mut g.source;
            match p {
                NodeParam::Frequency(f) => src.frequency = [f; 4],
                NodeParam::FrequencyPerAxis(f) => src.frequency = f,
                NodeParam::SeedOffset(s) => src.seed_offset = s,
                NodeParam::Offset(o) => src.offset = o,
                NodeParam::Z(z) => src.z = z,
                NodeParam::W(w) => src.w = w,
                _ => unreachable!("checked above"),
            }
        }
        (NodeKind::Fractal(_), p) => {
            let f = g
                .fractal
                .as_mut()
                .expect("a fractal node's stage has a fractal");
            match p {
                NodeParam::SeedOffset(s) => f.seed_offset = s,
                NodeParam::Offset(o) => f.offset = o,
                NodeParam::Lacunarity(l) => f.lacunarity = l,
                NodeParam::Gain(v) => f.gain = v,
                _ => unreachable!("checked above"),
            }
        }
        (NodeKind::Warp(_), NodeParam::Amplitude(a)) => g.amplitude = a,
        _ => unreachable!("checked above"),
    }
}

/// How many targets a [`CompiledGraph`] keeps bind groups for.
const MAX_TARGET_BINDINGS: usize = 4;

/// A graph compiled for one view on a [`GpuContext`] (typically one made from a renderer's
/// own device with [`GpuContext::from_device`]): its pipelines, uniform buffers,
/// intermediate textures and bind groups are created once; [`CompiledGraph::record`] then
/// only records compute passes into the caller's encoder, writing the caller's texture.
/// Nothing is submitted and nothing waits.
///
/// Per-frame changes ([`set_time`](Self::set_time), [`set_seed`](Self::set_seed),
/// [`set_origin`](Self::set_origin), [`set_node_param`](Self::set_node_param)) recompute the
/// stage uniforms on the host and write them with `Queue::write_buffer` at the next
/// `record`; no pipeline is created. wgpu executes queued buffer writes before the command
/// buffers of the next `Queue::submit`, so the values a frame sees are those of its last
/// `record` before that submit: record one frame of a given `CompiledGraph` per submit (use
/// two `CompiledGraph`s for two differently parameterised results in one submission).
///
/// To sample the R32Float output with a linear filter, the caller's device needs
/// `wgpu::Features::FLOAT32_FILTERABLE` (see [`GpuContext::float32_filterable`]); otherwise
/// record a [`super::NormalMapPass`] with [`super::NormalMapFormat::Rgba16Float`], whose `w`
/// channel holds the height and which every device filters.
///
/// The CPU reference of the current frame is [`cpu_reference`](Self::cpu_reference), which
/// runs [`plan`](Self::plan) (the graph with every per-frame parameter applied, time
/// included) on [`view`](Self::view) through the CPU path.
///
/// ```no_run
/// use std::sync::Arc;
/// use noisegraph::{CompiledGraph, GpuContext, NoiseGraph, View};
/// # fn frame(device: wgpu::Device, queue: wgpu::Queue) -> noisegraph::Result<()> {
/// // The renderer's own device and queue (wgpu handles are cheap clones).
/// let ctx = Arc::new(GpuContext::from_device(device.clone(), queue.clone()));
/// let graph = NoiseGraph::from_json(r#"{"seed": 7, "output": "n", "nodes": [
///     {"id": "n", "type": "perlin", "dims": 3, "frequency": 8}]}"#)?;
/// let mut noise = CompiledGraph::new(&ctx, &graph, None, View::image(512, 512))?;
/// let height = noise.create_target(); // R32Float, STORAGE_BINDING | TEXTURE_BINDING | COPY_SRC
/// for frame in 0..3 {
///     noise.set_time(frame as f64 * 0.02)?; // added to the z of each 3D node
///     let mut encoder = device.create_command_encoder(&Default::default());
///     noise.record(&mut encoder, &height)?;
///     // ... the renderer's own passes sampling `height` ...
///     queue.submit(Some(encoder.finish()));
/// }
/// # Ok(()) }
/// ```
pub struct CompiledGraph {
    ctx: Arc<GpuContext>,
    /// The graph, its mapping nodes' fields as last set (other per-frame numbers live in
    /// `base` alone).
    graph: NoiseGraph,
    /// The node compiled (the graph's output when `None`).
    node: Option<String>,
    /// The plan with the per-frame parameters applied except the time.
    base: Plan,
    /// `base` with the time applied: what the uniforms hold and [`plan`](Self::plan) returns.
    plan: Plan,
    view: View,
    time: f64,
    /// Per stage, the node ids its generator chain evaluates (empty for point-wise stages).
    chains: Vec<Vec<String>>,
    prepared: Vec<PreparedStage>,
    buffers: Vec<StageBuffers>,
    /// Fields of the stages before the target, which the target and each other read.
    fields: Vec<wgpu::Texture>,
    /// Bind groups of the stages before the target.
    bind_groups: Vec<Vec<wgpu::BindGroup>>,
    /// The caller's last targets (texture, mip level, array layer) and the target stage's
    /// bind groups for each, most recent first.
    target_bindings: Vec<(wgpu::Texture, u32, u32, Vec<wgpu::BindGroup>)>,
    uniforms_dirty: bool,
    aux_dirty: bool,
    /// What every stage writes: values (R32Float) or values with gradients (Rgba32Float).
    form: FieldForm,
}

// Renderers move and share these across threads.
const _: fn() = || {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CompiledGraph>();
    assert_send_sync::<GpuContext>();
};

impl CompiledGraph {
    /// The usage [`CompiledGraph::create_target`] gives: written as storage, sampled by the
    /// renderer, copied out for readback.
    pub const TARGET_USAGE: wgpu::TextureUsages = wgpu::TextureUsages::STORAGE_BINDING
        .union(wgpu::TextureUsages::TEXTURE_BINDING)
        .union(wgpu::TextureUsages::COPY_SRC);

    /// Plans `node` (the graph's output when `None`) for `view`, checks the device's limits,
    /// compiles (or fetches from the context's cache) every pipeline and creates every
    /// buffer, texture and bind group except those bound to the caller's target. Errors name
    /// the missing limit or the bad view before anything is created.
    pub fn new(
        ctx: &Arc<GpuContext>,
        graph: &NoiseGraph,
        node: Option<&str>,
        view: View,
    ) -> Result<Self> {
        Self::with_options(ctx, graph, node, view, &RunOptions::default())
    }

    /// [`CompiledGraph::new`] with run options: `octave_budget` decides how octaves split
    /// across passes (`poison` does not apply: the caller owns the target; nor does
    /// `specialize`: a compiled graph's numbers change per frame, so its kernels read them
    /// from uniforms).
    pub fn with_options(
        ctx: &Arc<GpuContext>,
        graph: &NoiseGraph,
        node: Option<&str>,
        view: View,
        options: &RunOptions,
    ) -> Result<Self> {
        Self::compile(ctx, graph, node, view, options, FieldForm::Value)
    }

    /// [`CompiledGraph::new`] in gradient form: every stage computes its value with its exact
    /// gradient, and [`record`](Self::record) writes `(value, d/dx, d/dy, d/dz)` into an
    /// Rgba32Float target (see [`create_target`](Self::create_target)), the derivatives with
    /// respect to the view coordinates. A node that cannot be differentiated (a family
    /// without a gradient form, or a node reading one) is refused by name.
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use noisegraph::{CompiledGraph, GpuContext, NoiseGraph, View};
    /// # fn frame(ctx: Arc<GpuContext>, graph: NoiseGraph) -> noisegraph::Result<()> {
    /// let mut noise = CompiledGraph::new_gradient(&ctx, &graph, None, View::image(512, 512))?;
    /// let slopes = noise.create_target(); // Rgba32Float: value, d/dx, d/dy, d/dz
    /// let mut encoder = ctx.device().create_command_encoder(&Default::default());
    /// noise.record(&mut encoder, &slopes)?;
    /// ctx.queue().submit(Some(encoder.finish()));
    /// # Ok(()) }
    /// ```
    pub fn new_gradient(
        ctx: &Arc<GpuContext>,
        graph: &NoiseGraph,
        node: Option<&str>,
        view: View,
    ) -> Result<Self> {
        Self::gradient_with_options(ctx, graph, node, view, &RunOptions::default())
    }

    /// [`CompiledGraph::new_gradient`] with run options (as [`CompiledGraph::with_options`]).
    pub fn gradient_with_options(
        ctx: &Arc<GpuContext>,
        graph: &NoiseGraph,
        node: Option<&str>,
        view: View,
        options: &RunOptions,
    ) -> Result<Self> {
        Self::compile(ctx, graph, node, view, options, FieldForm::Gradient)
    }

    fn compile(
        ctx: &Arc<GpuContext>,
        graph: &NoiseGraph,
        node: Option<&str>,
        view: View,
        options: &RunOptions,
        form: FieldForm,
    ) -> Result<Self> {
        let plan = Plan::new(graph, node)?;
        if form == FieldForm::Gradient {
            if let Some(why) = gradient_refusal(&plan, graph) {
                return Err(Error::InvalidRequest(why));
            }
        }
        if plan.target + 1 != plan.stages.len() {
            return Err(Error::InvalidRequest(format!(
                "internal: the target stage '{}' is not the last of the plan",
                plan.stages[plan.target].node
            )));
        }
        // Per-frame changes travel in uniforms, so the kernels must not compile them in.
        let prepared =
            ctx.prepare_plan(&plan, &view, options.octave_budget, Specialize::Never, form)?;
        let chains = plan
            .stages
            .iter()
            .map(|s| match s.kind {
                StageKind::Generate(_) => chain_ids(graph, &s.node),
                StageKind::Combine { .. } => Vec::new(),
            })
            .collect();
        let mut compiled = CompiledGraph {
            ctx: ctx.clone(),
            graph: graph.clone(),
            node: node.map(str::to_string),
            base: plan.clone(),
            plan,
            view,
            time: 0.0,
            chains,
            prepared,
            buffers: Vec::new(),
            fields: Vec::new(),
            bind_groups: Vec::new(),
            target_bindings: Vec::new(),
            uniforms_dirty: false,
            aux_dirty: false,
            form,
        };
        let uniforms = compiled.all_uniforms();
        for (i, stage) in compiled.plan.stages.iter().enumerate() {
            let prepared = &compiled.prepared[i];
            let buffers = ctx.create_stage_buffers(
                stage,
                prepared,
                &uniforms[i].passes,
                &uniforms[i].inline,
                &view,
            );
            if i != compiled.plan.target {
                let out = ctx.create_field_texture(&view, &stage.node, form);
                let groups = ctx.bind_stage(
                    stage,
                    prepared,
                    &buffers,
                    &texture_view(&out),
                    &compiled.fields,
                );
                compiled.fields.push(out);
                compiled.bind_groups.push(groups);
            }
            compiled.buffers.push(buffers);
        }
        Ok(compiled)
    }

    /// The view the graph was compiled for (its origin follows [`set_origin`](Self::set_origin)).
    pub fn view(&self) -> &View {
        &self.view
    }

    /// The plan the next [`record`](Self::record) runs: the graph with every per-frame
    /// parameter applied (seed, node parameters, and the time added to each 3D node's `z`
    /// and each 4D node's `w`). Run on [`view`](Self::view) through the CPU path, it gives
    /// the frame's reference ([`cpu_reference`](Self::cpu_reference)).
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The CPU reference of the current frame: [`plan`](Self::plan) on [`view`](Self::view)
    /// through [`crate::engine::run_cpu`]. The GPU result of the next `record` agrees with it
    /// within [`crate::parity::PARITY_TOLERANCE`].
    pub fn cpu_reference(&self) -> Result<Field> {
        crate::engine::run_cpu(&self.plan, &self.view, &RunOptions::default())
    }

    /// [`cpu_reference`](Self::cpu_reference) in gradient form: the current frame's values
    /// and gradients through [`crate::engine::run_cpu_gradient`], which a graph compiled
    /// with [`new_gradient`](Self::new_gradient) agrees with (within 1e-4 of the value and of
    /// the field's largest gradient, tests/gradient.rs).
    pub fn cpu_gradient_reference(&self) -> Result<GradientField> {
        crate::engine::run_cpu_gradient(&self.plan, &self.view, &RunOptions::default())
    }

    /// What the graph needs from a device to run on `view` (limits; no optional feature),
    /// computed without a device: a renderer creating its own device asks for them there
    /// (see [`DeviceRequirements`]). [`CompiledGraph::new`] checks the same needs against its
    /// context's device and names each one that is short ([`Error::DeviceLimits`]).
    pub fn requirements(
        graph: &NoiseGraph,
        node: Option<&str>,
        view: &View,
        options: &RunOptions,
    ) -> Result<DeviceRequirements> {
        view.check()?;
        let plan = Plan::new(graph, node)?;
        plan.check_view(view)?;
        Ok(DeviceRequirements::for_plan(
            &plan,
            view,
            options.octave_budget,
        ))
    }

    /// The context the graph was compiled on.
    pub fn context(&self) -> &Arc<GpuContext> {
        &self.ctx
    }

    /// What the graph writes: values, or values with gradients ([`CompiledGraph::new_gradient`]).
    pub fn form(&self) -> FieldForm {
        self.form
    }

    /// The format of the target [`record`](Self::record) writes: R32Float, or Rgba32Float in
    /// gradient form.
    pub fn target_format(&self) -> wgpu::TextureFormat {
        form_format(self.form)
    }

    /// Format, dimension, size and usage of the texture [`record`](Self::record) writes.
    pub fn target_descriptor(&self) -> wgpu::TextureDescriptor<'static> {
        wgpu::TextureDescriptor {
            label: Some("noisegraph target"),
            size: wgpu::Extent3d {
                width: self.view.size[0],
                height: self.view.size[1],
                depth_or_array_layers: self.view.size[2],
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: self.target_dimension(),
            format: self.target_format(),
            usage: Self::TARGET_USAGE,
            view_formats: &[],
        }
    }

    /// Creates a texture [`record`](Self::record) can write: R32Float (Rgba32Float in
    /// gradient form), the view's size, [`TARGET_USAGE`](Self::TARGET_USAGE).
    pub fn create_target(&self) -> wgpu::Texture {
        self.ctx.device().create_texture(&self.target_descriptor())
    }

    fn target_dimension(&self) -> wgpu::TextureDimension {
        if self.view.is_volume() {
            wgpu::TextureDimension::D3
        } else {
            wgpu::TextureDimension::D2
        }
    }

    /// The usage a target must have: storage, plus sampling when split octaves read the
    /// target's partial sum back.
    pub fn required_target_usage(&self) -> wgpu::TextureUsages {
        let mut usage = wgpu::TextureUsages::STORAGE_BINDING;
        if self.prepared[self.plan.target].passes.len() >= 3 {
            usage |= wgpu::TextureUsages::TEXTURE_BINDING;
        }
        usage
    }

    /// Sets the time: added to the `z` of every 3D family node and to the `w` of every 4D
    /// one, wherever the node is evaluated (its own stage and fused displacement chains);
    /// 2D nodes do not move. It replaces the previous time (it does not accumulate), and a
    /// node's own `z` / `w` (set in the graph or with [`NodeParam::Z`] / [`NodeParam::W`])
    /// stays its base. Takes effect at the next [`record`](Self::record); an infinite or NaN
    /// time is refused.
    pub fn set_time(&mut self, time: f64) -> Result<()> {
        if !time.is_finite() {
            return Err(Error::InvalidRequest(format!(
                "time must be finite (got {time})"
            )));
        }
        self.time = time;
        self.changed();
        Ok(())
    }

    /// The time last set (0 at first).
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Sets the graph seed (each node adds its `seed_offset`, each octave its index). Every
    /// `u32` is a valid seed, so this never fails; it returns a `Result` like the other
    /// setters. Families with host-built tables (wavelet tiles, wave tables, Gabor and
    /// phasor kernels) rebuild them at the next [`record`](Self::record).
    pub fn set_seed(&mut self, seed: u32) -> Result<()> {
        self.base.seed = seed;
        self.graph.seed = seed;
        self.aux_dirty = true;
        self.changed();
        Ok(())
    }

    /// The graph seed in effect.
    pub fn seed(&self) -> u32 {
        self.plan.seed
    }

    /// Moves the view: pixel (x, y, z) samples `origin + (x, y, z) * extent / size`.
    pub fn set_origin(&mut self, origin: [f64; 3]) -> Result<()> {
        if origin.iter().any(|v| !v.is_finite()) {
            return Err(Error::InvalidRequest(format!(
                "origin must be finite (got {origin:?})"
            )));
        }
        self.view.origin = origin;
        self.changed();
        Ok(())
    }

    /// Changes one number of one node (frequency, seed offset, offset, z, w, lacunarity,
    /// gain, amplitude; a mapping's rotate, angle, translate, scale, radius, radius_x,
    /// radius_y; see [`NodeParam`]) in every stage that evaluates the node. The error names
    /// the node and the field: an unknown node, a node outside the compiled output, a
    /// parameter the node's kind does not have, or a value out of bounds.
    pub fn set_node_param(&mut self, node: &str, param: NodeParam) -> Result<()> {
        param.check(node)?;
        if param.is_mapping() {
            return self.set_mapping_param(node, param);
        }
        let Some(kind) = self.graph.node(node).map(|n| n.kind.clone()) else {
            let ids: Vec<&str> = self.graph.nodes.iter().map(|n| n.id.as_str()).collect();
            return Err(Error::InvalidRequest(format!(
                "node '{node}' is not in the graph (nodes: {})",
                ids.join(", ")
            )));
        };
        let type_name = self.graph.node(node).map(|n| n.type_name().to_string());
        let applies = matches!(
            (&kind, param),
            (
                NodeKind::Family(_),
                NodeParam::Frequency(_)
                    | NodeParam::FrequencyPerAxis(_)
                    | NodeParam::SeedOffset(_)
                    | NodeParam::Offset(_)
                    | NodeParam::Z(_)
                    | NodeParam::W(_)
            ) | (
                NodeKind::Fractal(_),
                NodeParam::SeedOffset(_)
                    | NodeParam::Offset(_)
                    | NodeParam::Lacunarity(_)
                    | NodeParam::Gain(_)
            ) | (NodeKind::Warp(_), NodeParam::Amplitude(_))
        );
        if !applies {
            return Err(Error::InvalidRequest(format!(
                "node '{node}', field '{}': a {} node has no per-frame '{}'",
                param.field(),
                type_name.unwrap_or_default(),
                param.field()
            )));
        }
        let mut found = false;
        for (stage, chain) in self.base.stages.iter_mut().zip(&self.chains) {
            let StageKind::Generate(g) = &mut stage.kind else {
                continue;
            };
            if chain.iter().any(|id| id == node) {
                found = true;
                apply_param(g, &kind, param);
            }
            // Fused displacement chains carry their own copy of the nodes they evaluate.
            for d in &mut g.displace {
                if let Displacement::Inline { node: id, chain } = d {
                    if chain_ids(&self.graph, id).iter().any(|i| i == node) {
                        found = true;
                        apply_param(chain, &kind, param);
                    }
                }
            }
        }
        if !found {
            return Err(Error::InvalidRequest(format!(
                "node '{node}', field '{}': the node is not evaluated by the compiled output '{}'",
                param.field(),
                self.plan.stages[self.plan.target].node
            )));
        }
        self.aux_dirty |= matches!(param, NodeParam::SeedOffset(_));
        self.changed();
        Ok(())
    }

    /// [`CompiledGraph::set_node_param`] of a mapping node's field: the graph with the field
    /// set is validated as a graph file is (bounds and errors naming node and field), planned
    /// again, and each stage takes its new composed map (the kernels read it from uniforms,
    /// so nothing is compiled); the view is checked against the new mapped box.
    fn set_mapping_param(&mut self, node: &str, param: NodeParam) -> Result<()> {
        let dims = self.graph.dims_of(node) as usize;
        let mut json = self.graph.to_json();
        let entry = json["nodes"]
            .as_array_mut()
            .and_then(|nodes| nodes.iter_mut().find(|n| n["id"] == node))
            .ok_or_else(|| {
                let ids: Vec<&str> = self.graph.nodes.iter().map(|n| n.id.as_str()).collect();
                Error::InvalidRequest(format!(
                    "node '{node}' is not in the graph (nodes: {})",
                    ids.join(", ")
                ))
            })?;
        let is_mapping = matches!(
            self.graph.node(node).map(|n| &n.kind),
            Some(NodeKind::Mapping(_))
        );
        if !is_mapping || entry.get(param.field()).is_none() {
            return Err(Error::InvalidRequest(format!(
                "node '{node}', field '{}': a {} node has no per-frame '{}'",
                param.field(),
                entry["type"].as_str().unwrap_or_default(),
                param.field()
            )));
        }
        let by_id = crate::graph::walk::index_by_id(&self.graph);
        let target = self.node.as_deref().unwrap_or(&self.graph.output);
        let (reachable, _) =
            crate::graph::walk::post_order(&self.graph, &by_id, by_id.get(target).copied());
        if !reachable.iter().any(|&i| self.graph.nodes[i].id == node) {
            return Err(Error::InvalidRequest(format!(
                "node '{node}', field '{}': the node is not evaluated by the compiled output '{target}'",
                param.field()
            )));
        }
        entry[param.field()] = match param {
            NodeParam::Translate(v) | NodeParam::Scale(v) => serde_json::json!(v[..dims.min(4)]),
            NodeParam::Rotate(v)
            | NodeParam::Angle(v)
            | NodeParam::Radius(v)
            | NodeParam::RadiusX(v)
            | NodeParam::RadiusY(v) => serde_json::json!(v),
            _ => unreachable!("a mapping parameter"),
        };
        let graph =
            NoiseGraph::from_value(&json).map_err(|e| Error::InvalidRequest(e.to_string()))?;
        let plan = Plan::new(&graph, self.node.as_deref())?;
        let same_shape = plan.stages.len() == self.base.stages.len()
            && plan.stages.iter().zip(&self.base.stages).all(|(a, b)| {
                a.node == b.node
                    && match (&a.kind, &b.kind) {
                        (StageKind::Generate(a), StageKind::Generate(b)) => {
                            a.mapping.is_some() == b.mapping.is_some()
                        }
                        (StageKind::Combine { .. }, StageKind::Combine { .. }) => true,
                        _ => false,
                    }
            });
        if !same_shape {
            return Err(Error::InvalidRequest(format!(
                "node '{node}', field '{}': the new value changes the compiled stages; compile the graph again",
                param.field()
            )));
        }
        let mut base = self.base.clone();
        for (stage, new) in base.stages.iter_mut().zip(&plan.stages) {
            if let (StageKind::Generate(g), StageKind::Generate(n)) = (&mut stage.kind, &new.kind) {
                g.mapping = n.mapping;
            }
        }
        base.check_view(&self.view)?;
        self.base = base;
        self.graph = graph;
        self.changed();
        Ok(())
    }

    /// After a setter: the frame's plan follows the base plan and the time, and the uniforms
    /// are written at the next `record`.
    fn changed(&mut self) {
        self.plan = self.timed_plan();
        self.uniforms_dirty = true;
    }

    /// The base plan with the time added to each family's z (3D) or w (4D), in every stage
    /// and every fused displacement chain.
    fn timed_plan(&self) -> Plan {
        let mut plan = self.base.clone();
        let time = |g: &mut GenerateStage| match g.source.dims {
            3 => g.source.z += self.time,
            4 => g.source.w += self.time,
            _ => {}
        };
        for stage in &mut plan.stages {
            if let StageKind::Generate(g) = &mut stage.kind {
                time(g);
                for d in &mut g.displace {
                    if let Displacement::Inline { chain, .. } = d {
                        time(chain);
                    }
                }
            }
        }
        plan
    }

    /// Per stage, the uniforms of its passes and of its inline displacement chains.
    fn all_uniforms(&self) -> Vec<StageUniforms> {
        self.plan
            .stages
            .iter()
            .zip(&self.prepared)
            .map(|(stage, prepared)| self.stage_uniforms(stage, prepared))
            .collect()
    }

    fn stage_uniforms(&self, stage: &Stage, prepared: &PreparedStage) -> StageUniforms {
        StageUniforms {
            passes: pass_uniforms(stage, self.plan.seed, &self.view, &prepared.passes),
            inline: inline_uniforms(stage, self.plan.seed, &self.view),
        }
    }

    /// Writes changed uniforms and auxiliary tables; rebinds a stage whose table changed size.
    fn flush(&mut self) {
        let queue = self.ctx.queue().clone();
        if self.uniforms_dirty {
            for (buffers, stage_uniforms) in self.buffers.iter().zip(self.all_uniforms()) {
                for (buffer, bytes) in buffers.uniforms.iter().zip(&stage_uniforms.passes) {
                    queue.write_buffer(buffer, 0, bytes);
                }
                for ((_, buffer), (_, bytes)) in buffers.inline.iter().zip(&stage_uniforms.inline) {
                    queue.write_buffer(buffer, 0, bytes);
                }
            }
            // The pixels' splits follow the origin and the frequencies (the view's size and
            // the octave counts, and so the tables' sizes, are fixed).
            for (stage, buffers) in self.plan.stages.iter().zip(&self.buffers) {
                if let (StageKind::Generate(g), Some(buffer)) = (&stage.kind, &buffers.positions) {
                    let table = PositionTable::new(g, &self.view);
                    queue.write_buffer(buffer, 0, bytemuck::cast_slice(&table.data));
                }
            }
            self.uniforms_dirty = false;
        }
        if self.aux_dirty {
            for i in 0..self.plan.stages.len() {
                let StageKind::Generate(g) = &self.plan.stages[i].kind else {
                    continue;
                };
                let Some(aux) = g.aux_data(self.plan.seed) else {
                    continue;
                };
                let same_size = self.buffers[i]
                    .aux
                    .as_ref()
                    .is_some_and(|b| b.size() == (aux.len() * 4) as u64);
                if same_size {
                    let buffer = self.buffers[i].aux.as_ref().expect("checked");
                    queue.write_buffer(buffer, 0, bytemuck::cast_slice(&aux));
                } else {
                    self.prepared[i].aux = Some(aux);
                    let stage = &self.plan.stages[i];
                    let uniforms = self.stage_uniforms(stage, &self.prepared[i]);
                    self.buffers[i] = self.ctx.create_stage_buffers(
                        stage,
                        &self.prepared[i],
                        &uniforms.passes,
                        &uniforms.inline,
                        &self.view,
                    );
                    if i == self.plan.target {
                        self.target_bindings.clear();
                    } else {
                        self.bind_groups[i] = self.ctx.bind_stage(
                            stage,
                            &self.prepared[i],
                            &self.buffers[i],
                            &texture_view(&self.fields[i]),
                            &self.fields,
                        );
                    }
                }
            }
            self.aux_dirty = false;
        }
    }

    /// What a target must be: R32Float (Rgba32Float in gradient form), 2D (3D for a volume
    /// view), the view's size at the chosen mip level,
    /// [`required_target_usage`](Self::required_target_usage).
    fn target_spec(&self) -> TargetSpec<'static> {
        TargetSpec {
            role: "target",
            formats: match self.form {
                FieldForm::Value => &[wgpu::TextureFormat::R32Float],
                FieldForm::Gradient => &[wgpu::TextureFormat::Rgba32Float],
            },
            dimension: self.target_dimension(),
            size: Some(self.view.size),
            usage: self.required_target_usage(),
        }
    }

    /// Records every pass of the graph into `encoder`, writing `target`: a texture
    /// (`&wgpu::Texture`, as [`create_target`](Self::create_target) makes) or one mip level
    /// of one array layer of it ([`TargetView`], whose docs state the rules). Nothing is
    /// submitted and nothing waits.
    ///
    /// A target that does not fit (format, dimension, size, usage, mip level, layer,
    /// samples, or a texture created on another device) is refused with
    /// [`Error::WrongTarget`], listing every problem, before anything is recorded. Bind
    /// groups are made on the first use of a target and kept for the last four targets (a
    /// renderer may alternate between several).
    pub fn record<'t>(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: impl Into<TargetView<'t>>,
    ) -> Result<()> {
        let target = target.into();
        self.target_spec().check(&target)?;
        self.bind_target(&target)?;
        self.flush();
        let t = self.plan.target;
        let groups = dispatch_size(&self.view);
        for i in 0..self.plan.stages.len() {
            let bind_groups = if i == t {
                &self.target_bindings.first().expect("bound above").3
            } else {
                &self.bind_groups[i]
            };
            record_stage(
                encoder,
                &self.plan.stages[i],
                &self.prepared[i],
                bind_groups,
                groups,
            );
        }
        Ok(())
    }

    /// Makes the target stage's bind groups for `target` (or moves the ones made before to
    /// the front), after checking that the texture belongs to this graph's device.
    fn bind_target(&mut self, target: &TargetView) -> Result<()> {
        let texture = target.texture();
        let key = |(tex, mip, layer, _): &(wgpu::Texture, u32, u32, Vec<wgpu::BindGroup>)| {
            tex == texture && *mip == target.mip_level() && *layer == target.array_layer()
        };
        // wgpu compares textures by id within their own instance, so a texture of another
        // instance may equal a cached one: the device is checked on every call.
        let device = self.ctx.device();
        let t = self.plan.target;
        if let Some(i) = self.target_bindings.iter().position(key) {
            on_device(device, &[("target", texture)], || ())?;
            let entry = self.target_bindings.remove(i);
            self.target_bindings.insert(0, entry);
            return Ok(());
        }
        let (ctx, stage, prepared, buffers, fields) = (
            &self.ctx,
            &self.plan.stages[t],
            &self.prepared[t],
            &self.buffers[t],
            &self.fields,
        );
        let groups = on_device(device, &[("target", texture)], || {
            let view = target.create_view("noisegraph target");
            ctx.bind_stage(stage, prepared, buffers, &view, fields)
        })?;
        self.target_bindings.insert(
            0,
            (
                texture.clone(),
                target.mip_level(),
                target.array_layer(),
                groups,
            ),
        );
        self.target_bindings.truncate(MAX_TARGET_BINDINGS);
        Ok(())
    }

    /// Reads a target back (submits a copy and waits): for tests, bakes and examples, not for
    /// a renderer's frame loop. The target is checked as for [`record`](Self::record) except
    /// for its usage, which must include `COPY_SRC` instead.
    pub fn read_target<'t>(&self, target: impl Into<TargetView<'t>>) -> Result<Field> {
        let target = target.into();
        TargetSpec {
            usage: wgpu::TextureUsages::COPY_SRC,
            role: "readback",
            ..self.target_spec()
        }
        .check(&target)?;
        self.ctx.read_field(target)
    }

    /// Reads a gradient target back (submits a copy and waits): `(value, d/dx, d/dy, d/dz)`
    /// per pixel. The target is checked as for [`record`](Self::record) of a graph in
    /// gradient form (Rgba32Float), with `COPY_SRC` instead of the recording usages.
    pub fn read_gradient_target<'t>(
        &self,
        target: impl Into<TargetView<'t>>,
    ) -> Result<GradientField> {
        let target = target.into();
        TargetSpec {
            usage: wgpu::TextureUsages::COPY_SRC,
            role: "readback",
            formats: &[wgpu::TextureFormat::Rgba32Float],
            ..self.target_spec()
        }
        .check(&target)?;
        let [w, h, d] = self.view.size;
        let data = read_texels::<[f32; 4]>(&self.ctx, &target, self.view.size)?;
        Ok(GradientField::new(w, h, d, data))
    }
}
