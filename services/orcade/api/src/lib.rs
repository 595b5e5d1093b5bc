//! Orcade's HTTP API (orcade-1-3-5.md §3) as axum routers over the Orcade core's flows, in the
//! platform's service shell (`agora_http::shell`): one router per flow ([`Flow`]), so that each
//! Lambda function builds and serves only its flow, and [`router`] with every route for the local
//! server. Every answer, success or error, is the envelope of §3: `{"ok": true, "data": ...}` or
//! `{"ok": false, "error": "<message>"}` with a non-2xx status ([`ApiError`] holds the one table
//! from the core's `OrcadeError` to both). With the feature `openapi`, `openapi::document()` is
//! Orcade's OpenAPI 3.1 document.

mod body;
mod error;
#[cfg(feature = "openapi")]
pub mod openapi;
mod routes;
mod shell;

pub use body::body_limit;
pub use error::ApiError;
pub use routes::{
    close_routes, create_routes, edit_routes, flow_router, query_routes, router, routes, spec_query_routes, spec_routes, submit_routes,
    Flow,
};
pub use shell::{Api, PATHS, SHELL};
