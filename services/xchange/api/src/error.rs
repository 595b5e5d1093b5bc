//! The one place where the flows' errors become what a client reads: the HTTP status and the
//! message of `{"ok": false, "error": "<message>"}` (§3, compat). The words a client matches on
//! are the spec's: `task_data is required`, `Task not found`, `Subject not found`. An internal
//! error is logged here with its cause; the client reads only `Internal server error`.

use agora_xchange_core::XchangeError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    error: Option<XchangeError>,
}

impl From<XchangeError> for ApiError {
    fn from(e: XchangeError) -> Self {
        // A document the store refused is the input's fault (a request's own checks refuse
        // what a store would, by field, first): a 400 with the store's reason, never a 500.
        if let XchangeError::Internal(cause) = &e {
            if let Some(reason) = agora_store::StoreError::refused_document_in(cause) {
                let message = format!("The store refused the document: {reason}");
                return ApiError { status: StatusCode::BAD_REQUEST, message, error: Some(e) };
            }
        }
        ApiError { status: status_of(&e), message: wording(&e), error: Some(e) }
    }
}

impl ApiError {
    /// A 400 with `message`.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::with_status(StatusCode::BAD_REQUEST, message)
    }

    /// An answer of `status` with `message`.
    pub fn with_status(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError { status, message: message.into(), error: None }
    }

    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// What the client reads.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// The status of §3 for each error.
fn status_of(e: &XchangeError) -> StatusCode {
    match e {
        XchangeError::InvalidTask(_)
        | XchangeError::InvalidSubject(_)
        | XchangeError::InvalidPatch(_)
        | XchangeError::UnavailableFunction(_)
        | XchangeError::SelectionFailed { .. }
        | XchangeError::InvalidFilter(_) => StatusCode::BAD_REQUEST,
        XchangeError::TaskIdTaken(_) | XchangeError::SubjectIdTaken(_) => StatusCode::CONFLICT,
        XchangeError::UnknownTask(_) | XchangeError::UnknownSubject(_) => StatusCode::NOT_FOUND,
        XchangeError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// The message of each error.
fn wording(e: &XchangeError) -> String {
    match e {
        XchangeError::InvalidTask(errors) | XchangeError::InvalidSubject(errors) | XchangeError::InvalidPatch(errors) => errors.to_string(),
        XchangeError::UnavailableFunction(why) => why.clone(),
        XchangeError::SelectionFailed { task_id, error } => format!("Selector failed for task {task_id:?} (stored as failed): {error}"),
        XchangeError::TaskIdTaken(id) => format!("task_id {id:?} already exists"),
        XchangeError::SubjectIdTaken(id) => format!("subject_id {id:?} already exists"),
        XchangeError::UnknownTask(_) => "Task not found".into(),
        XchangeError::UnknownSubject(_) => "Subject not found".into(),
        XchangeError::InvalidFilter(e) => format!("Invalid filter: {e}"),
        XchangeError::Internal(_) => "Internal server error".into(),
    }
}

/// A paging parameter a query route refuses: `Invalid limit: must be ...`.
impl From<agora_http::ParamError> for ApiError {
    fn from(e: agora_http::ParamError) -> Self {
        ApiError::bad_request(format!("Invalid {}: {}", e.name, e.problem))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        match &self.error {
            Some(XchangeError::Internal(cause)) if self.status == StatusCode::INTERNAL_SERVER_ERROR => {
                tracing::error!(error = %cause, "internal error")
            }
            _ => tracing::debug!(status = self.status.as_u16(), error = %self.message, "request refused"),
        }
        (self.status, Json(json!({ "ok": false, "error": self.message }))).into_response()
    }
}

/// A refusal of the platform's request checks (`agora_http`: a 401, a 403, a 413) in this
/// service's shape.
impl From<agora_http::body::Refusal> for ApiError {
    fn from((status, message): agora_http::body::Refusal) -> Self {
        ApiError::with_status(status, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agora_store::StoreError;

    #[test]
    fn a_document_the_store_refused_is_a_400_with_its_reason_and_other_store_failures_a_500() {
        let refused = StoreError::InvalidDocument { collection: "c".into(), reason: "document exceeds 16 MB".into() };
        let answer = ApiError::from(XchangeError::from(refused));
        assert_eq!((answer.status().as_u16(), answer.message()), (400, "The store refused the document: document exceeds 16 MB"));
        let answer = ApiError::from(XchangeError::from(StoreError::Backend("down".into())));
        assert_eq!((answer.status().as_u16(), answer.message()), (500, "Internal server error"));
    }
}
