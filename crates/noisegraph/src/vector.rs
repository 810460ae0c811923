//! The vector unit the CPU path's sample loops run on, chosen once at run time: the crate is
//! built for baseline x86-64 (SSE2), and [`vectorized`] runs a loop through a copy compiled
//! for AVX-512 or AVX2 when the CPU has it. Every width gives the same bits: the loops are
//! the scalar twins' arithmetic, and Rust never contracts a multiply and an add into an FMA.

use std::cell::Cell;
use std::sync::OnceLock;

/// A vector unit the CPU path can compile its sample loops for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum VectorWidth {
    /// What the crate is built for: SSE2 (4 f32 lanes) on x86-64, NEON on aarch64.
    Baseline,
    /// AVX2: 8 f32 lanes.
    Avx2,
    /// AVX-512 (F, BW, DQ and VL): 16 f32 lanes.
    Avx512,
}

/// The environment variable that caps the width (`baseline`, `avx2` or `avx512`), read once:
/// for measuring one width against another. A width the CPU lacks falls back to the widest
/// it has below it.
pub const VECTOR_WIDTH_ENV: &str = "NOISEGRAPH_CPU_VECTOR";

impl VectorWidth {
    /// Every width, narrowest first.
    pub const ALL: [VectorWidth; 3] = [Self::Baseline, Self::Avx2, Self::Avx512];

    /// The width's name, as [`VECTOR_WIDTH_ENV`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Baseline => "baseline",
            Self::Avx2 => "avx2",
            Self::Avx512 => "avx512",
        }
    }

    /// The width named `name` (see [`name`](Self::name)).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|w| w.name() == name)
    }

    /// Whether this CPU can run code compiled for the width.
    pub fn is_supported(self) -> bool {
        match self {
            Self::Baseline => true,
            #[cfg(target_arch = "x86_64")]
            Self::Avx2 => std::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Self::Avx512 => {
                std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512dq")
                    && std::is_x86_feature_detected!("avx512vl")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// Every width this CPU supports, narrowest first.
    pub fn supported() -> Vec<Self> {
        Self::ALL.into_iter().filter(|w| w.is_supported()).collect()
    }

    /// The widest width this CPU supports.
    pub fn widest() -> Self {
        Self::widest_up_to(Self::Avx512)
    }

    fn widest_up_to(cap: Self) -> Self {
        Self::ALL
            .into_iter()
            .rev()
            .find(|w| *w <= cap && w.is_supported())
            .unwrap_or(Self::Baseline)
    }
}

impl std::fmt::Display for VectorWidth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The process's width: the widest the CPU has, capped by [`VECTOR_WIDTH_ENV`].
fn process_width() -> VectorWidth {
    static WIDTH: OnceLock<VectorWidth> = OnceLock::new();
    *WIDTH.get_or_init(|| {
        let cap = std::env::var(VECTOR_WIDTH_ENV)
            .ok()
            .and_then(|name| VectorWidth::from_name(name.trim()))
            .unwrap_or(VectorWidth::Avx512);
        VectorWidth::widest_up_to(cap)
    })
}

thread_local! {
    static THREAD_WIDTH: Cell<Option<VectorWidth>> = const { Cell::new(None) };
}

/// The width [`vectorized`] runs at on this thread.
pub fn vector_width() -> VectorWidth {
    THREAD_WIDTH.with(Cell::get).unwrap_or_else(process_width)
}

/// Runs `f` with [`vectorized`] held to `width` on the calling thread (not in the threads
/// `f` hands work to): for tests that check every width gives the same bits.
///
/// # Panics
/// If the CPU does not support `width`.
#[doc(hidden)]
pub fn with_vector_width<R>(width: VectorWidth, f: impl FnOnce() -> R) -> R {
    assert!(width.is_supported(), "this CPU has no {width}");
    struct Restore(Option<VectorWidth>);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD_WIDTH.with(|w| w.set(self.0));
        }
    }
    let _restore = Restore(THREAD_WIDTH.with(|w| w.replace(Some(width))));
    f()
}

/// Runs `f` compiled for the widest vector unit the CPU has ([`vector_width`]): row samplers
/// pass their sample loops (written without branches) through here, so they vectorize 16 or 8
/// samples wide while the crate stays built for baseline x86-64. `f` must be an
/// `#[inline(always)]` closure, or it is compiled on its own for the baseline.
#[inline(always)]
pub fn vectorized<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "x86_64")]
    match vector_width() {
        VectorWidth::Avx512 => {
            #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl")]
            fn with_avx512<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: `vector_width` only returns a width the CPU supports.
            return unsafe { with_avx512(f) };
        }
        VectorWidth::Avx2 => {
            #[target_feature(enable = "avx2")]
            fn with_avx2<R>(f: impl FnOnce() -> R) -> R {
                f()
            }
            // SAFETY: as above.
            return unsafe { with_avx2(f) };
        }
        VectorWidth::Baseline => {}
    }
    f()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_widths_are_ordered() {
        for w in VectorWidth::ALL {
            assert_eq!(VectorWidth::from_name(w.name()), Some(w));
        }
        assert_eq!(VectorWidth::from_name("avx"), None);
        assert!(
            VectorWidth::Baseline < VectorWidth::Avx2 && VectorWidth::Avx2 < VectorWidth::Avx512
        );
        assert!(VectorWidth::Baseline.is_supported());
        assert!(VectorWidth::widest().is_supported());
        assert_eq!(
            VectorWidth::widest_up_to(VectorWidth::Baseline),
            VectorWidth::Baseline
        );
    }

    #[test]
    fn the_override_holds_on_this_thread_only_and_is_restored() {
        let before = vector_width();
        for w in VectorWidth::supported() {
            with_vector_width(w, || {
                assert_eq!(vector_width(), w);
                let elsewhere = std::thread::spawn(vector_width).join().unwrap();
                assert_eq!(elsewhere, process_width());
            });
            assert_eq!(vector_width(), before);
        }
        let panicked = std::panic::catch_unwind(|| {
            with_vector_width(VectorWidth::Baseline, || panic!("inside"))
        });
        assert!(panicked.is_err());
        assert_eq!(vector_width(), before, "restored after a panic");
    }

    #[test]
    fn every_width_runs_a_loop_to_the_same_bits() {
        let xs: Vec<f32> = (0..1000).map(|i| i as f32 * 0.37 - 100.0).collect();
        let run = || {
            vectorized(
                #[inline(always)]
                || {
                    xs.iter()
                        .map(|&x| x * x * 0.5 + x / 3.0)
                        .collect::<Vec<f32>>()
                },
            )
        };
        let expected = with_vector_width(VectorWidth::Baseline, run);
        for w in VectorWidth::supported() {
            let got = with_vector_width(w, run);
            assert!(
                got.iter()
                    .zip(&expected)
                    .all(|(a, b)| a.to_bits() == b.to_bits()),
                "{w}"
            );
        }
    }
}
