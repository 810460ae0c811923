//! What the page builds its controls from: the engine's node schema (every node kind, its
//! inputs and fields with their kinds, bounds, defaults and docs, its dims rule; see
//! `noisegraph::graph::schema`), serialised as it is, the colour ramps the PNG downloads take
//! (`bake --ramp`'s built-in names), and what this server adds (flow modes, the largest
//! preview, the file, the backend).

use serde_json::{json, Value};

use super::render::{FLOW_MODES, MAX_PREVIEW_SIDE};

/// Everything the page needs to know about the engine and this server.
pub fn metadata(file: Option<&str>, backend: &str) -> Value {
    json!({
        "schema": noisegraph::graph::schema(),
        "flow_modes": FLOW_MODES,
        "ramps": noisegraph::io::Ramp::names().collect::<Vec<_>>(),
        "max_preview_side": MAX_PREVIEW_SIDE,
        "file": file,
        "backend": backend,
        "version": env!("CARGO_PKG_VERSION"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_is_the_engines_schema() {
        let meta = metadata(Some("g.json"), "CPU");
        assert_eq!(
            meta["schema"],
            serde_json::to_value(noisegraph::graph::schema()).unwrap()
        );
        let types: Vec<&str> = meta["schema"]["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["type"].as_str().unwrap())
            .collect();
        for t in [
            "perlin", "fbm", "ridged", "warp", "add", "remap", "constant",
        ] {
            assert!(types.contains(&t), "{t} in {types:?}");
        }
        assert_eq!(meta["file"], "g.json");
        assert_eq!(meta["flow_modes"], json!(FLOW_MODES));
        assert_eq!(
            meta["ramps"],
            json!([
                "grayscale",
                "terrain",
                "magma",
                "viridis",
                "inferno",
                "ocean"
            ])
        );
    }
}
