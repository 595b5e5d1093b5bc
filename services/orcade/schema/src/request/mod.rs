//! Parsing at the edge (§3): the create request (`POST /bid-jobs`), the bid request
//! (`POST /bid-jobs/{id}/bids`) and PATCH bodies (`PATCH /bid-jobs/{id}`, `PATCH /bids/{id}`).
//! Every invalid or missing field is reported by its path with what is wrong, all at once, as
//! [`ValidationErrors`](agora_schema::ValidationErrors).
//!
//! Builtin function names and their parameters are the rules crate's to judge: the parsers take
//! a [`BuiltinCheck`] (the rules crate's catalogue), so that an unknown `builtin:` name or a bad
//! parameter is one more field error of the same answer.

mod bid;
mod checks;
mod create;
mod patch;

pub use bid::{parse_bid_request, BID_REQUEST_FIELDS};
pub use checks::{BuiltinCheck, MAX_ID_CHARS, MAX_TAGS, MAX_TAG_CHARS};
pub use create::{parse_create_request, BID_JOB_FIELDS, MAX_TIME_LIMIT};
pub use patch::{parse_bid_job_patch, parse_bid_patch, Patch};

use agora_schema::fields::kind;
use agora_schema::ValidationErrors;
use serde_json::{Map, Value};

/// The body as an object, or the error that says it is not one.
fn object_body(body: &Value) -> Result<&Map<String, Value>, ValidationErrors> {
    body.as_object().ok_or_else(|| ValidationErrors::single("", format!("Request body must be a JSON object, got {}", kind(body))))
}
