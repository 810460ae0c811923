//! Exact lattice split of an integer cell times a constant. Twin of
//! `shaders/export/lattice.wgsl` (the precise form of exported modules), with the host-side
//! encoding of the constants it takes.

/// The 64-bit product of two u32 as `[low word, high word]`, from 16-bit halves (twin of
/// `lattice_mul_wide`).
#[inline(always)]
pub fn lattice_mul_wide(a: u32, b: u32) -> [u32; 2] {
    let a0 = a & 0xffff;
    let a1 = a >> 16;
    let b0 = b & 0xffff;
    let b1 = b >> 16;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    let low = (mid << 16) | (p00 & 0xffff);
    let high = (a1 * b1)
        .wrapping_add(p01 >> 16)
        .wrapping_add(p10 >> 16)
        .wrapping_add(mid >> 16);
    [low, high]
}

/// `cell * K` in 32.32 fixed point, `[integer part mod 2^32, fraction * 2^32]`, with `k` =
/// [`fixed_constant`]`(K)` (twin of `lattice_mul`).
#[inline(always)]
pub fn lattice_mul(cell: i32, k: [u32; 3]) -> [u32; 2] {
    let c = cell as u32;
    let high = lattice_mul_wide(c, k[1]);
    let low = lattice_mul_wide(c, k[2]);
    let fraction = high[0].wrapping_add(low[1]);
    let whole = c
        .wrapping_mul(k[0])
        .wrapping_add(high[1])
        .wrapping_add((fraction < high[0]) as u32);
    if cell < 0 {
        let borrow = (fraction < k[2]) as u32;
        [
            whole.wrapping_sub(k[1]).wrapping_sub(borrow),
            fraction.wrapping_sub(k[2]),
        ]
    } else {
        [whole, fraction]
    }
}

/// `f * K` in 32.32 fixed point for a fraction `f` in 0.32 fixed point, `k` as in
/// [`lattice_mul`]: bits below 2^-64 dropped (twin of `lattice_mul_fraction`). `k` encodes
/// `K + m 2^32` (the integer part mod 2^32, m = 1 for a negative K above -2^32), so the
/// product holds `m * f * 2^32` more whole cells, which a caller with a negative K subtracts.
#[inline(always)]
pub fn lattice_mul_fraction(f: u32, k: [u32; 3]) -> [u32; 2] {
    let whole = lattice_mul_wide(f, k[0]);
    let high = lattice_mul_wide(f, k[1]);
    let fraction = whole[0].wrapping_add(high[1]);
    [
        whole[1].wrapping_add((fraction < whole[0]) as u32),
        fraction,
    ]
}

/// An f32 offset as whole cells and a 0.32 fixed-point fraction (twin of
/// `lattice_split_local`).
#[inline(always)]
pub fn lattice_split_local(local: f32) -> (i32, u32) {
    let whole = local.floor();
    (whole as i32, ((local - whole) * 4_294_967_296.0) as u32)
}

/// `a + b` in 32.32 fixed point, the integer part wrapping (twin of `lattice_add`).
#[inline(always)]
pub fn lattice_add(a: [u32; 2], b: [u32; 2]) -> [u32; 2] {
    let fraction = a[1].wrapping_add(b[1]);
    [
        a[0].wrapping_add(b[0])
            .wrapping_add((fraction < a[1]) as u32),
        fraction,
    ]
}

/// The integer part of a 32.32 number as a lattice cell coordinate (twin of `lattice_cell`).
#[inline(always)]
pub fn lattice_cell(v: [u32; 2]) -> i32 {
    v[0] as i32
}

/// The fraction of a 32.32 number as f32: its top 24 bits, converted exactly (twin of
/// `lattice_fraction`).
#[inline(always)]
pub fn lattice_fraction(v: [u32; 2]) -> f32 {
    (v[1] >> 8) as f32 * (1.0 / 16_777_216.0)
}

/// A finite constant K as the 32.64 fixed point `lattice_mul` takes: `[floor(K) mod 2^32,
/// high and low words of K - floor(K)]` (the fraction's bits below 2^-64 dropped).
pub fn fixed_constant(k: f64) -> [u32; 3] {
    let whole = k.floor();
    let fraction = k - whole; // exact, in [0, 1)
    let high = (fraction * 4_294_967_296.0).floor();
    let low = ((fraction * 4_294_967_296.0 - high) * 4_294_967_296.0).floor();
    [wrap_to_u32(whole), high as u32, low as u32]
}

/// A finite f64 as 32.32 fixed point, `[floor(v) mod 2^32, the fraction's top 32 bits]`.
pub fn fixed_value(v: f64) -> [u32; 2] {
    let whole = v.floor();
    let fraction = ((v - whole) * 4_294_967_296.0).floor().min(4_294_967_295.0);
    [wrap_to_u32(whole), fraction as u32]
}

/// An integral f64 modulo 2^32.
fn wrap_to_u32(v: f64) -> u32 {
    v.rem_euclid(4_294_967_296.0) as u64 as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cell * K exactly, in units of 2^-64, modulo 2^96 (i128 arithmetic), from K's encoding.
    fn exact(cell: i32, k: [u32; 3]) -> i128 {
        let kf = ((k[0] as i128) << 64) | ((k[1] as i128) << 32) | k[2] as i128;
        (cell as i128 * kf) & ((1i128 << 96) - 1)
    }

    /// f * K in 32.32 is the exact product (units of 2^-96 cut to 2^-32) truncated, at most
    /// two units of 2^-32 below it, modulo 2^32 on the integer part.
    #[test]
    fn mul_fraction_is_the_truncated_product() {
        let mut x = 0x0bad_f00du32;
        for _ in 0..10_000 {
            x = x.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            let k = fixed_constant((x >> 7) as f64 / 1021.0 + (x & 0x7f) as f64 * 1e-9);
            let f = x.rotate_left(11);
            let kf = ((k[0] as u128) << 64) | ((k[1] as u128) << 32) | k[2] as u128;
            // Units of 2^-96, then cut to 2^-32 and taken mod 2^64 (32.32).
            let exact = ((f as u128 * kf) >> 64) as u64;
            let [whole, fraction] = lattice_mul_fraction(f, k);
            let got = ((whole as u64) << 32) | fraction as u64;
            let below = exact.wrapping_sub(got);
            assert!(below <= 2, "f {f:#x} k {k:?}: {got:#x} vs {exact:#x}");
        }
    }

    /// A negative K: the product less `m * f` whole cells (m = 1 here, see
    /// [`lattice_mul_fraction`]) is f * K truncated, modulo 2^32 on the integer part.
    #[test]
    fn mul_fraction_of_a_negative_constant_takes_the_wrap_back() {
        let mut x = 0x5eed_1234u32;
        for _ in 0..10_000 {
            x = x.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            let kv = -((x >> 9) as f64 / 977.0) - 0.3;
            let k = fixed_constant(kv);
            let f = x.rotate_left(7);
            let [whole, fraction] = lattice_mul_fraction(f, k);
            let got = (((whole.wrapping_sub(f)) as u64) << 32) | fraction as u64;
            // The encoded K (units of 2^-64) less its wrap, times f, floored to 2^-32 units.
            let kf =
                (((k[0] as i128) << 64) | ((k[1] as i128) << 32) | k[2] as i128) - (1i128 << 96);
            let exact = ((f as i128 * kf) >> 64) as u64;
            let below = exact.wrapping_sub(got);
            assert!(below <= 2, "f {f:#x} K {kv}: {got:#x} vs {exact:#x}");
        }
    }

    #[test]
    fn mul_wide_is_the_64_bit_product() {
        let mut x = 0x1234_5678u32;
        for _ in 0..10_000 {
            x = x.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            let y = x.rotate_left(13) ^ 0x9e37_79b9;
            let [lo, hi] = lattice_mul_wide(x, y);
            assert_eq!(((hi as u64) << 32) | lo as u64, x as u64 * y as u64);
        }
        let [lo, hi] = lattice_mul_wide(u32::MAX, u32::MAX);
        assert_eq!(
            ((hi as u64) << 32) | lo as u64,
            u32::MAX as u64 * u32::MAX as u64
        );
    }

    /// The 32.32 result is the exact product truncated: at most one unit of 2^-32 below it.
    #[test]
    fn mul_is_exact_to_the_last_fraction_bit() {
        let mut x = 0x0bad_cafeu32;
        let mut next = || {
            x = x.wrapping_mul(747_796_405).wrapping_add(2_891_336_453);
            x
        };
        let constants = [
            3.0,
            2.5,
            0.366_025_403_784_438_6,
            -0.211_324_865_405_187_1,
            1_234.567_891_234_5,
            -7.0,
            1e-9,
            5e9,
        ];
        let cells = [0, 1, -1, i32::MAX, i32::MIN, 1_000_000, -1_000_000];
        for i in 0..20_000 {
            let k_value = if i < constants.len() * cells.len() {
                constants[i % constants.len()]
            } else {
                (next() as f64 / 65536.0 - 32768.0) * f64::from(next() % 3 + 1)
            };
            let cell = cells
                .get(i / constants.len())
                .copied()
                .unwrap_or_else(|| next() as i32 >> (next() % 32));
            let k = fixed_constant(k_value);
            let got = lattice_mul(cell, k);
            let got = ((got[0] as i128) << 32) | got[1] as i128;
            let want = exact(cell, k) >> 32; // 32.32, truncated
            let diff = (want - got).rem_euclid(1i128 << 64);
            assert!(
                diff <= 1,
                "cell {cell} * {k_value}: got {got:#x}, exact {want:#x}"
            );
        }
    }

    /// Against f64 where f64 is exact enough.
    #[test]
    fn mul_agrees_with_f64() {
        for cell in [-1_000_000, -3, -1, 0, 1, 7, 999_983, 1_000_000] {
            for k in [3.0, 2.1, 0.5, 1.0 / 3.0, -0.75, 384.0, 7.3] {
                let v = lattice_mul(cell, fixed_constant(k));
                // f64 rounds the product (-1e6 * 2.1 comes out whole, the exact product
                // lies just below): compare the sums, not the integer parts.
                let product = cell as f64 * k;
                let ours = lattice_cell(v) as f64 + lattice_fraction(v) as f64;
                assert!(
                    (ours - product).abs() < 1e-6,
                    "{cell} * {k}: {ours} vs {product}"
                );
            }
        }
    }

    #[test]
    fn add_carries_and_wraps() {
        assert_eq!(lattice_add([1, u32::MAX], [2, 1]), [4, 0]);
        assert_eq!(lattice_add([u32::MAX, 0], [1, 5]), [0, 5]);
        let half = fixed_value(0.5);
        assert_eq!(lattice_add(half, half), [1, 0]);
        assert_eq!(fixed_value(-1.25), [u32::MAX - 1, 3 << 30]);
        assert_eq!(lattice_fraction(fixed_value(0.75)), 0.75);
    }
}
