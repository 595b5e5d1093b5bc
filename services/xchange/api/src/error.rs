//! The one place where the flows' errors become what a client reads: the HTTP status and the
//! message of `{"ok": false, "error": "<message>"}` (§3, compat). The words a client matches on
//! are the spec's: `task_data is required`, `Task not found`, `Subject not found`. An internal
//! error is logged with its cause (by the platform's shell, `agora_http::shell`); the client
//! reads only `Internal server error`.

use crate::shell::Api;
use agora_http::ServiceError;
use agora_support::InternalError;
use agora_xchange_core::XchangeError;
use axum::http::StatusCode;

/// An error on its way to the client, in the envelope.
pub type ApiError = agora_http::ApiError<XchangeError, Api>;

/// Xchange's table: the status and message of each error.
impl ServiceError<Api> for XchangeError {
    fn status(&self) -> StatusCode {
        match self {
            Self::InvalidTask(_)
            | Self::InvalidSubject(_)
            | Self::InvalidPatch(_)
            | Self::UnavailableFunction(_)
            | Self::SelectionFailed { .. }
            | Self::InvalidFilter(_) => StatusCode::BAD_REQUEST,
            Self::TaskIdTaken(_) | Self::SubjectIdTaken(_) => StatusCode::CONFLICT,
            Self::UnknownTask(_) | Self::UnknownSubject(_) => StatusCode::NOT_FOUND,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn wording(&self) -> String {
        match self {
            Self::InvalidTask(errors) | Self::InvalidSubject(errors) | Self::InvalidPatch(errors) => errors.to_string(),
            Self::UnavailableFunction(why) => why.clone(),
            Self::SelectionFailed { task_id, error } => format!("Selector failed for task {task_id:?} (stored as failed): {error}"),
            Self::TaskIdTaken(id) => format!("task_id {id:?} already exists"),
            Self::SubjectIdTaken(id) => format!("subject_id {id:?} already exists"),
            Self::UnknownTask(_) => "Task not found".into(),
            Self::UnknownSubject(_) => "Subject not found".into(),
            Self::InvalidFilter(e) => format!("Invalid filter: {e}"),
            Self::Internal(_) => "Internal server error".into(),
        }
    }

    fn internal(&self) -> Option<&InternalError> {
        match self {
            Self::Internal(cause) => Some(cause),
            _ => None,
        }
    }
}
