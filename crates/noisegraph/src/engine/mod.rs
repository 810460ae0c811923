//! Running a plan on either path: the GPU executor (`gpu`) or the CPU reference executor
//! below, which runs the same stages with the same uniforms through the CPU twins.

mod mapped;
pub mod multifractal;
pub mod stage;

use std::mem::MaybeUninit;
use std::sync::Arc;

use crate::engine::stage::{DisplaceGradInput, DisplaceInput, GradSamplers};
use crate::error::{Error, Result};
use crate::family::{GradPointsSampler, GradRowSampler, GradSampler, RowSampler, Sampler};
use crate::field::{Field, GradientField, VectorField};
use crate::gpu::{gpu_required, GpuContext, RunOptions};
use crate::graph::position::StagePositions;
use crate::graph::{
    gradient_plan, plan_gradient_refusal, CombineUniform, Displacement, GenerateStage, NoiseGraph,
    Plan, StageKind, StageUniform, View,
};
use crate::query::PointQuery;

/// Which path runs a bake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// The GPU when there is a real one; the CPU reference path when the only adapter is a
    /// CPU adapter (such as Mesa's lavapipe), which runs the same work on the same cores more
    /// slowly than the CPU path (BENCHMARKS.md), or when there is none.
    Auto,
    /// The GPU; fails when no adapter exists.
    Gpu,
    /// The CPU reference path.
    Cpu,
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "auto" => Ok(Backend::Auto),
            "gpu" => Ok(Backend::Gpu),
            "cpu" => Ok(Backend::Cpu),
            other => Err(format!("unknown backend '{other}' (auto, gpu, cpu)")),
        }
    }
}

/// Largest field the CPU path materializes in one piece (4 GiB of f32); larger bakes are tiled.
pub const MAX_CPU_SAMPLES: u64 = 1 << 30;
/// The bytes of a field of [`MAX_CPU_SAMPLES`] values: the limit of a field in any form.
const MAX_CPU_FIELD_BYTES: u64 = MAX_CPU_SAMPLES * std::mem::size_of::<f32>() as u64;

/// A form the CPU path runs a plan's stages in: what a sample holds and how a generator or
/// combine stage computes one. The stage loop around it ([`run_cpu_form`]) is one for every
/// form: the view and size limits, the memory check, the octave passes, the allocation of
/// each field and what is handed back.
trait CpuForm {
    /// One sample: the value, or `[value, d/dx, d/dy, d/dz]`.
    type Sample: Clone;
    /// The field the requested stages are handed back as.
    type Field;
    /// How messages name one field of this form.
    const FIELD: &'static str;

    /// Refuses a plan this form cannot run, before any work.
    fn check(plan: &Plan) -> Result<()>;

    /// Runs generator stage `g` (of node `node`) in `passes` (the uniforms of each octave
    /// pass, from the stage's `base` uniforms) over fields of `len` samples; `fields` holds
    /// the stages before it.
    #[allow(clippy::too_many_arguments)]
    fn generate(
        plan: &Plan,
        node: &str,
        g: &GenerateStage,
        base: &StageUniform,
        view: &View,
        fields: &[Vec<Self::Sample>],
        passes: &[StageUniform],
        len: usize,
    ) -> Result<Vec<Self::Sample>>;

    /// Runs a combine stage over `inputs` (`curve`: a `curve` stage's pieces).
    fn combine(
        u: &CombineUniform,
        curve: Option<&[[f32; 4]]>,
        inputs: &[&[Self::Sample]],
        len: usize,
    ) -> Result<Vec<Self::Sample>>;

    /// Wraps a stage's samples as a field of `size`.
    fn field(size: [u32; 3], data: Vec<Self::Sample>) -> Self::Field;
}

/// The value form: one `f32` per sample ([`Field`]).
struct ValueForm;

/// The gradient form: `[value, d/dx, d/dy, d/dz]` per sample ([`GradientField`]).
struct GradientForm;

/// Runs every stage of `plan` on the CPU in form `F` and returns the fields of the stages in
/// `which`.
fn run_cpu_form<F: CpuForm>(
    plan: &Plan,
    view: &View,
    options: &RunOptions,
    which: &[usize],
) -> Result<Vec<F::Field>> {
    plan.check_view(view)?;
    F::check(plan)?;
    let [w, h, d] = view.size;
    let sample_bytes = std::mem::size_of::<F::Sample>() as u64;
    let max = MAX_CPU_FIELD_BYTES / sample_bytes;
    if view.pixel_count() > max {
        return Err(Error::Limit(format!(
            "size: {w}x{h}x{d} = {} samples exceeds the CPU path's limit of {max} samples per {}",
            view.pixel_count(),
            F::FIELD
        )));
    }
    let len = view.pixel_count() as usize;
    // Every stage's field is held to the end, plus the partial sums of split octaves.
    let bytes = (plan.stages.len() as u64 + 1) * view.pixel_count() * sample_bytes;
    crate::memory::check_available(
        &format!(
            "the CPU path's {} {}(s) of {w}x{h}x{d}",
            plan.stages.len(),
            F::FIELD
        ),
        bytes,
    )?;
    let mut fields: Vec<Vec<F::Sample>> = Vec::with_capacity(plan.stages.len());
    for stage in &plan.stages {
        let out = match &stage.kind {
            StageKind::Generate(g) => {
                let base = g.uniforms(plan.seed, view);
                let ranges = g.octave_passes(view.pixel_count(), options.octave_budget);
                let passes: Vec<StageUniform> = ranges
                    .iter()
                    .enumerate()
                    .map(|(i, &(first, count))| {
                        let mut u = base;
                        u.size[3] = count;
                        u.mode[1] = first;
                        u.mode[2] = u32::from(i + 1 == ranges.len());
                        u
                    })
                    .collect();
                F::generate(plan, &stage.node, g, &base, view, &fields, &passes, len)?
            }
            StageKind::Combine { op, inputs } => {
                let (code, constants) = op.code_and_constants();
                let u = CombineUniform {
                    size: [w, h, d, 0],
                    op: [code, 0, 0, 0],
                    constants,
                };
                let ins: Vec<&[F::Sample]> = inputs.iter().map(|&i| fields[i].as_slice()).collect();
                let table = op.curve_table();
                let curve = table.as_ref().map(|(t, n)| &t[..2 * *n as usize]);
                F::combine(&u, curve, &ins, len)?
            }
        };
        fields.push(out);
    }
    Ok(take_requested(&mut fields, which)
        .map(|data| F::field(view.size, data))
        .collect())
}

/// The fields named by `which`, in its order: each moved out at its last mention in `which`
/// and copied before.
fn take_requested<'a, T: Clone>(
    fields: &'a mut [Vec<T>],
    which: &'a [usize],
) -> impl Iterator<Item = Vec<T>> + 'a {
    which.iter().enumerate().map(move |(k, &i)| {
        if which[k + 1..].contains(&i) {
            fields[i].clone()
        } else {
            std::mem::take(&mut fields[i])
        }
    })
}

/// A field of `len` samples, each written by `write` (a stage runner, which writes every
/// sample of the memory it is given and reads none of it), without clearing the memory first
/// (see [`crate::field::samples_capacity`]); an error when the allocation fails.
fn written_field<T>(len: usize, write: impl FnOnce(&mut [MaybeUninit<T>])) -> Result<Vec<T>> {
    let mut data = crate::field::samples_capacity(len).ok_or_else(|| {
        Error::Limit(format!(
            "size: could not allocate a field of {len} samples on the CPU path"
        ))
    })?;
    write(&mut data.spare_capacity_mut()[..len]);
    // SAFETY: the capacity is at least `len`, and `write` (a stage runner, each of which
    // writes every element it is given) has initialized the first `len` samples.
    unsafe { data.set_len(len) };
    Ok(data)
}

/// A generator stage's octave passes, in order: each writes a fresh field from the partial
/// sum of the one before (`pass(uniforms, partial sum, out)`); the last one's is the stage's.
fn run_passes<T>(
    len: usize,
    passes: &[StageUniform],
    mut pass: impl FnMut(&StageUniform, Option<&[T]>, &mut [MaybeUninit<T>]),
) -> Result<Vec<T>> {
    let mut partial: Option<Vec<T>> = None;
    for u in passes {
        let sum = written_field(len, |out| pass(u, partial.as_deref(), out))?;
        partial = Some(sum);
    }
    Ok(partial.expect("a stage has at least one octave pass"))
}

/// `out` set to zero, for the gradient stage runners, which take initialized memory (and
/// overwrite every sample of it); in parallel, as the runners' own first touch of fresh
/// pages would be.
fn zeroed(out: &mut [MaybeUninit<[f32; 4]>]) -> &mut [[f32; 4]] {
    use rayon::prelude::*;
    out.par_chunks_mut(1 << 14).for_each(|chunk| {
        for sample in chunk {
            sample.write([0.0; 4]);
        }
    });
    // SAFETY: every element was written just above, and `MaybeUninit<T>` has `T`'s layout.
    unsafe { &mut *(out as *mut [MaybeUninit<[f32; 4]>] as *mut [[f32; 4]]) }
}

impl CpuForm for ValueForm {
    type Sample = f32;
    type Field = Field;
    const FIELD: &'static str = "field";

    fn check(_: &Plan) -> Result<()> {
        Ok(())
    }

    fn generate(
        plan: &Plan,
        _node: &str,
        g: &GenerateStage,
        base: &StageUniform,
        view: &View,
        fields: &[Vec<f32>],
        passes: &[StageUniform],
        len: usize,
    ) -> Result<Vec<f32>> {
        let aux: Arc<[f32]> = g.aux_data(plan.seed).unwrap_or_default().into();
        let (dims, params) = (g.dims(), &g.source.params);
        if g.carries_state() {
            let sampler = g.family.cpu_sampler(dims, params, base.family, aux.clone());
            let grad = g.family.cpu_grad_sampler(dims, params, base.family, aux);
            let rows = g.family.cpu_row_sampler(dims, params, base.family);
            let grad_rows = g.family.cpu_grad_row_sampler(dims, params, base.family);
            let displace = displacement_fields(g, fields);
            let samplers = multifractal::StateSamplers {
                value: &sampler,
                grad: grad.as_ref(),
                rows: rows.as_ref(),
                grad_rows: grad_rows.as_ref(),
            };
            let [u] = passes else {
                unreachable!("a stage that carries a state runs in one pass")
            };
            let positions = StagePositions::new(g, view);
            return written_field(len, |out| {
                multifractal::run_generate(u, &positions, samplers, &displace, out)
            });
        }
        let sampler = g.family.cpu_sampler(dims, params, base.family, aux);
        let rows = g.family.cpu_row_sampler(dims, params, base.family);
        let points = g.family.cpu_points_sampler(dims, params, base.family);
        let positions = StagePositions::new(g, view);
        let inline: Vec<(StageUniform, StagePositions, Sampler, Option<RowSampler>)> = g
            .displace_inline()
            .map(|(_, _, chain)| {
                let u = chain.uniforms(plan.seed, view);
                let positions = StagePositions::new(chain, view);
                let (dims, params) = (chain.dims(), &chain.source.params);
                let sample =
                    chain
                        .family
                        .cpu_sampler(dims, params, u.family, Arc::from(Vec::new()));
                let rows = chain.family.cpu_row_sampler(dims, params, u.family);
                (u, positions, sample, rows)
            })
            .collect();
        let mut inline_iter = inline.iter();
        let displace: Vec<DisplaceInput> = g
            .displace
            .iter()
            .map(|d| match d {
                Displacement::Field(i) => DisplaceInput::Field(fields[*i].as_slice()),
                Displacement::Inline { .. } => {
                    let (uniform, positions, sample, rows) =
                        inline_iter.next().expect("one per chain");
                    DisplaceInput::Inline {
                        uniform,
                        positions,
                        sample,
                        rows: rows.as_ref(),
                    }
                }
            })
            .collect();
        run_passes(len, passes, |u, partial, out| {
            crate::engine::stage::run_generate(
                u,
                &positions,
                &sampler,
                rows.as_ref(),
                points.as_ref(),
                &displace,
                partial,
                out,
            )
        })
    }

    fn combine(
        u: &CombineUniform,
        curve: Option<&[[f32; 4]]>,
        inputs: &[&[f32]],
        len: usize,
    ) -> Result<Vec<f32>> {
        written_field(len, |out| {
            crate::engine::stage::run_combine(u, curve, inputs, out)
        })
    }

    fn field([w, h, d]: [u32; 3], data: Vec<f32>) -> Field {
        Field::new(w, h, d, data)
    }
}

impl CpuForm for GradientForm {
    type Sample = [f32; 4];
    type Field = GradientField;
    const FIELD: &'static str = "gradient field";

    fn check(plan: &Plan) -> Result<()> {
        match plan_gradient_refusal(plan) {
            Some(why) => Err(Error::InvalidRequest(why)),
            None => Ok(()),
        }
    }

    fn generate(
        plan: &Plan,
        node: &str,
        g: &GenerateStage,
        base: &StageUniform,
        view: &View,
        fields: &[Vec<[f32; 4]>],
        passes: &[StageUniform],
        len: usize,
    ) -> Result<Vec<[f32; 4]>> {
        let aux: Arc<[f32]> = g.aux_data(plan.seed).unwrap_or_default().into();
        if g.carries_state() {
            let (dims, params) = (g.dims(), &g.source.params);
            let grad = g
                .family
                .cpu_grad_sampler(dims, params, base.family, aux)
                .ok_or_else(|| {
                    Error::InvalidRequest(format!(
                        "node '{node}': no analytic gradient: {}",
                        g.family.no_gradient_reason(dims, params)
                    ))
                })?;
            let displace = displacement_fields(g, fields);
            let [u] = passes else {
                unreachable!("a stage that carries a state runs in one pass")
            };
            let positions = StagePositions::new(g, view);
            return written_field(len, |out| {
                multifractal::run_generate_grad(u, &positions, &grad, dims, &displace, zeroed(out))
            });
        }
        let (rows, points) = grad_samplers(node, g, base, aux)?;
        let positions = StagePositions::new(g, view);
        let mut inline = Vec::new();
        for (_, node, chain) in g.displace_inline() {
            let u = chain.uniforms(plan.seed, view);
            let samplers = grad_samplers(node, chain, &u, Arc::from(Vec::new()))?;
            inline.push((u, StagePositions::new(chain, view), samplers));
        }
        let mut inline_iter = inline.iter();
        let displace: Vec<DisplaceGradInput> = g
            .displace
            .iter()
            .map(|d| match d {
                Displacement::Field(i) => DisplaceGradInput::Field(fields[*i].as_slice()),
                Displacement::Inline { .. } => {
                    let (uniform, positions, (rows, points)) =
                        inline_iter.next().expect("one per chain");
                    DisplaceGradInput::Inline {
                        uniform,
                        positions,
                        samplers: GradSamplers { rows, points },
                    }
                }
            })
            .collect();
        run_passes(len, passes, |u, partial, out| {
            let samplers = GradSamplers {
                rows: &rows,
                points: &points,
            };
            crate::engine::stage::run_generate_grad(
                u,
                &positions,
                samplers,
                &displace,
                partial,
                zeroed(out),
            )
        })
    }

    fn combine(
        u: &CombineUniform,
        curve: Option<&[[f32; 4]]>,
        inputs: &[&[[f32; 4]]],
        len: usize,
    ) -> Result<Vec<[f32; 4]>> {
        written_field(len, |out| {
            crate::engine::stage::run_combine_grad(u, curve, inputs, zeroed(out))
        })
    }

    fn field([w, h, d]: [u32; 3], data: Vec<[f32; 4]>) -> GradientField {
        GradientField::new(w, h, d, data)
    }
}

/// Runs every stage of `plan` on the CPU and returns the fields of the stages in `which`.
pub fn run_cpu_stages(
    plan: &Plan,
    view: &View,
    options: &RunOptions,
    which: &[usize],
) -> Result<Vec<Field>> {
    run_cpu_form::<ValueForm>(plan, view, options, which)
}

/// Runs `plan` on the CPU and returns its target field.
pub fn run_cpu(plan: &Plan, view: &View, options: &RunOptions) -> Result<Field> {
    Ok(run_cpu_stages(plan, view, options, &[plan.target])?.remove(0))
}

/// The displacement fields of a stage that carries a state, one per warped axis (the planner
/// fuses no chain into such a stage: see `Plan`'s `fusable_chain`).
fn displacement_fields<'a, T>(g: &GenerateStage, fields: &'a [Vec<T>]) -> Vec<&'a [T]> {
    g.displace
        .iter()
        .map(|d| match d {
            Displacement::Field(i) => fields[*i].as_slice(),
            Displacement::Inline { .. } => {
                unreachable!("a stage that carries a state reads its displacements from fields")
            }
        })
        .collect()
}

/// The gradient samplers of a generator chain on the CPU path: the family's vectorized row and
/// points samplers where it has them, else its point gradient sampler, wrapped. An error names
/// `node` when the family has no gradient form in the chain's dims.
fn grad_samplers(
    node: &str,
    chain: &GenerateStage,
    uniforms: &StageUniform,
    aux: Arc<[f32]>,
) -> Result<(GradRowSampler, GradPointsSampler)> {
    let (family, dims, params) = (chain.family, chain.dims(), &chain.source.params);
    let point: Arc<GradSampler> = Arc::new(
        family
            .cpu_grad_sampler(dims, params, uniforms.family, aux)
            .ok_or_else(|| {
                Error::InvalidRequest(format!(
                    "node '{node}': no analytic gradient: {}",
                    family.no_gradient_reason(dims, params)
                ))
            })?,
    );
    let rows = family
        .cpu_grad_row_sampler(dims, params, uniforms.family)
        .unwrap_or_else(|| {
            let point = point.clone();
            Box::new(move |row, out| out.fill_pointwise(|i| point(&row.point(i))))
        });
    let points = family
        .cpu_grad_points_sampler(dims, params, uniforms.family)
        .unwrap_or_else(|| Box::new(move |pts, out| out.fill_pointwise(|i| point(&pts.point(i)))));
    Ok((rows, points))
}

/// Runs every stage of `plan` on the CPU in gradient form and returns the gradient fields of
/// the stages in `which`: `[value, d/dx, d/dy, d/dz]` per sample with respect to the view
/// coordinates, the value bit for bit the one [`run_cpu_stages`] gives. Fails, naming the
/// node, when a family the plan samples has no gradient form (see
/// [`crate::graph::gradient_refusal`]).
pub fn run_cpu_gradient_stages(
    plan: &Plan,
    view: &View,
    options: &RunOptions,
    which: &[usize],
) -> Result<Vec<GradientField>> {
    run_cpu_form::<GradientForm>(plan, view, options, which)
}

/// Runs `plan` on the CPU in gradient form and returns its target's gradient field.
pub fn run_cpu_gradient(plan: &Plan, view: &View, options: &RunOptions) -> Result<GradientField> {
    Ok(run_cpu_gradient_stages(plan, view, options, &[plan.target])?.remove(0))
}

/// An executor chosen once: a GPU context or the CPU path.
pub enum Executor {
    /// Runs on this GPU context.
    Gpu(Arc<GpuContext>),
    /// Runs on the CPU reference path.
    Cpu,
}

impl Executor {
    /// Picks the path for `backend` (see [`Backend::Auto`]). With `Auto`, a missing adapter
    /// falls back to the CPU unless `NOISEGRAPH_REQUIRE_GPU=1`.
    pub fn new(backend: Backend) -> Result<Executor> {
        Ok(Self::choose(backend)?.0)
    }

    /// [`Executor::new`], with the reason when `Auto` chose the CPU path (for the user).
    pub fn choose(backend: Backend) -> Result<(Executor, Option<String>)> {
        match backend {
            Backend::Cpu => Ok((Executor::Cpu, None)),
            Backend::Gpu => Ok((Executor::Gpu(Arc::new(GpuContext::new()?)), None)),
            Backend::Auto => {
                use crate::gpu::adapter_cache::{self, CpuAnswer};
                // The probe's answer from the cache folder, when it led to the CPU path and
                // nothing it depends on has changed (never when a GPU is required).
                let cached = (!gpu_required()).then(adapter_cache::cached).flatten();
                let answer = match cached.clone() {
                    Some(answer) => Some(answer),
                    None => match crate::gpu::default_adapter_info() {
                        Ok(info) if info.device_type == wgpu::DeviceType::Cpu => {
                            Some(CpuAnswer::CpuAdapter(info.name))
                        }
                        Ok(_) => None,
                        Err(Error::NoAdapter) if !gpu_required() => Some(CpuAnswer::NoAdapter),
                        Err(e) => return Err(e),
                    },
                };
                if cached.is_none() {
                    adapter_cache::remember(answer.as_ref());
                }
                let from_cache = if cached.is_some() {
                    " (adapter probe answer from the cache; `noisegraph info` probes again)"
                } else {
                    ""
                };
                match answer {
                    Some(CpuAnswer::CpuAdapter(name)) => Ok((
                        Executor::Cpu,
                        Some(format!(
                            "the only GPU adapter ({name}) is a CPU adapter, slower on these \
                             cores than the CPU reference path; using the CPU path (--backend \
                             gpu uses the adapter){from_cache}"
                        )),
                    )),
                    Some(CpuAnswer::NoAdapter) => Ok((
                        Executor::Cpu,
                        Some(format!(
                            "no GPU adapter found; using the CPU reference path{from_cache}"
                        )),
                    )),
                    None => Ok((Executor::Gpu(Arc::new(GpuContext::new()?)), None)),
                }
            }
        }
    }

    /// Says which path runs, for the tool's stderr line and summaries.
    pub fn describe(&self) -> String {
        match self {
            Executor::Gpu(ctx) => format!("GPU: {}", ctx.describe()),
            Executor::Cpu => format!(
                "CPU reference path ({} threads, {} loops)",
                rayon::current_num_threads(),
                crate::vector::vector_width()
            ),
        }
    }

    /// Runs `plan` over `view` and returns its target field.
    pub fn run(&self, plan: &Plan, view: &View, options: &RunOptions) -> Result<Field> {
        match self {
            Executor::Gpu(ctx) => ctx.run(plan, view, options),
            Executor::Cpu => run_cpu(plan, view, options),
        }
    }

    /// Runs `plan` over `view` and returns the fields of the stages listed in `which`, in that order.
    pub fn run_stages(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
        which: &[usize],
    ) -> Result<Vec<Field>> {
        match self {
            Executor::Gpu(ctx) => ctx.run_stages(plan, view, options, which),
            Executor::Cpu => run_cpu_stages(plan, view, options, which),
        }
    }

    /// The values of `node` (the graph's output when `None`) at `positions` (`dims`
    /// coordinates per point; see [`crate::query`]), with gradients (`1 + dims` numbers per
    /// point) when `gradient`: on the CPU path ([`PointQuery`]) or the GPU
    /// ([`crate::gpu::GpuPointQuery`], positions uploaded and results read back).
    pub fn sample_points(
        &self,
        graph: &NoiseGraph,
        node: Option<&str>,
        positions: &[f64],
        gradient: bool,
    ) -> Result<Vec<f32>> {
        match self {
            Executor::Gpu(ctx) => {
                crate::gpu::GpuPointQuery::new(ctx.clone(), graph, node, gradient)?.run(positions)
            }
            Executor::Cpu => {
                let query = PointQuery::new(graph, node)?;
                if gradient {
                    query.gradients(positions)
                } else {
                    query.values(positions)
                }
            }
        }
    }

    /// Plans and runs `node` (the graph's output when `None`).
    pub fn bake(&self, graph: &NoiseGraph, node: Option<&str>, view: &View) -> Result<Field> {
        let plan = Plan::new(graph, node)?;
        self.run(&plan, view, &RunOptions::default())
    }

    /// Runs `plan` over `view` in gradient form and returns its target's value and exact
    /// gradient with respect to the view coordinates (see [`GradientField`]).
    pub fn run_gradient(
        &self,
        plan: &Plan,
        view: &View,
        options: &RunOptions,
    ) -> Result<GradientField> {
        match self {
            Executor::Gpu(ctx) => ctx.run_gradient(plan, view, options),
            Executor::Cpu => run_cpu_gradient(plan, view, options),
        }
    }

    /// Plans and runs `node` (the graph's output when `None`) in gradient form: its value and
    /// exact gradient. A node that cannot be differentiated (a family without a gradient form,
    /// or a node reading one) is refused by name (see [`gradient_plan`]).
    ///
    /// ```
    /// use noisegraph::{Backend, Executor, NoiseGraph, View};
    /// let graph = NoiseGraph::from_json(r#"{"seed": 7, "output": "f", "nodes": [
    ///     {"id": "n", "type": "perlin", "frequency": 4},
    ///     {"id": "f", "type": "fbm", "source": "n", "octaves": 5}]}"#)?;
    /// let view = View::image(64, 64);
    /// let executor = Executor::new(Backend::Cpu)?;
    /// let g = executor.bake_gradient(&graph, None, &view)?;
    /// // The value channel is the value bake; d/dx and d/dy follow the field.
    /// assert_eq!(g.value(), executor.bake(&graph, None, &view)?);
    /// let [_, dx, dy, dz] = g.get(10, 20, 0);
    /// assert!(dx.is_finite() && dy.is_finite() && dz == 0.0);
    /// # Ok::<(), noisegraph::Error>(())
    /// ```
    pub fn bake_gradient(
        &self,
        graph: &NoiseGraph,
        node: Option<&str>,
        view: &View,
    ) -> Result<GradientField> {
        let plan = gradient_plan(graph, node)?;
        self.run_gradient(&plan, view, &RunOptions::default())
    }

    /// Runs the curl of `plan`'s target over `view` (see [`crate::curl`]): for an image, the
    /// 2D curl `(d/dy, -d/dx)` (2 components); for a volume, the curl of the vector potential
    /// made of three copies of the plan with decorrelated seeds (3 components). A tile of a
    /// volume is a volume, however few slices it has (its numbers are the volume's).
    pub fn run_curl(&self, plan: &Plan, view: &View, options: &RunOptions) -> Result<VectorField> {
        if view.full_size()[2] <= 1 {
            return Ok(crate::curl::curl_2d(
                &self.run_gradient(plan, view, options)?,
            ));
        }
        let mut potential = Vec::with_capacity(3);
        for copy in 0..3 {
            potential.push(self.run_gradient(
                &crate::curl::potential_copy(plan, copy),
                view,
                options,
            )?);
        }
        Ok(crate::curl::curl_3d([
            &potential[0],
            &potential[1],
            &potential[2],
        ]))
    }

    /// Plans and runs the curl of `node` (the graph's output when `None`): a divergence-free
    /// flow field (see [`Executor::run_curl`]).
    pub fn bake_curl(
        &self,
        graph: &NoiseGraph,
        node: Option<&str>,
        view: &View,
    ) -> Result<VectorField> {
        let plan = gradient_plan(graph, node)?;
        self.run_curl(&plan, view, &RunOptions::default())
    }
}
