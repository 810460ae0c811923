//! Normal map from a gradient field. Twin of `shaders/analytic_normal.wgsl` (see that file
//! for the surface convention, which is `shaders/normal_map.wgsl`'s, and the spacing units).

use rayon::prelude::*;

use super::normal_map::{encode_normal, NormalMapUniform};

/// Runs the pass (the twin of its `main`): each pixel's `[value, d/dx, d/dy, d/dz]` of a
/// `width x height` gradient field (x fastest) becomes one encoded normal in `out`.
/// `normal.scalars` holds the height scale and the spacing along x and y in units of the
/// view's pixel size.
pub fn run_analytic_normal(normal: &NormalMapUniform, gradient: &[[f32; 4]], out: &mut [[f32; 4]]) {
    let [scale, spacing_x, spacing_y, _] = normal.scalars;
    let encoding = normal.size[3];
    out.par_iter_mut()
        .zip(gradient.par_iter())
        .for_each(|(texel, g)| {
            let gx = scale * g[1] / spacing_x;
            let gy = scale * g[2] / spacing_y;
            *texel = encode_normal(gx, gy, g[0], encoding);
        });
}
