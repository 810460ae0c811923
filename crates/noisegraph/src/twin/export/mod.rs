//! Twins of the WGSL export's own files in `shaders/export/` (the graph functions the export
//! generates have the point-query program, `crate::query::point`, as their twin).

pub mod lattice;
