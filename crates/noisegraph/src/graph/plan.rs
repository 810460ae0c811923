//! Planning: which nodes become stages (materialized fields), in what order, and the
//! uniform data each stage runs with. Both executors (GPU and CPU) run the same plan with
//! the same uniforms.

use std::collections::{HashMap, HashSet};

use bytemuck::{Pod, Zeroable};

use super::mapping::Mapping;
use super::node::*;
use super::NoiseGraph;
use crate::error::{Error, Result};
use crate::family::{self, Family};
use crate::twin::hash::seed_hash;
use crate::twin::lib::mapping::MappingUniform;

/// The region of space a bake covers and its resolution. Pixel (x, y, z) samples
/// `origin + (x, y, z) * extent / size` (corners, not centres).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct View {
    /// Width, height, depth (depth 1 for an image): the size of the field a run produces.
    pub size: [u32; 3],
    /// Position of pixel (0, 0, 0), in input space (x, y, z).
    pub origin: [f64; 3],
    /// Size of the covered region along x, y, z, in input space.
    pub extent: [f64; 3],
    /// When set, this view renders only a window of a larger view (a tile). The lattice
    /// split and per-pixel step are those of the larger view, so tiles stitch bit for bit.
    pub window: Option<Window>,
}

/// A tile of a larger view: its pixel offset and the larger view's size. Pixel (x, y, z)
/// of the tile samples `origin + (offset + (x, y, z)) * extent / full_size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Pixel offset of the tile's pixel (0, 0, 0) in the larger view.
    pub offset: [u32; 3],
    /// Size in pixels of the larger view.
    pub full_size: [u32; 3],
}

impl View {
    /// An image of `width` x `height` over the unit square.
    pub fn image(width: u32, height: u32) -> Self {
        View {
            size: [width, height, 1],
            origin: [0.0; 3],
            extent: [1.0; 3],
            window: None,
        }
    }
    /// A volume of `width` x `height` x `depth` over the unit cube.
    pub fn volume(width: u32, height: u32, depth: u32) -> Self {
        View {
            size: [width, height, depth],
            origin: [0.0; 3],
            extent: [1.0; 3],
            window: None,
        }
    }
    /// The same view with its origin set to `origin`.
    pub fn with_origin(mut self, origin: [f64; 3]) -> Self {
        self.origin = origin;
        self
    }
    /// The same view with its extent set to `extent`.
    pub fn with_extent(mut self, extent: [f64; 3]) -> Self {
        self.extent = extent;
        self
    }
    /// The tile of this view at pixel `offset` with `size` pixels (clipped to the view).
    /// Tiles of a tile are tiles of the outermost view.
    pub fn tile(&self, offset: [u32; 3], size: [u32; 3]) -> View {
        let (base, full) = match self.window {
            Some(w) => (w.offset, w.full_size),
            None => ([0; 3], self.size),
        };
        let offset: [u32; 3] = std::array::from_fn(|a| base[a] + offset[a]);
        View {
            size: std::array::from_fn(|a| size[a].min(full[a].saturating_sub(offset[a]))),
            origin: self.origin,
            extent: self.extent,
            window: Some(Window {
                offset,
                full_size: full,
            }),
        }
    }
    /// The input-space coordinate of pixel `pixel` (counted in the whole view, fractions
    /// allowed) on `axis`: `origin + (pixel * extent) / full_size`, in f64 and in this order.
    /// The one pixel position: CPU bakes sample each pixel here (and split it per octave as a
    /// point query splits a point), so `noisegraph sample` at these coordinates returns the
    /// bake's pixels bit for bit.
    #[inline(always)]
    pub fn pixel_coordinate(&self, axis: usize, pixel: f64) -> f64 {
        self.origin[axis] + (pixel * self.extent[axis]) / self.full_size()[axis] as f64
    }
    /// The size that sets the per-pixel step: the whole view's, for a tile.
    pub fn full_size(&self) -> [u32; 3] {
        self.window.map_or(self.size, |w| w.full_size)
    }
    /// Pixel offset of this view's pixel (0, 0, 0) in the whole view.
    pub fn pixel_offset(&self) -> [u32; 3] {
        self.window.map_or([0; 3], |w| w.offset)
    }
    /// Number of pixels (voxels) the view produces.
    pub fn pixel_count(&self) -> u64 {
        self.size.iter().map(|&s| s as u64).product()
    }
    /// Whether the view has more than one z slice.
    pub fn is_volume(&self) -> bool {
        self.size[2] > 1
    }
    /// Checks sizes and the numbers of the view.
    pub fn check(&self) -> Result<()> {
        for (axis, s) in ["width", "height", "depth"].iter().zip(self.size) {
            if s == 0 {
                return Err(Error::InvalidRequest(format!(
                    "size: {axis} must be at least 1 (got 0)"
                )));
            }
        }
        for (name, v) in [("origin", self.origin), ("extent", self.extent)] {
            if v.iter().any(|x| !x.is_finite()) {
                return Err(Error::InvalidRequest(format!(
                    "{name} must be finite (got {v:?})"
                )));
            }
        }
        if self.extent.iter().any(|x| *x <= 0.0) {
            return Err(Error::InvalidRequest(format!(
                "extent must be greater than 0 on every axis (got {:?})",
                self.extent
            )));
        }
        let max = super::limits::MAX_COORDINATE;
        for (name, v) in [("origin", self.origin), ("extent", self.extent)] {
            if v.iter().any(|x| x.abs() > max) {
                return Err(Error::InvalidRequest(format!(
                    "{name} must be within [-{l}, {l}] on every axis (got {v:?})",
                    l = super::limits::show_limit(max)
                )));
            }
        }
        if let Some(w) = self.window {
            for a in 0..3 {
                if w.offset[a] as u64 + self.size[a] as u64 > w.full_size[a] as u64 {
                    return Err(Error::InvalidRequest(format!(
                        "tile at pixel offset {:?} with size {:?} does not fit in {:?}",
                        w.offset, self.size, w.full_size
                    )));
                }
            }
        }
        Ok(())
    }
}

/// Per-octave data of a generate stage (layout of `Octave` in shaders/stage.wgsl).
/// Internal: not a stable API.
#[doc(hidden)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct OctaveUniform {
    /// Integer lattice offset of pixel (0, 0, 0).
    pub cell: [i32; 4],
    /// Position of pixel (0, 0, 0) relative to `cell`, in frequency-scaled input space.
    pub local: [f32; 4],
    /// Step per pixel along x, y, z, in the same space.
    pub step: [f32; 4],
    /// The octave's frequency along the view axes x, y, z (d local / d p, the chain rule's
    /// factor from local to view coordinates in gradient stages), 0 on w (not a view axis).
    pub freq: [f32; 4],
    /// amplitude * frequency per axis: how displacement fields move the sample point.
    pub warp: [f32; 4],
    /// Lattice period in cells per axis, 0 when the axis does not tile.
    pub period: [i32; 4],
    /// The octave's seed hash: `seed_hash(stage seed + octave index)`, computed here once
    /// so that no kernel hashes the seed per sample.
    pub seed: u32,
    /// The octave's amplitude, gain^k.
    pub amp: f32,
    /// Padding to the WGSL layout.
    pub _pad: [u32; 2],
}

/// Uniform data of a generate stage (layout of `StageParams` in shaders/stage.wgsl).
/// Internal: not a stable API.
#[doc(hidden)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct StageUniform {
    /// Width, height, depth, and the number of octaves this pass evaluates.
    pub size: [u32; 4],
    /// Fractal remap code, first octave of this pass, finalize flag (multiply by `norm`), 0.
    pub mode: [u32; 4],
    /// Pixel offset of this run's pixel (0, 0, 0) in the whole view (non-zero for a tile),
    /// then unused: added to the pixel index in integers before the f32 conversion.
    pub pixel_offset: [u32; 4],
    /// `norm` = 1 / sum of |amplitudes| (1 for hetero), the fractal's `signal_offset` and
    /// `derivative_weight` (0 where it has none), then unused.
    pub scalars: [f32; 4],
    /// Family parameters (see `Family::uniforms`).
    pub family: [f32; 16],
    /// Per-octave data; the first `octave_count` entries are used.
    pub octaves: [OctaveUniform; MAX_OCTAVES_USIZE],
    /// The stage's position map (zero, `is_mapped` false, in a stage that is not mapped).
    pub mapping: MappingUniform,
}

const MAX_OCTAVES_USIZE: usize = super::MAX_OCTAVES as usize;

/// Uniform data of a point-wise stage (layout of `CombineParams` in shaders/combine.wgsl).
/// Internal: not a stable API.
#[doc(hidden)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct CombineUniform {
    /// Width, height, depth, then unused.
    pub size: [u32; 4],
    /// Op code, then unused.
    pub op: [u32; 4],
    /// The op's constants (see `PointwiseOp::code_and_constants`).
    pub constants: [f32; 4],
}

/// Uniform data of a `curve` stage (layout of `CurveParams`, which the combine template's
/// curve form declares): the point-wise uniform, its `op[1]` the number of points, then the
/// curve's pieces (`twin::lib::curve`). Only curve stages bind this larger buffer; every
/// other point-wise stage keeps [`CombineUniform`]. Internal: not a stable API.
#[doc(hidden)]
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable, PartialEq)]
pub struct CurveUniform {
    /// Size, op code and number of points (`op[1]`), constants (unused).
    pub combine: CombineUniform,
    /// The pieces: two vec4s per point.
    pub pieces: crate::twin::lib::curve::CurveTable,
}

/// Where a warp reads the displacement of one axis from. Internal: not a stable API.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub enum Displacement {
    /// A materialized field: the index of the stage that writes it.
    Field(usize),
    /// A generator chain (family, optionally summed over octaves, never warped itself)
    /// evaluated per pixel inside the warp's own kernel: fusion, so the field is never
    /// written to a texture and read back.
    Inline {
        /// The displacement node (a family or fractal node).
        node: String,
        /// The displacement node's generator chain.
        chain: Box<GenerateStage>,
    },
}

/// A generator chain: a family, optionally summed over octaves, optionally warped.
/// Internal: not a stable API.
#[doc(hidden)]
#[derive(Clone)]
pub struct GenerateStage {
    /// The noise family sampled.
    pub family: &'static dyn Family,
    /// The family node (frequency, offsets, parameters).
    pub source: FamilyNode,
    /// The fractal node summing octaves of the family, if any.
    pub fractal: Option<FractalNode>,
    /// One entry per displaced axis (empty when not warped).
    pub displace: Vec<Displacement>,
    /// Warp amplitude that scales the displacements (position units).
    pub amplitude: f64,
    /// Where the chain is sampled, when mapping nodes sit above it (see `graph::mapping`).
    pub mapping: Option<Mapping>,
}

impl std::fmt::Debug for GenerateStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GenerateStage")
            .field("family", &self.family.name())
            .field("source", &self.source)
            .field("fractal", &self.fractal)
            .field("displace", &self.displace)
            .field("amplitude", &self.amplitude)
            .field("mapping", &self.mapping)
            .finish()
    }
}

#[derive(Debug, Clone)]
/// What a stage computes.
pub enum StageKind {
    /// A generator chain (family, fractal, warp); its contents are internal.
    Generate(Box<GenerateStage>),
    /// A point-wise operation on materialized fields.
    Combine {
        /// The operation.
        op: PointwiseOp,
        /// Indices of the input stages, in argument order.
        inputs: Vec<usize>,
    },
}

/// One compute dispatch (or a few, for split octaves) that writes one field.
#[derive(Debug, Clone)]
pub struct Stage {
    /// The node this stage materializes.
    pub node: String,
    /// What the stage computes.
    pub kind: StageKind,
}

/// Choices of the planner that do not change the result (beyond FMA rounding).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanOptions {
    /// Evaluate a warp's generator displacements inside the warp's kernel instead of
    /// materializing each as a field (fusion; the result is the same).
    pub fuse: bool,
}

impl Default for PlanOptions {
    fn default() -> Self {
        PlanOptions { fuse: true }
    }
}

/// The ordered stages that compute a node; inputs always come before their users.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The graph's seed.
    pub seed: u32,
    /// The stages, each after the stages it reads.
    pub stages: Vec<Stage>,
    /// Index of the stage holding the requested node.
    pub target: usize,
    /// The planner choices the plan was built with.
    pub options: PlanOptions,
}

/// Octave k is shifted by k times this vector, in its own lattice cells, so the lattices of
/// successive octaves never line up: with lacunarity 2 and no shift every octave has a lattice
/// point at the origin and along the same lines, which shows as a grid in ridged noise.
/// Components are fractional parts of irrational numbers (golden ratio, sqrt 2, sqrt 3, sqrt 5).
/// Internal: not a stable API.
#[doc(hidden)]
pub const OCTAVE_SHIFT: [f64; 4] = [
    0.618_033_988_75,
    0.414_213_562_37,
    0.732_050_807_57,
    0.236_067_977_5,
];

/// One axis of [`GenerateStage::sample_base`]: `position + slice + offset + fractal offset`
/// (x and y have no slice coordinate, and adding it would not change their sums).
#[inline(always)]
pub fn sample_base_axis(position: f64, offsets: [f64; 3]) -> f64 {
    position + offsets[0] + offsets[1] + offsets[2]
}

/// Octave `k`'s frequency-scaled position of a sample that starts at `base` (see
/// [`GenerateStage::sample_base`]): `base * freq + OCTAVE_SHIFT * k`, in f64, before the
/// family splits it into a lattice cell and a local offset.
#[inline(always)]
pub fn octave_position(base: [f64; 4], freq: [f64; 4], k: u32) -> [f64; 4] {
    std::array::from_fn(|a| octave_position_axis(base[a], freq[a], a, k))
}

/// Axis `a` of [`octave_position`].
#[inline(always)]
pub fn octave_position_axis(base: f64, freq: f64, a: usize, k: u32) -> f64 {
    base * freq + OCTAVE_SHIFT[a] * k as f64
}

/// Octave passes of a generate stage: (first octave, count). Octaves are split across
/// passes when octaves x pixels exceed `budget`, so no single dispatch runs long enough to
/// trip a GPU watchdog; each pass adds to the partial sum of the previous one. Internal: not
/// a stable API.
#[doc(hidden)]
pub fn octave_passes(octaves: u32, pixels: u64, budget: u64) -> Vec<(u32, u32)> {
    let per_pass = (budget / pixels.max(1)).clamp(1, octaves as u64) as u32;
    let mut passes = Vec::new();
    let mut first = 0;
    while first < octaves {
        let count = per_pass.min(octaves - first);
        passes.push((first, count));
        first += count;
    }
    passes
}

impl GenerateStage {
    /// Dimension the family is evaluated in (2, 3 or 4).
    pub fn dims(&self) -> u32 {
        self.source.dims
    }
    /// Number of octaves (1 without a fractal node).
    pub fn octave_count(&self) -> u32 {
        self.fractal.as_ref().map_or(1, |f| f.octaves)
    }
    /// The displaced axes read from materialized fields: (axis, stage index).
    pub fn displace_fields(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.displace
            .iter()
            .enumerate()
            .filter_map(|(a, d)| match d {
                Displacement::Field(s) => Some((a, *s)),
                Displacement::Inline { .. } => None,
            })
    }
    /// The displaced axes evaluated inline: (axis, node, generator chain).
    pub fn displace_inline(&self) -> impl Iterator<Item = (usize, &str, &GenerateStage)> + '_ {
        self.displace
            .iter()
            .enumerate()
            .filter_map(|(a, d)| match d {
                Displacement::Inline { node, chain } => Some((a, node.as_str(), chain.as_ref())),
                Displacement::Field(_) => None,
            })
    }
    /// The fractal remap code (0 fBm or no fractal, 1 ridged, 2 billow), as in `mode.x`.
    pub fn fractal_code(&self) -> u32 {
        self.fractal.as_ref().map_or(0, |f| f.kind.code())
    }
    /// Whether the chain's fractal carries a per-pixel state from octave to octave beyond its
    /// sum (see [`FractalNode::carries_state`]): its octaves then run as the steps of
    /// shaders/lib/multifractal.wgsl.
    pub fn carries_state(&self) -> bool {
        self.fractal
            .as_ref()
            .is_some_and(FractalNode::carries_state)
    }
    /// The stage's octave passes over `pixels` pixels within `budget` octaves x pixels per
    /// pass ([`octave_passes`]); a stage that carries a state runs in one pass whatever the
    /// budget, since the partial sum between passes holds the sum alone.
    pub fn octave_passes(&self, pixels: u64, budget: u64) -> Vec<(u32, u32)> {
        if self.carries_state() {
            return vec![(0, self.octave_count())];
        }
        octave_passes(self.octave_count(), pixels, budget)
    }
    /// Seed of this stage's first octave.
    fn base_seed(&self, graph_seed: u32) -> u32 {
        let offset = self.source.seed_offset + self.fractal.as_ref().map_or(0, |f| f.seed_offset);
        graph_seed.wrapping_add(offset as u32)
    }
    /// The node seed the family's auxiliary data is computed from.
    pub fn aux_data(&self, graph_seed: u32) -> Option<Vec<f32>> {
        self.family
            .aux_data(self.dims(), &self.source.params, self.base_seed(graph_seed))
    }

    /// The position a sample at input-space `position` (x, y, z, w) starts from: the position
    /// plus the node's slice coordinates (z, w) and offsets, in f64. Both the grid's split of
    /// a view's origin and a point query's split of each point start here.
    pub fn sample_base(&self, position: [f64; 4]) -> [f64; 4] {
        let offsets = self.base_offsets();
        std::array::from_fn(|a| sample_base_axis(position[a], offsets[a]))
    }
    /// The numbers [`GenerateStage::sample_base`] adds to each axis, in order: the slice
    /// coordinate (0 on x and y), the node's offset, the fractal's offset.
    pub fn base_offsets(&self) -> [[f64; 3]; 4] {
        let src = &self.source;
        let fractal_offset = self.fractal.as_ref().map_or([0.0; 4], |f| f.offset);
        let slice = [0.0, 0.0, src.z, src.w];
        std::array::from_fn(|a| [slice[a], src.offset[a], fractal_offset[a]])
    }
    /// Octave `k`'s frequency per axis: the node's frequency times lacunarity^k.
    pub fn octave_frequency(&self, k: u32) -> [f64; 4] {
        let lacunarity = self.fractal.as_ref().map_or(1.0, |f| f.lacunarity);
        let scale = lacunarity.powi(k as i32);
        std::array::from_fn(|a| self.source.frequency[a] * scale)
    }
    /// Octave `k`'s lattice period in cells per axis (0 where the axis does not tile).
    pub fn octave_period(&self, k: u32) -> [i32; 4] {
        let lacunarity = self.fractal.as_ref().map_or(1.0, |f| f.lacunarity);
        let scale = lacunarity.powi(k as i32);
        let mut period = [0i32; 4];
        if let Some(p) = self.source.period {
            for a in 0..self.dims().min(4) as usize {
                period[a] = (p[a] as f64 * scale).round().min(i32::MAX as f64) as i32;
            }
        }
        period
    }
    /// The uniforms for a view: per-octave lattice splits computed in f64 on the host.
    pub fn uniforms(&self, graph_seed: u32, view: &View) -> StageUniform {
        let dims = self.dims();
        let src = &self.source;
        let (gain, kind) = match &self.fractal {
            Some(f) => (f.gain, f.kind.code()),
            None => (1.0, 0),
        };
        let seed = self.base_seed(graph_seed);
        let full_size = view.full_size();
        let pixel_step: [f64; 3] = std::array::from_fn(|a| view.extent[a] / full_size[a] as f64);
        // A mapped stage splits the f64 constant of its map (see `graph::mapping`) and steps
        // by the frequency on every axis from the mapped position the kernel computes.
        let mapped = self
            .mapping
            .as_ref()
            .map(|m| m.uniform(view.origin, pixel_step));
        // The grid has no w axis: a 4D node's w is its own slice coordinate.
        let base = match &mapped {
            Some((_, reference)) => self.sample_base(*reference),
            None => self.sample_base([view.origin[0], view.origin[1], view.origin[2], 0.0]),
        };
        let octaves = self.octave_count();
        let mut u = StageUniform::zeroed();
        u.size = [view.size[0], view.size[1], view.size[2], octaves];
        u.mode = [kind, 0, 1, 0];
        let offset = view.pixel_offset();
        u.pixel_offset = [offset[0], offset[1], offset[2], 0];
        u.family = self.family.uniforms(dims, &src.params);
        let mut amp_sum = 0.0f64;
        for k in 0..octaves as usize {
            let amp = gain.powi(k as i32);
            amp_sum += amp.abs();
            let freq = self.octave_frequency(k as u32);
            let period = self.octave_period(k as u32);
            let p = octave_position(base, freq, k as u32);
            let (cell, local) = self.family.split_origin_with(dims, &src.params, p, period);
            let mut step = [0f32; 4];
            let mut view_freq = [0f32; 4];
            let mut warp = [0f32; 4];
            for a in 0..3 {
                step[a] = (view.extent[a] / full_size[a] as f64 * freq[a]) as f32;
                view_freq[a] = freq[a] as f32;
            }
            if mapped.is_some() {
                step = freq.map(|f| f as f32);
            }
            for a in 0..self.displace.len().min(4) {
                warp[a] = (self.amplitude * freq[a]) as f32;
            }
            u.octaves[k] = OctaveUniform {
                cell,
                local,
                step,
                freq: view_freq,
                warp,
                period,
                seed: seed_hash(seed.wrapping_add(k as u32)),
                amp: amp as f32,
                _pad: [0; 2],
            };
        }
        // Hetero's value is Musgrave's, not normalized.
        let norm = match &self.fractal {
            Some(f) if f.kind == FractalKind::Hetero => 1.0,
            _ => (1.0 / amp_sum.max(f64::MIN_POSITIVE)) as f32,
        };
        let (signal_offset, weighting) = self
            .fractal
            .as_ref()
            .map_or((0.0, 0.0), |f| (f.signal_offset, f.derivative_weight));
        u.scalars = [norm, signal_offset as f32, weighting as f32, 0.0];
        if let Some((mapping, _)) = mapped {
            u.mapping = mapping;
        }
        u
    }
}

impl Plan {
    /// Plans the stages needed for `target` (the graph's output when `None`), with the
    /// default options (fusion on).
    pub fn new(graph: &NoiseGraph, target: Option<&str>) -> Result<Plan> {
        Self::with_options(graph, target, PlanOptions::default())
    }

    /// Plans the stages needed for `target` with explicit planner options.
    pub fn with_options(
        graph: &NoiseGraph,
        target: Option<&str>,
        options: PlanOptions,
    ) -> Result<Plan> {
        let target = target.unwrap_or(&graph.output);
        if graph.node(target).is_none() {
            let ids: Vec<&str> = graph.nodes.iter().map(|n| n.id.as_str()).collect();
            return Err(Error::InvalidRequest(format!(
                "node '{target}' is not in the graph (nodes: {})",
                ids.join(", ")
            )));
        }
        let mut plan = Plan {
            seed: graph.seed,
            stages: Vec::new(),
            target: 0,
            options,
        };
        let mut index: HashMap<String, usize> = HashMap::new();
        plan.target = plan.materialize(graph, target, &mut index)?;
        Ok(plan)
    }

    /// Adds the stages of `target` and of every field it reads (each once, inputs first) and
    /// returns the index of `target`'s stage. The walk keeps its own stack of frames instead
    /// of recursing, so a chain of any length costs heap, not stack.
    fn materialize(
        &mut self,
        graph: &NoiseGraph,
        target: &str,
        index: &mut HashMap<String, usize>,
    ) -> Result<usize> {
        /// A node being materialized: how many of its references are handled, the
        /// displacements or input stages gathered so far, and the mapping it is sampled
        /// through (the mapping nodes above it on this path, composed; `path` names them, so
        /// a node under different mappings gets a stage for each).
        struct Frame<'g> {
            node: &'g Node,
            next: usize,
            displace: Vec<Displacement>,
            inputs: Vec<usize>,
            mapping: Option<Mapping>,
            path: String,
        }
        /// The index key of node `id` sampled through the mappings of `path`.
        fn key(id: &str, path: &str) -> String {
            format!("{id}{path}")
        }
        if let Some(&i) = index.get(target) {
            return Ok(i);
        }
        let by_id = super::walk::index_by_id(graph);
        let all_dims = graph.all_dims();
        let lookup = |id: &str| {
            by_id
                .get(id)
                .map(|&i| &graph.nodes[i])
                .ok_or_else(|| Error::InvalidRequest(format!("unknown node '{id}'")))
        };
        let mut on_stack: HashSet<&str> = HashSet::from([target]);
        let mut stack = vec![Frame {
            node: lookup(target)?,
            next: 0,
            displace: Vec::new(),
            inputs: Vec::new(),
            mapping: None,
            path: String::new(),
        }];
        // The stage index of the frame that finished last, for the frame below it.
        let mut finished: Option<usize> = None;
        while let Some(top) = stack.last_mut() {
            if let Some(i) = finished.take() {
                match top.node.kind {
                    NodeKind::Warp(_) => top.displace.push(Displacement::Field(i)),
                    _ => top.inputs.push(i),
                }
                top.next += 1;
            }
            let id = top.node.id.as_str();
            let mapped = top.mapping;
            // Every generator chain takes the mappings above it, a stateful octave sum too.
            let with_mapping = |mut chain: GenerateStage| -> GenerateStage {
                chain.mapping = mapped;
                chain
            };
            // The next reference to materialize first (and the mapping it is sampled
            // through), or the finished stage's kind.
            let mut child_mapping = (top.mapping, top.path.clone());
            let (child, kind) = match &top.node.kind {
                NodeKind::Family(_) | NodeKind::Fractal(_) => (
                    None,
                    Some(StageKind::Generate(Box::new(with_mapping(
                        generator_chain(graph, id, Vec::new(), 0.0)?,
                    )))),
                ),
                NodeKind::Warp(w) => match w.displace.get(top.next) {
                    Some(d) => {
                        // A mapped warp reads its displacements as fields (each a mapped
                        // stage): inline chains evaluate at the pixel, not the mapped point. A
                        // source that carries a state runs its own octave sum (see
                        // GenerateStage::carries_state), which reads displacement fields too.
                        let stateful = matches!(
                            graph.node(&w.source).map(|n| &n.kind),
                            Some(NodeKind::Fractal(f)) if f.carries_state()
                        );
                        let fusable = match mapped {
                            None if !stateful => self.fusable_chain(graph, d, index)?,
                            _ => None,
                        };
                        if let Some(chain) = fusable {
                            top.displace.push(Displacement::Inline {
                                node: d.clone(),
                                chain: Box::new(chain),
                            });
                            top.next += 1;
                            continue;
                        }
                        (Some(d.as_str()), None)
                    }
                    None => (
                        None,
                        Some(StageKind::Generate(Box::new(with_mapping(
                            generator_chain(
                                graph,
                                &w.source,
                                std::mem::take(&mut top.displace),
                                w.amplitude,
                            )?,
                        )))),
                    ),
                },
                NodeKind::Pointwise(p) => match p.inputs.get(top.next) {
                    Some(i) => (Some(i.as_str()), None),
                    None => (
                        None,
                        Some(StageKind::Combine {
                            op: p.op.clone(),
                            inputs: std::mem::take(&mut top.inputs),
                        }),
                    ),
                },
                NodeKind::Mapping(m) => {
                    if let Some(&i) = top.inputs.first() {
                        // The mapping's field is its source's stage under the mapping.
                        index.insert(key(id, &top.path), i);
                        on_stack.remove(id);
                        stack.pop();
                        finished = Some(i);
                        continue;
                    }
                    let source_dims = by_id.get(m.source.as_str()).map_or(2, |&i| all_dims[i]);
                    let composed = top
                        .mapping
                        .unwrap_or(Mapping::IDENTITY)
                        .then(&m.map, source_dims)
                        .ok_or_else(|| {
                            Error::InvalidRequest(format!(
                                "node '{id}': a {} below another curved mapping (sphere, torus, cylinder) cannot be planned",
                                m.map.name()
                            ))
                        })?;
                    child_mapping = (Some(composed), format!("{}\u{0}{id}", top.path));
                    (Some(m.source.as_str()), None)
                }
            };
            if let Some(child) = child {
                let (mapping, path) = child_mapping;
                if let Some(&i) = index.get(&key(child, &path)) {
                    finished = Some(i);
                } else if !on_stack.insert(child) {
                    return Err(Error::InvalidRequest(format!(
                        "cycle through node '{child}'"
                    )));
                } else {
                    stack.push(Frame {
                        node: lookup(child)?,
                        next: 0,
                        displace: Vec::new(),
                        inputs: Vec::new(),
                        mapping,
                        path,
                    });
                }
                continue;
            }
            if let Some(kind) = kind {
                self.stages.push(Stage {
                    node: id.to_string(),
                    kind,
                });
                let i = self.stages.len() - 1;
                index.insert(key(id, &top.path), i);
                on_stack.remove(id);
                stack.pop();
                finished = Some(i);
            }
        }
        finished.ok_or_else(|| Error::InvalidRequest(format!("node '{target}' has no stage")))
    }

    /// The generator chain of displacement `id` when the warp may evaluate it inline: fusion
    /// is on, the node is a family or a fractal over one (not a warp or a point-wise node),
    /// its family needs no auxiliary table, and it is not already a materialized field
    /// (reading that field is cheaper than evaluating it again).
    fn fusable_chain(
        &self,
        graph: &NoiseGraph,
        id: &str,
        index: &HashMap<String, usize>,
    ) -> Result<Option<GenerateStage>> {
        if !self.options.fuse || index.contains_key(id) {
            return Ok(None);
        }
        let generator = graph
            .node(id)
            .is_some_and(|n| matches!(n.kind, NodeKind::Family(_) | NodeKind::Fractal(_)));
        if !generator {
            return Ok(None);
        }
        let chain = generator_chain(graph, id, Vec::new(), 0.0)?;
        // A chain whose octaves carry a state (hybrid, hetero, a derivative weight) keeps its
        // own stage: the inline chains of a warp's kernel are plain octave sums.
        let plain = chain.aux_data(self.seed).is_none() && !chain.carries_state();
        Ok(plain.then_some(chain))
    }

    /// Checks a view against what the plan's nodes can do.
    pub fn check_view(&self, view: &View) -> Result<()> {
        view.check()?;
        for stage in &self.stages {
            if let StageKind::Generate(g) = &stage.kind {
                let chains = std::iter::once((stage.node.as_str(), g.as_ref()))
                    .chain(g.displace_inline().map(|(_, node, c)| (node, c)));
                for (node, chain) in chains {
                    let warped = !chain.displace.is_empty();
                    let (source, fractal) = (&chain.source, chain.fractal.as_ref());
                    match &chain.mapping {
                        None => {
                            super::limits::check_chain_view(node, source, fractal, warped, view)
                        }
                        Some(m) => {
                            let mut spans = view.extent;
                            if !view.is_volume() {
                                spans[2] = 0.0;
                            }
                            let (origin, extent) = m.bounds(view.origin, spans);
                            super::limits::check_chain_box(
                                node, source, fractal, warped, origin, extent,
                            )
                        }
                    }
                    .map_err(Error::InvalidRequest)?;
                    if view.is_volume() && chain.mapping.is_some_and(|m| m.curve.is_some()) {
                        return Err(Error::InvalidRequest(format!(
                            "node '{node}': a sphere, torus or cylinder maps a 2D view; this view is a volume (depth {})",
                            view.size[2]
                        )));
                    }
                }
            }
        }
        if view.is_volume() {
            for stage in &self.stages {
                if let StageKind::Generate(g) = &stage.kind {
                    let chains = std::iter::once((stage.node.as_str(), g.as_ref()))
                        .chain(g.displace_inline().map(|(_, node, c)| (node, c)));
                    for (node, chain) in chains {
                        if chain.dims() < 3 {
                            return Err(Error::InvalidRequest(format!(
                                "node '{}': a volume (depth {}) needs 3D noise, but this node is {}D (set \"dims\": 3)",
                                node,
                                view.size[2],
                                chain.dims()
                            )));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

fn generator_chain(
    graph: &NoiseGraph,
    id: &str,
    displace: Vec<Displacement>,
    amplitude: f64,
) -> Result<GenerateStage> {
    let node = graph
        .node(id)
        .ok_or_else(|| Error::InvalidRequest(format!("unknown node '{id}'")))?;
    let (source_id, fractal) = match &node.kind {
        NodeKind::Family(_) => (id, None),
        NodeKind::Fractal(f) => (f.source.as_str(), Some(f.clone())),
        _ => {
            return Err(Error::InvalidRequest(format!(
                "node '{id}' is not a generator"
            )))
        }
    };
    let Some(NodeKind::Family(source)) = graph.node(source_id).map(|n| &n.kind) else {
        return Err(Error::InvalidRequest(format!(
            "node '{id}': source '{source_id}' is not a family node"
        )));
    };
    let fam = family::lookup(&source.family).ok_or_else(|| {
        Error::InvalidRequest(format!(
            "node '{source_id}': unknown family {}",
            source.family
        ))
    })?;
    Ok(GenerateStage {
        family: fam,
        source: source.clone(),
        fractal,
        displace,
        amplitude,
        mapping: None,
    })
}
