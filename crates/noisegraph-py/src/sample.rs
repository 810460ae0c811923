//! `sample`: a node's value (and gradient) at arbitrary points, as `noisegraph sample` gives.

use noisegraph::query::{check_positions, PointQuery};
use noisegraph::Backend;
use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{
    PyArray, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use crate::bake::show_shape;
use crate::errors::{bad_type, bad_value, guarded, to_py};
use crate::executor::{executor, parse_backend};
use crate::graph::{graph_arg, type_name};
use crate::threads::{check_threads, Threads};

/// The value of `node` (the graph's output when `None`) at each of `points`, an (N, dims)
/// array of float64 or float32 (or a nested sequence) for the node's dims (2, 3 or 4;
/// `Graph.dims()`), in bake coordinates x, y[, z[, w]] (columns in that order: a point is a
/// position, not an index). Returns float32 (N,), or (N, 1 + dims) with `gradient=True`: the
/// value, then d/dx, d/dy[, d/dz[, d/dw]]. The same numbers as `noisegraph sample`, bit for
/// bit on the CPU path. Positions must be finite and within 2^40 of 0. The GIL is released
/// during the query; `threads` caps the CPU path's threads as in `bake`.
#[pyfunction]
#[pyo3(signature = (graph, points, *, node=None, gradient=false, backend="auto", threads=None))]
pub fn sample<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    points: &Bound<'py, PyAny>,
    node: Option<String>,
    gradient: bool,
    backend: &str,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let graph = graph_arg(py, graph)?;
    let backend = parse_backend(backend)?;
    let threads = Threads::for_call(check_threads(threads)?)?;
    if let Some(id) = &node {
        if graph.node(id).is_none() {
            return Err(bad_value("node", format!("no node '{id}' in the graph")));
        }
    }
    let query = py
        .detach(|| guarded(|| PointQuery::new(&graph, node.as_deref())))?
        .map_err(|e| to_py(py, e))?;
    if gradient {
        query.check_gradient().map_err(|e| to_py(py, e))?;
    }
    let dims = query.dims() as usize;
    let positions = positions(py, points, dims)?;
    let n = check_positions(&positions, dims as u32).map_err(|e| {
        let message = e.to_string();
        bad_value(
            "points",
            message.strip_prefix("positions: ").unwrap_or(&message),
        )
    })?;
    let values = py
        .detach(|| {
            guarded(|| {
                threads.install(|| match backend {
                    Backend::Cpu => {
                        if gradient {
                            query.gradients(&positions)
                        } else {
                            query.values(&positions)
                        }
                    }
                    _ => executor(backend)?.sample_points(
                        &graph,
                        node.as_deref(),
                        &positions,
                        gradient,
                    ),
                })
            })
        })?
        .map_err(|e| to_py(py, e))?;
    let shape = if gradient { vec![n, 1 + dims] } else { vec![n] };
    let array = ArrayD::from_shape_vec(IxDyn(&shape), values)
        .expect("the query returns one number per point and channel");
    Ok(PyArray::from_owned_array(py, array).into_any())
}

/// The `points` argument as a flat list of f64 coordinates, point after point.
fn positions(py: Python<'_>, points: &Bound<'_, PyAny>, dims: usize) -> PyResult<Vec<f64>> {
    let array = match points.cast::<PyUntypedArray>() {
        Ok(array) => array.clone(),
        Err(_) => {
            if points.is_instance_of::<pyo3::types::PyString>() {
                return Err(bad_type(
                    "points",
                    "expected an (N, dims) array, not a string",
                ));
            }
            // A nested sequence: converted as numpy would, to float64.
            let converted = py
                .import("numpy")?
                .call_method1("asarray", (points, "float64"))
                .map_err(|e| {
                    bad_type(
                        "points",
                        format!(
                            "expected an (N, {dims}) array of float64 or float32 (got {} that numpy cannot convert: {})",
                            type_name(points),
                            e.value(py)
                        ),
                    )
                })?;
            converted.cast_into::<PyUntypedArray>()?
        }
    };
    let shape = array.shape().to_vec();
    if shape.len() != 2 || shape[1] != dims {
        return Err(bad_value(
            "points",
            format!(
                "the node takes {dims}D points: shape (N, {dims}) (got {})",
                show_shape(&shape)
            ),
        ));
    }
    if !array.is_c_contiguous() {
        return Err(bad_value(
            "points",
            "must be C-contiguous (np.ascontiguousarray(points) is)",
        ));
    }
    let dtype = array.dtype();
    if dtype.is_equiv_to(&numpy::dtype::<f64>(py)) {
        let typed = array.cast::<PyArrayDyn<f64>>()?;
        Ok(typed.readonly().as_slice()?.to_vec())
    } else if dtype.is_equiv_to(&numpy::dtype::<f32>(py)) {
        let typed = array.cast::<PyArrayDyn<f32>>()?;
        Ok(typed
            .readonly()
            .as_slice()?
            .iter()
            .map(|&v| f64::from(v))
            .collect())
    } else {
        Err(bad_type(
            "points",
            format!("dtype must be float64 or float32 (got {dtype})"),
        ))
    }
}
