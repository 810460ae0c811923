//! Compute pipelines cached by their assembled shader source: compiling the same graph twice,
//! or re-running it with other numbers (which travel in uniforms), creates no new pipeline.
//! Specialized kernels (one set of numbers compiled in, `RunOptions::specialize`) are the
//! exception, compiled on request and bounded in number.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use super::assemble::{
    GenerateLayout, BINDING_AUX, BINDING_DISPLACE, BINDING_GRADIENT, BINDING_HEIGHT,
    BINDING_INLINE, BINDING_INPUTS, BINDING_OUT, BINDING_PARAMS, BINDING_PARTIAL,
    BINDING_POSITIONS, BINDING_PROBE_OUT, BINDING_PROBE_POINTS,
};
use crate::error::{Error, Result};
use crate::field::FieldForm;

/// A compiled pipeline and the layout of its bind group.
pub struct CachedPipeline {
    pub pipeline: wgpu::ComputePipeline,
    pub layout: wgpu::BindGroupLayout,
}

/// The binding shape of a stage, generate or point-wise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayoutKey {
    Generate(GenerateLayout, FieldForm),
    Combine {
        volume: bool,
        inputs: u32,
        form: FieldForm,
    },
    /// The normal-map pass: a 2D height field in, an RGBA storage texture of `format` out.
    NormalMap {
        format: wgpu::TextureFormat,
    },
    /// The analytic normal pass: a 2D gradient field (Rgba32Float) in, an RGBA storage
    /// texture of `format` out.
    AnalyticNormal {
        format: wgpu::TextureFormat,
    },
    /// A family probe (test harness): the uniform, a storage buffer of points in, one out,
    /// and with `aux` the family's table.
    Probe {
        aux: bool,
    },
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

fn uniform_entry(binding: u32) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// The storage format a stage in `form` writes.
pub fn form_format(form: FieldForm) -> wgpu::TextureFormat {
    match form {
        FieldForm::Value => wgpu::TextureFormat::R32Float,
        FieldForm::Gradient => wgpu::TextureFormat::Rgba32Float,
    }
}

/// Compiled pipelines keyed by assembled source, with a count of compilations and the time
/// they took; compiled through the driver's persistent cache when the context has one.
#[derive(Default)]
pub struct PipelineCache {
    pipelines: Mutex<HashMap<String, Arc<CachedPipeline>>>,
    creations: AtomicUsize,
    compile_nanos: AtomicU64,
    specialized: Mutex<SpecializedEntries>,
    disk: Option<wgpu::PipelineCache>,
}

/// Specialized kernels serve one set of numbers each, so they are bounded: the oldest is
/// dropped past [`MAX_SPECIALIZED`].
#[derive(Default)]
struct SpecializedEntries {
    compiled: VecDeque<String>,
}

/// Specialized pipelines held at most.
pub const MAX_SPECIALIZED: usize = 16;

fn sampled_entry(binding: u32, volume: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: if volume {
                wgpu::TextureViewDimension::D3
            } else {
                wgpu::TextureViewDimension::D2
            },
            multisampled: false,
        },
        count: None,
    }
}

/// The probe's bindings: no texture, storage buffers in and out.
fn probe_entries(aux: bool) -> Vec<wgpu::BindGroupLayoutEntry> {
    let mut entries = vec![
        uniform_entry(BINDING_PARAMS),
        storage_entry(BINDING_PROBE_POINTS, true),
        storage_entry(BINDING_PROBE_OUT, false),
    ];
    if aux {
        entries.push(storage_entry(BINDING_AUX, true));
    }
    entries
}

fn layout_entries(key: LayoutKey) -> Vec<wgpu::BindGroupLayoutEntry> {
    let (volume, out_format) = match key {
        LayoutKey::Probe { aux } => return probe_entries(aux),
        LayoutKey::Generate(g, form) => (g.volume, form_format(form)),
        LayoutKey::Combine { volume, form, .. } => (volume, form_format(form)),
        LayoutKey::NormalMap { format } | LayoutKey::AnalyticNormal { format } => (false, format),
    };
    let mut entries = vec![
        wgpu::BindGroupLayoutEntry {
            binding: BINDING_PARAMS,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        },
        wgpu::BindGroupLayoutEntry {
            binding: BINDING_OUT,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::StorageTexture {
                access: wgpu::StorageTextureAccess::WriteOnly,
                format: out_format,
                view_dimension: if volume {
                    wgpu::TextureViewDimension::D3
                } else {
                    wgpu::TextureViewDimension::D2
                },
            },
            count: None,
        },
    ];
    match key {
        LayoutKey::Generate(g, _) => {
            if g.partial {
                entries.push(sampled_entry(BINDING_PARTIAL, volume));
            }
            for i in 0..g.displace {
                if g.is_inline(i) {
                    entries.push(wgpu::BindGroupLayoutEntry {
                        binding: BINDING_INLINE + i,
                        visibility: wgpu::ShaderStages::COMPUTE,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: false,
                            min_binding_size: None,
                        },
                        count: None,
                    });
                } else {
                    entries.push(sampled_entry(BINDING_DISPLACE + i, volume));
                }
            }
            if g.aux {
                entries.push(storage_entry(BINDING_AUX, true));
            }
            entries.push(storage_entry(BINDING_POSITIONS, true));
        }
        LayoutKey::Combine { inputs, .. } => {
            for i in 0..inputs {
                entries.push(sampled_entry(BINDING_INPUTS + i, volume));
            }
        }
        LayoutKey::NormalMap { .. } => entries.push(sampled_entry(BINDING_HEIGHT, false)),
        LayoutKey::AnalyticNormal { .. } => entries.push(sampled_entry(BINDING_GRADIENT, false)),
        LayoutKey::Probe { .. } => {}
    }
    entries
}

impl PipelineCache {
    /// An empty cache whose pipelines are compiled through the driver's cache `disk`.
    pub(super) fn with_disk_cache(disk: Option<wgpu::PipelineCache>) -> Self {
        PipelineCache {
            disk,
            ..Self::default()
        }
    }

    /// Pipelines compiled so far (cache misses).
    pub fn creations(&self) -> usize {
        self.creations.load(Ordering::SeqCst)
    }

    /// Time spent compiling them (WGSL to the driver's pipeline), in seconds.
    pub fn compile_seconds(&self) -> f64 {
        self.compile_nanos.load(Ordering::SeqCst) as f64 * 1e-9
    }

    /// Number of distinct pipelines held.
    pub fn len(&self) -> usize {
        self.pipelines.lock().map(|p| p.len()).unwrap_or(0)
    }

    /// Whether no pipeline is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of specialized pipelines held (at most [`MAX_SPECIALIZED`]).
    pub fn specialized_len(&self) -> usize {
        self.specialized
            .lock()
            .map(|s| s.compiled.len())
            .unwrap_or(0)
    }

    /// The pipeline of `specialized` (a kernel with its numbers compiled in), compiled on
    /// first use and held among the last [`MAX_SPECIALIZED`] of its kind.
    pub(crate) fn get_specialized(
        &self,
        device: &wgpu::Device,
        specialized: &str,
        key: LayoutKey,
    ) -> Result<Arc<CachedPipeline>> {
        let pipeline = self.get(device, specialized, key)?;
        let evicted = {
            let mut entries = self
                .specialized
                .lock()
                .map_err(|_| Error::Gpu("pipeline cache lock poisoned".into()))?;
            if !entries.compiled.iter().any(|s| s == specialized) {
                entries.compiled.push_back(specialized.to_string());
            }
            if entries.compiled.len() > MAX_SPECIALIZED {
                entries.compiled.pop_front()
            } else {
                None
            }
        };
        if let Some(old) = evicted {
            self.pipelines
                .lock()
                .map_err(|_| Error::Gpu("pipeline cache lock poisoned".into()))?
                .remove(&old);
        }
        Ok(pipeline)
    }

    /// The pipeline for `source`, compiled on first use.
    pub(crate) fn get(
        &self,
        device: &wgpu::Device,
        source: &str,
        key: LayoutKey,
    ) -> Result<Arc<CachedPipeline>> {
        let mut map = self
            .pipelines
            .lock()
            .map_err(|_| Error::Gpu("pipeline cache lock poisoned".into()))?;
        if let Some(p) = map.get(source) {
            return Ok(p.clone());
        }
        let started = std::time::Instant::now();
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("noisegraph stage"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("noisegraph stage"),
            entries: &layout_entries(key),
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("noisegraph stage"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some("noisegraph stage"),
            layout: Some(&pipeline_layout),
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: self.disk.as_ref(),
        });
        if let Some(err) = pollster::block_on(scope.pop()) {
            return Err(Error::Gpu(format!(
                "compiling a stage pipeline failed: {err}"
            )));
        }
        self.creations.fetch_add(1, Ordering::SeqCst);
        self.compile_nanos
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::SeqCst);
        let cached = Arc::new(CachedPipeline { pipeline, layout });
        map.insert(source.to_string(), cached.clone());
        Ok(cached)
    }
}
