//! Colour ramps: a value in [0, 1] to an 8-bit RGB colour, interpolated linearly between
//! stops (`--ramp NAME|STOPS`). Built in: `grayscale`, `terrain`, `magma`, `viridis`,
//! `inferno`, `ocean`; or stops given as `COLOR,COLOR,...` (evenly spaced) or
//! `T:COLOR,T:COLOR,...` with T in [0, 1] increasing and COLOR as `#rrggbb`.

use crate::error::{Error, Result};

/// A colour ramp: stops at increasing positions from 0 to 1.
#[derive(Debug, Clone, PartialEq)]
pub struct Ramp {
    stops: Vec<(f32, [f32; 3])>,
}

/// The built-in ramps: name and evenly spaced `#rrggbb` stops (the sequential colormaps of
/// matplotlib sampled at nine points; `terrain` from water through grass and rock to snow).
const BUILT_IN: &[(&str, &[&str])] = &[
    ("grayscale", &["#000000", "#ffffff"]),
    (
        "terrain",
        &[
            "#333399", "#0099ff", "#00cc66", "#99e57f", "#ffff99", "#bf9f7a", "#805c54", "#bfaeaa",
            "#ffffff",
        ],
    ),
    (
        "magma",
        &[
            "#000004", "#1c1044", "#4f127b", "#812581", "#b5367a", "#e55064", "#fb8761", "#fec287",
            "#fcfdbf",
        ],
    ),
    (
        "viridis",
        &[
            "#440154", "#472d7b", "#3b528b", "#2c728e", "#21918c", "#28ae80", "#5ec962", "#addc30",
            "#fde725",
        ],
    ),
    (
        "inferno",
        &[
            "#000004", "#1f0c48", "#550f6d", "#88226a", "#ba3655", "#e35933", "#f98c0a", "#f9c932",
            "#fcffa4",
        ],
    ),
    (
        "ocean",
        &[
            "#007f00", "#004c33", "#001966", "#0019b2", "#007fff", "#66ccff", "#ffffff",
        ],
    ),
];

impl Ramp {
    /// The names of the built-in ramps.
    pub fn names() -> impl Iterator<Item = &'static str> {
        BUILT_IN.iter().map(|(name, _)| *name)
    }

    /// A built-in ramp by name, or stops as described in the module docs.
    pub fn parse(text: &str) -> Result<Ramp> {
        let text = text.trim();
        if let Some((_, stops)) = BUILT_IN.iter().find(|(name, _)| *name == text) {
            return Self::even(
                &stops
                    .iter()
                    .map(|s| parse_color(s))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        let bad = |m: String| {
            Error::InvalidRequest(format!(
                "--ramp: {m} (a built-in ramp: {}; or stops '#rrggbb,#rrggbb,...' or 'T:#rrggbb,...' with T from 0 to 1)",
                Self::names().collect::<Vec<_>>().join(", ")
            ))
        };
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() < 2 {
            return Err(bad(format!(
                "'{text}' is not a ramp name and has fewer than two stops"
            )));
        }
        if parts.iter().all(|p| !p.contains(':')) {
            let colors = parts
                .iter()
                .map(|p| parse_color(p))
                .collect::<Result<Vec<_>>>()
                .map_err(|e| bad(e.to_string()))?;
            return Self::even(&colors);
        }
        let mut stops = Vec::with_capacity(parts.len());
        for part in parts {
            let (t, color) = part
                .split_once(':')
                .ok_or_else(|| bad(format!("stop '{part}' has no position (T:#rrggbb)")))?;
            let t: f32 = t
                .trim()
                .parse()
                .ok()
                .filter(|t: &f32| (0.0..=1.0).contains(t))
                .ok_or_else(|| {
                    bad(format!(
                        "stop '{part}': the position must be a number from 0 to 1"
                    ))
                })?;
            if stops.last().is_some_and(|&(last, _)| t < last) {
                return Err(bad(format!("stop '{part}': positions must not decrease")));
            }
            stops.push((
                t,
                parse_color(color.trim()).map_err(|e| bad(e.to_string()))?,
            ));
        }
        if stops[0].0 != 0.0 || stops[stops.len() - 1].0 != 1.0 {
            return Err(bad("the first stop must be at 0 and the last at 1".into()));
        }
        Ok(Ramp { stops })
    }

    fn even(colors: &[[f32; 3]]) -> Result<Ramp> {
        let last = (colors.len() - 1) as f32;
        Ok(Ramp {
            stops: colors
                .iter()
                .enumerate()
                .map(|(i, &c)| (i as f32 / last, c))
                .collect(),
        })
    }

    /// The colour at `t` (clamped to [0, 1]; NaN is 0), each channel rounded to 8 bits.
    pub fn rgb8(&self, t: f32) -> [u8; 3] {
        let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        let upper = self
            .stops
            .iter()
            .position(|&(s, _)| s >= t)
            .unwrap_or(self.stops.len() - 1);
        let (t1, c1) = self.stops[upper];
        let (t0, c0) = self.stops[upper.saturating_sub(1)];
        let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 1.0 };
        std::array::from_fn(|i| (c0[i] + (c1[i] - c0[i]) * f).round().clamp(0.0, 255.0) as u8)
    }
}

/// `#rrggbb` to channel levels 0..255.
fn parse_color(text: &str) -> Result<[f32; 3]> {
    let hex = text.strip_prefix('#').unwrap_or(text);
    let bad = || Error::InvalidRequest(format!("'{text}' is not a colour #rrggbb"));
    if hex.len() != 6 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let level = |i: usize| {
        u8::from_str_radix(&hex[i..i + 2], 16)
            .map(f32::from)
            .map_err(|_| bad())
    };
    Ok([level(0)?, level(2)?, level(4)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ends_and_midpoints_of_a_ramp() {
        let gray = Ramp::parse("grayscale").unwrap();
        assert_eq!(gray.rgb8(0.0), [0, 0, 0]);
        assert_eq!(gray.rgb8(1.0), [255, 255, 255]);
        assert_eq!(gray.rgb8(0.5), [128, 128, 128]);
        assert_eq!(gray.rgb8(f32::NAN), [0, 0, 0]);
        let stops = Ramp::parse("0:#ff0000, 0.25:#00ff00, 1:#0000ff").unwrap();
        assert_eq!(stops.rgb8(0.25), [0, 255, 0]);
        assert_eq!(stops.rgb8(0.125), [128, 128, 0]);
        assert_eq!(stops.rgb8(2.0), [0, 0, 255]);
        for name in Ramp::names() {
            Ramp::parse(name).unwrap();
        }
    }

    #[test]
    fn bad_ramps_name_the_flag() {
        for text in [
            "nope",
            "#12345",
            "0:#000000,0.5:#ffffff",
            "1:#000000,0:#ffffff",
            "#000000,#zzzzzz",
        ] {
            let e = Ramp::parse(text).unwrap_err().to_string();
            assert!(e.starts_with("--ramp: "), "{text}: {e}");
        }
    }
}
