//! What every service's HTTP routes share, written once for all of them (the platform knows no
//! service: each route keeps its own JSON shapes and error wording):
//!
//! * [`json_list`]: a query's answer written as the store streams it: `prefix`, the documents
//!   joined by `,`, `suffix` (`[`…`]` for a bare array, `{"ok": true, "data": [`…`]}` for an
//!   envelope), without holding them all;
//! * [`page_of_query`]: the optional `?limit=&skip=` of a query route, as the store's
//!   [`Page`](agora_store::Page);
//! * [`limits`]: the limits on a request's head (414, 431), each service answering in its shape;
//! * [`body`]: a request's body and path segment, read with a refusal for every malformed one;
//! * [`access`]: who is calling, as the front door said, and the checks that a caller acts only
//!   as itself;
//! * [`trace`]: each request as one unit of work, in its trace and its span;
//! * [`shell`]: the service shell: each service's errors in its shape, its checks and fallbacks,
//!   the router of each flow, several services on one server;
//! * [`envelope`]: success answers in Orcade's and Xchange's envelope;
//! * `openapi` (feature `openapi`): the OpenAPI schemas of the envelope, the error shapes and the
//!   bearer scheme, for each service's document.

pub mod access;
pub mod body;
pub mod envelope;
pub mod limits;
mod list;
#[cfg(feature = "openapi")]
pub mod openapi;
mod paging;
pub mod shell;
pub mod trace;

pub use list::{json_list, CHUNK_BYTES};
pub use paging::{page_of_query, ParamError, LIMIT, SKIP};
pub use shell::{ApiError, Flows, Service, ServiceError, Shell};
