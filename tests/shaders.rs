//! Every WGSL file parses and validates with naga, in the form the engine assembles it, and
//! every kernel file has its CPU twin.

use std::collections::BTreeSet;
use std::path::Path;

use noisegraph::family::{registry, FamilyParams, ParamKind, ParamValue};
use noisegraph::gpu::assemble::{
    analytic_normal_source, combine_source, combine_source_in, generate_source, generate_source_in,
    normal_map_source, shader_paths, specialized_generate_source, validate_wgsl, GenerateLayout,
    OctaveConstants, OctavePass,
};
use noisegraph::gpu::NormalMapFormat;
use noisegraph::graph::{Displacement, FamilyNode, FractalKind, FractalNode, GenerateStage};
use noisegraph::{FieldForm, View};

fn wgsl_files(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("read shaders/") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            wgsl_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "wgsl") {
            out.push(path.to_string_lossy().into_owned());
        }
    }
}

fn default_params(fam: &dyn noisegraph::family::Family) -> FamilyParams {
    let mut p = FamilyParams::default();
    for spec in fam.params() {
        let v = match spec.kind {
            ParamKind::Number { default, .. } => ParamValue::Number(default),
            ParamKind::Integer { default, .. } => ParamValue::Integer(default),
            ParamKind::Choice { options, default } => {
                ParamValue::Choice(options.iter().position(|o| *o == default).unwrap() as u32)
            }
        };
        p.values.insert(spec.name.to_string(), v);
    }
    p
}

fn stage_for(
    fam: &'static dyn noisegraph::family::Family,
    dims: u32,
    params: FamilyParams,
) -> GenerateStage {
    GenerateStage {
        family: fam,
        source: FamilyNode {
            family: fam.name().into(),
            frequency: [4.0; 4],
            seed_offset: 0,
            offset: [0.0; 4],
            dims,
            z: 0.0,
            w: 0.0,
            period: None,
            params,
        },
        fractal: None,
        displace: vec![],
        amplitude: 0.0,
        mapping: None,
    }
}

/// Mapped stages (`graph::mapping`): every family under an affine and, where its dims take
/// one, a curved map, in value and gradient form, plain and warped (displacement fields),
/// generic and specialized.
#[test]
fn mapped_stage_shapes_validate() {
    use noisegraph::graph::{MapKind, Mapping};
    let transform = MapKind::Transform {
        translate: [0.5; 4],
        scale: [2.0; 4],
        rotate: 30.0,
        axis: [0.0, 0.0, 1.0],
        angle: 0.0,
    };
    for fam in registry() {
        for &dims in fam.dims() {
            let params = default_params(*fam);
            let aux = fam.aux_data(dims, &params, 1).is_some();
            let mut maps = vec![Mapping::IDENTITY.then(&transform, dims).unwrap()];
            let curve = match dims {
                3 => Some(MapKind::Sphere { radius: 1.0 }),
                4 => Some(MapKind::Torus {
                    radius_x: 0.2,
                    radius_y: 0.3,
                }),
                _ => None,
            };
            if let Some(curve) = curve {
                maps.push(Mapping::IDENTITY.then(&curve, dims).unwrap());
            }
            for mapping in maps {
                for displace in [0, dims.min(4)] {
                    let mut stage = stage_for(*fam, dims, params.clone());
                    stage.mapping = Some(mapping);
                    stage.amplitude = 0.5;
                    stage.displace = (0..displace).map(|_| Displacement::Field(0)).collect();
                    let layout = GenerateLayout {
                        volume: false,
                        partial: false,
                        displace,
                        inline: 0,
                        aux,
                    };
                    let label = format!(
                        "{} {dims}D mapped {:?} displace {displace}",
                        fam.name(),
                        mapping.curve
                    );
                    let source = generate_source(&stage, layout, pass_of(false));
                    validate_wgsl(&source).unwrap_or_else(|e| panic!("{label}:\n{e}"));
                    let source = specialized_source(&stage, layout, pass_of(false));
                    validate_wgsl(&source).unwrap_or_else(|e| panic!("{label}, specialized:\n{e}"));
                    let gradient = generate_source_in(
                        FieldForm::Gradient,
                        &stage,
                        layout,
                        pass_of(false),
                        None,
                    );
                    if let Some(source) = gradient {
                        assert!(
                            source.contains("map_jacobian"),
                            "{label}: the chain rule through the map"
                        );
                        validate_wgsl(&source)
                            .unwrap_or_else(|e| panic!("{label} in gradient form:\n{e}"));
                    }
                }
            }
        }
    }
}

/// Fused warps: every family as the warped source, with every family that can be inlined
/// (no auxiliary table) as an inline displacement chain, alone or next to a texture field,
/// in 2D and volume shapes, with and without a partial sum.
#[test]
fn fused_warp_shapes_validate() {
    let inlinable: Vec<_> = registry()
        .iter()
        .filter(|f| f.aux_data(f.dims()[0], &default_params(**f), 1).is_none())
        .collect();
    assert!(
        inlinable.len() >= 3,
        "value, perlin and simplex can be inlined"
    );
    for fam in registry() {
        for &dims in fam.dims() {
            let params = default_params(*fam);
            let aux = fam.aux_data(dims, &params, 1).is_some();
            for inl in &inlinable {
                let inline_dims = if inl.dims().contains(&dims) {
                    dims
                } else {
                    inl.dims()[0]
                };
                let mut chain = stage_for(**inl, inline_dims, default_params(**inl));
                chain.fractal = Some(FractalNode {
                    source: "c".into(),
                    kind: FractalKind::Ridged,
                    octaves: 3,
                    lacunarity: 2.0,
                    gain: 0.5,
                    seed_offset: 0,
                    offset: [0.0; 4],
                    derivative_weight: 0.0,
                    signal_offset: 0.0,
                });
                chain.source.period = Some([4; 4]);
                let axes = dims.clamp(2, 4) as usize;
                // All axes inline, then axis 0 a texture field and the rest inline.
                for first_is_field in [false, true] {
                    let mut stage = stage_for(*fam, dims, params.clone());
                    stage.amplitude = 0.5;
                    stage.displace = (0..axes)
                        .map(|a| {
                            if a == 0 && first_is_field {
                                Displacement::Field(0)
                            } else {
                                Displacement::Inline {
                                    node: format!("d{a}"),
                                    chain: Box::new(chain.clone()),
                                }
                            }
                        })
                        .collect();
                    for volume in [false, true] {
                        for partial in [false, true] {
                            let layout = GenerateLayout {
                                volume,
                                partial,
                                displace: axes as u32,
                                inline: GenerateLayout::inline_mask(&stage),
                                aux,
                            };
                            let source = generate_source(&stage, layout, pass_of(partial));
                            if let Err(e) = validate_wgsl(&source) {
                                panic!(
                                    "{} {dims}D fused with {} {layout:?} fails validation:\n{e}",
                                    fam.name(),
                                    inl.name()
                                );
                            }
                            let source = specialized_source(&stage, layout, pass_of(partial));
                            if let Err(e) = validate_wgsl(&source) {
                                panic!(
                                    "{} {dims}D fused with {} {layout:?}, specialized, fails validation:\n{e}",
                                    fam.name(),
                                    inl.name()
                                );
                            }
                            // In gradient form where both families have one.
                            let both = fam.wgsl_grad_call(dims, &params).is_some()
                                && inl
                                    .wgsl_grad_call(inline_dims, &default_params(**inl))
                                    .is_some();
                            let source = generate_source_in(
                                FieldForm::Gradient,
                                &stage,
                                layout,
                                pass_of(partial),
                                None,
                            );
                            assert_eq!(source.is_some(), both);
                            if let Some(Err(e)) = source.map(|s| validate_wgsl(&s)) {
                                panic!(
                                    "{} {dims}D fused with {} {layout:?} in gradient form fails validation:\n{e}",
                                    fam.name(),
                                    inl.name()
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn every_wgsl_file_validates_as_assembled() {
    let mut on_disk = Vec::new();
    wgsl_files(&Path::new(ENGINE).join("shaders"), &mut on_disk);
    assert!(!on_disk.is_empty(), "no .wgsl files found under shaders/");
    assert_eq!(
        on_disk.len(),
        shader_paths().count(),
        "build.rs embeds every file on disk"
    );

    let mut covered: BTreeSet<String> = BTreeSet::new();
    for fam in registry() {
        for &dims in fam.dims() {
            // Every choice value of every parameter, one at a time, plus all shapes of stage.
            let mut variants = vec![default_params(*fam)];
            for spec in fam.params() {
                if let ParamKind::Choice { options, .. } = spec.kind {
                    for i in 0..options.len() {
                        let mut p = default_params(*fam);
                        p.values
                            .insert(spec.name.into(), ParamValue::Choice(i as u32));
                        variants.push(p);
                    }
                }
            }
            for params in variants {
                let mut stage = stage_for(*fam, dims, params.clone());
                let gradient = fam.wgsl_grad_call(dims, &params).is_some();
                let aux = stage.family.aux_data(dims, &params, 1).is_some();
                for volume in [false, true] {
                    for partial in [false, true] {
                        for displace in [0, dims.min(4)] {
                            let layout = GenerateLayout {
                                volume,
                                partial,
                                displace,
                                inline: 0,
                                aux,
                            };
                            let source = generate_source(&stage, layout, pass_of(partial));
                            if let Err(e) = validate_wgsl(&source) {
                                panic!("{} {dims}D {layout:?} fails validation:\n{e}", fam.name());
                            }
                            let source = specialized_source(&stage, layout, pass_of(partial));
                            if let Err(e) = validate_wgsl(&source) {
                                panic!(
                                    "{} {dims}D {layout:?}, specialized, fails validation:\n{e}",
                                    fam.name()
                                );
                            }
                            // The gradient form, where the family has one (with and without
                            // a period); none where it has not.
                            for period in [None, Some([4; 4])] {
                                stage.source.period = period;
                                let source = generate_source_in(
                                    FieldForm::Gradient,
                                    &stage,
                                    layout,
                                    pass_of(partial),
                                    None,
                                );
                                assert_eq!(source.is_some(), gradient, "{} {dims}D", fam.name());
                                if let Some(Err(e)) = source.map(|s| validate_wgsl(&s)) {
                                    panic!(
                                        "{} {dims}D {layout:?} period {period:?} in gradient form fails validation:\n{e}",
                                        fam.name()
                                    );
                                }
                            }
                            stage.source.period = None;
                            if gradient {
                                let source =
                                    specialized_gradient_source(&stage, layout, pass_of(partial));
                                if let Err(e) = validate_wgsl(&source) {
                                    panic!(
                                        "{} {dims}D {layout:?}, specialized, in gradient form fails validation:\n{e}",
                                        fam.name()
                                    );
                                }
                            }
                        }
                    }
                }
            }
            covered.extend(fam.shader_files().iter().map(|s| s.to_string()));
        }
    }
    for volume in [false, true] {
        for inputs in 0..=3 {
            validate_wgsl(&combine_source(volume, inputs))
                .unwrap_or_else(|e| panic!("combine volume={volume} inputs={inputs}:\n{e}"));
            validate_wgsl(&combine_source_in(
                FieldForm::Gradient,
                volume,
                inputs,
                false,
            ))
            .unwrap_or_else(|e| {
                panic!("combine volume={volume} inputs={inputs} in gradient form:\n{e}")
            });
        }
        // The curve's form (one input, the larger uniform).
        for form in [FieldForm::Value, FieldForm::Gradient] {
            validate_wgsl(&combine_source_in(form, volume, 1, true))
                .unwrap_or_else(|e| panic!("curve volume={volume} {form:?}:\n{e}"));
        }
    }
    for format in NormalMapFormat::ALL {
        validate_wgsl(&normal_map_source(format.wgsl_name()))
            .unwrap_or_else(|e| panic!("normal map {format:?}:\n{e}"));
        validate_wgsl(&analytic_normal_source(format.wgsl_name()))
            .unwrap_or_else(|e| panic!("analytic normal map {format:?}:\n{e}"));
    }
    covered.insert("analytic_normal.wgsl".into());
    covered.insert("stage.wgsl".into());
    covered.insert("combine.wgsl".into());
    covered.insert("normal_map.wgsl".into());
    covered.extend(validate_export_helpers());
    for path in shader_paths() {
        if path.starts_with("lib/") {
            continue; // prepended to every assembled module
        }
        assert!(
            covered.contains(path),
            "{path} is not used by any family or stage, so it was never validated"
        );
    }
}

/// The octave sums of the fractals that carry a state (hybrid, hetero, a derivative weight;
/// `gpu::assemble` generates them) validate for every family and dims, warped or not, in
/// value and gradient form, generic and specialized (a derivative weight where the family has
/// a gradient form, which it needs).
#[test]
fn stateful_fractal_shapes_validate() {
    for fam in registry() {
        for &dims in fam.dims() {
            let params = default_params(*fam);
            let gradient = fam.wgsl_grad_call(dims, &params).is_some();
            let aux = fam.aux_data(dims, &params, 1).is_some();
            let mut kinds = vec![(FractalKind::Hybrid, 0.0), (FractalKind::Hetero, 0.0)];
            if gradient {
                kinds.push((FractalKind::Billow, 1.5));
            }
            for (kind, derivative_weight) in kinds {
                let mut stage = stage_for(*fam, dims, params.clone());
                stage.fractal = Some(FractalNode {
                    source: "c".into(),
                    kind,
                    octaves: 3,
                    lacunarity: 2.0,
                    gain: 0.5,
                    seed_offset: 0,
                    offset: [0.0; 4],
                    derivative_weight,
                    signal_offset: 0.5,
                });
                for displace in [0, dims.min(4)] {
                    stage.amplitude = 0.5;
                    stage.displace = (0..displace as usize).map(Displacement::Field).collect();
                    for volume in [false, true] {
                        let layout = GenerateLayout {
                            volume,
                            partial: false,
                            displace,
                            inline: 0,
                            aux,
                        };
                        let label = format!(
                            "{} {dims}D {kind:?} k {derivative_weight} {layout:?}",
                            fam.name()
                        );
                        let pass = pass_of(false);
                        let mut sources = vec![
                            ("generic", generate_source(&stage, layout, pass)),
                            ("specialized", specialized_source(&stage, layout, pass)),
                        ];
                        if gradient {
                            let generic =
                                generate_source_in(FieldForm::Gradient, &stage, layout, pass, None);
                            sources.push(("gradient", generic.expect("a gradient form")));
                            sources.push((
                                "specialized gradient",
                                specialized_gradient_source(&stage, layout, pass),
                            ));
                        }
                        for (form, source) in sources {
                            assert!(source.contains("multifractal_"), "{label} {form}");
                            if let Err(e) = validate_wgsl(&source) {
                                panic!("{label} {form} fails validation:\n{e}");
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The engine crate's folder (kernels in `shaders/`, twins in `src/twin/`).
const ENGINE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/noisegraph");

/// The twin of each kernel file, by its path under `shaders/`: `src/twin/<same path>.rs`,
/// except the stage template, whose twin is the CPU stage executor.
fn twin_of(wgsl: &str) -> String {
    let stem = wgsl.strip_suffix(".wgsl").expect("a .wgsl path");
    match stem {
        "stage" => "src/engine/stage.rs".to_string(),
        _ => format!("src/twin/{stem}.rs"),
    }
}

#[test]
fn every_kernel_has_a_cpu_twin() {
    let root = Path::new(ENGINE);
    let mut kernels = Vec::new();
    wgsl_files(&root.join("shaders"), &mut kernels);
    assert!(kernels.len() >= 5);
    let mut expected_twins = BTreeSet::new();
    for kernel in &kernels {
        let rel = Path::new(kernel)
            .strip_prefix(root.join("shaders"))
            .expect("under shaders/")
            .to_string_lossy()
            .replace('\\', "/");
        let twin = twin_of(&rel);
        assert!(
            root.join(&twin).is_file(),
            "shaders/{rel} has no twin {twin}"
        );
        expected_twins.insert(twin);
    }
    // Every file in src/twin/ mirrors a kernel file, but for the module files and what the
    // executors ask the twins for (`sample.rs`).
    let mut stack = vec![root.join("src/twin")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read src/twin") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let name = path.file_name().unwrap().to_string_lossy();
            if name == "mod.rs" || rel == "src/twin/sample.rs" {
                continue;
            }
            assert!(
                expected_twins.contains(&rel),
                "{rel} is in src/twin/ but mirrors no file under shaders/"
            );
        }
    }
    for fam in registry() {
        assert!(
            root.join(format!("shaders/{}.wgsl", fam.name())).is_file(),
            "family {} has no shaders/{}.wgsl",
            fam.name(),
            fam.name()
        );
    }
}

/// The specialized form of a pass (its octave numbers compiled in), with the numbers of a
/// view that is not at the origin (so lattice offsets and local positions are not all zero).
fn specialized_source(stage: &GenerateStage, layout: GenerateLayout, pass: OctavePass) -> String {
    let view = View::image(8, 8).with_origin([-1234.5, 77.25, 3.0]);
    let uniform = stage.uniforms(1, &view);
    let inline: Vec<_> = stage
        .displace_inline()
        .map(|(_, _, chain)| chain.uniforms(1, &view))
        .collect();
    specialized_generate_source(
        stage,
        layout,
        pass,
        OctaveConstants {
            stage: &uniform,
            inline: &inline,
        },
    )
}

/// [`specialized_source`] in gradient form.
fn specialized_gradient_source(
    stage: &GenerateStage,
    layout: GenerateLayout,
    pass: OctavePass,
) -> String {
    let view = View::image(8, 8).with_origin([-1234.5, 77.25, 3.0]);
    let uniform = stage.uniforms(1, &view);
    let inline: Vec<_> = stage
        .displace_inline()
        .map(|(_, _, chain)| chain.uniforms(1, &view))
        .collect();
    let constants = OctaveConstants {
        stage: &uniform,
        inline: &inline,
    };
    generate_source_in(FieldForm::Gradient, stage, layout, pass, Some(constants))
        .expect("a gradient form")
}

/// A pass shape for a layout: the first pass of a split stage, or a later one that finalizes.
fn pass_of(partial: bool) -> OctavePass {
    if partial {
        OctavePass {
            first: 3,
            count: 2,
            finalize: true,
        }
    } else {
        OctavePass {
            first: 0,
            count: 3,
            finalize: false,
        }
    }
}

/// The helpers of exported modules (`shaders/export/`) with the library and the template
/// declarations they call; returns the files covered.
fn validate_export_helpers() -> Vec<String> {
    let file = |p: &str| noisegraph::gpu::assemble::shader_file(p).expect("embedded");
    let before_entry = |p: &str| {
        let source = file(p);
        source[..source.find("@compute").expect("an entry point")].to_string()
    };
    // The op codes the engine emits before the library (lib/ops.wgsl switches on them).
    let mut module = noisegraph::twin::lib::ops::wgsl_constants();
    module.push_str(
        &shader_paths()
            .filter(|p| p.starts_with("lib/"))
            .map(file)
            .collect::<Vec<_>>()
            .join("\n"),
    );
    module.push_str(&before_entry("stage.wgsl"));
    module.push_str(&before_entry("combine.wgsl"));
    let helpers: Vec<String> = shader_paths()
        .filter(|p| p.starts_with("export/"))
        .map(String::from)
        .collect();
    for path in &helpers {
        module.push_str(file(path));
    }
    validate_wgsl(&module).unwrap_or_else(|e| panic!("export helpers:\n{e}"));
    helpers
}
