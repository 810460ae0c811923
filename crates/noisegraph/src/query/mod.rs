//! Point queries: a graph's value, and gradient where its families have one, at arbitrary
//! positions given in f64. [`PointQuery`] runs on the CPU (chunks of points in parallel,
//! the families' vectorized samplers where they have them); `crate::gpu::GpuPointQuery` runs
//! the same graph through the exported WGSL module on a device.
//!
//! Positions are in the coordinates of bakes: a view samples pixel (x, y) at `origin + (x *
//! extent) / size` per axis, in f64 ([`View::pixel_coordinate`]). Each octave splits each
//! point in f64 exactly as a CPU bake splits each of its pixels (`crate::graph::position`), so
//! a query at a pixel's position is that pixel of the bake, bit for bit, at any distance from
//! the origin; [`PointQuery::values_in_view`] takes pixel coordinates instead.

pub mod point;

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::graph::{NoiseGraph, View};
use crate::query::point::{PointProgram, PointScratch};

/// Points evaluated together by one thread: enough to amortize the per-octave setup and keep
/// the vectorized samplers busy, few enough that the working set stays in cache.
pub const CHUNK_POINTS: usize = 1024;

/// Most points one query takes (256 Mi: 1 GiB of f32 values, more with gradients).
pub const MAX_POINTS: usize = 1 << 28;

/// A node of a graph compiled for evaluation at points on the CPU.
pub struct PointQuery {
    program: PointProgram,
}

impl PointQuery {
    /// Compiles `node` (the graph's output when `None`).
    pub fn new(graph: &NoiseGraph, node: Option<&str>) -> Result<Self> {
        Ok(PointQuery {
            program: PointProgram::new(graph, node)?,
        })
    }

    /// Coordinates per point: the node's dimension ([`NoiseGraph::dims_of`]: 2, 3 or 4).
    pub fn dims(&self) -> u32 {
        self.program.dims()
    }

    /// The node evaluated.
    pub fn node(&self) -> &str {
        self.program.node()
    }

    /// `Ok` when the node can be differentiated (every family it reads has an analytic
    /// gradient), else an error naming the node and family that cannot.
    pub fn check_gradient(&self) -> Result<()> {
        self.program.check_gradient()
    }

    /// The value at each point of `positions` (`dims` coordinates per point, point after
    /// point, as a NumPy array of shape (N, dims) in C order).
    pub fn values(&self, positions: &[f64]) -> Result<Vec<f32>> {
        self.run(positions, false)
    }

    /// [`PointQuery::values`] into a caller's slice of one value per point.
    pub fn values_into(&self, positions: &[f64], out: &mut [f32]) -> Result<()> {
        self.run_into(positions, false, out)
    }

    /// The value and gradient at each point: `1 + dims` numbers per point (the value, then
    /// d/dx, d/dy[, d/dz[, d/dw]] with respect to the position). An error naming the node when
    /// it cannot be differentiated (see [`PointQuery::check_gradient`]).
    pub fn gradients(&self, positions: &[f64]) -> Result<Vec<f32>> {
        self.run(positions, true)
    }

    /// [`PointQuery::gradients`] into a caller's slice of `1 + dims` numbers per point.
    pub fn gradients_into(&self, positions: &[f64], out: &mut [f32]) -> Result<()> {
        self.run_into(positions, true, out)
    }

    /// The values at pixel coordinates of `view` (x, y per point, or x, y, z for a volume;
    /// fractions allowed): the values at their positions `origin + (pixel * extent) / size`
    /// ([`View::pixel_coordinate`]), so at whole pixels bit for bit the pixels a CPU bake of
    /// `view` writes. In a tile, pixels count from the tile's corner.
    pub fn values_in_view(&self, view: &View, pixels: &[f64]) -> Result<Vec<f32>> {
        let positions = self.program.pixel_positions(view, pixels)?;
        self.run(&positions, false)
    }

    /// [`PointQuery::values_in_view`] with gradients, as [`PointQuery::gradients`] gives them.
    pub fn gradients_in_view(&self, view: &View, pixels: &[f64]) -> Result<Vec<f32>> {
        let positions = self.program.pixel_positions(view, pixels)?;
        self.run(&positions, true)
    }

    fn run(&self, coords: &[f64], gradient: bool) -> Result<Vec<f32>> {
        let n = check_coordinates(coords, self.dims())?;
        let mut out = vec![0.0; n * self.output_width(gradient)];
        self.run_into(coords, gradient, &mut out)?;
        Ok(out)
    }

    /// Numbers per point of a run: 1, or `1 + dims` with gradients.
    fn output_width(&self, gradient: bool) -> usize {
        if gradient {
            1 + self.dims() as usize
        } else {
            1
        }
    }

    fn run_into(&self, coords: &[f64], gradient: bool, out: &mut [f32]) -> Result<()> {
        if gradient {
            self.check_gradient()?;
        }
        let width = self.dims() as usize;
        let n = check_coordinates(coords, width as u32)?;
        let per_point = self.output_width(gradient);
        if out.len() != n * per_point {
            return Err(Error::InvalidRequest(format!(
                "output: {} numbers for {n} points of {per_point} each (expected {})",
                out.len(),
                n * per_point
            )));
        }
        out.par_chunks_mut(CHUNK_POINTS * per_point)
            .zip(coords.par_chunks(CHUNK_POINTS * width))
            .for_each_init(PointScratch::default, |scratch, (out, coords)| {
                if gradient {
                    self.program.gradients(coords, out, scratch)
                } else {
                    self.program.values(coords, out, scratch)
                }
            });
        Ok(())
    }

    /// The value at one point (`dims` coordinates).
    pub fn value_at(&self, position: &[f64]) -> Result<f32> {
        Ok(self.values(position)?[0])
    }
}

/// Checks a flat list of positions for `dims` coordinates per point: a whole number of
/// points, at most [`MAX_POINTS`], every coordinate finite and within 2^40 of 0 (as a bake's
/// origin). Returns the number of points.
pub fn check_positions(positions: &[f64], dims: u32) -> Result<usize> {
    check_coordinates(positions, dims)
}

fn check_coordinates(positions: &[f64], dims: u32) -> Result<usize> {
    let dims = dims as usize;
    if !positions.len().is_multiple_of(dims) {
        return Err(Error::InvalidRequest(format!(
            "positions: {} numbers is not a whole number of {dims}D points ({dims} coordinates each)",
            positions.len()
        )));
    }
    let n = positions.len() / dims;
    if n > MAX_POINTS {
        return Err(Error::Limit(format!(
            "positions: {n} points exceed the limit of {MAX_POINTS} per query"
        )));
    }
    // One pass over the positions that vectorizes (no early exit, no per-number check of
    // rayon's stop flag): `|v| <= max` is false for NaN and infinities too. Only a failing
    // query searches for the point to name.
    let max = crate::graph::limits::MAX_COORDINATE;
    let all_in_range = positions.par_chunks(1 << 14).all(|chunk| {
        chunk
            .iter()
            .fold(true, |in_range, v| in_range & (v.abs() <= max))
    });
    if all_in_range {
        return Ok(n);
    }
    if let Some(i) = positions.par_iter().position_any(|v| !v.is_finite()) {
        return Err(Error::InvalidRequest(format!(
            "positions: point {} has a non-finite coordinate ({} on axis {})",
            i / dims,
            positions[i],
            ["x", "y", "z", "w"][i % dims]
        )));
    }
    // The bound a bake's origin has (so the f64 split keeps its bits below the cell).
    if let Some(i) = positions.par_iter().position_any(|v| v.abs() > max) {
        return Err(Error::InvalidRequest(format!(
            "positions: point {} has a coordinate outside [-2^40, 2^40] ({} on axis {})",
            i / dims,
            positions[i],
            ["x", "y", "z", "w"][i % dims]
        )));
    }
    Ok(n)
}
