//! What a workload costs per sample, from the kernels the engine assembles for it: the
//! operations (counted by `ops`) and the bytes the kernels move to and from memory.

use noisegraph::gpu::assemble::{
    combine_source_in, generate_source_in, GenerateLayout, OctavePass,
};
use noisegraph::gpu::{GpuPointQuery, RunOptions};
use noisegraph::graph::{octave_passes, Displacement, StageKind};
use noisegraph::{FieldForm, Plan, View};

use crate::ops::{count_entry_point, count_function, OpCount};

/// Per sample: operations, bytes written and bytes read.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct Cost {
    pub ops: OpCount,
    pub bytes_written: f64,
    pub bytes_read: f64,
}

impl Cost {
    pub fn bytes(&self) -> f64 {
        self.bytes_written + self.bytes_read
    }
}

/// Bytes of one texel of a field in `form` (R32Float or Rgba32Float).
fn texel(form: FieldForm) -> f64 {
    match form {
        FieldForm::Value => 4.0,
        FieldForm::Gradient => 16.0,
    }
}

/// A plan's cost per pixel of `view`: the sum over its stages of the generic kernel of each
/// (all octaves in one pass: splitting octaves across passes splits the same arithmetic),
/// each pass's store, and the loads of partial sums, displacement fields and combined inputs.
pub fn plan_cost(
    plan: &Plan,
    view: &View,
    options: &RunOptions,
    form: FieldForm,
) -> Result<Cost, String> {
    let mut cost = Cost::default();
    let texel = texel(form);
    for stage in &plan.stages {
        let (source, passes, reads) = match &stage.kind {
            StageKind::Generate(g) => {
                let layout = GenerateLayout {
                    volume: view.is_volume(),
                    partial: false,
                    displace: g.displace.len() as u32,
                    inline: GenerateLayout::inline_mask(g),
                    aux: g.aux_data(plan.seed).is_some(),
                };
                let source = generate_source_in(form, g, layout, OctavePass::whole(g), None)
                    .ok_or_else(|| {
                        format!("node '{}' has no kernel in {form:?} form", stage.node)
                    })?;
                let passes =
                    octave_passes(g.octave_count(), view.pixel_count(), options.octave_budget)
                        .len();
                let fields = g
                    .displace
                    .iter()
                    .filter(|d| matches!(d, Displacement::Field(_)))
                    .count();
                // Each later pass reads the partial sum; each pass reads the displacements.
                (source, passes, (passes - 1 + passes * fields) as f64)
            }
            StageKind::Combine { op, inputs } => (
                combine_source_in(
                    form,
                    view.is_volume(),
                    inputs.len() as u32,
                    op.curve_table().is_some(),
                ),
                1,
                inputs.len() as f64,
            ),
        };
        let ops = count_entry_point(&source).map_err(|e| format!("stage '{}': {e}", stage.node))?;
        cost.ops = OpCount::scaled_sum(&[(cost.ops, 1.0), (ops, 1.0)]);
        cost.bytes_written += passes as f64 * texel;
        cost.bytes_read += reads * texel;
    }
    Ok(cost)
}

/// A point query's cost per point: the exported `<name>_precise` (or `_grad_precise`)
/// function, a 32-byte point read and its results written.
pub fn point_cost(query: &GpuPointQuery, gradient: bool) -> Result<Cost, String> {
    let module = query.module();
    let function = if gradient {
        format!("{}_grad_precise", module.name)
    } else {
        format!("{}_precise", module.name)
    };
    Ok(Cost {
        ops: count_function(&module.source, &function)?,
        bytes_written: 4.0 * query.output_width() as f64,
        bytes_read: std::mem::size_of::<noisegraph::gpu::GpuPoint>() as f64,
    })
}
