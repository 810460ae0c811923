//! The functions an exported module gives a mapped stage (see `graph::mapping`): its map
//! and the map's Jacobian at a position, through the library's `map_position` and
//! `map_jacobian` (`shaders/lib/mapping.wgsl`) with the map's numbers compiled in.

use crate::twin::lib::mapping::MappingUniform;

fn floats(v: [f32; 4]) -> String {
    format!(
        "vec4<f32>({:?}f, {:?}f, {:?}f, {:?}f)",
        v[0], v[1], v[2], v[3]
    )
}

fn columns(c: &[[f32; 4]]) -> String {
    let items: Vec<String> = c.iter().map(|v| floats(*v)).collect();
    items.join(", ")
}

/// `<p>_map(p) -> vec4<f32>` and `<p>_map_jacobian(p) -> mat4x4<f32>` (column `a` holding
/// d s_a / d p, so `jm * v` is the chain rule of a gradient `v` along `s`), for the map
/// `m` of a unit view (pixel = position); `lib` spells a library name as the module does.
pub(super) fn map_functions(p: &str, m: &MappingUniform, lib: impl Fn(&str) -> String) -> String {
    let k = m.kind;
    let literal = format!(
        "{}({}, {}, {}, {}, vec4<u32>({}u, {}u, {}u, {}u))",
        lib("Mapping"),
        columns(&m.pre),
        columns(&m.pre_p),
        floats(m.curve),
        columns(&m.post),
        k[0],
        k[1],
        k[2],
        k[3]
    );
    format!(
        "const {p}_mapping = {literal};\n\
         fn {p}_map(p: vec4<f32>) -> vec4<f32> {{ return {}({p}_mapping, p); }}\n\
         fn {p}_map_jacobian(p: vec4<f32>) -> mat4x4<f32> {{\n\
         \x20   let j = {}({p}_mapping, p);\n\
         \x20   return transpose(mat4x4<f32>(j.dx, j.dy, j.dz, vec4<f32>(0.0)));\n\
         }}\n",
        lib("map_position"),
        lib("map_jacobian")
    )
}
