//! Errors. Graph problems are collected, not stopped at the first one, and each names the
//! node and the field it is about.

use std::fmt;

/// One problem in a graph: which node, which field, what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphIssue {
    /// The node id, or `None` for a graph-level field (`seed`, `output`, `nodes`).
    pub node: Option<String>,
    pub field: String,
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
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Graph(#[from] GraphErrors),
    #[error("invalid request: {0}")]
    InvalidRequest(String),
    #[error("no GPU adapter found (wgpu found none on any backend); use the CPU path (--backend cpu) or install a Vulkan driver such as Mesa's lavapipe (apt-get install mesa-vulkan-drivers)")]
    NoAdapter,
    #[error("GPU error: {0}")]
    Gpu(String),
    #[error("{0}")]
    Limit(String),
    #[error("I/O error on {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("image encoding failed for {path}: {message}")]
    Encode { path: String, message: String },
}

impl Error {
    /// The exit code the command-line tool uses: 2 for bad input, 1 for everything else.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Graph(_) | Error::InvalidRequest(_) | Error::Limit(_) => 2,
            _ => 1,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
