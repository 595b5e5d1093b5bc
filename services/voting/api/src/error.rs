//! The one place where flow errors become HTTP statuses and `{"error": "..."}` bodies (§3).

use agora_voting_core::VotingError;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError(pub VotingError);

impl From<VotingError> for ApiError {
    fn from(e: VotingError) -> Self {
        ApiError(e)
    }
}

impl ApiError {
    pub fn bad_request(message: impl Into<String>) -> Self {
        ApiError(VotingError::Invalid(message.into()))
    }

    pub fn status(&self) -> StatusCode {
        match &self.0 {
            VotingError::Invalid(_) => StatusCode::BAD_REQUEST,
            VotingError::NotFound(_) => StatusCode::NOT_FOUND,
            VotingError::Forbidden(_) => StatusCode::FORBIDDEN,
            VotingError::Conflict(_) => StatusCode::CONFLICT,
            VotingError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let message = match &self.0 {
            VotingError::Internal(cause) => {
                tracing::error!(error = %cause, "internal error");
                "Internal server error".to_owned()
            }
            other => {
                tracing::debug!(status = status.as_u16(), error = %other, "request refused");
                other.to_string()
            }
        };
        (status, Json(json!({ "error": message }))).into_response()
    }
}
