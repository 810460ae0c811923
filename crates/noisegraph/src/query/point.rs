//! A graph evaluated at given points: the CPU twin of the graph functions an exported WGSL
//! module defines (`crate::export::wgsl`; the operations they call, the remaps, their slopes
//! and the point-wise gradients, are `shaders/lib/ops.wgsl` and its twin, which the grid's
//! stages call too), and the engine of point queries
//! (`crate::query` runs it over chunks of points in parallel).
//!
//! Every node is evaluated at the same points as its users need it: a warp evaluates its
//! displacement nodes at the point, then its source at the displaced point; a point-wise node
//! its inputs. Each octave splits each point on its own, in f64, with the formula of the grid
//! bakes (`GenerateStage::sample_base`, `octave_position`, the family's lattice split), so
//! the value at a point equals the value a one-pixel bake with its origin at that point gives,
//! bit for bit, at any distance from the origin.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::graph::position::{add_displacement, MappedLanes, OctaveSplitter, FAST_WRAP_LIMIT};
use crate::graph::{
    Displacement, GenerateStage, NoiseGraph, Plan, PlanOptions, StageKind, StageUniform, View,
    OCTAVE_SHIFT,
};
use crate::twin::grad::NoiseGrad;
use crate::twin::lib::curve::{curve_grad, curve_value};
use crate::twin::lib::multifractal::{
    hessian_along, multifractal_octave, multifractal_octave_grad, octave_hessian, Multifractal,
    MultifractalGrad,
};
use crate::twin::lib::ops::combine_op;
use crate::twin::lib::ops::{
    combine_op_grad, fractal_remap, fractal_remap_slope, octave_gradient, FRACTAL_BILLOW,
    FRACTAL_PINGPONG, FRACTAL_RIDGED,
};
use crate::twin::sample::{GradSampler, PointsSampler, SamplePoint, SamplePoints, Sampler};

/// A graph compiled for evaluation at points: the unfused plan's stages, each with its
/// samplers and per-octave numbers.
pub struct PointProgram {
    plan: Plan,
    dims: u32,
    node: String,
    stages: Vec<PointStage>,
    target: usize,
}

enum PointStage {
    Generate(Box<GeneratePoints>),
    Combine {
        op: u32,
        constants: [f32; 4],
        inputs: Vec<usize>,
    },
    /// A `curve` node: its pieces (the used part of its table) and its input stage.
    Curve {
        pieces: Vec<[f32; 4]>,
        input: usize,
    },
}

/// A generator chain (family, fractal, warp) at points.
struct GeneratePoints {
    node: String,
    chain: GenerateStage,
    /// Per-octave seed, amplitude, warp, period and the normalization: the uniforms of any
    /// view (only the split and the step depend on the view, and points split themselves).
    uniform: StageUniform,
    /// Per-octave frequency, f64, as the grid's split uses it.
    freq: Vec<[f64; 4]>,
    /// Each octave's split of the points (the one a bake's pixels take).
    splitter: OctaveSplitter,
    sampler: Sampler,
    points: Option<PointsSampler>,
    grad: Option<GradSampler>,
    /// Stage index of each displaced axis's field.
    displace: Vec<usize>,
    /// The chain as one AVX-512 loop, where it is an unwarped 2D Perlin chain.
    #[cfg(target_arch = "x86_64")]
    fused: Option<FusedPerlin2d>,
}

/// An unwarped 2D Perlin chain with the improved gradients and no period, for
/// `avx512_points::perlin_2d_fractal_points`.
#[cfg(target_arch = "x86_64")]
struct FusedPerlin2d {
    fade: u32,
    kind: u32,
    offsets: [[f64; 3]; 2],
    /// Per axis, a bound on |base| below which every octave's cell stays within 2^51.
    base_limit: [f64; 2],
    octaves: Vec<crate::cpu::avx512_points::PerlinOctave>,
    norm: f32,
}

#[cfg(target_arch = "x86_64")]
impl FusedPerlin2d {
    fn new(
        chain: &GenerateStage,
        uniform: &StageUniform,
        splitter: &OctaveSplitter,
    ) -> Option<Self> {
        let params = &chain.source.params;
        let plain = chain.family.name() == "perlin"
            && chain.dims() == 2
            && params.choice("gradients") == crate::twin::perlin::GRADIENTS_IMPROVED
            && splitter.separable()
            && chain.source.period.is_none()
            && chain.displace.is_empty()
            && chain.mapping.is_none()
            // the AVX-512 loop has fBm's, ridged's and billow's remaps only, and no state
            && uniform.mode[0] != FRACTAL_PINGPONG
            && !chain.carries_state();
        let octaves: Vec<_> = (0..chain.octave_count())
            .map(|k| {
                let (o, freq) = (&uniform.octaves[k as usize], chain.octave_frequency(k));
                (o.period == [0; 4]).then_some(crate::cpu::avx512_points::PerlinOctave {
                    freq: [freq[0], freq[1]],
                    shift: [OCTAVE_SHIFT[0] * k as f64, OCTAVE_SHIFT[1] * k as f64],
                    seed: o.seed,
                    amp: o.amp,
                })
            })
            .collect::<Option<_>>()?;
        let offsets = chain.base_offsets();
        // |base * freq + shift| < 2^50 at every octave, rounding included, keeps the floors
        // below FAST_WRAP_LIMIT (2^51).
        let base_limit = std::array::from_fn(|a| {
            octaves.iter().fold(f64::INFINITY, |limit, o| {
                let room = FAST_WRAP_LIMIT * 0.5 - o.shift[a].abs();
                limit.min(room / o.freq[a].abs())
            })
        });
        plain.then(|| FusedPerlin2d {
            base_limit,
            fade: params.choice("fade"),
            kind: uniform.mode[0],
            offsets: [offsets[0], offsets[1]],
            octaves,
            norm: uniform.scalars[0],
        })
    }

    /// The chain's values at `coords` (x, y per point) into `out`; false when the CPU path
    /// runs narrower than AVX-512 or a cell lies past 2^51 (then `out` is not usable).
    fn values(&self, coords: &[f64], out: &mut [f32]) -> bool {
        use crate::cpu::avx512_points::perlin_2d_fractal_points as run;
        use crate::twin::fade::{FADE_CUBIC, FADE_LINEAR, FADE_QUINTIC};
        if crate::twin::vector_width() != crate::twin::VectorWidth::Avx512 {
            return false;
        }
        let (o, octaves, norm) = (
            (self.offsets, self.base_limit),
            &self.octaves[..],
            self.norm,
        );
        // SAFETY: `vector_width` chose AVX-512, so the CPU has it.
        unsafe {
            match (self.fade, self.kind) {
                (FADE_QUINTIC, FRACTAL_RIDGED) => {
                    run::<FADE_QUINTIC, FRACTAL_RIDGED>(coords, o.0, o.1, octaves, norm, out)
                }
                (FADE_QUINTIC, FRACTAL_BILLOW) => {
                    run::<FADE_QUINTIC, FRACTAL_BILLOW>(coords, o.0, o.1, octaves, norm, out)
                }
                (FADE_QUINTIC, _) => run::<FADE_QUINTIC, 0>(coords, o.0, o.1, octaves, norm, out),
                (FADE_CUBIC, FRACTAL_RIDGED) => {
                    run::<FADE_CUBIC, FRACTAL_RIDGED>(coords, o.0, o.1, octaves, norm, out)
                }
                (FADE_CUBIC, FRACTAL_BILLOW) => {
                    run::<FADE_CUBIC, FRACTAL_BILLOW>(coords, o.0, o.1, octaves, norm, out)
                }
                (FADE_CUBIC, _) => run::<FADE_CUBIC, 0>(coords, o.0, o.1, octaves, norm, out),
                (_, FRACTAL_RIDGED) => {
                    run::<FADE_LINEAR, FRACTAL_RIDGED>(coords, o.0, o.1, octaves, norm, out)
                }
                (_, FRACTAL_BILLOW) => {
                    run::<FADE_LINEAR, FRACTAL_BILLOW>(coords, o.0, o.1, octaves, norm, out)
                }
                (_, _) => run::<FADE_LINEAR, 0>(coords, o.0, o.1, octaves, norm, out),
            }
        }
    }
}

/// Scratch buffers of one thread, reused from chunk to chunk.
#[derive(Default)]
pub struct PointScratch {
    /// Each stage's values at the chunk's points.
    values: Vec<Vec<f32>>,
    /// Each stage's gradients at the chunk's points (gradient runs only).
    grads: Vec<Vec<[f32; 4]>>,
    lanes: Lanes,
}

/// Per-point working buffers of one chain, one slice per axis.
#[derive(Default)]
struct Lanes {
    /// Positions.
    position: [Vec<f64>; 4],
    base: [Vec<f64>; 4],
    cells: [Vec<i32>; 4],
    local: [Vec<f32>; 4],
    noise: Vec<f32>,
    /// A mapped chain's mapped points and the map's Jacobian.
    map: MappedLanes,
}

impl PointProgram {
    /// Compiles `node` (the graph's output when `None`) for evaluation at points of its
    /// dimension ([`NoiseGraph::dims_of`]).
    pub fn new(graph: &NoiseGraph, node: Option<&str>) -> Result<PointProgram> {
        let plan = Plan::with_options(graph, node, PlanOptions { fuse: false })?;
        // The node asked for (a mapping node's stage is its source's, under the mapping).
        let node = node.map_or_else(|| graph.output.clone(), str::to_string);
        let view = View::image(1, 1);
        let mut stages = Vec::with_capacity(plan.stages.len());
        for stage in &plan.stages {
            stages.push(match &stage.kind {
                StageKind::Generate(g) => {
                    let chain = g.as_ref().clone();
                    let uniform = chain.uniforms(plan.seed, &view);
                    let (dims, params) = (chain.dims(), &chain.source.params);
                    let aux: Arc<[f32]> = chain.aux_data(plan.seed).unwrap_or_default().into();
                    let family = chain.family;
                    let splitter = OctaveSplitter::new(&chain);
                    let displace = chain
                        .displace
                        .iter()
                        .map(|d| match d {
                            Displacement::Field(i) => *i,
                            Displacement::Inline { .. } => {
                                unreachable!("an unfused plan has no inline displacements")
                            }
                        })
                        .collect();
                    PointStage::Generate(Box::new(GeneratePoints {
                        #[cfg(target_arch = "x86_64")]
                        fused: FusedPerlin2d::new(&chain, &uniform, &splitter),
                        node: stage.node.clone(),
                        freq: (0..chain.octave_count())
                            .map(|k| chain.octave_frequency(k))
                            .collect(),
                        splitter,
                        sampler: family.cpu_sampler(dims, params, uniform.family, aux.clone()),
                        points: family.cpu_points_sampler(dims, params, uniform.family),
                        grad: family.cpu_grad_sampler(dims, params, uniform.family, aux),
                        displace,
                        uniform,
                        chain,
                    }))
                }
                StageKind::Combine { op, inputs } => match op.curve_table() {
                    Some((table, count)) => PointStage::Curve {
                        pieces: table[..2 * count as usize].to_vec(),
                        input: inputs[0],
                    },
                    None => {
                        let (op, constants) = op.code_and_constants();
                        PointStage::Combine {
                            op,
                            constants,
                            inputs: inputs.clone(),
                        }
                    }
                },
            });
        }
        Ok(PointProgram {
            plan: plan.clone(),
            dims: graph.dims_of(&node),
            node,
            stages,
            target: plan.target,
        })
    }

    /// Coordinates per point: the node's dimension (2, 3 or 4).
    pub fn dims(&self) -> u32 {
        self.dims
    }

    /// The node evaluated.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// `Ok` when every family the node reads has an analytic gradient; else an error naming
    /// the node and family that do not.
    pub fn check_gradient(&self) -> Result<()> {
        for stage in &self.stages {
            if let PointStage::Generate(g) = stage {
                if g.grad.is_none() {
                    let (dims, params) = (g.chain.dims(), &g.chain.source.params);
                    return Err(Error::InvalidRequest(format!(
                        "node '{}': {}, so '{}' cannot be differentiated",
                        g.node,
                        g.chain.family.no_gradient_reason(dims, params),
                        self.node
                    )));
                }
            }
        }
        Ok(())
    }

    /// The positions of pixels of `view` (x, y per point, or x, y, z for a volume; fractions
    /// allowed; in a tile, counted from the tile's corner), as `dims` coordinates per point:
    /// [`View::pixel_coordinate`] on the view's axes, the origin's z for an image, 0 on w.
    pub fn pixel_positions(&self, view: &View, pixels: &[f64]) -> Result<Vec<f64>> {
        self.plan.check_view(view)?;
        let axes = if view.is_volume() { 3 } else { 2 };
        if !pixels.len().is_multiple_of(axes) {
            return Err(Error::InvalidRequest(format!(
                "pixels: {} numbers is not a whole number of points of {axes} coordinates",
                pixels.len()
            )));
        }
        let offset = view.pixel_offset();
        let dims = self.dims as usize;
        let mut positions = Vec::with_capacity(pixels.len() / axes * dims);
        for pixel in pixels.chunks_exact(axes) {
            positions.extend((0..dims).map(|a| match a {
                3 => 0.0,
                _ => {
                    let p = pixel.get(a).copied().unwrap_or(0.0);
                    view.pixel_coordinate(a, offset[a] as f64 + p)
                }
            }));
        }
        Ok(positions)
    }

    /// The values at `coords` into `out`, one per point: positions, `dims` coordinates per
    /// point, point after point.
    pub fn values(&self, coords: &[f64], out: &mut [f32], scratch: &mut PointScratch) {
        #[cfg(target_arch = "x86_64")]
        if let ([PointStage::Generate(g)], 2) = (&self.stages[..], self.dims) {
            if g.fused.as_ref().is_some_and(|f| f.values(coords, out)) {
                return;
            }
        }
        let n = out.len();
        self.load_coords(coords, n, &mut scratch.lanes);
        scratch.values.resize_with(self.stages.len(), Vec::new);
        for (index, stage) in self.stages.iter().enumerate() {
            let mut result = std::mem::take(&mut scratch.values[index]);
            result.clear();
            result.resize(n, 0.0);
            match stage {
                PointStage::Generate(g) => {
                    g.values(n, &scratch.values, &mut scratch.lanes, &mut result)
                }
                PointStage::Combine {
                    op,
                    constants,
                    inputs,
                } => {
                    let input = |k: usize| inputs.get(k).map(|&s| scratch.values[s].as_slice());
                    let (a, b, c) = (input(0), input(1), input(2));
                    for (i, v) in result.iter_mut().enumerate() {
                        let at = |f: Option<&[f32]>| f.map_or(0.0, |f| f[i]);
                        *v = combine_op(*op, at(a), at(b), at(c), *constants);
                    }
                }
                PointStage::Curve { pieces, input } => {
                    for (v, &a) in result.iter_mut().zip(&scratch.values[*input]) {
                        *v = curve_value(a, pieces);
                    }
                }
            }
            scratch.values[index] = result;
        }
        out.copy_from_slice(&scratch.values[self.target][..n]);
    }

    /// Values and gradients at `coords` (as for [`PointProgram::values`]): `1 + dims` numbers
    /// per point (the value, then d/dx, d/dy[, d/dz[, d/dw]] with respect to the position).
    /// Call [`PointProgram::check_gradient`] first: a family without a gradient contributes
    /// none.
    pub fn gradients(&self, coords: &[f64], out: &mut [f32], scratch: &mut PointScratch) {
        let width = 1 + self.dims as usize;
        let n = out.len() / width;
        self.load_coords(coords, n, &mut scratch.lanes);
        scratch.values.resize_with(self.stages.len(), Vec::new);
        scratch.grads.resize_with(self.stages.len(), Vec::new);
        for (index, stage) in self.stages.iter().enumerate() {
            let mut values = std::mem::take(&mut scratch.values[index]);
            let mut grads = std::mem::take(&mut scratch.grads[index]);
            values.clear();
            values.resize(n, 0.0);
            grads.clear();
            grads.resize(n, [0.0; 4]);
            match stage {
                PointStage::Generate(g) => g.gradients(
                    n,
                    (&scratch.values, &scratch.grads),
                    &mut scratch.lanes,
                    (&mut values, &mut grads),
                ),
                PointStage::Combine {
                    op,
                    constants,
                    inputs,
                } => {
                    for i in 0..n {
                        let at = |k: usize| {
                            inputs.get(k).map_or(NoiseGrad::default(), |&s| NoiseGrad {
                                value: scratch.values[s][i],
                                d: scratch.grads[s][i],
                            })
                        };
                        let g = combine_op_grad(*op, at(0), at(1), at(2), *constants);
                        values[i] = g.value;
                        grads[i] = g.d;
                    }
                }
                PointStage::Curve { pieces, input } => {
                    for i in 0..n {
                        let a = NoiseGrad {
                            value: scratch.values[*input][i],
                            d: scratch.grads[*input][i],
                        };
                        let g = curve_grad(a, pieces);
                        values[i] = g.value;
                        grads[i] = g.d;
                    }
                }
            }
            scratch.values[index] = values;
            scratch.grads[index] = grads;
        }
        let (values, grads) = (&scratch.values[self.target], &scratch.grads[self.target]);
        for (i, row) in out.chunks_exact_mut(width).enumerate() {
            row[0] = values[i];
            row[1..].copy_from_slice(&grads[i][..width - 1]);
        }
    }

    /// Transposes the chunk's coordinates into one f64 slice per axis (0 past the last).
    fn load_coords(&self, coords: &[f64], n: usize, lanes: &mut Lanes) {
        let width = self.dims as usize;
        assert_eq!(coords.len(), n * width, "{width} coordinates per point");
        #[inline(always)]
        fn transpose<const W: usize>(coords: &[f64], position: &mut [Vec<f64>; 4]) {
            for (a, axis) in position.iter_mut().enumerate().take(W) {
                axis.clear();
                axis.extend(coords.chunks_exact(W).map(|p| p[a]));
            }
        }
        match width {
            2 => transpose::<2>(coords, &mut lanes.position),
            3 => transpose::<3>(coords, &mut lanes.position),
            _ => transpose::<4>(coords, &mut lanes.position),
        }
        for axis in lanes.position.iter_mut().skip(width) {
            axis.clear();
            axis.resize(n, 0.0);
        }
    }
}

impl GeneratePoints {
    /// A mapped chain's positions and Jacobians (`OctaveSplitter::map_points`, as a bake maps
    /// its pixels). Nothing for a chain that is not mapped.
    fn load_mapped(&self, n: usize, lanes: &mut Lanes) {
        let position = lanes.position.each_ref().map(Vec::as_slice);
        self.splitter.map_points(position, n, &mut lanes.map);
    }

    /// Every point's start position (`sample_base`), per axis.
    fn load_base(&self, n: usize, lanes: &mut Lanes) {
        if self.chain.mapping.is_some() {
            return; // `load_mapped` started them
        }
        let Lanes { position, base, .. } = lanes;
        for a in 0..4 {
            base[a].clear();
            base[a].extend(position[a][..n].iter().map(|&p| self.splitter.base(a, p)));
        }
    }

    /// Splits every point for octave `k` into `lanes.cells` and `lanes.local` (as a bake
    /// splits its pixels), then adds the warp's displacement (`d * warp` on every axis, as
    /// the grid's stage does); `values` are the earlier stages' values at the points.
    fn split_octave(&self, k: u32, n: usize, values: &[Vec<f32>], lanes: &mut Lanes) {
        let Lanes {
            base,
            cells,
            local,
            map,
            ..
        } = lanes;
        if self.splitter.is_mapped() {
            self.splitter.split_mapped(k, n, map, cells, local);
        } else {
            let base = base.each_ref().map(Vec::as_slice);
            self.splitter.split(k, n, base, cells, local);
        }
        if !self.displace.is_empty() {
            let d: Vec<&[f32]> = self
                .displace
                .iter()
                .map(|&s| values[s].as_slice())
                .collect();
            add_displacement(local, &d, self.uniform.octaves[k as usize].warp);
        }
    }

    fn values(&self, n: usize, values: &[Vec<f32>], lanes: &mut Lanes, out: &mut [f32]) {
        self.load_mapped(n, lanes);
        self.load_base(n, lanes);
        if self.chain.carries_state() {
            return self.state_values(n, values, lanes, out);
        }
        let kind = self.uniform.mode[0];
        for k in 0..self.chain.octave_count() {
            let o = &self.uniform.octaves[k as usize];
            self.split_octave(k, n, values, lanes);
            let Lanes {
                cells,
                local,
                noise,
                ..
            } = lanes;
            noise.resize(n, 0.0); // every sample is written
            let pts = SamplePoints {
                cell: [0; 4],
                cells: Some([&cells[0], &cells[1], &cells[2], &cells[3]]),
                local: [&local[0], &local[1], &local[2], &local[3]],
                seed: o.seed,
                period: o.period,
            };
            match &self.points {
                Some(points) => points(&pts, noise),
                None => pts.fill_pointwise(noise, |p| (self.sampler)(p)),
            }
            add_octave(out, noise, o.amp, kind);
        }
        let norm = self.uniform.scalars[0];
        out.iter_mut().for_each(|v| *v *= norm);
    }

    /// [`GeneratePoints::values`] of a chain whose fractal carries a state (hybrid, hetero, a
    /// derivative weight): each point's octaves as the steps of `twin::lib::multifractal`,
    /// through the family's point samplers (the grid's `engine::multifractal` does the same).
    fn state_values(&self, n: usize, values: &[Vec<f32>], lanes: &mut Lanes, out: &mut [f32]) {
        let [norm, offset, weighting, _] = self.uniform.scalars;
        let kind = self.uniform.mode[0];
        let mut states = vec![Multifractal::START; n];
        for k in 0..self.chain.octave_count() {
            let o = &self.uniform.octaves[k as usize];
            self.split_octave(k, n, values, lanes);
            let Lanes { cells, local, .. } = &*lanes;
            for (i, s) in states.iter_mut().enumerate() {
                let at = SamplePoint {
                    cell: std::array::from_fn(|a| cells[a][i]),
                    local: std::array::from_fn(|a| local[a][i]),
                    seed: o.seed,
                    period: o.period,
                };
                *s = match self.grad.as_ref().filter(|_| weighting != 0.0) {
                    Some(grad) => {
                        let g = grad(&at);
                        multifractal_octave(*s, g.value, g.d, o.amp, kind, offset, weighting)
                    }
                    None => {
                        let v = (self.sampler)(&at);
                        multifractal_octave(*s, v, [0.0; 4], o.amp, kind, offset, weighting)
                    }
                };
            }
        }
        for (v, s) in out.iter_mut().zip(&states) {
            *v = s.sum * norm;
        }
    }

    /// Values and gradients with respect to the position: per octave, the family's gradient
    /// with respect to `local` times d local / d p = frequency (plus, for a warp, the warp
    /// factor times the displacement's gradient), times the remap's slope and the amplitude.
    /// `earlier` holds the earlier stages' values and gradients at the points.
    fn gradients(
        &self,
        n: usize,
        earlier: (&[Vec<f32>], &[Vec<[f32; 4]>]),
        lanes: &mut Lanes,
        (values, grads): (&mut [f32], &mut [[f32; 4]]),
    ) {
        let Some(grad) = &self.grad else {
            return;
        };
        let (stage_values, stage_grads) = earlier;
        self.load_mapped(n, lanes);
        self.load_base(n, lanes);
        let kind = self.uniform.mode[0];
        let stateful = self.chain.carries_state();
        let [_, offset, weighting, _] = self.uniform.scalars;
        let mut states = vec![MultifractalGrad::START; if stateful { n } else { 0 }];
        for k in 0..self.chain.octave_count() {
            let o = &self.uniform.octaves[k as usize];
            let freq = self.freq[k as usize].map(|f| f as f32);
            self.split_octave(k, n, stage_values, lanes);
            let Lanes {
                cells, local, map, ..
            } = &*lanes;
            let jacobian = &map.jacobian;
            for i in 0..n {
                let g = grad(&SamplePoint {
                    cell: std::array::from_fn(|a| cells[a][i]),
                    local: std::array::from_fn(|a| local[a][i]),
                    seed: o.seed,
                    period: o.period,
                });
                // Along each position axis a, the derivatives of the displacement axes b.
                let displaced: [[f32; 4]; 4] = std::array::from_fn(|a| {
                    std::array::from_fn(|b| {
                        self.displace.get(b).map_or(0.0, |&s| stage_grads[s][i][a])
                    })
                });
                let warped = (!self.displace.is_empty()).then_some(&displaced);
                let dn = match self.chain.mapping {
                    None => octave_gradient(g.d, freq, o.warp, warped),
                    // Along the mapped position through the map's Jacobian, plus the warp's
                    // term (its displacements' gradients are along the view already).
                    Some(_) => {
                        let warp: [f32; 4] = octave_gradient(g.d, [0.0; 4], o.warp, warped);
                        let j = &jacobian[i];
                        std::array::from_fn(|b| {
                            let along: f32 = (0..4).map(|a| g.d[a] * freq[a] * j[b][a]).sum();
                            along + warp[b]
                        })
                    }
                };
                if stateful {
                    let hd = if weighting != 0.0 {
                        let at = |l: [f32; 4]| SamplePoint {
                            cell: std::array::from_fn(|a| cells[a][i]),
                            local: l,
                            seed: o.seed,
                            period: o.period,
                        };
                        let l = std::array::from_fn(|a| local[a][i]);
                        let h = octave_hessian(self.chain.dims(), l, |l| grad(&at(l)).d);
                        // d local / d p_b: the frequency on axis b (through the map's
                        // Jacobian in a mapped chain) plus the warp's Jacobian.
                        let j: [[f32; 4]; 4] = std::array::from_fn(|b| {
                            std::array::from_fn(|c| {
                                let f = match self.chain.mapping {
                                    None if b == c => freq[b],
                                    None => 0.0,
                                    Some(_) => freq[c] * jacobian[i][b][c],
                                };
                                match warped {
                                    Some(d) => f + o.warp[c] * d[b][c],
                                    None => f,
                                }
                            })
                        });
                        hessian_along(&h, &j)
                    } else {
                        [[0.0; 4]; 4]
                    };
                    let sample = NoiseGrad {
                        value: g.value,
                        d: dn,
                    };
                    states[i] = multifractal_octave_grad(
                        states[i], sample, g.d, &hd, o.amp, kind, offset, weighting,
                    );
                    continue;
                }
                let scale = o.amp * fractal_remap_slope(g.value, kind);
                values[i] += o.amp * fractal_remap(g.value, kind);
                for a in 0..4 {
                    grads[i][a] += scale * dn[a];
                }
            }
        }
        for (i, s) in states.iter().enumerate() {
            values[i] = s.sum.value;
            grads[i] = s.sum.d;
        }
        let norm = self.uniform.scalars[0];
        values.iter_mut().for_each(|v| *v *= norm);
        for g in grads.iter_mut() {
            *g = g.map(|v| v * norm);
        }
    }
}

/// `sum += amp * fractal_remap(n)` over a chunk (as the grid's rows add octaves).
fn add_octave(sum: &mut [f32], noise: &[f32], amp: f32, kind: u32) {
    #[inline(always)]
    fn add<const KIND: u32>(sum: &mut [f32], noise: &[f32], amp: f32) {
        for (s, &n) in sum.iter_mut().zip(noise) {
            *s += amp * fractal_remap(n, KIND);
        }
    }
    crate::twin::vectorized(
        #[inline(always)]
        || match kind {
            FRACTAL_RIDGED => add::<FRACTAL_RIDGED>(sum, noise, amp),
            FRACTAL_BILLOW => add::<FRACTAL_BILLOW>(sum, noise, amp),
            FRACTAL_PINGPONG => add::<FRACTAL_PINGPONG>(sum, noise, amp),
            _ => add::<0>(sum, noise, amp),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vector::{with_vector_width, VectorWidth};

    /// Every width gives the same bits for unwarped 2D Perlin chains, whose AVX-512 run is one
    /// fused loop (`avx512_points`) and whose narrower runs take the general path: near and
    /// far from the origin, and with a chunk length that is not a multiple of 16.
    #[test]
    fn the_fused_perlin_loop_gives_the_general_paths_bits() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let coords: Vec<f64> = (0..2 * 1021)
            .map(|i| {
                let centre = [0.0, 3.5e5, -2.0e7, 1.0e9][i / 2 % 4];
                centre + (next() - 0.5) * 8.0
            })
            .collect();
        let mut fused = 0;
        for fractal in ["fbm", "ridged", "billow"] {
            for fade in ["quintic", "cubic", "linear"] {
                let graph = NoiseGraph::from_json(&format!(
                    r#"{{"seed": 9, "output": "f", "nodes": [
                        {{"id": "p", "type": "perlin", "frequency": [3.0, 5.5], "fade": "{fade}",
                          "offset": [0.25, -7.5]}},
                        {{"id": "f", "type": "{fractal}", "source": "p", "octaves": 7,
                          "lacunarity": 2.1, "offset": [1.5, 0.5]}}]}}"#
                ))
                .unwrap();
                let program = PointProgram::new(&graph, None).unwrap();
                let PointStage::Generate(g) = &program.stages[0] else {
                    panic!("one generate stage");
                };
                #[cfg(target_arch = "x86_64")]
                {
                    assert!(g.fused.is_some(), "{fractal} {fade}: fused");
                    fused += 1;
                }
                let run = |width| {
                    with_vector_width(width, || {
                        let mut out = vec![0.0f32; coords.len() / 2];
                        let mut scratch = PointScratch::default();
                        program.values(&coords, &mut out, &mut scratch);
                        out
                    })
                };
                let expected = run(VectorWidth::Baseline);
                assert!(expected.iter().all(|v| v.is_finite() && v.abs() < 2.0));
                for width in VectorWidth::supported() {
                    let got = run(width);
                    for (i, (a, b)) in got.iter().zip(&expected).enumerate() {
                        assert_eq!(
                            a.to_bits(),
                            b.to_bits(),
                            "{fractal} {fade} at {width}, point {i}: {a} vs {b}"
                        );
                    }
                }
            }
        }
        assert!(fused == 9 || !cfg!(target_arch = "x86_64"));
    }

    /// Cells past 2^51 (positions near 2^40 at a high frequency) leave the fused loop for the
    /// general path's exact split, with the same numbers at every width.
    #[test]
    fn far_cells_take_the_exact_split() {
        let graph = NoiseGraph::from_json(
            r#"{"seed": 3, "output": "f", "nodes": [
                {"id": "p", "type": "perlin", "frequency": 3000.0},
                {"id": "f", "type": "fbm", "source": "p", "octaves": 3}]}"#,
        )
        .unwrap();
        let program = PointProgram::new(&graph, None).unwrap();
        let coords: Vec<f64> = (0..40).map(|i| 1.0e12 - i as f64 * 0.370_123).collect();
        #[cfg(target_arch = "x86_64")]
        if VectorWidth::Avx512.is_supported() {
            let PointStage::Generate(g) = &program.stages[0] else {
                panic!("one generate stage");
            };
            let mut out = vec![0.0f32; 20];
            let fused = g.fused.as_ref().expect("fused");
            let ran = with_vector_width(VectorWidth::Avx512, || fused.values(&coords, &mut out));
            assert!(!ran, "cells past 2^51 are refused");
        }
        let run = |width| {
            with_vector_width(width, || {
                let mut out = vec![0.0f32; 20];
                program.values(&coords, &mut out, &mut PointScratch::default());
                out
            })
        };
        let expected = run(VectorWidth::Baseline);
        assert!(expected.iter().any(|&v| v != 0.0), "{expected:?}");
        for width in VectorWidth::supported() {
            assert_eq!(
                run(width).iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                expected.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
                "{width}"
            );
        }
    }
}
