//! The GPU executor: a device of its own or a caller's, a pipeline cache keyed by shader
//! source, dispatch of a plan's stages, and readback.

pub mod assemble;
mod execute;
mod pipeline;
mod readback;

use std::sync::Arc;

pub use execute::{GpuStageOutput, RunOptions, RunTimings};
pub use pipeline::PipelineCache;

use crate::error::{Error, Result};

/// A wgpu device and queue with noisegraph's pipeline cache.
///
/// `GpuContext` is `Send + Sync` and cheap to share behind an `Arc`; several graphs may run
/// on one context from several threads.
pub struct GpuContext {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    pipelines: Arc<PipelineCache>,
}

impl GpuContext {
    /// Opens a headless device of its own: a real GPU when there is one, else a CPU adapter
    /// such as Mesa's lavapipe. `Error::NoAdapter` when wgpu finds none.
    pub fn new() -> Result<Self> {
        pollster::block_on(Self::new_async())
    }

    pub async fn new_async() -> Result<Self> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: false,
                compatible_surface: None,
                apply_limit_buckets: false,
            })
            .await
            .map_err(|_| Error::NoAdapter)?;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("noisegraph"),
                required_features: wgpu::Features::empty(),
                required_limits: adapter.limits(),
                experimental_features: wgpu::ExperimentalFeatures::disabled(),
                memory_hints: wgpu::MemoryHints::Performance,
                trace: wgpu::Trace::Off,
            })
            .await
            .map_err(|e| Error::Gpu(format!("request_device failed: {e}")))?;
        Ok(Self::from_device(device, queue))
    }

    /// Wraps a caller's device and queue (a renderer's own); nothing is submitted to the
    /// queue except by the run and readback methods the caller invokes.
    pub fn from_device(device: wgpu::Device, queue: wgpu::Queue) -> Self {
        let info = device.adapter_info();
        GpuContext {
            device,
            queue,
            info,
            pipelines: Arc::new(PipelineCache::default()),
        }
    }

    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }
    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
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

    pub(crate) fn pipelines(&self) -> &PipelineCache {
        &self.pipelines
    }
}

/// Whether the environment demands a GPU adapter (`NOISEGRAPH_REQUIRE_GPU=1`, set by CI).
pub fn gpu_required() -> bool {
    std::env::var("NOISEGRAPH_REQUIRE_GPU").is_ok_and(|v| v == "1")
}
