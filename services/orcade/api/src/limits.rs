//! The checks before every route (`agora_http::limits::check_request`: the head's limits, 414
//! and 431; the caller, 401), answered in Orcade's envelope (`{"ok": false, "error": ...}`).

use crate::error::ApiError;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Refuses a request whose head is over the limits or whose caller the front door refused;
/// passes the others on.
pub async fn check_request(request: Request, next: Next) -> Response {
    agora_http::limits::check_request(request, next, |(status, message)| ApiError::with_status(status, message).into_response()).await
}
