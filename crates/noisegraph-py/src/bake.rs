//! `bake` and `bake_tile`: a view (or a window of one) into a float32 numpy array.
//!
//! The work runs in bands of about [`BAND_SAMPLES`] samples, each with the GIL released;
//! between bands the GIL is taken back to check for signals, so Ctrl-C stops a long bake
//! within a band. A band is a tile of the whole view ([`View::tile`]), so a banded bake, a
//! bake of a tile and the command-line tool's bake give the same numbers bit for bit.

use noisegraph::graph::gradient_plan;
use noisegraph::{Backend, Error, Executor, Plan, RunOptions, View};
use numpy::ndarray::{ArrayD, IxDyn};
use numpy::{
    PyArray, PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::args::{self, Output};
use crate::errors::{bad_type, bad_value, guarded, to_py};
use crate::executor::{executor, parse_backend};
use crate::graph::{graph_arg, type_name};
use crate::threads::{check_threads, Threads};

/// Samples per band (4 MiB of f32 values): a band of an 8-octave fBm takes a few
/// milliseconds on the CPU path, so Ctrl-C is answered quickly, and the engine's own memory
/// per band (a field per stage) stays small.
pub const BAND_SAMPLES: u64 = 1 << 20;

/// Bakes `graph` over a view of `shape` and returns a float32 array in C order.
///
/// - `shape`: (H, W) for an image, (D, H, W) for a volume (numpy order, never W x H).
/// - `node`: the node to bake (the graph's output when `None`).
/// - `origin`, `extent`: the region of noise space covered, in numpy order too: (y, x) for
///   an image, or (z, y, x) where z is the image's slice position through 3D and 4D nodes;
///   (z, y, x) for a volume. Pixel (i, j) of an image samples x = origin_x + j * extent_x /
///   W, y = origin_y + i * extent_y / H. Defaults: origin 0 and extent 1 on every axis;
///   `extent` may be one number for every axis.
/// - `output`: `"value"` gives (H, W) or (D, H, W); `"gradient"` the value with its exact
///   gradient, (H, W, 3) = value, d/dx, d/dy or (D, H, W, 4) with d/dz; `"curl"` a
///   divergence-free flow, (H, W, 2) = (d/dy, -d/dx) or (D, H, W, 3).
/// - `backend`: `"auto"` (a real GPU when there is one, else the CPU path), `"cpu"`, `"gpu"`.
/// - `out`: a C-contiguous float32 array of exactly the result's shape to fill and return
///   (anything else raises, naming `out`).
/// - `threads`: the most threads the CPU path uses for this call (default: the
///   `set_threads` setting, else one per core).
///
/// The numbers are those `noisegraph bake` writes to .npy, bit for bit (CPU path). The GIL
/// is released while baking; Ctrl-C interrupts a long bake (`KeyboardInterrupt`).
#[pyfunction]
#[pyo3(signature = (graph, shape, *, node=None, origin=None, extent=None, output="value", backend="auto", out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn bake<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    shape: &Bound<'py, PyAny>,
    node: Option<String>,
    origin: Option<&Bound<'py, PyAny>>,
    extent: Option<&Bound<'py, PyAny>>,
    output: &str,
    backend: &str,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let request = Request::new(
        py, graph, shape, node, origin, extent, output, backend, threads,
    )?;
    let region = request.whole;
    request.run(py, region, out)
}

/// Bakes the window of `tile_shape` pixels at `offset` of the `shape` view (numpy order:
/// offset (y0, x0) and tile_shape (h, w), or (z0, y0, x0) and (d, h, w) for a volume): the
/// same numbers as `bake(graph, shape, ...)[y0:y0 + h, x0:x0 + w]`, bit for bit, without
/// baking the rest. Takes `bake`'s options; `out` has the tile's shape.
#[pyfunction]
#[pyo3(signature = (graph, shape, offset, tile_shape, *, node=None, origin=None, extent=None, output="value", backend="auto", out=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn bake_tile<'py>(
    py: Python<'py>,
    graph: &Bound<'py, PyAny>,
    shape: &Bound<'py, PyAny>,
    offset: &Bound<'py, PyAny>,
    tile_shape: &Bound<'py, PyAny>,
    node: Option<String>,
    origin: Option<&Bound<'py, PyAny>>,
    extent: Option<&Bound<'py, PyAny>>,
    output: &str,
    backend: &str,
    out: Option<&Bound<'py, PyAny>>,
    threads: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let request = Request::new(
        py, graph, shape, node, origin, extent, output, backend, threads,
    )?;
    let ndim = request.shape.len();
    let offset = args::whole_numbers("offset", offset)?;
    let tile = args::shape("tile_shape", tile_shape)?;
    if offset.len() != ndim || tile.len() != ndim {
        return Err(bad_value(
            if offset.len() != ndim {
                "offset"
            } else {
                "tile_shape"
            },
            format!(
                "a {} shape takes {ndim} numbers for offset and tile_shape (got offset {:?}, tile_shape {:?})",
                if ndim == 2 { "(H, W)" } else { "(D, H, W)" },
                offset,
                tile
            ),
        ));
    }
    for axis in 0..ndim {
        let fits =
            offset[axis] >= 0 && offset[axis] + tile[axis] as i64 <= request.shape[axis] as i64;
        if !fits {
            return Err(bad_value(
                "offset",
                format!(
                    "the tile at offset {offset:?} with tile_shape {tile:?} does not fit in shape {:?}",
                    request.shape
                ),
            ));
        }
    }
    let reversed = |v: &[u32]| -> [u32; 3] {
        let mut xyz = [0, 0, 0];
        for (axis, &n) in v.iter().rev().enumerate() {
            xyz[axis] = n;
        }
        xyz
    };
    let offset: Vec<u32> = offset.iter().map(|&o| o as u32).collect();
    let mut size = reversed(&tile);
    if ndim == 2 {
        size[2] = 1;
    }
    let region = request.whole.tile(reversed(&offset), size);
    request.run(py, region, out)
}

/// The position of every pixel along each axis of a `shape` view, in view units and numpy
/// order: for an image, float64 arrays (y of H numbers, x of W numbers); for a volume (z, y,
/// x). Pixel i along an axis samples origin + i * extent / size, as `bake` does; `origin`
/// and `extent` are `bake`'s.
#[pyfunction]
#[pyo3(signature = (shape, *, origin=None, extent=None))]
pub fn pixel_coordinates<'py>(
    py: Python<'py>,
    shape: &Bound<'py, PyAny>,
    origin: Option<&Bound<'py, PyAny>>,
    extent: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let shape = args::shape("shape", shape)?;
    let origin = args::view_axes("origin", origin, shape.len(), 0.0)?;
    let extent = args::view_axes("extent", extent, shape.len(), 1.0)?;
    let axes = shape.iter().rev().enumerate().rev().map(|(axis, &n)| {
        let step = extent[axis] / f64::from(n);
        let positions: Vec<f64> = (0..n).map(|i| origin[axis] + f64::from(i) * step).collect();
        PyArray1::from_vec(py, positions)
    });
    PyTuple::new(py, axes)
}

/// A checked bake request: everything but the region to bake.
struct Request {
    plan: Plan,
    whole: View,
    shape: Vec<u32>,
    output: Output,
    backend: Backend,
    threads: Threads,
}

impl Request {
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        graph: &Bound<'_, PyAny>,
        shape: &Bound<'_, PyAny>,
        node: Option<String>,
        origin: Option<&Bound<'_, PyAny>>,
        extent: Option<&Bound<'_, PyAny>>,
        output: &str,
        backend: &str,
        threads: Option<i64>,
    ) -> PyResult<Request> {
        let graph = graph_arg(py, graph)?;
        let shape = args::shape("shape", shape)?;
        let origin = args::view_axes("origin", origin, shape.len(), 0.0)?;
        let extent = args::view_axes("extent", extent, shape.len(), 1.0)?;
        let output = Output::parse(output)?;
        let backend = parse_backend(backend)?;
        let threads = Threads::for_call(check_threads(threads)?)?;
        if let Some(id) = &node {
            if graph.node(id).is_none() {
                return Err(bad_value("node", format!("no node '{id}' in the graph")));
            }
        }
        let plan = match output {
            Output::Value => Plan::new(&graph, node.as_deref()),
            Output::Gradient | Output::Curl => gradient_plan(&graph, node.as_deref()),
        }
        .map_err(|e| to_py(py, e))?;
        let whole = args::view(&shape, origin, extent);
        plan.check_view(&whole).map_err(|e| to_py(py, e))?;
        Ok(Request {
            plan,
            whole,
            shape,
            output,
            backend,
            threads,
        })
    }

    /// Bakes `region` (the whole view or a tile of it) into `out` or a new array.
    fn run<'py>(
        &self,
        py: Python<'py>,
        region: View,
        out: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let shape = args::result_shape(&region, self.output);
        let volume = self.whole.is_volume();
        let executor = py
            .detach(|| guarded(|| executor(self.backend)))?
            .map_err(|e| to_py(py, e))?;
        let max_side = match &executor {
            Executor::Gpu(ctx) if !volume => Some(ctx.limits().max_texture_dimension_2d),
            _ => None,
        };
        let bands = bands(&region, max_side);
        let job = Job {
            executor: &executor,
            plan: &self.plan,
            output: self.output,
            volume,
            threads: &self.threads,
        };
        if let Some(out) = out {
            let array = out_array(py, out, &shape)?;
            let mut guard = array
                .try_readwrite()
                .map_err(|e| bad_value("out", format!("the array cannot be written ({e})")))?;
            let samples = guard
                .as_slice_mut()
                .map_err(|_| bad_value("out", "must be C-contiguous"))?;
            job.fill(py, &region, &bands, samples)?;
            return Ok(out.clone());
        }
        let data = if let [band] = bands.as_slice() {
            // One band: the engine's own buffer becomes the array, no copy.
            job.band(py, &region, band)?
        } else {
            let len: usize = shape.iter().product();
            noisegraph::memory::check_available(
                &format!("bake: the result of shape {shape:?}"),
                len as u64 * 4,
            )
            .map_err(|e| to_py(py, e))?;
            let mut data = Vec::new();
            data.try_reserve_exact(len).map_err(|_| {
                bad_value(
                    "shape",
                    format!("could not allocate the result of shape {shape:?}"),
                )
            })?;
            data.resize(len, 0.0f32);
            job.fill(py, &region, &bands, &mut data)?;
            data
        };
        let array = ArrayD::from_shape_vec(IxDyn(&shape), data)
            .expect("the engine returns one number per pixel and channel");
        Ok(PyArray::from_owned_array(py, array).into_any())
    }
}

/// What every band of one bake runs.
struct Job<'a> {
    executor: &'a Executor,
    plan: &'a Plan,
    output: Output,
    volume: bool,
    threads: &'a Threads,
}

impl Job<'_> {
    /// Bakes `band` (offset and size within `region`), channel-interleaved, without the GIL.
    fn band(&self, py: Python<'_>, region: &View, band: &Band) -> PyResult<Vec<f32>> {
        let view = region.tile(band.offset, band.size);
        py.detach(|| guarded(|| self.threads.install(|| self.run(&view))))?
            .map_err(|e| to_py(py, e))
    }

    /// Bakes every band of `region` into `samples` (the region's C-order array), checking
    /// for signals (Ctrl-C) between bands.
    fn fill(
        &self,
        py: Python<'_>,
        region: &View,
        bands: &[Band],
        samples: &mut [f32],
    ) -> PyResult<()> {
        let channels = self.output.channels(self.volume).max(1);
        let [w, h, _] = region.size.map(|s| s as usize);
        for band in bands {
            let view = region.tile(band.offset, band.size);
            let samples = &mut *samples;
            py.detach(|| {
                guarded(|| {
                    let data = self.threads.install(|| self.run(&view))?;
                    let [bw, bh, bd] = band.size.map(|s| s as usize);
                    let [x0, y0, z0] = band.offset.map(|s| s as usize);
                    let row = bw * channels;
                    for (i, line) in data.chunks_exact(row).enumerate() {
                        let (y, z) = (y0 + i % bh, z0 + i / bh);
                        debug_assert!(z < z0 + bd);
                        let start = ((z * h + y) * w + x0) * channels;
                        samples[start..start + row].copy_from_slice(line);
                    }
                    Ok::<(), Error>(())
                })
            })?
            .map_err(|e| to_py(py, e))?;
            py.check_signals()?;
        }
        Ok(())
    }

    /// One engine run over `view`: the numbers of every pixel, channel fastest.
    fn run(&self, view: &View) -> Result<Vec<f32>, Error> {
        let options = RunOptions::default();
        Ok(match self.output {
            Output::Value => self.executor.run(self.plan, view, &options)?.data,
            Output::Gradient => self
                .executor
                .run_gradient(self.plan, view, &options)?
                .interleaved(self.output.channels(self.volume)),
            Output::Curl => self.executor.run_curl(self.plan, view, &options)?.data,
        })
    }
}

/// A band of a region: its pixel offset within the region and its size (x, y, z).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Band {
    offset: [u32; 3],
    size: [u32; 3],
}

/// The region cut into bands of about [`BAND_SAMPLES`]: runs of whole rows of one slice, or
/// runs of whole slices of a volume whose slices are small. `max_side` (a GPU's texture
/// limit) also cuts rows wider than it into several tiles.
fn bands(region: &View, max_side: Option<u32>) -> Vec<Band> {
    let [w, h, d] = region.size;
    let max_side = max_side.unwrap_or(u32::MAX).max(1);
    let slice = w as u64 * h as u64;
    let mut bands = Vec::new();
    if d > 1 && slice < BAND_SAMPLES {
        let slices = (BAND_SAMPLES / slice).clamp(1, d as u64) as u32;
        for z in (0..d).step_by(slices as usize) {
            bands.push(Band {
                offset: [0, 0, z],
                size: [w, h, slices.min(d - z)],
            });
        }
        return bands;
    }
    let tile_w = w.min(max_side);
    let rows = (BAND_SAMPLES / tile_w as u64).clamp(1, h.min(max_side) as u64) as u32;
    for z in 0..d {
        for y in (0..h).step_by(rows as usize) {
            for x in (0..w).step_by(tile_w as usize) {
                bands.push(Band {
                    offset: [x, y, z],
                    size: [tile_w.min(w - x), rows.min(h - y), 1],
                });
            }
        }
    }
    bands
}

/// The bands (offset, size; both x, y, z) that a bake of a region of `size` pixels (x, y, z)
/// is cut into, `max_side` being a GPU's texture limit (`None`: the CPU path). For the test
/// suite (`tests/test_bake.py`), which checks that they cover every pixel once and stay
/// within `_BAND_SAMPLES`.
#[pyfunction(name = "_bands_for_tests")]
#[pyo3(signature = (size, max_side=None))]
pub fn bands_for_tests(size: [u32; 3], max_side: Option<u32>) -> Vec<([u32; 3], [u32; 3])> {
    let mut region = View::image(1, 1);
    region.size = size;
    bands(&region, max_side)
        .into_iter()
        .map(|band| (band.offset, band.size))
        .collect()
}

/// Checks `out=`: a writeable, C-contiguous float32 numpy array of exactly `shape`.
fn out_array<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyAny>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
    let untyped = out.cast::<PyUntypedArray>().map_err(|_| {
        bad_type(
            "out",
            format!(
                "expected a numpy.ndarray of float32 (got {})",
                type_name(out)
            ),
        )
    })?;
    if !untyped.dtype().is_equiv_to(&numpy::dtype::<f32>(py)) {
        return Err(bad_type(
            "out",
            format!("dtype must be float32 (got {})", untyped.dtype()),
        ));
    }
    if untyped.shape() != shape {
        return Err(bad_value(
            "out",
            format!(
                "shape must be {} (got {})",
                show_shape(shape),
                show_shape(untyped.shape())
            ),
        ));
    }
    if !untyped.is_c_contiguous() {
        return Err(bad_value(
            "out",
            "must be C-contiguous (np.empty(shape, np.float32) is)",
        ));
    }
    Ok(out
        .cast::<PyArrayDyn<f32>>()
        .map_err(|_| bad_type("out", "dtype must be float32"))?
        .clone())
}

/// A shape as Python prints it: `(512, 512)`, `(7,)`.
pub fn show_shape(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        many => format!(
            "({})",
            many.iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}
