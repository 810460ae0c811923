//! A graph's node as source code for your own shaders: one module per shading language.
//! [`wgsl`] writes a self-contained WGSL module (the plain, precise and gradient functions).

pub mod wgsl;
