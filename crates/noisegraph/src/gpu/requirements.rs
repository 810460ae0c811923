//! What a plan needs from a device: the `wgpu::Limits` its stages use on a view, computed
//! without a device, so that a renderer can ask for them when it creates its own and the
//! engine can name every limit that is short before anything is created.

use super::assemble::{BINDING_AUX, BINDING_INLINE, BINDING_POSITIONS, WORKGROUP};
use super::stages::dispatch_size;
use super::GpuContext;
use crate::error::{Error, MissingLimit, Result};
use crate::graph::position::PositionTable;
use crate::graph::{Plan, StageKind, StageUniform, View};

/// One limit and how much of it is needed, with the accessors of its `wgpu::Limits` field.
#[derive(Clone, Copy)]
struct LimitNeed {
    name: &'static str,
    needed: u64,
    get: fn(&wgpu::Limits) -> u64,
    set: fn(&mut wgpu::Limits, u64),
}

/// A [`LimitNeed`] for the `wgpu::Limits` field `$field`.
macro_rules! need {
    ($field:ident, $needed:expr) => {
        LimitNeed {
            name: stringify!($field),
            needed: u64::from($needed),
            get: |limits| u64::from(limits.$field),
            set: |limits, value| {
                limits.$field = value.try_into().unwrap_or(limits.$field);
            },
        }
    };
}

/// The device features and limits a graph needs on a view (see
/// [`CompiledGraph::requirements`](super::CompiledGraph::requirements) and
/// [`GpuContext::check_requirements`]).
///
/// A renderer that creates its own device passes [`features`](Self::features) to
/// `DeviceDescriptor::required_features` and [`raise`](Self::raise) of its own limits to
/// `required_limits`:
///
/// ```no_run
/// # fn setup(adapter: &wgpu::Adapter) -> noisegraph::Result<()> {
/// use noisegraph::{CompiledGraph, NoiseGraph, RunOptions, View};
/// let graph = NoiseGraph::from_json(r#"{"seed": 1, "output": "n",
///     "nodes": [{"id": "n", "type": "perlin", "frequency": 4}]}"#)?;
/// let needs = CompiledGraph::requirements(&graph, None, &View::image(4096, 4096), &RunOptions::default())?;
/// // The renderer's own limits, raised where the graph needs more.
/// let limits = needs.raise(wgpu::Limits::default());
/// let missing = needs.missing(&adapter.limits()); // empty when the adapter can run it
/// assert!(missing.is_empty(), "{missing:?}");
/// let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
///     required_features: needs.features(),
///     required_limits: limits,
///     ..Default::default()
/// })).expect("device");
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct DeviceRequirements {
    limits: Vec<LimitNeed>,
}

impl std::fmt::Debug for DeviceRequirements {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.limits.iter().map(|n| (n.name, n.needed)))
            .finish()
    }
}

impl DeviceRequirements {
    /// The optional device features the graph needs: none (every kernel runs on core WebGPU
    /// compute). `Features::FLOAT32_FILTERABLE` is only for a renderer that wants to sample
    /// the R32Float output with a linear filter (see [`GpuContext::float32_filterable`]).
    pub fn features(&self) -> wgpu::Features {
        wgpu::Features::empty()
    }

    /// Each limit the graph uses, by its `wgpu::Limits` field name, with the value needed.
    pub fn limits(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.limits.iter().map(|n| (n.name, n.needed))
    }

    /// The value needed of one limit (by its `wgpu::Limits` field name), if the graph uses it.
    pub fn limit(&self, name: &str) -> Option<u64> {
        self.limits
            .iter()
            .filter(|n| n.name == name)
            .map(|n| n.needed)
            .max()
    }

    /// The limits `available` falls short of (empty when a device with them can run the
    /// graph).
    pub fn missing(&self, available: &wgpu::Limits) -> Vec<MissingLimit> {
        self.limits
            .iter()
            .filter(|n| n.needed > (n.get)(available))
            .map(|n| MissingLimit {
                name: n.name,
                needed: n.needed,
                available: (n.get)(available),
            })
            .collect()
    }

    /// `base` with every limit the graph needs raised to at least the value needed: what to
    /// pass as `DeviceDescriptor::required_limits` (the adapter must support it; check with
    /// [`missing`](Self::missing) on `Adapter::limits`).
    pub fn raise(&self, mut base: wgpu::Limits) -> wgpu::Limits {
        for n in &self.limits {
            if n.needed > (n.get)(&base) {
                (n.set)(&mut base, n.needed);
            }
        }
        base
    }

    /// The needs of the engine's own textures for `view`: the largest side against the 2D or
    /// 3D texture limit.
    pub(crate) fn for_view(view: &View) -> Self {
        let size = view.size;
        let limits = if view.is_volume() {
            vec![need!(
                max_texture_dimension_3d,
                size.iter().copied().max().unwrap_or(1)
            )]
        } else {
            vec![need!(max_texture_dimension_2d, size[0].max(size[1]))]
        };
        DeviceRequirements { limits }
    }

    /// What running `plan` on `view` needs, its octaves split by `octave_budget` samples per
    /// dispatch.
    pub(crate) fn for_plan(plan: &Plan, view: &View, octave_budget: u64) -> Self {
        let groups = dispatch_size(view);
        let mut sampled = 0u32;
        let mut uniform_buffers = 1u32;
        // Every generate stage binds its position tables at the highest binding.
        let mut max_binding = BINDING_AUX;
        let mut aux_bytes = 0u64;
        let mut generate = false;
        let mut table_bytes = 0u64;
        for stage in &plan.stages {
            match &stage.kind {
                StageKind::Generate(g) => {
                    let split = g.octave_passes(view.pixel_count(), octave_budget).len();
                    let fields = g.displace_fields().count() as u32;
                    sampled = sampled.max(fields + u32::from(split > 1));
                    let inline = g.displace_inline().count() as u32;
                    uniform_buffers = uniform_buffers.max(1 + inline);
                    if let Some((axis, _, _)) = g.displace_inline().last() {
                        max_binding = max_binding.max(BINDING_INLINE + axis as u32);
                    }
                    if let Some(aux) = g.aux_data(plan.seed) {
                        aux_bytes = aux_bytes.max(aux.len() as u64 * 4);
                    }
                    generate = true;
                    max_binding = max_binding.max(BINDING_POSITIONS);
                    table_bytes = table_bytes.max(PositionTable::bytes(g, view));
                }
                StageKind::Combine { inputs, .. } => sampled = sampled.max(inputs.len() as u32),
            }
        }
        let mut needs = Self::for_view(view);
        needs.limits.extend([
            need!(max_bind_groups, 1u32),
            need!(max_bindings_per_bind_group, max_binding + 1),
            need!(max_uniform_buffers_per_shader_stage, uniform_buffers),
            need!(max_storage_textures_per_shader_stage, 1u32),
            need!(max_sampled_textures_per_shader_stage, sampled),
            need!(
                max_storage_buffers_per_shader_stage,
                u32::from(aux_bytes > 0) + u32::from(generate)
            ),
            need!(
                max_uniform_buffer_binding_size,
                std::mem::size_of::<StageUniform>() as u64
            ),
            need!(max_storage_buffer_binding_size, aux_bytes.max(table_bytes)),
            need!(max_compute_workgroup_size_x, WORKGROUP[0]),
            need!(max_compute_workgroup_size_y, WORKGROUP[1]),
            need!(
                max_compute_invocations_per_workgroup,
                WORKGROUP[0] * WORKGROUP[1]
            ),
            need!(
                max_compute_workgroups_per_dimension,
                groups.iter().copied().max().unwrap_or(1)
            ),
        ]);
        needs
    }

    /// Adds the needs of a pass (a normal map) to these.
    pub(crate) fn with(mut self, more: DeviceRequirements) -> Self {
        self.limits.extend(more.limits);
        self
    }

    /// What a pass reading `sampled` textures and writing one storage texture needs.
    pub(crate) fn for_texture_pass(view: &View, sampled: u32) -> Self {
        Self::for_view(view).with(DeviceRequirements {
            limits: vec![
                need!(max_storage_textures_per_shader_stage, 1u32),
                need!(max_sampled_textures_per_shader_stage, sampled),
            ],
        })
    }
}

impl GpuContext {
    /// Checks this device against what a graph needs; the error ([`Error::DeviceLimits`])
    /// lists every limit that is short, each by its `wgpu::Limits` name.
    pub fn check_requirements(&self, needs: &DeviceRequirements) -> Result<()> {
        let missing = needs.missing(&self.limits());
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Error::DeviceLimits {
                adapter: self.describe(),
                missing,
            })
        }
    }
}
