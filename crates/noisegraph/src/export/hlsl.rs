//! HLSL export: the WGSL export translated by naga's HLSL back end for shader model 5.1 (the
//! code compiles for SM 5 and SM 6), as an include, or in the shape of Unity's Custom Function
//! node or Unreal's `.ush` includes.

use std::fmt::Write;

use naga::back::hlsl;

use crate::error::{Error, Result};

use super::c_names;
use super::shader::{header, naga_module, Language, ShaderOptions, Target};
use super::wgsl::WgslModule;

/// The translated functions (helpers not yet prefixed). The module has no entry point, so
/// the back end writes only the functions and their helpers.
pub(crate) fn translate(module: &WgslModule) -> Result<String> {
    let (ir, info) = naga_module(&module.source)?;
    let options = hlsl::Options {
        shader_model: hlsl::ShaderModel::V5_1,
        ..Default::default()
    };
    let pipeline = hlsl::PipelineOptions { entry_point: None };
    let mut out = String::new();
    let mut writer = hlsl::Writer::new(&mut out, &options, &pipeline);
    writer
        .write(&ir, &info, None)
        .map_err(|e| Error::Gpu(format!("naga's HLSL back end failed: {e}")))?;
    drop(writer);
    Ok(brace_initializers(&unsigned_negation(out.trim())) + "\n")
}

/// `code` with naga's wrapping negation of an integer (`asint(-asuint(val))`, in its `abs`
/// helper) written as a subtraction (`asint(0u - asuint(val))`, the same bits): glslang turns
/// a negated `uint` into `OpSNegate` on an unsigned type, which naga's SPIR-V front end (wgpu's
/// loader) refuses.
fn unsigned_negation(code: &str) -> String {
    code.replace("(-asuint(", "(0u - asuint(")
}

/// `code` with the module-scope constants and tables that naga initializes with its array
/// constructor helpers (`static const float4 t[4] = Constructarray4_float4_(a, b, c, d);`,
/// `static float t[N] = ...`) initialized with brace lists instead (`= { a, b, c, d };`): the
/// form every HLSL compiler takes (glslang's HLSL front end mistakes a global initializer's
/// call for recursion).
fn brace_initializers(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut at = 0;
    for item in c_names::items(code) {
        let text = &code[item.span.clone()];
        // Module-scope variables only: naga writes no `static` functions.
        if !text.starts_with("static ") {
            continue;
        }
        out.push_str(&code[at..item.span.start]);
        out.push_str(&replace_array_constructors(text));
        at = item.span.end;
    }
    out.push_str(&code[at..]);
    out
}

/// Every `...Constructarray...(args)` call in `text` as `{ args }`, nested ones too.
fn replace_array_constructors(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(found) = rest.find("Constructarray") {
        // The identifier's start: back over its prefix.
        let start = rest[..found]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let Some(open) = rest[found..].find('(').map(|i| found + i) else {
            break;
        };
        let mut depth = 0;
        let mut close = open;
        for (i, c) in rest[open..].char_indices() {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        close = open + i;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push_str(&rest[..start]);
        out.push_str("{ ");
        out.push_str(&replace_array_constructors(&rest[open + 1..close]));
        out.push_str(" }");
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

/// The file: the header, the target's wrappers and the code.
pub(crate) fn finish(module: &WgslModule, options: &ShaderOptions, code: &str) -> String {
    let n = &module.name;
    let mut s = header(module, Language::Hlsl, options.target, "float", "int");
    match options.target {
        Some(Target::Unity) => {
            let _ = write!(
                s,
                "//\n// Unity (Shader Graph): a Custom Function node, Type File, Source this file,\n\
                 // Name `{n}`: inputs p (Vector{d}), outputs v (Float); or Name `{n}_grad`:\n\
                 // outputs v (Float) and d (Vector{d}).\n\
                 #ifndef {guard}\n#define {guard}\n\n",
                d = module.dims,
                guard = format!("{}_INCLUDED", n.to_uppercase())
            );
        }
        Some(Target::Unreal) => {
            s.push_str(
                "//\n// Unreal: a Custom material node with this file in Include File Paths\n\
                 // (a virtual shader path such as /Project/NAME.ush) and Code `return NAME(UV);`.\n\
                 #pragma once\n\n",
            );
        }
        _ => s.push_str("//\n// Include (#include) or paste into any HLSL shader.\n\n"),
    }
    s.push_str(code);
    if options.target == Some(Target::Unity) {
        s.push_str(&unity_wrappers(module));
        s.push_str("\n#endif\n");
    }
    s.replace("NAME", n)
}

/// The functions Unity's Custom Function node calls: `NAME_float` and `NAME_half` (the
/// node's precision picks one), the gradient's with out parameters.
fn unity_wrappers(module: &WgslModule) -> String {
    let n = &module.name;
    let d = module.dims;
    let swizzle = &"xyzw"[..d as usize];
    let mut s = String::from("\n// Unity Custom Function node entry points.\n");
    for (suffix, scalar) in [("float", "float"), ("half", "half")] {
        let _ = writeln!(
            s,
            "void {n}_{suffix}({scalar}{d} p, out {scalar} v) {{\n    v = ({scalar}){n}((float{d})p);\n}}"
        );
        if module.no_gradient.is_none() {
            let _ = writeln!(
                s,
                "void {n}_grad_{suffix}({scalar}{d} p, out {scalar} v, out {scalar}{d} d) {{\n    \
                 {n}_NoiseGrad g = {n}_grad((float{d})p);\n    v = ({scalar})g.value;\n    \
                 d = ({scalar}{d})g.d.{swizzle};\n}}"
            );
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn unsigned_negation_becomes_a_subtraction() {
        assert_eq!(
            super::unsigned_negation("return val >= 0 ? val : asint(-asuint(val));"),
            "return val >= 0 ? val : asint(0u - asuint(val));"
        );
    }

    #[test]
    fn array_constructors_become_brace_lists() {
        let code = "typedef float4 ret_Constructarray2_float4_[2];\n\
                    static const float4 h_k[2] = h_Constructarray2_float4_(float4(1.0, 2.0, 3.0, 4.0), (0.0).xxxx);\n\
                    float f() { return h_Constructarray2_float4_((0.0).xxxx, (1.0).xxxx)[0].x; }";
        let out = super::brace_initializers(code);
        let table =
            super::brace_initializers("static float h_t[2] = h_Constructarray2_float_(0.5, 1.0);");
        assert_eq!(table, "static float h_t[2] = { 0.5, 1.0 };");
        assert!(
            out.contains(
                "static const float4 h_k[2] = { float4(1.0, 2.0, 3.0, 4.0), (0.0).xxxx };"
            ),
            "{out}"
        );
        // Calls inside functions stay calls.
        assert!(
            out.contains("return h_Constructarray2_float4_((0.0).xxxx"),
            "{out}"
        );
    }
}
