//! Xchange's HTTP API (xchange-1-3-5.md §3) as axum routers over the Xchange core's flows: one
//! router per flow ([`Flow`]), so that each Lambda function builds and serves only its flow, and
//! [`router`] with every route for the local server. Every answer is the envelope of §3:
//! `{"ok": true, "data": ...}` or `{"ok": false, "error": "<message>"}` with a non-2xx status.

mod body;
mod error;
pub mod limits;
mod routes;

pub use body::body_limit;
pub use error::ApiError;
pub use routes::{
    flow_router, no_route, query_routes, router, routes, serves, subject_routes, submit_routes, with_fallbacks, with_limits, wrong_method,
    Flow, PATHS,
};
