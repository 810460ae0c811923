//! Running a plan on either path: the GPU executor (`gpu`) or the CPU reference executor
//! below, which runs the same stages with the same uniforms through the CPU twins.

use std::sync::Arc;

use crate::cpu::stage::DisplaceInput;
use crate::error::{Error, Result};
use crate::family::{RowSampler, Sampler};
use crate::field::Field;
use crate::gpu::{gpu_required, GpuContext, RunOptions};
use crate::graph::{
    octave_passes, CombineUniform, Displacement, NoiseGraph, Plan, StageKind, StageUniform, View,
};

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

/// Runs every stage of `plan` on the CPU and returns the fields of the stages in `which`.
pub fn run_cpu_stages(
    plan: &Plan,
    view: &View,
    options: &RunOptions,
    which: &[usize],
) -> Result<Vec<Field>> {
    plan.check_view(view)?;
    if view.pixel_count() > MAX_CPU_SAMPLES {
        return Err(Error::Limit(format!(
            "size: {}x{}x{} = {} samples exceeds the CPU path's limit of {MAX_CPU_SAMPLES} samples per field",
            view.size[0],
            view.size[1],
            view.size[2],
            view.pixel_count()
        )));
    }
    let len = view.pixel_count() as usize;
    let mut fields: Vec<Vec<f32>> = Vec::with_capacity(plan.stages.len());
    for stage in &plan.stages {
        let mut out = crate::field::zeroed_samples(len);
        match &stage.kind {
            StageKind::Generate(g) => {
                let base = g.uniforms(plan.seed, view);
                let aux: Arc<[f32]> = g.aux_data(plan.seed).unwrap_or_default().into();
                let sampler = g
                    .family
                    .cpu_sampler(g.dims(), &g.source.params, base.family, aux);
                let rows = g
                    .family
                    .cpu_row_sampler(g.dims(), &g.source.params, base.family);
                let points = g
                    .family
                    .cpu_points_sampler(g.dims(), &g.source.params, base.family);
                let inline: Vec<(StageUniform, Sampler, Option<RowSampler>)> = g
                    .displace_inline()
                    .map(|(_, _, chain)| {
                        let u = chain.uniforms(plan.seed, view);
                        let sample = chain.family.cpu_sampler(
                            chain.dims(),
                            &chain.source.params,
                            u.family,
                            Arc::from(Vec::new()),
                        );
                        let rows = chain.family.cpu_row_sampler(
                            chain.dims(),
                            &chain.source.params,
                            u.family,
                        );
                        (u, sample, rows)
                    })
                    .collect();
                let mut inline_iter = inline.iter();
                let displace: Vec<DisplaceInput> = g
                    .displace
                    .iter()
                    .map(|d| match d {
                        Displacement::Field(i) => DisplaceInput::Field(fields[*i].as_slice()),
                        Displacement::Inline { .. } => {
                            let (uniform, sample, rows) =
                                inline_iter.next().expect("one per chain");
                            DisplaceInput::Inline {
                                uniform,
                                sample,
                                rows: rows.as_ref(),
                            }
                        }
                    })
                    .collect();
                let passes =
                    octave_passes(g.octave_count(), view.pixel_count(), options.octave_budget);
                let mut partial: Option<Vec<f32>> = None;
                for (i, &(first, count)) in passes.iter().enumerate() {
                    let mut u = base;
                    u.size[3] = count;
                    u.mode[1] = first;
                    u.mode[2] = u32::from(i == passes.len() - 1);
                    crate::cpu::stage::run_generate(
                        &u,
                        &sampler,
                        rows.as_ref(),
                        points.as_ref(),
                        &displace,
                        partial.as_deref(),
                        &mut out,
                    );
                    if i + 1 < passes.len() {
                        partial = Some(out.clone());
                    }
                }
            }
            StageKind::Combine { op, inputs } => {
                let (code, constants) = op.code_and_constants();
                let u = CombineUniform {
                    size: [view.size[0], view.size[1], view.size[2], 0],
                    op: [code, 0, 0, 0],
                    constants,
                };
                let ins: Vec<&[f32]> = inputs.iter().map(|&i| fields[i].as_slice()).collect();
                crate::cpu::stage::run_combine(&u, &ins, &mut out);
            }
        }
        fields.push(out);
    }
    // Each requested field is moved out at its last mention in `which` and copied before.
    Ok(which
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            let data = if which[k + 1..].contains(&i) {
                fields[i].clone()
            } else {
                std::mem::take(&mut fields[i])
            };
            Field::new(view.size[0], view.size[1], view.size[2], data)
        })
        .collect())
}

/// Runs `plan` on the CPU and returns its target field.
pub fn run_cpu(plan: &Plan, view: &View, options: &RunOptions) -> Result<Field> {
    Ok(run_cpu_stages(plan, view, options, &[plan.target])?.remove(0))
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
                crate::cpu::vector_width()
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

    /// Plans and runs `node` (the graph's output when `None`).
    pub fn bake(&self, graph: &NoiseGraph, node: Option<&str>, view: &View) -> Result<Field> {
        let plan = Plan::new(graph, node)?;
        self.run(&plan, view, &RunOptions::default())
    }
}
