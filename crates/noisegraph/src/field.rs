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

/// Fields of at least this many bytes ask the OS for huge pages.
const HUGE_PAGE_BYTES: usize = 4 << 20;

/// Room for `len` samples (`f32` values, or `[f32; 4]` in gradient form) of a field that is
/// about to be written in full: an empty `Vec` with that capacity, not zeroed (a freed block the allocator hands back is not cleared
/// again, and fresh pages are cleared by the OS on first write only). On Linux a large buffer
/// is marked for transparent huge pages: a fresh 16 MiB field then costs 8 page faults instead
/// of 4096, which were a fifth of a one-octave 2048x2048 bake on the CPU path. The advice is
/// only a hint (ignored where huge pages are off). `None` when the allocation fails (so that
/// the caller can report it, not abort).
pub fn samples_capacity<T>(len: usize) -> Option<Vec<T>> {
    let mut data = Vec::new();
    data.try_reserve_exact(len).ok()?;
    #[cfg(target_os = "linux")]
    advise_huge_pages(data.as_ptr() as usize, len * std::mem::size_of::<T>());
    Some(data)
}

/// Asks Linux to back the whole 2 MiB pages of the fresh allocation of `bytes` at `start`
/// with huge pages, when there are at least [`HUGE_PAGE_BYTES`].
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, bytes: usize) {
    if bytes >= HUGE_PAGE_BYTES {
        // The whole 2 MiB pages inside the buffer: a fresh allocation this large is its own
        // mapping, not yet touched (zeroed by the OS on first write).
        const HUGE: usize = 2 << 20;
        let first = start.next_multiple_of(HUGE);
        let end = (start + bytes) & !(HUGE - 1);
        if end > first {
            // SAFETY: the range lies inside `data`'s allocation; MADV_HUGEPAGE changes no
            // contents, only how the pages are backed.
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
            }
        }
    }
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

/// What a run's stages write per sample: the value alone, or the value with its gradient.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FieldForm {
    /// One f32 per sample (R32Float textures on the GPU).
    #[default]
    Value,
    /// `[value, d/dx, d/dy, d/dz]` per sample, the derivatives with respect to the view
    /// coordinates `p` (Rgba32Float textures on the GPU; see [`GradientField`]).
    Gradient,
}

/// A width x height x depth grid of `[value, d/dx, d/dy, d/dz]`, x fastest: a node's value
/// and its exact (analytic) gradient with respect to the view coordinates `p` (pixel
/// (x, y, z) samples `p = origin + (x, y, z) * extent / size`), so the derivatives do not
/// depend on the resolution. Both paths give the same numbers (within the parity contract),
/// and on the CPU path `value` is bit for bit the value bake's sample.
///
/// The derivative along an axis the node does not vary on is 0 (d/dz of a 2D family). Where
/// the field has a crease (ridged and billow octaves crossing 0, `abs` at 0, `min` / `max`
/// where the inputs are equal, `clamp` at its bounds) the gradient is one side's: see the
/// README's "Gradients" section for which.
#[derive(Debug, Clone, PartialEq)]
pub struct GradientField {
    /// Width in samples (x).
    pub width: u32,
    /// Height in samples (y).
    pub height: u32,
    /// Depth in samples (z); 1 for an image.
    pub depth: u32,
    /// `[value, d/dx, d/dy, d/dz]` per sample, x fastest, then y, then z.
    pub data: Vec<[f32; 4]>,
}

impl GradientField {
    /// Wraps `data`, which must hold width x height x depth samples.
    pub fn new(width: u32, height: u32, depth: u32, data: Vec<[f32; 4]>) -> Self {
        debug_assert_eq!(
            data.len(),
            width as usize * height as usize * depth as usize
        );
        GradientField {
            width,
            height,
            depth,
            data,
        }
    }

    /// `[value, d/dx, d/dy, d/dz]` at (x, y, z).
    pub fn get(&self, x: u32, y: u32, z: u32) -> [f32; 4] {
        self.data
            [((z as usize * self.height as usize) + y as usize) * self.width as usize + x as usize]
    }

    /// One channel as a [`Field`]: 0 the value, 1 to 3 the derivatives along x, y, z.
    pub fn channel(&self, channel: usize) -> Field {
        Field::new(
            self.width,
            self.height,
            self.depth,
            self.data.iter().map(|s| s[channel]).collect(),
        )
    }

    /// The value channel (what a value bake of the same node gives).
    pub fn value(&self) -> Field {
        self.channel(0)
    }

    /// The gradient's length per sample (the slope: |(d/dx, d/dy, d/dz)|).
    pub fn slope(&self) -> Field {
        Field::new(
            self.width,
            self.height,
            self.depth,
            self.data
                .iter()
                .map(|s| (s[1] * s[1] + s[2] * s[2] + s[3] * s[3]).sqrt())
                .collect(),
        )
    }

    /// The first `channels` channels of every sample, interleaved (channel fastest): the
    /// layout of a `(H, W, channels)` array.
    pub fn interleaved(&self, channels: usize) -> Vec<f32> {
        self.data
            .iter()
            .flat_map(|s| s[..channels].iter().copied())
            .collect()
    }
}

/// A width x height x depth grid of vectors of `components` f32 each, interleaved (component
/// fastest, then x, y, z): the flow fields of [`crate::curl`].
#[derive(Debug, Clone, PartialEq)]
pub struct VectorField {
    /// Width in samples (x).
    pub width: u32,
    /// Height in samples (y).
    pub height: u32,
    /// Depth in samples (z); 1 for an image.
    pub depth: u32,
    /// Numbers per sample.
    pub components: u32,
    /// The vectors, component fastest, then x, y, z.
    pub data: Vec<f32>,
}

impl VectorField {
    /// Wraps `data`, which must hold width x height x depth x components numbers.
    pub fn new(width: u32, height: u32, depth: u32, components: u32, data: Vec<f32>) -> Self {
        debug_assert_eq!(
            data.len(),
            width as usize * height as usize * depth as usize * components as usize
        );
        VectorField {
            width,
            height,
            depth,
            components,
            data,
        }
    }

    /// The vector at (x, y, z).
    pub fn get(&self, x: u32, y: u32, z: u32) -> &[f32] {
        let n = self.components as usize;
        let i =
            ((z as usize * self.height as usize) + y as usize) * self.width as usize + x as usize;
        &self.data[i * n..(i + 1) * n]
    }

    /// One component as a [`Field`].
    pub fn component(&self, component: usize) -> Field {
        Field::new(
            self.width,
            self.height,
            self.depth,
            self.data
                .chunks_exact(self.components as usize)
                .map(|v| v[component])
                .collect(),
        )
    }
}
