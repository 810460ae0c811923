//! A node as source code in any shading language: WGSL as [`super::wgsl`] writes it, or GLSL,
//! HLSL and MSL translated from that WGSL by naga's back ends (`noisegraph shader`,
//! [`export_shader`]), optionally in the shape an engine expects ([`Target`]).
//!
//! Every language defines the same functions as the WGSL export, with the language's types
//! (GLSL `vec2` / `ivec2`, HLSL `float2` / `int2`, MSL `metal::float2` / `metal::int2`):
//! `NAME(p)`, `NAME_precise(cell, local)` and, when the node has an analytic gradient,
//! `NAME_grad(p)` and `NAME_grad_precise(cell, local)` returning the struct `NAME_NoiseGrad`
//! (`value`, and `d`: the derivatives x y z w). Every other name the file declares, the back
//! ends' own helpers included, starts with `NAME_`.
//!
//! Tables: GLSL 4.50 and HLSL translate the WGSL export itself (with a smaller inline limit),
//! so they hold tables as it does: up to [`super::wgsl::TRANSLATED_INLINE_TABLE_FLOATS`]
//! floats in a global array with an initializer (GLSL `float NAME_t0_table[N] = ...;`, HLSL
//! `static float ...`), larger ones in one storage buffer at [`ShaderOptions::table_binding`]
//! ([`table_buffer_declaration`]; the data is [`ShaderExport::tables`]). Not `const` arrays:
//! glslang copies a dynamically indexed constant array into a function variable at every
//! lookup, which Mesa's llvmpipe compiled for over ten minutes (OpenSimplex2 3D's 144
//! floats); compilers that see a global never written treat it as constant data. GLSL ES, Godot and Metal inline every table
//! (up to [`super::wgsl::MAX_TRANSLATED_TABLE_FLOATS`]) as a constant array: GLSL ES and
//! Godot have no storage buffer a file could declare for itself, Godot no other module-scope
//! variables and MSL no program-scope private ones.
//!
//! Language versions: GLSL 4.50 ([`Language::Glsl`]) and GLSL ES 3.00 ([`Language::GlslEs`])
//! without a `#version` line (the including shader declares it); HLSL for shader model 5.1
//! and later (SM 5 and SM 6 compilers); MSL 2.0.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};
use crate::graph::NoiseGraph;

use super::wgsl::{
    export_wgsl, export_wgsl_inlined, export_wgsl_inlining, TableBinding, WgslOptions,
    TRANSLATED_INLINE_TABLE_FLOATS,
};
use super::{c_names, glsl, hlsl, msl};

/// A shading language the export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// WGSL (WebGPU, wgpu, Bevy): [`super::wgsl::export_wgsl`]'s module.
    Wgsl,
    /// GLSL 4.50 (OpenGL 4.5, Vulkan through glslang).
    Glsl,
    /// GLSL ES 3.00 (WebGL2, three.js, Shadertoy; the base of Godot's shading language).
    GlslEs,
    /// HLSL, shader model 5.1 and later (Unity, Unreal, Direct3D 11 and 12).
    Hlsl,
    /// Metal Shading Language 2.0.
    Msl,
}

impl Language {
    /// Every language, in the order the CLI lists them.
    pub const ALL: [Language; 5] = [
        Language::Wgsl,
        Language::Glsl,
        Language::GlslEs,
        Language::Hlsl,
        Language::Msl,
    ];

    /// The name `--lang` takes.
    pub fn name(self) -> &'static str {
        match self {
            Language::Wgsl => "wgsl",
            Language::Glsl => "glsl",
            Language::GlslEs => "glsl-es",
            Language::Hlsl => "hlsl",
            Language::Msl => "msl",
        }
    }

    /// The version the code is written for, as the file's header states it.
    pub fn version(self) -> &'static str {
        match self {
            Language::Wgsl => "WGSL",
            Language::Glsl => "GLSL 4.50",
            Language::GlslEs => "GLSL ES 3.00",
            Language::Hlsl => "HLSL (shader model 5.1 and later)",
            Language::Msl => "MSL 2.0",
        }
    }

    /// Whether an export in this language reads large tables from a storage buffer
    /// ([`ShaderOptions::table_binding`]: WGSL over [`super::wgsl::INLINE_TABLE_FLOATS`]
    /// floats, GLSL 4.50 and HLSL over [`super::wgsl::TRANSLATED_INLINE_TABLE_FLOATS`]); the
    /// others inline every table.
    pub fn has_table_buffer(self) -> bool {
        matches!(self, Language::Wgsl | Language::Glsl | Language::Hlsl)
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Language::Wgsl => "wgsl",
            Language::Glsl | Language::GlslEs => "glsl",
            Language::Hlsl => "hlsl",
            Language::Msl => "metal",
        }
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Language {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Language::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| {
                Error::InvalidRequest(format!(
                    "unknown shading language '{s}' (one of: wgsl, glsl, glsl-es, hlsl, msl)"
                ))
            })
    }
}

/// An engine whose shape the export writes (its language, wrappers and file conventions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Unity's Custom Function node (File mode): HLSL with `void NAME_float(float2 p, out
    /// float v)` and `NAME_half`, plus `NAME_grad_float(p, out v, out d)` with a gradient.
    Unity,
    /// Unreal's Custom material node or a `.ush` include: HLSL under `#pragma once`.
    Unreal,
    /// Godot 4: a `.gdshaderinc` in its shading language (GLSL ES 3.00 without `#version`
    /// or precision statements).
    Godot,
    /// three.js (WebGL2, `glslVersion: THREE.GLSL3`): GLSL ES 3.00.
    Threejs,
    /// Shadertoy's Common tab: GLSL ES 3.00.
    Shadertoy,
    /// Metal: an MSL 2.0 header.
    Metal,
}

impl Target {
    /// Every target, in the order the CLI lists them.
    pub const ALL: [Target; 6] = [
        Target::Unity,
        Target::Unreal,
        Target::Godot,
        Target::Threejs,
        Target::Shadertoy,
        Target::Metal,
    ];

    /// The name `--target` takes.
    pub fn name(self) -> &'static str {
        match self {
            Target::Unity => "unity",
            Target::Unreal => "unreal",
            Target::Godot => "godot",
            Target::Threejs => "threejs",
            Target::Shadertoy => "shadertoy",
            Target::Metal => "metal",
        }
    }

    /// The language the engine compiles.
    pub fn language(self) -> Language {
        match self {
            Target::Unity | Target::Unreal => Language::Hlsl,
            Target::Godot | Target::Threejs | Target::Shadertoy => Language::GlslEs,
            Target::Metal => Language::Msl,
        }
    }

    /// The file extension the engine expects.
    pub fn extension(self) -> &'static str {
        match self {
            Target::Unity => "hlsl",
            Target::Unreal => "ush",
            Target::Godot => "gdshaderinc",
            Target::Threejs | Target::Shadertoy => "glsl",
            Target::Metal => "h",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Target {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Target::ALL
            .into_iter()
            .find(|t| t.name() == s)
            .ok_or_else(|| {
                Error::InvalidRequest(format!(
                    "unknown target '{s}' (one of: unity, unreal, godot, threejs, shadertoy, metal)"
                ))
            })
    }
}

/// What to export.
#[derive(Debug, Clone)]
pub struct ShaderOptions {
    /// The main function's name and the prefix of every other name (see
    /// [`WgslOptions::name`]).
    pub name: String,
    /// The node to export (the graph's output when `None`).
    pub node: Option<String>,
    /// The language.
    pub language: Language,
    /// The engine shape, if any; its language must be `language`.
    pub target: Option<Target>,
    /// WGSL, GLSL 4.50 and HLSL: the group (GLSL: Vulkan set; HLSL: register space) and
    /// binding (HLSL: `t` register) of the table buffer, for graphs that need one.
    pub table_binding: [u32; 2],
}

impl ShaderOptions {
    /// Exports the graph's output as `name` in `language`.
    pub fn new(name: impl Into<String>, language: Language) -> Self {
        ShaderOptions {
            name: name.into(),
            node: None,
            language,
            target: None,
            table_binding: [0, 0],
        }
    }

    /// Exports the graph's output as `name` in `target`'s language and shape.
    pub fn for_target(name: impl Into<String>, target: Target) -> Self {
        ShaderOptions {
            target: Some(target),
            ..ShaderOptions::new(name, target.language())
        }
    }
}

/// An exported shader file.
#[derive(Debug, Clone)]
pub struct ShaderExport {
    /// The source text.
    pub source: String,
    /// Its language.
    pub language: Language,
    /// The engine shape it was written in, if any.
    pub target: Option<Target>,
    /// The main function's name (the prefix of every other name).
    pub name: String,
    /// The node exported.
    pub node: String,
    /// The node's dimension: the functions take N-vector positions.
    pub dims: u32,
    /// Why `NAME_grad` is missing, or `None` when the file defines it.
    pub no_gradient: Option<String>,
    /// WGSL, GLSL 4.50 and HLSL: the storage buffer the file reads, when a table is too large
    /// to inline ([`table_buffer_declaration`]).
    pub tables: Option<TableBinding>,
}

/// The functions a translated export must define under their exact names, the gradient's
/// with `gradient`.
pub(crate) fn public_functions(name: &str, gradient: bool) -> Vec<String> {
    let mut names = vec![name.to_string(), format!("{name}_precise")];
    if gradient {
        names.push(format!("{name}_grad"));
        names.push(format!("{name}_grad_precise"));
    }
    names
}

/// Exports `options.node` of `graph` in `options.language` (see the module docs).
pub fn export_shader(graph: &NoiseGraph, options: &ShaderOptions) -> Result<ShaderExport> {
    if let Some(target) = options.target {
        let expected = target.language();
        if expected != options.language {
            return Err(Error::InvalidRequest(format!(
                "--target {target} writes {expected}, not {} (drop --lang or give --lang {expected})",
                options.language
            )));
        }
    }
    if options.language == Language::Wgsl {
        let module = export_wgsl(
            graph,
            &WgslOptions {
                name: options.name.clone(),
                node: options.node.clone(),
                table_binding: options.table_binding,
            },
        )?;
        return Ok(ShaderExport {
            source: module.source,
            language: Language::Wgsl,
            target: None,
            name: module.name,
            node: module.node,
            dims: module.dims,
            no_gradient: module.no_gradient,
            tables: module.tables,
        });
    }
    let module = match options.language {
        // The WGSL export itself: small tables in private arrays, large ones in its storage
        // buffer (see the module docs).
        Language::Glsl | Language::Hlsl => export_wgsl_inlining(
            graph,
            &WgslOptions {
                name: options.name.clone(),
                node: options.node.clone(),
                table_binding: options.table_binding,
            },
            TRANSLATED_INLINE_TABLE_FLOATS,
        )?,
        _ => export_wgsl_inlined(graph, &options.name, options.node.as_deref())?,
    };
    let name = &options.name;
    let translated = match options.language {
        Language::Glsl | Language::GlslEs => glsl::translate(&module, options.language)?,
        Language::Hlsl => hlsl::translate(&module)?,
        Language::Msl => msl::translate(&module)?,
        Language::Wgsl => unreachable!("returned above"),
    };
    let translated = c_names::prefix_helpers(&translated, name);
    let declared: Vec<String> = c_names::items(&translated)
        .into_iter()
        .map(|i| i.name)
        .collect();
    for function in public_functions(name, module.no_gradient.is_none()) {
        if !declared.contains(&function) {
            return Err(Error::InvalidRequest(format!(
                "--name '{name}' is not usable in {}: its back end renames `{function}` (a \
                 reserved word, a name ending in a digit, or a short name such as `h` or `p` \
                 that the noise code uses for its own variables); choose another name, such as \
                 '{name}_noise'",
                options.language.version()
            )));
        }
    }
    let body = match options.language {
        Language::Glsl | Language::GlslEs => glsl::finish(&module, options, &translated),
        Language::Hlsl => hlsl::finish(&module, options, &translated),
        Language::Msl => msl::finish(&module, options, &translated),
        Language::Wgsl => unreachable!("returned above"),
    };
    Ok(ShaderExport {
        source: body,
        language: options.language,
        target: options.target,
        name: name.clone(),
        node: module.node,
        dims: module.dims,
        no_gradient: module.no_gradient,
        tables: module.tables,
    })
}

/// Every name an export declares at module scope (functions, structs, constants, typedefs),
/// for tests and users who check their own names against it.
pub fn declared_names(export: &ShaderExport) -> BTreeSet<String> {
    match export.language {
        Language::Wgsl => super::wgsl::rename::declared_names(&export.source)
            .into_iter()
            .collect(),
        _ => c_names::items(&export.source)
            .into_iter()
            .map(|i| i.name)
            .collect(),
    }
}

/// The declaration of the table buffer an export in `language` reads (see
/// [`ShaderOptions::table_binding`]), as the file declares it.
pub fn table_buffer_declaration(language: Language, name: &str, tables: &TableBinding) -> String {
    let (g, b) = (tables.group, tables.binding);
    match language {
        Language::Glsl => format!(
            "`readonly buffer {name}_Tables {{ float {name}_tables[]; }}` at binding {b} \
             (set {g} in Vulkan)"
        ),
        Language::Hlsl => format!("`ByteAddressBuffer {name}_tables : register(t{b}, space{g})`"),
        _ => format!("`@group({g}) @binding({b}) var<storage, read> {name}_tables: array<f32>`"),
    }
}

/// Parses and validates the WGSL a translation starts from.
pub(crate) fn naga_module(source: &str) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let bug = |e: String| {
        Error::Gpu(format!(
            "the exported module failed validation (a bug): {e}"
        ))
    };
    let module = naga::front::wgsl::parse_str(source).map_err(|e| bug(e.emit_to_string(source)))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| bug(e.emit_to_string(source)))?;
    Ok((module, info))
}

/// A translation's header: what the file defines, in `language`'s types (`vec` and `ivec`
/// are the N-vector type names, e.g. `vec2` / `ivec2` or `float2` / `int2`).
pub(crate) fn header(
    module: &super::wgsl::WgslModule,
    language: Language,
    target: Option<Target>,
    vec: &str,
    ivec: &str,
) -> String {
    let n = &module.name;
    let dims = module.dims;
    let shape = match target {
        Some(t) => format!(" for {}", t.name()),
        None => String::new(),
    };
    let mut s = format!(
        "// noisegraph {} {} export{shape}: node '{}' as `{n}`.\n\
         //\n\
         // float {n}({vec}{dims} p)\n\
         //     The node's value at p, in the coordinates of bakes (pixel (x, y) of a bake\n\
         //     samples origin + (x, y) * extent / size).\n\
         // float {n}_precise({ivec}{dims} cell, {vec}{dims} local)\n\
         //     The value at cell + local, precise for any 32-bit cell; split positions on the\n\
         //     host into cell = floor(p), local = p - floor(p).\n",
        env!("CARGO_PKG_VERSION"),
        language.version(),
        module.node,
    );
    match &module.no_gradient {
        None => s.push_str(&format!(
            "// {n}_NoiseGrad {n}_grad({vec}{dims} p)\n\
             // {n}_NoiseGrad {n}_grad_precise({ivec}{dims} cell, {vec}{dims} local)\n\
             //     The value (.value) and its gradient (.d: x, y, z, w; 0 past {dims}D) with\n\
             //     respect to p.\n"
        )),
        Some(why) => s.push_str(&format!("// No {n}_grad: {why}.\n")),
    }
    match &module.tables {
        Some(t) => s.push_str(&format!(
            "//\n// Needs one buffer ({} floats: the table data exported beside this file, as\n\
             // little-endian f32; smaller tables are inlined):\n//     {}\n",
            t.data.len(),
            table_buffer_declaration(language, n, t)
        )),
        None => s.push_str("//\n// Needs no bindings (tables are inlined).\n"),
    }
    s.push_str(&format!(
        "// Every other name starts with `{n}_`.\n\
         // Written by naga's back end from the WGSL export. Generated: do not edit; export\n\
         // again instead.\n"
    ));
    s
}
