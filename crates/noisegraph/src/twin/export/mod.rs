//! Twins of the WGSL export's own files in `shaders/export/` (the graph functions of
//! `shaders/export/point.wgsl` are the point-query program, `crate::query::point`).

pub mod lattice;
