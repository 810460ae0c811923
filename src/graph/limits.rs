//! Bounds on every number that reaches a kernel. The kernels work in f32 on positions the host
//! has split into an integer lattice cell and a small remainder; these limits keep every
//! position, step, amplitude and value finite there, and positions precise to a small
//! fraction of a lattice cell, so a graph that validates never bakes NaN or infinity.
//! Single fields are checked as they are parsed; what combines several fields or nodes
//! ([`check`]) once the graph's references resolve; what involves the view in
//! [`check_view`](super::Plan::check_view).

use super::node::*;
use super::NoiseGraph;
use crate::error::GraphIssue;

/// Largest frequency of any octave, in lattice cells per unit (2^20): `frequency`, and
/// `frequency x lacunarity^(octaves - 1)` in a fractal.
pub const MAX_FREQUENCY: f64 = (1u64 << 20) as f64;
/// Smallest frequency of any octave (2^-40), so steps stay normal f32 numbers.
pub const MIN_FREQUENCY: f64 = 1.0 / (1u64 << 40) as f64;
/// Largest magnitude of a coordinate (2^40): `offset`, `z`, `w`, a warp's `amplitude`, the
/// view's origin and extent.
pub const MAX_COORDINATE: f64 = (1u64 << 40) as f64;
/// Largest distance from 0 of a sample position, in lattice cells of its octave (2^40): the
/// host splits it in f64, which keeps 12 bits below the cell.
pub const MAX_LATTICE_POSITION: f64 = (1u64 << 40) as f64;
/// Most lattice cells of one octave across the view, and the farthest a warp may displace a
/// sample, in cells (2^20): the kernel's f32 positions within a view then keep at least 3
/// bits below the cell.
pub const MAX_CELLS_ACROSS: f64 = (1u64 << 20) as f64;
/// Largest magnitude of a value (10^18): constants, clamp and remap ends, biases, and every
/// node's documented range. Products of two such values stay finite in f32 (10^36 < 3.4e38).
pub const MAX_VALUE: f64 = 1e18;
/// Largest magnitude of a multiplier (10^18): `scale`, and remap's (to span) / (from span).
pub const MAX_SCALE: f64 = 1e18;
/// Largest magnitude of an octave's amplitude `gain^k` (10^18).
pub const MAX_AMPLITUDE: f64 = 1e18;

/// A limit as messages show it: 2^k for powers of two, else in scientific notation.
pub fn show_limit(limit: f64) -> String {
    let log = limit.log2();
    if limit > 0.0 && log.fract() == 0.0 && log.abs() >= 10.0 {
        format!("2^{log}")
    } else {
        format!("{limit:e}")
    }
}

/// The message for a number past its limit.
pub fn over(value: f64, limit: f64) -> String {
    format!(
        "must be within [-{l}, {l}] (got {value})",
        l = show_limit(limit)
    )
}

fn issue(node: &str, field: &str, message: String) -> GraphIssue {
    GraphIssue {
        node: Some(node.to_string()),
        field: field.to_string(),
        message,
    }
}

/// The smallest and largest octave frequency per axis of a generator chain (a family node,
/// or a fractal over one): `frequency x lacunarity^k` for k in 0..octaves.
pub fn octave_frequencies(source: &FamilyNode, fractal: Option<&FractalNode>) -> [(f64, f64); 4] {
    let (first, last) = match fractal {
        Some(f) => (1.0, f.lacunarity.powi(f.octaves.saturating_sub(1) as i32)),
        None => (1.0, 1.0),
    };
    let (low, high) = (f64::min(first, last), f64::max(first, last));
    source.frequency.map(|f| (f * low, f * high))
}

/// The generator chain of a family or fractal node: (family node, fractal node).
fn chain<'a>(
    graph: &'a NoiseGraph,
    node: &'a Node,
) -> Option<(&'a FamilyNode, Option<&'a FractalNode>)> {
    match &node.kind {
        NodeKind::Family(f) => Some((f, None)),
        NodeKind::Fractal(fr) => match graph.node(&fr.source).map(|n| &n.kind) {
            Some(NodeKind::Family(f)) => Some((f, Some(fr))),
            _ => None,
        },
        _ => None,
    }
}

/// Bounds that combine several fields or nodes. Call on a graph whose references resolve
/// and that has no cycle; each issue names the node and the field to change.
pub fn check(graph: &NoiseGraph) -> Vec<GraphIssue> {
    let mut issues = Vec::new();
    let ranges = graph.fold(0..graph.nodes.len(), (-1.0f32, 1.0f32), |node, ins| {
        // A range already out of bounds upstream is reported there, not at every reader.
        if ins.iter().any(|r| !in_bounds(*r)) {
            return (0.0, 0.0);
        }
        super::node_range(node, ins)
    });
    let index = super::walk::index_by_id(graph);
    let range_of = |id: &str| index.get(id).and_then(|&i| ranges[i]).unwrap_or((0.0, 0.0));
    for (i, node) in graph.nodes.iter().enumerate() {
        match &node.kind {
            NodeKind::Fractal(f) => {
                let Some((source, _)) = chain(graph, node) else {
                    continue;
                };
                let last = f.octaves.saturating_sub(1);
                for (axis, (low, high)) in octave_frequencies(source, Some(f))
                    .iter()
                    .take(source.dims as usize)
                    .enumerate()
                {
                    if *high > MAX_FREQUENCY || *low < MIN_FREQUENCY {
                        issues.push(issue(
                            &node.id,
                            "lacunarity",
                            format!(
                                "the octaves' frequencies (frequency x lacunarity^k, k = 0..{last}) span {low:e} to {high:e} cells per unit on axis {axis}, outside the limits [{}, {}]: lower the lacunarity, the octaves or the source's frequency",
                                show_limit(MIN_FREQUENCY),
                                show_limit(MAX_FREQUENCY)
                            ),
                        ));
                        break;
                    }
                }
                let amplitude = f.gain.abs().powi(last as i32).max(1.0);
                if past(amplitude, MAX_AMPLITUDE) {
                    issues.push(issue(
                        &node.id,
                        "gain",
                        format!(
                            "the last octave's amplitude |gain|^{last} = {amplitude:e} is over the limit {}: lower the gain or the octaves",
                            show_limit(MAX_AMPLITUDE)
                        ),
                    ));
                }
            }
            NodeKind::Warp(w) => {
                let Some((source, fractal)) = graph.node(&w.source).and_then(|s| chain(graph, s))
                else {
                    continue;
                };
                let frequencies = octave_frequencies(source, fractal);
                for (axis, d) in w.displace.iter().enumerate().take(4) {
                    let (lo, hi) = range_of(d);
                    let reach =
                        w.amplitude.abs() * frequencies[axis].1 * f64::from(lo.abs().max(hi.abs()));
                    if past(reach, MAX_CELLS_ACROSS) {
                        issues.push(issue(
                            &node.id,
                            "amplitude",
                            format!(
                                "displaces samples up to {reach:e} lattice cells on axis {axis} (amplitude {} x frequency {:e} x |'{d}'| up to {:e}), over the limit {}",
                                w.amplitude,
                                frequencies[axis].1,
                                lo.abs().max(hi.abs()),
                                show_limit(MAX_CELLS_ACROSS)
                            ),
                        ));
                        break;
                    }
                }
            }
            NodeKind::Pointwise(p) => {
                let inputs_ok = node.inputs().iter().all(|id| in_bounds(range_of(id)));
                let Some(range) = ranges[i] else { continue };
                if inputs_ok && !in_bounds(range) {
                    let field = match p.op {
                        PointwiseOp::Remap { .. } => "to",
                        PointwiseOp::ScaleBias { .. } => "scale",
                        _ if p.op.arity() == 1 => "source",
                        _ => "inputs",
                    };
                    issues.push(issue(
                        &node.id,
                        field,
                        format!(
                            "the node's values would span [{:e}, {:e}], beyond the limit of +-{:e}",
                            range.0, range.1, MAX_VALUE
                        ),
                    ));
                }
            }
            NodeKind::Family(_) => {}
        }
    }
    issues
}

/// Whether `x` is over `limit` or NaN.
fn past(x: f64, limit: f64) -> bool {
    x.is_nan() || x > limit
}

/// Whether a documented range is finite and within +-[`MAX_VALUE`].
fn in_bounds((lo, hi): (f32, f32)) -> bool {
    let max = MAX_VALUE as f32;
    lo.abs() <= max && hi.abs() <= max
}

/// Checks a generator chain (`node`'s family `source`, summed by `fractal`) against a view:
/// the cells of each octave across the view, and the distance from 0 of every sample
/// position, in cells. The error names the node and the numbers to change.
pub fn check_chain_view(
    node: &str,
    source: &FamilyNode,
    fractal: Option<&FractalNode>,
    view: &super::View,
) -> Result<(), String> {
    let frequencies = octave_frequencies(source, fractal);
    let fractal_offset = fractal.map_or([0.0; 4], |f| f.offset);
    let axes = ["x", "y", "z", "w"];
    for a in 0..source.dims.min(4) as usize {
        let high = frequencies[a].1;
        let slice = match a {
            2 => source.z,
            3 => source.w,
            _ => 0.0,
        };
        let start = view.origin.get(a).copied().unwrap_or(0.0)
            + slice
            + source.offset[a]
            + fractal_offset[a];
        // The extent only spans an axis the view has pixels along.
        let extent = if a < 2 || (a == 2 && view.is_volume()) {
            view.extent[a]
        } else {
            0.0
        };
        let cells = extent * high;
        if past(cells, MAX_CELLS_ACROSS) {
            return Err(format!(
                "node '{node}': the view spans {cells:e} lattice cells along {} (extent {extent} x frequency {high:e}), over the limit {}: lower the extent or the frequency",
                axes[a],
                show_limit(MAX_CELLS_ACROSS)
            ));
        }
        let reach = start.abs().max((start + extent).abs()) * high;
        if past(reach, MAX_LATTICE_POSITION) {
            return Err(format!(
                "node '{node}': samples lie up to {reach:e} lattice cells from 0 along {} (origin + offset up to {:e} x frequency {high:e}), over the limit {}: move the origin or offset closer to 0",
                axes[a],
                start.abs().max((start + extent).abs()),
                show_limit(MAX_LATTICE_POSITION)
            ));
        }
    }
    Ok(())
}
