//! `Field`: a materialized grid of f32 samples read back from either path.

/// A width x height x depth grid of samples, x fastest, then y, then z.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Width in samples (x).
    pub width: u32,
    /// Height in samples (y).
    pub height: u32,
    /// Depth in samples (z); 1 for an image.
    pub depth: u32,
    /// The samples, x fastest, then y, then z.
    pub data: Vec<f32>,
}

/// Fields of at least this many samples (4 MiB) ask the OS for huge pages.
const HUGE_PAGE_SAMPLES: usize = 1 << 20;

/// `len` zeroed samples for a field that is about to be written in full. On Linux a large
/// buffer is marked for transparent huge pages: a fresh 16 MiB field then costs 8 page faults
/// instead of 4096, which were a fifth of a one-octave 2048x2048 bake on the CPU path. The
/// advice is only a hint (ignored where huge pages are off).
pub fn zeroed_samples(len: usize) -> Vec<f32> {
    let data = vec![0f32; len];
    #[cfg(target_os = "linux")]
    if len >= HUGE_PAGE_SAMPLES {
        // The whole 2 MiB pages inside the buffer: a fresh allocation this large is its own
        // mapping, not yet touched (zeroed by the OS on first write).
        const HUGE: usize = 2 << 20;
        let start = data.as_ptr() as usize;
        let first = start.next_multiple_of(HUGE);
        let end = (start + len * 4) & !(HUGE - 1);
        if end > first {
            // SAFETY: the range lies inside `data`'s allocation; MADV_HUGEPAGE changes no
            // contents, only how the pages are backed.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
    data
}

impl Field {
    /// Wraps `data`, which must hold width x height x depth samples.
    pub fn new(width: u32, height: u32, depth: u32, data: Vec<f32>) -> Self {
        debug_assert_eq!(
            data.len(),
            width as usize * height as usize * depth as usize
        );
        Field {
            width,
            height,
            depth,
            data,
        }
    }

    /// The sample at (x, y, z).
    pub fn get(&self, x: u32, y: u32, z: u32) -> f32 {
        self.data
            [((z as usize * self.height as usize) + y as usize) * self.width as usize + x as usize]
    }

    /// (min, max) over finite samples, `None` when there are none.
    pub fn min_max(&self) -> Option<(f32, f32)> {
        let mut it = self.data.iter().copied().filter(|v| v.is_finite());
        let first = it.next()?;
        Some(it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
    }

    /// Largest absolute difference to another field of the same shape (NaN counts as infinite).
    pub fn max_abs_diff(&self, other: &Field) -> f32 {
        self.data
            .iter()
            .zip(&other.data)
            .map(|(a, b)| {
                let d = (a - b).abs();
                if d.is_nan() {
                    f32::INFINITY
                } else {
                    d
                }
            })
            .fold(0.0, f32::max)
    }
}
