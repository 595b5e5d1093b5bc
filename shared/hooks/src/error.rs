//! Why a hook produced no usable output.

use std::time::Duration;

/// Why a hook produced no usable output. Every variant keeps the detail for the log.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HookError {
    /// The spec is `{}` (or the id `""`) where a hook is required.
    #[error("hook is not configured")]
    NotConfigured,
    /// The spec names a mode or rule this deployment cannot run.
    #[error("{0}")]
    Unavailable(String),
    /// The hook could not be reached (connection refused, DNS, TLS).
    #[error("hook unreachable: {0}")]
    Unreachable(String),
    /// The hook did not answer within its time limit.
    #[error("hook timed out after {0:?}")]
    Timeout(Duration),
    /// The hook answered with a non-2xx status.
    #[error("hook answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    /// The hook answered, but not with the output its contract requires.
    #[error("hook output is malformed: {0}")]
    Malformed(String),
    /// A builtin rule refused its input.
    #[error("hook rule failed: {0}")]
    Rule(String),
}

impl HookError {
    /// Whether running the same hook again may succeed (a timeout or an unreachable service may;
    /// a malformed output or an unknown rule will not).
    pub fn is_transient(&self) -> bool {
        match self {
            HookError::Unreachable(_) | HookError::Timeout(_) => true,
            HookError::Status { status, .. } => *status >= 500 || *status == 429,
            _ => false,
        }
    }
}
