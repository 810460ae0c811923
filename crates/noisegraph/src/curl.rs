//! Divergence-free flow fields from exact gradients: curl noise (Bridson, Hourihan and
//! Nordenstam, "Curl-noise for procedural fluid flow", SIGGRAPH 2007).
//!
//! - 2D: a scalar field psi is a stream function; its curl `(d psi/dy, -d psi/dx)` flows along
//!   psi's level lines and has zero divergence.
//! - 3D: three decorrelated copies (psi1, psi2, psi3) of the field make a vector potential;
//!   its curl `(d psi3/dy - d psi2/dz, d psi1/dz - d psi3/dx, d psi2/dx - d psi1/dy)` has zero
//!   divergence. The copies are the same plan with the graph seed offset by
//!   [`POTENTIAL_SEED_OFFSETS`].
//!
//! The derivatives are the analytic ones of a gradient run, so the divergence is zero up to
//! f32 rounding, not up to a finite-difference error.

use crate::field::{GradientField, VectorField};
use crate::graph::Plan;

/// Added (wrapping) to the graph seed for copy 0, 1, 2 of the 3D vector potential: far from
/// any node's `seed_offset` plus octave index, so no octave of one copy shares its lattice
/// hash with an octave of another (the bits of sqrt(2) and sqrt(3) after the point).
pub const POTENTIAL_SEED_OFFSETS: [u32; 3] = [0, 0x6A09_E667, 0xBB67_AE85];

/// Copy `copy` (0, 1 or 2) of the vector potential: `plan` with its seed offset by
/// [`POTENTIAL_SEED_OFFSETS`]`[copy]`.
pub fn potential_copy(plan: &Plan, copy: usize) -> Plan {
    let mut p = plan.clone();
    p.seed = plan.seed.wrapping_add(POTENTIAL_SEED_OFFSETS[copy]);
    p
}

/// The 2D curl `(d/dy, -d/dx)` of a gradient field: 2 components per sample.
pub fn curl_2d(g: &GradientField) -> VectorField {
    let data = g.data.iter().flat_map(|s| [s[2], -s[1]]).collect();
    VectorField::new(g.width, g.height, g.depth, 2, data)
}

/// The curl of the vector potential whose components have the gradient fields `psi` (all of
/// one size): 3 components per sample.
pub fn curl_3d(psi: [&GradientField; 3]) -> VectorField {
    let [p1, p2, p3] = psi;
    let data = p1
        .data
        .iter()
        .zip(&p2.data)
        .zip(&p3.data)
        .flat_map(|((a, b), c)| [c[2] - b[3], a[3] - c[1], b[1] - a[2]])
        .collect();
    VectorField::new(p1.width, p1.height, p1.depth, 3, data)
}
