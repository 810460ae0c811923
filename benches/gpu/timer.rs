//! The bench's device and its kernel clock. The bench opens its device as an embedding
//! renderer would (and wraps it with `GpuContext::from_device`), asking for
//! `Features::TIMESTAMP_QUERY` where the adapter has it. Work is timed between two
//! timestamps written by empty compute passes recorded before and after it: wgpu writes a
//! pass's timestamps at the bottom of the pipe (Vulkan `BOTTOM_OF_PIPE`), so the first is
//! written when the work before it has finished and the second when the timed work has, and
//! their difference is the GPU's time for the recorded work alone (no upload, no readback, no
//! submission). Without timestamps the kernel time is "n/a", and the wall time from the submit
//! to the end of `device.poll`'s wait stands in for it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use noisegraph::GpuContext;

/// The adapter behind the bench's device, as printed and recorded.
#[derive(Debug, Clone, serde::Serialize)]
pub struct AdapterReport {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub driver_info: String,
    pub vendor: u32,
    pub device: u32,
    /// Whether kernel times come from timestamp queries.
    pub timestamps: bool,
    /// Nanoseconds per timestamp tick (`Queue::get_timestamp_period`).
    pub timestamp_period_ns: Option<f32>,
}

/// The bench's device and its timestamp queries.
pub struct Bench {
    pub ctx: Arc<GpuContext>,
    pub adapter: AdapterReport,
    timestamps: Option<Timestamps>,
}

struct Timestamps {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    period_ns: f64,
}

/// One timed submission.
#[derive(Debug, Clone, Copy)]
pub struct Timed {
    /// GPU time between the two timestamps (None without timestamp queries).
    pub kernel: Option<Duration>,
    /// Wall time from the submit to the end of the wait.
    pub submit_wait: Duration,
}

impl Bench {
    /// Opens the adapter `GpuContext::new` would pick (a real GPU first; `WGPU_BACKEND`
    /// narrows the backends) with timestamp queries where it has them.
    pub fn open() -> Result<Bench, String> {
        noisegraph::gpu::quiet_headless_probe();
        let backends = wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY);
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
            backends,
            ..wgpu::InstanceDescriptor::new_without_display_handle_from_env()
        });
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::HighPerformance,
            force_fallback_adapter: false,
            compatible_surface: None,
            apply_limit_buckets: false,
        }))
        .map_err(|e| format!("no GPU adapter ({backends:?}): {e}; install a Vulkan driver (Mesa's lavapipe: mesa-vulkan-drivers) or set VK_DRIVER_FILES"))?;
        let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("noisegraph gpu bench"),
            required_features: features,
            required_limits: adapter.limits(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| format!("request_device failed: {e}"))?;
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
            eprintln!("gpu bench: GPU error: {e}");
        }));
        let info = adapter.get_info();
        let timestamps = features
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            .then(|| Timestamps::new(&device, queue.get_timestamp_period()));
        let adapter = AdapterReport {
            name: info.name.clone(),
            backend: format!("{:?}", info.backend),
            device_type: format!("{:?}", info.device_type),
            driver: info.driver.clone(),
            driver_info: info.driver_info.clone(),
            vendor: info.vendor,
            device: info.device,
            timestamps: timestamps.is_some(),
            timestamp_period_ns: timestamps.as_ref().map(|t| t.period_ns as f32),
        };
        Ok(Bench {
            ctx: Arc::new(GpuContext::from_device(device, queue)),
            adapter,
            timestamps,
        })
    }

    pub fn device(&self) -> &wgpu::Device {
        self.ctx.device()
    }

    /// Records `work` into a fresh encoder between the two timestamps, submits it and waits.
    pub fn time<T>(
        &self,
        work: impl FnOnce(&mut wgpu::CommandEncoder) -> noisegraph::Result<T>,
    ) -> Result<(T, Timed), String> {
        let device = self.device();
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("gpu bench"),
        });
        self.mark(&mut encoder, 0);
        let out = work(&mut encoder).map_err(|e| e.to_string())?;
        self.mark(&mut encoder, 1);
        if let Some(t) = &self.timestamps {
            encoder.resolve_query_set(&t.queries, 0..2, &t.resolve, 0);
            encoder.copy_buffer_to_buffer(&t.resolve, 0, &t.read, 0, 16);
        }
        let start = Instant::now();
        let index = self.ctx.queue().submit(Some(encoder.finish()));
        device
            .poll(wgpu::PollType::Wait {
                submission_index: Some(index),
                timeout: None,
            })
            .map_err(|e| format!("waiting for the device: {e}"))?;
        let submit_wait = start.elapsed();
        let kernel = match &self.timestamps {
            Some(t) => Some(t.read(device)?),
            None => None,
        };
        Ok((
            out,
            Timed {
                kernel,
                submit_wait,
            },
        ))
    }

    /// An empty compute pass that writes timestamp `index` (nothing without timestamps).
    fn mark(&self, encoder: &mut wgpu::CommandEncoder, index: u32) {
        if let Some(t) = &self.timestamps {
            encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("gpu bench timestamp"),
                timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                    query_set: &t.queries,
                    beginning_of_pass_write_index: Some(index),
                    end_of_pass_write_index: None,
                }),
            });
        }
    }
}

impl Timestamps {
    fn new(device: &wgpu::Device, period_ns: f32) -> Self {
        let queries = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpu bench timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let buffer = |usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpu bench timestamps"),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        Timestamps {
            queries,
            resolve: buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC),
            read: buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST),
            period_ns: period_ns as f64,
        }
    }

    /// The two timestamps of the last submission, as a duration.
    fn read(&self, device: &wgpu::Device) -> Result<Duration, String> {
        let slice = self.read.slice(..);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("waiting for the timestamps: {e}"))?;
        rx.recv()
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("mapping the timestamps: {e}"))?;
        let ticks: [u64; 2] = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| format!("reading the timestamps: {e:?}"))?;
            bytemuck::pod_read_unaligned(&view[..16])
        };
        self.read.unmap();
        let ns = ticks[1].saturating_sub(ticks[0]) as f64 * self.period_ns;
        Ok(Duration::from_secs_f64(ns * 1e-9))
    }
}
