//! `noisegraph.Graph`: a validated node graph, made from a dict, a JSON string, a file or a
//! preset; and the conversion every function applies to its `graph` argument (a `Graph` or
//! a plain dict).

use std::path::PathBuf;

use noisegraph::NoiseGraph;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::errors::{bad_type, graph_error, to_py};

/// Largest graph file `Graph.load` reads (64 MiB, as the command-line tool).
const MAX_GRAPH_FILE_BYTES: u64 = 64 << 20;

/// A validated noise graph: its seed, output node and nodes (the README's "Graph format").
///
/// Make one from a dict (`Graph({"seed": 7, "output": "n", "nodes": [...]})`), a JSON string
/// (`Graph.from_json`), a file (`Graph.load`), a preset (`Graph.preset("terrain")`) or a
/// `GraphBuilder`. Every problem in the graph is reported at once as a `GraphError` whose
/// `.problems` name the node and field of each. Graphs compare equal when their nodes are,
/// print as the dict they were made from (every parameter explicit) and pickle.
#[pyclass(module = "noisegraph", name = "Graph", frozen)]
pub struct Graph {
    pub graph: NoiseGraph,
}

#[pymethods]
impl Graph {
    /// A graph from a dict in the JSON format (as `json.load` returns it).
    #[new]
    #[pyo3(signature = (spec))]
    fn new(py: Python<'_>, spec: &Bound<'_, PyAny>) -> PyResult<Self> {
        if !spec.is_instance_of::<PyDict>() {
            return Err(bad_type(
                "spec",
                format!(
                    "expected a dict in the graph format (got {}); use Graph.from_json for a \
                     JSON string, Graph.load for a file",
                    type_name(spec)
                ),
            ));
        }
        Ok(Graph {
            graph: graph_from_dict(py, "spec", spec)?,
        })
    }

    /// A graph from a dict in the JSON format (the same as `Graph(spec)`).
    #[staticmethod]
    #[pyo3(signature = (spec))]
    fn from_dict(py: Python<'_>, spec: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::new(py, spec)
    }

    /// A graph from a JSON string.
    #[staticmethod]
    #[pyo3(signature = (text))]
    fn from_json(py: Python<'_>, text: &str) -> PyResult<Self> {
        let graph = NoiseGraph::from_json(text).map_err(|e| graph_error(py, &e))?;
        Ok(Graph { graph })
    }

    /// A graph from a JSON file (a path or `os.PathLike`).
    #[staticmethod]
    #[pyo3(signature = (path))]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Self> {
        let shown = path.display().to_string();
        let io = |source: std::io::Error| {
            to_py(
                py,
                noisegraph::Error::Io {
                    path: shown.clone(),
                    source,
                },
            )
        };
        let size = std::fs::metadata(&path).map_err(io)?.len();
        if size > MAX_GRAPH_FILE_BYTES {
            return Err(crate::errors::bad_value(
                "path",
                format!("{shown} is {size} bytes, over the limit of {MAX_GRAPH_FILE_BYTES} for a graph file"),
            ));
        }
        let text = std::fs::read_to_string(&path).map_err(io)?;
        Self::from_json(py, &text)
    }

    /// The embedded preset graph called `name` (see `noisegraph.presets()`).
    #[staticmethod]
    #[pyo3(signature = (name))]
    fn preset(py: Python<'_>, name: &str) -> PyResult<Self> {
        let graph = noisegraph::presets::graph(name).map_err(|e| match e {
            noisegraph::Error::InvalidRequest(m) => crate::errors::bad_value("name", m),
            e => to_py(py, e),
        })?;
        Ok(Graph { graph })
    }

    /// The graph as a JSON string, every parameter explicit; `indent` spaces per level for
    /// a multi-line form, compact when `None`.
    #[pyo3(signature = (indent=None))]
    fn to_json(&self, indent: Option<usize>) -> PyResult<String> {
        let value = self.graph.to_json();
        let text = match indent {
            None => serde_json::to_string(&value),
            Some(n) => {
                let spaces = vec![b' '; n];
                let formatter = serde_json::ser::PrettyFormatter::with_indent(&spaces);
                let mut out = Vec::new();
                let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
                serde::Serialize::serialize(&value, &mut serializer)
                    .map(|()| String::from_utf8(out).expect("serde_json writes UTF-8"))
            }
        };
        text.map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))
    }

    /// The graph as a dict (what `json.loads(graph.to_json())` gives).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?
            .call_method1("loads", (self.to_json(None)?,))
    }

    /// The graph's base seed.
    #[getter]
    fn seed(&self) -> u32 {
        self.graph.seed
    }

    /// The id of the node baked by default.
    #[getter]
    fn output(&self) -> &str {
        &self.graph.output
    }

    /// The node ids, in declaration order.
    #[getter]
    fn node_ids(&self) -> Vec<String> {
        self.graph.nodes.iter().map(|n| n.id.clone()).collect()
    }

    /// Coordinates per point of `node` (the output when `None`): 2, 3 or 4, the width of
    /// the `points` array `sample` takes.
    #[pyo3(signature = (node=None))]
    fn dims(&self, node: Option<&str>) -> PyResult<u32> {
        let id = node.unwrap_or(&self.graph.output);
        if self.graph.node(id).is_none() {
            return Err(crate::errors::bad_value(
                "node",
                format!("no node '{id}' in the graph"),
            ));
        }
        Ok(self.graph.dims_of(id))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Graph({})", self.to_dict(py)?.repr()?))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Graph>()
            .is_ok_and(|other| other.get().graph == self.graph)
    }

    fn __hash__(&self) -> PyResult<isize> {
        Err(pyo3::exceptions::PyTypeError::new_err(
            "unhashable type: 'Graph'",
        ))
    }

    /// Pickles as `Graph(<dict>)`.
    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let class = py.get_type::<Graph>();
        let dict = slf.get().to_dict(py)?;
        PyTuple::new(py, [class.into_any(), PyTuple::new(py, [dict])?.into_any()])
    }
}

/// The `graph` argument of a function: a `Graph` or a dict in the graph format.
pub fn graph_arg(py: Python<'_>, graph: &Bound<'_, PyAny>) -> PyResult<NoiseGraph> {
    if let Ok(g) = graph.cast::<Graph>() {
        return Ok(g.get().graph.clone());
    }
    if graph.is_instance_of::<PyDict>() {
        return graph_from_dict(py, "graph", graph);
    }
    Err(bad_type(
        "graph",
        format!(
            "expected a noisegraph.Graph or a dict in the graph format (got {}); use \
             Graph.from_json, Graph.load or Graph.preset for text, files and presets",
            type_name(graph)
        ),
    ))
}

/// A dict parsed through the JSON format (so a dict and its JSON text give the same graph).
fn graph_from_dict(
    py: Python<'_>,
    argument: &str,
    dict: &Bound<'_, PyAny>,
) -> PyResult<NoiseGraph> {
    let kwargs = PyDict::new(py);
    kwargs.set_item("allow_nan", false)?;
    let text: String = py
        .import("json")?
        .call_method("dumps", (dict,), Some(&kwargs))
        .map_err(|e| {
            let message = format!("the dict is not in the JSON graph format: {}", e.value(py));
            if e.is_instance_of::<pyo3::exceptions::PyValueError>(py) {
                crate::errors::bad_value(argument, message)
            } else {
                bad_type(argument, message)
            }
        })?
        .extract()?;
    NoiseGraph::from_json(&text).map_err(|e| graph_error(py, &e))
}

/// The Python type name of `value`, for messages.
pub fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}
