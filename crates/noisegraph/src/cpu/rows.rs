//! The row samplers the families hand the CPU executor (`Family::cpu_row_sampler`) where a
//! hand-written AVX-512 row exists: that row when the CPU has AVX-512 and the row's
//! coordinates are small enough for it, else the twin's own row. The same bits either way.

#[cfg(target_arch = "x86_64")]
use crate::twin::fade::{FADE_CUBIC, FADE_LINEAR, FADE_QUINTIC};
#[cfg(target_arch = "x86_64")]
use crate::twin::perlin::GRADIENTS_IMPROVED;
use crate::twin::sample::SampleRow;
use crate::twin::{perlin, simplex, value};
#[cfg(target_arch = "x86_64")]
use crate::vector::{vector_width, VectorWidth};

#[cfg(target_arch = "x86_64")]
use super::avx512;

/// Whether this process runs the AVX-512 rows.
#[cfg(target_arch = "x86_64")]
fn avx512() -> bool {
    vector_width() == VectorWidth::Avx512
}

/// `value_2d` along a row: the AVX-512 row for rows without a period and of x below 2^23,
/// else [`value::value_2d_row`].
pub fn value_2d_row(row: &SampleRow, fade_kind: u32, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if row.period[0] == 0 && row.period[1] == 0 && avx512() && row.x_is_small(out.len()) {
        // SAFETY: `vector_width` chose AVX-512, so the CPU has it.
        unsafe {
            match fade_kind {
                FADE_QUINTIC => {
                    if row.x_unit {
                        avx512::value_2d_row_small::<FADE_QUINTIC, true>(row, out)
                    } else {
                        avx512::value_2d_row_small::<FADE_QUINTIC, false>(row, out)
                    }
                }
                FADE_CUBIC => {
                    if row.x_unit {
                        avx512::value_2d_row_small::<FADE_CUBIC, true>(row, out)
                    } else {
                        avx512::value_2d_row_small::<FADE_CUBIC, false>(row, out)
                    }
                }
                _ => {
                    if row.x_unit {
                        avx512::value_2d_row_small::<FADE_LINEAR, true>(row, out)
                    } else {
                        avx512::value_2d_row_small::<FADE_LINEAR, false>(row, out)
                    }
                }
            }
        }
        return;
    }
    value::value_2d_row(row, fade_kind, out)
}

/// Whether a Perlin row can take the AVX-512 loops: improved gradients and no period.
#[cfg(target_arch = "x86_64")]
fn perlin_row_is_plain(row: &SampleRow, dims: usize, gradients: u32) -> bool {
    gradients == GRADIENTS_IMPROVED && row.period[..dims].iter().all(|&p| p == 0)
}

/// `perlin_2d` along a row: the AVX-512 row for improved gradients without a period and x
/// below 2^23, else [`perlin::perlin_2d_row`].
pub fn perlin_2d_row(row: &SampleRow, fade_kind: u32, gradients: u32, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if perlin_row_is_plain(row, 2, gradients) && avx512() && row.x_is_small(out.len()) {
        // SAFETY: `vector_width` chose AVX-512, so the CPU has it.
        unsafe {
            match fade_kind {
                FADE_QUINTIC => {
                    if row.x_unit {
                        avx512::perlin_2d_row_small::<FADE_QUINTIC, true>(row, out)
                    } else {
                        avx512::perlin_2d_row_small::<FADE_QUINTIC, false>(row, out)
                    }
                }
                FADE_CUBIC => {
                    if row.x_unit {
                        avx512::perlin_2d_row_small::<FADE_CUBIC, true>(row, out)
                    } else {
                        avx512::perlin_2d_row_small::<FADE_CUBIC, false>(row, out)
                    }
                }
                _ => {
                    if row.x_unit {
                        avx512::perlin_2d_row_small::<FADE_LINEAR, true>(row, out)
                    } else {
                        avx512::perlin_2d_row_small::<FADE_LINEAR, false>(row, out)
                    }
                }
            }
        }
        return;
    }
    perlin::perlin_2d_row(row, fade_kind, gradients, out)
}

/// `perlin_3d` along a row, chosen as [`perlin_2d_row`] is.
pub fn perlin_3d_row(row: &SampleRow, fade_kind: u32, gradients: u32, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if perlin_row_is_plain(row, 3, gradients) && avx512() && row.x_is_small(out.len()) {
        // SAFETY: `vector_width` chose AVX-512, so the CPU has it.
        unsafe {
            match fade_kind {
                FADE_QUINTIC => {
                    if row.x_unit {
                        avx512::perlin_3d_row_small::<FADE_QUINTIC, true>(row, out)
                    } else {
                        avx512::perlin_3d_row_small::<FADE_QUINTIC, false>(row, out)
                    }
                }
                FADE_CUBIC => {
                    if row.x_unit {
                        avx512::perlin_3d_row_small::<FADE_CUBIC, true>(row, out)
                    } else {
                        avx512::perlin_3d_row_small::<FADE_CUBIC, false>(row, out)
                    }
                }
                _ => {
                    if row.x_unit {
                        avx512::perlin_3d_row_small::<FADE_LINEAR, true>(row, out)
                    } else {
                        avx512::perlin_3d_row_small::<FADE_LINEAR, false>(row, out)
                    }
                }
            }
        }
        return;
    }
    perlin::perlin_3d_row(row, fade_kind, gradients, out)
}

/// `simplex_2d` along a row: the AVX-512 row where its skewed coordinates stay below 2^23,
/// else [`simplex::simplex_2d_row`].
pub fn simplex_2d_row(row: &SampleRow, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if avx512() && avx512::simplex_2d_row_is_small(row, out.len()) {
        // SAFETY: `vector_width` chose AVX-512, so the CPU has it.
        unsafe { avx512::simplex_2d_row_small(row, out) };
        return;
    }
    simplex::simplex_2d_row(row, out)
}
