//! The driver's pipeline cache kept on disk between runs (wgpu's `PipelineCache`, Vulkan):
//! a context opened by noisegraph loads it from the cache folder (`crate::cache`), every
//! pipeline is compiled through it, and [`GpuContext::save_pipeline_cache`] writes it back, so
//! a repeated bake of the same graph finds its kernels compiled.
//!
//! [`GpuContext::save_pipeline_cache`]: super::GpuContext::save_pipeline_cache

use std::path::{Path, PathBuf};

use crate::cache::{self, Loaded};

/// The kind tag of pipeline cache files.
const KIND: &[u8; 8] = b"pipeline";

/// What the persistent pipeline cache of a context is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PipelineCacheState {
    /// No persistent cache: the cache folder is off or unknown, or the device is the
    /// caller's (`GpuContext::from_device`).
    Off,
    /// The adapter's backend has no pipeline cache wgpu can keep (only Vulkan has).
    Unsupported,
    /// Loaded from `path` (`bytes` of cache data).
    Loaded {
        /// The cache file.
        path: PathBuf,
        /// Bytes of cache data loaded.
        bytes: usize,
    },
    /// Started empty: no file at `path` yet, or one that could not be used (`ignored`, and
    /// why; it is replaced on the next save).
    Empty {
        /// The cache file.
        path: PathBuf,
        /// Why an existing file was not used.
        ignored: Option<String>,
    },
}

impl std::fmt::Display for PipelineCacheState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Off => write!(f, "off (no cache folder, see {})", cache::CACHE_DIR_ENV),
            Self::Unsupported => write!(f, "not supported by this backend (Vulkan only)"),
            Self::Loaded { path, bytes } => {
                write!(
                    f,
                    "{} ({} KiB loaded)",
                    path.display(),
                    bytes.div_ceil(1024)
                )
            }
            Self::Empty {
                path,
                ignored: None,
            } => write!(f, "{} (none yet)", path.display()),
            Self::Empty {
                path,
                ignored: Some(why),
            } => write!(f, "{} (ignored: {why})", path.display()),
        }
    }
}

/// What [`GpuContext::save_pipeline_cache`](super::GpuContext::save_pipeline_cache) did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PipelineCacheSave {
    /// No persistent cache to save (see [`PipelineCacheState`]).
    None,
    /// The driver keeps no pipelines in its cache data (only its header: Mesa's lavapipe
    /// before 23.1 does so, and relies on Mesa's own shader cache instead): nothing written.
    DriverStoresNothing,
    /// Every pipeline came from the loaded cache: nothing new to write.
    Hit {
        /// Bytes of cache data.
        bytes: usize,
    },
    /// Pipelines were compiled into the cache: it was written (`loaded` bytes of pipelines
    /// before, 0 when it started without any).
    Written {
        /// The cache file.
        path: PathBuf,
        /// Bytes loaded at the start.
        loaded: usize,
        /// Bytes written.
        bytes: usize,
    },
}

impl PipelineCacheSave {
    /// A few words for a summary line.
    pub fn summary(&self) -> String {
        let kib = |b: &usize| b.div_ceil(1024);
        match self {
            Self::None => "no pipeline cache".into(),
            Self::DriverStoresNothing => "pipeline cache not kept by this driver".into(),
            Self::Hit { bytes } => format!("pipeline cache hit ({} KiB)", kib(bytes)),
            Self::Written {
                loaded: 0, bytes, ..
            } => {
                format!("pipeline cache miss (saved {} KiB)", kib(bytes))
            }
            Self::Written { loaded, bytes, .. } => format!(
                "pipeline cache updated ({} to {} KiB)",
                kib(loaded),
                kib(bytes)
            ),
        }
    }
}

/// A context's persistent cache: the wgpu handle pipelines are compiled through, its file
/// and the data it started from.
pub(super) struct DiskCache {
    pub(super) handle: wgpu::PipelineCache,
    path: PathBuf,
    /// The size of the driver's data for a cache without pipelines.
    empty_len: usize,
    /// The data in the file: as loaded, then as last saved.
    loaded: std::sync::Mutex<Vec<u8>>,
}

/// The file for `info`'s adapter in `dir`, when its backend has a pipeline cache.
pub(super) fn cache_path(dir: &Path, info: &wgpu::AdapterInfo) -> Option<PathBuf> {
    wgpu::util::pipeline_cache_key(info).map(|key| dir.join(key))
}

/// Opens the cache of `device` (created with `Features::PIPELINE_CACHE`) from `path`.
pub(super) fn open(device: &wgpu::Device, path: PathBuf) -> (DiskCache, PipelineCacheState) {
    let (loaded, state) = match cache::read(&path, KIND) {
        Loaded::Data(data) => {
            let state = PipelineCacheState::Loaded {
                path: path.clone(),
                bytes: data.len(),
            };
            (data, state)
        }
        Loaded::Missing => (
            Vec::new(),
            PipelineCacheState::Empty {
                path: path.clone(),
                ignored: None,
            },
        ),
        Loaded::Ignored(why) => (
            Vec::new(),
            PipelineCacheState::Empty {
                path: path.clone(),
                ignored: Some(why),
            },
        ),
    };
    // SAFETY: the data is what `get_data` returned for a device with the same cache key
    // (`save`), read back whole (the file's length and checksum match). wgpu checks its own
    // header (adapter, driver, version) and, with `fallback`, starts empty when it does not
    // match, as the driver does for its own header.
    let handle = unsafe {
        device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
            label: Some("noisegraph pipelines"),
            data: (!loaded.is_empty()).then_some(loaded.as_slice()),
            fallback: true,
        })
    };
    // SAFETY: no initial data.
    let empty = unsafe {
        device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
            label: Some("noisegraph empty pipeline cache"),
            data: None,
            fallback: true,
        })
    };
    let empty_len = empty.get_data().map_or(0, |d| d.len());
    (
        DiskCache {
            handle,
            path,
            empty_len,
            loaded: std::sync::Mutex::new(loaded),
        },
        state,
    )
}

impl DiskCache {
    /// Writes the cache back when pipelines were added since it was loaded.
    pub(super) fn save(&self) -> std::io::Result<PipelineCacheSave> {
        let Some(data) = self.handle.get_data() else {
            return Ok(PipelineCacheSave::None);
        };
        if data.len() <= self.empty_len {
            return Ok(PipelineCacheSave::DriverStoresNothing);
        }
        let mut in_file = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if data == *in_file {
            return Ok(PipelineCacheSave::Hit { bytes: data.len() });
        }
        cache::write(&self.path, KIND, &data)?;
        let loaded = std::mem::replace(&mut *in_file, data);
        Ok(PipelineCacheSave::Written {
            path: self.path.clone(),
            loaded: if loaded.len() > self.empty_len {
                loaded.len()
            } else {
                0
            },
            bytes: in_file.len(),
        })
    }
}
