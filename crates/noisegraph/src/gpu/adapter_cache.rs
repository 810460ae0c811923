//! The answer of `Backend::Auto`'s adapter probe, kept in the cache folder: opening the
//! Vulkan and GL drivers only to learn that the one adapter is a CPU adapter (or that there
//! is none) took about 0.1 s of every one-off bake. The answer is kept only when it leads to
//! the CPU path, with a fingerprint of what decides it (the installed Vulkan and EGL driver
//! manifests, the GPU device nodes, the environment variables the loaders and wgpu read, the
//! program itself); when any of it changes the probe runs again. Linux only: elsewhere the
//! probe always runs.

use std::path::PathBuf;

use crate::cache::{self, Loaded};

/// The kind tag of the probe's cache file.
const KIND: &[u8; 8] = b"adapters";

/// What the probe found, when it sends `Backend::Auto` to the CPU path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CpuAnswer {
    /// The only adapter is a CPU adapter of this name.
    CpuAdapter(String),
    /// No adapter.
    NoAdapter,
}

fn cache_file() -> Option<PathBuf> {
    Some(cache::cache_dir()?.join("adapter-probe"))
}

/// The cached answer, when there is one for the present fingerprint.
pub fn cached() -> Option<CpuAnswer> {
    let fingerprint = fingerprint()?;
    let Loaded::Data(data) = cache::read(&cache_file()?, KIND) else {
        return None;
    };
    let text = String::from_utf8(data).ok()?;
    let (stored, answer) = text.split_once('\n')?;
    if stored != fingerprint {
        return None;
    }
    match answer.split_once(' ') {
        Some(("cpu-adapter", name)) => Some(CpuAnswer::CpuAdapter(name.to_string())),
        None if answer == "none" => Some(CpuAnswer::NoAdapter),
        _ => None,
    }
}

/// Records the probe's answer: kept when it leads to the CPU path, removed otherwise (a
/// real GPU is opened by the probe's own path, which has nothing to skip).
pub fn remember(answer: Option<&CpuAnswer>) {
    let Some(path) = cache_file() else { return };
    let (Some(answer), Some(fingerprint)) = (answer, fingerprint()) else {
        let _ = std::fs::remove_file(&path);
        return;
    };
    let answer = match answer {
        CpuAnswer::CpuAdapter(name) => format!("cpu-adapter {}", name.replace('\n', " ")),
        CpuAnswer::NoAdapter => "none".to_string(),
    };
    // A cache that cannot be written only means the next bake probes again.
    let _ = cache::write(&path, KIND, format!("{fingerprint}\n{answer}").as_bytes());
}

/// What decides the probe's answer, as one line (a hash of the parts), or `None` where it
/// cannot be told (not Linux).
fn fingerprint() -> Option<String> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let mut parts: Vec<String> = vec![format!("noisegraph {}", env!("CARGO_PKG_VERSION"))];
    // The program: a rebuild may bring another wgpu.
    if let Ok(exe) = std::env::current_exe() {
        parts.push(format!("exe {}", describe(&exe)));
    }
    for var in [
        "WGPU_BACKEND",
        "WGPU_ADAPTER_NAME",
        "WGPU_POWER_PREF",
        "WGPU_FORCE_FALLBACK_ADAPTER",
        "VK_ICD_FILENAMES",
        "VK_DRIVER_FILES",
        "VK_ADD_DRIVER_FILES",
        "VK_LOADER_DRIVERS_SELECT",
        "VK_LOADER_DRIVERS_DISABLE",
        "VK_INSTANCE_LAYERS",
        "MESA_VK_DEVICE_SELECT",
        "LIBGL_ALWAYS_SOFTWARE",
        "GALLIUM_DRIVER",
        "__EGL_VENDOR_LIBRARY_FILENAMES",
        "__EGL_VENDOR_LIBRARY_DIRS",
        "EGL_PLATFORM",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XDG_DATA_DIRS",
        "LD_LIBRARY_PATH",
        "CUDA_VISIBLE_DEVICES",
        "NVIDIA_VISIBLE_DEVICES",
    ] {
        parts.push(format!("{var}={:?}", std::env::var_os(var)));
    }
    // Driver manifests (Vulkan ICDs, EGL vendors) and device nodes: their names, sizes and
    // modification times.
    let mut dirs: Vec<PathBuf> = [
        "/usr/share/vulkan/icd.d",
        "/usr/local/share/vulkan/icd.d",
        "/etc/vulkan/icd.d",
        "/usr/share/glvnd/egl_vendor.d",
        "/etc/glvnd/egl_vendor.d",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    if let Some(data_dirs) = std::env::var_os("XDG_DATA_DIRS") {
        dirs.extend(std::env::split_paths(&data_dirs).map(|d| d.join("vulkan/icd.d")));
    }
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".local/share/vulkan/icd.d"));
    }
    for dir in dirs {
        parts.push(format!(
            "{}: {}",
            dir.display(),
            listing(&dir, true, |_| true)
        ));
    }
    // GPU device nodes, by name only (a node's times change as it is used): /dev/dri, and
    // outside it NVIDIA's, AMD's compute node and WSL's.
    let dev = std::path::Path::new("/dev");
    parts.push(format!(
        "/dev/dri: {}",
        listing(&dev.join("dri"), false, |_| true)
    ));
    let gpu_node = |name: &str| ["nvidia", "kfd", "dxg"].iter().any(|p| name.starts_with(p));
    parts.push(format!("/dev: {}", listing(dev, false, gpu_node)));
    let mut hasher = std::hash::DefaultHasher::new();
    std::hash::Hash::hash(&parts, &mut hasher);
    Some(format!("{:016x}", std::hash::Hasher::finish(&hasher)))
}

/// A file's size and modification time.
fn describe(path: &std::path::Path) -> String {
    match std::fs::metadata(path) {
        Ok(m) => format!("{} {:?}", m.len(), m.modified().ok()),
        Err(_) => "absent".into(),
    }
}

/// The entries of `dir` whose names pass `keep`, sorted, each with [`describe`] when
/// `detailed`.
fn listing(dir: &std::path::Path, detailed: bool, keep: impl Fn(&str) -> bool) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return "absent".into();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            keep(&name).then(|| match detailed {
                true => format!("{name} {}", describe(&e.path())),
                false => name,
            })
        })
        .collect();
    names.sort();
    names.join(", ")
}
