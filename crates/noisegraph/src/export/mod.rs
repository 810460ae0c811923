//! A graph's node as source code for your own shaders: one module per shading language.
//! [`wgsl`] writes a self-contained WGSL module (the plain, precise and gradient functions);
//! [`shader`] writes it in any language ([`shader::export_shader`]): GLSL (`glsl.rs`), HLSL
//! (`hlsl.rs`) and MSL (`msl.rs`) are translated from the WGSL by naga's back ends, optionally in
//! an engine's shape.

pub(crate) mod c_names;
mod glsl;
mod hlsl;
mod msl;
pub mod shader;
pub mod wgsl;

pub use shader::{
    export_shader, table_buffer_declaration, Language, ShaderExport, ShaderOptions, Target,
};
