//! The HTTP API of §3 as one axum router over the voting core. The local server serves it
//! directly; the Lambda functions serve the same router through `lambda_http`, so both front
//! doors answer a request the same way.

mod body;
mod error;
pub mod intake;
pub mod limits;
mod routes;

pub use error::ApiError;
pub use routes::{
    create_routes, flow_router, no_route, parse_routes, query_routes, router, routes, vote_routes, with_fallbacks, with_limits,
    wrong_method, Flow, PATHS,
};

use axum::http::header::CONTENT_TYPE;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A response whose body is JSON text already encoded (stored documents pass through as is).
pub fn raw_json(status: StatusCode, body: String) -> Response {
    (status, [(CONTENT_TYPE, "application/json")], body).into_response()
}
