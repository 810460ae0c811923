//! GLSL export: the WGSL export translated by naga's GLSL back end, as GLSL 4.50 or GLSL ES
//! 3.00 code to include in a shader (no `#version`, no precision statements: the including
//! shader declares them, and ES needs `precision highp float; precision highp int;`), or in
//! the shape of Godot 4, three.js or Shadertoy.
//!
//! naga's GLSL writer writes one entry point (`void main()`) with its stage's declarations;
//! the export gives it an empty one and cuts it out, with the `#version` line, the precision
//! statements and the compute layout.

use naga::back::glsl;

use crate::error::{Error, Result};

use super::c_names;
use super::shader::{header, naga_module, Language, ShaderOptions, Target};
use super::wgsl::WgslModule;

/// The empty entry point naga's GLSL writer needs: a fragment one for ES 3.00 (which has no
/// compute shaders), a compute one for 4.50.
fn entry_point(language: Language) -> &'static str {
    match language {
        Language::GlslEs => "\n@fragment\nfn main() {}\n",
        _ => "\n@compute @workgroup_size(1)\nfn main() {}\n",
    }
}

/// The translated functions (helpers not yet prefixed), without the entry point, the
/// `#version` line, precision statements, extensions or layouts.
pub(crate) fn translate(module: &WgslModule, language: Language) -> Result<String> {
    let source = format!("{}{}", module.source, entry_point(language));
    let (ir, info) = naga_module(&source)?;
    let (version, stage) = match language {
        Language::GlslEs => (
            glsl::Version::Embedded {
                version: 300,
                is_webgl: false,
            },
            naga::ShaderStage::Fragment,
        ),
        _ => (glsl::Version::Desktop(450), naga::ShaderStage::Compute),
    };
    let options = glsl::Options {
        version,
        writer_flags: glsl::WriterFlags::INCLUDE_UNUSED_ITEMS,
        ..Default::default()
    };
    let pipeline = glsl::PipelineOptions {
        shader_stage: stage,
        entry_point: "main".into(),
        multiview: None,
    };
    let mut out = String::new();
    let mut writer = glsl::Writer::new(
        &mut out,
        &ir,
        &info,
        &options,
        &pipeline,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .map_err(|e| {
        Error::Gpu(format!(
            "naga's GLSL back end refused the export ({}): {e}",
            language.version()
        ))
    })?;
    writer.write().map_err(|e| {
        Error::Gpu(format!(
            "naga's GLSL back end failed ({}): {e}",
            language.version()
        ))
    })?;
    drop(writer);
    let code = strip_entry(&out)?;
    Ok(match &module.tables {
        Some(t) => table_block(&code, &module.name, t.group, t.binding)?,
        None => code,
    })
}

/// `code` with naga's declaration of the table buffer (`layout(std430) readonly buffer
/// type_15_block_0Compute { float _group_0_binding_2_cs[]; };`) replaced by one under the
/// export's names at the binding the caller chose (and, in Vulkan, the set), and its uses
/// renamed: `NAME_tables[i]`.
fn table_block(code: &str, name: &str, group: u32, binding: u32) -> Result<String> {
    let naga_name = format!("_group_{group}_binding_{binding}_cs");
    let block = code
        .lines()
        .find(|l| l.contains("readonly buffer") && l.contains(&format!("{naga_name}[]")))
        .ok_or_else(|| Error::Gpu("naga's GLSL output has no table buffer (a bug)".into()))?;
    let declaration = format!(
        "#ifdef VULKAN\n\
         layout(std430, set = {group}, binding = {binding}) readonly buffer {name}_Tables {{ \
         float {name}_tables[]; }};\n\
         #else\n\
         layout(std430, binding = {binding}) readonly buffer {name}_Tables {{ \
         float {name}_tables[]; }};\n\
         #endif"
    );
    let code = code.replacen(block, &declaration, 1);
    let map = std::iter::once((naga_name, format!("{name}_tables"))).collect();
    Ok(c_names::rename(&code, &map))
}

/// `out` without naga's preamble lines and the entry point `main`.
fn strip_entry(out: &str) -> Result<String> {
    let main = c_names::items(out)
        .into_iter()
        .find(|i| i.name == "main")
        .ok_or_else(|| Error::Gpu("naga's GLSL output has no main (a bug)".into()))?;
    let without_main = format!("{}{}", &out[..main.span.start], &out[main.span.end..]);
    let mut s = String::with_capacity(without_main.len());
    for line in without_main.lines() {
        let t = line.trim_start();
        if t.starts_with("#version")
            || t.starts_with("#extension")
            || t.starts_with("precision ")
            || (t.starts_with("layout(local_size_x") && t.ends_with("in;"))
        {
            continue;
        }
        s.push_str(line);
        s.push('\n');
    }
    Ok(s.trim().to_string() + "\n")
}

/// The file: the header, the target's notes and the code.
pub(crate) fn finish(module: &WgslModule, options: &ShaderOptions, code: &str) -> String {
    let mut s = header(module, options.language, options.target, "vec", "ivec");
    s.push_str(match (options.language, options.target) {
        (_, Some(Target::Godot)) => {
            "//\n// Godot 4: save as a .gdshaderinc and `#include \"res://path/NAME.gdshaderinc\"`\n\
             // in a .gdshader (canvas_item, spatial, ...).\n"
        }
        (_, Some(Target::Threejs)) => {
            "//\n// three.js: a ShaderMaterial / RawShaderMaterial with glslVersion: THREE.GLSL3;\n\
             // put this text before your fragment shader's main (RawShaderMaterial: after\n\
             // `precision highp float; precision highp int;`).\n"
        }
        (_, Some(Target::Shadertoy)) => {
            "//\n// Shadertoy: paste into the Common tab; call the functions from any pass.\n"
        }
        (Language::GlslEs, _) => {
            "//\n// Include after `#version 300 es` and `precision highp float; precision highp int;`.\n"
        }
        _ => "//\n// Include after `#version 450` (e.g. with GL_GOOGLE_include_directive).\n",
    });
    s.push('\n');
    s.push_str(code);
    s.replace("NAME.gdshaderinc", &format!("{}.gdshaderinc", module.name))
}
