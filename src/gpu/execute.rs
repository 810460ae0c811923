//! Dispatching a plan: one texture per stage, one or more compute passes per stage (octaves
//! split across passes accumulate through a second texture), then readback.

use super::pipeline::form_format;
use super::readback::{read_texels, read_texture};
use super::requirements::DeviceRequirements;
use super::stages::{dispatch_size, inline_uniforms, pass_uniforms, record_stage, texture_view};
use super::target::TargetView;
use super::GpuContext;
use crate::error::{Error, Result};
use crate::field::{Field, FieldForm, GradientField};
use crate::graph::{Plan, View};

/// How a plan is run.
#[derive(Debug, Clone, Copy)]
pub struct RunOptions {
    /// Octaves x pixels one dispatch may evaluate before octaves are split across passes.
    pub octave_budget: u64,
    /// Fill every output texture with NaN before its stage runs, so unwritten pixels show.
    pub poison: bool,
    /// When generate stages compile their octave parameters into the kernel.
    pub specialize: Specialize,
}

/// When a run compiles each generate stage's octave parameters (lattice offsets, steps,
/// seeds, amplitudes) into its kernel instead of reading them from the uniform buffer. The
/// results are the same operations on the same numbers (equal within one ulp, where constant
/// folding rounds an operation differently); on lavapipe the specialized 8-octave Perlin fBm
/// dispatch takes about half the time, and compiling it 3 to 4 times longer (BENCHMARKS.md). A
/// specialized kernel serves one graph on one view (its tiles included): another seed,
/// origin or scale needs another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Specialize {
    /// Always read the parameters from uniforms: one pipeline per graph shape.
    Never,
    /// From the second run of a stage with the same numbers (a repeated bake, the second
    /// and later tiles of one bake, a benchmark loop); a first run uses the generic kernel,
    /// so small one-off runs never pay the longer compile. On a CPU adapter (lavapipe), a
    /// stage of at least [`SPECIALIZE_FIRST_RUN_WORK`] octave samples is specialized from its
    /// first run: there the faster kernel repays its compile within the run.
    #[default]
    Repeated,
    /// From the first run.
    Always,
}

/// Octave samples (octaves, those of inline warp chains included, times pixels) from which a
/// stage on a CPU adapter is specialized on its first run under [`Specialize::Repeated`]. On
/// lavapipe the specialized Perlin fBm kernel saves about 2.7 ns per octave sample and costs
/// about 120 ms more to compile, so it pays from about 45 million (BENCHMARKS.md); this is
/// 2^26, about 67 million: a 2048 x 2048 view of 16 octaves, or 4096 x 4096 of 4.
pub const SPECIALIZE_FIRST_RUN_WORK: u64 = 1 << 26;

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            octave_budget: 1 << 27,
            poison: false,
            specialize: Specialize::default(),
        }
    }
}

/// The textures a recorded plan writes, one per stage, in plan order.
pub struct GpuStageOutput {
    /// Textures of the view's size, indexed like `Plan::stages`: R32Float in value form,
    /// Rgba32Float (value, d/dx, d/dy, d/dz) in gradient form.
    pub textures: Vec<wgpu::Texture>,
}

fn texture_usage() -> wgpu::TextureUsages {
    wgpu::TextureUsages::STORAGE_BINDING
        | wgpu::TextureUsages::TEXTURE_BINDING
        | wgpu::TextureUsages::COPY_SRC
        | wgpu::TextureUsages::COPY_DST
}

fn field_texture_descriptor<'a>(
    view: &View,
    label: &'a str,
    form: FieldForm,
) -> wgpu::TextureDescriptor<'a> {
    wgpu::TextureDescriptor {
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
        format: form_format(form),
        usage: texture_usage(),
        view_formats: &[],
    }
}

impl GpuContext {
    /// Checks that a view is valid and fits this device's texture limits; the error
    /// ([`Error::DeviceLimits`]) names the limit.
    pub fn check_view(&self, view: &View) -> Result<()> {
        view.check()?;
        self.check_requirements(&DeviceRequirements::for_view(view))
    }

    pub(crate) fn create_field_texture(
        &self,
        view: &View,
        label: &str,
        form: FieldForm,
    ) -> wgpu::Texture {
        self.device()
            .create_texture(&field_texture_descriptor(view, label, form))
    }

    /// A field texture from the pool (a finished run's), else a new one.
    pub(crate) fn take_field_texture(
        &self,
        view: &View,
        label: &str,
        form: FieldForm,
    ) -> wgpu::Texture {
        let desc = field_texture_descriptor(view, label, form);
        self.pool()
            .take_texture(&desc)
            .unwrap_or_else(|| self.device().create_texture(&desc))
    }

    fn poison(&self, texture: &wgpu::Texture, view: &View, form: FieldForm) {
        let [w, h, d] = view.size;
        let channels = match form {
            FieldForm::Value => 1,
            FieldForm::Gradient => 4,
        };
        let bytes: Vec<u8> =
            std::iter::repeat_n(f32::NAN.to_le_bytes(), (w * h * d * channels) as usize)
                .flatten()
                .collect();
        self.queue().write_texture(
            texture.as_image_copy(),
            &bytes,
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(w * 4 * channels),
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
        self.encode_plan_in(encoder, plan, view, options, FieldForm::Value)
    }

    /// [`GpuContext::encode_plan`] in `form`: in gradient form every stage writes an
    /// Rgba32Float texture of (value, d/dx, d/dy, d/dz).
    pub fn encode_plan_in(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
        form: FieldForm,
    ) -> Result<GpuStageOutput> {
        let prepared =
            self.prepare_plan(plan, view, options.octave_budget, options.specialize, form)?;
        let groups = dispatch_size(view);
        let mut textures: Vec<wgpu::Texture> = Vec::new();
        for (stage, prepared) in plan.stages.iter().zip(&prepared) {
            let out = self.take_field_texture(view, &stage.node, form);
            if options.poison {
                self.poison(&out, view, form);
            }
            let uniforms = pass_uniforms(stage, plan.seed, view, &prepared.passes);
            let inline = inline_uniforms(stage, plan.seed, view);
            let buffers = self.create_stage_buffers(stage, prepared, &uniforms, &inline, view);
            let bind_groups =
                self.bind_stage(stage, prepared, &buffers, &texture_view(&out), &textures);
            record_stage(encoder, stage, prepared, &bind_groups, groups);
            textures.push(out);
        }
        Ok(GpuStageOutput { textures })
    }

    /// Records and submits a plan in `form`, checking for validation errors.
    fn submit_plan(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
        form: FieldForm,
    ) -> Result<GpuStageOutput> {
        let mut encoder = self
            .device()
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("noisegraph plan"),
            });
        let scope = self
            .device()
            .push_error_scope(wgpu::ErrorFilter::Validation);
        let output = self.encode_plan_in(&mut encoder, plan, view, options, form)?;
        self.queue().submit(Some(encoder.finish()));
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("running the plan failed: {err}")));
        }
        Ok(output)
    }

    /// Runs a plan and reads back the stages named by `which` (plan indices).
    pub fn run_stages(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
        which: &[usize],
    ) -> Result<Vec<Field>> {
        let output = self.submit_plan(plan, view, options, FieldForm::Value)?;
        let fields = which
            .iter()
            .map(|&i| {
                let data = read_texture(self, &TargetView::new(&output.textures[i]), view.size)?;
                Ok(Field::new(view.size[0], view.size[1], view.size[2], data))
            })
            .collect::<Result<Vec<Field>>>()?;
        // The readbacks waited for the device, so the next run may reuse the textures.
        self.pool().give_textures(output.textures);
        Ok(fields)
    }

    /// Runs a plan in gradient form and reads back the gradient fields of the stages named
    /// by `which` (plan indices): `[value, d/dx, d/dy, d/dz]` per pixel with respect to the
    /// view coordinates.
    pub fn run_gradient_stages(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
        which: &[usize],
    ) -> Result<Vec<GradientField>> {
        let output = self.submit_plan(plan, view, options, FieldForm::Gradient)?;
        let fields = which
            .iter()
            .map(|&i| {
                let data = read_texels::<[f32; 4]>(
                    self,
                    &TargetView::new(&output.textures[i]),
                    view.size,
                )?;
                Ok(GradientField::new(
                    view.size[0],
                    view.size[1],
                    view.size[2],
                    data,
                ))
            })
            .collect::<Result<Vec<GradientField>>>()?;
        self.pool().give_textures(output.textures);
        Ok(fields)
    }

    /// Runs a plan in gradient form and reads back its target's gradient field.
    pub fn run_gradient(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
    ) -> Result<GradientField> {
        let mut fields = self.run_gradient_stages(plan, view, options, &[plan.target])?;
        Ok(fields.remove(0))
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
    /// Recording, submitting and waiting for the device.
    pub dispatch: std::time::Duration,
    /// Copying the target back to the host.
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
            self,
            &TargetView::new(&output.textures[plan.target]),
            view.size,
        )?;
        self.pool().give_textures(output.textures);
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
