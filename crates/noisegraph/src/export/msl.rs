//! MSL export: the WGSL export translated by naga's MSL back end for Metal Shading Language
//! 2.0, as a header to include in a `.metal` file (the Metal target is the same file).

use naga::back::msl;

use crate::error::{Error, Result};

use super::shader::{header, naga_module, Language, ShaderOptions};
use super::wgsl::WgslModule;

/// The translated functions (helpers not yet prefixed). The module has no entry point, so
/// the back end writes only the functions, their helpers and the constants.
pub(crate) fn translate(module: &WgslModule) -> Result<String> {
    let (ir, info) = naga_module(&module.source)?;
    let options = msl::Options {
        lang_version: (2, 0),
        ..Default::default()
    };
    let pipeline = msl::PipelineOptions::default();
    let (out, _) = msl::write_string(&ir, &info, &options, &pipeline)
        .map_err(|e| Error::Gpu(format!("naga's MSL back end failed: {e}")))?;
    Ok(out
        .lines()
        // The writer's version comment; the header states the version.
        .filter(|l| !l.starts_with("// language:"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
        + "\n")
}

/// The file: the header and the code (under `#pragma once`).
pub(crate) fn finish(module: &WgslModule, options: &ShaderOptions, code: &str) -> String {
    let mut s = header(
        module,
        Language::Msl,
        options.target,
        "metal::float",
        "metal::int",
    );
    s.push_str("//\n// Include from a .metal file (any stage).\n#pragma once\n\n");
    s.push_str(code);
    s
}
