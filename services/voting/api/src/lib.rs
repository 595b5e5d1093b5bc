//! The HTTP API of §3 as axum routers over the voting core, in the platform's service shell
//! (`agora_http::shell`): one router per flow ([`Flow`]), so that each Lambda function builds and
//! serves only its flow, and [`router`] with every route. The local server serves the same
//! routes, so both front doors answer a request the same way. With the feature `openapi`,
//! `openapi::document()` is voting's OpenAPI 3.1 document.

mod body;
mod error;
pub mod intake;
#[cfg(feature = "openapi")]
pub mod openapi;
mod routes;
mod shell;

pub use error::{vote_refusal, ApiError};
pub use routes::{cancel_routes, create_routes, flow_router, parse_routes, query_routes, router, routes, vote_routes, Flow};
pub use shell::{Api, PATHS, SHELL};
