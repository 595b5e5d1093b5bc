//! The one error type of the Xchange flows: every refusal of §3, typed. The status and the
//! `{"ok": false, "error": ...}` envelope are the API crate's to choose, in one place; an
//! internal error keeps its cause for the log.

use agora_store::StoreError;
use agora_xchange_schema::ValidationErrors;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum XchangeError {
    /// A `POST /tasks` body with fields missing or wrong, each named by its path (400).
    #[error("{0}")]
    InvalidTask(ValidationErrors),
    /// A `POST /subjects` body with fields wrong (400).
    #[error("{0}")]
    InvalidSubject(ValidationErrors),
    /// A `PATCH /subjects/{id}` body that cannot be applied (400).
    #[error("{0}")]
    InvalidPatch(ValidationErrors),
    /// A function id this deployment cannot run: `<field>: <why>` (400).
    #[error("{0}")]
    UnavailableFunction(String),
    /// Function mode's selector failed or named no known subject; the task is stored `failed`
    /// with this error (400).
    #[error("the selector failed for task {task_id:?}: {error}")]
    SelectionFailed { task_id: String, error: String },
    /// A `task_id` already in use (409).
    #[error("task_id {0:?} already exists")]
    TaskIdTaken(String),
    /// A `subject_id` already in use (409).
    #[error("subject_id {0:?} already exists")]
    SubjectIdTaken(String),
    /// No task has this id (404).
    #[error("no task has the id {0:?}")]
    UnknownTask(String),
    /// No subject has this id (404).
    #[error("no subject has the id {0:?}")]
    UnknownSubject(String),
    /// The query's filter is not one of the filter language (400).
    #[error("invalid filter: {0}")]
    InvalidFilter(String),
    /// Something failed that the caller cannot fix (500).
    #[error("{0}")]
    Internal(InternalError),
}

pub use agora_support::InternalError;

impl XchangeError {
    pub fn internal(context: impl Into<String>) -> Self {
        XchangeError::Internal(InternalError::new(context))
    }

    pub fn internal_caused(context: impl Into<String>, cause: impl std::error::Error + Send + Sync + 'static) -> Self {
        XchangeError::Internal(InternalError::caused(context, cause))
    }
}

/// Counted by its kind ([`crate::telemetry::store_error`]): every store error a flow does not
/// handle itself passes here.
impl From<StoreError> for XchangeError {
    fn from(e: StoreError) -> Self {
        crate::telemetry::store_error(&e);
        XchangeError::internal_caused("the store failed", e)
    }
}

impl From<serde_json::Error> for XchangeError {
    fn from(e: serde_json::Error) -> Self {
        XchangeError::internal_caused("a stored document does not decode", e)
    }
}
