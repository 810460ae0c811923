//! GPU-vs-CPU parity: run a plan on both paths and compare every stage, pixel by pixel.
//! This is both the project's test harness and the `noisegraph parity` command.

use crate::engine::run_cpu_stages;
use crate::error::Result;
use crate::field::Field;
use crate::gpu::{GpuContext, RunOptions};
use crate::graph::limits::{warp_weighted_cells, WARP_DIFFERENCE_PER_CELL};
use crate::graph::{Displacement, Plan, Stage, StageKind, View};

/// The numeric contract: GPU and CPU agree within this absolute difference (a warp within
/// more, see [`stage_tolerance`]).
pub const PARITY_TOLERANCE: f32 = 1e-4;

/// How far the GPU is from the CPU reference on one stage.
#[derive(Debug, Clone)]
pub struct StageParity {
    /// The node the stage materializes.
    pub node: String,
    /// Its family (or point-wise operation).
    pub family: String,
    /// Largest absolute difference (infinite when a NaN appears on either side).
    pub max_abs: f32,
    /// The stage's tolerance ([`stage_tolerance`]).
    pub tolerance: f32,
    /// Pixels over the tolerance (NaN counts).
    pub over: usize,
    /// Pixels compared.
    pub total: usize,
    /// The fraction of pixels allowed over the tolerance: 0 for continuous families, a
    /// small fraction for those with documented discontinuities.
    pub allowed_fraction: f64,
    /// The stage's field from the GPU.
    pub gpu: Field,
    /// The stage's field from the CPU reference path.
    pub cpu: Field,
}

impl StageParity {
    /// The fraction of pixels over the tolerance.
    pub fn fraction_over(&self) -> f64 {
        self.over as f64 / self.total.max(1) as f64
    }
    /// Whether the stage passes: no NaN and no more pixels over the tolerance than allowed.
    pub fn passed(&self) -> bool {
        if self.allowed_fraction == 0.0 {
            self.over == 0
        } else {
            self.gpu
                .data
                .iter()
                .chain(&self.cpu.data)
                .all(|v| !v.is_nan())
                && self.fraction_over() <= self.allowed_fraction
        }
    }
}

/// The tolerance of `stage` over `view`: [`PARITY_TOLERANCE`], and for a warp that plus its
/// source's weighted cells ([`warp_weighted_cells`], with the largest |displacement| of each
/// axis: of the field `fields` holds for a materialized displacement, the family's range for
/// an inline one) x [`WARP_DIFFERENCE_PER_CELL`].
pub fn stage_tolerance(stage: &Stage, view: &View, fields: &[Field]) -> f32 {
    let StageKind::Generate(g) = &stage.kind else {
        return PARITY_TOLERANCE;
    };
    if g.displace.is_empty() {
        return PARITY_TOLERANCE;
    }
    let mut largest = [0.0f64; 4];
    for (a, d) in g.displace.iter().enumerate().take(4) {
        largest[a] = match d {
            Displacement::Field(i) => fields[*i]
                .data
                .iter()
                .fold(0.0f32, |m, v| m.max(v.abs()))
                .into(),
            Displacement::Inline { chain, .. } => {
                let (lo, hi) = chain.family.range(chain.dims(), &chain.source.params);
                f64::from(lo.abs().max(hi.abs()))
            }
        };
    }
    let cells = warp_weighted_cells(&g.source, g.fractal.as_ref(), g.amplitude, largest, view);
    PARITY_TOLERANCE + (cells * WARP_DIFFERENCE_PER_CELL) as f32
}

/// Compares one pair of fields.
pub fn compare_fields(gpu: &Field, cpu: &Field, tolerance: f32) -> (f32, usize) {
    let mut max_abs = 0.0f32;
    let mut over = 0;
    for (a, b) in gpu.data.iter().zip(&cpu.data) {
        let d = (a - b).abs();
        let d = if d.is_nan() { f32::INFINITY } else { d };
        max_abs = max_abs.max(d);
        if d > tolerance {
            over += 1;
        }
    }
    (max_abs, over)
}

/// Runs `plan` on both paths (the GPU output textures poisoned with NaN first, so an
/// unwritten pixel fails) and compares every stage.
pub fn run_parity(ctx: &GpuContext, plan: &Plan, view: &View) -> Result<Vec<StageParity>> {
    let options = RunOptions {
        poison: true,
        ..RunOptions::default()
    };
    let all: Vec<usize> = (0..plan.stages.len()).collect();
    let gpu = ctx.run_stages(plan, view, &options, &all)?;
    let cpu = run_cpu_stages(plan, view, &options, &all)?;
    let tolerances: Vec<f32> = plan
        .stages
        .iter()
        .map(|stage| stage_tolerance(stage, view, &cpu))
        .collect();
    Ok(plan
        .stages
        .iter()
        .zip(tolerances)
        .zip(gpu.into_iter().zip(cpu))
        .map(|((stage, tolerance), (g, c))| {
            let (family, allowed) = match &stage.kind {
                StageKind::Generate(s) => (
                    s.family.name().to_string(),
                    s.family.discontinuity_allowance(s.dims(), &s.source.params),
                ),
                StageKind::Combine { op, .. } => (op.name().to_string(), 0.0),
            };
            let (max_abs, over) = compare_fields(&g, &c, tolerance);
            StageParity {
                node: stage.node.clone(),
                family,
                max_abs,
                tolerance,
                over,
                total: g.data.len(),
                allowed_fraction: allowed,
                gpu: g,
                cpu: c,
            }
        })
        .collect())
}
