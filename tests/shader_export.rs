//! GLSL, HLSL and MSL exports (`noisegraph shader`, `export_shader`) without a GPU: every
//! catalog graph exports in every language with every name prefixed and the public functions
//! under their exact names; the GLSL ES 3.00 fragment form (three.js, Shadertoy, and Godot's
//! text as GLSL ES) validates with glslang after a user's own `hash`, `fade`, `lerp`, `noise`
//! and `fbm`; Unity's and Unreal's shapes compile with glslang's HLSL front end; the MSL is
//! read back by the export's own declaration scanner (no Metal compiler here). The GLSL 4.50
//! and HLSL compute contract is tests/shader_export_gpu.rs.

mod common;
use common::{catalog, glslang};

use noisegraph::export::shader::declared_names;
use noisegraph::export::wgsl::{export_wgsl, WgslOptions};
use noisegraph::export::{
    export_shader, table_buffer_declaration, Language, ShaderExport, ShaderOptions, Target,
};

const USER_FUNCTIONS_ES: &str = "
uint hash(uint x) { return x * 747796405u; }
float fade(float t) { return t * t * (3.0 - 2.0 * t); }
float lerp(float a, float b, float t) { return a + t * (b - a); }
float noise(vec2 p) { return fade(p.x); }
float fbm(vec2 p) { return noise(p) * 0.5; }
";

/// The same functions in HLSL, for the Unity and Unreal shapes.
const USER_FUNCTIONS_HLSL: &str = "
uint hash(uint x) { return x * 747796405u; }
float fade(float t) { return t * t * (3.0 - 2.0 * t); }
float lerp(float a, float b, float t) { return a + t * (b - a); }
float noise(float2 p) { return fade(p.x); }
float fbm(float2 p) { return noise(p) * 0.5; }
";

/// The calls a user makes: every public function, summed into one float.
fn calls(export: &ShaderExport, vec: &str, ivec: &str) -> String {
    let d = export.dims;
    let mut call =
        format!("height({vec}{d}(0.25)) + height_precise({ivec}{d}(1000000), {vec}{d}(0.5))");
    if export.no_gradient.is_none() {
        call.push_str(&format!(
            " + height_grad({vec}{d}(0.1)).d.x + height_grad_precise({ivec}{d}(-3), {vec}{d}(0.5)).value"
        ));
    }
    call
}

fn assert_prefixed(label: &str, export: &ShaderExport) {
    let names = declared_names(export);
    for name in &names {
        assert!(
            name == "height" || name.starts_with("height_"),
            "{label} ({}): unprefixed name {name}",
            export.language
        );
    }
    let mut public = vec!["height", "height_precise"];
    if export.no_gradient.is_none() {
        public.extend(["height_grad", "height_grad_precise", "height_NoiseGrad"]);
    }
    for name in public {
        assert!(
            names.contains(name),
            "{label} ({}): {name} missing",
            export.language
        );
    }
}

#[test]
fn every_catalog_graph_exports_in_every_language_with_prefixed_names() {
    for case in catalog::translatable() {
        for language in [
            Language::Glsl,
            Language::GlslEs,
            Language::Hlsl,
            Language::Msl,
        ] {
            let export = export_shader(&case.graph, &ShaderOptions::new("height", language))
                .unwrap_or_else(|e| panic!("{} ({language}): {e}", case.label));
            assert_prefixed(&case.label, &export);
            // GLSL ES and MSL inline every table; GLSL 4.50 and HLSL read the large ones (at
            // least those the WGSL export reads from its buffer) from a buffer they declare.
            let wgsl = export_wgsl(&case.graph, &WgslOptions::new("height")).unwrap();
            match &export.tables {
                Some(t) => {
                    assert!(language.has_table_buffer(), "{} ({language})", case.label);
                    let declaration = table_buffer_declaration(language, "height", t);
                    assert!(
                        export.source.contains(&declaration),
                        "{} ({language}): the header names {declaration}",
                        case.label
                    );
                    // The code (not only the header) declares it at the default binding.
                    let declared = match language {
                        Language::Hlsl => "ByteAddressBuffer height_tables : register(t0",
                        _ => "layout(std430, binding = 0) readonly buffer height_Tables",
                    };
                    assert!(
                        export
                            .source
                            .lines()
                            .any(|l| !l.starts_with("//") && l.contains(declared)),
                        "{} ({language})",
                        case.label
                    );
                }
                None => assert!(
                    wgsl.tables.is_none() || !language.has_table_buffer(),
                    "{} ({language}): no table buffer where WGSL has one",
                    case.label
                ),
            }
            assert!(export.source.contains(language.version()));
            let code_lines = || export.source.lines().filter(|l| !l.starts_with("//"));
            assert!(
                !code_lines().any(|l| l.starts_with("#version") || l.contains("void main(")),
                "{} ({language}): the back end's entry point or version is left",
                case.label
            );
        }
    }
}

#[test]
fn the_wgsl_language_is_the_wgsl_export() {
    let case = &catalog::translatable()[20];
    let shader = export_shader(&case.graph, &ShaderOptions::new("height", Language::Wgsl)).unwrap();
    let wgsl = export_wgsl(&case.graph, &WgslOptions::new("height")).unwrap();
    assert_eq!(shader.source, wgsl.source);
}

/// A GLSL ES 3.00 fragment shader with the user's functions, the export and a main.
fn es_fragment(export: &ShaderExport, code: &str) -> String {
    format!(
        "#version 300 es\nprecision highp float;\nprecision highp int;\nout vec4 frag_color;\n\
         {USER_FUNCTIONS_ES}\n{code}\n\
         void main() {{\n    frag_color = vec4({});\n}}\n",
        calls(export, "vec", "ivec")
    )
}

#[test]
fn the_glsl_es_fragment_form_validates_with_glslang() {
    for case in catalog::translatable() {
        for target in [
            None,
            Some(Target::Threejs),
            Some(Target::Shadertoy),
            Some(Target::Godot),
        ] {
            let options = match target {
                Some(t) => ShaderOptions::for_target("height", t),
                None => ShaderOptions::new("height", Language::GlslEs),
            };
            let export = export_shader(&case.graph, &options).unwrap();
            if target == Some(Target::Godot) {
                // Godot's shading language: no #version, no precision statements.
                assert!(!export.source.contains("precision "), "{}", case.label);
            }
            glslang::validate("es", "frag", &es_fragment(&export, &export.source))
                .unwrap_or_else(|e| panic!("{} ({target:?}): {e}", case.label));
        }
    }
}

#[test]
fn unity_and_unreal_shapes_compile_with_glslangs_hlsl_front_end() {
    for case in catalog::translatable().iter().step_by(3) {
        for target in [Target::Unity, Target::Unreal] {
            let export =
                export_shader(&case.graph, &ShaderOptions::for_target("height", target)).unwrap();
            let d = export.dims;
            let mut body = String::new();
            if target == Target::Unity {
                body.push_str(&format!(
                    "    float v; half h;\n    height_float((float{d})0.25, v);\n    height_half((half{d})0.25, h);\n    out_[0] = v + h;\n"
                ));
                if export.no_gradient.is_none() {
                    body.push_str(&format!(
                        "    float3 unused; float{d} dv;\n    height_grad_float((float{d})0.25, v, dv);\n    out_[1] = v + dv.x;\n"
                    ));
                }
                assert!(export
                    .source
                    .contains(&format!("void height_float(float{d} p, out float v)")));
            } else {
                body.push_str(&format!(
                    "    out_[0] = {};\n",
                    calls(&export, "float", "int")
                ));
                assert!(export.source.contains("#pragma once"));
            }
            let user = format!(
                "[[vk::binding(0, 0)]] RWStructuredBuffer<float> out_;\n\
                 {USER_FUNCTIONS_HLSL}\n\
                 #include \"height.{ext}\"\n\
                 [numthreads(1, 1, 1)]\nvoid main() {{\n{body}}}\n",
                ext = target.extension()
            );
            let name = format!("height.{}", target.extension());
            glslang::spirv(
                "engine",
                &[("user.hlsl", &user), (&name, &export.source)],
                true,
            )
            .unwrap_or_else(|e| panic!("{} ({target}): {e}", case.label));
        }
    }
}

/// Whether `text`'s braces and parentheses balance.
fn balanced(text: &str) -> bool {
    let mut stack = Vec::new();
    for c in text.chars() {
        match c {
            '{' | '(' | '[' => stack.push(c),
            '}' | ')' | ']' => {
                let open = stack.pop();
                let matched = matches!(
                    (open, c),
                    (Some('{'), '}') | (Some('('), ')') | (Some('['), ']')
                );
                if !matched {
                    return false;
                }
            }
            _ => {}
        }
    }
    stack.is_empty()
}

#[test]
fn the_msl_export_reads_back_with_its_declarations_and_signatures() {
    for case in catalog::translatable() {
        let export = export_shader(
            &case.graph,
            &ShaderOptions::for_target("height", Target::Metal),
        )
        .unwrap();
        let d = export.dims;
        let code: String = export
            .source
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        assert!(balanced(&code), "{}: unbalanced brackets", case.label);
        assert!(code.contains("#include <metal_stdlib>"), "{}", case.label);
        // naga numbers the parameters (`p_12`).
        assert!(
            code.contains(&format!("\nfloat height(\n    metal::float{d} p")),
            "{}: {code}",
            case.label
        );
        assert!(
            !code.contains("kernel ") && !code.contains("device "),
            "{}",
            case.label
        );
        assert_prefixed(&case.label, &export);
    }
}

#[test]
fn two_glsl_exports_live_in_one_shader() {
    let all = catalog::translatable();
    let a = export_shader(
        &all[2].graph,
        &ShaderOptions::new("ground", Language::GlslEs),
    )
    .unwrap();
    let b = export_shader(
        &all[33].graph,
        &ShaderOptions::new("clouds", Language::GlslEs),
    )
    .unwrap();
    let shader = format!(
        "#version 300 es\nprecision highp float;\nprecision highp int;\nout vec4 c;\n{}\n{}\n\
         void main() {{ c = vec4(ground(vec2(0.5)) + clouds(vec2(0.25))); }}\n",
        a.source, b.source
    );
    glslang::validate("two", "frag", &shader).unwrap();
}

#[test]
fn bad_requests_name_the_flag() {
    let case = &catalog::translatable()[2];
    let mut options = ShaderOptions::new("height", Language::Glsl);
    options.target = Some(Target::Unity);
    let e = export_shader(&case.graph, &options)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--target unity") && e.contains("hlsl"), "{e}");
    // A name the GLSL back end would change (it suffixes names ending in a digit).
    let e = export_shader(&case.graph, &ShaderOptions::new("noise2", Language::Glsl))
        .unwrap_err()
        .to_string();
    assert!(e.contains("--name 'noise2'"), "{e}");
    let e = "glsl4".parse::<Language>().unwrap_err().to_string();
    assert!(e.contains("glsl4") && e.contains("hlsl"), "{e}");
}

/// Runs the `noisegraph` binary in `dir`.
fn noisegraph(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_noisegraph"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn cli_dir(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("shader_export")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn the_shader_command_writes_what_the_library_call_returns() {
    let dir = cli_dir("cli");
    let graph = noisegraph::presets::graph("terrain").unwrap();
    for (args, options) in [
        (
            vec!["--lang", "glsl"],
            ShaderOptions::new("height", Language::Glsl),
        ),
        (
            vec!["--lang", "glsl-es"],
            ShaderOptions::new("height", Language::GlslEs),
        ),
        (
            vec!["--lang", "hlsl"],
            ShaderOptions::new("height", Language::Hlsl),
        ),
        (
            vec!["--lang", "msl"],
            ShaderOptions::new("height", Language::Msl),
        ),
        (
            vec!["--lang", "wgsl"],
            ShaderOptions::new("height", Language::Wgsl),
        ),
        (
            vec!["--target", "unity"],
            ShaderOptions::for_target("height", Target::Unity),
        ),
        (
            vec!["--target", "godot", "--lang", "glsl-es"],
            ShaderOptions::for_target("height", Target::Godot),
        ),
        (
            vec!["--target", "metal"],
            ShaderOptions::for_target("height", Target::Metal),
        ),
    ] {
        let mut full = vec![
            "shader", "--preset", "terrain", "-o", "out.txt", "--name", "height",
        ];
        full.extend(&args);
        let out = noisegraph(&dir, &full);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let written = std::fs::read_to_string(dir.join("out.txt")).unwrap();
        let expected = export_shader(&graph, &options).unwrap();
        assert_eq!(written, expected.source, "{args:?}");
    }
    // `noisegraph wgsl` is `shader --lang wgsl`.
    let out = noisegraph(
        &dir,
        &[
            "wgsl", "--preset", "terrain", "-o", "w.wgsl", "--name", "height",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(dir.join("w.wgsl")).unwrap(),
        export_wgsl(&graph, &WgslOptions::new("height"))
            .unwrap()
            .source
    );
}

#[test]
fn the_shader_command_refuses_bad_flags_with_exit_2() {
    let dir = cli_dir("cli_bad");
    for (args, says) in [
        (vec!["--lang", "glsl4"], "glsl4"),
        (
            vec!["--target", "unity", "--lang", "glsl"],
            "--target unity",
        ),
        (vec!["--target", "cryengine"], "cryengine"),
        (vec![], "--lang"),
        (
            vec!["--lang", "msl", "--table-binding", "1,2"],
            "--table-binding",
        ),
        (vec!["--lang", "glsl", "--name", "h"], "--name 'h'"),
        (vec!["--lang", "glsl", "--node", "nope"], "nope"),
    ] {
        let mut full = vec!["shader", "--preset", "terrain", "-o", "x.txt"];
        full.extend(&args);
        let out = noisegraph(&dir, &full);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: '{says}' not in {err}");
        assert!(!dir.join("x.txt").exists());
    }
}
