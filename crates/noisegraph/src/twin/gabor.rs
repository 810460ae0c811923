//! Sparse Gabor noise. Twin of `shaders/gabor.wgsl` (see there for the construction and the
//! gradient form).

use super::grad::NoiseGrad;
use super::hash::{hash_2d, hash_3d, hash_to_signed, hash_to_unit, pcg, wrap_cell};
use super::turns::{cos_turns, sin_turns, TURN_RADIANS};

/// Upper bound on the impulses summed per cell.
pub const GABOR_MAX_IMPULSES: u32 = 256;

/// The uniform vectors of the kernel: k0 = (f0, pi a^2, cutoff, 1 / (1 - cutoff)),
/// k1 = (radius, exp(-lambda), output scale, 0), dir = anisotropic direction.
#[derive(Debug, Clone, Copy)]
pub struct GaborKernel {
    /// (f0, pi a^2, cutoff, 1 / (1 - cutoff)).
    pub k0: [f32; 4],
    /// (radius, exp(-lambda), output scale, 0).
    pub k1: [f32; 4],
    /// Anisotropic kernel direction.
    pub dir: [f32; 4],
}

#[inline(always)]
fn gabor_direction_2d(state: &mut u32, dir: [f32; 4], isotropic: bool) -> [f32; 2] {
    if !isotropic {
        return [dir[0], dir[1]];
    }
    *state = pcg(*state);
    let a = hash_to_unit(*state);
    [cos_turns(a), sin_turns(a)]
}

#[inline(always)]
fn gabor_direction_3d(state: &mut u32, dir: [f32; 4], isotropic: bool) -> [f32; 3] {
    if !isotropic {
        return [dir[0], dir[1], dir[2]];
    }
    *state = pcg(*state);
    let z = hash_to_signed(*state);
    *state = pcg(*state);
    let a = hash_to_unit(*state);
    let r = (1.0 - z * z).max(0.0).sqrt();
    [r * cos_turns(a), r * sin_turns(a), z]
}

/// One impulse of a cell, as the kernel draws it: position in the cell, weight and kernel
/// direction (z components 0 in 2D).
#[derive(Debug, Clone, Copy)]
struct Impulse {
    p: [f32; 3],
    w: f32,
    u: [f32; 3],
}

/// Draws the impulses of the cell with hash `h` in the kernel's order (the Poisson count ends
/// the list), calling `f` with each. They do not depend on the sample, so a row can draw a
/// cell's impulses once for all of its samples.
#[inline(always)]
fn for_each_impulse<const DIMS: usize>(
    h: u32,
    k: &GaborKernel,
    isotropic: bool,
    mut f: impl FnMut(Impulse),
) {
    let mut state = h;
    let mut product = 1.0f32;
    for _ in 0..GABOR_MAX_IMPULSES {
        state = pcg(state);
        product *= hash_to_unit(state);
        if product < k.k1[1] {
            break;
        }
        state = pcg(state);
        let px = hash_to_unit(state);
        state = pcg(state);
        let py = hash_to_unit(state);
        let mut pz = 0.0;
        if DIMS == 3 {
            state = pcg(state);
            pz = hash_to_unit(state);
        }
        state = pcg(state);
        let w = hash_to_signed(state);
        let u = if DIMS == 3 {
            gabor_direction_3d(&mut state, k.dir, isotropic)
        } else {
            let [ux, uy] = gabor_direction_2d(&mut state, k.dir, isotropic);
            [ux, uy, 0.0]
        };
        f(Impulse {
            p: [px, py, pz],
            w,
            u,
        });
    }
}

/// e^x for x <= 0 (below -87, e^-87), within 2.5e-7 relative of `f32::exp`: range reduction
/// by powers of 2 and a degree-6 polynomial, without branches, so that a row's samples
/// evaluate side by side (`f32::exp` is a library call per sample). The envelopes' arguments
/// lie in [ln(cutoff), 0] = [-3, 0]. Twin of `exp_nonpositive` in shaders/gabor.wgsl: the
/// kernel evaluates the same polynomial, not the driver's `exp`.
#[inline(always)]
pub fn exp_nonpositive(x: f32) -> f32 {
    const LOG2_E: f32 = std::f32::consts::LOG2_E;
    // ln 2 in two parts (Cody and Waite), so that k ln 2 is subtracted almost exactly.
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let x = if x > -87.0 { x } else { -87.0 };
    let kf = super::floor(x * LOG2_E + 0.5);
    let r = (x - kf * LN2_HI) - kf * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // 2^k: k in [-126, 0] is a normal exponent.
    p * f32::from_bits(((super::to_i32(kf) + 127) as u32) << 23)
}

/// CPU twin of `GaborSum` in shaders/gabor.wgsl: a complex Gabor sum, (cos part, sin part),
/// and the gradients of both parts with respect to the sample position (z components 0 in 2D).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct GaborSum {
    /// (cos part, sin part).
    pub z: [f32; 2],
    /// Gradient of the cos part.
    pub d_re: [f32; 3],
    /// Gradient of the sin part.
    pub d_im: [f32; 3],
}

/// CPU twin of `gabor_add_impulse` in shaders/gabor.wgsl: adds the kernel of an impulse at
/// offset `d` = sample - impulse (`r2` = |d|^2, `along` = u.d, weight `w`, direction `u`) to
/// `sum`; the sin part only when `complex`. With `DERIVATIVES = false` (the plain samplers)
/// the same value and no gradient: the compiler kept the derivatives' arithmetic of a
/// sampler that discarded them (a warped 1024^2 gabor bake on the CPU took 23% longer).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn gabor_add_impulse<const DERIVATIVES: bool>(
    sum: &mut GaborSum,
    d: [f32; 3],
    r2: f32,
    along: f32,
    w: f32,
    u: [f32; 3],
    k0: [f32; 4],
    complex: bool,
) {
    let e = exp_nonpositive(-k0[1] * r2);
    let env = w * (e - k0[2]) * k0[3];
    let t = k0[0] * along;
    let c = cos_turns(t);
    // Only where it is used: `complex` is known at run time only, and the compiler did not
    // move the sine into the branches below.
    let s = if DERIVATIVES || complex {
        sin_turns(t)
    } else {
        0.0
    };
    let slope = -2.0 * k0[1] * w * e * k0[3];
    let frequency = TURN_RADIANS * k0[0];
    let denv = [slope * d[0], slope * d[1], slope * d[2]];
    let dphase = [frequency * u[0], frequency * u[1], frequency * u[2]];
    sum.z[0] += env * c;
    if DERIVATIVES {
        for a in 0..3 {
            sum.d_re[a] += denv[a] * c - (env * s) * dphase[a];
        }
    }
    if complex {
        sum.z[1] += env * s;
        if DERIVATIVES {
            for a in 0..3 {
                sum.d_im[a] += denv[a] * s + (env * c) * dphase[a];
            }
        }
    }
}

/// Adds the kernel of `imp` at `pos` (relative to its cell's corner) to `sum` when `pos` lies
/// within its truncation radius: the body of the impulse loops of `gabor_cell_2d_grad` /
/// `gabor_cell_3d_grad`.
#[inline(always)]
fn add_impulse<const DIMS: usize, const DERIVATIVES: bool>(
    sum: &mut GaborSum,
    imp: &Impulse,
    pos: [f32; 3],
    k: &GaborKernel,
    complex: bool,
) {
    let radius2 = k.k1[0] * k.k1[0];
    let d = [pos[0] - imp.p[0], pos[1] - imp.p[1], pos[2] - imp.p[2]];
    let u = imp.u;
    let (r2, along) = if DIMS == 3 {
        (
            d[0] * d[0] + d[1] * d[1] + d[2] * d[2],
            u[0] * d[0] + u[1] * d[1] + u[2] * d[2],
        )
    } else {
        (d[0] * d[0] + d[1] * d[1], u[0] * d[0] + u[1] * d[1])
    };
    if r2 < radius2 {
        gabor_add_impulse::<DERIVATIVES>(sum, d, r2, along, imp.w, u, k.k0, complex);
    }
}

/// CPU twin of `gabor_cell_2d_grad` in shaders/gabor.wgsl: the impulses of one cell at `pos`
/// (relative to its corner). `DERIVATIVES`: see [`gabor_add_impulse`].
pub fn gabor_cell_2d_grad<const DERIVATIVES: bool>(
    h: u32,
    pos: [f32; 2],
    k: &GaborKernel,
    isotropic: bool,
    complex: bool,
) -> GaborSum {
    let mut sum = GaborSum::default();
    let pos = [pos[0], pos[1], 0.0];
    for_each_impulse::<2>(h, k, isotropic, |imp| {
        add_impulse::<2, DERIVATIVES>(&mut sum, &imp, pos, k, complex)
    });
    sum
}

/// CPU twin of `gabor_cell_3d_grad` in shaders/gabor.wgsl.
pub fn gabor_cell_3d_grad<const DERIVATIVES: bool>(
    h: u32,
    pos: [f32; 3],
    k: &GaborKernel,
    isotropic: bool,
    complex: bool,
) -> GaborSum {
    let mut sum = GaborSum::default();
    for_each_impulse::<3>(h, k, isotropic, |imp| {
        add_impulse::<3, DERIVATIVES>(&mut sum, &imp, pos, k, complex)
    });
    sum
}

/// CPU twin of `gabor_add_cell` in shaders/gabor.wgsl: adds one cell's sum to the sample's.
#[inline(always)]
pub fn gabor_add_cell(sum: &mut GaborSum, cell: GaborSum) {
    sum.z[0] += cell.z[0];
    sum.z[1] += cell.z[1];
    for a in 0..3 {
        sum.d_re[a] += cell.d_re[a];
        sum.d_im[a] += cell.d_im[a];
    }
}

/// CPU twin of `gabor_sum_2d_grad` in shaders/gabor.wgsl: the complex Gabor sum at a sample
/// and its gradient, from every cell the truncation disk touches. `DERIVATIVES = false`: the
/// sum alone (see [`gabor_add_impulse`]).
pub fn gabor_sum_2d_grad<const DERIVATIVES: bool>(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    k: &GaborKernel,
    isotropic: bool,
    complex: bool,
) -> GaborSum {
    let fl = local.map(super::floor);
    let base = [0, 1].map(|a| cell[a].wrapping_add(super::to_i32(fl[a])));
    let f = [local[0] - fl[0], local[1] - fl[1]];
    let r = k.k1[0];
    let lo = f.map(|v| super::to_i32(super::floor(v - r)));
    let hi = f.map(|v| super::to_i32(super::floor(v + r)));
    let mut sum = GaborSum::default();
    for oy in lo[1]..=hi[1] {
        for ox in lo[0]..=hi[0] {
            let c = [base[0].wrapping_add(ox), base[1].wrapping_add(oy)];
            let h = hash_2d(
                [wrap_cell(c[0], period[0]), wrap_cell(c[1], period[1])],
                seed_h,
            );
            let pos = [f[0] - ox as f32, f[1] - oy as f32];
            let cell = gabor_cell_2d_grad::<DERIVATIVES>(h, pos, k, isotropic, complex);
            gabor_add_cell(&mut sum, cell);
        }
    }
    sum
}

/// CPU twin of `gabor_sum_3d_grad` in shaders/gabor.wgsl.
pub fn gabor_sum_3d_grad<const DERIVATIVES: bool>(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    k: &GaborKernel,
    isotropic: bool,
    complex: bool,
) -> GaborSum {
    let fl = local.map(super::floor);
    let base = [0, 1, 2].map(|a| cell[a].wrapping_add(super::to_i32(fl[a])));
    let f = [0, 1, 2].map(|a| local[a] - fl[a]);
    let r = k.k1[0];
    let lo = f.map(|v| super::to_i32(super::floor(v - r)));
    let hi = f.map(|v| super::to_i32(super::floor(v + r)));
    let mut sum = GaborSum::default();
    for oz in lo[2]..=hi[2] {
        for oy in lo[1]..=hi[1] {
            for ox in lo[0]..=hi[0] {
                let o = [ox, oy, oz];
                let c = [0, 1, 2].map(|a| wrap_cell(base[a].wrapping_add(o[a]), period[a]));
                let h = hash_3d(c, seed_h);
                let pos = [0, 1, 2].map(|a| f[a] - o[a] as f32);
                let cell = gabor_cell_3d_grad::<DERIVATIVES>(h, pos, k, isotropic, complex);
                gabor_add_cell(&mut sum, cell);
            }
        }
    }
    sum
}

/// The gradient form's output from its sum: the cos part and its gradient, scaled.
#[inline(always)]
fn gabor_output(s: GaborSum, scale: f32) -> NoiseGrad {
    NoiseGrad {
        value: s.z[0] * scale,
        d: [s.d_re[0] * scale, s.d_re[1] * scale, s.d_re[2] * scale, 0.0],
    }
}

/// CPU twin of `gabor_2d_grad` in shaders/gabor.wgsl.
pub fn gabor_2d_grad(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    k: &GaborKernel,
    isotropic: bool,
) -> NoiseGrad {
    let s = gabor_sum_2d_grad::<true>(cell, local, seed_h, period, k, isotropic, false);
    gabor_output(s, k.k1[2])
}

/// CPU twin of `gabor_3d_grad` in shaders/gabor.wgsl.
pub fn gabor_3d_grad(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    k: &GaborKernel,
    isotropic: bool,
) -> NoiseGrad {
    let s = gabor_sum_3d_grad::<true>(cell, local, seed_h, period, k, isotropic, false);
    gabor_output(s, k.k1[2])
}

/// CPU twin of `gabor_2d` in shaders/gabor.wgsl: the gradient form's value, its derivatives
/// compiled out.
pub fn gabor_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    k: &GaborKernel,
    isotropic: bool,
) -> f32 {
    let s = gabor_sum_2d_grad::<false>(cell, local, seed_h, period, k, isotropic, false);
    gabor_output(s, k.k1[2]).value
}

/// CPU twin of `gabor_3d` in shaders/gabor.wgsl: the gradient form's value, its derivatives
/// compiled out.
pub fn gabor_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    k: &GaborKernel,
    isotropic: bool,
) -> f32 {
    let s = gabor_sum_3d_grad::<false>(cell, local, seed_h, period, k, isotropic, false);
    gabor_output(s, k.k1[2]).value
}

/// Cells a row may cache impulses for, per sample of the row: rows that would touch more
/// (frequencies of many cells per pixel, where samples share no cells) go sample by sample.
const ROW_CELLS_PER_SAMPLE: usize = 16;

/// The vector width a run of samples is padded to (AVX2: 8 f32).
const RUN_LANES: usize = 8;

/// A position in cell units farther from every impulse than any truncation radius.
const FAR: f32 = 1.0e4;

/// The complex sum of `gabor_sum_2d_grad` / `gabor_sum_3d_grad` along a row of samples (see `family::SampleRow`), through
/// `finish`, bit for bit the point sampler's numbers: the same cells in the same order and
/// the same arithmetic per impulse. Each cell's impulses are drawn once for the whole row (the
/// PCG chain that draws them was most of a sample's time), and runs of neighbouring samples
/// that visit the same cells are evaluated together, 8 samples wide with AVX2.
pub fn gabor_row<const DIMS: usize>(
    row: &super::sample::SampleRow,
    k: &GaborKernel,
    isotropic: bool,
    complex: bool,
    out: &mut [f32],
    finish: impl Fn([f32; 2]) -> f32,
) {
    struct Reach<const DIMS: usize> {
        base: [i32; DIMS],
        f: [f32; DIMS],
        lo: [i32; DIMS],
        hi: [i32; DIMS],
    }
    let r = k.k1[0];
    // Per sample, what `gabor_sum_2d_grad` / `gabor_sum_3d_grad` compute before their loops.
    let reach: Vec<Reach<DIMS>> = (0..out.len())
        .map(|i| {
            let p = row.point(i);
            let fl: [f32; DIMS] = std::array::from_fn(|a| super::floor(p.local[a]));
            let f: [f32; DIMS] = std::array::from_fn(|a| p.local[a] - fl[a]);
            Reach {
                base: std::array::from_fn(|a| p.cell[a].wrapping_add(super::to_i32(fl[a]))),
                f,
                lo: f.map(|v| super::to_i32(super::floor(v - r))),
                hi: f.map(|v| super::to_i32(super::floor(v + r))),
            }
        })
        .collect();
    // The box of cells the row touches (in i64: cells wrap around i32 far from the origin).
    let mut min = [i64::MAX; DIMS];
    let mut max = [i64::MIN; DIMS];
    for s in &reach {
        for a in 0..DIMS {
            min[a] = min[a].min(s.base[a] as i64 + s.lo[a] as i64);
            max[a] = max[a].max(s.base[a] as i64 + s.hi[a] as i64);
        }
    }
    let extent: [i64; DIMS] = std::array::from_fn(|a| max[a] - min[a] + 1);
    let cells = extent.iter().product::<i64>();
    if out.is_empty() || cells > (ROW_CELLS_PER_SAMPLE * out.len()).max(64) as i64 {
        let mut period = [0i32; 3];
        period[..DIMS].copy_from_slice(&row.period[..DIMS]);
        row.fill_pointwise(out, |p| {
            let sum = if DIMS == 3 {
                gabor_sum_3d_grad::<false>(
                    [p.cell[0], p.cell[1], p.cell[2]],
                    [p.local[0], p.local[1], p.local[2]],
                    p.seed,
                    period,
                    k,
                    isotropic,
                    complex,
                )
            } else {
                gabor_sum_2d_grad::<false>(
                    [p.cell[0], p.cell[1]],
                    [p.local[0], p.local[1]],
                    p.seed,
                    [period[0], period[1]],
                    k,
                    isotropic,
                    complex,
                )
            };
            finish(sum.z)
        });
        return;
    }
    // Each cell's impulses, drawn when a run first needs them: `drawn[cell]` is the range of
    // the cell's impulses in `impulses`.
    let mut impulses: Vec<Impulse> = Vec::new();
    let mut drawn: Vec<Option<(u32, u32)>> = vec![None; cells as usize];
    let cell_of = |off: [i32; DIMS],
                   s: &Reach<DIMS>,
                   impulses: &mut Vec<Impulse>,
                   drawn: &mut Vec<Option<(u32, u32)>>| {
        let mut index = 0i64;
        for a in (0..DIMS).rev() {
            // The cell `base + off`, counted from the box's corner without wrapping.
            let along = s.base[a] as i64 + off[a] as i64 - min[a];
            index = index * extent[a] + along;
        }
        let (start, len) = *drawn[index as usize].get_or_insert_with(|| {
            let wrapped: [i32; DIMS] =
                std::array::from_fn(|a| wrap_cell(s.base[a].wrapping_add(off[a]), row.period[a]));
            let h = if DIMS == 3 {
                hash_3d([wrapped[0], wrapped[1], wrapped[2 % DIMS]], row.seed)
            } else {
                hash_2d([wrapped[0], wrapped[1]], row.seed)
            };
            let start = impulses.len() as u32;
            for_each_impulse::<DIMS>(h, k, isotropic, |imp| impulses.push(imp));
            (start, impulses.len() as u32 - start)
        });
        start as usize..(start + len) as usize
    };
    // Runs of neighbouring samples that visit the same cells (the same base cell and bounds)
    // are evaluated together: per cell, per impulse, a loop over the run's samples that the
    // compiler vectorizes. Each sample still adds its impulses and cells in the point
    // sampler's order, so its sum is the same number.
    let (mut sums, mut cell_sums) = ([Vec::new(), Vec::new()], [Vec::new(), Vec::new()]);
    let mut pos: [Vec<f32>; 3] = Default::default();
    let mut first = 0;
    while first < reach.len() {
        let head = &reach[first];
        let same = |s: &Reach<DIMS>| s.base == head.base && s.lo == head.lo && s.hi == head.hi;
        let n = reach[first..].iter().take_while(|s| same(s)).count();
        let run = &reach[first..first + n];
        // Padded to whole vectors with samples far outside every disk (they add 0 and are
        // dropped), so that no sample of the run goes through a scalar remainder loop.
        let padded = n.div_ceil(RUN_LANES) * RUN_LANES;
        for v in sums.iter_mut().chain(&mut cell_sums) {
            v.clear();
            v.resize(padded, 0.0);
        }
        for (a, v) in pos.iter_mut().enumerate() {
            v.clear();
            v.resize(padded, if a < DIMS { FAR } else { 0.0 });
        }
        let (z_lo, z_hi) = if DIMS == 3 {
            (head.lo[2 % DIMS], head.hi[2 % DIMS])
        } else {
            (0, 0)
        };
        // The loops of `gabor_sum_2d_grad` / `gabor_sum_3d_grad`, in their order.
        for oz in z_lo..=z_hi {
            for oy in head.lo[1]..=head.hi[1] {
                for ox in head.lo[0]..=head.hi[0] {
                    let off: [i32; DIMS] = std::array::from_fn(|a| [ox, oy, oz][a]);
                    let range = cell_of(off, head, &mut impulses, &mut drawn);
                    for a in 0..DIMS {
                        for (p, s) in pos[a].iter_mut().zip(run) {
                            *p = s.f[a] - off[a] as f32;
                        }
                    }
                    super::vectorized(
                        #[inline(always)]
                        || {
                            add_cell_to_run::<DIMS>(
                                &impulses[range],
                                &pos,
                                k,
                                complex,
                                &mut sums,
                                &mut cell_sums,
                            )
                        },
                    );
                }
            }
        }
        for ((o, re), im) in out[first..first + n].iter_mut().zip(&sums[0]).zip(&sums[1]) {
            *o = finish([*re, *im]);
        }
        first += n;
    }
}

/// Adds one cell's impulses at the run's sample positions `pos` (relative to the cell's
/// corner, axis by axis) to the run's complex `sums`: the cell's own sum first, impulse by
/// impulse in order (`add_impulse` per sample, an impulse outside its disk adding +0), then
/// that sum to the sample's, as `gabor_cell_2d_grad` / `gabor_cell_3d_grad` and their callers do.
#[inline(always)]
fn add_cell_to_run<const DIMS: usize>(
    impulses: &[Impulse],
    pos: &[Vec<f32>; 3],
    k: &GaborKernel,
    complex: bool,
    sums: &mut [Vec<f32>; 2],
    cell_sums: &mut [Vec<f32>; 2],
) {
    let [cell_re, cell_im] = cell_sums;
    cell_re.fill(0.0);
    cell_im.fill(0.0);
    for imp in impulses {
        if complex {
            add_impulse_to_run::<DIMS, true>(imp, pos, k, cell_re, cell_im);
        } else {
            add_impulse_to_run::<DIMS, false>(imp, pos, k, cell_re, cell_im);
        }
    }
    for (sum, cell) in sums.iter_mut().zip(cell_sums.iter()) {
        for (s, c) in sum.iter_mut().zip(cell) {
            *s += c;
        }
    }
}

/// `add_impulse` at every sample of a run, in one loop without branches (an impulse outside
/// its disk adds +0, which leaves a sum unchanged).
#[inline(always)]
fn add_impulse_to_run<const DIMS: usize, const COMPLEX: bool>(
    imp: &Impulse,
    pos: &[Vec<f32>; 3],
    k: &GaborKernel,
    re: &mut [f32],
    im: &mut [f32],
) {
    let (k0, k1) = (k.k0, k.k1);
    let radius2 = k1[0] * k1[0];
    let (p, u, w) = (imp.p, imp.u, imp.w);
    let n = re.len();
    let im = &mut im[..n];
    let (px, py, pz) = (&pos[0][..n], &pos[1][..n], &pos[2][..n]);
    for i in 0..n {
        let d = [px[i] - p[0], py[i] - p[1], pz[i] - p[2]];
        let (r2, along) = if DIMS == 3 {
            (
                d[0] * d[0] + d[1] * d[1] + d[2] * d[2],
                u[0] * d[0] + u[1] * d[1] + u[2] * d[2],
            )
        } else {
            (d[0] * d[0] + d[1] * d[1], u[0] * d[0] + u[1] * d[1])
        };
        let env = w * (exp_nonpositive(-k0[1] * r2) - k0[2]) * k0[3];
        let env = if r2 < radius2 { env } else { 0.0 };
        let t = k0[0] * along;
        re[i] += env * cos_turns(t);
        if COMPLEX {
            im[i] += env * sin_turns(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::exp_nonpositive;

    #[test]
    fn exp_nonpositive_is_within_3e7_of_exp() {
        // Every 1/4096 over the envelopes' range [-3, 0], then coarser down to the clamp.
        let xs = (0..=3 * 4096)
            .map(|i| -(i as f32) / 4096.0)
            .chain((0..=870).map(|i| -(i as f32) / 10.0));
        for x in xs {
            let (ours, exact) = (exp_nonpositive(x) as f64, (x as f64).exp());
            let rel = (ours - exact).abs() / exact;
            assert!(
                rel < 3e-7,
                "exp({x}) = {ours:e}, exactly {exact:e} ({rel:e} relative)"
            );
        }
        // Below the clamp: e^-87, finite and positive (lanes outside every disk land here).
        assert_eq!(exp_nonpositive(-1e8), exp_nonpositive(-87.0));
        assert!(exp_nonpositive(-1e8) > 0.0);
    }
}
