//! What a route reads from a request (`agora_http::body`), every refusal in this service's JSON
//! error: the body, read as bytes under [`BODY_LIMIT`], and a path segment (a job or bid id).

use crate::error::ApiError;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde_json::Value;

pub use agora_http::body::BODY_LIMIT;

/// A request body, whole.
pub struct Body(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for Body {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        agora_http::body::read_body(req, state).await.map(Body).map_err(|(status, message)| ApiError::with_status(status, message))
    }
}

/// The route's one path segment (a job or bid id), percent-decoded.
pub struct Segment(pub String);

impl<S: Send + Sync> FromRequestParts<S> for Segment {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        agora_http::body::path_segment(parts, state).await.map(Segment).map_err(|(status, message)| ApiError::with_status(status, message))
    }
}

/// The body as JSON (`agora_http::body::json_body`).
pub fn json_body(bytes: &Bytes, allow_empty: bool) -> Result<Value, ApiError> {
    agora_http::body::json_body(bytes, allow_empty).map_err(ApiError::bad_request)
}
