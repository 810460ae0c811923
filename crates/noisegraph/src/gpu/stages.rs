//! The pieces both GPU recorders share: checking a plan against the device, fetching its
//! pipelines, creating each stage's buffers and bind groups, and recording its passes.
//! [`GpuContext::encode_plan`] uses them once per run; [`super::CompiledGraph`] keeps what
//! they create and records it frame after frame.

use std::sync::Arc;

use wgpu::util::DeviceExt;

use super::assemble::{
    combine_source_in, generate_source_in, GenerateLayout, OctaveConstants, OctavePass,
    BINDING_AUX, BINDING_DISPLACE, BINDING_INLINE, BINDING_INPUTS, BINDING_OUT, BINDING_PARAMS,
    BINDING_PARTIAL, BINDING_POSITIONS, WORKGROUP,
};
use super::execute::SPECIALIZE_MIN_WORK;
use super::pipeline::{CachedPipeline, LayoutKey};
use super::requirements::DeviceRequirements;
use super::{GpuContext, Specialize};
use crate::error::{Error, Result};
use crate::field::FieldForm;
use crate::graph::position::PositionTable;
use crate::graph::{
    plan_gradient_refusal, CombineUniform, CurveUniform, GenerateStage, Plan, Stage, StageKind,
    StageUniform, View,
};

/// A stage's pipelines and pass split, fetched before anything is recorded.
pub(crate) struct PreparedStage {
    /// One pipeline per octave pass (its octave range is compiled in; passes after the first
    /// read the partial sum).
    pub pipelines: Vec<Arc<CachedPipeline>>,
    /// Octave passes (first octave, count); empty for a point-wise stage.
    pub passes: Vec<(u32, u32)>,
    /// The family's auxiliary table, when it has one.
    pub aux: Option<Vec<f32>>,
    /// What the stage writes per pixel (its textures' format).
    pub form: FieldForm,
}

/// The buffers a stage records with: one uniform buffer per pass, the auxiliary table and,
/// for split octaves, the texture the partial sums ping-pong through.
pub(crate) struct StageBuffers {
    pub uniforms: Vec<wgpu::Buffer>,
    /// The uniforms of each inline displacement chain: (axis, buffer).
    pub inline: Vec<(u32, wgpu::Buffer)>,
    pub aux: Option<wgpu::Buffer>,
    /// A generate stage's position tables ([`PositionTable`]).
    pub positions: Option<wgpu::Buffer>,
    pub partial: Option<wgpu::Texture>,
}

/// Workgroup counts covering a view.
pub(crate) fn dispatch_size(view: &View) -> [u32; 3] {
    [
        view.size[0].div_ceil(WORKGROUP[0]),
        view.size[1].div_ceil(WORKGROUP[1]),
        view.size[2],
    ]
}

/// The uniform bytes of every pass of a stage, for the plan's seed and a view.
pub(crate) fn pass_uniforms(
    stage: &Stage,
    seed: u32,
    view: &View,
    passes: &[(u32, u32)],
) -> Vec<Vec<u8>> {
    match &stage.kind {
        StageKind::Generate(g) => {
            let mut base = g.uniforms(seed, view);
            base.mode[3] = PositionTable::bases(g, view)[0].unwrap_or(0);
            let n = passes.len();
            passes
                .iter()
                .enumerate()
                .map(|(i, &(first, count))| {
                    let mut u: StageUniform = base;
                    u.size[3] = count;
                    u.mode[1] = first;
                    u.mode[2] = u32::from(i == n - 1);
                    bytemuck::bytes_of(&u).to_vec()
                })
                .collect()
        }
        StageKind::Combine { op, .. } => {
            let (code, constants) = op.code_and_constants();
            let u = CombineUniform {
                size: [view.size[0], view.size[1], view.size[2], 0],
                op: [code, 0, 0, 0],
                constants,
            };
            match op.curve_table() {
                Some((pieces, count)) => {
                    let mut combine = u;
                    combine.op[1] = count;
                    let curve = CurveUniform { combine, pieces };
                    vec![bytemuck::bytes_of(&curve).to_vec()]
                }
                None => vec![bytemuck::bytes_of(&u).to_vec()],
            }
        }
    }
}

/// The uniform bytes of each inline displacement chain of a stage: (axis, bytes). The
/// chain's own stage would run with the same uniforms (every octave in one pass).
pub(crate) fn inline_uniforms(stage: &Stage, seed: u32, view: &View) -> Vec<(u32, Vec<u8>)> {
    match &stage.kind {
        StageKind::Generate(g) => {
            let bases = PositionTable::bases(g, view);
            g.displace_inline()
                .zip(&bases[1..])
                .map(|((axis, _, chain), base)| {
                    let mut u: StageUniform = chain.uniforms(seed, view);
                    u.mode[3] = base.unwrap_or(0);
                    (axis as u32, bytemuck::bytes_of(&u).to_vec())
                })
                .collect()
        }
        StageKind::Combine { .. } => Vec::new(),
    }
}

/// Ping-pong of split octaves: pass `i` of `n` writes `out` when true, the partial texture
/// otherwise, so the last pass always writes `out`.
fn pass_writes_out(i: usize, n: usize) -> bool {
    (n - 1 - i).is_multiple_of(2)
}

pub(crate) fn texture_view(t: &wgpu::Texture) -> wgpu::TextureView {
    t.create_view(&wgpu::TextureViewDescriptor::default())
}

impl GpuContext {
    /// Whether generate stage `g` runs its specialized kernel on `view` (see [`Specialize`]):
    /// a function of the stage, the whole view a tile belongs to and the adapter, so every
    /// tile and shard of a job, and every repeat of it, uses the same kernel form.
    fn specializes(&self, g: &GenerateStage, view: &View, specialize: Specialize) -> bool {
        match specialize {
            Specialize::Never => false,
            Specialize::Always => true,
            Specialize::Auto => {
                let octaves = g
                    .displace_inline()
                    .fold(u64::from(g.octave_count()), |n, c| {
                        n + u64::from(c.2.octave_count())
                    });
                let pixels: u64 = view.full_size().iter().map(|&s| u64::from(s)).product();
                self.adapter_info().device_type == wgpu::DeviceType::Cpu
                    && octaves.saturating_mul(pixels) >= SPECIALIZE_MIN_WORK
            }
        }
    }

    /// Checks the device and the view, then fetches (or compiles) every pipeline of `plan`
    /// in `form`, so that a failure comes before anything is recorded (in gradient form, a
    /// family without a gradient form is an error naming the stage's node).
    pub(crate) fn prepare_plan(
        &self,
        plan: &Plan,
        view: &View,
        octave_budget: u64,
        specialize: Specialize,
        form: FieldForm,
    ) -> Result<Vec<PreparedStage>> {
        view.check()?;
        self.check_requirements(&DeviceRequirements::for_plan(plan, view, octave_budget))?;
        plan.check_view(view)?;
        if form == FieldForm::Gradient {
            if let Some(why) = plan_gradient_refusal(plan) {
                return Err(Error::InvalidRequest(why));
            }
        }
        let device = self.device();
        let volume = view.is_volume();
        let mut prepared = Vec::new();
        for stage in &plan.stages {
            match &stage.kind {
                StageKind::Generate(g) => {
                    let aux = g.aux_data(plan.seed);
                    let passes = g.octave_passes(view.pixel_count(), octave_budget);
                    let stage_uniform = g.uniforms(plan.seed, view);
                    let inline_uniforms: Vec<StageUniform> = g
                        .displace_inline()
                        .map(|(_, _, chain)| chain.uniforms(plan.seed, view))
                        .collect();
                    let constants = OctaveConstants {
                        stage: &stage_uniform,
                        inline: &inline_uniforms,
                    };
                    let specialized_form = self.specializes(g, view, specialize);
                    let mut pipelines = Vec::new();
                    for (i, pass) in OctavePass::split(&passes).into_iter().enumerate() {
                        let layout = GenerateLayout {
                            volume,
                            partial: i > 0,
                            displace: g.displace.len() as u32,
                            inline: GenerateLayout::inline_mask(g),
                            aux: aux.is_some(),
                        };
                        let no_gradient = || {
                            Error::InvalidRequest(format!(
                                "node '{}': no analytic gradient in a stage",
                                stage.node
                            ))
                        };
                        let key = LayoutKey::Generate(layout, form);
                        let pipeline = if specialized_form {
                            let specialized =
                                generate_source_in(form, g, layout, pass, Some(constants))
                                    .ok_or_else(no_gradient)?;
                            self.pipelines()
                                .get_specialized(device, &specialized, key)?
                        } else {
                            let source = generate_source_in(form, g, layout, pass, None)
                                .ok_or_else(no_gradient)?;
                            self.pipelines().get(device, &source, key)?
                        };
                        pipelines.push(pipeline);
                    }
                    prepared.push(PreparedStage {
                        pipelines,
                        passes,
                        aux,
                        form,
                    });
                }
                StageKind::Combine { op, inputs } => {
                    let key = LayoutKey::Combine {
                        volume,
                        inputs: inputs.len() as u32,
                        form,
                    };
                    let source = combine_source_in(
                        form,
                        volume,
                        inputs.len() as u32,
                        op.curve_table().is_some(),
                    );
                    prepared.push(PreparedStage {
                        pipelines: vec![self.pipelines().get(device, &source, key)?],
                        passes: vec![],
                        aux: None,
                        form,
                    });
                }
            }
        }
        Ok(prepared)
    }

    /// Creates a stage's uniform buffers (filled with `uniforms`, writable later with
    /// `Queue::write_buffer`), its auxiliary buffer and its partial-sum texture.
    pub(crate) fn create_stage_buffers(
        &self,
        stage: &Stage,
        prepared: &PreparedStage,
        uniforms: &[Vec<u8>],
        inline: &[(u32, Vec<u8>)],
        view: &View,
    ) -> StageBuffers {
        let device = self.device();
        let uniforms = uniforms
            .iter()
            .map(|bytes| {
                device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(&stage.node),
                    contents: bytes,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                })
            })
            .collect();
        let inline = inline
            .iter()
            .map(|(axis, bytes)| {
                let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("noisegraph inline displacement"),
                    contents: bytes,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                });
                (*axis, buffer)
            })
            .collect();
        let aux = prepared.aux.as_ref().map(|a| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("noisegraph aux"),
                contents: bytemuck::cast_slice(a),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
            })
        });
        let positions = match &stage.kind {
            StageKind::Generate(g) => Some(device.create_buffer_init(
                &wgpu::util::BufferInitDescriptor {
                    label: Some("noisegraph positions"),
                    contents: bytemuck::cast_slice(&PositionTable::new(g, view).data),
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                },
            )),
            StageKind::Combine { .. } => None,
        };
        let partial = (prepared.passes.len() > 1)
            .then(|| self.create_field_texture(view, "partial sum", prepared.form));
        StageBuffers {
            uniforms,
            inline,
            aux,
            positions,
            partial,
        }
    }

    /// One bind group per pass of a stage that writes `out_view` (one mip level of one layer)
    /// and reads the earlier stages' fields from `fields` (indexed by stage).
    pub(crate) fn bind_stage(
        &self,
        stage: &Stage,
        prepared: &PreparedStage,
        buffers: &StageBuffers,
        out_view: &wgpu::TextureView,
        fields: &[wgpu::Texture],
    ) -> Vec<wgpu::BindGroup> {
        let device = self.device();
        let partial_view = buffers.partial.as_ref().map(texture_view);
        let bind = |pipeline: &CachedPipeline, entries: &[wgpu::BindGroupEntry]| {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(&stage.node),
                layout: &pipeline.layout,
                entries,
            })
        };
        match &stage.kind {
            StageKind::Generate(g) => {
                let displace: Vec<(usize, wgpu::TextureView)> = g
                    .displace_fields()
                    .map(|(axis, s)| (axis, texture_view(&fields[s])))
                    .collect();
                let n = prepared.passes.len();
                (0..n)
                    .map(|i| {
                        let writes = if pass_writes_out(i, n) {
                            out_view
                        } else {
                            partial_view.as_ref().expect("split octaves")
                        };
                        let reads = (i > 0).then(|| {
                            if pass_writes_out(i - 1, n) {
                                out_view
                            } else {
                                partial_view.as_ref().expect("split octaves")
                            }
                        });
                        let mut entries = vec![
                            wgpu::BindGroupEntry {
                                binding: BINDING_PARAMS,
                                resource: buffers.uniforms[i].as_entire_binding(),
                            },
                            wgpu::BindGroupEntry {
                                binding: BINDING_OUT,
                                resource: wgpu::BindingResource::TextureView(writes),
                            },
                        ];
                        if let Some(v) = reads {
                            entries.push(wgpu::BindGroupEntry {
                                binding: BINDING_PARTIAL,
                                resource: wgpu::BindingResource::TextureView(v),
                            });
                        }
                        for (axis, v) in &displace {
                            entries.push(wgpu::BindGroupEntry {
                                binding: BINDING_DISPLACE + *axis as u32,
                                resource: wgpu::BindingResource::TextureView(v),
                            });
                        }
                        for (axis, b) in &buffers.inline {
                            entries.push(wgpu::BindGroupEntry {
                                binding: BINDING_INLINE + axis,
                                resource: b.as_entire_binding(),
                            });
                        }
                        if let Some(b) = &buffers.aux {
                            entries.push(wgpu::BindGroupEntry {
                                binding: BINDING_AUX,
                                resource: b.as_entire_binding(),
                            });
                        }
                        if let Some(b) = &buffers.positions {
                            entries.push(wgpu::BindGroupEntry {
                                binding: BINDING_POSITIONS,
                                resource: b.as_entire_binding(),
                            });
                        }
                        bind(&prepared.pipelines[i], &entries)
                    })
                    .collect()
            }
            StageKind::Combine { inputs, .. } => {
                let input_views: Vec<wgpu::TextureView> =
                    inputs.iter().map(|&s| texture_view(&fields[s])).collect();
                let mut entries = vec![
                    wgpu::BindGroupEntry {
                        binding: BINDING_PARAMS,
                        resource: buffers.uniforms[0].as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: BINDING_OUT,
                        resource: wgpu::BindingResource::TextureView(out_view),
                    },
                ];
                for (k, v) in input_views.iter().enumerate() {
                    entries.push(wgpu::BindGroupEntry {
                        binding: BINDING_INPUTS + k as u32,
                        resource: wgpu::BindingResource::TextureView(v),
                    });
                }
                vec![bind(&prepared.pipelines[0], &entries)]
            }
        }
    }
}

/// Records a stage's compute passes, one per bind group.
pub(crate) fn record_stage(
    encoder: &mut wgpu::CommandEncoder,
    stage: &Stage,
    prepared: &PreparedStage,
    bind_groups: &[wgpu::BindGroup],
    groups: [u32; 3],
) {
    for (i, bind_group) in bind_groups.iter().enumerate() {
        let pipeline = &prepared.pipelines[i];
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&stage.node),
            timestamp_writes: None,
        });
        pass.set_pipeline(&pipeline.pipeline);
        pass.set_bind_group(0, bind_group, &[]);
        pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
    }
}
