//! The point queries' loop for an unwarped 2D Perlin chain (improved gradients, no period),
//! written with AVX-512 intrinsics: per 16 points, every octave in registers, from the
//! positions to the normalized sum, without the per-octave passes over memory of the general
//! path (`crate::twin::point`). Each step is the general path's arithmetic on the same operands in
//! the same order (the f64 split of `split_cubic_lanes`, the corners of
//! `crate::cpu::avx512::perlin_2d_row_small`, `add_octave`), so the values are the same bits;
//! `crate::twin::point`'s tests compare the two.

use std::arch::x86_64::*;

use crate::cpu::avx512::{
    fade16, hash_finish16, lerp16, split_small16, store16, PERLIN_GRADIENTS_2D,
};
use crate::twin::hash::{HASH_PRIME_X, HASH_PRIME_Y};
use crate::twin::lib::ops::{FRACTAL_BILLOW, FRACTAL_RIDGED};

/// One octave's numbers: `p = base * freq + shift` per axis, the seed hash, the amplitude.
#[derive(Debug, Clone, Copy)]
pub struct PerlinOctave {
    pub freq: [f64; 2],
    /// `OCTAVE_SHIFT[axis] * k`.
    pub shift: [f64; 2],
    pub seed: u32,
    pub amp: f32,
}

/// `wrap_small`'s constant 1.5 * 2^52 (see `crate::twin::point`).
const WRAP_MAGIC: f64 = 6_755_399_441_055_744.0;

/// Eight points' f64 coordinate on one axis, split for one octave (`split_cubic_lanes`):
/// the local offset as f32 and the cell's low 32 bits, read from the mantissa as
/// `wrap_small` does (exact while the cell is below 2^51 in magnitude).
#[inline(always)]
fn split8(base: __m512d, freq: __m512d, shift: __m512d) -> (__m256, __m256i) {
    // SAFETY (all intrinsics in this file): the callers are compiled with AVX-512 F/BW/DQ/VL.
    unsafe {
        let p = _mm512_add_pd(_mm512_mul_pd(base, freq), shift);
        let fl = _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(p);
        let local = _mm512_cvtpd_ps(_mm512_sub_pd(p, fl));
        let wrapped = _mm512_castpd_si512(_mm512_add_pd(fl, _mm512_set1_pd(WRAP_MAGIC)));
        (local, _mm512_cvtepi64_epi32(wrapped))
    }
}

/// Two halves of eight lanes as one vector of sixteen.
#[inline(always)]
fn join_ps(lo: __m256, hi: __m256) -> __m512 {
    unsafe { _mm512_insertf32x8::<1>(_mm512_castps256_ps512(lo), hi) }
}

#[inline(always)]
fn join_epi32(lo: __m256i, hi: __m256i) -> __m512i {
    unsafe { _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi) }
}

/// `fractal_remap(n, KIND)`: n, (1 - |n|)^2 or 2 |n| - 1.
#[inline(always)]
fn remap16<const KIND: u32>(n: __m512) -> __m512 {
    unsafe {
        if KIND == FRACTAL_RIDGED {
            let r = _mm512_sub_ps(_mm512_set1_ps(1.0), _mm512_abs_ps(n));
            _mm512_mul_ps(r, r)
        } else if KIND == FRACTAL_BILLOW {
            let a = _mm512_mul_ps(_mm512_set1_ps(2.0), _mm512_abs_ps(n));
            _mm512_sub_ps(a, _mm512_set1_ps(1.0))
        } else {
            n
        }
    }
}

/// The fractal sum of a 2D Perlin chain (improved gradients, no period, no warp) at each
/// point of `coords` (x, y per point) into `out`: base `position + o[0] + o[1] + o[2]` per
/// axis, then per octave the split, the noise, `sum += amp * remap(noise)`; at the end `sum *
/// norm`. `base_limit` bounds the base per axis so that every octave's cells stay below
/// 2^51 in magnitude; false when some point's base is not below it (`out` is then not
/// usable).
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
pub fn perlin_2d_fractal_points<const FADE: u32, const KIND: u32>(
    coords: &[f64],
    offsets: [[f64; 3]; 2],
    base_limit: [f64; 2],
    octaves: &[PerlinOctave],
    norm: f32,
    out: &mut [f32],
) -> bool {
    let n = out.len();
    assert_eq!(coords.len(), 2 * n, "two coordinates per point");
    let (gx, gy) = unsafe {
        (
            _mm512_loadu_ps(PERLIN_GRADIENTS_2D.0.as_ptr()),
            _mm512_loadu_ps(PERLIN_GRADIENTS_2D.1.as_ptr()),
        )
    };
    let corner = |h: __m512i, dx: __m512, dy: __m512| {
        _mm512_add_ps(
            _mm512_mul_ps(dx, _mm512_permutexvar_ps(h, gx)),
            _mm512_mul_ps(dy, _mm512_permutexvar_ps(h, gy)),
        )
    };
    let even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    let odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
    let (prime_x, prime_y) = (
        _mm512_set1_epi32(HASH_PRIME_X as i32),
        _mm512_set1_epi32(HASH_PRIME_Y as i32),
    );
    let one = _mm512_set1_ps(1.0);
    let base = |v: __m512d, o: [f64; 3]| {
        let v = _mm512_add_pd(v, _mm512_set1_pd(o[0]));
        let v = _mm512_add_pd(v, _mm512_set1_pd(o[1]));
        _mm512_add_pd(v, _mm512_set1_pd(o[2]))
    };
    let mut in_range = true;
    for i in (0..n).step_by(16) {
        // Points i..i + 16 as four vectors of four (x, y) pairs, past the end zero.
        let doubles = 2 * (n - i);
        let load = |j: usize| {
            let count = doubles.saturating_sub(8 * j).min(8);
            let mask = ((1u32 << count) - 1) as __mmask8;
            // SAFETY: only the `count` doubles inside `coords` are read.
            unsafe { _mm512_maskz_loadu_pd(mask, coords.as_ptr().add(2 * i + 8 * j)) }
        };
        let (c0, c1, c2, c3) = (load(0), load(1), load(2), load(3));
        let bx = [
            base(_mm512_permutex2var_pd(c0, even, c1), offsets[0]),
            base(_mm512_permutex2var_pd(c2, even, c3), offsets[0]),
        ];
        let by = [
            base(_mm512_permutex2var_pd(c0, odd, c1), offsets[1]),
            base(_mm512_permutex2var_pd(c2, odd, c3), offsets[1]),
        ];
        let below = |v: __m512d, limit: f64| {
            _mm512_cmp_pd_mask::<_CMP_LT_OQ>(_mm512_abs_pd(v), _mm512_set1_pd(limit))
        };
        let ok = (below(bx[0], base_limit[0]) & below(by[0], base_limit[1])) as u16
            | ((below(bx[1], base_limit[0]) & below(by[1], base_limit[1])) as u16) << 8;
        let valid = if n - i >= 16 {
            0xffff
        } else {
            ((1u32 << (n - i)) - 1) as u16
        };
        in_range &= ok & valid == valid;
        let mut sum = _mm512_setzero_ps();
        for o in octaves {
            let (fx, sx) = (_mm512_set1_pd(o.freq[0]), _mm512_set1_pd(o.shift[0]));
            let (fy, sy) = (_mm512_set1_pd(o.freq[1]), _mm512_set1_pd(o.shift[1]));
            let (lx0, cx0) = split8(bx[0], fx, sx);
            let (lx1, cx1) = split8(bx[1], fx, sx);
            let (ly0, cy0) = split8(by[0], fy, sy);
            let (ly1, cy1) = split8(by[1], fy, sy);
            let (x, y) = (join_ps(lx0, lx1), join_ps(ly0, ly1));
            let (cell_x, cell_y) = (join_epi32(cx0, cx1), join_epi32(cy0, cy1));
            // `perlin_2d` with the improved gradients and no period, as the row loop does it.
            let (flx, ix) = split_small16(x);
            let (fly, iy) = split_small16(y);
            let ix = _mm512_add_epi32(cell_x, ix);
            let iy = _mm512_add_epi32(cell_y, iy);
            let fx0 = _mm512_sub_ps(x, flx);
            let fy0 = _mm512_sub_ps(y, fly);
            let fx1 = _mm512_sub_ps(fx0, one);
            let fy1 = _mm512_sub_ps(fy0, one);
            let x0 = _mm512_mullo_epi32(ix, prime_x);
            let x1 = _mm512_add_epi32(x0, prime_x);
            let seed = _mm512_set1_epi32(o.seed as i32);
            let y0 = _mm512_mullo_epi32(iy, prime_y);
            let y1 = _mm512_xor_si512(seed, _mm512_add_epi32(y0, prime_y));
            let y0 = _mm512_xor_si512(seed, y0);
            let a = corner(hash_finish16(_mm512_xor_si512(y0, x0)), fx0, fy0);
            let b = corner(hash_finish16(_mm512_xor_si512(y0, x1)), fx1, fy0);
            let c = corner(hash_finish16(_mm512_xor_si512(y1, x0)), fx0, fy1);
            let d = corner(hash_finish16(_mm512_xor_si512(y1, x1)), fx1, fy1);
            let ux = fade16::<FADE>(fx0);
            let uy = fade16::<FADE>(fy0);
            let noise = lerp16(lerp16(a, b, ux), lerp16(c, d, ux), uy);
            let term = _mm512_mul_ps(_mm512_set1_ps(o.amp), remap16::<KIND>(noise));
            sum = _mm512_add_ps(sum, term);
        }
        store16(out, i, _mm512_mul_ps(sum, _mm512_set1_ps(norm)));
    }
    in_range
}
