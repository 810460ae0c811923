//! Perlin gradient noise. Twin of `shaders/perlin.wgsl`.

use super::fade::{fade, fade_slope, lerp, lerp_grad};
use super::hash::{
    hash_2d, hash_3d, hash_finish, hash_to_signed, hash_to_unit, pcg, wrap_cell, HASH_PRIME_X,
    HASH_PRIME_Y, HASH_PRIME_Z,
};
use super::sample::{xy, xyz, GradSamples, NoiseGrad, SamplePoint, SamplePoints, SampleRow};

/// Gradient set: Perlin's improved fixed gradients.
pub const GRADIENTS_IMPROVED: u32 = 0;
/// Gradient set: random unit gradients from the hash.
pub const GRADIENTS_RANDOM: u32 = 1;
const INV_SQRT2: f32 = std::f32::consts::FRAC_1_SQRT_2;
const TAU: f32 = std::f32::consts::TAU;
/// Improved 2D gradients: unit vectors at 22.5 + k * 45 degrees (see perlin.wgsl).
pub(crate) const GRAD2_COS: f32 = 0.923_879_5;
pub(crate) const GRAD2_SIN: f32 = 0.382_683_43;

#[inline(always)]
fn select(f: f32, t: f32, cond: bool) -> f32 {
    if cond {
        t
    } else {
        f
    }
}

#[inline(always)]
/// CPU twin of `perlin_grad_2d` in shaders/perlin.wgsl: dot of the hashed gradient with offset `d`.
pub fn perlin_grad_2d(h: u32, d: [f32; 2], gradients: u32) -> f32 {
    if gradients == GRADIENTS_RANDOM {
        let angle = hash_to_unit(h) * TAU;
        return angle.cos() * d[0] + angle.sin() * d[1];
    }
    // As the kernel: the signs xored into the offsets' sign bits, the swap on the offsets.
    let sx = f32::from_bits(d[0].to_bits() ^ (h << 31));
    let sy = f32::from_bits(d[1].to_bits() ^ ((h & 2) << 30));
    let swap = (h & 4) != 0;
    select(sx, sy, swap) * GRAD2_COS + select(sy, sx, swap) * GRAD2_SIN
}

#[inline(always)]
fn perlin_corner_2d(
    i: [i32; 2],
    offset: [i32; 2],
    f: [f32; 2],
    period: [i32; 2],
    seed_h: u32,
    gradients: u32,
) -> f32 {
    let c = [i[0].wrapping_add(offset[0]), i[1].wrapping_add(offset[1])];
    let h = hash_2d(
        [wrap_cell(c[0], period[0]), wrap_cell(c[1], period[1])],
        seed_h,
    );
    perlin_grad_2d(
        h,
        [f[0] - offset[0] as f32, f[1] - offset[1] as f32],
        gradients,
    )
}

/// CPU twin of `perlin_2d` in shaders/perlin.wgsl.
#[inline(always)]
pub fn perlin_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    fade_kind: u32,
    gradients: u32,
) -> f32 {
    let fl = local.map(super::floor);
    let i = [0, 1].map(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let f = [local[0] - fl[0], local[1] - fl[1]];
    let a = perlin_corner_2d(i, [0, 0], f, period, seed_h, gradients);
    let b = perlin_corner_2d(i, [1, 0], f, period, seed_h, gradients);
    let c = perlin_corner_2d(i, [0, 1], f, period, seed_h, gradients);
    let d = perlin_corner_2d(i, [1, 1], f, period, seed_h, gradients);
    let ux = fade(f[0], fade_kind);
    let uy = fade(f[1], fade_kind);
    lerp(lerp(a, b, ux), lerp(c, d, ux), uy)
}

/// `perlin_2d` along a row of samples (see `family::SampleRow`), bit for bit the same numbers.
/// Rows with the improved gradients and no period run a loop the compiler vectorizes across
/// samples (see [`super::vectorized`]); others run `perlin_2d` sample by sample.
pub fn perlin_2d_row(row: &SampleRow, fade_kind: u32, gradients: u32, out: &mut [f32]) {
    if gradients != GRADIENTS_IMPROVED || row.period[0] != 0 || row.period[1] != 0 {
        row.fill_pointwise(out, |p| perlin_at(2, p, fade_kind, gradients));
        return;
    }
    super::vectorized_by_fade!(fade_kind, perlin_2d_row_lanes(row, out))
}

/// The body of `perlin_2d` with the improved gradients and no period, per sample of the row:
/// the y half of the work and the y hash terms are done once, and the loop has no branches.
/// `hash_2d` xors the seed hash and both coordinate products, so `(seed ^ y term) ^ x term`
/// is the same number.
#[inline(always)]
fn perlin_2d_row_lanes<const FADE: u32>(row: &SampleRow, out: &mut [f32]) {
    if row.x_is_small(out.len()) {
        perlin_2d_row_split::<FADE, true>(row, out)
    } else {
        perlin_2d_row_split::<FADE, false>(row, out)
    }
}

/// [`perlin_2d_row_lanes`] with the x split of `split_cell::<SMALL_X>`.
#[inline(always)]
fn perlin_2d_row_split<const FADE: u32, const SMALL_X: bool>(row: &SampleRow, out: &mut [f32]) {
    let ly = row.local[1];
    let fly = super::floor(ly);
    let iy = row.cell[1].wrapping_add(super::to_i32(fly));
    let fy = ly - fly;
    let uy = fade(fy, FADE);
    let y0 = row.seed ^ (iy as u32).wrapping_mul(HASH_PRIME_Y);
    let y1 = row.seed ^ (iy.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_Y);
    let n = out.len();
    let (xs, cells_x) = (&row.local_x[..n], &row.cells_x[..n]);
    for (i, o) in out.iter_mut().enumerate() {
        let x = xs[i];
        let (flx, cx) = super::split_cell::<SMALL_X>(x);
        let ix = cells_x[i].wrapping_add(cx);
        let fx = x - flx;
        let x0 = (ix as u32).wrapping_mul(HASH_PRIME_X);
        let x1 = (ix.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_X);
        let a = perlin_grad_2d(hash_finish(y0 ^ x0), [fx, fy], GRADIENTS_IMPROVED);
        let b = perlin_grad_2d(hash_finish(y0 ^ x1), [fx - 1.0, fy], GRADIENTS_IMPROVED);
        let c = perlin_grad_2d(hash_finish(y1 ^ x0), [fx, fy - 1.0], GRADIENTS_IMPROVED);
        let d = perlin_grad_2d(
            hash_finish(y1 ^ x1),
            [fx - 1.0, fy - 1.0],
            GRADIENTS_IMPROVED,
        );
        let ux = fade(fx, FADE);
        *o = lerp(lerp(a, b, ux), lerp(c, d, ux), uy);
    }
}

#[inline(always)]
/// CPU twin of `perlin_grad_3d` in shaders/perlin.wgsl: dot of the hashed gradient with offset `d`.
pub fn perlin_grad_3d(h: u32, d: [f32; 3], gradients: u32) -> f32 {
    if gradients == GRADIENTS_RANDOM {
        let z = hash_to_signed(h);
        let r = (1.0 - z * z).max(0.0).sqrt();
        let angle = hash_to_unit(pcg(h)) * TAU;
        return r * angle.cos() * d[0] + r * angle.sin() * d[1] + z * d[2];
    }
    let k = h & 15;
    let u = select(d[1], d[0], k < 8);
    let v = select(select(d[2], d[0], k == 12 || k == 14), d[1], k < 4);
    (select(u, -u, (k & 1) != 0) + select(v, -v, (k & 2) != 0)) * INV_SQRT2
}

#[inline(always)]
fn perlin_corner_3d(
    i: [i32; 3],
    offset: [i32; 3],
    f: [f32; 3],
    period: [i32; 3],
    seed_h: u32,
    gradients: u32,
) -> f32 {
    let c = [0, 1, 2].map(|k| wrap_cell(i[k].wrapping_add(offset[k]), period[k]));
    let h = hash_3d(c, seed_h);
    perlin_grad_3d(h, [0, 1, 2].map(|k| f[k] - offset[k] as f32), gradients)
}

/// `perlin_2d` or `perlin_3d` (by `dims`) at one sample point: the family's point sampler.
#[inline(always)]
pub fn perlin_at(dims: u32, p: &SamplePoint, fade_kind: u32, gradients: u32) -> f32 {
    if dims == 2 {
        perlin_2d(
            xy(p.cell),
            xy(p.local),
            p.seed,
            xy(p.period),
            fade_kind,
            gradients,
        )
    } else {
        perlin_3d(
            xyz(p.cell),
            xyz(p.local),
            p.seed,
            xyz(p.period),
            fade_kind,
            gradients,
        )
    }
}

/// CPU twin of `perlin_3d` in shaders/perlin.wgsl.
#[inline(always)]
pub fn perlin_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    fade_kind: u32,
    gradients: u32,
) -> f32 {
    let fl = local.map(super::floor);
    let i = [0, 1, 2].map(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let f = [0, 1, 2].map(|k| local[k] - fl[k]);
    let ux = fade(f[0], fade_kind);
    let uy = fade(f[1], fade_kind);
    let uz = fade(f[2], fade_kind);
    let corner = |o: [i32; 3]| perlin_corner_3d(i, o, f, period, seed_h, gradients);
    let z0 = lerp(
        lerp(corner([0, 0, 0]), corner([1, 0, 0]), ux),
        lerp(corner([0, 1, 0]), corner([1, 1, 0]), ux),
        uy,
    );
    let z1 = lerp(
        lerp(corner([0, 0, 1]), corner([1, 0, 1]), ux),
        lerp(corner([0, 1, 1]), corner([1, 1, 1]), ux),
        uy,
    );
    lerp(z0, z1, uz)
}

/// `perlin_3d` along a row of samples (see `family::SampleRow`), bit for bit the same numbers;
/// vectorized like [`perlin_2d_row`] for the improved gradients without a period.
pub fn perlin_3d_row(row: &SampleRow, fade_kind: u32, gradients: u32, out: &mut [f32]) {
    if gradients != GRADIENTS_IMPROVED || row.period[..3].iter().any(|&p| p != 0) {
        row.fill_pointwise(out, |p| perlin_at(3, p, fade_kind, gradients));
        return;
    }
    super::vectorized_by_fade!(fade_kind, perlin_3d_row_lanes(row, out))
}

/// The body of `perlin_3d` with the improved gradients and no period along a row (see
/// `perlin_2d_row_lanes`): y and z are the row's, their hash terms computed once.
#[inline(always)]
fn perlin_3d_row_lanes<const FADE: u32>(row: &SampleRow, out: &mut [f32]) {
    if row.x_is_small(out.len()) {
        perlin_3d_row_split::<FADE, true>(row, out)
    } else {
        perlin_3d_row_split::<FADE, false>(row, out)
    }
}

/// [`perlin_3d_row_lanes`] with the x split of `split_cell::<SMALL_X>`.
#[inline(always)]
fn perlin_3d_row_split<const FADE: u32, const SMALL_X: bool>(row: &SampleRow, out: &mut [f32]) {
    let axis = |k: usize| {
        let fl = super::floor(row.local[k]);
        (
            row.cell[k].wrapping_add(super::to_i32(fl)),
            row.local[k] - fl,
        )
    };
    let (iy, fy) = axis(1);
    let (iz, fz) = axis(2);
    let uy = fade(fy, FADE);
    let uz = fade(fz, FADE);
    let y = [iy, iy.wrapping_add(1)].map(|c| (c as u32).wrapping_mul(HASH_PRIME_Y));
    let z = [iz, iz.wrapping_add(1)].map(|c| (c as u32).wrapping_mul(HASH_PRIME_Z));
    // Seed and (y, z) terms of the corners, indexed [dz][dy].
    let yz = [
        [row.seed ^ y[0] ^ z[0], row.seed ^ y[1] ^ z[0]],
        [row.seed ^ y[0] ^ z[1], row.seed ^ y[1] ^ z[1]],
    ];
    let n = out.len();
    let (xs, cells_x) = (&row.local_x[..n], &row.cells_x[..n]);
    for (i, o) in out.iter_mut().enumerate() {
        let x = xs[i];
        let (flx, cx) = super::split_cell::<SMALL_X>(x);
        let ix = cells_x[i].wrapping_add(cx);
        let fx = x - flx;
        let xh = [ix, ix.wrapping_add(1)].map(|c| (c as u32).wrapping_mul(HASH_PRIME_X));
        let ux = fade(fx, FADE);
        let corner = |dx: usize, dy: usize, dz: usize| {
            let h = hash_finish(yz[dz][dy] ^ xh[dx]);
            let d = [fx - dx as f32, fy - dy as f32, fz - dz as f32];
            perlin_grad_3d(h, d, GRADIENTS_IMPROVED)
        };
        let z0 = lerp(
            lerp(corner(0, 0, 0), corner(1, 0, 0), ux),
            lerp(corner(0, 1, 0), corner(1, 1, 0), ux),
            uy,
        );
        let z1 = lerp(
            lerp(corner(0, 0, 1), corner(1, 0, 1), ux),
            lerp(corner(0, 1, 1), corner(1, 1, 1), ux),
            uy,
        );
        *o = lerp(z0, z1, uz);
    }
}

// ---- Analytic gradients: `[value, d/dx, d/dy, d/dz]` with respect to `local`; the value is
// the number the plain function returns.

/// CPU twin of `perlin_gradient_2d` in shaders/perlin.wgsl: the gradient vector
/// [`perlin_grad_2d`] dots with the offset.
#[inline(always)]
pub fn perlin_gradient_2d(h: u32, gradients: u32) -> [f32; 2] {
    if gradients == GRADIENTS_RANDOM {
        let angle = hash_to_unit(h) * TAU;
        return [angle.cos(), angle.sin()];
    }
    let swap = (h & 4) != 0;
    let gx = select(GRAD2_COS, GRAD2_SIN, swap);
    let gy = select(GRAD2_SIN, GRAD2_COS, swap);
    [select(gx, -gx, (h & 1) != 0), select(gy, -gy, (h & 2) != 0)]
}

/// CPU twin of `perlin_gradient_3d` in shaders/perlin.wgsl: the gradient vector
/// [`perlin_grad_3d`] dots with the offset.
#[inline(always)]
pub fn perlin_gradient_3d(h: u32, gradients: u32) -> [f32; 3] {
    if gradients == GRADIENTS_RANDOM {
        let z = hash_to_signed(h);
        let r = (1.0 - z * z).max(0.0).sqrt();
        let angle = hash_to_unit(pcg(h)) * TAU;
        return [r * angle.cos(), r * angle.sin(), z];
    }
    let k = h & 15;
    let u_axis = if k < 8 { 0 } else { 1 };
    let v_axis = if k < 4 {
        1
    } else if k == 12 || k == 14 {
        0
    } else {
        2
    };
    let su = select(INV_SQRT2, -INV_SQRT2, (k & 1) != 0);
    let sv = select(INV_SQRT2, -INV_SQRT2, (k & 2) != 0);
    super::each3(|a| select(0.0, su, u_axis == a) + select(0.0, sv, v_axis == a))
}

#[inline(always)]
fn perlin_corner_grad_2d(
    i: [i32; 2],
    offset: [i32; 2],
    f: [f32; 2],
    period: [i32; 2],
    seed_h: u32,
    gradients: u32,
) -> [f32; 4] {
    let c = [i[0].wrapping_add(offset[0]), i[1].wrapping_add(offset[1])];
    let h = hash_2d(
        [wrap_cell(c[0], period[0]), wrap_cell(c[1], period[1])],
        seed_h,
    );
    let n = perlin_grad_2d(
        h,
        [f[0] - offset[0] as f32, f[1] - offset[1] as f32],
        gradients,
    );
    let g = perlin_gradient_2d(h, gradients);
    [n, g[0], g[1], 0.0]
}

/// CPU twin of `perlin_2d_grad` in shaders/perlin.wgsl: `[value, d/dx, d/dy, 0]`.
#[inline(always)]
pub fn perlin_2d_grad(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    fade_kind: u32,
    gradients: u32,
) -> [f32; 4] {
    let fl = super::each2(|k| super::floor(local[k]));
    let i = super::each2(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let f = [local[0] - fl[0], local[1] - fl[1]];
    let a = perlin_corner_grad_2d(i, [0, 0], f, period, seed_h, gradients);
    let b = perlin_corner_grad_2d(i, [1, 0], f, period, seed_h, gradients);
    let c = perlin_corner_grad_2d(i, [0, 1], f, period, seed_h, gradients);
    let d = perlin_corner_grad_2d(i, [1, 1], f, period, seed_h, gradients);
    let ux = fade(f[0], fade_kind);
    let uy = fade(f[1], fade_kind);
    let dx = [fade_slope(f[0], fade_kind), 0.0, 0.0];
    let dy = [0.0, fade_slope(f[1], fade_kind), 0.0];
    lerp_grad(lerp_grad(a, b, ux, dx), lerp_grad(c, d, ux, dx), uy, dy)
}

#[inline(always)]
fn perlin_corner_grad_3d(
    i: [i32; 3],
    offset: [i32; 3],
    f: [f32; 3],
    period: [i32; 3],
    seed_h: u32,
    gradients: u32,
) -> [f32; 4] {
    let c = super::each3(|k| wrap_cell(i[k].wrapping_add(offset[k]), period[k]));
    let h = hash_3d(c, seed_h);
    let n = perlin_grad_3d(h, super::each3(|k| f[k] - offset[k] as f32), gradients);
    let g = perlin_gradient_3d(h, gradients);
    [n, g[0], g[1], g[2]]
}

/// CPU twin of `perlin_3d_grad` in shaders/perlin.wgsl: `[value, d/dx, d/dy, d/dz]`.
#[inline(always)]
pub fn perlin_3d_grad(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    fade_kind: u32,
    gradients: u32,
) -> [f32; 4] {
    let fl = super::each3(|k| super::floor(local[k]));
    let i = super::each3(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let f = super::each3(|k| local[k] - fl[k]);
    let ux = fade(f[0], fade_kind);
    let uy = fade(f[1], fade_kind);
    let uz = fade(f[2], fade_kind);
    let dx = [fade_slope(f[0], fade_kind), 0.0, 0.0];
    let dy = [0.0, fade_slope(f[1], fade_kind), 0.0];
    let dz = [0.0, 0.0, fade_slope(f[2], fade_kind)];
    let corner = |o: [i32; 3]| perlin_corner_grad_3d(i, o, f, period, seed_h, gradients);
    let z0 = lerp_grad(
        lerp_grad(corner([0, 0, 0]), corner([1, 0, 0]), ux, dx),
        lerp_grad(corner([0, 1, 0]), corner([1, 1, 0]), ux, dx),
        uy,
        dy,
    );
    let z1 = lerp_grad(
        lerp_grad(corner([0, 0, 1]), corner([1, 0, 1]), ux, dx),
        lerp_grad(corner([0, 1, 1]), corner([1, 1, 1]), ux, dx),
        uy,
        dy,
    );
    lerp_grad(z0, z1, uz, dz)
}

/// `perlin_2d` and `perlin_3d` at the points of a warped stage's row (see
/// `family::SamplePoints`), bit for bit the same numbers: with the improved gradients and no
/// period, in a loop the compiler vectorizes (the fade curve a constant); otherwise point by
/// point.
pub fn perlin_points(
    dims: u32,
    pts: &SamplePoints,
    fade_kind: u32,
    gradients: u32,
    out: &mut [f32],
) {
    if gradients != GRADIENTS_IMPROVED || pts.period[..dims as usize].iter().any(|&p| p != 0) {
        pts.fill_pointwise(out, |p| perlin_at(dims, p, fade_kind, gradients));
        return;
    }
    super::vectorized_by_fade!(fade_kind, perlin_points_lanes(dims, pts, out))
}

/// `perlin_points` with the improved gradients and no period: the constant 0 lets the
/// lattice wrap fold away. The dimension is chosen outside the loop (a `match` inside it kept
/// the loop scalar).
#[inline(always)]
fn perlin_points_lanes<const FADE: u32>(dims: u32, pts: &SamplePoints, out: &mut [f32]) {
    if dims == 2 {
        perlin_2d_points_lanes::<FADE>(pts, out)
    } else {
        pts.fill_vectorized(
            out,
            #[inline(always)]
            |p| {
                perlin_3d(
                    xyz(p.cell),
                    xyz(p.local),
                    p.seed,
                    [0; 3],
                    FADE,
                    GRADIENTS_IMPROVED,
                )
            },
        )
    }
}

/// `perlin_2d` with the improved gradients and no period at each point of `pts`, written
/// lane by lane on plain scalars (as `perlin_2d_row_lanes`) so the loop vectorizes: over
/// arrays of two, the compiler paired each sample's x and y work and left the loop scalar.
/// `hash_2d` xors the seed hash and both coordinate products, so `(seed ^ y term) ^ x term`
/// is the same number.
#[inline(always)]
fn perlin_2d_points_lanes<const FADE: u32>(pts: &SamplePoints, out: &mut [f32]) {
    #[inline(always)]
    fn sample<const FADE: u32>(x: f32, y: f32, cx: i32, cy: i32, seed: u32) -> f32 {
        let flx = super::floor(x);
        let fly = super::floor(y);
        let ix = cx.wrapping_add(super::to_i32(flx));
        let iy = cy.wrapping_add(super::to_i32(fly));
        let fx = x - flx;
        let fy = y - fly;
        let x0 = (ix as u32).wrapping_mul(HASH_PRIME_X);
        let x1 = (ix.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_X);
        let y0 = seed ^ (iy as u32).wrapping_mul(HASH_PRIME_Y);
        let y1 = seed ^ (iy.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_Y);
        let a = perlin_grad_2d(hash_finish(y0 ^ x0), [fx, fy], GRADIENTS_IMPROVED);
        let b = perlin_grad_2d(hash_finish(y0 ^ x1), [fx - 1.0, fy], GRADIENTS_IMPROVED);
        let c = perlin_grad_2d(hash_finish(y1 ^ x0), [fx, fy - 1.0], GRADIENTS_IMPROVED);
        let d = perlin_grad_2d(
            hash_finish(y1 ^ x1),
            [fx - 1.0, fy - 1.0],
            GRADIENTS_IMPROVED,
        );
        let ux = fade(fx, FADE);
        let uy = fade(fy, FADE);
        lerp(lerp(a, b, ux), lerp(c, d, ux), uy)
    }
    let n = out.len();
    let (x, y) = (&pts.local[0][..n], &pts.local[1][..n]);
    let seed = pts.seed;
    match pts.cells {
        None => {
            let [cx, cy, ..] = pts.cell;
            for (i, o) in out.iter_mut().enumerate() {
                *o = sample::<FADE>(x[i], y[i], cx, cy, seed);
            }
        }
        Some(cells) => {
            let (cx, cy) = (&cells[0][..n], &cells[1][..n]);
            for (i, o) in out.iter_mut().enumerate() {
                *o = sample::<FADE>(x[i], y[i], cx[i], cy[i], seed);
            }
        }
    }
}

/// `perlin_2d_grad` or `perlin_3d_grad` (by `dims`) at one sample point: the family's point
/// gradient sampler.
#[inline(always)]
pub fn perlin_grad_at(dims: u32, p: &SamplePoint, fade_kind: u32, gradients: u32) -> NoiseGrad {
    NoiseGrad::from_xyz(if dims == 2 {
        perlin_2d_grad(
            xy(p.cell),
            xy(p.local),
            p.seed,
            xy(p.period),
            fade_kind,
            gradients,
        )
    } else {
        perlin_3d_grad(
            xyz(p.cell),
            xyz(p.local),
            p.seed,
            xyz(p.period),
            fade_kind,
            gradients,
        )
    })
}

/// [`perlin_grad_at`] in `DIMS` with the improved gradients and no period, the fade a
/// constant: the lattice wrap folds away and nothing branches, so loops over it vectorize
/// (a branch on the dimension inside the loop kept it from vectorizing).
#[inline(always)]
fn perlin_grad_lane<const DIMS: u32, const FADE: u32>(p: &SamplePoint) -> NoiseGrad {
    NoiseGrad::from_xyz(if DIMS == 2 {
        perlin_2d_grad(
            xy(p.cell),
            xy(p.local),
            p.seed,
            [0; 2],
            FADE,
            GRADIENTS_IMPROVED,
        )
    } else {
        perlin_3d_grad(
            xyz(p.cell),
            xyz(p.local),
            p.seed,
            [0; 3],
            FADE,
            GRADIENTS_IMPROVED,
        )
    })
}

/// The gradient along a row of samples (see `family::SampleRow`), bit for bit
/// [`perlin_grad_at`]'s: vectorized for the improved gradients without a period, else point
/// by point.
pub fn perlin_grad_row(
    dims: u32,
    row: &SampleRow,
    fade_kind: u32,
    gradients: u32,
    out: &mut GradSamples,
) {
    if gradients != GRADIENTS_IMPROVED || row.period[..dims as usize].iter().any(|&p| p != 0) {
        out.fill_pointwise(|i| perlin_grad_at(dims, &row.point(i), fade_kind, gradients));
        return;
    }
    if dims == 2 {
        return super::vectorized_by_fade!(fade_kind, perlin_2d_grad_row_lanes(row, out));
    }
    super::vectorized_by_fade!(fade_kind, perlin_3d_grad_row_lanes(row, out))
}

/// The body of `perlin_2d_grad` with the improved gradients and no period along a row, in
/// scalars (the arrays of `lerp_grad` kept LLVM from vectorizing the loop across samples):
/// the same operations in the same order, the zero terms of `lerp_grad` included, so the
/// same bits. The y half of the work and the y hash terms are done once per row.
#[inline(always)]
fn perlin_2d_grad_row_lanes<const FADE: u32>(row: &SampleRow, out: &mut GradSamples) {
    let ly = row.local[1];
    let fly = super::floor(ly);
    let iy = row.cell[1].wrapping_add(super::to_i32(fly));
    let fy = ly - fly;
    let uy = fade(fy, FADE);
    let sy = fade_slope(fy, FADE);
    let y0 = row.seed ^ (iy as u32).wrapping_mul(HASH_PRIME_Y);
    let y1 = row.seed ^ (iy.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_Y);
    let n = out.len();
    let value = &mut out.value[..n];
    let [d0, d1, d2, d3] = &mut out.d;
    let (d0, d1, d2, d3) = (&mut d0[..n], &mut d1[..n], &mut d2[..n], &mut d3[..n]);
    let (xs, cells_x) = (&row.local_x[..n], &row.cells_x[..n]);
    for i in 0..n {
        let x = xs[i];
        let flx = super::floor(x);
        let ix = cells_x[i].wrapping_add(super::to_i32(flx));
        let fx = x - flx;
        let x0 = (ix as u32).wrapping_mul(HASH_PRIME_X);
        let x1 = (ix.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_X);
        // Corner value and gradient vector, as perlin_corner_grad_2d.
        let corner = |h: u32, dx: f32, dy: f32| {
            let n = perlin_grad_2d(h, [dx, dy], GRADIENTS_IMPROVED);
            let g = perlin_gradient_2d(h, GRADIENTS_IMPROVED);
            (n, g[0], g[1])
        };
        let (na, gax, gay) = corner(hash_finish(y0 ^ x0), fx - 0.0, fy - 0.0);
        let (nb, gbx, gby) = corner(hash_finish(y0 ^ x1), fx - 1.0, fy - 0.0);
        let (nc, gcx, gcy) = corner(hash_finish(y1 ^ x0), fx - 0.0, fy - 1.0);
        let (nd, gdx, gdy) = corner(hash_finish(y1 ^ x1), fx - 1.0, fy - 1.0);
        let ux = fade(fx, FADE);
        let sx = fade_slope(fx, FADE);
        // lerp_grad along x (weight slope (sx, 0, 0)), for y = 0 and y = 1; the corners'
        // d/dz is 0 in 2D.
        let (gaz, gbz) = (0.0f32, 0.0f32);
        let along_x = |na: f32, gax: f32, gay: f32, nb: f32, gbx: f32, gby: f32| {
            let dv = nb - na;
            (
                lerp(na, nb, ux),
                gax + ux * (gbx - gax) + sx * dv,
                gay + ux * (gby - gay) + 0.0 * dv,
                gaz + ux * (gbz - gaz) + 0.0 * dv,
            )
        };
        let (v0, x0x, x0y, x0z) = along_x(na, gax, gay, nb, gbx, gby);
        let (v1, x1x, x1y, x1z) = along_x(nc, gcx, gcy, nd, gdx, gdy);
        // lerp_grad along y (weight slope (0, sy, 0)).
        let dv = v1 - v0;
        value[i] = lerp(v0, v1, uy);
        d0[i] = x0x + uy * (x1x - x0x) + 0.0 * dv;
        d1[i] = x0y + uy * (x1y - x0y) + sy * dv;
        d2[i] = x0z + uy * (x1z - x0z) + 0.0 * dv;
        d3[i] = 0.0;
    }
}

#[inline(always)]
fn perlin_3d_grad_row_lanes<const FADE: u32>(row: &SampleRow, out: &mut GradSamples) {
    out.fill_row_vectorized(row, perlin_grad_lane::<3, FADE>)
}

/// The gradient at the points of a warped stage's row (see `family::SamplePoints`), bit for
/// bit [`perlin_grad_at`]'s, vectorized like [`perlin_grad_row`].
pub fn perlin_grad_points(
    dims: u32,
    pts: &SamplePoints,
    fade_kind: u32,
    gradients: u32,
    out: &mut GradSamples,
) {
    if gradients != GRADIENTS_IMPROVED || pts.period[..dims as usize].iter().any(|&p| p != 0) {
        out.fill_pointwise(|i| perlin_grad_at(dims, &pts.point(i), fade_kind, gradients));
        return;
    }
    if dims == 2 {
        return super::vectorized_by_fade!(fade_kind, perlin_grad_points_lanes_2d(pts, out));
    }
    super::vectorized_by_fade!(fade_kind, perlin_grad_points_lanes_3d(pts, out))
}

#[inline(always)]
fn perlin_grad_points_lanes_2d<const FADE: u32>(pts: &SamplePoints, out: &mut GradSamples) {
    out.fill_points_vectorized(pts, perlin_grad_lane::<2, FADE>)
}

#[inline(always)]
fn perlin_grad_points_lanes_3d<const FADE: u32>(pts: &SamplePoints, out: &mut GradSamples) {
    out.fill_points_vectorized(pts, perlin_grad_lane::<3, FADE>)
}
