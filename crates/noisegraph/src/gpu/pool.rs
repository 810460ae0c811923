//! Reuse of the field textures and staging buffers of finished runs. wgpu zero-fills a fresh
//! texture or buffer before its first use, and the driver faults its pages in: on lavapipe a
//! fresh 2048 x 2048 field and its staging buffer cost more than a whole octave of Perlin
//! noise. Runs take resources from the pool and give them back once the device is done with
//! them; a resource is only ever used by one run at a time.

use std::sync::Mutex;

/// Bytes of idle textures the pool keeps; more are dropped.
const MAX_IDLE_TEXTURE_BYTES: u64 = 256 << 20;
/// Idle staging buffers the pool keeps.
const MAX_IDLE_STAGING: usize = 2;

#[derive(Default)]
pub(crate) struct ResourcePool {
    textures: Mutex<Vec<wgpu::Texture>>,
    staging: Mutex<Vec<wgpu::Buffer>>,
}

fn texture_bytes(t: &wgpu::Texture) -> u64 {
    let s = t.size();
    u64::from(s.width)
        * u64::from(s.height)
        * u64::from(s.depth_or_array_layers)
        * u64::from(t.format().block_copy_size(None).unwrap_or(4))
}

impl ResourcePool {
    /// An idle texture made from the same descriptor, if there is one.
    pub fn take_texture(&self, desc: &wgpu::TextureDescriptor) -> Option<wgpu::Texture> {
        let mut idle = self.textures.lock().unwrap_or_else(|e| e.into_inner());
        let i = idle.iter().position(|t| {
            t.size() == desc.size
                && t.dimension() == desc.dimension
                && t.format() == desc.format
                && t.usage() == desc.usage
                && t.mip_level_count() == desc.mip_level_count
                && t.sample_count() == desc.sample_count
        })?;
        Some(idle.swap_remove(i))
    }

    /// Gives textures back once every submission using them has completed.
    pub fn give_textures(&self, textures: impl IntoIterator<Item = wgpu::Texture>) {
        let mut idle = self.textures.lock().unwrap_or_else(|e| e.into_inner());
        idle.extend(textures);
        // Keep the most recently returned ones within the byte budget.
        let mut kept = 0;
        let mut total = 0;
        for t in idle.iter().rev() {
            total += texture_bytes(t);
            if total > MAX_IDLE_TEXTURE_BYTES {
                break;
            }
            kept += 1;
        }
        let drop = idle.len() - kept;
        idle.drain(..drop);
    }

    /// An idle MAP_READ | COPY_DST buffer of at least `bytes`, or a new one of exactly `bytes`.
    pub fn take_staging(&self, device: &wgpu::Device, bytes: u64) -> wgpu::Buffer {
        let mut idle = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        let best = idle
            .iter()
            .enumerate()
            .filter(|(_, b)| b.size() >= bytes)
            .min_by_key(|(_, b)| b.size())
            .map(|(i, _)| i);
        match best {
            Some(i) => idle.swap_remove(i),
            None => device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("noisegraph readback"),
                size: bytes,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            }),
        }
    }

    /// Gives an unmapped staging buffer back.
    pub fn give_staging(&self, buffer: wgpu::Buffer) {
        let mut idle = self.staging.lock().unwrap_or_else(|e| e.into_inner());
        idle.push(buffer);
        if idle.len() > MAX_IDLE_STAGING {
            // Drop the smallest: the large ones are the expensive ones to make again.
            let smallest = idle
                .iter()
                .enumerate()
                .min_by_key(|(_, b)| b.size())
                .map(|(i, _)| i)
                .unwrap_or(0);
            idle.swap_remove(smallest);
        }
    }
}

impl super::GpuContext {
    /// Gives the textures of a finished [`encode_plan`](Self::encode_plan) back to this
    /// context's pool, once the caller no longer uses them and the device is done with them
    /// (wait for the submission first): the next run or `encode_plan` of the same view and form
    /// takes them instead of creating textures, which wgpu zero-fills before their first use.
    /// The pool keeps at most 256 MiB of idle textures. The run methods recycle their own.
    pub fn recycle(&self, output: super::GpuStageOutput) {
        self.pool().give_textures(output.textures);
    }
}
