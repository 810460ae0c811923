//! Errors. Graph problems are collected, not stopped at the first one, and each names the
//! node and the field it is about.

use std::fmt;

/// One problem in a graph: which node, which field, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphIssue {
    /// The node id, or `None` for a graph-level field (`seed`, `output`, `nodes`).
    pub node: Option<String>,
    /// The field the problem is about.
    pub field: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for GraphIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.node {
            Some(node) => write!(
                f,
                "node '{}', field '{}': {}",
                node, self.field, self.message
            ),
            None => write!(f, "field '{}': {}", self.field, self.message),
        }
    }
}

/// Every problem found in a graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphErrors(pub Vec<GraphIssue>);

impl fmt::Display for GraphErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.0.len();
        write!(
            f,
            "{n} problem{} in the graph:",
            if n == 1 { "" } else { "s" }
        )?;
        for issue in &self.0 {
            write!(f, "\n  - {issue}")?;
        }
        Ok(())
    }
}

impl std::error::Error for GraphErrors {}

/// Everything the library can fail with.
///
/// A renderer can match the typed variants: [`Error::Graph`] (every problem in a graph, each
/// naming its node and field), [`Error::WrongTarget`] (a texture that does not fit, with what
/// was expected and what was given), [`Error::DeviceLimits`] (each device limit that is too
/// low, with what is needed and what the device has), [`Error::NoAdapter`] and
/// [`Error::Io`]. New variants may be added, so a `match` needs a wildcard arm.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("{0}")]
    /// The graph failed validation.
    Graph(#[from] GraphErrors),
    #[error("{0}")]
    /// A request (view, format, option) was invalid.
    InvalidRequest(String),
    #[error("no GPU adapter found (wgpu found none on any backend); use the CPU path (--backend cpu) or install a Vulkan driver such as Mesa's lavapipe (apt-get install mesa-vulkan-drivers)")]
    /// No GPU adapter was found.
    NoAdapter,
    #[error("GPU error: {0}")]
    /// A GPU operation failed.
    Gpu(String),
    #[error("{0}")]
    /// A request exceeds a size or device limit.
    Limit(String),
    #[error("I/O error on {path}: {source}")]
    /// Reading or writing a file failed.
    Io {
        /// The file's path.
        path: String,
        #[source]
        /// The underlying I/O error.
        source: std::io::Error,
    },
    #[error("image encoding failed for {path}: {message}")]
    /// Encoding an image failed.
    Encode {
        /// The file's path.
        path: String,
        /// The encoder's message.
        message: String,
    },
    #[error("{role} texture: {}", join_problems(problems))]
    /// A texture handed to the engine (a target, a height field, a normal-map output, a
    /// texture to read back) does not fit: every problem is listed, and nothing was recorded.
    WrongTarget {
        /// Which texture: `target`, `height`, `normal map`, `readback`.
        role: &'static str,
        /// Each mismatch, with what was expected and what was given.
        problems: Vec<TargetProblem>,
    },
    #[error(
        "the device lacks limits this graph needs on {adapter}: {}",
        join_limits(missing)
    )]
    /// The device's limits are below what the graph needs (see
    /// [`crate::gpu::DeviceRequirements`] to ask for them when creating the device).
    DeviceLimits {
        /// The adapter behind the device (name, backend, device type).
        adapter: String,
        /// Each limit that is too low.
        missing: Vec<MissingLimit>,
    },
}

/// One way a texture handed to the engine does not fit (see [`Error::WrongTarget`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TargetProblem {
    /// The texture's format is not one the pass writes or reads.
    Format {
        /// The accepted formats.
        expected: Vec<wgpu::TextureFormat>,
        /// The texture's format.
        found: wgpu::TextureFormat,
    },
    /// 2D where 3D is needed, or the reverse.
    Dimension {
        /// The dimension needed.
        expected: wgpu::TextureDimension,
        /// The texture's dimension.
        found: wgpu::TextureDimension,
    },
    /// The size of the chosen mip level (width, height, depth; depth 1 for a 2D layer) is not
    /// the view's.
    Size {
        /// The size needed.
        expected: [u32; 3],
        /// The size of the texture at the chosen mip level.
        found: [u32; 3],
        /// The chosen mip level.
        mip_level: u32,
    },
    /// The texture lacks a usage the pass needs.
    Usage {
        /// The usages needed.
        needed: wgpu::TextureUsages,
        /// The texture's usages.
        found: wgpu::TextureUsages,
    },
    /// The chosen mip level does not exist.
    MipLevel {
        /// The chosen mip level.
        requested: u32,
        /// How many the texture has.
        count: u32,
    },
    /// The chosen array layer does not exist (a 3D texture has only layer 0).
    ArrayLayer {
        /// The chosen layer.
        requested: u32,
        /// How many the texture has.
        count: u32,
    },
    /// A multisampled texture; storage and copies need one sample.
    SampleCount {
        /// The texture's sample count.
        found: u32,
    },
    /// The texture was created on another device (or another wgpu instance) than the one
    /// the pass was compiled on.
    Device,
}

impl fmt::Display for TargetProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetProblem::Format { expected, found } => match expected.as_slice() {
                [one] => write!(f, "format is {found:?}, needs {one:?}"),
                many => write!(f, "format is {found:?}, needs one of {many:?}"),
            },
            TargetProblem::Dimension { expected, found } => {
                write!(f, "dimension is {found:?}, needs {expected:?}")
            }
            TargetProblem::Size {
                expected,
                found,
                mip_level,
            } => {
                let [a, b, c] = found;
                let [x, y, z] = expected;
                match mip_level {
                    0 => write!(f, "size is {a}x{b}x{c}, needs {x}x{y}x{z}"),
                    m => write!(f, "size of mip level {m} is {a}x{b}x{c}, needs {x}x{y}x{z}"),
                }
            }
            TargetProblem::Usage { needed, found } => write!(
                f,
                "usage {} lacks {} (needs at least {})",
                usage_names(*found),
                usage_names(*needed - *found),
                usage_names(*needed)
            ),
            TargetProblem::MipLevel { requested, count } => write!(
                f,
                "mip level {requested} does not exist (the texture has {count})"
            ),
            TargetProblem::ArrayLayer { requested, count } => write!(
                f,
                "array layer {requested} does not exist (the texture has {count})"
            ),
            TargetProblem::SampleCount { found } => {
                write!(f, "has {found} samples, needs 1")
            }
            TargetProblem::Device => write!(
                f,
                "belongs to another device than the one the pass was compiled on (create it on \
                 the GpuContext's device)"
            ),
        }
    }
}

/// One device limit that is too low (see [`Error::DeviceLimits`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingLimit {
    /// The field of `wgpu::Limits`, e.g. `max_texture_dimension_2d`.
    pub name: &'static str,
    /// What the graph needs.
    pub needed: u64,
    /// What the device has.
    pub available: u64,
}

impl fmt::Display for MissingLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {} (needs {})",
            self.name, self.available, self.needed
        )
    }
}

fn join_problems(problems: &[TargetProblem]) -> String {
    let texts: Vec<String> = problems.iter().map(ToString::to_string).collect();
    texts.join("; ")
}

fn join_limits(missing: &[MissingLimit]) -> String {
    let texts: Vec<String> = missing.iter().map(ToString::to_string).collect();
    texts.join(", ")
}

/// Texture usage flags by name, `A | B`.
fn usage_names(usage: wgpu::TextureUsages) -> String {
    let names: Vec<&str> = usage.iter_names().map(|(name, _)| name).collect();
    if names.is_empty() {
        "(none)".into()
    } else {
        names.join(" | ")
    }
}

/// The library's result type, with [`Error`] by default.
pub type Result<T, E = Error> = std::result::Result<T, E>;
