//! The executors of a process, chosen once: opening a GPU device (or probing for one) costs
//! far more than a small bake, and a Dask worker bakes many chunks.

use std::sync::{Arc, Mutex};

use noisegraph::{Backend, Error, Executor, GpuContext};

use crate::errors::bad_value;

/// What `backend="auto"` chose, and why it chose the CPU path when it did.
#[derive(Clone)]
pub enum AutoChoice {
    /// A real GPU.
    Gpu(Arc<GpuContext>),
    /// The CPU reference path, with the reason (no adapter, or only a CPU adapter).
    Cpu(Option<String>),
}

static GPU: Mutex<Option<Arc<GpuContext>>> = Mutex::new(None);
static AUTO: Mutex<Option<AutoChoice>> = Mutex::new(None);

/// Parses a `backend=` argument.
pub fn parse_backend(text: &str) -> pyo3::PyResult<Backend> {
    text.parse::<Backend>().map_err(|_| {
        bad_value(
            "backend",
            format!("unknown backend '{text}' (auto, cpu, gpu)"),
        )
    })
}

/// The GPU context of the process, opened on first use.
pub fn gpu() -> Result<Arc<GpuContext>, Error> {
    let mut gpu = GPU.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(ctx) = gpu.as_ref() {
        return Ok(ctx.clone());
    }
    let ctx = Arc::new(GpuContext::new()?);
    *gpu = Some(ctx.clone());
    Ok(ctx)
}

/// What `backend="auto"` runs on (probed once per process).
pub fn auto() -> Result<AutoChoice, Error> {
    let mut auto = AUTO.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(choice) = auto.as_ref() {
        return Ok(choice.clone());
    }
    let choice = match Executor::choose(Backend::Auto)? {
        (Executor::Gpu(ctx), _) => {
            *GPU.lock().unwrap_or_else(|e| e.into_inner()) = Some(ctx.clone());
            AutoChoice::Gpu(ctx)
        }
        (Executor::Cpu, note) => AutoChoice::Cpu(note),
    };
    *auto = Some(choice.clone());
    Ok(choice)
}

/// The executor for `backend`. Call without the GIL: it may open a device.
pub fn executor(backend: Backend) -> Result<Executor, Error> {
    Ok(match backend {
        Backend::Cpu => Executor::Cpu,
        Backend::Gpu => Executor::Gpu(gpu()?),
        Backend::Auto => match auto()? {
            AutoChoice::Gpu(ctx) => Executor::Gpu(ctx),
            AutoChoice::Cpu(_) => Executor::Cpu,
        },
    })
}
