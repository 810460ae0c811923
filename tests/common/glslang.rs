//! glslang (Debian's `glslang-tools`), which compiles the user-style GLSL and HLSL shaders of
//! the shader-export tests to SPIR-V and validates GLSL ES. CI installs it; a machine without
//! it fails these tests with the command to install it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A fresh directory for one compilation's files.
pub fn scratch_dir(label: &str) -> PathBuf {
    static COUNT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "noisegraph-glslang-{}-{}-{label}",
        std::process::id(),
        COUNT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs glslangValidator with `args` in `dir`; the error is its output.
pub fn glslang(dir: &Path, args: &[&str]) -> Result<(), String> {
    let output = Command::new("glslangValidator")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("glslangValidator did not run ({e}): apt-get install -y glslang-tools")
        });
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "glslangValidator {}: {}{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

/// Compiles `files` (name, text; the first is the shader, the others what it includes) to
/// SPIR-V words: GLSL with `hlsl == false`, HLSL (entry point `main`) otherwise.
pub fn spirv(label: &str, files: &[(&str, &str)], hlsl: bool) -> Result<Vec<u32>, String> {
    let dir = scratch_dir(label);
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let main = files[0].0;
    let result = if hlsl {
        glslang(
            &dir,
            &[
                "-D", "-e", "main", "-V", "-Os", "-S", "comp", main, "-o", "out.spv",
            ],
        )
    } else {
        glslang(&dir, &["-V", "-Os", main, "-o", "out.spv"])
    };
    let words = result.map(|()| {
        let bytes = std::fs::read(dir.join("out.spv")).unwrap();
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    });
    std::fs::remove_dir_all(&dir).ok();
    words
}

/// Validates a GLSL (ES) shader `text` of `stage` (frag, comp, ...) without generating code.
pub fn validate(label: &str, stage: &str, text: &str) -> Result<(), String> {
    let dir = scratch_dir(label);
    let name = format!("shader.{stage}");
    std::fs::write(dir.join(&name), text).unwrap();
    let result = glslang(&dir, &[name.as_str()]);
    std::fs::remove_dir_all(&dir).ok();
    result
}
