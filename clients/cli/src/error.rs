//! What a command can end in besides success, and the exit code of each (`agora --help`).

use crate::http::ApiError;

/// Exit code: the service refused the request (4xx).
pub const EXIT_REFUSED: u8 = 1;
/// Exit code: usage (clap's own, and unreadable input files or JSON arguments).
pub const EXIT_USAGE: u8 = 2;
/// Exit code: the server is unreachable or failed (5xx).
pub const EXIT_SERVER: u8 = 3;

#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error(transparent)]
    Api(#[from] ApiError),
    /// An input the command cannot use: a file it cannot read, JSON or YAML it cannot parse.
    #[error("{0}")]
    Input(String),
    /// `--timeout` passed before the task was complete.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The MCP server could not start or stopped on an error.
    #[error("MCP server: {0}")]
    Mcp(String),
    /// Writing to standard output failed.
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

impl CliError {
    /// The process's exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Api(ApiError::Refused { .. }) => EXIT_REFUSED,
            CliError::Api(ApiError::BadUrl(..)) | CliError::Input(_) => EXIT_USAGE,
            CliError::Api(_) | CliError::Timeout(_) | CliError::Mcp(_) | CliError::Output(_) => EXIT_SERVER,
        }
    }
}
