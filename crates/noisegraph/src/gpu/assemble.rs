//! Shader assembly: library files, the family's kernel files, a generated prelude (bindings
//! and helpers for this stage's texture shape and inputs) and the stage template.
//! The assembled source is also the pipeline cache key.

use crate::family::{Family, FamilyParams};
use crate::field::FieldForm;
use crate::graph::position::PositionTable;
use crate::graph::{Displacement, GenerateStage, OctaveUniform, StageUniform};

include!(concat!(env!("OUT_DIR"), "/shaders.rs"));

/// Workgroup shape of every stage: 8 x 8 invocations (see BENCHMARKS.md for the measurement).
pub const WORKGROUP: [u32; 2] = [8, 8];

/// The source of one file under `shaders/`.
pub fn shader_file(path: &str) -> Option<&'static str> {
    SHADER_FILES
        .iter()
        .find(|(p, _)| *p == path)
        .map(|(_, source)| *source)
}

/// Every embedded shader path.
pub fn shader_paths() -> impl Iterator<Item = &'static str> {
    SHADER_FILES.iter().map(|(p, _)| *p)
}

/// Every `shaders/lib/` file, in path order: the library every assembled module starts with.
pub(crate) fn library() -> String {
    let mut s = crate::twin::lib::ops::wgsl_constants();
    for (path, source) in SHADER_FILES {
        if path.starts_with("lib/") {
            s.push_str(&format!("// ---- {path}\n{source}\n"));
        }
    }
    s
}

/// The binding shape of a generate stage; one bind group layout per distinct shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GenerateLayout {
    /// 3D textures (a volume) instead of 2D.
    pub volume: bool,
    /// Reads the partial octave sum of an earlier pass.
    pub partial: bool,
    /// Number of displaced axes (0 when not warped).
    pub displace: u32,
    /// Bit `a` set when axis `a`'s displacement is a generator chain evaluated inline (a
    /// uniform buffer at `BINDING_INLINE + a`) rather than a field (a texture at
    /// `BINDING_DISPLACE + a`).
    pub inline: u32,
    /// Binds the family's auxiliary data.
    pub aux: bool,
}

impl GenerateLayout {
    /// Whether axis `a`'s displacement is evaluated inline.
    pub fn is_inline(&self, axis: u32) -> bool {
        self.inline & (1 << axis) != 0
    }
    /// The inline mask of a stage's displacements.
    pub fn inline_mask(stage: &GenerateStage) -> u32 {
        stage
            .displace_inline()
            .fold(0, |mask, (axis, _, _)| mask | (1 << axis))
    }
}

// Binding numbers, shared with the bind group code.
/// The stage's uniform buffer.
pub const BINDING_PARAMS: u32 = 0;
/// The storage texture a stage writes.
pub const BINDING_OUT: u32 = 1;
/// The partial octave sum of an earlier pass (generate stages).
pub const BINDING_PARTIAL: u32 = 2;
/// The first displacement field of a warp; the others follow (up to 4).
pub const BINDING_DISPLACE: u32 = 3;
/// The family's auxiliary table.
pub const BINDING_AUX: u32 = 7;
/// The uniforms of the inline displacement chain of axis 0; the other axes follow (up to 4).
pub const BINDING_INLINE: u32 = 8;
/// Binding of a generate stage's position tables (`crate::graph::position::PositionTable`).
pub const BINDING_POSITIONS: u32 = 12;
/// The first input field of a point-wise stage; the others follow.
pub const BINDING_INPUTS: u32 = 2;

/// The WGSL storage format of a stage's output in `form`, and the type its samples have.
fn form_types(form: FieldForm) -> (&'static str, &'static str) {
    match form {
        FieldForm::Value => ("r32float", "f32"),
        FieldForm::Gradient => ("rgba32float", "vec4<f32>"),
    }
}

fn texture_types(volume: bool, form: FieldForm) -> (String, &'static str, &'static str) {
    let (format, _) = form_types(form);
    if volume {
        (
            format!("texture_storage_3d<{format}, write>"),
            "texture_3d<f32>",
            "vec3<i32>(p)",
        )
    } else {
        (
            format!("texture_storage_2d<{format}, write>"),
            "texture_2d<f32>",
            "vec2<i32>(p.xy)",
        )
    }
}

fn common_prelude(volume: bool, uniform_type: &str, form: FieldForm) -> String {
    let (storage, _, coords) = texture_types(volume, form);
    let (_, sample) = form_types(form);
    let texel = match form {
        FieldForm::Value => "vec4<f32>(v, 0.0, 0.0, 1.0)",
        FieldForm::Gradient => "v",
    };
    format!(
        "const WORKGROUP_X: u32 = {}u;\nconst WORKGROUP_Y: u32 = {}u;\n\
         @group(0) @binding({BINDING_PARAMS}) var<uniform> params: {uniform_type};\n\
         @group(0) @binding({BINDING_OUT}) var out_tex: {storage};\n\
         fn store_out(p: vec3<u32>, v: {sample}) {{ textureStore(out_tex, {coords}, {texel}); }}\n",
        WORKGROUP[0], WORKGROUP[1]
    )
}

/// `sample_family`-shaped function `name` for a chain in `form`: the family's call (its
/// gradient call, returning `NoiseGrad`, in gradient form), its lattice wrap compiled out when
/// the chain has no period, its uniforms read from `uniform`. `None` when the family has no
/// gradient form in the chain's dims.
fn sampler_function(
    name: &str,
    stage: &GenerateStage,
    uniform: &str,
    form: FieldForm,
) -> Option<String> {
    let (dims, params) = (stage.dims(), &stage.source.params);
    Some(match form {
        FieldForm::Value => {
            let call = stage.family.wgsl_call(dims, params);
            sampler_function_of(name, stage, &format!("{uniform}.family"), &call, "f32")
        }
        FieldForm::Gradient => {
            let call = stage.family.wgsl_grad_call(dims, params)?;
            sampler_function_of(
                name,
                stage,
                &format!("{uniform}.family"),
                &call,
                "NoiseGrad",
            )
        }
    })
}

/// [`sampler_function`] for any call of the family returning `ret`, its uniforms
/// (`params.family` in the call) read from the expression `family`.
pub(crate) fn sampler_function_of(
    name: &str,
    stage: &GenerateStage,
    family: &str,
    call: &str,
    ret: &str,
) -> String {
    // Without a period the wrap is a compile-time no-op: lattice wrapping costs an integer
    // modulo per corner, which doubled the time of a Perlin dispatch on lavapipe.
    sampler_function_text(name, stage.source.period.is_some(), family, call, ret)
}

/// The function text of [`sampler_function_of`]: `wraps` keeps the caller's period, else the
/// period is the constant 0; `params.family` in the call reads `family`.
fn sampler_function_text(name: &str, wraps: bool, family: &str, call: &str, ret: &str) -> String {
    let period = if wraps { "period_in" } else { "vec4<i32>(0)" };
    let call = call.replace("params.family", family);
    format!(
        "fn {name}(cell: vec4<i32>, local: vec4<f32>, seed: u32, period_in: vec4<i32>) -> {ret} {{\n    let period = {period};\n    return {call};\n}}\n"
    )
}

/// The uniform binding and functions of the inline displacement chain of `axis`:
/// `inline_field<axis>(p)` is, operation for operation, the value the chain's own stage
/// (one pass of every octave, finalized) would have stored at pixel `p` in `form` (in
/// gradient form, its value and gradient). With `constants`, the chain's octave parameters
/// are compiled in (see [`OctaveConstants`]). `None` when the chain's family has no gradient
/// form and `form` asks for one.
fn inline_chain(
    axis: usize,
    chain: &GenerateStage,
    constants: Option<&StageUniform>,
    form: FieldForm,
) -> Option<String> {
    let u = format!("inline_params{axis}");
    let (kind, count) = (chain.fractal_code(), chain.octave_count());
    let mut s = format!(
        "@group(0) @binding({}) var<uniform> {u}: StageParams;\n",
        BINDING_INLINE + axis as u32
    );
    s.push_str(&sampler_function(
        &format!("sample_inline{axis}"),
        chain,
        &u,
        form,
    )?);
    let (_, sample) = form_types(form);
    let term = match form {
        FieldForm::Value => format!("o.amp * fractal_remap(n, {kind}u)"),
        FieldForm::Gradient => format!(
            "vec4<f32>(o.amp * fractal_remap(n.value, {kind}u), \
             (o.amp * fractal_remap_slope(n.value, {kind}u)) * (n.d.xyz * o.freq.xyz))"
        ),
    };
    let at = if PositionTable::has_table(chain) {
        format!(
            "table_position{}({u}.mode.w, {u}.size, k, p)",
            chain.dims().max(2)
        )
    } else {
        "OctavePosition(o.cell, o.local + pix * o.step)".to_string()
    };
    s.push_str(&format!(
        "fn inline_field{axis}(p: vec3<u32>) -> {sample} {{\n\
         \x20   let pix = vec4<f32>(vec3<f32>(p + {u}.pixel_offset.xyz), 0.0);\n\
         \x20   return inline_sum{axis}(p, pix) * {u}.scalars.x;\n\
         }}\n\
         fn inline_term{axis}(o: Octave, k: u32, p: vec3<u32>, pix: vec4<f32>) -> {sample} {{\n\
         \x20   let at = {at};\n\
         \x20   let n = sample_inline{axis}(at.cell, at.local, o.seed, o.period);\n\
         \x20   return {term};\n\
         }}\n"
    ));
    s.push_str(&unrolled_octave_sum(
        &format!("inline_sum{axis}(p: vec3<u32>, pix: vec4<f32>)"),
        sample,
        &format!("{sample}(0.0)"),
        0..count,
        |k| {
            let octave = octave_expression(&format!("{u}.octaves[{k}]"), constants, k);
            format!("inline_term{axis}({octave}, {k}u, p, pix)")
        },
    ));
    Some(s)
}

/// `fn <signature> -> <ret>` returning `start` plus `term(k)` for every octave k of `octaves`,
/// unrolled: lavapipe's LLVM keeps a loop over more than 4 octaves rolled, and the rolled
/// loop indexed the uniform octave array at run time (8 octaves: 220 ms rolled, about 170 ms
/// unrolled for a 2048^2 Perlin fBm).
fn unrolled_octave_sum(
    signature: &str,
    ret: &str,
    start: &str,
    octaves: std::ops::Range<u32>,
    term: impl Fn(u32) -> String,
) -> String {
    let mut s = format!("fn {signature} -> {ret} {{\n    var sum = {start};\n");
    for k in octaves {
        s.push_str(&format!("    sum += {};\n", term(k)));
    }
    s.push_str("    return sum;\n}\n");
    s
}

/// The library and the family files of `chains`, each file once.
fn library_and_families<'a>(chains: impl Iterator<Item = &'a GenerateStage>) -> String {
    library_and_family_files(chains.map(|c| c.family))
}

/// The library and the shader files of `families`, each file once.
fn library_and_family_files(families: impl Iterator<Item = &'static dyn Family>) -> String {
    let mut s = library();
    let mut files: Vec<(&str, &'static str)> = Vec::new();
    for family in families {
        for file in family.shader_files() {
            if !files.iter().any(|(f, _)| f == file) {
                files.push((file, family.name()));
            }
        }
    }
    for (file, family) in files {
        let source = shader_file(file)
            .unwrap_or_else(|| panic!("family {family} names missing shader {file}"));
        s.push_str(&format!("// ---- {file}\n{source}\n"));
    }
    s
}

/// The octaves one dispatch of a generate stage evaluates and whether it finalizes the sum,
/// compiled into its kernel (an unrolled sum) with the fractal kind. On lavapipe a loop whose
/// trip count and octave indices came from a uniform made a one-octave 2048^2 Perlin dispatch
/// twice as slow (85 ms against 42 ms; see BENCHMARKS.md). These numbers are structural
/// (they change with the graph, not from frame to frame), so compiling them in costs no
/// pipeline per frame; the uniforms keep them for the CPU twin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OctavePass {
    /// First octave of the pass.
    pub first: u32,
    /// Number of octaves in the pass.
    pub count: u32,
    /// Whether the pass applies the normalization (the last pass of the stage).
    pub finalize: bool,
}

impl OctavePass {
    /// Every octave of `stage` in one pass.
    pub fn whole(stage: &GenerateStage) -> Self {
        OctavePass {
            first: 0,
            count: stage.octave_count(),
            finalize: true,
        }
    }
    /// The passes of a stage split as `octave_passes` returns them.
    pub fn split(passes: &[(u32, u32)]) -> Vec<Self> {
        passes
            .iter()
            .enumerate()
            .map(|(i, &(first, count))| OctavePass {
                first,
                count,
                finalize: i + 1 == passes.len(),
            })
            .collect()
    }
}

/// The octave parameters a specialized kernel compiles in: the stage's uniform and those of
/// its inline displacement chains, in `displace_inline` order. On lavapipe, reading them from
/// the uniform buffer cost more than the noise itself (every load is bounds-checked, and
/// gathered lane by lane under the kernel's bounds test); as constants an 8-octave Perlin fBm
/// runs about 2x faster, for a compile several times longer. See BENCHMARKS.md.
#[derive(Debug, Clone, Copy)]
pub struct OctaveConstants<'a> {
    /// The stage's uniform (its `octaves` are compiled in).
    pub stage: &'a StageUniform,
    /// The uniform of each inline displacement chain.
    pub inline: &'a [StageUniform],
}

/// A WGSL `Octave` constructor holding `o`'s numbers exactly: floats printed as the shortest
/// decimal that parses back to the same f32 (with the `f` suffix, so no f64 rounding on the
/// way), integers as they are.
fn octave_literal(o: &OctaveUniform) -> String {
    let ints = |v: [i32; 4]| format!("vec4<i32>({}, {}, {}, {})", v[0], v[1], v[2], v[3]);
    let floats = |v: [f32; 4]| {
        format!(
            "vec4<f32>({:?}f, {:?}f, {:?}f, {:?}f)",
            v[0], v[1], v[2], v[3]
        )
    };
    format!(
        "Octave({}, {}, {}, {}, {}, {}, {}u, {:?}f, 0u, 0u)",
        ints(o.cell),
        floats(o.local),
        floats(o.step),
        floats(o.freq),
        floats(o.warp),
        ints(o.period),
        o.seed,
        o.amp
    )
}

/// Octave `k`: read from `uniform_path` or, with `constants`, compiled in.
fn octave_expression(uniform_path: &str, constants: Option<&StageUniform>, k: u32) -> String {
    match constants {
        Some(u) => octave_literal(&u.octaves[k as usize]),
        None => uniform_path.to_string(),
    }
}

/// The full WGSL source of one pass of a generate stage.
pub fn generate_source(stage: &GenerateStage, layout: GenerateLayout, pass: OctavePass) -> String {
    generate_source_in(FieldForm::Value, stage, layout, pass, None)
        .expect("every family has a value form")
}

/// [`generate_source`] with the octave parameters compiled in: the kernel of one set of
/// numbers (one seed, view origin and scale, frequency, lacunarity, gain), equal to the
/// generic kernel run with those uniforms.
pub fn specialized_generate_source(
    stage: &GenerateStage,
    layout: GenerateLayout,
    pass: OctavePass,
    constants: OctaveConstants,
) -> String {
    generate_source_in(FieldForm::Value, stage, layout, pass, Some(constants))
        .expect("every family has a value form")
}

/// The text of the stage template a stage in `form` is assembled with: in value form the
/// part before the gradient marker, whose functions call `sample_family_grad`, which only
/// stages in gradient form define.
fn stage_template(form: FieldForm) -> &'static str {
    let source = shader_file("stage.wgsl").expect("stage.wgsl is embedded");
    match form {
        FieldForm::Gradient => source,
        FieldForm::Value => {
            let end = source
                .find(GRADIENT_MARKER)
                .expect("stage.wgsl has a gradient section");
            &source[..end]
        }
    }
}

/// The line of `shaders/stage.wgsl` where its gradient form begins.
const GRADIENT_MARKER: &str = "// ---- gradient form";

/// The full WGSL source of one pass of a generate stage in `form` (with `constants`, the
/// specialized kernel: see [`specialized_generate_source`]). In gradient form every octave
/// accumulates `vec4(value, d/dx, d/dy, d/dz)` with respect to the view coordinates, and the
/// stage writes an Rgba32Float texture; `None` when a family the stage samples (its own or an
/// inline displacement chain's) has no gradient form in its dims.
pub fn generate_source_in(
    form: FieldForm,
    stage: &GenerateStage,
    layout: GenerateLayout,
    pass: OctavePass,
    constants: Option<OctaveConstants>,
) -> Option<String> {
    let (_, sampled, coords) = texture_types(layout.volume, form);
    let (_, sample) = form_types(form);
    let gradient = form == FieldForm::Gradient;
    // The family files of the stage and of its inline chains.
    let mut s = library_and_families(
        std::iter::once(stage).chain(stage.displace_inline().map(|(_, _, c)| c)),
    );
    s.push_str("// ---- generated prelude\n");
    s.push_str(&common_prelude(layout.volume, "StageParams", form));
    s.push_str(&format!(
        "const PASS_FINALIZE: bool = {};\nconst FRACTAL_KIND: u32 = {}u;\nconst EARLY_EXIT: bool = {};\n",
        pass.finalize,
        stage.fractal_code(),
        constants.is_none()
    ));
    let (displaced, term) = if gradient {
        ("Displaced", "octave_term_grad")
    } else {
        ("vec4<f32>", "octave_term")
    };
    s.push_str(&format!(
        "@group(0) @binding({BINDING_POSITIONS}) var<storage, read> positions: array<vec2<u32>>;\n"
    ));
    let octave_of = |k: u32| {
        octave_expression(
            &format!("params.octaves[{k}]"),
            constants.map(|c| c.stage),
            k,
        )
    };
    let weighted = stage
        .fractal
        .as_ref()
        .is_some_and(|f| f.derivative_weight != 0.0);
    if stage.carries_state() {
        // One pass of every octave (GenerateStage::octave_passes), each a step of
        // lib/multifractal.wgsl from the state of the one before.
        s.push_str(&multifractal_octave_sum(
            form,
            displaced,
            sample,
            weighted,
            stage.mapping.is_some(),
            stage.dims(),
            pass.first..pass.first + pass.count,
            octave_of,
        ));
    } else {
        s.push_str(&unrolled_octave_sum(
            &format!("octave_sum(p: vec3<u32>, pix: vec4<f32>, d: {displaced}, partial: {sample})"),
            sample,
            "partial",
            pass.first..pass.first + pass.count,
            |k| format!("{term}({}, {k}u, p, pix, d)", octave_of(k)),
        ));
    }
    let partial_texel = if gradient { "" } else { ".x" };
    if layout.partial {
        s.push_str(&format!(
            "@group(0) @binding({BINDING_PARTIAL}) var partial_tex: {sampled};\n\
             fn load_partial(p: vec3<u32>) -> {sample} {{ return textureLoad(partial_tex, {coords}, 0){partial_texel}; }}\n"
        ));
    } else {
        s.push_str(&format!(
            "fn load_partial(p: vec3<u32>) -> {sample} {{ return {sample}(0.0); }}\n"
        ));
    }
    let mut parts = Vec::new();
    let mut inline_index = 0;
    for (axis, d) in stage.displace.iter().enumerate() {
        assert_eq!(
            layout.is_inline(axis as u32),
            matches!(d, Displacement::Inline { .. }),
            "layout and stage disagree on displacement {axis}"
        );
        match d {
            Displacement::Field(_) => {
                s.push_str(&format!(
                    "@group(0) @binding({}) var displace{axis}: {sampled};\n",
                    BINDING_DISPLACE + axis as u32
                ));
                parts.push(format!(
                    "textureLoad(displace{axis}, {coords}, 0){partial_texel}"
                ));
            }
            Displacement::Inline { chain, .. } => {
                let chain_constants = constants.map(|c| &c.inline[inline_index]);
                inline_index += 1;
                s.push_str(&inline_chain(axis, chain, chain_constants, form)?);
                parts.push(format!("inline_field{axis}(p)"));
            }
        }
    }
    s.push_str(&load_displace(parts, form));
    // Without a warp the displacement term is left out: 0 * warp does not fold away in IEEE
    // arithmetic, so it would cost a multiply and an add per axis and octave.
    let warped = !stage.displace.is_empty();
    // A chain on a cubic lattice reads each pixel's split from its table (the CPU rows'
    // numbers); the others add pixel x step to the origin's split.
    let signature = "fn octave_at(o: Octave, k: u32, p: vec3<u32>, pix: vec4<f32>, d: vec4<f32>) -> OctavePosition";
    let table = format!(
        "table_position{}(params.mode.w, params.size, k, p)",
        stage.dims().max(2)
    );
    s.push_str(&match (PositionTable::has_table(stage), warped) {
        (true, true) => format!(
            "{signature} {{ let t = {table}; return OctavePosition(t.cell, t.local + d * o.warp); }}\n"
        ),
        (true, false) => format!("{signature} {{ return {table}; }}\n"),
        (false, true) => format!(
            "{signature} {{ return OctavePosition(o.cell, o.local + pix * o.step + d * o.warp); }}\n"
        ),
        (false, false) => format!(
            "{signature} {{ return OctavePosition(o.cell, o.local + pix * o.step); }}\n"
        ),
    });
    s.push_str(&crate::gpu::assemble_mapping::view_position(stage, form));
    if gradient && stage.mapping.is_some() {
        s.push_str(&crate::gpu::assemble_mapping::octave_gradient(warped));
    } else if gradient {
        // d local / d p: the octave's frequency on the view axes, plus the warp's Jacobian
        // (see the gradient section of stage.wgsl).
        s.push_str(if warped {
            "fn octave_gradient(nd: vec4<f32>, o: Octave, w: Displaced) -> vec3<f32> {\n\
             \x20   let s = nd * o.warp;\n\
             \x20   return nd.xyz * o.freq.xyz + vec3<f32>(dot(s, w.dx), dot(s, w.dy), dot(s, w.dz));\n\
             }\n"
        } else {
            "fn octave_gradient(nd: vec4<f32>, o: Octave, w: Displaced) -> vec3<f32> { return nd.xyz * o.freq.xyz; }\n"
        });
    }
    if layout.aux {
        s.push_str(&format!(
            "@group(0) @binding({BINDING_AUX}) var<storage, read> aux: array<f32>;\n"
        ));
    }
    // The template's value-form octave_term calls sample_family in either form (unused, and
    // compiled out, in gradient form).
    s.push_str(&sampler_function(
        "sample_family",
        stage,
        "params",
        FieldForm::Value,
    )?);
    if gradient || weighted {
        s.push_str(&sampler_function(
            "sample_family_grad",
            stage,
            "params",
            FieldForm::Gradient,
        )?);
    }
    s.push_str("// ---- stage.wgsl\n");
    s.push_str(stage_template(form));
    Some(s)
}

/// The octave sum of a stage whose fractal carries a state (hybrid, hetero, a derivative
/// weight): `octave_sum` (the template's signature; the partial sum is unused, such a stage
/// runs in one pass) runs `multifractal_term` (or `multifractal_term_grad`) for each octave
/// of `octaves`, unrolled, from `multifractal_start`. A `weighted` stage samples the family's
/// gradient in value form too, and in gradient form the noise's Hessian (`octave_hessian`,
/// `dims` columns, along d local / d p: through the map's Jacobian in a `mapped` stage).
/// Twin: `engine::multifractal`.
#[allow(clippy::too_many_arguments)]
fn multifractal_octave_sum(
    form: FieldForm,
    displaced: &str,
    sample: &str,
    weighted: bool,
    mapped: bool,
    dims: u32,
    octaves: std::ops::Range<u32>,
    octave: impl Fn(u32) -> String,
) -> String {
    let gradient = form == FieldForm::Gradient;
    let (start, step) = if gradient {
        ("multifractal_grad_start()", "multifractal_term_grad")
    } else {
        ("multifractal_start()", "multifractal_term")
    };
    let mut s = format!(
        "fn octave_sum(p: vec3<u32>, pix: vec4<f32>, d: {displaced}, partial: {sample}) -> {sample} {{\n    var s = {start};\n"
    );
    for k in octaves {
        s.push_str(&format!(
            "    s = {step}({}, {k}u, p, pix, d, s);\n",
            octave(k)
        ));
    }
    let result = if gradient {
        "vec4<f32>(s.sum.value, s.sum.d.xyz)"
    } else {
        "s.sum"
    };
    s.push_str(&format!("    return {result};\n}}\n"));
    let kind = "FRACTAL_KIND, params.scalars.y, params.scalars.z";
    if !gradient {
        let noise = if weighted {
            "let n = sample_family_grad(at.cell, at.local, o.seed, o.period);\n    \
             return multifractal_octave(s, n.value, n.d"
        } else {
            "let n = sample_family(at.cell, at.local, o.seed, o.period);\n    \
             return multifractal_octave(s, n, vec4<f32>(0.0)"
        };
        s.push_str(&format!(
            "fn multifractal_term(o: Octave, k: u32, p: vec3<u32>, pix: vec4<f32>, d: vec4<f32>, s: Multifractal) -> Multifractal {{\n    \
             let at = octave_at(o, k, p, pix, d);\n    \
             {noise}, o.amp, {kind});\n}}\n"
        ));
        return s;
    }
    let hd = if weighted {
        s.push_str(&hessian_function(
            "octave_hessian",
            "sample_family_grad",
            "hessian_column",
            dims,
        ));
        // d local / d p_b: the octave's frequency on axis b (through the map's Jacobian in a
        // mapped stage) plus the warp's Jacobian (zero in an unwarped stage, whose Displaced
        // is zero).
        let along = if mapped {
            crate::gpu::assemble_mapping::octave_local_jacobian()
        } else {
            "mat4x4<f32>(\
             vec4<f32>(o.freq.x, 0.0, 0.0, 0.0) + o.warp * w.dx, \
             vec4<f32>(0.0, o.freq.y, 0.0, 0.0) + o.warp * w.dy, \
             vec4<f32>(0.0, 0.0, o.freq.z, 0.0) + o.warp * w.dz, vec4<f32>(0.0))"
        };
        format!("octave_hessian(at.cell, at.local, o.seed, o.period) * {along}")
    } else {
        "mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0))".into()
    };
    s.push_str(&format!(
        "fn multifractal_term_grad(o: Octave, k: u32, p: vec3<u32>, pix: vec4<f32>, w: Displaced, s: MultifractalGrad) -> MultifractalGrad {{\n    \
         let at = octave_at(o, k, p, pix, w.d);\n    \
         let n = sample_family_grad(at.cell, at.local, o.seed, o.period);\n    \
         let dn = NoiseGrad(n.value, vec4<f32>(octave_gradient(n.d, o, w), 0.0));\n    \
         return multifractal_octave_grad(s, dn, n.d, {hd}, o.amp, {kind});\n}}\n"
    ));
    s
}

/// `fn <name>(cell, local, seed, period) -> mat4x4<f32>`: the Hessian of the noise `sampler`
/// (a `sample_family_grad`-shaped function) at `local`, column a (a < `dims`) by
/// `column` (`hessian_column`, as the module names it) of the gradients `HESSIAN_STEP` either
/// side along axis a (twin: `twin::lib::multifractal::octave_hessian`). The step is written
/// as a literal, so the export needs no library constant.
pub(crate) fn hessian_function(name: &str, sampler: &str, column: &str, dims: u32) -> String {
    let step = crate::twin::lib::multifractal::HESSIAN_STEP;
    let mut s = format!(
        "fn {name}(cell: vec4<i32>, local: vec4<f32>, seed: u32, period: vec4<i32>) -> mat4x4<f32> {{\n    \
         var h = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));\n"
    );
    for a in 0..dims.min(4) {
        let e = ["x", "y", "z", "w"][a as usize];
        let mut offset = ["0.0"; 4].map(String::from);
        offset[a as usize] = format!("{step:?}");
        let offset = offset.join(", ");
        s.push_str(&format!(
            "    let p{a} = local + vec4<f32>({offset});\n    \
             let m{a} = local - vec4<f32>({offset});\n    \
             h[{a}] = {column}({sampler}(cell, p{a}, seed, period).d, {sampler}(cell, m{a}, seed, period).d, p{a}.{e} - m{a}.{e});\n"
        ));
    }
    s.push_str("    return h;\n}\n");
    s
}

/// `load_displace` from the displacement expression of each warped axis (`parts`, in axis
/// order): in value form the displacement vector, in gradient form a `Displaced` gathering
/// the four axes' values and their derivatives along x, y and z.
fn load_displace(mut parts: Vec<String>, form: FieldForm) -> String {
    match form {
        FieldForm::Value => {
            while parts.len() < 4 {
                parts.push("0.0".into());
            }
            format!(
                "fn load_displace(p: vec3<u32>) -> vec4<f32> {{ return vec4<f32>({}); }}\n",
                parts.join(", ")
            )
        }
        FieldForm::Gradient if parts.is_empty() => "fn load_displace(p: vec3<u32>) -> Displaced { return Displaced(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0)); }\n".into(),
        FieldForm::Gradient => {
            let mut s = "fn load_displace(p: vec3<u32>) -> Displaced {\n".to_string();
            for a in 0..4 {
                let value = parts
                    .get(a)
                    .map_or("vec4<f32>(0.0)", String::as_str)
                    .to_string();
                s.push_str(&format!("    let a{a} = {value};\n"));
            }
            let channel = |c: &str| format!("vec4<f32>(a0.{c}, a1.{c}, a2.{c}, a3.{c})");
            s.push_str(&format!(
                "    return Displaced({}, {}, {}, {});\n}}\n",
                channel("x"),
                channel("y"),
                channel("z"),
                channel("w")
            ));
            s
        }
    }
}

/// The full WGSL source of a point-wise stage with `inputs` fields.
pub fn combine_source(volume: bool, inputs: u32) -> String {
    combine_source_in(FieldForm::Value, volume, inputs, false)
}

/// The full WGSL source of a point-wise stage with `inputs` fields in `form` (in gradient
/// form its inputs and output hold `vec4(value, d/dx, d/dy, d/dz)`, see `combine_grad_op`).
/// With `curve`, the stage of a `curve` node: its uniform is `CurveParams` (the point-wise
/// one and the curve's pieces, `graph::CurveUniform`) and each texel goes through the curve
/// (lib/curve.wgsl, the lookup of `twin::lib::curve::wgsl_lookup`); the other stages keep
/// the small uniform.
pub fn combine_source_in(form: FieldForm, volume: bool, inputs: u32, curve: bool) -> String {
    let (_, sampled, coords) = texture_types(volume, form);
    let (_, sample) = form_types(form);
    let (texel, op) = match (form, curve) {
        (FieldForm::Value, false) => (".x", "combine_op"),
        (FieldForm::Gradient, false) => ("", "combine_grad_op"),
        (FieldForm::Value, true) => (".x", "curve_field"),
        (FieldForm::Gradient, true) => ("", "curve_grad_field"),
    };
    // The library holds the operations themselves (lib/ops.wgsl) and the op codes.
    let mut s = library();
    if curve {
        s.push_str(&format!(
            "struct CurveParams {{
    size: vec4<u32>,
    op: vec4<u32>,
    constants: vec4<f32>,
    pieces: array<vec4<f32>, {}>,
}}
",
            2 * crate::twin::lib::curve::MAX_CURVE_POINTS
        ));
        s.push_str(&crate::twin::lib::curve::wgsl_lookup(
            "",
            "params.pieces",
            "params.op.y",
            str::to_string,
        ));
        s.push_str(
            "fn curve_field(op: u32, a: f32, b: f32, c: f32, k: vec4<f32>) -> f32 { return curve_value(a); }
             fn curve_grad_field(op: u32, a: vec4<f32>, b: vec4<f32>, c: vec4<f32>, k: vec4<f32>) -> vec4<f32> {
                 let r = curve_grad(noise_grad_xyz(a));
                 return vec4<f32>(r.value, r.d.xyz);
}
",
        );
    }
    let params = if curve {
        "CurveParams"
    } else {
        "CombineParams"
    };
    s.push_str(&common_prelude(volume, params, form));
    let mut cases = String::new();
    for i in 0..inputs {
        s.push_str(&format!(
            "@group(0) @binding({}) var input{i}: {sampled};\n",
            BINDING_INPUTS + i
        ));
        cases.push_str(&format!(
            "        case {i}u: {{ return textureLoad(input{i}, {coords}, 0){texel}; }}\n"
        ));
    }
    s.push_str(&format!(
        "fn load_input(i: u32, p: vec3<u32>) -> {sample} {{\n    switch i {{\n{cases}        default: {{ return {sample}(0.0); }}\n    }}\n}}\n\
         fn combine_field(op: u32, a: {sample}, b: {sample}, c: {sample}, k: vec4<f32>) -> {sample} {{ return {op}(op, a, b, c, k); }}\n"
    ));
    s.push_str(shader_file("combine.wgsl").expect("combine.wgsl is embedded"));
    s
}

/// Parses and validates WGSL with naga, as the device would; returns the error text.
pub fn validate_wgsl(source: &str) -> Result<(), String> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| e.emit_to_string(source))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string(source))?;
    Ok(())
}

/// The binding of the height field read by the normal-map pass.
pub const BINDING_HEIGHT: u32 = 2;

/// The full WGSL source of the normal-map pass writing a `storage_format` texture (its WGSL
/// name: `rgba8unorm`, `rgba16float` or `rgba32float`).
pub fn normal_map_source(storage_format: &str) -> String {
    let mut s = format!(
        "const WORKGROUP_X: u32 = {}u;\nconst WORKGROUP_Y: u32 = {}u;\n\
         @group(0) @binding({BINDING_PARAMS}) var<uniform> params: NormalMapParams;\n\
         @group(0) @binding({BINDING_OUT}) var out_tex: texture_storage_2d<{storage_format}, write>;\n\
         @group(0) @binding({BINDING_HEIGHT}) var height_tex: texture_2d<f32>;\n\
         fn load_height(x: i32, y: i32) -> f32 {{ return textureLoad(height_tex, vec2<i32>(x, y), 0).x; }}\n",
        WORKGROUP[0], WORKGROUP[1]
    );
    s.push_str(shader_file("normal_map.wgsl").expect("normal_map.wgsl is embedded"));
    s
}

/// The binding of the gradient field (Rgba32Float: value, d/dx, d/dy, d/dz) read by the
/// analytic normal pass.
pub const BINDING_GRADIENT: u32 = 2;

/// The declarations of a template file (structs, constants, helpers): its text before the
/// entry point, so another template can share them instead of repeating them.
pub(crate) fn declarations(file: &str) -> &'static str {
    let source = shader_file(file).unwrap_or_else(|| panic!("{file} is embedded"));
    let end = source
        .find("@compute")
        .unwrap_or_else(|| panic!("{file} has an entry point"));
    &source[..end]
}

/// The full WGSL source of the analytic normal pass writing a `storage_format` texture: it
/// reads a gradient field (the graph's target in gradient form) and encodes each pixel's
/// normal. It shares the normal-map template's declarations (`NormalMapParams`,
/// `encode_normal`).
pub fn analytic_normal_source(storage_format: &str) -> String {
    let mut s = format!(
        "const WORKGROUP_X: u32 = {}u;\nconst WORKGROUP_Y: u32 = {}u;\n\
         @group(0) @binding({BINDING_PARAMS}) var<uniform> params: NormalMapParams;\n\
         @group(0) @binding({BINDING_OUT}) var out_tex: texture_storage_2d<{storage_format}, write>;\n\
         @group(0) @binding({BINDING_GRADIENT}) var gradient_tex: texture_2d<f32>;\n",
        WORKGROUP[0], WORKGROUP[1]
    );
    s.push_str("// ---- normal_map.wgsl (declarations)\n");
    s.push_str(declarations("normal_map.wgsl"));
    s.push_str("// ---- analytic_normal.wgsl\n");
    s.push_str(shader_file("analytic_normal.wgsl").expect("analytic_normal.wgsl is embedded"));
    s
}

/// The probe's sample points (a storage buffer of `ProbePoint`).
pub const BINDING_PROBE_POINTS: u32 = 1;
/// The probe's output: two `vec4<f32>` per point, (value, 0, 0, 0) and d/dlocal.
pub const BINDING_PROBE_OUT: u32 = 2;
/// Invocations per workgroup of the probe, one per point.
pub const PROBE_WORKGROUP: u32 = 64;

/// The full WGSL source of a family probe (a test harness, see `gpu::probe`): the family's
/// plain call, or with `gradient` its gradient call (`None` when it has none in `dims`),
/// evaluated at each point of a storage buffer through the same library, family files and
/// sampler function a stage assembles (the period kept, as in a tileable stage); `aux` binds
/// the family's auxiliary table as a stage does.
pub fn probe_source(
    family: &'static dyn Family,
    dims: u32,
    params: &FamilyParams,
    gradient: bool,
    aux: bool,
) -> Option<String> {
    let (call, ret) = if gradient {
        (family.wgsl_grad_call(dims, params)?, "NoiseGrad")
    } else {
        (family.wgsl_call(dims, params), "f32")
    };
    let mut s = library_and_family_files(std::iter::once(family));
    s.push_str(&format!(
        "// ---- generated probe\n\
         struct ProbeParams {{\n    count: vec4<u32>,\n    family: array<vec4<f32>, 4>,\n}}\n\
         struct ProbePoint {{\n    cell: vec4<i32>,\n    local: vec4<f32>,\n    period: vec4<i32>,\n    seed: vec4<u32>,\n}}\n\
         @group(0) @binding({BINDING_PARAMS}) var<uniform> params: ProbeParams;\n\
         @group(0) @binding({BINDING_PROBE_POINTS}) var<storage, read> points: array<ProbePoint>;\n\
         @group(0) @binding({BINDING_PROBE_OUT}) var<storage, read_write> probe_out: array<vec4<f32>>;\n"
    ));
    if aux {
        s.push_str(&format!(
            "@group(0) @binding({BINDING_AUX}) var<storage, read> aux: array<f32>;\n"
        ));
    }
    s.push_str(&sampler_function_text(
        "probe_sample",
        true,
        "params.family",
        &call,
        ret,
    ));
    let store = if gradient {
        "let g = probe_sample(p.cell, p.local, p.seed.x, p.period);\n    \
         probe_out[2u * i] = vec4<f32>(g.value, 0.0, 0.0, 0.0);\n    probe_out[2u * i + 1u] = g.d;"
    } else {
        "probe_out[2u * i] = vec4<f32>(probe_sample(p.cell, p.local, p.seed.x, p.period), 0.0, 0.0, 0.0);\n    \
         probe_out[2u * i + 1u] = vec4<f32>(0.0);"
    };
    s.push_str(&format!(
        "@compute @workgroup_size({PROBE_WORKGROUP}, 1, 1)\n\
         fn main(@builtin(global_invocation_id) gid: vec3<u32>) {{\n    \
         let i = gid.x;\n    if (i >= params.count.x) {{\n        return;\n    }}\n    \
         let p = points[i];\n    {store}\n}}\n"
    ));
    Some(s)
}
