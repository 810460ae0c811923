//! Values to the integer levels of PNG and `.r16`: a value range mapped to 0..max, clamped,
//! rounded half away from zero. [`gray8`] and [`gray16`] define a level; [`Levels`] computes
//! the same levels for a whole row in a loop the compiler vectorises (no call to `roundf`
//! per sample), which is most of the cost of encoding a 16-bit PNG apart from deflate.

use super::normalize;

/// The 8-bit level of `v` in a PNG channel: `range` mapped to 0..255, rounded.
pub fn gray8(v: f32, range: (f32, f32)) -> u8 {
    (normalize(v, range) * 255.0).round() as u8
}

/// The 16-bit level of `v` in a PNG channel (and a `.r16` file): `range` mapped to
/// 0..65535, rounded.
pub fn gray16(v: f32, range: (f32, f32)) -> u16 {
    (normalize(v, range) * 65535.0).round() as u16
}

/// The levels of one value range, for rows of samples: exactly [`gray8`] and [`gray16`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Levels {
    low: f32,
    span: f32,
    /// An empty or non-finite span maps every value to the middle (as [`normalize`]).
    flat: bool,
}

impl Levels {
    pub(crate) fn new((low, high): (f32, f32)) -> Levels {
        let span = high - low;
        Levels {
            low,
            span,
            flat: span <= 0.0 || !span.is_finite(),
        }
    }

    /// `v` mapped to `0..=top`, as `(normalize(v, range) * top).round()`.
    #[inline(always)]
    // `max` then `min`, not `clamp`, which keeps NaN.
    #[allow(clippy::manual_clamp)]
    fn level(&self, v: f32, top: f32) -> u32 {
        let t = if self.flat {
            0.5
        } else {
            // `max` then `min`: NaN becomes 0 and the rest is clamped to [0, 1], as
            // `normalize` does with its NaN test and clamp.
            ((v - self.low) / self.span).max(0.0).min(1.0)
        };
        let x = t * top;
        // Round half away from zero for x in [0, top]: the truncation and the exact
        // fraction left (x < 2^23), instead of `f32::round`, which is a library call.
        // SAFETY: x is in [0, top] (t was clamped, NaN made 0), so it fits an i32; the
        // unchecked conversion is one vector instruction where `as` checks each lane.
        let whole: i32 = unsafe { x.to_int_unchecked() };
        let up = (x - whole as f32 >= 0.5) as i32;
        (whole + up) as u32
    }

    /// [`gray8`] of `v`.
    #[inline(always)]
    pub(crate) fn level8(&self, v: f32) -> u8 {
        self.level(v, 255.0) as u8
    }

    /// [`gray16`] of `v`.
    #[inline(always)]
    pub(crate) fn level16(&self, v: f32) -> u16 {
        self.level(v, 65535.0) as u16
    }

    /// [`gray8`] of each sample, into `out` (one byte each).
    pub(crate) fn row8(&self, row: &[f32], out: &mut [u8]) {
        for (o, &v) in out.iter_mut().zip(row) {
            *o = self.level8(v);
        }
    }

    /// [`gray16`] of each sample, into `out` (two bytes each, big-endian as in PNG).
    pub(crate) fn row16_be(&self, row: &[f32], out: &mut [u8]) {
        for (o, &v) in out.chunks_exact_mut(2).zip(row) {
            o.copy_from_slice(&self.level16(v).to_be_bytes());
        }
    }

    /// [`gray16`] of each sample, into `out` (two bytes each, little-endian as in `.r16`).
    pub(crate) fn row16_le(&self, row: &[f32], out: &mut [u8]) {
        for (o, &v) in out.chunks_exact_mut(2).zip(row) {
            o.copy_from_slice(&self.level16(v).to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values around every level boundary of a range, its ends and beyond, and the odd ones.
    fn samples(range: (f32, f32)) -> Vec<f32> {
        let mut values = vec![
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            0.0,
            -0.0,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::MIN,
            range.0,
            range.1,
        ];
        let span = range.1 - range.0;
        for top in [255.0f32, 65535.0] {
            for k in 0..=top as u32 {
                // The value whose level is k + 1/2 exactly, and its neighbours.
                let half = range.0 + (k as f32 + 0.5) / top * span;
                let mut v = half;
                for _ in 0..3 {
                    v = v.next_down();
                }
                for _ in 0..7 {
                    values.push(v);
                    v = v.next_up();
                }
            }
        }
        let mut x = 0x9e37_79b9u32;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            values.push(range.0 - 0.25 * span + (x as f32 / u32::MAX as f32) * 1.5 * span);
            values.push(f32::from_bits(x));
        }
        values
    }

    #[test]
    fn row_levels_are_exactly_gray8_and_gray16() {
        for range in [
            (-1.0, 1.0),
            (0.0, 1.0),
            (-0.7316, 0.9123),
            (3.0, 3.0),
            (1.0, -1.0),
            (0.0, f32::INFINITY),
            (-1e30, 1e30),
        ] {
            let values = samples(range);
            let levels = Levels::new(range);
            let mut eight = vec![0u8; values.len()];
            let mut big = vec![0u8; values.len() * 2];
            let mut little = vec![0u8; values.len() * 2];
            levels.row8(&values, &mut eight);
            levels.row16_be(&values, &mut big);
            levels.row16_le(&values, &mut little);
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(eight[i], gray8(v, range), "gray8({v:e}, {range:?})");
                let g = gray16(v, range);
                assert_eq!([big[2 * i], big[2 * i + 1]], g.to_be_bytes(), "{v:e}");
                assert_eq!([little[2 * i], little[2 * i + 1]], g.to_le_bytes(), "{v:e}");
            }
        }
    }
}
