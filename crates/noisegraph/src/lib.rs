//! noisegraph: a GPU compute-shader noise engine.
//!
//! WGSL kernels, one per noise family (`shaders/<family>.wgsl`), each with a plain-Rust twin
//! that proves the GPU right. A [`NoiseGraph`] of family, fractal, warp and point-wise nodes
//! (from JSON, or built with [`GraphBuilder`]) is planned into stages ([`Plan`]) that run on
//! a wgpu device ([`GpuContext`], or recorded into a renderer's own encoder with
//! [`CompiledGraph`]) or on the CPU reference path ([`engine::run_cpu`]), and come back as a
//! [`Field`].
//!
//! ```no_run
//! use noisegraph::{Backend, Executor, NoiseGraph, View};
//! let graph = NoiseGraph::from_json(r#"{"seed": 7, "output": "n",
//!     "nodes": [{"id": "n", "type": "perlin", "frequency": 8}]}"#).unwrap();
//! let executor = Executor::new(Backend::Auto).unwrap();
//! let field = executor.bake(&graph, None, &View::image(256, 256)).unwrap();
//! assert_eq!(field.data.len(), 256 * 256);
//! ```
//!
//! # The public surface
//!
//! - At the crate root: the graph ([`NoiseGraph`], [`GraphBuilder`], [`NodeBuilder`],
//!   [`View`], [`Plan`], [`PlanOptions`]), the results ([`Field`]; with exact gradients,
//!   [`GradientField`], and flows, [`VectorField`]: see [`Executor::bake_gradient`] and
//!   [`Executor::bake_curl`]; [`FieldForm`] says which a run writes), the executors
//!   ([`Executor`], [`Backend`], [`GpuContext`], [`RunOptions`]), embedding in a renderer
//!   ([`CompiledGraph`], [`NodeParam`], [`TargetView`], [`DeviceRequirements`],
//!   [`NormalMapPass`], [`AnalyticNormalPass`]) and the errors ([`Error`], [`Result`],
//!   [`GraphErrors`], [`GraphIssue`], [`TargetProblem`], [`MissingLimit`]).
//! - Modules: [`graph`] (nodes and plans), [`gpu`] (the GPU executor, the recordable
//!   passes and GPU point queries), [`engine`] (the CPU reference path and backend choice),
//!   [`curl`] (divergence-free flows from gradients), [`query`] (a node's value and gradient
//!   at arbitrary points), [`export`] (a node as source code for your own shaders: [`export::wgsl`]), [`parity`] (GPU against CPU, stage by stage), [`presets`] (the embedded
//!   example graphs), and, behind
//!   features, `io` (PNG, EXR and `.npy` writers) and `analysis` (statistics and power
//!   spectra).
//! - `twin` (the CPU twins of the kernels), `cpu` (fast CPU rows), `vector`, `family` and
//!   `tiling` are public only for the crate's own tests, benches and command-line tool: they are hidden from these docs and are not a stable API.
//!
//! # Features
//!
//! - `io` (default): the `io` module (png, image, exr).
//! - `analysis` (default): the `analysis` module (rustfft).
//!
//! The command-line tool is its own crate (`noisegraph-cli`, the `noisegraph` binary).
//!
//! A renderer embedding the engine depends on it with `default-features = false`: the engine
//! needs only wgpu, naga, bytemuck, pollster, rayon, serde, serde_json and thiserror.

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "analysis")]
#[cfg_attr(docsrs, doc(cfg(feature = "analysis")))]
pub mod analysis;
#[doc(hidden)]
pub mod cache;
#[doc(hidden)]
pub mod cpu;
pub mod curl;
pub mod engine;
mod error;
pub mod export;
#[doc(hidden)]
pub mod family;
mod field;
pub mod gpu;
pub mod graph;
#[cfg(feature = "io")]
#[cfg_attr(docsrs, doc(cfg(feature = "io")))]
pub mod io;
pub mod memory;
pub mod parity;
pub mod presets;
pub mod query;
#[doc(hidden)]
pub mod tiling;
#[doc(hidden)]
pub mod twin;
#[doc(hidden)]
pub mod vector;

pub use engine::{Backend, Executor};
pub use error::{Error, GraphErrors, GraphIssue, MissingLimit, Result, TargetProblem};
pub use field::{Field, FieldForm, GradientField, VectorField};
pub use gpu::{
    AnalyticNormalPass, CompiledGraph, DeviceRequirements, GpuContext, NodeParam, NormalMapPass,
    RunOptions, TargetView,
};
pub use graph::{GraphBuilder, NodeBuilder, NoiseGraph, Plan, PlanOptions, View};
