//! Row loops written with AVX-512 intrinsics, for the lattice twins whose compiled loops leave
//! work on the table: Perlin's 2D gradient is picked by one permute per coordinate from a
//! table of its eight directions, where the compiled twin blends and flips the offsets (five
//! instructions per corner fewer). Each loop gives the twin's numbers bit for bit (the sampler
//! tests compare every width with the point sampler): the same operations on the same
//! operands, in the same order, never fused into an FMA.

use std::arch::x86_64::*;

use super::fade::{fade, FADE_CUBIC, FADE_QUINTIC};
use super::hash::{HASH_FINISH, HASH_PRIME_X, HASH_PRIME_Y};
use super::sample::SampleRow;

/// `_mm512_roundscale_ps` rounding toward negative infinity, without exceptions.
const FLOOR: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;

/// `fade(t, FADE)` on 16 lanes: the twin's expressions in its order.
#[inline(always)]
fn fade16<const FADE: u32>(t: __m512) -> __m512 {
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
fn lerp16(a: __m512, b: __m512, t: __m512) -> __m512 {
    // SAFETY: see `fade16`.
    unsafe { _mm512_add_ps(a, _mm512_mul_ps(t, _mm512_sub_ps(b, a))) }
}

/// `hash_finish(v)`: one multiply, then the high bits folded into the low ones.
#[inline(always)]
fn hash_finish16(v: __m512i) -> __m512i {
    // SAFETY: see `fade16`.
    unsafe {
        let m = _mm512_mullo_epi32(v, _mm512_set1_epi32(HASH_FINISH as i32));
        _mm512_xor_si512(m, _mm512_srli_epi32::<15>(m))
    }
}

/// The x coordinate of samples `i..i + 16` of `row` (as `SampleRow::x_at`), with `lane` the
/// vector 0, 1, ..., 15.
#[inline(always)]
fn row_x16(row: &SampleRow, i: usize, lane: __m512i) -> __m512 {
    // SAFETY: see `fade16`.
    unsafe {
        let pixel = _mm512_add_epi32(
            _mm512_set1_epi32(row.first_x.wrapping_add(i as u32) as i32),
            lane,
        );
        _mm512_add_ps(
            _mm512_set1_ps(row.local[0]),
            _mm512_mul_ps(_mm512_cvtepu32_ps(pixel), _mm512_set1_ps(row.step_x)),
        )
    }
}

/// `split_cell::<true>(x)`: floor and cell of coordinates below 2^23 in magnitude. The
/// rounding instruction gives IEEE floor, which differs from the twins' `floor` only in
/// keeping -0 negative; adding +0 makes it +0 as theirs (and changes no other number).
#[inline(always)]
fn split_small16(x: __m512) -> (__m512, __m512i) {
    // SAFETY: see `fade16`.
    unsafe {
        let fl = _mm512_add_ps(_mm512_roundscale_ps::<FLOOR>(x), _mm512_setzero_ps());
        (fl, _mm512_cvttps_epi32(fl))
    }
}

/// Writes `v` to `out[i..]`, whole or its first `out.len() - i` lanes.
#[inline(always)]
fn store16(out: &mut [f32], i: usize, v: __m512) {
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
    use super::perlin::{GRAD2_COS, GRAD2_SIN};
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
const PERLIN_GRADIENTS_2D: ([f32; 16], [f32; 16]) = perlin_gradients_2d();

/// `perlin_2d_row_lanes` (improved gradients, no period) for a row whose x coordinates are
/// all below 2^23 in magnitude (`SampleRow::x_is_small`).
///
/// The twin's corner is `select(sx, sy, swap) * COS + select(sy, sx, swap) * SIN` with `sx`,
/// `sy` the offsets with the hash's sign bits: the same two products as `dx * gx + dy * gy`
/// with the signed magnitudes of the table (a sign moves between the factors of a product
/// exactly), summed in the other order when swapped (addition commutes exactly).
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
pub fn perlin_2d_row_small<const FADE: u32>(row: &SampleRow, out: &mut [f32]) {
    let ly = row.local[1];
    let fly = super::floor(ly);
    let iy = row.cell[1].wrapping_add(super::to_i32(fly));
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
    let cell_x = _mm512_set1_epi32(row.cell[0]);
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
    for i in (0..out.len()).step_by(16) {
        let x = row_x16(row, i, lane);
        let (flx, cx) = split_small16(x);
        let ix = _mm512_add_epi32(cell_x, cx);
        let fx0 = _mm512_sub_ps(x, flx);
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
