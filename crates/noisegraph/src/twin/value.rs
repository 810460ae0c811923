//! Value noise. Twin of `shaders/value.wgsl`.

use super::fade::{fade, fade_slope, lerp, lerp_grad};
use super::hash::{
    hash_2d, hash_3d, hash_finish, hash_to_signed, wrap_cell, HASH_PRIME_X, HASH_PRIME_Y,
};
use super::sample::{xy, xyz, GradSamples, NoiseGrad, SamplePoint, SamplePoints, SampleRow};

#[inline(always)]
fn value_corner_2d(c: [i32; 2], period: [i32; 2], seed_h: u32) -> f32 {
    hash_to_signed(hash_2d(
        [wrap_cell(c[0], period[0]), wrap_cell(c[1], period[1])],
        seed_h,
    ))
}

/// CPU twin of `value_2d` in shaders/value.wgsl.
#[inline(always)]
pub fn value_2d(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    fade_kind: u32,
) -> f32 {
    let fl = local.map(super::floor);
    let i = [
        cell[0].wrapping_add(super::to_i32(fl[0])),
        cell[1].wrapping_add(super::to_i32(fl[1])),
    ];
    let f = [local[0] - fl[0], local[1] - fl[1]];
    let a = value_corner_2d(i, period, seed_h);
    let b = value_corner_2d([i[0].wrapping_add(1), i[1]], period, seed_h);
    let c = value_corner_2d([i[0], i[1].wrapping_add(1)], period, seed_h);
    let d = value_corner_2d([i[0].wrapping_add(1), i[1].wrapping_add(1)], period, seed_h);
    let ux = fade(f[0], fade_kind);
    let uy = fade(f[1], fade_kind);
    lerp(lerp(a, b, ux), lerp(c, d, ux), uy)
}

/// `value_2d` along a row of samples (see `family::SampleRow`), bit for bit the same numbers:
/// without a period the y half of the work is done once and the loop over samples has no
/// branches, so it vectorizes (16 or 8 samples wide with AVX-512 or AVX2, see
/// [`super::vectorized`]); with AVX-512, rows of x below 2^23 run a loop written with its
/// intrinsics (`avx512::value_2d_row_small`).
pub fn value_2d_row(row: &SampleRow, fade_kind: u32, out: &mut [f32]) {
    if row.period[0] != 0 || row.period[1] != 0 {
        row.fill_pointwise(out, |p| {
            value_2d(xy(p.cell), xy(p.local), p.seed, xy(p.period), fade_kind)
        });
        return;
    }
    super::vectorized_by_fade!(fade_kind, value_2d_row_lanes(row, out))
}

/// `hash_2d` xors the seed hash and both coordinate products, so `(seed ^ y term) ^ x term`
/// is the same number.
#[inline(always)]
fn value_2d_row_lanes<const FADE: u32>(row: &SampleRow, out: &mut [f32]) {
    if row.x_is_small(out.len()) {
        value_2d_row_split::<FADE, true>(row, out)
    } else {
        value_2d_row_split::<FADE, false>(row, out)
    }
}

/// [`value_2d_row_lanes`] with the x split of `split_cell::<SMALL_X>`.
#[inline(always)]
fn value_2d_row_split<const FADE: u32, const SMALL_X: bool>(row: &SampleRow, out: &mut [f32]) {
    let fly = super::floor(row.local[1]);
    let iy = row.cell[1].wrapping_add(super::to_i32(fly));
    let uy = fade(row.local[1] - fly, FADE);
    let y0 = row.seed ^ (iy as u32).wrapping_mul(HASH_PRIME_Y);
    let y1 = row.seed ^ (iy.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_Y);
    let n = out.len();
    let (xs, cells_x) = (&row.local_x[..n], &row.cells_x[..n]);
    for (i, o) in out.iter_mut().enumerate() {
        let x = xs[i];
        let (flx, cx) = super::split_cell::<SMALL_X>(x);
        let ix = cells_x[i].wrapping_add(cx);
        let x0 = (ix as u32).wrapping_mul(HASH_PRIME_X);
        let x1 = (ix.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_X);
        let a = hash_to_signed(hash_finish(y0 ^ x0));
        let b = hash_to_signed(hash_finish(y0 ^ x1));
        let c = hash_to_signed(hash_finish(y1 ^ x0));
        let d = hash_to_signed(hash_finish(y1 ^ x1));
        let ux = fade(x - flx, FADE);
        *o = lerp(lerp(a, b, ux), lerp(c, d, ux), uy);
    }
}

/// `value_3d` along a row of samples (see `family::SampleRow`), bit for bit the same numbers:
/// without a period `value_3d` has no branches, so the loop over the row vectorizes.
pub fn value_3d_row(row: &SampleRow, fade_kind: u32, out: &mut [f32]) {
    if row.period[..3].iter().any(|&p| p != 0) {
        row.fill_pointwise(out, |p| {
            value_3d(xyz(p.cell), xyz(p.local), p.seed, xyz(p.period), fade_kind)
        });
        return;
    }
    super::vectorized_by_fade!(fade_kind, value_3d_row_lanes(row, out))
}

#[inline(always)]
fn value_3d_row_lanes<const FADE: u32>(row: &SampleRow, out: &mut [f32]) {
    for (i, o) in out.iter_mut().enumerate() {
        let p = row.point(i);
        *o = value_3d(xyz(p.cell), xyz(p.local), p.seed, [0, 0, 0], FADE);
    }
}

#[inline(always)]
fn value_corner_3d(c: [i32; 3], period: [i32; 3], seed_h: u32) -> f32 {
    hash_to_signed(hash_3d(
        [
            wrap_cell(c[0], period[0]),
            wrap_cell(c[1], period[1]),
            wrap_cell(c[2], period[2]),
        ],
        seed_h,
    ))
}

/// CPU twin of `value_3d` in shaders/value.wgsl.
#[inline(always)]
pub fn value_3d(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    fade_kind: u32,
) -> f32 {
    let fl = local.map(super::floor);
    let i = [0, 1, 2].map(|k| cell[k].wrapping_add(super::to_i32(fl[k])));
    let f = [0, 1, 2].map(|k| local[k] - fl[k]);
    let ux = fade(f[0], fade_kind);
    let uy = fade(f[1], fade_kind);
    let uz = fade(f[2], fade_kind);
    let corner = |dx: i32, dy: i32, dz: i32| {
        value_corner_3d(
            [
                i[0].wrapping_add(dx),
                i[1].wrapping_add(dy),
                i[2].wrapping_add(dz),
            ],
            period,
            seed_h,
        )
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
    lerp(z0, z1, uz)
}

// ---- Analytic gradients: `[value, d/dx, d/dy, d/dz]` with respect to `local`; the value is
// the number the plain function returns.

/// CPU twin of `value_2d_grad` in shaders/value.wgsl: `[value, d/dx, d/dy, 0]`.
#[inline(always)]
pub fn value_2d_grad(
    cell: [i32; 2],
    local: [f32; 2],
    seed_h: u32,
    period: [i32; 2],
    fade_kind: u32,
) -> [f32; 4] {
    let fl = super::each2(|k| super::floor(local[k]));
    let i = [
        cell[0].wrapping_add(super::to_i32(fl[0])),
        cell[1].wrapping_add(super::to_i32(fl[1])),
    ];
    let f = [local[0] - fl[0], local[1] - fl[1]];
    let corner = |dx: i32, dy: i32| {
        let v = value_corner_2d(
            [i[0].wrapping_add(dx), i[1].wrapping_add(dy)],
            period,
            seed_h,
        );
        [v, 0.0, 0.0, 0.0]
    };
    let ux = fade(f[0], fade_kind);
    let uy = fade(f[1], fade_kind);
    let dx = [fade_slope(f[0], fade_kind), 0.0, 0.0];
    let dy = [0.0, fade_slope(f[1], fade_kind), 0.0];
    lerp_grad(
        lerp_grad(corner(0, 0), corner(1, 0), ux, dx),
        lerp_grad(corner(0, 1), corner(1, 1), ux, dx),
        uy,
        dy,
    )
}

#[inline(always)]
fn value_corner_grad_3d(c: [i32; 3], period: [i32; 3], seed_h: u32) -> [f32; 4] {
    [value_corner_3d(c, period, seed_h), 0.0, 0.0, 0.0]
}

/// CPU twin of `value_3d_grad` in shaders/value.wgsl: `[value, d/dx, d/dy, d/dz]`.
#[inline(always)]
pub fn value_3d_grad(
    cell: [i32; 3],
    local: [f32; 3],
    seed_h: u32,
    period: [i32; 3],
    fade_kind: u32,
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
    let corner = |o: [i32; 3]| {
        value_corner_grad_3d(super::each3(|k| i[k].wrapping_add(o[k])), period, seed_h)
    };
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

/// `value_2d` and `value_3d` at the points of a warped stage's row (see
/// `family::SamplePoints`), bit for bit the same numbers: without a period, in a loop the
/// compiler vectorizes (the fade curve a constant); otherwise point by point.
pub fn value_points(dims: u32, pts: &SamplePoints, fade_kind: u32, out: &mut [f32]) {
    if pts.period[..dims as usize].iter().any(|&p| p != 0) {
        pts.fill_pointwise(out, |p| match dims {
            2 => value_2d(xy(p.cell), xy(p.local), p.seed, xy(p.period), fade_kind),
            _ => value_3d(xyz(p.cell), xyz(p.local), p.seed, xyz(p.period), fade_kind),
        });
        return;
    }
    super::vectorized_by_fade!(fade_kind, value_points_lanes(dims, pts, out))
}

/// `value_points` without a period: the constant 0 lets the lattice wrap fold away. The
/// dimension is chosen outside the loop (a `match` inside it kept the loop scalar).
#[inline(always)]
fn value_points_lanes<const FADE: u32>(dims: u32, pts: &SamplePoints, out: &mut [f32]) {
    if dims == 2 {
        pts.fill_vectorized(
            out,
            #[inline(always)]
            |p| value_2d(xy(p.cell), xy(p.local), p.seed, [0; 2], FADE),
        )
    } else {
        pts.fill_vectorized(
            out,
            #[inline(always)]
            |p| value_3d(xyz(p.cell), xyz(p.local), p.seed, [0; 3], FADE),
        )
    }
}

/// `value_2d_grad` or `value_3d_grad` (by `dims`) at one sample point: the family's point
/// gradient sampler.
#[inline(always)]
pub fn value_grad_at(dims: u32, p: &SamplePoint, fade_kind: u32) -> NoiseGrad {
    NoiseGrad::from_xyz(match dims {
        2 => value_2d_grad(xy(p.cell), xy(p.local), p.seed, xy(p.period), fade_kind),
        _ => value_3d_grad(xyz(p.cell), xyz(p.local), p.seed, xyz(p.period), fade_kind),
    })
}

/// [`value_grad_at`] in `DIMS` without a period, the fade a constant (vectorizes; a branch on
/// the dimension inside the loop kept it from vectorizing).
#[inline(always)]
fn value_grad_lane<const DIMS: u32, const FADE: u32>(p: &SamplePoint) -> NoiseGrad {
    NoiseGrad::from_xyz(if DIMS == 2 {
        value_2d_grad(xy(p.cell), xy(p.local), p.seed, [0; 2], FADE)
    } else {
        value_3d_grad(xyz(p.cell), xyz(p.local), p.seed, [0; 3], FADE)
    })
}

/// The gradient along a row of samples, bit for bit [`value_grad_at`]'s: vectorized without
/// a period, else point by point.
pub fn value_grad_row(dims: u32, row: &SampleRow, fade_kind: u32, out: &mut GradSamples) {
    if row.period[..dims as usize].iter().any(|&p| p != 0) {
        out.fill_pointwise(|i| value_grad_at(dims, &row.point(i), fade_kind));
        return;
    }
    if dims == 2 {
        return super::vectorized_by_fade!(fade_kind, value_grad_row_lanes_2d(row, out));
    }
    super::vectorized_by_fade!(fade_kind, value_grad_row_lanes_3d(row, out))
}

#[inline(always)]
fn value_grad_row_lanes_2d<const FADE: u32>(row: &SampleRow, out: &mut GradSamples) {
    out.fill_row_vectorized(row, value_grad_lane::<2, FADE>)
}

#[inline(always)]
fn value_grad_row_lanes_3d<const FADE: u32>(row: &SampleRow, out: &mut GradSamples) {
    out.fill_row_vectorized(row, value_grad_lane::<3, FADE>)
}

/// The gradient at the points of a warped stage's row, bit for bit [`value_grad_at`]'s,
/// vectorized like [`value_grad_row`].
pub fn value_grad_points(dims: u32, pts: &SamplePoints, fade_kind: u32, out: &mut GradSamples) {
    if pts.period[..dims as usize].iter().any(|&p| p != 0) {
        out.fill_pointwise(|i| value_grad_at(dims, &pts.point(i), fade_kind));
        return;
    }
    if dims == 2 {
        return super::vectorized_by_fade!(fade_kind, value_grad_points_lanes_2d(pts, out));
    }
    super::vectorized_by_fade!(fade_kind, value_grad_points_lanes_3d(pts, out))
}

#[inline(always)]
fn value_grad_points_lanes_2d<const FADE: u32>(pts: &SamplePoints, out: &mut GradSamples) {
    out.fill_points_vectorized(pts, value_grad_lane::<2, FADE>)
}

#[inline(always)]
fn value_grad_points_lanes_3d<const FADE: u32>(pts: &SamplePoints, out: &mut GradSamples) {
    out.fill_points_vectorized(pts, value_grad_lane::<3, FADE>)
}
