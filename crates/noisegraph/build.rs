//! Embeds every `shaders/**/*.wgsl` file in the binary, keyed by its path under `shaders/`,
//! so adding a kernel needs no list kept by hand.

use std::fs;
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "wgsl") {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets this"));
    let shaders = root.join("shaders");
    println!("cargo:rerun-if-changed=shaders");
    let mut files = Vec::new();
    collect(&shaders, &mut files);
    files.sort();
    // An empty list would build an engine whose every pipeline fails at run time: a
    // package that left the shaders out must not build.
    assert!(
        !files.is_empty(),
        "no WGSL files under {}: the shaders must ship with the crate",
        shaders.display()
    );
    let mut code = String::from("/// Every WGSL file under shaders/, as (path relative to shaders/, source).\npub static SHADER_FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
        let rel = f.strip_prefix(&shaders).expect("under shaders/");
        let rel = rel.to_string_lossy().replace('\\', "/");
        code.push_str(&format!(
            "    ({rel:?}, include_str!({:?})),\n",
            f.display().to_string()
        ));
    }
    code.push_str("];\n");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets this")).join("shaders.rs");
    fs::write(out, code).expect("write shaders.rs");
}
