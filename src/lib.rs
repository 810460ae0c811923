//! noisegraph: a GPU compute-shader noise engine.
//!
//! WGSL kernels, one per noise family (`shaders/<family>.wgsl`), each with a plain-Rust twin
//! (`src/cpu/<family>.rs`). A [`NoiseGraph`] of family, fractal, warp and point-wise nodes is
//! planned into stages ([`Plan`]) that run on a wgpu device ([`GpuContext`]) or on the CPU
//! reference path ([`engine::run_cpu`]), and come back as a [`Field`].
//!
//! ```no_run
//! use noisegraph::{Backend, Executor, NoiseGraph, View};
//! let graph = NoiseGraph::from_json(r#"{"seed": 7, "output": "n",
//!     "nodes": [{"id": "n", "type": "perlin", "frequency": 8}]}"#).unwrap();
//! let executor = Executor::new(Backend::Auto).unwrap();
//! let field = executor.bake(&graph, None, &View::image(256, 256)).unwrap();
//! assert_eq!(field.data.len(), 256 * 256);
//! ```

#![warn(missing_docs)]

pub mod analysis;
pub mod cpu;
pub mod curl;
pub mod engine;
pub mod error;
pub mod export;
pub mod family;
pub mod field;
pub mod gpu;
pub mod graph;
pub mod parity;
pub mod presets;
pub mod tiling;

pub use engine::{Backend, Executor};
pub use error::{Error, GraphErrors, GraphIssue, Result};
pub use field::{Field, FieldForm, GradientField, VectorField};
pub use gpu::{CompiledGraph, GpuContext, NodeParam, NormalMapPass, RunOptions};
pub use graph::{GraphBuilder, NoiseGraph, Plan, View};
