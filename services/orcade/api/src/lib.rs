//! Orcade's HTTP API (orcade-1-3-5.md §3) as axum routers over the Orcade core's flows: one
//! router per flow ([`Flow`]), so that each Lambda function builds and serves only its flow, and
//! [`router`] with every route for the local server. Every answer, success or error, is the
//! envelope of §3: `{"ok": true, "data": ...}` or `{"ok": false, "error": "<message>"}` with a
//! non-2xx status ([`ApiError`] holds the one table from the core's `OrcadeError` to both).

mod body;
mod error;
pub mod limits;
mod routes;

pub use body::body_limit;
pub use error::ApiError;
pub use routes::{
    close_routes, create_routes, edit_routes, flow_router, no_route, query_routes, router, routes, spec_query_routes, spec_routes,
    submit_routes, with_fallbacks, with_limits, wrong_method, Flow, PATHS,
};

use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// `{"ok": true, "data": <data>}` with `status`, where `data` is JSON text already encoded
/// (stored documents pass through as they are, never decoded and encoded again).
pub fn ok_raw(status: StatusCode, data: &str) -> Response {
    let mut body = String::with_capacity(data.len() + 20);
    body.push_str(r#"{"ok":true,"data":"#);
    body.push_str(data);
    body.push('}');
    (status, [(CONTENT_TYPE, "application/json")], body).into_response()
}
