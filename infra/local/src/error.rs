//! The errors of the local server's own routes (the inbox, the admin routes, the local registry):
//! `{"error": "..."}`, the shape the fallbacks answer those paths in, with its status. Every
//! failure of those routes becomes one here, so that the statuses are chosen in one place and no
//! framework rejection (a path that does not decode, a body that is not JSON) reaches a client as
//! plain text: the extractors below ([`Segment`], [`Body`], [`json_body`]) refuse in this shape.

use crate::dead_letters::RedriveError;
use agora_auth::AuthError;
use agora_http::body::Refusal;
use agora_store::StoreError;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// A refusal or failure of a local route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalError {
    pub status: StatusCode,
    pub message: String,
    /// The caller's token was refused: answered with its `WWW-Authenticate` challenge.
    challenge: Option<AuthError>,
}

impl LocalError {
    pub fn with_status(status: StatusCode, message: impl Into<String>) -> Self {
        LocalError { status, message: message.into(), challenge: None }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::with_status(StatusCode::BAD_REQUEST, message)
    }

    /// The 401 of a request whose token the front door refused.
    pub fn unauthorized(error: &AuthError) -> Self {
        let (status, message) = agora_http::access::unauthorized(error);
        LocalError { status, message, challenge: Some(error.clone()) }
    }

    /// A store that failed: 503 when it could not be reached or failed (it may answer again),
    /// 500 when what it holds does not read.
    pub fn store(context: &str, e: &StoreError) -> Self {
        let status = match e {
            StoreError::Backend(_) => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self::with_status(status, format!("{context}: {e}"))
    }
}

impl From<Refusal> for LocalError {
    fn from((status, message): Refusal) -> Self {
        Self::with_status(status, message)
    }
}

impl From<RedriveError> for LocalError {
    fn from(e: RedriveError) -> Self {
        let status = match &e {
            RedriveError::Unknown { .. } => StatusCode::NOT_FOUND,
            RedriveError::NotRun { .. } => StatusCode::CONFLICT,
            RedriveError::Store(StoreError::Backend(_)) | RedriveError::Stopped { .. } => StatusCode::SERVICE_UNAVAILABLE,
            RedriveError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
        };
        Self::with_status(status, e.to_string())
    }
}

impl IntoResponse for LocalError {
    fn into_response(self) -> Response {
        let response = (self.status, Json(serde_json::json!({ "error": self.message }))).into_response();
        match &self.challenge {
            Some(error) => agora_http::access::with_challenge(response, error),
            None => response,
        }
    }
}

// `Body` (a request's body, whole, under the body limit) and `json_body`, refusing as a
// `LocalError`. (Its `Segment` names no field; the routes read theirs with [`Named`].)
agora_http::extractors!(LocalError);

/// The route's one path segment, percent-decoded, refused naming its field `F` (`Invalid
/// subject in the path: ...`) when it does not decode (invalid UTF-8, say).
pub struct Named<F: Field>(pub String, std::marker::PhantomData<F>);

/// The name of a path segment, for its refusal.
pub trait Field {
    const NAME: &'static str;
}

impl<F: Field> Named<F> {
    pub fn into_inner(self) -> String {
        self.0
    }
}

impl<S: Send + Sync, F: Field> FromRequestParts<S> for Named<F> {
    type Rejection = LocalError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, LocalError> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(segment)) => Ok(Named(segment, std::marker::PhantomData)),
            Err(e) => Err(LocalError::bad_request(format!("Invalid {} in the path: {}", F::NAME, e.body_text()))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_error_is_json_and_a_refused_token_gets_its_challenge() {
        let response = LocalError::bad_request("Unknown field \"x\"").into_response();
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        assert_eq!(response.headers()["content-type"], "application/json");
        let body = axum::body::to_bytes(response.into_body(), 1 << 20).await.unwrap();
        assert_eq!(serde_json::from_slice::<serde_json::Value>(&body).unwrap(), serde_json::json!({"error": "Unknown field \"x\""}));
        let response = LocalError::unauthorized(&AuthError::Missing).into_response();
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        assert!(response.headers().contains_key("www-authenticate"));
        assert_eq!(LocalError::store("reading", &StoreError::Backend("down".into())).status, StatusCode::SERVICE_UNAVAILABLE);
    }
}
