//! What a CPU twin is asked to evaluate: one sample ([`SamplePoint`]), a row of evenly spaced
//! samples ([`SampleRow`]), or samples at given positions ([`SamplePoints`]), and the sampler
//! types the family registry (`crate::family`) hands the executors. These live with the twins
//! so that the twins depend on nothing above them: `family` builds on `cpu`, never the reverse.

pub use super::grad::NoiseGrad;

/// One sample request, in the form both paths use: `cell` is an integer lattice offset (its
/// meaning is the family's, see [`Family::split_origin`](crate::family::Family::split_origin)) and `local` a small position relative
/// to it, already scaled by frequency. `period` is 0 on axes that do not tile.
#[derive(Debug, Clone, Copy)]
pub struct SamplePoint {
    /// Integer lattice offset (family-specific meaning).
    pub cell: [i32; 4],
    /// Position relative to `cell`, already scaled by frequency.
    pub local: [f32; 4],
    /// The octave's seed hash (`cpu::hash::seed_hash` of its seed), which the lattice
    /// hashes combine with the cell coordinates.
    pub seed: u32,
    /// Period in lattice cells per axis; 0 on axes that do not tile.
    pub period: [i32; 4],
}

/// The CPU twin of a family, specialised to one node's parameters.
pub type Sampler = Box<dyn Fn(&SamplePoint) -> f32 + Send + Sync>;

/// A row of samples along x, for families whose CPU twin can evaluate many at once: sample
/// `i` is the [`SamplePoint`] with `cell = [cells_x[i], cell[1], cell[2], cell[3]]` and `local
/// = [local_x[i], local[1], local[2], local[3]]`: the exact split of each of a row's pixels
/// (its column's x, the row's y, z and w), as a stage splits the pixels of one row of an
/// unwarped stage on a cubic lattice (`crate::graph::position`).
#[derive(Debug, Clone, Copy)]
pub struct SampleRow<'a> {
    /// The row's integer lattice offset on y, z and w (as in [`SamplePoint::cell`]); the
    /// first entry is unused.
    pub cell: [i32; 4],
    /// The row's `local` on y, z and w; the first entry is unused.
    pub local: [f32; 4],
    /// Per sample, the lattice offset on x.
    pub cells_x: &'a [i32],
    /// Per sample, `local` on x.
    pub local_x: &'a [f32],
    /// Whether the samples' x cells (`cells_x[i]` plus the cell of `local_x[i]`) are
    /// monotonic along the row and span fewer than 2^31 cells, so that the two ends bound
    /// them: true for the exact splits of a view's columns, except in negligible octaves that
    /// cross more cells (see `crate::graph::limits`).
    pub cells_monotonic: bool,
    /// Whether every `local_x` lies in [0, 1), as the exact split of a column gives it (but
    /// for a fraction that rounds up to 1): then `local_x[i]` is the sample's offset in its
    /// cell `cells_x[i]` as it is, and the rows skip the split (the same numbers).
    pub x_unit: bool,
    /// The octave's seed hash, as in [`SamplePoint::seed`].
    pub seed: u32,
    /// Period in lattice cells per axis; 0 on axes that do not tile.
    pub period: [i32; 4],
}

impl SampleRow<'_> {
    /// The x coordinate (`local[0]`) of sample `i`.
    #[inline(always)]
    pub fn x_at(&self, i: usize) -> f32 {
        self.local_x[i]
    }
    /// The x cell (`cell[0]`) of sample `i`.
    #[inline(always)]
    pub fn cell_x(&self, i: usize) -> i32 {
        self.cells_x[i]
    }
    /// Whether every sample of `0..n` has |x| < 2^23, where [`super::split_cell`] may take
    /// its shorter form (always so for exact splits, whose x lies in [0, 1]).
    pub fn x_is_small(&self, n: usize) -> bool {
        if self.x_unit {
            return self.local_x.len() >= n;
        }
        let small = |x: f32| x.abs() < super::SMALL_COORDINATE; // false for NaN
                                                                // A fold without a short cut, which vectorizes: rows call this once per octave.
        self.local_x.len() >= n
            && self.local_x[..n]
                .iter()
                .fold(true, |all, &x| all & small(x))
    }
    /// Sample `i` of the row as a single point.
    #[inline(always)]
    pub fn point(&self, i: usize) -> SamplePoint {
        let mut local = self.local;
        let mut cell = self.cell;
        local[0] = self.x_at(i);
        cell[0] = self.cell_x(i);
        SamplePoint {
            cell,
            local,
            seed: self.seed,
            period: self.period,
        }
    }
    /// Fills `out` with `sample` of each [`point`](Self::point): the row samplers' path for
    /// the cases they do not vectorize.
    #[inline(always)]
    pub fn fill_pointwise(&self, out: &mut [f32], sample: impl Fn(&SamplePoint) -> f32) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = sample(&self.point(i));
        }
    }
}

/// The CPU twin of a family evaluated along a row (see [`SampleRow`]): writes `out.len()`
/// samples, each bit for bit the number the plain [`Sampler`] gives for [`SampleRow::point`].
pub type RowSampler = Box<dyn Fn(&SampleRow, &mut [f32]) + Send + Sync>;

/// Samples at positions given axis by axis (a warped stage's row, whose displaced positions
/// are no longer evenly spaced, or the points of a point query): sample `i` is the
/// [`SamplePoint`] with `local = [local[0][i], local[1][i], local[2][i], local[3][i]]` and
/// `cell` the common cell, or `[cells[0][i], ..]` when `cells` is given. Every slice is at
/// least as long as the output.
#[derive(Debug, Clone, Copy)]
pub struct SamplePoints<'a> {
    /// Integer lattice offset of every sample, as in [`SamplePoint::cell`], unless `cells`.
    pub cell: [i32; 4],
    /// Per-sample lattice offsets, one slice per axis, when the samples do not share a cell
    /// (point queries split every position on its own, so far-apart points stay precise).
    pub cells: Option<[&'a [i32]; 4]>,
    /// The positions relative to `cell`, one slice per axis.
    pub local: [&'a [f32]; 4],
    /// The octave's seed hash, as in [`SamplePoint::seed`].
    pub seed: u32,
    /// Period in lattice cells per axis; 0 on axes that do not tile.
    pub period: [i32; 4],
}

impl SamplePoints<'_> {
    /// Sample `i` as a single point.
    #[inline(always)]
    pub fn point(&self, i: usize) -> SamplePoint {
        SamplePoint {
            cell: match self.cells {
                Some(cells) => cells.map(|axis| axis[i]),
                None => self.cell,
            },
            local: self.local.map(|axis| axis[i]),
            seed: self.seed,
            period: self.period,
        }
    }
    /// Fills `out` with `sample` of each [`point`](Self::point), in a loop compiled for the
    /// widest vector unit the CPU has: for kernels without branches, whose loop then vectorizes.
    /// `sample` must be an `#[inline(always)]` closure (see [`crate::vector::vectorized`]).
    #[inline(always)]
    pub fn fill_vectorized(&self, out: &mut [f32], sample: impl Fn(&SamplePoint) -> f32) {
        let n = out.len();
        let local = self.local.map(|axis| &axis[..n]);
        // `move`: the slices travel in the closures by value, so the loops see them as fixed
        // (captured by reference, each store might have changed them: the loop did not
        // vectorize).
        match self.cells {
            None => crate::vector::vectorized(
                #[inline(always)]
                move || {
                    for (i, o) in out.iter_mut().enumerate() {
                        *o = sample(&SamplePoint {
                            cell: self.cell,
                            local: [local[0][i], local[1][i], local[2][i], local[3][i]],
                            seed: self.seed,
                            period: self.period,
                        });
                    }
                },
            ),
            Some(cells) => {
                let cells = cells.map(|axis| &axis[..n]);
                crate::vector::vectorized(
                    #[inline(always)]
                    move || {
                        for (i, o) in out.iter_mut().enumerate() {
                            *o = sample(&SamplePoint {
                                cell: [cells[0][i], cells[1][i], cells[2][i], cells[3][i]],
                                local: [local[0][i], local[1][i], local[2][i], local[3][i]],
                                seed: self.seed,
                                period: self.period,
                            });
                        }
                    },
                )
            }
        }
    }
    /// Fills `out` with `sample` of each point, one by one (the cases a family does not
    /// vectorize).
    #[inline(always)]
    pub fn fill_pointwise(&self, out: &mut [f32], sample: impl Fn(&SamplePoint) -> f32) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = sample(&self.point(i));
        }
    }
}

/// The CPU twin of a family evaluated at many positions (see [`SamplePoints`]): writes
/// `out.len()` samples, each bit for bit the number the plain [`Sampler`] gives for
/// [`SamplePoints::point`].
pub type PointsSampler = Box<dyn Fn(&SamplePoints, &mut [f32]) + Send + Sync>;

/// The CPU twin of a family's gradient variant (see [`Family::wgsl_grad_call`](crate::family::Family::wgsl_grad_call)):
/// the value and its derivatives with respect to `local` (see [`NoiseGrad`]), the value being
/// the number the plain [`Sampler`] returns.
pub type GradSampler = Box<dyn Fn(&SamplePoint) -> NoiseGrad + Send + Sync>;

/// Helper for twins: the first two components of an array.
pub fn xy<T: Copy>(v: [T; 4]) -> [T; 2] {
    [v[0], v[1]]
}
/// Helper for twins: the first three components of an array.
pub fn xyz<T: Copy>(v: [T; 4]) -> [T; 3] {
    [v[0], v[1], v[2]]
}

/// Many gradient samples in structure-of-arrays form, so that the loops of row and points
/// gradient samplers vectorize: sample `i` is `value[i]` with the derivatives `d[a][i]` (as in
/// [`NoiseGrad`]). Samplers fill the first [`len`](Self::len) entries of every array.
#[derive(Debug, Clone, Default)]
pub struct GradSamples {
    /// The values.
    pub value: Vec<f32>,
    /// d value / d local on x, y, z, w.
    pub d: [Vec<f32>; 4],
}

impl GradSamples {
    /// Sets every array to `n` entries (new ones 0).
    pub fn resize(&mut self, n: usize) {
        self.value.resize(n, 0.0);
        for d in &mut self.d {
            d.resize(n, 0.0);
        }
    }
    /// The number of samples.
    pub fn len(&self) -> usize {
        self.value.len()
    }
    /// Whether there are no samples.
    pub fn is_empty(&self) -> bool {
        self.value.is_empty()
    }
    /// Sample `i`.
    #[inline(always)]
    pub fn get(&self, i: usize) -> NoiseGrad {
        NoiseGrad {
            value: self.value[i],
            d: [self.d[0][i], self.d[1][i], self.d[2][i], self.d[3][i]],
        }
    }
    /// Fills every sample with `sample(i)`, in a loop compiled for the widest vector unit the CPU has
    /// (see [`crate::vector::vectorized`]): for branch-free kernels, whose loop then vectorizes.
    /// `sample` must be an `#[inline(always)]` closure.
    #[inline(always)]
    pub fn fill_vectorized(&mut self, sample: impl Fn(usize) -> NoiseGrad) {
        let n = self.value.len();
        let [d0, d1, d2, d3] = &mut self.d;
        let (d0, d1, d2, d3) = (&mut d0[..n], &mut d1[..n], &mut d2[..n], &mut d3[..n]);
        let value = &mut self.value[..n];
        // `move`: the slices travel in the closure by value, so that the loop sees them as
        // fixed (captured by reference, each store might have changed them, and the loop did
        // not vectorize).
        crate::vector::vectorized(
            #[inline(always)]
            move || {
                for i in 0..n {
                    let g = sample(i);
                    value[i] = g.value;
                    d0[i] = g.d[0];
                    d1[i] = g.d[1];
                    d2[i] = g.d[2];
                    d3[i] = g.d[3];
                }
            },
        )
    }
    /// Fills the samples with `sample` of each point of `row`, vectorized (see
    /// [`GradSamples::fill_vectorized`]).
    #[inline(always)]
    pub fn fill_row_vectorized(
        &mut self,
        row: &SampleRow,
        sample: impl Fn(&SamplePoint) -> NoiseGrad,
    ) {
        self.fill_vectorized(
            #[inline(always)]
            move |i| sample(&row.point(i)),
        )
    }
    /// Fills the samples with `sample` of each point of `pts`, vectorized (see
    /// [`GradSamples::fill_vectorized`]).
    #[inline(always)]
    pub fn fill_points_vectorized(
        &mut self,
        pts: &SamplePoints,
        sample: impl Fn(&SamplePoint) -> NoiseGrad,
    ) {
        let n = self.len();
        let local = pts.local.map(|axis| &axis[..n]);
        match pts.cells {
            None => self.fill_vectorized(
                #[inline(always)]
                move |i| {
                    sample(&SamplePoint {
                        cell: pts.cell,
                        local: [local[0][i], local[1][i], local[2][i], local[3][i]],
                        seed: pts.seed,
                        period: pts.period,
                    })
                },
            ),
            Some(cells) => {
                let cells = cells.map(|axis| &axis[..n]);
                self.fill_vectorized(
                    #[inline(always)]
                    move |i| {
                        sample(&SamplePoint {
                            cell: [cells[0][i], cells[1][i], cells[2][i], cells[3][i]],
                            local: [local[0][i], local[1][i], local[2][i], local[3][i]],
                            seed: pts.seed,
                            period: pts.period,
                        })
                    },
                )
            }
        }
    }
    /// Fills every sample with `sample(i)`, one by one (the cases a family does not
    /// vectorize).
    #[inline(always)]
    pub fn fill_pointwise(&mut self, sample: impl Fn(usize) -> NoiseGrad) {
        for i in 0..self.value.len() {
            let g = sample(i);
            self.value[i] = g.value;
            for a in 0..4 {
                self.d[a][i] = g.d[a];
            }
        }
    }
}

/// The CPU twin of a family's gradient evaluated along a row (see [`SampleRow`]): fills every
/// sample of the [`GradSamples`] (sized by the caller), each bit for bit the [`NoiseGrad`] the
/// [`GradSampler`] gives for [`SampleRow::point`].
pub type GradRowSampler = Box<dyn Fn(&SampleRow, &mut GradSamples) + Send + Sync>;

/// The CPU twin of a family's gradient at many positions (see [`SamplePoints`]): fills every
/// sample of the [`GradSamples`] (sized by the caller), each bit for bit the [`NoiseGrad`] the
/// [`GradSampler`] gives for [`SamplePoints::point`].
pub type GradPointsSampler = Box<dyn Fn(&SamplePoints, &mut GradSamples) + Send + Sync>;
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_small_only_when_every_sample_is() {
        let cells = [0i32; 100];
        let check = |local_x: &[f32], n: usize| {
            let row = SampleRow {
                cell: [0; 4],
                local: [0.0; 4],
                cells_x: &cells[..local_x.len()],
                local_x,
                cells_monotonic: false,
                x_unit: false,
                seed: 0,
                period: [0; 4],
            };
            row.x_is_small(n)
        };
        let mut xs: Vec<f32> = (0..100).map(|i| i as f32 / 100.0).collect();
        assert!(check(&xs, 100));
        xs[50] = 8_388_608.0;
        assert!(check(&xs, 50));
        assert!(!check(&xs, 51), "one large sample decides");
        xs[50] = f32::NAN;
        assert!(!check(&xs, 100), "NaN is not small");
        assert!(!check(&xs[..10], 11), "a row shorter than asked for");
    }
}
