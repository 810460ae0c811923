//! How many threads the CPU path uses: per call (`threads=`) or for the process
//! (`noisegraph.set_threads`), so that several Dask workers on one machine do not each take
//! every core. A cap runs the work inside a rayon pool of that many threads (one pool per
//! thread count, kept for the process: Dask calls a bake per chunk); no cap runs it on rayon's
//! global pool (one thread per core).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pyo3::prelude::*;
use rayon::ThreadPool;

use crate::errors::bad_value;

/// The largest thread count accepted (a typo such as 10**6 should not start a million threads).
pub const MAX_THREADS: usize = 1024;

/// The process-wide cap set by [`set_threads`]; `None`: one thread per core.
static DEFAULT_THREADS: Mutex<Option<usize>> = Mutex::new(None);

/// The pools made so far, by thread count.
static POOLS: Mutex<Option<HashMap<usize, Arc<ThreadPool>>>> = Mutex::new(None);

/// Checks a `threads=` argument (`None`, or 1 to [`MAX_THREADS`]).
pub fn check_threads(threads: Option<i64>) -> PyResult<Option<usize>> {
    match threads {
        None => Ok(None),
        Some(n) if (1..=MAX_THREADS as i64).contains(&n) => Ok(Some(n as usize)),
        Some(n) => Err(bad_value(
            "threads",
            format!("must be None or a whole number from 1 to {MAX_THREADS} (got {n})"),
        )),
    }
}

/// Where a call's CPU work runs: a capped pool, or rayon's global pool.
#[derive(Clone)]
pub struct Threads(Option<Arc<ThreadPool>>);

impl Threads {
    /// The pool for a call's `threads=` (already checked), falling back to the process-wide
    /// setting.
    pub fn for_call(threads: Option<usize>) -> PyResult<Threads> {
        let count = threads.or(*DEFAULT_THREADS.lock().unwrap_or_else(|e| e.into_inner()));
        let Some(count) = count else {
            return Ok(Threads(None));
        };
        let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
        let pools = pools.get_or_insert_with(HashMap::new);
        if let Some(pool) = pools.get(&count) {
            return Ok(Threads(Some(pool.clone())));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(count)
            .thread_name(move |i| format!("noisegraph-{count}.{i}"))
            .build()
            .map_err(|e| {
                pyo3::exceptions::PyRuntimeError::new_err(format!(
                    "threads: could not start a pool of {count} threads: {e}"
                ))
            })?;
        let pool = Arc::new(pool);
        pools.insert(count, pool.clone());
        Ok(Threads(Some(pool)))
    }

    /// Runs `work` on these threads (rayon's parallel loops inside it use them).
    pub fn install<T: Send>(&self, work: impl FnOnce() -> T + Send) -> T {
        match &self.0 {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }

    /// How many threads the work gets.
    pub fn count(&self) -> usize {
        match &self.0 {
            Some(pool) => pool.current_num_threads(),
            None => rayon::current_num_threads(),
        }
    }
}

/// Sets how many threads the CPU path uses in every later call that does not pass
/// `threads=`: a whole number from 1 to 1024, or `None` for one thread per core (the
/// default). Run several Dask workers on one machine with `set_threads(cores // workers)`
/// (or `threads=` per call) so that they do not oversubscribe the cores.
#[pyfunction]
#[pyo3(signature = (threads))]
pub fn set_threads(threads: Option<i64>) -> PyResult<()> {
    let threads = check_threads(threads)?;
    *DEFAULT_THREADS.lock().unwrap_or_else(|e| e.into_inner()) = threads;
    Ok(())
}

/// The process-wide thread cap set by `set_threads`, or `None` (one thread per core).
#[pyfunction]
pub fn get_threads() -> Option<usize> {
    *DEFAULT_THREADS.lock().unwrap_or_else(|e| e.into_inner())
}
