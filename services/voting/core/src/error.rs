//! The one error type of the voting flows. Each variant says which HTTP status it is; the
//! mapping itself lives in the API crate, in one place.

use agora_store::StoreError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VotingError {
    /// The request is malformed or names a field wrongly (400). The message names the field.
    #[error("{0}")]
    Invalid(String),
    /// The task (or other resource) does not exist (404).
    #[error("{0}")]
    NotFound(String),
    /// The caller may not do this (403).
    #[error("{0}")]
    Forbidden(String),
    /// The request conflicts with the stored state (409).
    #[error("{0}")]
    Conflict(String),
    /// Something failed that the caller cannot fix (500). The message is for the log only.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<StoreError> for VotingError {
    fn from(e: StoreError) -> Self {
        VotingError::Internal(e.to_string())
    }
}

impl From<serde_json::Error> for VotingError {
    fn from(e: serde_json::Error) -> Self {
        VotingError::Internal(format!("stored document does not decode: {e}"))
    }
}
