//! Channel packing (`--channels r=height,g=mask,b=normal.x`): several nodes, or the components
//! of the baked node's normal map, into the R, G, B and A channels of one PNG (8/16-bit) or
//! EXR (`.npy` too), each channel mapped from its own range. A packed channel holds exactly
//! what that node's own single-channel file of the same view holds. The runner bakes the
//! sources (`src/cli/runner.rs`); this file says what they are and how each channel maps.

use noisegraph::io::{Channel, Format};
use noisegraph::{NoiseGraph, Plan};

use super::Failure;

/// The file's channels, in order.
const LETTERS: [char; 4] = ['r', 'g', 'b', 'a'];

/// What one packed channel holds.
#[derive(Debug, Clone, PartialEq)]
pub enum PackSource {
    /// A node's value.
    Node(String),
    /// Component 0, 1 or 2 (x, y, z) of the baked node's analytic normal map, mapped from
    /// -1..1 as in a normal-map PNG.
    Normal(usize),
    /// Nothing given: level 0 (an unnamed R, G or B of a PNG).
    Zero,
}

/// One channel of a packed file.
#[derive(Debug, Clone, PartialEq)]
pub struct PackedChannel {
    /// `r`, `g`, `b` or `a`.
    pub letter: char,
    pub source: PackSource,
    /// The range given after the source (`height:0:1`); else the node's documented range,
    /// or its data's with `--normalize minmax`.
    pub range: Option<(f32, f32)>,
}

/// Parses `r=SOURCE[:LO:HI],g=...`: SOURCE a node id or `normal.x|y|z`, each letter of r, g,
/// b, a at most once. Errors start with `--channels`.
pub fn parse_channels(text: &str) -> Result<Vec<PackedChannel>, Failure> {
    let bad = |m: String| {
        Failure::bad_input(format!(
            "--channels: {m} (expected r=SOURCE[:LO:HI],g=...,b=...,a=... with SOURCE a node id or normal.x, normal.y, normal.z)"
        ))
    };
    let mut given: Vec<PackedChannel> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (letter, rest) = part
            .split_once('=')
            .ok_or_else(|| bad(format!("'{part}' has no '='")))?;
        let letter = match letter.trim().to_ascii_lowercase().as_str() {
            "r" => 'r',
            "g" => 'g',
            "b" => 'b',
            "a" => 'a',
            other => return Err(bad(format!("'{other}' is not a channel (r, g, b, a)"))),
        };
        if given.iter().any(|c| c.letter == letter) {
            return Err(bad(format!("channel {letter} is given twice")));
        }
        let mut fields = rest.trim().split(':');
        let source = fields.next().unwrap_or("").trim();
        let range = match (fields.next(), fields.next(), fields.next()) {
            (None, _, _) => None,
            (Some(lo), Some(hi), None) => {
                let parse = |t: &str| t.trim().parse::<f32>().ok().filter(|v| v.is_finite());
                match (parse(lo), parse(hi)) {
                    (Some(lo), Some(hi)) if lo < hi => Some((lo, hi)),
                    _ => {
                        return Err(bad(format!(
                            "channel {letter}: the range '{lo}:{hi}' must be two finite numbers LO < HI"
                        )))
                    }
                }
            }
            _ => {
                return Err(bad(format!(
                    "channel {letter}: '{rest}' is not SOURCE or SOURCE:LO:HI"
                )))
            }
        };
        let source = match source {
            "" => return Err(bad(format!("channel {letter} has no source"))),
            "normal.x" => PackSource::Normal(0),
            "normal.y" => PackSource::Normal(1),
            "normal.z" => PackSource::Normal(2),
            node => PackSource::Node(node.to_string()),
        };
        given.push(PackedChannel {
            letter,
            source,
            range,
        });
    }
    if given.is_empty() {
        return Err(bad("no channel given".into()));
    }
    given.sort_by_key(|c| LETTERS.iter().position(|&l| l == c.letter));
    Ok(given)
}

/// The channels a `format` file gets: a PNG always has R, G and B (a missing one is level 0)
/// and A when `a` is given; float formats get the channels given.
pub fn file_channels(given: &[PackedChannel], format: Format) -> Vec<PackedChannel> {
    if !matches!(format, Format::Png | Format::Png16) {
        return given.to_vec();
    }
    let has_alpha = given.iter().any(|c| c.letter == 'a');
    LETTERS[..if has_alpha { 4 } else { 3 }]
        .iter()
        .map(|&letter| {
            given
                .iter()
                .find(|c| c.letter == letter)
                .cloned()
                .unwrap_or(PackedChannel {
                    letter,
                    source: PackSource::Zero,
                    range: None,
                })
        })
        .collect()
}

/// What one channel of a packed file is baked from.
pub enum PackPlan {
    /// A node's value, by its plan.
    Node(Plan),
    /// Component 0, 1 or 2 of the job's node's analytic normal map.
    Normal(usize),
    /// Level 0.
    Zero,
}

/// A packed job's channels, ready to bake: a plan per node channel.
pub struct Packing {
    /// The channels of the file, in order (a PNG's missing R, G or B as [`PackSource::Zero`]).
    pub channels: Vec<PackedChannel>,
    /// What each channel is baked from.
    pub plans: Vec<PackPlan>,
}

impl Packing {
    /// Plans every channel of `given` for `format`; `target` is the node whose normal map
    /// `normal.*` channels hold. Errors name the channel.
    pub fn new(
        graph: &NoiseGraph,
        target: &str,
        given: &[PackedChannel],
        format: Format,
    ) -> Result<Packing, Failure> {
        let channels = file_channels(given, format);
        let mut plans = Vec::with_capacity(channels.len());
        for c in &channels {
            let refused = |e: noisegraph::Error| {
                Failure::bad_input(format!("--channels: channel {}: {e}", c.letter))
            };
            plans.push(match &c.source {
                PackSource::Node(node) => {
                    PackPlan::Node(Plan::new(graph, Some(node)).map_err(refused)?)
                }
                PackSource::Normal(axis) => {
                    noisegraph::gpu::analytic_plan(graph, Some(target)).map_err(refused)?;
                    PackPlan::Normal(*axis)
                }
                PackSource::Zero => PackPlan::Zero,
            });
        }
        Ok(Packing { channels, plans })
    }

    /// The file's channels, named `R`, `G`, `B`, `A`, each with its fixed range: given, else
    /// fixed by its source (normals -1..1, zero 0..1), else the node's documented range.
    pub fn layout(&self, graph: &NoiseGraph) -> Vec<Channel> {
        self.channels
            .iter()
            .map(|c| {
                let range = match (&c.source, c.range) {
                    (_, Some(range)) => range,
                    (PackSource::Normal(_), None) => (-1.0, 1.0),
                    (PackSource::Zero, None) => (0.0, 1.0),
                    (PackSource::Node(node), None) => graph.range_of(node),
                };
                Channel::new(&c.letter.to_ascii_uppercase().to_string(), range)
            })
            .collect()
    }

    /// Which channels map from their data's own range under `--normalize minmax`: node
    /// channels without a range given.
    pub fn data_ranged(&self) -> Vec<bool> {
        self.channels
            .iter()
            .map(|c| c.range.is_none() && matches!(c.source, PackSource::Node(_)))
            .collect()
    }
}

/// How messages name a channel's source.
pub fn describe(source: &PackSource) -> String {
    match source {
        PackSource::Node(node) => node.clone(),
        PackSource::Normal(axis) => format!("normal.{}", ["x", "y", "z"][*axis]),
        PackSource::Zero => "0".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_parse_in_file_order_with_ranges() {
        let c = parse_channels("b=normal.x, r=height:-1:1,g=mask").unwrap();
        assert_eq!(c.iter().map(|c| c.letter).collect::<String>(), "rgb");
        assert_eq!(c[0].range, Some((-1.0, 1.0)));
        assert_eq!(c[1].source, PackSource::Node("mask".into()));
        assert_eq!(c[2].source, PackSource::Normal(0));
        for bad in [
            "",
            "x=height",
            "r=height,r=mask",
            "r=",
            "r=h:1",
            "r=h:2:1",
            "r",
        ] {
            let e = parse_channels(bad).unwrap_err();
            assert!(
                e.message.starts_with("--channels: "),
                "{bad}: {}",
                e.message
            );
        }
    }
}
