//! `noisegraph._native`: the engine's Python bindings (the `noisegraph` package re-exports
//! them; see `python/noisegraph/__init__.py`).
//!
//! Every entry point converts its arguments while holding the GIL, releases it for the work
//! (bakes, queries, exports, statistics), and turns engine errors and Rust panics into Python
//! exceptions (see `src/errors.rs`).

mod args;
mod bake;
mod errors;
mod executor;
mod graph;
mod sample;
mod threads;
mod tools;

use pyo3::prelude::*;

/// The engine's Python bindings; import `noisegraph`, which re-exports them.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PARITY_TOLERANCE", noisegraph::parity::PARITY_TOLERANCE)?;
    m.add("MAX_SIDE", args::MAX_SIDE)?;
    m.add_class::<graph::Graph>()?;
    m.add_function(wrap_pyfunction!(bake::bake, m)?)?;
    m.add_function(wrap_pyfunction!(bake::bake_tile, m)?)?;
    m.add_function(wrap_pyfunction!(bake::pixel_coordinates, m)?)?;
    m.add_function(wrap_pyfunction!(sample::sample, m)?)?;
    m.add_function(wrap_pyfunction!(tools::wgsl_fields, m)?)?;
    m.add_function(wrap_pyfunction!(tools::presets, m)?)?;
    m.add_function(wrap_pyfunction!(tools::schema, m)?)?;
    m.add_function(wrap_pyfunction!(tools::parity, m)?)?;
    m.add_function(wrap_pyfunction!(tools::analyze, m)?)?;
    m.add_function(wrap_pyfunction!(tools::info, m)?)?;
    m.add_function(wrap_pyfunction!(threads::set_threads, m)?)?;
    m.add_function(wrap_pyfunction!(threads::get_threads, m)?)?;
    m.add_function(wrap_pyfunction!(errors::panic_for_tests, m)?)?;
    m.add("_BAND_SAMPLES", bake::BAND_SAMPLES)?;
    m.add_function(wrap_pyfunction!(bake::bands_for_tests, m)?)?;
    Ok(())
}
