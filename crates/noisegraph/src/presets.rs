//! Named graphs embedded in the binary (`noisegraph presets`, `bake --preset NAME`). They use
//! only value, Perlin and simplex with fBm / ridged / billow / warp / point-wise nodes.

use crate::error::{Error, Result};
use crate::graph::NoiseGraph;

/// A named graph with a one-line description.
pub struct Preset {
    /// The preset's name.
    pub name: &'static str,
    /// A one-line description.
    pub description: &'static str,
    /// The graph, in the JSON format.
    pub json: &'static str,
}

/// Every preset, in the order `noisegraph presets` lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "terrain",
        description: "domain-warped 8-octave Perlin fBm: rolling terrain heights",
        json: include_str!("presets/terrain.json"),
    },
    Preset {
        name: "mountains",
        description: "8-octave ridged simplex: sharp mountain crests",
        json: include_str!("presets/mountains.json"),
    },
    Preset {
        name: "marble",
        description: "ridged Perlin veins stretched along x, warped by simplex fBm turbulence",
        json: include_str!("presets/marble.json"),
    },
    Preset {
        name: "wood",
        description: "Perlin grain stretched across y and bent by value fBm, folded by abs",
        json: include_str!("presets/wood.json"),
    },
    Preset {
        name: "cells",
        description: "2-octave ridged simplex: a network of cell walls",
        json: include_str!("presets/cells.json"),
    },
    Preset {
        name: "clouds",
        description: "7-octave billow of quintic value noise, clamped: puffy clouds",
        json: include_str!("presets/clouds.json"),
    },
    Preset {
        name: "swirl",
        description: "simplex fBm warped by two offset fBm fields: marbled swirls",
        json: include_str!("presets/swirl.json"),
    },
    Preset {
        name: "tileable",
        description: "Perlin fBm with period 4: wraps seamlessly at the image edge",
        json: include_str!("presets/tileable.json"),
    },
];

/// The preset called `name`.
pub fn find(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

/// The graph of preset `name`; the error lists the known names.
pub fn graph(name: &str) -> Result<NoiseGraph> {
    let preset = find(name).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        Error::InvalidRequest(format!(
            "unknown preset '{name}' (presets: {})",
            names.join(", ")
        ))
    })?;
    Ok(NoiseGraph::from_json(preset.json)?)
}
