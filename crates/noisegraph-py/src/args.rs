//! Arguments in numpy's conventions, checked and turned into the engine's terms.
//!
//! Shapes, offsets, origins and extents are all given in numpy order: (H, W) or (D, H, W)
//! for shapes, (y, x) or (z, y, x) for the rest. The engine's [`View`] is x first, so every
//! sequence is reversed on the way in. Each error names its argument.

use noisegraph::graph::limits::MAX_COORDINATE;
use noisegraph::View;
use pyo3::prelude::*;

use crate::errors::{bad_type, bad_value};
use crate::graph::type_name;

/// The longest side a bake's view may have: the command-line tool's limit (`noisegraph bake
/// --size`), so that the pixel index of every sample stays exact in the kernels.
pub use noisegraph::graph::limits::MAX_SIDE;

/// What a bake writes per pixel (`output=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The value: no channel axis.
    Value,
    /// Value and exact gradient: (H, W, 3) = value, d/dx, d/dy; (D, H, W, 4) with d/dz.
    Gradient,
    /// A divergence-free flow: (H, W, 2) = (d/dy, -d/dx); (D, H, W, 3) for a volume.
    Curl,
}

impl Output {
    /// Parses `output=`.
    pub fn parse(text: &str) -> PyResult<Output> {
        match text {
            "value" => Ok(Output::Value),
            "gradient" => Ok(Output::Gradient),
            "curl" => Ok(Output::Curl),
            other => Err(bad_value(
                "output",
                format!("unknown output '{other}' (value, gradient, curl)"),
            )),
        }
    }

    /// Numbers per pixel; 0 when the result has no channel axis.
    pub fn channels(self, volume: bool) -> usize {
        match (self, volume) {
            (Output::Value, _) => 0,
            (Output::Gradient, false) => 3,
            (Output::Gradient, true) => 4,
            (Output::Curl, false) => 2,
            (Output::Curl, true) => 3,
        }
    }
}

/// A shape argument in numpy order: (H, W) or (D, H, W), each side from 1 to [`MAX_SIDE`].
pub fn shape(argument: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
    let sides = whole_numbers(argument, value)?;
    if !(2..=3).contains(&sides.len()) {
        return Err(bad_value(
            argument,
            format!(
                "expected (H, W) for an image or (D, H, W) for a volume (got {} numbers)",
                sides.len()
            ),
        ));
    }
    sides
        .iter()
        .map(|&s| {
            if (1..=MAX_SIDE as i64).contains(&s) {
                Ok(s as u32)
            } else {
                Err(bad_value(
                    argument,
                    format!(
                        "every side must be from 1 to {MAX_SIDE} pixels (got {:?})",
                        sides
                    ),
                ))
            }
        })
        .collect()
}

/// A sequence of whole numbers (ints, numpy integers; not floats, not a string).
pub fn whole_numbers(argument: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    if value.is_instance_of::<pyo3::types::PyString>() {
        return Err(bad_type(
            argument,
            "expected a tuple of whole numbers, not a string",
        ));
    }
    value.extract::<Vec<i64>>().map_err(|_| {
        bad_type(
            argument,
            format!(
                "expected a tuple of whole numbers (got {})",
                type_name(value)
            ),
        )
    })
}

/// An `origin=` or `extent=` argument in numpy order, as the view's x, y, z. `ndim` is the
/// shape's length: a volume takes (z, y, x); an image (y, x), or (z, y, x) where z is the
/// image's slice position through 3D and 4D nodes. `extent=` also takes one number for
/// every axis. `None` gives `default` on every axis.
pub fn view_axes(
    argument: &str,
    value: Option<&Bound<'_, PyAny>>,
    ndim: usize,
    default: f64,
) -> PyResult<[f64; 3]> {
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok([default; 3]);
    };
    let numbers: Vec<f64> = if let Ok(one) = value.extract::<f64>() {
        if argument != "extent" {
            return Err(bad_type(
                argument,
                "expected a tuple of numbers, one per axis",
            ));
        }
        vec![one; 3]
    } else {
        if value.is_instance_of::<pyo3::types::PyString>() {
            return Err(bad_type(
                argument,
                "expected a tuple of numbers, not a string",
            ));
        }
        value.extract::<Vec<f64>>().map_err(|_| {
            bad_type(
                argument,
                format!("expected a tuple of numbers (got {})", type_name(value)),
            )
        })?
    };
    let allowed = if ndim == 2 { 2..=3 } else { 3..=3 };
    if !allowed.contains(&numbers.len()) {
        let expected = if ndim == 2 {
            "(y, x), or (z, y, x) for the image's slice position"
        } else {
            "(z, y, x) for a volume"
        };
        return Err(bad_value(
            argument,
            format!("expected {expected} (got {} numbers)", numbers.len()),
        ));
    }
    let mut axes = [default; 3];
    for (axis, v) in numbers.iter().rev().enumerate() {
        axes[axis] = *v;
    }
    for (axis, v) in axes.iter().enumerate() {
        let name = ["x", "y", "z"][axis];
        if !v.is_finite() {
            return Err(bad_value(argument, format!("{name} is not finite ({v})")));
        }
        if v.abs() > MAX_COORDINATE {
            return Err(bad_value(
                argument,
                format!("{name} = {v} is outside [-2^40, 2^40]"),
            ));
        }
        if argument == "extent" && *v <= 0.0 {
            return Err(bad_value(
                argument,
                format!("{name} must be greater than 0 (got {v})"),
            ));
        }
    }
    Ok(axes)
}

/// The view of a `shape` (numpy order) with its origin and extent (x, y, z).
pub fn view(shape: &[u32], origin: [f64; 3], extent: [f64; 3]) -> View {
    let size = match *shape {
        [h, w] => [w, h, 1],
        [d, h, w] => [w, h, d],
        _ => unreachable!("shapes are checked to have 2 or 3 sides"),
    };
    let mut view = View::image(1, 1).with_origin(origin).with_extent(extent);
    view.size = size;
    view
}

/// The numpy shape of a bake of `view` writing `output`.
pub fn result_shape(view: &View, output: Output) -> Vec<usize> {
    let [w, h, d] = view.size.map(|s| s as usize);
    let volume = d > 1 || view.full_size()[2] > 1;
    let mut shape = if volume { vec![d, h, w] } else { vec![h, w] };
    let channels = output.channels(volume);
    if channels > 0 {
        shape.push(channels);
    }
    shape
}
