//! Dispatching a plan: one texture per stage, one or more compute passes per stage (octaves
//! split across passes accumulate through a second texture), then readback.

use super::assemble::WORKGROUP;
use super::pipeline::form_format;
use super::readback::{read_texels, read_texture};
use super::requirements::DeviceRequirements;
use super::stages::{dispatch_size, inline_uniforms, pass_uniforms, record_stage, texture_view};
use super::target::TargetView;
use super::GpuContext;
use crate::error::{Error, Result};
use crate::field::{Field, FieldForm, GradientField};
use crate::graph::{Plan, View};
use crate::tiling::pieces_within;

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

/// Which form of kernel a run's generate stages use: the generic kernel, which reads each
/// octave's numbers (lattice offsets, steps, seeds, amplitudes) from the uniform buffer, or
/// one specialized to them, with the numbers compiled in. The two compute the same operations
/// on the same numbers but may differ by an ulp where constant folding rounds an operation
/// differently, so the form is chosen from the job alone (the plan, the whole view a tile
/// belongs to, the adapter), never from what ran before: every run, tile and shard of a job
/// uses the same form, and a job's bits do not depend on the process's history. On lavapipe
/// the specialized 8-octave Perlin fBm dispatch takes about half the time, and compiling it
/// 3 to 4 times longer (BENCHMARKS.md). A specialized kernel serves one graph on one view
/// (its tiles included): another seed, origin or scale needs another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Specialize {
    /// Always read the parameters from uniforms: one pipeline per graph shape.
    Never,
    /// Specialize a stage when the adapter is a CPU adapter (lavapipe) and the stage's work
    /// over the whole view (its octaves, those of inline warp chains included, times the
    /// pixels of the whole image a tile belongs to) is at least [`SPECIALIZE_MIN_WORK`]:
    /// there the faster kernel repays its compile within the job. Otherwise generic, so small
    /// one-off runs never pay the longer compile. No measurement showed the specialized form
    /// faster on a real GPU, so there it stays generic.
    #[default]
    Auto,
    /// Always specialize.
    Always,
}

/// Octave samples (octaves, those of inline warp chains included, times the pixels of the
/// whole view) from which a stage on a CPU adapter is specialized under [`Specialize::Auto`].
/// On lavapipe the specialized Perlin fBm kernel saves about 2.7 ns per octave sample and
/// costs about 120 ms more to compile, so it pays from about 45 million (BENCHMARKS.md); this
/// is 2^26, about 67 million: a 2048 x 2048 view of 16 octaves, or 4096 x 4096 of 4.
pub const SPECIALIZE_MIN_WORK: u64 = 1 << 26;

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

/// Error scopes around a run: out-of-memory, validation and internal errors of everything
/// created, recorded and submitted while they are pushed come back from [`RunScopes::pop`]
/// as an [`Error`], instead of reaching the device's uncaptured-error handler (wgpu's
/// default panics).
pub(crate) struct RunScopes(Vec<wgpu::ErrorScopeGuard>);

impl RunScopes {
    pub(crate) fn push(device: &wgpu::Device) -> Self {
        RunScopes(
            [
                wgpu::ErrorFilter::OutOfMemory,
                wgpu::ErrorFilter::Validation,
                wgpu::ErrorFilter::Internal,
            ]
            .into_iter()
            .map(|f| device.push_error_scope(f))
            .collect(),
        )
    }

    /// Pops the scopes (innermost first) and returns what they caught: running out of memory
    /// first (the validation errors it causes downstream are its consequences), else the
    /// first error.
    pub(crate) fn pop(mut self, plan: &Plan, view: &View) -> Result<()> {
        let mut caught = Vec::new();
        while let Some(scope) = self.0.pop() {
            caught.extend(pollster::block_on(scope.pop()));
        }
        let out_of_memory = caught
            .iter()
            .position(|e| matches!(e, wgpu::Error::OutOfMemory { .. }));
        let reported = match out_of_memory {
            Some(i) => Some(caught.swap_remove(i)),
            None => caught.into_iter().next(),
        };
        match reported {
            None => Ok(()),
            Some(wgpu::Error::OutOfMemory { .. }) => Err(Error::Gpu(format!(
                "the GPU device ran out of memory for {} field texture(s) of {}x{}x{} ({} MiB each); bake a smaller size, an image in tiles (--tile N), or on the CPU path (--backend cpu)",
                plan.stages.len(),
                view.size[0],
                view.size[1],
                view.size[2],
                (view.pixel_count() * 4) >> 20
            ))),
            Some(e) => Err(Error::Gpu(format!("running the plan failed: {e}"))),
        }
    }
}

impl Drop for RunScopes {
    /// Pops the scopes still pushed (those of a run that failed between `push` and `pop`),
    /// innermost first: wgpu panics when scopes are popped in the order they were pushed,
    /// which is the order a `Vec` drops them in.
    fn drop(&mut self) {
        while let Some(scope) = self.0.pop() {
            drop(scope);
        }
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

    /// Records and submits a plan in `form`; out-of-memory, validation and internal errors
    /// come back as errors (see [`RunScopes`]).
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
        let scopes = RunScopes::push(self.device());
        let output = self.encode_plan_in(&mut encoder, plan, view, options, form)?;
        self.queue().submit(Some(encoder.finish()));
        scopes.pop(plan, view)?;
        Ok(output)
    }

    /// Runs a plan and reads back the stages named by `which` (plan indices). A view beyond
    /// this device's texture limits runs in pieces that fit, stitched bit for bit.
    pub fn run_stages(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
        which: &[usize],
    ) -> Result<Vec<Field>> {
        let fields = self.run_in_pieces(view, |piece| {
            let output = self.submit_plan(plan, piece, options, FieldForm::Value)?;
            let fields = which
                .iter()
                .map(|&i| read_texture(self, &TargetView::new(&output.textures[i]), piece.size))
                .collect::<Result<Vec<Vec<f32>>>>()?;
            // The readbacks waited for the device, so the next run may reuse the textures.
            self.pool().give_textures(output.textures);
            Ok(fields)
        })?;
        let [w, h, d] = view.size;
        Ok(fields
            .into_iter()
            .map(|data| Field::new(w, h, d, data))
            .collect())
    }

    /// The most pixels along each axis one run takes on this device: the texture limit
    /// (`max_texture_dimension_2d` for an image, `_3d` for a volume) and the dispatch limit
    /// (`max_compute_workgroups_per_dimension` workgroups).
    fn piece_limit(&self, view: &View) -> [u32; 3] {
        let limits = self.limits();
        let groups = limits.max_compute_workgroups_per_dimension;
        let texture = if view.is_volume() {
            limits.max_texture_dimension_3d
        } else {
            limits.max_texture_dimension_2d
        };
        [
            texture.min(groups.saturating_mul(WORKGROUP[0])),
            texture.min(groups.saturating_mul(WORKGROUP[1])),
            texture.min(groups),
        ]
    }

    /// Runs `run` (which returns fields of the piece it is given, x fastest) on each piece
    /// of `view` within this device's limits ([`pieces_within`]) and stitches the pieces
    /// into fields of the whole view. A view that fits is one piece, run as it is; a volume
    /// deeper or wider than the device's textures runs in slabs, which stitch bit for bit
    /// like any tiles.
    fn run_in_pieces<T: Copy + Default>(
        &self,
        view: &View,
        mut run: impl FnMut(&View) -> Result<Vec<Vec<T>>>,
    ) -> Result<Vec<Vec<T>>> {
        let pieces = pieces_within(view, self.piece_limit(view));
        if pieces.len() == 1 {
            return run(view);
        }
        let [w, h, d] = view.size.map(|s| s as usize);
        let base = view.pixel_offset();
        let mut whole: Vec<Vec<T>> = Vec::new();
        for piece in &pieces {
            let fields = run(piece)?;
            if whole.is_empty() {
                for _ in &fields {
                    let mut data = Vec::new();
                    data.try_reserve_exact(w * h * d).map_err(|_| {
                        Error::Limit(format!(
                            "size: no memory to hold a field of {w}x{h}x{d} samples"
                        ))
                    })?;
                    data.resize(w * h * d, T::default());
                    whole.push(data);
                }
            }
            let [pw, ph, pd] = piece.size.map(|s| s as usize);
            let offset = piece.pixel_offset();
            let [ox, oy, oz]: [usize; 3] = std::array::from_fn(|a| (offset[a] - base[a]) as usize);
            for (out, field) in whole.iter_mut().zip(&fields) {
                for (row, samples) in field.chunks_exact(pw).enumerate() {
                    let (y, z) = (row % ph, row / ph);
                    let start = ((oz + z) * h + oy + y) * w + ox;
                    out[start..start + pw].copy_from_slice(samples);
                }
                debug_assert_eq!(field.len(), pw * ph * pd);
            }
        }
        Ok(whole)
    }

    /// Runs a plan in gradient form and reads back the gradient fields of the stages named
    /// by `which` (plan indices): `[value, d/dx, d/dy, d/dz]` per pixel with respect to the
    /// view coordinates. In pieces, like [`GpuContext::run_stages`], beyond the device's limits.
    pub fn run_gradient_stages(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
        which: &[usize],
    ) -> Result<Vec<GradientField>> {
        let fields = self.run_in_pieces(view, |piece| {
            let output = self.submit_plan(plan, piece, options, FieldForm::Gradient)?;
            let fields = which
                .iter()
                .map(|&i| {
                    read_texels::<[f32; 4]>(self, &TargetView::new(&output.textures[i]), piece.size)
                })
                .collect::<Result<Vec<Vec<[f32; 4]>>>>()?;
            self.pool().give_textures(output.textures);
            Ok(fields)
        })?;
        let [w, h, d] = view.size;
        Ok(fields
            .into_iter()
            .map(|data| GradientField::new(w, h, d, data))
            .collect())
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
        let scopes = RunScopes::push(self.device());
        let output = self.encode_plan(&mut encoder, plan, view, options)?;
        let index = self.queue().submit(Some(encoder.finish()));
        scopes.pop(plan, view)?;
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
