//! The GPU executor: a device of its own or a caller's, a pipeline cache keyed by shader
//! source, dispatch of a plan's stages, and readback.

#![warn(missing_docs)]

#[doc(hidden)]
pub mod adapter_cache;
mod analytic_normal;
#[doc(hidden)]
pub mod assemble;
mod assemble_mapping;
mod compiled;
mod disk_cache;
mod execute;
mod normal_map;
mod pipeline;
mod points;
mod pool;
mod probe;
mod readback;
mod requirements;
mod stages;
mod target;

use std::sync::Arc;

pub use analytic_normal::{
    analytic_normal_map, analytic_normal_map_cpu, analytic_plan, AnalyticNormalPass,
};
pub use compiled::{CompiledGraph, NodeParam};
pub use disk_cache::{PipelineCacheSave, PipelineCacheState};
pub use execute::{GpuStageOutput, RunOptions, RunTimings, Specialize, SPECIALIZE_MIN_WORK};
pub use normal_map::{normal_map_cpu, Border, NormalMapFormat, NormalMapOptions, NormalMapPass};
pub use pipeline::{PipelineCache, MAX_SPECIALIZED};
pub use points::{GpuPoint, GpuPointQuery};
#[doc(hidden)]
pub use probe::FamilyProbe;
pub use requirements::DeviceRequirements;
pub use target::TargetView;

use target::TargetSpec;

use crate::error::{Error, Result};
use crate::field::Field;

/// A wgpu device and queue with noisegraph's pipeline cache.
///
/// `GpuContext` is `Send + Sync` and cheap to share behind an `Arc`; several graphs may run
/// on one context from several threads.
pub struct GpuContext {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    pipelines: Arc<PipelineCache>,
    pool: pool::ResourcePool,
    disk_cache: Option<disk_cache::DiskCache>,
    disk_cache_state: PipelineCacheState,
}

impl GpuContext {
    /// Opens a headless device of its own: a real GPU when there is one, else a CPU adapter
    /// such as Mesa's lavapipe. `Error::NoAdapter` when wgpu finds none. Pipelines compile
    /// through the persistent pipeline cache in the cache folder where the backend has one
    /// (see [`GpuContext::with_cache_dir`]).
    pub fn new() -> Result<Self> {
        pollster::block_on(Self::new_async())
    }

    /// [`GpuContext::new`] without blocking.
    pub async fn new_async() -> Result<Self> {
        Self::with_cache_dir_async(crate::cache::cache_dir()).await
    }

    /// [`GpuContext::new`] with the persistent pipeline cache kept in `dir` (`None`: no
    /// persistent cache). The cache is read here; [`GpuContext::save_pipeline_cache`] writes
    /// it back. `new` uses `$NOISEGRAPH_CACHE_DIR`, else `$XDG_CACHE_HOME/noisegraph`, else
    /// `~/.cache/noisegraph`.
    pub fn with_cache_dir(dir: Option<std::path::PathBuf>) -> Result<Self> {
        pollster::block_on(Self::with_cache_dir_async(dir))
    }

    async fn with_cache_dir_async(dir: Option<std::path::PathBuf>) -> Result<Self> {
        let adapter = default_adapter().await?;
        let info = adapter.get_info();
        let cache_path = match &dir {
            Some(dir) if adapter.features().contains(wgpu::Features::PIPELINE_CACHE) => {
                disk_cache::cache_path(dir, &info)
            }
            _ => None,
        };
        let required_features = if cache_path.is_some() {
            wgpu::Features::PIPELINE_CACHE
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("noisegraph"),
                required_features,
                required_limits: adapter.limits(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| Error::Gpu(format!("request_device failed: {e}")))?;
        // Runs catch their errors in error scopes; anything else is reported, not a panic
        // (wgpu's default handler panics).
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
            eprintln!("noisegraph: GPU error: {e}");
        }));
        let mut ctx = Self::from_device(device, queue);
        match cache_path {
            Some(path) => {
                let (cache, state) = disk_cache::open(&ctx.device, path);
                ctx.pipelines =
                    Arc::new(PipelineCache::with_disk_cache(Some(cache.handle.clone())));
                ctx.disk_cache = Some(cache);
                ctx.disk_cache_state = state;
            }
            None if dir.is_some() => ctx.disk_cache_state = PipelineCacheState::Unsupported,
            None => {}
        }
        Ok(ctx)
    }

    /// The persistent pipeline cache this context started with.
    pub fn pipeline_cache_state(&self) -> &PipelineCacheState {
        &self.disk_cache_state
    }

    /// Writes the persistent pipeline cache back to its file when pipelines were compiled
    /// into it since it was loaded (atomically: a temporary file renamed into place).
    pub fn save_pipeline_cache(&self) -> Result<PipelineCacheSave> {
        let Some(cache) = &self.disk_cache else {
            return Ok(PipelineCacheSave::None);
        };
        cache
            .save()
            .map_err(|e| Error::Gpu(format!("saving the pipeline cache: {e}")))
    }

    /// Wraps a caller's device and queue (a renderer's own; wgpu handles are cheap clones, so
    /// the caller keeps using its own). Nothing is submitted to the queue except by the run
    /// and readback methods the caller invokes; [`CompiledGraph::record`] only records into
    /// the caller's encoder (and queues uniform writes with `Queue::write_buffer`).
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue) -> Self {
        let info = device.adapter_info();
        GpuContext {
            device,
            queue,
            info,
            pipelines: Arc::new(PipelineCache::default()),
            pool: pool::ResourcePool::default(),
            disk_cache: None,
            disk_cache_state: PipelineCacheState::Off,
        }
    }

    /// The device everything is created on.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }
    /// The queue runs and readbacks submit to.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }
    /// The adapter behind the device.
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }
    /// The device's limits (for a borrowed device: those it was created with).
    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// Whether R32Float textures (such as a [`CompiledGraph`] target) may be sampled with a
    /// linear filter: true when the device was created with `Features::FLOAT32_FILTERABLE`.
    /// Without it, filter the Rgba16Float output of a [`NormalMapPass`] instead.
    pub fn float32_filterable(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::FLOAT32_FILTERABLE)
    }

    /// Reads an R32Float texture back into a [`Field`]: a 2D texture (or one layer of an
    /// array) as an image, a 3D texture as a volume, at the target's mip level (mip level 0
    /// of layer 0 for a plain `&wgpu::Texture`). The texture needs `COPY_SRC` and must have
    /// been created on this context's device. Submits a copy and waits.
    pub fn read_field<'t>(&self, target: impl Into<TargetView<'t>>) -> Result<Field> {
        let target = target.into();
        self.check_readable(&target, &[wgpu::TextureFormat::R32Float])?;
        let size = target.size();
        let data = readback::read_texture(self, &target, size)?;
        Ok(Field::new(size[0], size[1], size[2], data))
    }

    /// Reads a 2D RGBA texture (Rgba8Unorm, Rgba16Float or Rgba32Float, with COPY_SRC; one
    /// layer and mip level of it as for [`read_field`](Self::read_field)) back as one
    /// `[f32; 4]` per pixel, x fastest: submits a copy and waits.
    pub fn read_rgba<'t>(&self, target: impl Into<TargetView<'t>>) -> Result<Vec<[f32; 4]>> {
        use wgpu::TextureFormat as F;
        let target = target.into();
        self.check_readable(&target, &[F::Rgba8Unorm, F::Rgba16Float, F::Rgba32Float])?;
        let format = target.texture().format();
        let size = target.size();
        let texel = format.block_copy_size(None).unwrap_or(4);
        let bytes = readback::read_texture_bytes(self, &target, size, texel)?;
        let channel = texel as usize / 4;
        Ok(bytes
            .chunks_exact(texel as usize)
            .map(|t| {
                std::array::from_fn(|c| {
                    let b = &t[c * channel..(c + 1) * channel];
                    match format {
                        F::Rgba8Unorm => b[0] as f32 / 255.0,
                        F::Rgba16Float => readback::f16_to_f32(u16::from_le_bytes([b[0], b[1]])),
                        _ => f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
                    }
                })
            })
            .collect())
    }

    /// Checks a texture to read back: format, layer, level, `COPY_SRC`, and this device.
    fn check_readable(&self, target: &TargetView, formats: &[wgpu::TextureFormat]) -> Result<()> {
        let dimension = match target.texture().dimension() {
            wgpu::TextureDimension::D3 if formats == [wgpu::TextureFormat::R32Float] => {
                wgpu::TextureDimension::D3
            }
            _ => wgpu::TextureDimension::D2,
        };
        TargetSpec {
            role: "readback",
            formats,
            dimension,
            size: None,
            usage: wgpu::TextureUsages::COPY_SRC,
        }
        .check(target)?;
        target::on_device(self.device(), &[("readback", target.texture())], || ())
    }

    /// One line naming the adapter: name, backend, device type.
    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    /// How many compute pipelines this context has compiled (cache misses).
    pub fn pipeline_creations(&self) -> usize {
        self.pipelines.creations()
    }

    /// The pipeline cache (counts of generic and specialized pipelines held).
    pub fn pipelines(&self) -> &PipelineCache {
        &self.pipelines
    }

    pub(crate) fn pool(&self) -> &pool::ResourcePool {
        &self.pool
    }
}

/// The adapter [`GpuContext::new`] opens: a real GPU when there is one, else a CPU adapter.
/// The primary backends (Vulkan, Metal, DX12) are asked first and OpenGL only when they
/// have no adapter: opening GL probes EGL, whose Mesa driver prints "XDG_RUNTIME_DIR is
/// invalid or not set" on headless machines (Slurm, Kubernetes, cron, CI). With
/// `WGPU_BACKEND` set, exactly the backends it names are asked.
async fn default_adapter() -> Result<wgpu::Adapter> {
    let tiers = match wgpu::Backends::from_env() {
        Some(backends) => vec![backends],
        None => vec![wgpu::Backends::PRIMARY, wgpu::Backends::SECONDARY],
    };
    for backends in tiers {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                apply_limit_buckets: false,
            })
            .await;
        if let Ok(adapter) = adapter {
            return Ok(adapter);
        }
    }
    Err(Error::NoAdapter)
}

/// Keeps adapter discovery quiet on a headless machine. Mesa's Vulkan device-selection layer
/// (`VK_LAYER_MESA_device_select`, an implicit layer loaded with every Mesa Vulkan driver,
/// lavapipe included) asks the Wayland display which GPU it runs on, and libwayland prints
/// "error: XDG_RUNTIME_DIR is invalid or not set in the environment" when there is no
/// session (Slurm, Kubernetes, cron, CI). When no display can exist (`XDG_RUNTIME_DIR`,
/// `WAYLAND_DISPLAY` and `DISPLAY` all unset) there is nothing for the layer to select by,
/// so this disables it (`NODEVICE_SELECT=1`, the switch its manifest declares) unless the user
/// configured it (`NODEVICE_SELECT` or `MESA_VK_DEVICE_SELECT` set). It changes the process
/// environment: call it at startup, before other threads run (the command-line tool does).
pub fn quiet_headless_probe() {
    let unset = |key: &str| std::env::var_os(key).is_none_or(|v| v.is_empty());
    let headless = ["XDG_RUNTIME_DIR", "WAYLAND_DISPLAY", "DISPLAY"]
        .iter()
        .all(|k| unset(k));
    if headless && unset("NODEVICE_SELECT") && unset("MESA_VK_DEVICE_SELECT") {
        std::env::set_var("NODEVICE_SELECT", "1");
    }
}

/// What [`GpuContext::new`] would open, without opening a device: `Error::NoAdapter` when
/// wgpu finds no adapter.
pub fn default_adapter_info() -> Result<wgpu::AdapterInfo> {
    Ok(pollster::block_on(default_adapter())?.get_info())
}

/// Whether the environment demands a GPU adapter (`NOISEGRAPH_REQUIRE_GPU=1`, set by CI).
pub fn gpu_required() -> bool {
    std::env::var("NOISEGRAPH_REQUIRE_GPU").is_ok_and(|v| v == "1")
}
