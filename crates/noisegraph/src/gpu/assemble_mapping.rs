//! The generated prelude functions of mapped generate stages (see `graph::mapping` and
//! `shaders/lib/mapping.wgsl`): where the stage template's pixel position goes, and the
//! chain rule through the map in gradient form. Twin: `engine::mapped`.

use crate::field::FieldForm;
use crate::graph::GenerateStage;

/// `view_position(pix)`: the pixel itself in a stage that is not mapped; the mapped position
/// (`map_position` of the stage's uniforms) in a mapped one, which in gradient form also
/// keeps the map's Jacobian at the pixel for `octave_gradient`.
pub(crate) fn view_position(stage: &GenerateStage, form: FieldForm) -> String {
    match (stage.mapping.is_some(), form) {
        (false, _) => "fn view_position(pix: vec4<f32>) -> vec4<f32> { return pix; }\n".into(),
        (true, FieldForm::Value) => "fn view_position(pix: vec4<f32>) -> vec4<f32> { return map_position(params.mapping, pix); }\n".into(),
        (true, FieldForm::Gradient) => "var<private> map_j: MapJacobian;\n\
             fn view_position(pix: vec4<f32>) -> vec4<f32> {\n\
             \x20   map_j = map_jacobian(params.mapping, pix);\n\
             \x20   return map_position(params.mapping, pix);\n\
             }\n"
        .into(),
    }
}

/// `octave_gradient` of a mapped stage: d local / d s is the octave's step (its frequency)
/// on every axis, times d s / d p (the Jacobian `map_j`); a warp's displacement term is
/// already along the view axes (its fields are mapped stages too).
pub(crate) fn octave_gradient(warped: bool) -> String {
    let warp = if warped {
        "    let s = nd * o.warp;\n\
         \x20   return g + vec3<f32>(dot(s, w.dx), dot(s, w.dy), dot(s, w.dz));\n"
    } else {
        "    return g;\n"
    };
    format!(
        "fn octave_gradient(nd: vec4<f32>, o: Octave, w: Displaced) -> vec3<f32> {{\n\
         \x20   let t = nd * o.step;\n\
         \x20   let g = vec3<f32>(dot(t, map_j.dx), dot(t, map_j.dy), dot(t, map_j.dz));\n\
         {warp}}}\n"
    )
}
