//! A test harness, not part of the engine's API: a family's plain or gradient form evaluated
//! by the GPU at a list of [`SamplePoint`]s, with a node's parameters, uniforms and auxiliary
//! table, next to the numbers its CPU twin gives for the same points. The kernel is assembled
//! from the same library, family files and sampler function as a stage
//! ([`probe_source`](super::assemble::probe_source)), so a test can compare the two forms
//! point by point where a baked field would only show them pixel by pixel.

use std::sync::Arc;

use wgpu::util::DeviceExt;

use super::assemble::{
    probe_source, BINDING_AUX, BINDING_PARAMS, BINDING_PROBE_OUT, BINDING_PROBE_POINTS,
    PROBE_WORKGROUP,
};
use super::pipeline::LayoutKey;
use super::readback::wait_for_mapping;
use super::GpuContext;
use crate::error::{Error, Result};
use crate::family::{Family, FamilyParams, FamilyUniforms, NoiseGrad, SamplePoint};
use crate::graph::{NoiseGraph, Plan, StageKind};

/// One family node as both paths evaluate it: the family, its dims, validated parameters,
/// the uniforms its stage would upload and its auxiliary table (empty when it has none).
#[doc(hidden)]
#[derive(Clone)]
pub struct FamilyProbe {
    /// The family.
    pub family: &'static dyn Family,
    /// Its dims.
    pub dims: u32,
    /// Its validated parameters.
    pub params: FamilyParams,
    /// The numbers its stage passes in the uniform buffer.
    pub uniforms: FamilyUniforms,
    /// Its auxiliary table (wave table, wavelet tile), empty when it has none.
    pub aux: Arc<[f32]>,
}

impl FamilyProbe {
    /// The output node of `graph` (a family node, or a fractal over one: its source family is
    /// probed), with the uniforms and auxiliary table its stage would get.
    pub fn of_graph(graph: &NoiseGraph) -> Result<Self> {
        let plan = Plan::new(graph, None)?;
        let StageKind::Generate(stage) = &plan.stages[plan.target].kind else {
            return Err(Error::InvalidRequest(
                "probe: the output node is not a family or fractal node".into(),
            ));
        };
        let dims = stage.dims();
        let params = stage.source.params.clone();
        Ok(FamilyProbe {
            family: stage.family,
            dims,
            uniforms: stage.family.uniforms(dims, &params),
            aux: Arc::from(stage.aux_data(plan.seed).unwrap_or_default()),
            params,
        })
    }

    /// The CPU twin's plain values at `points`.
    pub fn cpu(&self, points: &[SamplePoint]) -> Vec<f32> {
        let sample =
            self.family
                .cpu_sampler(self.dims, &self.params, self.uniforms, self.aux.clone());
        points.iter().map(sample).collect()
    }

    /// The CPU twin's gradient form at `points`, `None` when the family has none in its dims.
    pub fn cpu_grad(&self, points: &[SamplePoint]) -> Option<Vec<NoiseGrad>> {
        let sample = self.family.cpu_grad_sampler(
            self.dims,
            &self.params,
            self.uniforms,
            self.aux.clone(),
        )?;
        Some(points.iter().map(sample).collect())
    }
}

impl GpuContext {
    /// The family's plain form (`wgsl_call`) evaluated on the device at `points`.
    #[doc(hidden)]
    pub fn probe_family(&self, probe: &FamilyProbe, points: &[SamplePoint]) -> Result<Vec<f32>> {
        Ok(self
            .run_probe(probe, points, false)?
            .into_iter()
            .map(|g| g.value)
            .collect())
    }

    /// The family's gradient form (`wgsl_grad_call`) evaluated on the device at `points`; an
    /// error when the family has none in its dims.
    #[doc(hidden)]
    pub fn probe_family_grad(
        &self,
        probe: &FamilyProbe,
        points: &[SamplePoint],
    ) -> Result<Vec<NoiseGrad>> {
        self.run_probe(probe, points, true)
    }

    fn run_probe(
        &self,
        probe: &FamilyProbe,
        points: &[SamplePoint],
        gradient: bool,
    ) -> Result<Vec<NoiseGrad>> {
        if points.is_empty() {
            return Ok(Vec::new());
        }
        let aux = !probe.aux.is_empty();
        let name = probe.family.name();
        let source = probe_source(probe.family, probe.dims, &probe.params, gradient, aux)
            .ok_or_else(|| {
                Error::InvalidRequest(format!(
                    "probe: family '{name}' has no gradient form in {}D",
                    probe.dims
                ))
            })?;
        let groups = (points.len() as u64).div_ceil(PROBE_WORKGROUP as u64);
        let max_groups = self.limits().max_compute_workgroups_per_dimension as u64;
        if groups > max_groups {
            return Err(Error::Limit(format!(
                "probe: {} points need {groups} workgroups, over the device's {max_groups}",
                points.len()
            )));
        }
        let pipeline = self
            .pipelines()
            .get(self.device(), &source, LayoutKey::Probe { aux })?;
        // The uniform: (count, 0, 0, 0), then the family's 16 numbers.
        let mut uniform = vec![points.len() as u32, 0, 0, 0];
        uniform.extend(probe.uniforms.iter().map(|v| v.to_bits()));
        // A ProbePoint: cell, local, period, (seed, 0, 0, 0), each four 32-bit words.
        let words: Vec<u32> = points
            .iter()
            .flat_map(|p| {
                let mut w = [0u32; 16];
                for a in 0..4 {
                    w[a] = p.cell[a] as u32;
                    w[4 + a] = p.local[a].to_bits();
                    w[8 + a] = p.period[a] as u32;
                }
                w[12] = p.seed;
                w
            })
            .collect();
        let device = self.device();
        let init = |label: &str, contents: &[u8], usage: wgpu::BufferUsages| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let uniform = init(
            "noisegraph probe params",
            bytemuck::cast_slice(&uniform),
            wgpu::BufferUsages::UNIFORM,
        );
        let point_buffer = init(
            "noisegraph probe points",
            bytemuck::cast_slice(&words),
            wgpu::BufferUsages::STORAGE,
        );
        let aux_buffer = aux.then(|| {
            init(
                "noisegraph probe aux",
                bytemuck::cast_slice(&probe.aux),
                wgpu::BufferUsages::STORAGE,
            )
        });
        let out_bytes = points.len() as u64 * 32;
        // Poisoned with NaN, so a point the kernel did not write fails any comparison.
        let out = init(
            "noisegraph probe out",
            bytemuck::cast_slice(&vec![f32::NAN; points.len() * 8]),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        );
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("noisegraph probe readback"),
            size: out_bytes,
            usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
            mapped_at_creation: false,
        });
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: BINDING_PARAMS,
                resource: uniform.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_PROBE_POINTS,
                resource: point_buffer.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_PROBE_OUT,
                resource: out.as_entire_binding(),
            },
        ];
        if let Some(a) = &aux_buffer {
            entries.push(wgpu::BindGroupEntry {
                binding: BINDING_AUX,
                resource: a.as_entire_binding(),
            });
        }
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("noisegraph probe"),
            layout: &pipeline.layout,
            entries: &entries,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("noisegraph probe"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&pipeline.pipeline);
            pass.set_bind_group(0, &group, &[]);
            pass.dispatch_workgroups(groups as u32, 1, 1);
        }
        encoder.copy_buffer_to_buffer(&out, 0, &staging, 0, out_bytes);
        let index = self.queue().submit(Some(encoder.finish()));
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!("running the probe failed: {err}")));
        }
        let slice = staging.slice(..);
        wait_for_mapping(device, slice, index)?;
        let result = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("reading the probe failed: {e:?}")))?;
            let floats: Vec<f32> = view
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect();
            floats
                .chunks_exact(8)
                .map(|v| NoiseGrad {
                    value: v[0],
                    d: [v[4], v[5], v[6], v[7]],
                })
                .collect()
        };
        staging.unmap();
        Ok(result)
    }
}
