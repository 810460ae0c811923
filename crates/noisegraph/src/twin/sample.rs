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
/// `i` is the [`SamplePoint`] with `local = [local[0] + (first_x + i) as f32 * step_x,
/// local[1], local[2], local[3]]` (the stage's `o.local + pix * o.step` for the pixels of one
/// row of an unwarped stage, with `first_x` the row's first pixel x).
#[derive(Debug, Clone, Copy)]
pub struct SampleRow {
    /// Integer lattice offset, as in [`SamplePoint::cell`].
    pub cell: [i32; 4],
    /// `local` of the row's pixel x = 0 on the first axis, and the row's (constant) `local`
    /// on the others.
    pub local: [f32; 4],
    /// Local units per pixel along x.
    pub step_x: f32,
    /// Pixel x of the first sample (a tile's offset).
    pub first_x: u32,
    /// The octave's seed hash, as in [`SamplePoint::seed`].
    pub seed: u32,
    /// Period in lattice cells per axis; 0 on axes that do not tile.
    pub period: [i32; 4],
}

impl SampleRow {
    /// The x coordinate (`local[0]`) of sample `i`.
    #[inline(always)]
    pub fn x_at(&self, i: usize) -> f32 {
        self.local[0] + self.first_x.wrapping_add(i as u32) as f32 * self.step_x
    }
    /// Whether every sample of `0..n` has |x| < 2^23, where [`super::split_cell`] may take
    /// its shorter form. x is monotonic along the row (rounding is monotonic) unless the
    /// pixel index wraps, so the two ends decide.
    pub fn x_is_small(&self, n: usize) -> bool {
        let Some(last) = n.checked_sub(1) else {
            return true;
        };
        let small = |x: f32| x.abs() < super::SMALL_COORDINATE; // false for NaN
        u32::try_from(last).is_ok_and(|l| self.first_x.checked_add(l).is_some())
            && small(self.x_at(0))
            && small(self.x_at(last))
    }
    /// Sample `i` of the row as a single point.
    #[inline(always)]
    pub fn point(&self, i: usize) -> SamplePoint {
        let mut local = self.local;
        local[0] = self.x_at(i);
        SamplePoint {
            cell: self.cell,
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
        let row = |local_x: f32, step_x: f32, first_x: u32| SampleRow {
            cell: [0; 4],
            local: [local_x, 0.0, 0.0, 0.0],
            step_x,
            first_x,
            seed: 0,
            period: [0; 4],
        };
        let every_sample_small = |r: &SampleRow, n: usize| {
            (0..n).all(|i| r.x_at(i).abs() < crate::twin::SMALL_COORDINATE)
        };
        let cases = [
            row(0.0, 1.0, 0),
            row(8_388_600.0, 1.0, 0),
            row(-8_388_600.0, -1.0, 0),
            row(-4.0, 0.25, 3000),
            row(1.0, f32::NAN, 0),
            row(f32::INFINITY, 0.0, 0),
            row(0.0, 1.0, u32::MAX - 3),
        ];
        for r in cases {
            for n in [0, 1, 7, 8, 9, 100] {
                if r.x_is_small(n) {
                    assert!(every_sample_small(&r, n), "{r:?} n {n}");
                }
            }
        }
        assert!(row(0.0, 1.0, 0).x_is_small(100));
        assert!(!row(8_388_600.0, 1.0, 0).x_is_small(9));
        assert!(row(8_388_600.0, 1.0, 0).x_is_small(8));
        assert!(!row(1.0, f32::NAN, 0).x_is_small(2));
        assert!(
            !row(0.0, 1.0, u32::MAX - 3).x_is_small(8),
            "the pixel index wraps"
        );
    }
}
