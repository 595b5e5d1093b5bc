//! The limits on a request's head (`agora_http::limits`: 414, 431), answered in Xchange's
//! envelope (`{"ok": false, "error": ...}`).

use crate::error::ApiError;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Refuses a request whose head is over the limits; passes the others on.
pub async fn check_head(request: Request, next: Next) -> Response {
    match agora_http::limits::head_problem(&request) {
        Some((status, message)) => ApiError::with_status(status, message).into_response(),
        None => next.run(request).await,
    }
}
