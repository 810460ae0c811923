//! One pixel position. Pixel (x, y, z) of a view lies at `origin + (pixel * extent) / size`
//! on each axis, in f64 ([`View::pixel_coordinate`]), and each octave of a generator chain
//! splits a position into a lattice cell and a small f32 offset in f64, exactly as a point
//! query splits a point ([`OctaveSplitter`]: the sample base, [`octave_position`], the
//! family's lattice split). A CPU bake ([`StagePositions`]) and `noisegraph sample` at a
//! pixel's position therefore see the same cell and offset, and give the same number bit for
//! bit, at any distance from the origin.
//!
//! A cubic lattice splits each axis on its own, so a bake splits its columns once per octave
//! and its rows once per row: the row samplers take the columns' cells and offsets as they
//! are. Skewed and linear lattices mix the axes, and split every pixel. So do mapped chains
//! (below `transform`, `sphere`, `torus`, `cylinder`, `cube_face`): each pixel's f64 position
//! goes through the map as a query's point does ([`OctaveSplitter::map_points`]), an affine map
//! in f64 before the split, a curved one with the f32 arithmetic of a one-pixel bake at the
//! point.

use std::ops::Range;

use super::mapping::Mapping;
use super::plan::{octave_position, octave_position_axis, sample_base_axis, GenerateStage, View};
use super::OctaveUniform;
use crate::family::{split_cubic_axis, Family, FamilyParams, Lattice};
use crate::twin::lib::mapping::{map_jacobian, map_position};
use crate::twin::sample::{SamplePoints, SampleRow};

/// Largest |floor| the vectorized wrap handles: beyond it (positions past 2^51 lattice cells)
/// a batch takes the family's exact split instead.
pub const FAST_WRAP_LIMIT: f64 = 2_251_799_813_685_248.0; // 2^51

/// `wrap_to_i32` of an integral `v` with |v| < 2^51: its low 32 bits, read from the mantissa
/// of `v + 1.5 * 2^52` (whose unit is 1 and which is 0 mod 2^32). No division, so it
/// vectorizes.
#[inline(always)]
fn wrap_small(v: f64) -> i32 {
    (v + 6_755_399_441_055_744.0).to_bits() as u32 as i32
}

/// How a chain's positions are split per octave.
#[derive(Debug, Clone, Copy)]
enum SplitKind {
    /// `split_cubic`, axis by axis; vectorized where no axis has a period.
    Cubic { periodic: bool },
    /// `split_skewed`, the same arithmetic point by point, vectorized.
    Skewed { skew: f64, unskew: f64 },
    /// The family's own split, point by point (linear lattices).
    Family,
}

/// The per-octave split of a generator chain's positions: the one place both a bake's pixels
/// and a query's points are split.
pub struct OctaveSplitter {
    family: &'static dyn Family,
    params: FamilyParams,
    dims: u32,
    kind: SplitKind,
    offsets: [[f64; 3]; 4],
    freq: Vec<[f64; 4]>,
    period: Vec<[i32; 4]>,
    /// The chain's map, when it is mapped.
    mapping: Option<Mapping>,
    /// A curved map's octaves: the split of the map's constant part (no view moves it) and
    /// the step from it, per octave (cell, offset, step).
    curved: Vec<([i32; 4], [f32; 4], [f32; 4])>,
}

/// A mapped chain's positions at a run of points ([`OctaveSplitter::map_points`]).
#[derive(Default)]
pub struct MappedLanes {
    /// An affine map's sample bases, per axis.
    pub base: [Vec<f64>; 4],
    /// A curved map's f32 positions, per axis.
    pub mapped: [Vec<f32>; 4],
    /// The map's Jacobian per point: `[b][a]` = d s_a / d p_b.
    pub jacobian: Vec<[[f32; 4]; 4]>,
}

impl OctaveSplitter {
    /// The splitter of `chain`'s octaves.
    pub fn new(chain: &GenerateStage) -> Self {
        let (dims, params) = (chain.dims(), &chain.source.params);
        let kind = match chain.family.lattice(dims, params) {
            Lattice::Cubic => SplitKind::Cubic {
                periodic: chain.source.period.is_some(),
            },
            Lattice::Skewed { skew, unskew } => SplitKind::Skewed { skew, unskew },
            Lattice::Linear { .. } => SplitKind::Family,
        };
        let octaves = chain.octave_count();
        let curved = match &chain.mapping {
            Some(m) if m.curve.is_some() => {
                let u = chain.uniforms(0, &View::image(1, 1));
                (0..octaves as usize)
                    .map(|k| {
                        let o = &u.octaves[k];
                        (o.cell, o.local, o.step)
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        OctaveSplitter {
            family: chain.family,
            params: params.clone(),
            dims,
            kind,
            offsets: chain.base_offsets(),
            freq: (0..octaves).map(|k| chain.octave_frequency(k)).collect(),
            period: (0..octaves).map(|k| chain.octave_period(k)).collect(),
            mapping: chain.mapping,
            curved,
        }
    }

    /// Whether positions split axis by axis (a cubic lattice, no map).
    pub fn separable(&self) -> bool {
        matches!(self.kind, SplitKind::Cubic { .. }) && self.mapping.is_none()
    }

    /// Whether the chain is mapped.
    pub fn is_mapped(&self) -> bool {
        self.mapping.is_some()
    }

    /// The map of the `n` view positions `position` (one slice per axis, x y z w) of a mapped
    /// chain into `lanes`: an affine map's sample bases, in f64 as a bake splits its view's
    /// origin; a curved map's positions with the arithmetic of a one-pixel bake at the point
    /// (its f32 map of pixel 0, from the split of the map's constant part), so a query, a bake
    /// and a one-pixel bake see the same numbers; and the map's Jacobian.
    // `i` indexes the four axes' lanes of one point at once.
    #[allow(clippy::needless_range_loop)]
    pub fn map_points(&self, position: [&[f64]; 4], n: usize, lanes: &mut MappedLanes) {
        let Some(mapping) = &self.mapping else {
            return;
        };
        let MappedLanes {
            base,
            mapped,
            jacobian,
        } = lanes;
        jacobian.clear();
        base.iter_mut().for_each(Vec::clear);
        mapped.iter_mut().for_each(Vec::clear);
        for i in 0..n {
            let p: [f64; 4] = std::array::from_fn(|a| position[a][i]);
            if mapping.curve.is_none() {
                let (s, columns) = mapping.jacobian(p);
                for a in 0..4 {
                    base[a].push(self.base(a, s[a]));
                }
                jacobian.push(columns.map(|c| c.map(|v| v as f32)));
            } else {
                let (u, _) = mapping.uniform([p[0], p[1], p[2]], [1.0; 3]);
                let m = map_position(&u, [0.0; 4]);
                for a in 0..4 {
                    mapped[a].push(m[a]);
                }
                let j = map_jacobian(&u, [0.0; 4]);
                jacobian.push([j[0], j[1], j[2], [0.0; 4]]);
            }
        }
    }

    /// Octave `k`'s split of the `n` mapped points `lanes` ([`OctaveSplitter::map_points`])
    /// into `cells` and `local`: an affine map's bases split as unmapped points are, a curved
    /// map's positions stepped from the octave's split of the map's constant part.
    pub fn split_mapped(
        &self,
        k: u32,
        n: usize,
        lanes: &MappedLanes,
        cells: &mut [Vec<i32>; 4],
        local: &mut [Vec<f32>; 4],
    ) {
        match self.curved.get(k as usize) {
            Some(&(cell, offset, step)) => {
                for a in 0..4 {
                    cells[a].clear();
                    cells[a].resize(n, cell[a]);
                    local[a].clear();
                    local[a].extend(
                        lanes.mapped[a][..n]
                            .iter()
                            .map(|&s| offset[a] + s * step[a]),
                    );
                }
            }
            None => {
                let base = lanes.base.each_ref().map(Vec::as_slice);
                self.split(k, n, base, cells, local);
            }
        }
    }

    /// The sample base of input-space coordinate `position` on axis `a` (see
    /// [`GenerateStage::sample_base`]).
    #[inline(always)]
    pub fn base(&self, a: usize, position: f64) -> f64 {
        sample_base_axis(position, self.offsets[a])
    }

    /// Octave `k`'s split of the sample base `base` on axis `a`, for a separable lattice: the
    /// number [`OctaveSplitter::split`] gives on that axis.
    #[inline(always)]
    pub fn split_axis(&self, k: u32, a: usize, base: f64) -> (i32, f32) {
        if a >= self.dims as usize {
            return (0, 0.0);
        }
        let p = octave_position_axis(base, self.freq[k as usize][a], a, k);
        split_cubic_axis(p, self.period[k as usize][a])
    }

    /// Octave `k`'s split of the `n` positions whose sample bases are `base` (one slice per
    /// axis, x y z w, each at least `n` long) into `cells` and `local` (every axis set to `n`
    /// entries, 0 past the family's dims).
    pub fn split(
        &self,
        k: u32,
        n: usize,
        base: [&[f64]; 4],
        cells: &mut [Vec<i32>; 4],
        local: &mut [Vec<f32>; 4],
    ) {
        let dims = self.dims as usize;
        let (freq, period) = (self.freq[k as usize], self.period[k as usize]);
        for a in 0..4 {
            cells[a].clear();
            cells[a].resize(n, 0);
            local[a].clear();
            local[a].resize(n, 0.0);
        }
        let base = base.map(|axis| &axis[..n]);
        let exact = |cells: &mut [Vec<i32>; 4], local: &mut [Vec<f32>; 4], i: usize| {
            let p = octave_position(std::array::from_fn(|a| base[a][i]), freq, k);
            let (c, l) = self
                .family
                .split_origin_with(self.dims, &self.params, p, period);
            for a in 0..4 {
                cells[a][i] = c[a];
                local[a][i] = l[a];
            }
        };
        match self.kind {
            SplitKind::Cubic { periodic: true } => {
                for a in 0..dims {
                    for i in 0..n {
                        (cells[a][i], local[a][i]) = self.split_axis(k, a, base[a][i]);
                    }
                }
            }
            SplitKind::Cubic { periodic: false } => {
                let in_range = crate::twin::vectorized(
                    #[inline(always)]
                    || split_cubic_lanes(dims, base, freq, k, cells, local),
                );
                if !in_range {
                    (0..n).for_each(|i| exact(cells, local, i));
                }
            }
            SplitKind::Skewed { skew, unskew } => {
                let in_range = crate::twin::vectorized(
                    #[inline(always)]
                    || split_skewed_lanes(dims, base, freq, k, skew, unskew, cells, local),
                );
                if !in_range {
                    (0..n).for_each(|i| exact(cells, local, i));
                }
            }
            SplitKind::Family => (0..n).for_each(|i| exact(cells, local, i)),
        }
    }
}

/// A warp's `+ d * warp` on every axis of `local` (`d` = 0 on the axes the warp leaves), as
/// both a warped bake and a query at a warped node add it. `displacement` holds one slice per
/// displaced axis.
pub fn add_displacement(local: &mut [Vec<f32>; 4], displacement: &[&[f32]], warp: [f32; 4]) {
    for (a, axis) in local.iter_mut().enumerate() {
        match displacement.get(a) {
            Some(d) => {
                for (l, &d) in axis.iter_mut().zip(d.iter()) {
                    *l += d * warp[a];
                }
            }
            None => axis.iter_mut().for_each(|l| *l += 0.0 * warp[a]),
        }
    }
}

/// `split_cubic` without a period for every point, on the axes below `dims`: the same f64
/// operations (`octave_position`, floor, the remainder as f32), the wrap of the cell through
/// [`wrap_small`]. False when some cell is past [`FAST_WRAP_LIMIT`] (nothing is then usable).
#[inline(always)]
fn split_cubic_lanes(
    dims: usize,
    base: [&[f64]; 4],
    freq: [f64; 4],
    k: u32,
    cells: &mut [Vec<i32>; 4],
    local: &mut [Vec<f32>; 4],
) -> bool {
    let mut in_range = true;
    for a in 0..dims {
        for ((&b, c), l) in base[a].iter().zip(&mut cells[a]).zip(&mut local[a]) {
            let p = octave_position_axis(b, freq[a], a, k);
            let fl = p.floor();
            *l = (p - fl) as f32;
            *c = wrap_small(fl);
            in_range &= fl.abs() < FAST_WRAP_LIMIT;
        }
    }
    in_range
}

/// `split_skewed` for every point, the same f64 operations in the same order.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn split_skewed_lanes(
    dims: usize,
    base: [&[f64]; 4],
    freq: [f64; 4],
    k: u32,
    skew: f64,
    unskew: f64,
    cells: &mut [Vec<i32>; 4],
    local: &mut [Vec<f32>; 4],
) -> bool {
    let mut in_range = true;
    for i in 0..base[0].len() {
        let p = octave_position(std::array::from_fn(|a| base[a][i]), freq, k);
        let sum: f64 = p[..dims].iter().sum();
        let mut rem = [0f64; 4];
        for a in 0..dims {
            let s = p[a] + sum * skew;
            let fl = s.floor();
            rem[a] = s - fl;
            cells[a][i] = wrap_small(fl);
            in_range &= fl.abs() < FAST_WRAP_LIMIT;
        }
        let rsum: f64 = rem[..dims].iter().sum();
        for a in 0..dims {
            local[a][i] = (rem[a] - rsum * unskew) as f32;
        }
    }
    in_range
}

/// The exact positions of a generate stage over a view (or a tile of it) on the CPU path:
/// every pixel's position in f64, split per octave by the chain's [`OctaveSplitter`].
/// Pixel indices are the run's (0 at its first pixel).
pub struct StagePositions {
    splitter: OctaveSplitter,
    /// The sample base of each of the run's pixels along x, y and z (a mapped chain's: the
    /// pixel's position, which its map takes).
    base: [Vec<f64>; 3],
    /// The sample base on w, no view axis (position 0: the node's slice and offsets; a mapped
    /// chain's: 0).
    base_w: f64,
    /// Separable lattices: per octave, the split of every column's x.
    columns: Vec<(Vec<i32>, Vec<f32>)>,
    /// Per octave, whether its columns span fewer than 2^31 cells without a period (see
    /// [`SampleRow::cells_monotonic`]).
    columns_monotonic: Vec<bool>,
    /// Per octave, whether every column's offset lies in [0, 1) (see [`SampleRow::x_unit`]).
    columns_unit: Vec<bool>,
}

impl StagePositions {
    /// The positions of `chain` over `view`.
    pub fn new(chain: &GenerateStage, view: &View) -> Self {
        let splitter = OctaveSplitter::new(chain);
        let offset = view.pixel_offset();
        // A mapped chain's node has the view's dims (a curved map's, 2) or its source's (an
        // affine one's): the axes past them are 0, as a query's point has them.
        let mapped_dims = match &chain.mapping {
            Some(m) if m.curve.is_some() => 2,
            _ => chain.dims() as usize,
        };
        let base: [Vec<f64>; 3] = std::array::from_fn(|a| {
            (0..view.size[a])
                .map(|i| {
                    let pixel = offset[a] as f64 + i as f64;
                    let p = view.pixel_coordinate(a, pixel);
                    match (splitter.is_mapped(), a < mapped_dims) {
                        (false, _) => splitter.base(a, p),
                        (true, true) => p,
                        (true, false) => 0.0,
                    }
                })
                .collect()
        });
        let base_w = if splitter.is_mapped() {
            0.0
        } else {
            splitter.base(3, 0.0)
        };
        let columns = if splitter.separable() {
            (0..chain.octave_count())
                .map(|k| {
                    base[0]
                        .iter()
                        .map(|&b| splitter.split_axis(k, 0, b))
                        .unzip()
                })
                .collect()
        } else {
            Vec::new()
        };
        let columns_monotonic = (0..chain.octave_count())
            .map(|k| {
                let period = splitter.period[k as usize][0];
                let ends = [base[0].first(), base[0].last()].map(|b| {
                    b.map_or(0.0, |&b| {
                        octave_position_axis(b, splitter.freq[k as usize][0], 0, k)
                    })
                });
                period == 0 && (ends[1] - ends[0]).abs() < 2_147_483_648.0
            })
            .collect();
        let columns_unit = columns
            .iter()
            .map(|(_, local): &(Vec<i32>, Vec<f32>)| local.iter().all(|&l| (0.0..1.0).contains(&l)))
            .collect();
        StagePositions {
            splitter,
            base,
            base_w,
            columns,
            columns_monotonic,
            columns_unit,
        }
    }

    /// Whether the rows take the columns' splits as they are (a separable lattice).
    pub fn separable(&self) -> bool {
        self.splitter.separable()
    }

    /// Octave `k` (uniforms `o`) along the pixels `xs` of row `y` in slice `z`, for a row
    /// sampler; only for a separable lattice.
    pub fn sample_row(
        &self,
        o: &OctaveUniform,
        k: u32,
        [y, z]: [usize; 2],
        xs: Range<usize>,
    ) -> SampleRow<'_> {
        let (cells_x, local_x) = &self.columns[k as usize];
        let s = &self.splitter;
        let (cy, ly) = s.split_axis(k, 1, self.base[1][y]);
        let (cz, lz) = s.split_axis(k, 2, self.base[2][z]);
        let (cw, lw) = s.split_axis(k, 3, self.base_w);
        SampleRow {
            cell: [0, cy, cz, cw],
            local: [0.0, ly, lz, lw],
            cells_x: &cells_x[xs.clone()],
            local_x: &local_x[xs],
            cells_monotonic: self.columns_monotonic[k as usize],
            x_unit: self.columns_unit[k as usize],
            seed: o.seed,
            period: o.period,
        }
    }

    /// Octave `k`'s split of the pixels `xs` of row `y` in slice `z` into `lanes` (any
    /// lattice).
    pub fn split_pixels(
        &self,
        k: u32,
        [y, z]: [usize; 2],
        xs: Range<usize>,
        lanes: &mut PixelLanes,
    ) {
        let n = xs.len();
        let PixelLanes {
            base,
            base_at,
            cells,
            local,
            map,
            map_at,
        } = lanes;
        if self.splitter.is_mapped() {
            // The row's pixels mapped once for all its octaves.
            let key = (self as *const Self as usize, [y, z], xs.clone());
            if *map_at != Some(key.clone()) {
                let x = &self.base[0][xs];
                let constant = [self.base[1][y], self.base[2][z], self.base_w];
                for (axis, &b) in base.iter_mut().zip(&constant) {
                    axis.clear();
                    axis.resize(n, b);
                }
                *base_at = None;
                self.splitter
                    .map_points([x, &base[0], &base[1], &base[2]], n, map);
                *map_at = Some(key);
            }
            self.splitter.split_mapped(k, n, map, cells, local);
            return;
        }
        if self.separable() {
            let (cells_x, local_x) = &self.columns[k as usize];
            let s = &self.splitter;
            let splits = [
                (0, 0.0),
                s.split_axis(k, 1, self.base[1][y]),
                s.split_axis(k, 2, self.base[2][z]),
                s.split_axis(k, 3, self.base_w),
            ];
            for a in 0..4 {
                cells[a].clear();
                local[a].clear();
                if a == 0 {
                    cells[0].extend_from_slice(&cells_x[xs.clone()]);
                    local[0].extend_from_slice(&local_x[xs.clone()]);
                } else {
                    cells[a].resize(n, splits[a].0);
                    local[a].resize(n, splits[a].1);
                }
            }
            return;
        }
        // The constant axes' bases, filled once per row.
        let key = (self as *const Self as usize, [y, z], n);
        if *base_at != Some(key) {
            let constant = [self.base[1][y], self.base[2][z], self.base_w];
            for (axis, &b) in base.iter_mut().zip(&constant) {
                axis.clear();
                axis.resize(n, b);
            }
            *base_at = Some(key);
        }
        let x = &self.base[0][xs];
        self.splitter
            .split(k, n, [x, &base[0], &base[1], &base[2]], cells, local);
    }
}

impl StagePositions {
    /// Octave `k` (uniforms `o`) at the pixels `xs` of row `y` in slice `z`, as a family's
    /// points sampler takes them: each pixel's split ([`StagePositions::split_pixels`]) plus
    /// a warp's `d * warp` ([`add_displacement`]; `displacement` holds one slice per warped
    /// axis, none when unwarped).
    pub fn octave_points<'a>(
        &self,
        o: &OctaveUniform,
        k: u32,
        yz: [usize; 2],
        xs: Range<usize>,
        displacement: &[&[f32]],
        lanes: &'a mut PixelLanes,
    ) -> SamplePoints<'a> {
        self.split_pixels(k, yz, xs, lanes);
        if !displacement.is_empty() {
            add_displacement(&mut lanes.local, displacement, o.warp);
        }
        SamplePoints {
            cell: [0; 4],
            cells: Some(lanes.cells.each_ref().map(Vec::as_slice)),
            local: lanes.local.each_ref().map(Vec::as_slice),
            seed: o.seed,
            period: o.period,
        }
    }
}

/// A thread's scratch for [`StagePositions::split_pixels`]: the cells and offsets of a row's
/// pixels, axis by axis.
#[derive(Default)]
pub struct PixelLanes {
    /// Sample bases of the constant axes (y, z, w) of non-separable lattices.
    base: [Vec<f64>; 3],
    /// The positions (by address), row (y, z) and length `base` holds.
    base_at: Option<(usize, [usize; 2], usize)>,
    /// Cells per axis.
    pub cells: [Vec<i32>; 4],
    /// Offsets per axis.
    pub local: [Vec<f32>; 4],
    /// A mapped chain's row, mapped (its Jacobian for the gradient form).
    pub map: MappedLanes,
    /// The positions (by address), row (y, z) and pixels `map` holds.
    map_at: Option<(usize, [usize; 2], Range<usize>)>,
}

/// The per-axis splits a GPU generate stage reads (`positions` in the kernels, see
/// `shaders/stage.wgsl`): for each chain of the stage on a cubic lattice (the stage's own, then
/// its inline displacement chains in axis order), per octave, the split of each of the run's
/// columns (x), rows (y) and slices (z) and of the w base, each as `[cell bits, offset bits]`:
/// the numbers [`StagePositions`] hands the CPU rows, so both paths sample every pixel at the
/// same cell and offset. A chain on a skewed or linear lattice has no table (its kernel adds
/// `pixel x step` to the origin's split in f32).
pub struct PositionTable {
    /// The entries of every table, one after the other.
    pub data: Vec<[u32; 2]>,
    /// Where each chain's table starts in `data` (the stage's own first, then the inline
    /// chains'), `None` for a chain without one.
    pub bases: Vec<Option<u32>>,
}

/// Entries per octave of a chain's table over `view`: its columns, rows, slices and one for w.
pub fn table_stride(view: &View) -> u32 {
    view.size[0] + view.size[1] + view.size[2] + 1
}

impl PositionTable {
    /// Whether `chain` reads a table: its lattice splits each axis on its own, and no map
    /// moves its pixels (a mapped chain steps from its mapped positions, see `graph::mapping`).
    pub fn has_table(chain: &GenerateStage) -> bool {
        chain.mapping.is_none()
            && matches!(
                chain.family.lattice(chain.dims(), &chain.source.params),
                crate::family::Lattice::Cubic
            )
    }

    /// The table starts of `stage`'s chains over `view` (as [`PositionTable::new`] lays them
    /// out), without computing the entries.
    pub fn bases(stage: &GenerateStage, view: &View) -> Vec<Option<u32>> {
        let mut next = 0u32;
        std::iter::once(stage)
            .chain(stage.displace_inline().map(|(_, _, c)| c))
            .map(|chain| {
                Self::has_table(chain).then(|| {
                    let base = next;
                    next += chain.octave_count() * table_stride(view);
                    base
                })
            })
            .collect()
    }

    /// The size in bytes of [`PositionTable::new`]'s data for `stage` over `view`.
    pub fn bytes(stage: &GenerateStage, view: &View) -> u64 {
        let entries: u64 = std::iter::once(stage)
            .chain(stage.displace_inline().map(|(_, _, c)| c))
            .filter(|c| Self::has_table(c))
            .map(|c| u64::from(c.octave_count()) * u64::from(table_stride(view)))
            .sum();
        entries.max(1) * 8
    }

    /// The tables of `stage`'s chains over `view` (a tile's pixels of the whole view).
    pub fn new(stage: &GenerateStage, view: &View) -> Self {
        let mut data = Vec::new();
        for chain in std::iter::once(stage).chain(stage.displace_inline().map(|(_, _, c)| c)) {
            if !Self::has_table(chain) {
                continue;
            }
            let positions = StagePositions::new(chain, view);
            let s = &positions.splitter;
            for k in 0..chain.octave_count() {
                let axes = [
                    &positions.base[0][..],
                    &positions.base[1][..],
                    &positions.base[2][..],
                    std::slice::from_ref(&positions.base_w),
                ];
                for (a, bases) in axes.into_iter().enumerate() {
                    data.extend(bases.iter().map(|&b| {
                        let (cell, local) = s.split_axis(k, a, b);
                        [cell as u32, local.to_bits()]
                    }));
                }
            }
        }
        if data.is_empty() {
            // A storage binding may not be empty.
            data.push([0, 0]);
        }
        PositionTable {
            data,
            bases: Self::bases(stage, view),
        }
    }
}
