//! Dispatching a plan: one texture per stage, one or more compute passes per stage (octaves
//! split across passes accumulate through a second texture), then readback.

use wgpu::util::DeviceExt;

use super::assemble::{
    combine_source, generate_source, GenerateLayout, BINDING_AUX, BINDING_DISPLACE, BINDING_INPUTS,
    BINDING_OUT, BINDING_PARAMS, BINDING_PARTIAL, WORKGROUP,
};
use super::pipeline::LayoutKey;
use super::readback::read_texture;
use super::GpuContext;
use crate::error::{Error, Result};
use crate::field::Field;
use crate::graph::{octave_passes, CombineUniform, Plan, StageKind, View};

/// How a plan is run.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Octaves x pixels one dispatch may evaluate before octaves are split across passes.
    pub octave_budget: u64,
    /// Fill every output texture with NaN before its stage runs, so unwritten pixels show.
    pub poison: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            octave_budget: 1 << 27,
            poison: false,
        }
    }
}

/// The textures a recorded plan writes, one per stage, in plan order.
pub struct GpuStageOutput {
    pub textures: Vec<wgpu::Texture>,
}

fn texture_usage() -> wgpu::TextureUsages {
    wgpu::TextureUsages::STORAGE_BINDING
        | wgpu::TextureUsages::TEXTURE_BINDING
        | wgpu::TextureUsages::COPY_SRC
        | wgpu::TextureUsages::COPY_DST
}

impl GpuContext {
    /// Checks that a view fits this device's limits; the error names the limit.
    pub fn check_view(&self, view: &View) -> Result<()> {
        view.check()?;
        let limits = self.limits();
        let (max, name) = if view.is_volume() {
            (limits.max_texture_dimension_3d, "max_texture_dimension_3d")
        } else {
            (limits.max_texture_dimension_2d, "max_texture_dimension_2d")
        };
        for (axis, s) in ["width", "height", "depth"].iter().zip(view.size) {
            if (view.is_volume() || *axis != "depth") && s > max {
                return Err(Error::Limit(format!(
                    "size: {axis} {s} exceeds the device limit {name} = {max} on {}",
                    self.describe()
                )));
            }
        }
        Ok(())
    }

    fn create_field_texture(&self, view: &View, label: &str) -> wgpu::Texture {
        self.device().create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: view.size[0],
                height: view.size[1],
                depth_or_array_layers: view.size[2],
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: if view.is_volume() {
                wgpu::TextureDimension::D3
            } else {
                wgpu::TextureDimension::D2
            },
            format: wgpu::TextureFormat::R32Float,
            usage: texture_usage(),
            view_formats: &[],
        })
    }

    fn poison(&self, texture: &wgpu::Texture, view: &View) {
        let [w, h, d] = view.size;
        let bytes: Vec<u8> = std::iter::repeat_n(f32::NAN.to_le_bytes(), (w * h * d) as usize)
            .flatten()
            .collect();
        self.queue().write_texture(
            texture.as_image_copy(),
            &bytes,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(w * 4),
                rows_per_image: Some(h),
            },
            texture.size(),
        );
    }

    /// Records every stage of `plan` into `encoder` (nothing is submitted) and returns the
    /// textures written, one per stage. Errors come before anything is recorded.
    pub fn encode_plan(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
    ) -> Result<GpuStageOutput> {
        self.check_view(view)?;
        plan.check_view(view)?;
        let device = self.device();
        let volume = view.is_volume();
        let view_dim = |t: &wgpu::Texture| t.create_view(&wgpu::TextureViewDescriptor::default());
        let groups = [
            view.size[0].div_ceil(WORKGROUP[0]),
            view.size[1].div_ceil(WORKGROUP[1]),
            view.size[2],
        ];
        // Compile (or fetch) every pipeline first, so a failure records nothing.
        let mut prepared = Vec::new();
        for stage in &plan.stages {
            match &stage.kind {
                StageKind::Generate(g) => {
                    let aux = g.aux_data(plan.seed);
                    let passes =
                        octave_passes(g.octave_count(), view.pixel_count(), options.octave_budget);
                    let mut pipelines = Vec::new();
                    for partial in [false, true] {
                        if partial && passes.len() < 2 {
                            continue;
                        }
                        let layout = GenerateLayout {
                            volume,
                            partial,
                            displace: g.displace.len() as u32,
                            aux: aux.is_some(),
                        };
                        let source = generate_source(g, layout);
                        pipelines.push(self.pipelines().get(
                            device,
                            &source,
                            LayoutKey::Generate(layout),
                        )?);
                    }
                    if let Some(a) = &aux {
                        let max = self.limits().max_storage_buffer_binding_size;
                        if (a.len() as u64) * 4 > max {
                            return Err(Error::Limit(format!(
                                "node '{}': auxiliary data of {} bytes exceeds max_storage_buffer_binding_size = {max}",
                                stage.node,
                                a.len() * 4
                            )));
                        }
                    }
                    prepared.push((pipelines, passes, aux));
                }
                StageKind::Combine { inputs, .. } => {
                    let key = LayoutKey::Combine {
                        volume,
                        inputs: inputs.len() as u32,
                    };
                    let source = combine_source(volume, inputs.len() as u32);
                    prepared.push((
                        vec![self.pipelines().get(device, &source, key)?],
                        vec![],
                        None,
                    ));
                }
            }
        }

        let mut textures: Vec<wgpu::Texture> = Vec::new();
        for (stage, (pipelines, passes, aux)) in plan.stages.iter().zip(prepared) {
            let out = self.create_field_texture(view, &stage.node);
            if options.poison {
                self.poison(&out, view);
            }
            match &stage.kind {
                StageKind::Generate(g) => {
                    let base = g.uniforms(plan.seed, view);
                    let aux_buffer = aux.map(|a| {
                        device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                            label: Some("noisegraph aux"),
                            contents: bytemuck::cast_slice(&a),
                            usage: wgpu::BufferUsages::STORAGE,
                        })
                    });
                    // Ping-pong: the last pass writes `out`, earlier ones alternate with `tmp`.
                    let tmp =
                        (passes.len() > 1).then(|| self.create_field_texture(view, "partial sum"));
                    let n = passes.len();
                    for (i, &(first, count)) in passes.iter().enumerate() {
                        let target = if (n - 1 - i) % 2 == 0 {
                            &out
                        } else {
                            tmp.as_ref().expect("split")
                        };
                        let source = if i == 0 {
                            None
                        } else if (n - i) % 2 == 0 {
                            Some(&out)
                        } else {
                            tmp.as_ref()
                        };
                        let mut u = base;
                        u.size[3] = count;
                        u.mode[1] = first;
                        u.mode[2] = u32::from(i == n - 1);
                        let ubuf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                            label: Some("noisegraph stage params"),
                            contents: bytemuck::bytes_of(&u),
                            usage: wgpu::BufferUsages::UNIFORM,
                        });
                        let pipeline = &pipelines[usize::from(source.is_some())];
                        let target_view = view_dim(target);
                        let source_view = source.map(view_dim);
                        let displace_views: Vec<wgpu::TextureView> =
                            g.displace.iter().map(|&s| view_dim(&textures[s])).collect();
                        let mut entries = vec![
                            wgpu::BindGroupEntry {
                                binding: BINDING_PARAMS,
                                resource: ubuf.as_entire_binding(),
                            },
                            wgpu::BindGroupEntry {
                                binding: BINDING_OUT,
                                resource: wgpu::BindingResource::TextureView(&target_view),
                            },
                        ];
                        if let Some(v) = &source_view {
                            entries.push(wgpu::BindGroupEntry {
                                binding: BINDING_PARTIAL,
                                resource: wgpu::BindingResource::TextureView(v),
                            });
                        }
                        for (k, v) in displace_views.iter().enumerate() {
                            entries.push(wgpu::BindGroupEntry {
                                binding: BINDING_DISPLACE + k as u32,
                                resource: wgpu::BindingResource::TextureView(v),
                            });
                        }
                        if let Some(b) = &aux_buffer {
                            entries.push(wgpu::BindGroupEntry {
                                binding: BINDING_AUX,
                                resource: b.as_entire_binding(),
                            });
                        }
                        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                            label: Some(&stage.node),
                            layout: &pipeline.layout,
                            entries: &entries,
                        });
                        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                            label: Some(&stage.node),
                            timestamp_writes: None,
                        });
                        pass.set_pipeline(&pipeline.pipeline);
                        pass.set_bind_group(0, &bind_group, &[]);
                        pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
                    }
                }
                StageKind::Combine { op, inputs } => {
                    let (code, constants) = op.code_and_constants();
                    let u = CombineUniform {
                        size: [view.size[0], view.size[1], view.size[2], 0],
                        op: [code, 0, 0, 0],
                        constants,
                    };
                    let ubuf = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("noisegraph combine params"),
                        contents: bytemuck::bytes_of(&u),
                        usage: wgpu::BufferUsages::UNIFORM,
                    });
                    let target_view = view_dim(&out);
                    let input_views: Vec<wgpu::TextureView> =
                        inputs.iter().map(|&s| view_dim(&textures[s])).collect();
                    let mut entries = vec![
                        wgpu::BindGroupEntry {
                            binding: BINDING_PARAMS,
                            resource: ubuf.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: BINDING_OUT,
                            resource: wgpu::BindingResource::TextureView(&target_view),
                        },
                    ];
                    for (k, v) in input_views.iter().enumerate() {
                        entries.push(wgpu::BindGroupEntry {
                            binding: BINDING_INPUTS + k as u32,
                            resource: wgpu::BindingResource::TextureView(v),
                        });
                    }
                    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                        label: Some(&stage.node),
                        layout: &pipelines[0].layout,
                        entries: &entries,
                    });
                    let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                        label: Some(&stage.node),
                        timestamp_writes: None,
                    });
                    pass.set_pipeline(&pipelines[0].pipeline);
                    pass.set_bind_group(0, &bind_group, &[]);
                    pass.dispatch_workgroups(groups[0], groups[1], groups[2]);
                }
            }
            textures.push(out);
        }
        Ok(GpuStageOutput { textures })
    }

    /// Runs a plan and reads back the stages named by `which` (plan indices).
    pub fn run_stages(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
        which: &[usize],
    ) -> Result<Vec<Field>> {
        let mut encoder = self
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("noisegraph plan"),
            });
        let scope = self
            .device()
            .push_error_scope(wgpu::ErrorFilter::Validation);
        let output = self.encode_plan(&mut encoder, plan, view, options)?;
        self.queue().submit(Some(encoder.finish()));
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("running the plan failed: {err}")));
        }
        which
            .iter()
            .map(|&i| {
                let data =
                    read_texture(self.device(), self.queue(), &output.textures[i], view.size)?;
                Ok(Field::new(view.size[0], view.size[1], view.size[2], data))
            })
            .collect()
    }

    /// Runs a plan and reads back its target node.
    pub fn run(&self, plan: &Plan, view: &View, options: &RunOptions) -> Result<Field> {
        let mut fields = self.run_stages(plan, view, options, &[plan.target])?;
        Ok(fields.remove(0))
    }
}

/// Wall-clock split of a GPU run: recording, dispatch and waiting for the device, then
/// copying the result back to the host.
#[derive(Debug, Clone, Copy, Default)]
pub struct RunTimings {
    pub dispatch: std::time::Duration,
    pub readback: std::time::Duration,
}

impl GpuContext {
    /// Like [`GpuContext::run`], also measuring dispatch and readback separately.
    pub fn run_timed(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
    ) -> Result<(Field, RunTimings)> {
        let start = std::time::Instant::now();
        let mut encoder = self
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("noisegraph plan"),
            });
        let output = self.encode_plan(&mut encoder, plan, view, options)?;
        let index = self.queue().submit(Some(encoder.finish()));
        self.device()
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .map_err(|e| Error::Gpu(format!("waiting for the plan failed: {e}")))?;
        let dispatch = start.elapsed();
        let start = std::time::Instant::now();
        let data = read_texture(
            self.device(),
            self.queue(),
            &output.textures[plan.target],
            view.size,
        )?;
        let timings = RunTimings {
            dispatch,
            readback: start.elapsed(),
        };
        Ok((
            Field::new(view.size[0], view.size[1], view.size[2], data),
            timings,
        ))
    }
}
