//! The tool's other commands as functions: `wgsl` (its fields; `noisegraph/_wgsl.py` makes the
//! result), `presets`, `schema`, `parity`, `analyze`, `info`.

use noisegraph::analysis::{power_spectrum, report_radii, stats};
use noisegraph::export::wgsl::{export_wgsl, WgslOptions};
use noisegraph::graph::PlanOptions;
use noisegraph::parity::run_parity;
use noisegraph::{Field, Plan};
use numpy::{
    PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args;
use crate::bake::show_shape;
use crate::errors::{bad_type, bad_value, guarded, to_py};
use crate::graph::{graph_arg, type_name};

/// The fields of `noisegraph.wgsl`'s result (`noisegraph/_wgsl.py` wraps them): `source`,
/// `name`, `node`, `dims`, `no_gradient`, `tables` (a float32 array or None) and
/// `table_binding` ((group, binding) or None).
#[pyfunction(name = "_wgsl")]
#[pyo3(signature = (graph, *, node=None, name="noise", table_binding=(0, 0)))]
pub fn wgsl_fields<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    node: Option<String>,
    name: &str,
    table_binding: (u32, u32),
) -> PyResult<Bound<'py, PyDict>> {
    let graph = graph_arg(py, graph)?;
    let options = WgslOptions {
        name: name.to_string(),
        node,
        table_binding: [table_binding.0, table_binding.1],
    };
    let module = py
        .detach(|| guarded(|| export_wgsl(&graph, &options)))?
        .map_err(|e| to_py(py, e))?;
    let dict = PyDict::new(py);
    dict.set_item("source", &module.source)?;
    dict.set_item("name", &module.name)?;
    dict.set_item("node", &module.node)?;
    dict.set_item("dims", module.dims)?;
    dict.set_item("no_gradient", &module.no_gradient)?;
    match &module.tables {
        Some(t) => {
            dict.set_item("tables", PyArray1::from_slice(py, &t.data))?;
            dict.set_item("table_binding", (t.group, t.binding))?;
        }
        None => {
            dict.set_item("tables", py.None())?;
            dict.set_item("table_binding", py.None())?;
        }
    }
    Ok(dict)
}

/// The embedded preset graphs: a dict of name to one-line description, in the order
/// `noisegraph presets` lists them (`Graph.preset(name)` loads one).
#[pyfunction]
pub fn presets(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let dict = PyDict::new(py);
    for preset in noisegraph::presets::PRESETS {
        dict.set_item(preset.name, preset.description)?;
    }
    Ok(dict)
}

/// The node schema: every node kind of the graph format, as the engine declares it once
/// (`noisegraph::graph::schema`, what `noisegraph serve` gives its page). A dict whose
/// `nodes` lists one dict per kind in the README's order (families, fractals, warp,
/// point-wise operations): `type` (the JSON `type`), `category` (`"family"`, `"fractal"`,
/// `"warp"` or `"pointwise"`), `summary`, `inputs` (`name`, `of`, `count`, `doc`), `fields`
/// (`name`, `kind`, `doc`, and where they apply `default`, `min`, `max`, `options`,
/// `required`...), `dims` (how its dimension follows) and `gradient`.
#[pyfunction]
pub fn schema(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let text = serde_json::to_string(noisegraph::graph::schema())
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// Runs every stage of `node` (the graph's output when `None`; unfused, one stage per node)
/// on the GPU and on the CPU reference path over a view of `shape` ((H, W) or (D, H, W)) and
/// compares them, as `noisegraph parity` does (`shape` defaults to (256, 256)). Returns one
/// dict per stage: `node`, `family`, `max_abs` (largest absolute difference), `tolerance`
/// (the stage's: `noisegraph.PARITY_TOLERANCE`, more for a warp), `over` (pixels over it),
/// `total`, `allowed_fraction` and `passed`. Needs a GPU adapter (`RuntimeError` without
/// one).
#[pyfunction]
#[pyo3(signature = (graph, shape=None, *, node=None))]
pub fn parity<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    shape: Option<&Bound<'py, PyAny>>,
    node: Option<String>,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let graph = graph_arg(py, graph)?;
    let shape = match shape {
        Some(shape) if !shape.is_none() => args::shape("shape", shape)?,
        _ => vec![256, 256],
    };
    let view = args::view(&shape, [0.0; 3], [1.0; 3]);
    let plan = Plan::with_options(&graph, node.as_deref(), PlanOptions { fuse: false })
        .map_err(|e| to_py(py, e))?;
    plan.check_view(&view).map_err(|e| to_py(py, e))?;
    let results = py
        .detach(|| guarded(|| run_parity(&*crate::executor::gpu()?, &plan, &view)))?
        .map_err(|e| to_py(py, e))?;
    results
        .iter()
        .map(|r| {
            let dict = PyDict::new(py);
            dict.set_item("node", &r.node)?;
            dict.set_item("family", &r.family)?;
            dict.set_item("max_abs", r.max_abs)?;
            dict.set_item("tolerance", r.tolerance)?;
            dict.set_item("over", r.over)?;
            dict.set_item("total", r.total)?;
            dict.set_item("allowed_fraction", r.allowed_fraction)?;
            dict.set_item("passed", r.passed())?;
            Ok(dict)
        })
        .collect()
}

/// Statistics and power spectrum of a field, as `noisegraph analyze` prints them: `array`
/// is a float32 (H, W) image or (D, H, W) volume (C-contiguous), `slice` the volume slice
/// the spectrum uses, `bins` the histogram's bins. Returns a dict: `shape`, `samples`
/// (finite ones), `mean`, `std`, `min`, `max`, `skewness`, `excess_kurtosis`, `histogram`
/// (counts of `bins` equal bins over [min, max]), `bin_edges` (bins + 1 numbers),
/// `radial_power` (mean power at each radius r, cycles per image, r = 0, 1, ...),
/// `report_radii` (the radii the tool prints, about half an octave apart), `peak_radius`
/// and `anisotropy` (energy along the axes over energy along the diagonals; 1 = isotropic).
/// The GIL is released while computing.
#[pyfunction]
#[pyo3(signature = (array, *, bins=16, slice=0))]
pub fn analyze<'py>(
    py: Python<'py>,
    array: &Bound<'py, PyAny>,
    bins: usize,
    slice: u32,
) -> PyResult<Bound<'py, PyDict>> {
    if bins == 0 {
        return Err(bad_value("bins", "at least 1"));
    }
    let field = field_arg(py, array)?;
    if slice >= field.depth {
        return Err(bad_value(
            "slice",
            format!("{slice} is past the last slice ({})", field.depth - 1),
        ));
    }
    let (s, profile, peak, anisotropy) = py.detach(|| {
        guarded(|| {
            let s = stats(&field.data, bins);
            let spectrum = power_spectrum(&field, slice);
            (
                s,
                spectrum.radial_profile(),
                spectrum.peak_radius(),
                spectrum.anisotropy(),
            )
        })
    })?;
    let dict = PyDict::new(py);
    let shape: Vec<usize> = if field.depth > 1 {
        vec![
            field.depth as usize,
            field.height as usize,
            field.width as usize,
        ]
    } else {
        vec![field.height as usize, field.width as usize]
    };
    dict.set_item("shape", pyo3::types::PyTuple::new(py, shape)?)?;
    dict.set_item("samples", s.count)?;
    dict.set_item("mean", s.mean)?;
    dict.set_item("std", s.std)?;
    dict.set_item("min", s.min)?;
    dict.set_item("max", s.max)?;
    dict.set_item("skewness", s.skewness)?;
    dict.set_item("excess_kurtosis", s.excess_kurtosis)?;
    dict.set_item("histogram", s.histogram.clone())?;
    let span = (s.max - s.min) / bins as f64;
    let edges: Vec<f64> = (0..=bins).map(|i| s.min + span * i as f64).collect();
    dict.set_item("bin_edges", edges)?;
    let radii = report_radii(profile.len().saturating_sub(1));
    dict.set_item("radial_power", PyArray1::from_vec(py, profile))?;
    dict.set_item("report_radii", radii)?;
    dict.set_item("peak_radius", peak)?;
    dict.set_item("anisotropy", anisotropy)?;
    Ok(dict)
}

/// `analyze`'s array: float32, (H, W) or (D, H, W), C-contiguous, copied into a field.
fn field_arg(py: Python<'_>, array: &Bound<'_, PyAny>) -> PyResult<Field> {
    let untyped = array.cast::<PyUntypedArray>().map_err(|_| {
        bad_type(
            "array",
            format!(
                "expected a numpy.ndarray of float32 (got {})",
                type_name(array)
            ),
        )
    })?;
    if !untyped.dtype().is_equiv_to(&numpy::dtype::<f32>(py)) {
        return Err(bad_type(
            "array",
            format!(
                "dtype must be float32 (got {}); use array.astype(np.float32)",
                untyped.dtype()
            ),
        ));
    }
    let (w, h, d) = match *untyped.shape() {
        [h, w] => (w, h, 1),
        [d, h, w] => (w, h, d),
        _ => {
            return Err(bad_value(
                "array",
                format!(
                    "expected an (H, W) image or a (D, H, W) volume (got shape {})",
                    show_shape(untyped.shape())
                ),
            ))
        }
    };
    if w == 0 || h == 0 || d == 0 || [w, h, d].iter().any(|&s| s > u32::MAX as usize) {
        return Err(bad_value(
            "array",
            format!(
                "every side must be from 1 to {} (got shape {})",
                u32::MAX,
                show_shape(untyped.shape())
            ),
        ));
    }
    if !untyped.is_c_contiguous() {
        return Err(bad_value(
            "array",
            "must be C-contiguous (np.ascontiguousarray(array) is)",
        ));
    }
    let typed = untyped.cast::<PyArrayDyn<f32>>()?;
    let data = typed.readonly().as_slice()?.to_vec();
    Ok(Field::new(w as u32, h as u32, d as u32, data))
}

/// What this process runs on: a dict with `version`, `threads` (the CPU path's threads for a
/// call without `threads=`), `threads_setting` (`set_threads`'s value), `vector_width` (the
/// CPU loops in use) and `vector_widths` (those this CPU has), `adapter` (the default GPU
/// adapter: `name`, `backend`, `device_type`, `driver`; None without one), `auto_backend`
/// (`"gpu"` or `"cpu"`: what `backend="auto"` runs) and `auto_reason` (why it chose the CPU
/// path, or None).
#[pyfunction]
pub fn info(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let threads = crate::threads::Threads::for_call(None)?;
    let (adapter, auto) = py.detach(|| {
        guarded(|| {
            let adapter = noisegraph::gpu::default_adapter_info().ok().map(|i| {
                (
                    i.name.clone(),
                    format!("{:?}", i.backend),
                    format!("{:?}", i.device_type),
                    format!("{} {}", i.driver, i.driver_info).trim().to_string(),
                )
            });
            (adapter, crate::executor::auto())
        })
    })?;
    let dict = PyDict::new(py);
    dict.set_item("version", env!("CARGO_PKG_VERSION"))?;
    dict.set_item("threads", threads.count())?;
    dict.set_item("threads_setting", crate::threads::get_threads())?;
    dict.set_item(
        "vector_width",
        noisegraph::vector::vector_width().to_string(),
    )?;
    let widths: Vec<&str> = noisegraph::vector::VectorWidth::supported()
        .into_iter()
        .map(|w| w.name())
        .collect();
    dict.set_item("vector_widths", widths)?;
    match adapter {
        Some((name, backend, device_type, driver)) => {
            let a = PyDict::new(py);
            a.set_item("name", name)?;
            a.set_item("backend", backend)?;
            a.set_item("device_type", device_type)?;
            a.set_item("driver", driver)?;
            dict.set_item("adapter", a)?;
        }
        None => dict.set_item("adapter", py.None())?,
    }
    match auto.map_err(|e| to_py(py, e))? {
        crate::executor::AutoChoice::Gpu(_) => {
            dict.set_item("auto_backend", "gpu")?;
            dict.set_item("auto_reason", py.None())?;
        }
        crate::executor::AutoChoice::Cpu(reason) => {
            dict.set_item("auto_backend", "cpu")?;
            dict.set_item("auto_reason", reason)?;
        }
    }
    Ok(dict)
}
