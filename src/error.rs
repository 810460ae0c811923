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
#[derive(Debug, thiserror::Error)]
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

/// The library's result type, with [`Error`] by default.
pub type Result<T, E = Error> = std::result::Result<T, E>;
