//! Row loops written with AVX-512 intrinsics, for the lattice twins whose compiled loops leave
//! work on the table: Perlin's 2D gradient is picked by one permute per coordinate from a
//! table of its eight directions, where the compiled twin blends and flips the offsets (five
//! instructions per corner fewer). Each loop gives the twin's numbers bit for bit (the sampler
//! tests compare every width with the point sampler): the same operations on the same
//! operands, in the same order, never fused into an FMA.

use std::arch::x86_64::*;

use crate::twin::fade::{fade, FADE_CUBIC, FADE_QUINTIC};
use crate::twin::hash::{HASH_FINISH, HASH_PRIME_X, HASH_PRIME_Y};
use crate::twin::sample::SampleRow;

/// `_mm512_roundscale_ps` rounding toward negative infinity, without exceptions.
const FLOOR: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;

/// `fade(t, FADE)` on 16 lanes: the twin's expressions in its order.
#[inline(always)]
pub(crate) fn fade16<const FADE: u32>(t: __m512) -> __m512 {
    // SAFETY (all intrinsics below): the callers are compiled with AVX-512F.
    unsafe {
        if FADE == FADE_QUINTIC {
            // t * t * t * (t * (t * 6.0 - 15.0) + 10.0)
            let t3 = _mm512_mul_ps(_mm512_mul_ps(t, t), t);
            let inner = _mm512_sub_ps(_mm512_mul_ps(t, _mm512_set1_ps(6.0)), _mm512_set1_ps(15.0));
            let poly = _mm512_add_ps(_mm512_mul_ps(t, inner), _mm512_set1_ps(10.0));
            _mm512_mul_ps(t3, poly)
        } else if FADE == FADE_CUBIC {
            // t * t * (3.0 - 2.0 * t)
            let t2 = _mm512_mul_ps(t, t);
            _mm512_mul_ps(
                t2,
                _mm512_sub_ps(_mm512_set1_ps(3.0), _mm512_mul_ps(_mm512_set1_ps(2.0), t)),
            )
        } else {
            t
        }
    }
}

/// `lerp(a, b, t)`: a + t * (b - a).
#[inline(always)]
pub(crate) fn lerp16(a: __m512, b: __m512, t: __m512) -> __m512 {
    // SAFETY: see `fade16`.
    unsafe { _mm512_add_ps(a, _mm512_mul_ps(t, _mm512_sub_ps(b, a))) }
}

/// `hash_finish(v)`: one multiply, then the high bits folded into the low ones.
#[inline(always)]
pub(crate) fn hash_finish16(v: __m512i) -> __m512i {
    // SAFETY: see `fade16`.
    unsafe {
        let m = _mm512_mullo_epi32(v, _mm512_set1_epi32(HASH_FINISH as i32));
        _mm512_xor_si512(m, _mm512_srli_epi32::<15>(m))
    }
}

/// The x coordinate of samples `i..i + 16` of `row` (as `SampleRow::x_at`; 0 past its end).
#[inline(always)]
fn row_x16(row: &SampleRow, i: usize) -> __m512 {
    let left = row.local_x.len() - i;
    // SAFETY: see `fade16`; at most `left` lanes are read, all inside `local_x`.
    unsafe {
        let at = row.local_x.as_ptr().add(i);
        if left >= 16 {
            _mm512_loadu_ps(at)
        } else {
            _mm512_maskz_loadu_ps((1u16 << left) - 1, at)
        }
    }
}

/// The x cells of samples `i..i + 16` of `row` (as `SampleRow::cell_x`; 0 past its end).
#[inline(always)]
fn row_cells16(row: &SampleRow, i: usize) -> __m512i {
    let left = row.cells_x.len() - i;
    // SAFETY: see `fade16`; at most `left` lanes are read, all inside `cells_x`.
    unsafe {
        let at = row.cells_x.as_ptr().add(i);
        if left >= 16 {
            _mm512_loadu_si512(at.cast())
        } else {
            _mm512_maskz_loadu_epi32((1u16 << left) - 1, at)
        }
    }
}

/// The offsets in their cells and the x cells of samples `i..i + 16` of `row`: with `UNIT`
/// (`SampleRow::x_unit`, every offset in [0, 1), where `split_small16` gives +0 and cell 0)
/// the table's numbers as they are, else `local_x` split and its cell added.
#[inline(always)]
fn row_split16<const UNIT: bool>(row: &SampleRow, i: usize) -> (__m512, __m512i) {
    let x = row_x16(row, i);
    let cells = row_cells16(row, i);
    if UNIT {
        (x, cells)
    } else {
        let (flx, cx) = split_small16(x);
        // SAFETY: see `fade16`.
        unsafe { (_mm512_sub_ps(x, flx), _mm512_add_epi32(cells, cx)) }
    }
}

/// `split_cell::<true>(x)`: floor and cell of coordinates below 2^23 in magnitude. The
/// rounding instruction gives IEEE floor, which differs from the twins' `floor` only in
/// keeping -0 negative; adding +0 makes it +0 as theirs (and changes no other number).
#[inline(always)]
pub(crate) fn split_small16(x: __m512) -> (__m512, __m512i) {
    // SAFETY: see `fade16`.
    unsafe {
        let fl = _mm512_add_ps(_mm512_roundscale_ps::<FLOOR>(x), _mm512_setzero_ps());
        (fl, _mm512_cvttps_epi32(fl))
    }
}

/// For a row whose x coordinates are below 2^23 in magnitude (`SampleRow::x_is_small`): the
/// lowest cell of its samples (`cell_x` plus `split_cell`'s integer) when every sample's cell
/// and the next one lie within 16 cells from it, so that per-cell tables of 16 lanes hold
/// every corner. The cells of an exact split are monotonic along the row
/// (`SampleRow::cells_monotonic`), so the two ends decide.
fn row_cells_within_16(row: &SampleRow, n: usize) -> Option<i32> {
    let last = n.checked_sub(1)?;
    if !row.cells_monotonic {
        return None;
    }
    let cell = |i: usize| {
        let split = if row.x_unit {
            0
        } else {
            crate::twin::split_cell::<true>(row.x_at(i)).1
        };
        row.cell_x(i).wrapping_add(split)
    };
    let (a, b) = (cell(0), cell(last));
    (a.abs_diff(b) <= 14).then_some(a.min(b))
}

/// Writes `v` to `out[i..]`, whole or its first `out.len() - i` lanes.
#[inline(always)]
pub(crate) fn store16(out: &mut [f32], i: usize, v: __m512) {
    let left = out.len() - i;
    // SAFETY: at most `left` lanes are written, all inside `out`.
    unsafe {
        if left >= 16 {
            _mm512_storeu_ps(out.as_mut_ptr().add(i), v);
        } else {
            _mm512_mask_storeu_ps(out.as_mut_ptr().add(i), (1u16 << left) - 1, v);
        }
    }
}

/// The improved 2D gradient of each hash's low three bits (see `perlin_grad_2d`): bit 0 flips
/// the x component, bit 1 the y component, bit 2 swaps the two magnitudes. Sixteen entries,
/// as the permute reads four bits; the upper eight repeat the lower.
const fn perlin_gradients_2d() -> ([f32; 16], [f32; 16]) {
    use crate::twin::perlin::{GRAD2_COS, GRAD2_SIN};
    let mut gx = [0.0; 16];
    let mut gy = [0.0; 16];
    let mut j = 0;
    while j < 16 {
        let swap = j & 4 != 0;
        let (mx, my) = if swap {
            (GRAD2_SIN, GRAD2_COS)
        } else {
            (GRAD2_COS, GRAD2_SIN)
        };
        gx[j] = if j & 1 != 0 { -mx } else { mx };
        gy[j] = if j & 2 != 0 { -my } else { my };
        j += 1;
    }
    (gx, gy)
}
pub(crate) const PERLIN_GRADIENTS_2D: ([f32; 16], [f32; 16]) = perlin_gradients_2d();

/// `perlin_2d_row_lanes` (improved gradients, no period) for a row whose x coordinates are
/// all below 2^23 in magnitude (`SampleRow::x_is_small`).
///
/// The twin's corner is `select(sx, sy, swap) * COS + select(sy, sx, swap) * SIN` with `sx`,
/// `sy` the offsets with the hash's sign bits: the same two products as `dx * gx + dy * gy`
/// with the signed magnitudes of the table (a sign moves between the factors of a product
/// exactly), summed in the other order when swapped (addition commutes exactly).
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
pub fn perlin_2d_row_small<const FADE: u32, const UNIT: bool>(row: &SampleRow, out: &mut [f32]) {
    let ly = row.local[1];
    let fly = crate::twin::floor(ly);
    let iy = row.cell[1].wrapping_add(crate::twin::to_i32(fly));
    let fy = ly - fly;
    let uy = fade(fy, FADE);
    let y0 = row.seed ^ (iy as u32).wrapping_mul(HASH_PRIME_Y);
    let y1 = row.seed ^ (iy.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_Y);

    // SAFETY: the tables are 16 floats each.
    let (gx, gy) = unsafe {
        (
            _mm512_loadu_ps(PERLIN_GRADIENTS_2D.0.as_ptr()),
            _mm512_loadu_ps(PERLIN_GRADIENTS_2D.1.as_ptr()),
        )
    };
    let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let prime_x = _mm512_set1_epi32(HASH_PRIME_X as i32);
    let (y0, y1) = (_mm512_set1_epi32(y0 as i32), _mm512_set1_epi32(y1 as i32));
    let (fy0, fy1) = (_mm512_set1_ps(fy), _mm512_set1_ps(fy - 1.0));
    let (one, uy) = (_mm512_set1_ps(1.0), _mm512_set1_ps(uy));
    // The corner's gradient dotted with its offset.
    let corner = |h: __m512i, dx: __m512, dy: __m512| {
        _mm512_add_ps(
            _mm512_mul_ps(dx, _mm512_permutexvar_ps(h, gx)),
            _mm512_mul_ps(dy, _mm512_permutexvar_ps(h, gy)),
        )
    };
    if let Some(first) = row_cells_within_16(row, out.len()) {
        // Per y, the gradients of the row's 16 cells, so that a sample's corner takes two
        // permutes by its cell and no hash.
        let x0 = _mm512_mullo_epi32(_mm512_add_epi32(_mm512_set1_epi32(first), lane), prime_x);
        let tables = |y: __m512i| {
            let h = hash_finish16(_mm512_xor_si512(y, x0));
            (_mm512_permutexvar_ps(h, gx), _mm512_permutexvar_ps(h, gy))
        };
        let (row0, row1) = (tables(y0), tables(y1));
        let corner = |(tx, ty): (__m512, __m512), at: __m512i, dx: __m512, dy: __m512| {
            _mm512_add_ps(
                _mm512_mul_ps(dx, _mm512_permutexvar_ps(at, tx)),
                _mm512_mul_ps(dy, _mm512_permutexvar_ps(at, ty)),
            )
        };
        let (first, next) = (_mm512_set1_epi32(first), _mm512_set1_epi32(1));
        for i in (0..out.len()).step_by(16) {
            let (fx0, ix) = row_split16::<UNIT>(row, i);
            let at0 = _mm512_sub_epi32(ix, first);
            let at1 = _mm512_add_epi32(at0, next);
            let fx1 = _mm512_sub_ps(fx0, one);
            let a = corner(row0, at0, fx0, fy0);
            let b = corner(row0, at1, fx1, fy0);
            let c = corner(row1, at0, fx0, fy1);
            let d = corner(row1, at1, fx1, fy1);
            let ux = fade16::<FADE>(fx0);
            store16(out, i, lerp16(lerp16(a, b, ux), lerp16(c, d, ux), uy));
        }
        return;
    }
    for i in (0..out.len()).step_by(16) {
        let (fx0, ix) = row_split16::<UNIT>(row, i);
        let fx1 = _mm512_sub_ps(fx0, one);
        let x0 = _mm512_mullo_epi32(ix, prime_x);
        let x1 = _mm512_add_epi32(x0, prime_x);
        let a = corner(hash_finish16(_mm512_xor_si512(y0, x0)), fx0, fy0);
        let b = corner(hash_finish16(_mm512_xor_si512(y0, x1)), fx1, fy0);
        let c = corner(hash_finish16(_mm512_xor_si512(y1, x0)), fx0, fy1);
        let d = corner(hash_finish16(_mm512_xor_si512(y1, x1)), fx1, fy1);
        let ux = fade16::<FADE>(fx0);
        store16(out, i, lerp16(lerp16(a, b, ux), lerp16(c, d, ux), uy));
    }
}

/// For each hash's low four bits `k` (see `perlin_grad_3d`): bit 31 flips the x offset when
/// the gradient has an x component, bit 0 says whether it has one (k < 8: x is `u`, signed by
/// bit 0 of `k`; k = 12 or 14: x is `v`, signed by bit 1; the others have none).
const fn perlin_x_terms_3d() -> [i32; 16] {
    let mut w = [0; 16];
    let mut k = 0;
    while k < 16 {
        let (has_x, flip) = if k < 8 {
            (true, k & 1 != 0)
        } else if k == 12 || k == 14 {
            (true, k & 2 != 0)
        } else {
            (false, false)
        };
        w[k] = (if flip { i32::MIN } else { 0 }) | has_x as i32;
        k += 1;
    }
    w
}
const PERLIN_X_TERMS_3D: [i32; 16] = perlin_x_terms_3d();

/// The part of `su + sv` in `perlin_grad_3d` without x, for each `k`, at the y and z offsets
/// `dy`, `dz` of one corner (constant along a row): `sv` when `u` is x, `su` when `v` is x,
/// and the whole `su + sv` (the same sum of the same terms) when the gradient has no x.
fn perlin_other_terms_3d(dy: f32, dz: f32) -> [f32; 16] {
    let signed = |v: f32, flip: bool| if flip { -v } else { v };
    std::array::from_fn(|k| {
        let (b0, b1) = (k & 1 != 0, k & 2 != 0);
        match k {
            0..=3 => signed(dy, b1),
            4..=7 => signed(dz, b1),
            12 | 14 => signed(dy, b0),
            _ => signed(dy, b0) + signed(dz, b1),
        }
    })
}

/// `perlin_3d_row_lanes` (improved gradients, no period) for a row whose x coordinates are
/// all below 2^23 in magnitude (`SampleRow::x_is_small`).
///
/// The twin's corner is `(su + sv) * INV_SQRT2`, `su` and `sv` two of the offsets picked and
/// signed by the hash. Along a row y and z are constant, so each corner's part without x is
/// one of 16 numbers per row, picked by a permute; the x offset, signed by a permuted sign
/// bit, is added where the gradient has an x component (`su + sv` in the twin's order, or in
/// the other, which gives the same bits).
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
pub fn perlin_3d_row_small<const FADE: u32, const UNIT: bool>(row: &SampleRow, out: &mut [f32]) {
    use crate::twin::hash::HASH_PRIME_Z;
    let axis = |k: usize| {
        let fl = crate::twin::floor(row.local[k]);
        (
            row.cell[k].wrapping_add(crate::twin::to_i32(fl)),
            row.local[k] - fl,
        )
    };
    let (iy, fy) = axis(1);
    let (iz, fz) = axis(2);
    let uy = _mm512_set1_ps(fade(fy, FADE));
    let uz = _mm512_set1_ps(fade(fz, FADE));
    let y = [iy, iy.wrapping_add(1)].map(|c| (c as u32).wrapping_mul(HASH_PRIME_Y));
    let z = [iz, iz.wrapping_add(1)].map(|c| (c as u32).wrapping_mul(HASH_PRIME_Z));
    // Per corner (dy, dz): the seed and (y, z) hash terms, and the table of parts without x
    // at offsets (fy - dy, fz - dz).
    let yz_hash = |dy: usize, dz: usize| _mm512_set1_epi32((row.seed ^ y[dy] ^ z[dz]) as i32);
    let other = |dy: usize, dz: usize| {
        let table = perlin_other_terms_3d(fy - dy as f32, fz - dz as f32);
        // SAFETY: the table holds 16 floats.
        unsafe { _mm512_loadu_ps(table.as_ptr()) }
    };
    let (h00, h10, h01, h11) = (yz_hash(0, 0), yz_hash(1, 0), yz_hash(0, 1), yz_hash(1, 1));
    let (t00, t10, t01, t11) = (other(0, 0), other(1, 0), other(0, 1), other(1, 1));
    // SAFETY: the table holds 16 integers.
    let x_terms = unsafe { _mm512_loadu_si512(PERLIN_X_TERMS_3D.as_ptr().cast()) };
    let sign = _mm512_set1_epi32(i32::MIN);
    let has_x = _mm512_set1_epi32(1);
    let inv_sqrt2 = _mm512_set1_ps(std::f32::consts::FRAC_1_SQRT_2);
    let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let prime_x = _mm512_set1_epi32(HASH_PRIME_X as i32);
    let one = _mm512_set1_ps(1.0);
    let corner = |yz: __m512i, xh: __m512i, dx: __m512, others: __m512| {
        let h = hash_finish16(_mm512_xor_si512(yz, xh));
        let w = _mm512_permutexvar_epi32(h, x_terms);
        let flip = _mm512_and_si512(w, sign);
        let sx = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(dx), flip));
        let rest = _mm512_permutexvar_ps(h, others);
        let with_x = _mm512_test_epi32_mask(w, has_x);
        _mm512_mul_ps(_mm512_mask_add_ps(rest, with_x, sx, rest), inv_sqrt2)
    };
    if let Some(first) = row_cells_within_16(row, out.len()) {
        // Per (y, z) corner, the permuted x term and other terms of each of the row's 16
        // cells, so that a sample's corner takes two permutes by its cell and no hash.
        let x0 = _mm512_mullo_epi32(_mm512_add_epi32(_mm512_set1_epi32(first), lane), prime_x);
        let tables = |yz: __m512i, others: __m512| {
            let h = hash_finish16(_mm512_xor_si512(yz, x0));
            (
                _mm512_permutexvar_epi32(h, x_terms),
                _mm512_permutexvar_ps(h, others),
            )
        };
        let cells = [
            tables(h00, t00),
            tables(h10, t10),
            tables(h01, t01),
            tables(h11, t11),
        ];
        let corner = |(w, rest): (__m512i, __m512), at: __m512i, dx: __m512| {
            let w = _mm512_permutexvar_epi32(at, w);
            let flip = _mm512_and_si512(w, sign);
            let sx = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(dx), flip));
            let rest = _mm512_permutexvar_ps(at, rest);
            let with_x = _mm512_test_epi32_mask(w, has_x);
            _mm512_mul_ps(_mm512_mask_add_ps(rest, with_x, sx, rest), inv_sqrt2)
        };
        let (first, next) = (_mm512_set1_epi32(first), _mm512_set1_epi32(1));
        for i in (0..out.len()).step_by(16) {
            let (fx0, ix) = row_split16::<UNIT>(row, i);
            let at0 = _mm512_sub_epi32(ix, first);
            let at1 = _mm512_add_epi32(at0, next);
            let fx1 = _mm512_sub_ps(fx0, one);
            let ux = fade16::<FADE>(fx0);
            let z0 = lerp16(
                lerp16(corner(cells[0], at0, fx0), corner(cells[0], at1, fx1), ux),
                lerp16(corner(cells[1], at0, fx0), corner(cells[1], at1, fx1), ux),
                uy,
            );
            let z1 = lerp16(
                lerp16(corner(cells[2], at0, fx0), corner(cells[2], at1, fx1), ux),
                lerp16(corner(cells[3], at0, fx0), corner(cells[3], at1, fx1), ux),
                uy,
            );
            store16(out, i, lerp16(z0, z1, uz));
        }
        return;
    }
    for i in (0..out.len()).step_by(16) {
        let (fx0, ix) = row_split16::<UNIT>(row, i);
        let fx1 = _mm512_sub_ps(fx0, one);
        let x0 = _mm512_mullo_epi32(ix, prime_x);
        let x1 = _mm512_add_epi32(x0, prime_x);
        let ux = fade16::<FADE>(fx0);
        let z0 = lerp16(
            lerp16(corner(h00, x0, fx0, t00), corner(h00, x1, fx1, t00), ux),
            lerp16(corner(h10, x0, fx0, t10), corner(h10, x1, fx1, t10), ux),
            uy,
        );
        let z1 = lerp16(
            lerp16(corner(h01, x0, fx0, t01), corner(h01, x1, fx1, t01), ux),
            lerp16(corner(h11, x0, fx0, t11), corner(h11, x1, fx1, t11), ux),
            uy,
        );
        store16(out, i, lerp16(z0, z1, uz));
    }
}

/// Whether `simplex_2d_row_small` may take `row` of `n` samples: both skewed coordinates
/// `local + (x + y) * F2` are below 2^23 in magnitude at every sample, so each floor is the
/// rounding instruction's and its cell fits a truncation.
pub fn simplex_2d_row_is_small(row: &SampleRow, n: usize) -> bool {
    use crate::twin::simplex::SIMPLEX_F2;
    let small = |x: f32| {
        let s = (x + row.local[1]) * SIMPLEX_F2;
        (x + s).abs() < crate::twin::SMALL_COORDINATE
            && (row.local[1] + s).abs() < crate::twin::SMALL_COORDINATE
    };
    row.local_x.len() >= n && row.local_x[..n].iter().fold(true, |all, &x| all & small(x))
}

/// `simplex_2d` along a row for which [`simplex_2d_row_is_small`] holds: the twin's operations
/// in its order on 16 samples at a time. The three corners' hashes share two multiplies (the
/// products of the next cell are the first cell's plus the prime, exactly, in wrapping
/// arithmetic), and each gradient is picked by a permute from Perlin's table (the same two
/// products as the twin's selects, see `perlin_2d_row_small`).
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
pub fn simplex_2d_row_small(row: &SampleRow, out: &mut [f32]) {
    use crate::twin::simplex::{SIMPLEX_F2, SIMPLEX_G2, SIMPLEX_R2, SIMPLEX_SCALE_2D};
    // SAFETY: the tables are 16 floats each.
    let (gx, gy) = unsafe {
        (
            _mm512_loadu_ps(PERLIN_GRADIENTS_2D.0.as_ptr()),
            _mm512_loadu_ps(PERLIN_GRADIENTS_2D.1.as_ptr()),
        )
    };
    let cell_y = _mm512_set1_epi32(row.cell[1]);
    let prime_x = _mm512_set1_epi32(HASH_PRIME_X as i32);
    let prime_y = _mm512_set1_epi32(HASH_PRIME_Y as i32);
    let seed = _mm512_set1_epi32(row.seed as i32);
    let y = _mm512_set1_ps(row.local[1]);
    let (f2, g2) = (_mm512_set1_ps(SIMPLEX_F2), _mm512_set1_ps(SIMPLEX_G2));
    let c2 = _mm512_set1_ps(1.0 - 2.0 * SIMPLEX_G2);
    let (r2, zero, one) = (
        _mm512_set1_ps(SIMPLEX_R2),
        _mm512_setzero_ps(),
        _mm512_set1_ps(1.0),
    );
    let scale = _mm512_set1_ps(SIMPLEX_SCALE_2D);
    // `simplex_corner_2d`: (r^2 - |d|^2)^4 (at least 0) times the gradient dotted with d.
    let corner = |dx: __m512, dy: __m512, xh: __m512i, yh: __m512i| {
        let h = hash_finish16(_mm512_xor_si512(_mm512_xor_si512(seed, xh), yh));
        let t = _mm512_max_ps(
            _mm512_sub_ps(
                r2,
                _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
            ),
            zero,
        );
        let t2 = _mm512_mul_ps(t, t);
        let g = _mm512_add_ps(
            _mm512_mul_ps(dx, _mm512_permutexvar_ps(h, gx)),
            _mm512_mul_ps(dy, _mm512_permutexvar_ps(h, gy)),
        );
        _mm512_mul_ps(_mm512_mul_ps(t2, t2), g)
    };
    for i in (0..out.len()).step_by(16) {
        let x = row_x16(row, i);
        let s = _mm512_mul_ps(_mm512_add_ps(x, y), f2);
        let (flx, cx) = split_small16(_mm512_add_ps(x, s));
        let (fly, cy) = split_small16(_mm512_add_ps(y, s));
        let t = _mm512_mul_ps(_mm512_add_ps(flx, fly), g2);
        let d0x = _mm512_sub_ps(x, _mm512_sub_ps(flx, t));
        let d0y = _mm512_sub_ps(y, _mm512_sub_ps(fly, t));
        // o = [1, 0] where d0.x > d0.y, else [0, 1].
        let x_first = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(d0x, d0y);
        let ox = _mm512_mask_blend_ps(x_first, zero, one);
        let oy = _mm512_mask_blend_ps(x_first, one, zero);
        let d1x = _mm512_add_ps(_mm512_sub_ps(d0x, ox), g2);
        let d1y = _mm512_add_ps(_mm512_sub_ps(d0y, oy), g2);
        let d2x = _mm512_sub_ps(d0x, c2);
        let d2y = _mm512_sub_ps(d0y, c2);
        let xh0 = _mm512_mullo_epi32(_mm512_add_epi32(row_cells16(row, i), cx), prime_x);
        let yh0 = _mm512_mullo_epi32(_mm512_add_epi32(cell_y, cy), prime_y);
        let xh2 = _mm512_add_epi32(xh0, prime_x);
        let yh2 = _mm512_add_epi32(yh0, prime_y);
        let xh1 = _mm512_mask_blend_epi32(x_first, xh0, xh2);
        let yh1 = _mm512_mask_blend_epi32(x_first, yh2, yh0);
        let n0 = corner(d0x, d0y, xh0, yh0);
        let n1 = corner(d1x, d1y, xh1, yh1);
        let n2 = corner(d2x, d2y, xh2, yh2);
        store16(
            out,
            i,
            _mm512_mul_ps(scale, _mm512_add_ps(_mm512_add_ps(n0, n1), n2)),
        );
    }
}

/// `value_2d_row_lanes` (no period) for a row whose x coordinates are all below 2^23 in
/// magnitude (`SampleRow::x_is_small`): the twin's operations in its order on 16 samples at a
/// time, the next cell's x product from the first one's plus the prime (exact in wrapping
/// arithmetic) and `hash_to_signed` with the signed conversion (its 24 bits fit).
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
pub fn value_2d_row_small<const FADE: u32, const UNIT: bool>(row: &SampleRow, out: &mut [f32]) {
    let fly = crate::twin::floor(row.local[1]);
    let iy = row.cell[1].wrapping_add(crate::twin::to_i32(fly));
    let uy = _mm512_set1_ps(fade(row.local[1] - fly, FADE));
    let y0 = _mm512_set1_epi32((row.seed ^ (iy as u32).wrapping_mul(HASH_PRIME_Y)) as i32);
    let y1 = _mm512_set1_epi32(
        (row.seed ^ (iy.wrapping_add(1) as u32).wrapping_mul(HASH_PRIME_Y)) as i32,
    );
    let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let prime_x = _mm512_set1_epi32(HASH_PRIME_X as i32);
    let unit = _mm512_set1_ps(2.0 / 16777215.0);
    let one = _mm512_set1_ps(1.0);
    // `hash_to_signed(hash_finish(v))`.
    let corner = |v: __m512i| {
        let h = _mm512_srli_epi32::<8>(hash_finish16(v));
        _mm512_sub_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(h), unit), one)
    };
    if let Some(first) = row_cells_within_16(row, out.len()) {
        // Every corner's value from two tables of the row's 16 cells, one per y.
        let x0 = _mm512_mullo_epi32(_mm512_add_epi32(_mm512_set1_epi32(first), lane), prime_x);
        let (row0, row1) = (
            corner(_mm512_xor_si512(y0, x0)),
            corner(_mm512_xor_si512(y1, x0)),
        );
        let (first, next) = (_mm512_set1_epi32(first), _mm512_set1_epi32(1));
        for i in (0..out.len()).step_by(16) {
            let (fx0, ix) = row_split16::<UNIT>(row, i);
            let at0 = _mm512_sub_epi32(ix, first);
            let at1 = _mm512_add_epi32(at0, next);
            let a = _mm512_permutexvar_ps(at0, row0);
            let b = _mm512_permutexvar_ps(at1, row0);
            let c = _mm512_permutexvar_ps(at0, row1);
            let d = _mm512_permutexvar_ps(at1, row1);
            let ux = fade16::<FADE>(fx0);
            store16(out, i, lerp16(lerp16(a, b, ux), lerp16(c, d, ux), uy));
        }
        return;
    }
    for i in (0..out.len()).step_by(16) {
        let (fx0, ix) = row_split16::<UNIT>(row, i);
        let x0 = _mm512_mullo_epi32(ix, prime_x);
        let x1 = _mm512_add_epi32(x0, prime_x);
        let a = corner(_mm512_xor_si512(y0, x0));
        let b = corner(_mm512_xor_si512(y0, x1));
        let c = corner(_mm512_xor_si512(y1, x0));
        let d = corner(_mm512_xor_si512(y1, x1));
        let ux = fade16::<FADE>(fx0);
        store16(out, i, lerp16(lerp16(a, b, ux), lerp16(c, d, ux), uy));
    }
}
