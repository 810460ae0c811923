//! Bounds on every number that reaches a kernel, so a graph that validates never bakes NaN or
//! infinity and both paths compute the same thing. The host splits each octave's position
//! into an integer lattice cell and a small f32 remainder (in f64, so far origins stay
//! precise); within a view the kernel adds `pixel x step` and a warp's displacement to that
//! remainder in f32 and converts its floor to i32. Kept under 2^31, that conversion is exact
//! on both paths (beyond it the CPU saturates at i32::MAX and WGSL at the largest f32 below
//! it, so the paths would part). An octave whose weight in its fractal sum is below
//! [`NEGLIGIBLE_WEIGHT`] cannot move the sum's f32 result, so it only has to stay finite: a
//! 32-octave fBm at lacunarity 2 is fine, its last octaves far finer than any pixel.
//!
//! Single fields are checked as they are parsed; what combines several fields or nodes
//! ([`check`]) once the graph's references resolve; what involves the view
//! ([`check_chain_view`], from `Plan::check_view`).

use super::node::*;
use super::NoiseGraph;
use crate::error::GraphIssue;

/// An octave whose share of its fractal's sum (|gain^k| over the sum of |gain^j|) is below
/// 2^-24, the resolution of an f32 sum of order 1, is negligible: its numbers only have to
/// stay finite.
pub const NEGLIGIBLE_WEIGHT: f64 = 1.0 / (1u64 << 24) as f64;
/// Largest frequency of an octave that counts, in lattice cells per unit (2^30): `frequency`,
/// and `frequency x lacunarity^k` in a fractal.
pub const MAX_FREQUENCY: f64 = (1u64 << 30) as f64;
/// Largest frequency of a negligible octave (2^48).
pub const MAX_NEGLIGIBLE_FREQUENCY: f64 = (1u64 << 48) as f64;
/// Smallest frequency of any octave (2^-40), so steps stay normal f32 numbers.
pub const MIN_FREQUENCY: f64 = 1.0 / (1u64 << 40) as f64;
/// Largest magnitude of a coordinate (2^40): `offset`, `z`, `w`, a warp's `amplitude`, the
/// view's origin and extent.
pub const MAX_COORDINATE: f64 = (1u64 << 40) as f64;
/// Largest distance from 0 of a sample position, in lattice cells of an octave that counts
/// (2^40): split in f64 on the host, which keeps 12 bits below the cell. Negligible octaves:
/// 2^60 (the split stays finite and wraps like any other).
pub const MAX_LATTICE_POSITION: f64 = (1u64 << 40) as f64;
/// [`MAX_LATTICE_POSITION`] of a negligible octave (2^60).
pub const MAX_NEGLIGIBLE_LATTICE_POSITION: f64 = (1u64 << 60) as f64;
/// Most lattice cells of an octave that counts across the view (2^30); with a warp's reach
/// ([`MAX_WARP_CELLS`]) the kernel's f32 positions stay under 2^31. Negligible octaves: 2^48.
pub const MAX_CELLS_ACROSS: f64 = (1u64 << 30) as f64;
/// [`MAX_CELLS_ACROSS`] of a negligible octave (2^48).
pub const MAX_NEGLIGIBLE_CELLS_ACROSS: f64 = (1u64 << 48) as f64;
/// Farthest a warp may displace a sample of an octave that counts, in its cells (2^18);
/// negligible octaves: 2^47. With [`MAX_WARPED_CELLS_ACROSS`] a warped octave's f32
/// positions stay under 2^19 cells, where they keep 4 bits below the cell.
pub const MAX_WARP_CELLS: f64 = (1u64 << 18) as f64;
/// Most lattice cells across the view of an octave that counts of a warped source (2^18).
/// A warp adds its displacement to positions of this magnitude in f32, so a difference of an
/// ulp between the two paths' displacements moves a sample by an ulp of the position: past
/// 2^19 cells in all, 1/16 of a cell or more, and the paths part by percents (measured:
/// 4.9e-3 on 13.6% of the pixels at 2^19 to 2^30 cells). Below, the difference is bounded
/// by [`warp_weighted_cells`] x [`WARP_DIFFERENCE_PER_CELL`].
pub const MAX_WARPED_CELLS_ACROSS: f64 = (1u64 << 18) as f64;
/// How far the two paths may part on a warp, per weighted cell of its source
/// ([`warp_weighted_cells`]): 2^-21, above the 1e-4 of every other stage. An ulp of a
/// position of M cells is M x 2^-23 cells; the noise moves by at most its slope (about 2 per
/// cell) times that, and by the displacement's own difference times the warp's reach.
pub const WARP_DIFFERENCE_PER_CELL: f64 = 1.0 / (1u64 << 21) as f64;
/// [`MAX_WARP_CELLS`] of a negligible octave (2^47).
pub const MAX_NEGLIGIBLE_WARP_CELLS: f64 = (1u64 << 47) as f64;
/// Largest magnitude of a value (10^18): constants, clamp and remap ends, biases, and every
/// node's documented range. Products of two such values stay finite in f32 (10^36 < 3.4e38).
pub const MAX_VALUE: f64 = 1e18;
/// Largest magnitude of a multiplier (10^18): `scale`, and remap's (to span) / (from span).
pub const MAX_SCALE: f64 = 1e18;
/// Largest magnitude of an octave's amplitude `gain^k` (10^18).
pub const MAX_AMPLITUDE: f64 = 1e18;

/// The longest side of a bake's view (2^20 pixels), for the command-line tool and the Python
/// package: a tiled bake holds a row band (the width times a tile's height) in memory, and
/// every pixel index stays far below 2^24, exact in f32.
pub const MAX_SIDE: u32 = 1 << 20;

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

/// Each octave of a generator chain (a family node, or a fractal over one): its frequency per
/// axis (`frequency x lacunarity^k`) and whether it counts (its weight |gain^k| / sum of
/// |gain^j| is at least [`NEGLIGIBLE_WEIGHT`]; a lone family node's one octave counts).
pub fn octaves(source: &FamilyNode, fractal: Option<&FractalNode>) -> Vec<([f64; 4], bool)> {
    let Some(f) = fractal else {
        return vec![(source.frequency, true)];
    };
    let amplitudes: Vec<f64> = (0..f.octaves)
        .map(|k| f.gain.abs().powi(k as i32))
        .collect();
    let total: f64 = amplitudes.iter().sum();
    amplitudes
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let scale = f.lacunarity.powi(k as i32);
            let counts = a / total >= NEGLIGIBLE_WEIGHT;
            (source.frequency.map(|x| x * scale), counts)
        })
        .collect()
}

/// A limit that depends on whether the octave counts.
fn limit(counts: bool, counting: f64, negligible: f64) -> f64 {
    if counts {
        counting
    } else {
        negligible
    }
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
                'octaves: for (k, (frequency, counts)) in
                    octaves(source, Some(f)).iter().enumerate()
                {
                    let max = limit(*counts, MAX_FREQUENCY, MAX_NEGLIGIBLE_FREQUENCY);
                    for (axis, x) in frequency.iter().take(source.dims as usize).enumerate() {
                        if past(*x, max) || *x < MIN_FREQUENCY {
                            issues.push(issue(
                                &node.id,
                                "lacunarity",
                                format!(
                                    "octave {k} has frequency {x:e} cells per unit on axis {axis} (frequency x lacunarity^{k}), outside the limits [{}, {}]{}: lower the lacunarity, the octaves or the source's frequency",
                                    show_limit(MIN_FREQUENCY),
                                    show_limit(max),
                                    if *counts { "" } else { " of an octave too weak to count" }
                                ),
                            ));
                            break 'octaves;
                        }
                    }
                }
                if f.derivative_weight != 0.0 {
                    if let Some(fam) = crate::family::lookup(&source.family) {
                        if fam.wgsl_grad_call(source.dims, &source.params).is_none() {
                            issues.push(issue(
                                &node.id,
                                "derivative_weight",
                                format!(
                                    "a derivative weight needs the gradient of source '{}', and {}: set derivative_weight to 0 or choose a variant with a gradient",
                                    f.source,
                                    fam.no_gradient_reason(source.dims, &source.params)
                                ),
                            ));
                        }
                    }
                }
                if f.kind.is_musgrave() {
                    if let Some(range) = ranges[i].filter(|r| !in_bounds(*r)) {
                        issues.push(issue(
                            &node.id,
                            "gain",
                            format!(
                                "the node's values could span [{:e}, {:e}], beyond the limit of +-{:e}: lower the gain, the signal_offset or the octaves",
                                range.0, range.1, MAX_VALUE
                            ),
                        ));
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
                let octaves = octaves(source, fractal);
                'axes: for (axis, d) in w.displace.iter().enumerate().take(4) {
                    let (lo, hi) = range_of(d);
                    let largest = f64::from(lo.abs().max(hi.abs()));
                    for (k, (frequency, counts)) in octaves.iter().enumerate() {
                        let max = limit(*counts, MAX_WARP_CELLS, MAX_NEGLIGIBLE_WARP_CELLS);
                        let reach = w.amplitude.abs() * frequency[axis] * largest;
                        if past(reach, max) {
                            issues.push(issue(
                                &node.id,
                                "amplitude",
                                format!(
                                    "displaces samples of octave {k} up to {reach:e} lattice cells on axis {axis} (amplitude {} x frequency {:e} x |'{d}'| up to {largest:e}), over the limit {}",
                                    w.amplitude,
                                    frequency[axis],
                                    show_limit(max)
                                ),
                            ));
                            break 'axes;
                        }
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
            NodeKind::Family(_) | NodeKind::Mapping(_) => {}
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

/// The extent of `view` along axis `a`: only an axis the view has pixels along spans one.
fn view_extent(view: &super::View, a: usize) -> f64 {
    if a < 2 || (a == 2 && view.is_volume()) {
        view.extent[a]
    } else {
        0.0
    }
}

/// The weighted cells of a warped generator chain (`source`, summed by `fractal`) over
/// `view`: the sum over its octaves of the octave's share of the fractal's sum
/// (|gain^k| / sum of |gain^j|; 1 for a lone family node) times its largest number of
/// lattice cells on an axis, across the view plus the warp's reach (`amplitude` x the
/// octave's frequency x `displacement[a]`, the largest |displacement| along axis `a`). The
/// paths agree on the warp within 1e-4 + this x [`WARP_DIFFERENCE_PER_CELL`].
pub fn warp_weighted_cells(
    source: &FamilyNode,
    fractal: Option<&FractalNode>,
    amplitude: f64,
    displacement: [f64; 4],
    view: &super::View,
) -> f64 {
    let octaves = octaves(source, fractal);
    let weights: Vec<f64> = match fractal {
        Some(f) => (0..f.octaves)
            .map(|k| f.gain.abs().powi(k as i32))
            .collect(),
        None => vec![1.0],
    };
    let total: f64 = weights.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    octaves
        .iter()
        .zip(&weights)
        .map(|((frequency, _), weight)| {
            let cells = (0..source.dims.min(4) as usize)
                .map(|a| frequency[a] * (view_extent(view, a) + amplitude.abs() * displacement[a]))
                .fold(0.0, f64::max);
            weight / total * cells
        })
        .sum()
}

/// Checks a generator chain (`node`'s family `source`, summed by `fractal`) against a view:
/// the cells of each octave across the view (of an octave that counts of a `warped` chain at
/// most [`MAX_WARPED_CELLS_ACROSS`]), and the distance from 0 of every sample position, in
/// cells. The error names the node and the numbers to change.
pub fn check_chain_view(
    node: &str,
    source: &FamilyNode,
    fractal: Option<&FractalNode>,
    warped: bool,
    view: &super::View,
) -> Result<(), String> {
    let origin = [view.origin[0], view.origin[1], view.origin[2], 0.0];
    let extent = std::array::from_fn(|a| if a < 3 { view_extent(view, a) } else { 0.0 });
    check_chain_box(node, source, fractal, warped, origin, extent)
}

/// [`check_chain_view`] for the box of positions a chain samples: `origin` + [0, `extent`]
/// per axis (a mapped chain's box, `Mapping::bounds`).
pub fn check_chain_box(
    node: &str,
    source: &FamilyNode,
    fractal: Option<&FractalNode>,
    warped: bool,
    origin: [f64; 4],
    extents: [f64; 4],
) -> Result<(), String> {
    let fractal_offset = fractal.map_or([0.0; 4], |f| f.offset);
    let axes = ["x", "y", "z", "w"];
    for (k, (frequency, counts)) in octaves(source, fractal).iter().enumerate() {
        for a in 0..source.dims.min(4) as usize {
            let f = frequency[a];
            let slice = match a {
                2 => source.z,
                3 => source.w,
                _ => 0.0,
            };
            let start = origin[a] + slice + source.offset[a] + fractal_offset[a];
            let extent = extents[a];
            let weak = if *counts {
                ""
            } else {
                " (an octave too weak to count)"
            };
            let cells = extent * f;
            let max = limit(*counts, MAX_CELLS_ACROSS, MAX_NEGLIGIBLE_CELLS_ACROSS);
            if past(cells, max) {
                return Err(format!(
                    "node '{node}': octave {k} spans {cells:e} lattice cells along {} of the view (extent {extent} x frequency {f:e}), over the limit {}{weak}: lower the extent or the frequency",
                    axes[a],
                    show_limit(max)
                ));
            }
            if warped && *counts && past(cells, MAX_WARPED_CELLS_ACROSS) {
                return Err(format!(
                    "node '{node}': octave {k} of this warped node spans {cells:e} lattice cells along {} of the view (extent {extent} x frequency {f:e}), over the limit {} for a warp's source, where f32 positions lose the cell and the GPU and CPU paths part: lower the extent, the frequency or the octaves",
                    axes[a],
                    show_limit(MAX_WARPED_CELLS_ACROSS)
                ));
            }
            let far = start.abs().max((start + extent).abs());
            let reach = far * f;
            let max = limit(
                *counts,
                MAX_LATTICE_POSITION,
                MAX_NEGLIGIBLE_LATTICE_POSITION,
            );
            if past(reach, max) {
                return Err(format!(
                    "node '{node}': samples of octave {k} lie up to {reach:e} lattice cells from 0 along {} (origin + offset up to {far:e} x frequency {f:e}), over the limit {}{weak}: move the origin or offset closer to 0",
                    axes[a],
                    show_limit(max)
                ));
            }
        }
    }
    Ok(())
}
