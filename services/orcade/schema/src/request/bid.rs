//! `POST /bid-jobs/{bid_job_id}/bids` (§3): `{"bid_subject_id", "bid_data"}` in, the bid to
//! screen and store out. The job id comes from the path.
//!
//! * `bid_subject_id`: a non-empty id; `bid_data`: an object (may be `{}`) without the keys
//!   only the service writes (`bid_rejected`, `pqt_reason`), and with no key, at any depth,
//!   that holds a NUL or starts with `$` (`agora_schema::fields::storable_keys`).
//! * Tolerated so that a client may post a whole `to_dict()`: `bid_job_id`, which the path
//!   overrides (orcade-2-schema.md §2.2: "set by the server from the URL path, not by the request
//!   body"; a string, whatever job it names), `is_winner` when `false`, and `bid_id` and
//!   `submission_time`, which are ignored (the service's id and clock). `null` is the same as
//!   absent.
//! * Any other field is refused.

use super::checks::identifier;
use super::object_body;
use crate::bid::{Bid, RESERVED_BID_DATA_KEYS};
use agora_schema::fields::{kind, Reader};
use agora_schema::time::truncate_micros;
use agora_schema::ValidationErrors;
use chrono::{DateTime, Utc};
use serde_json::Value;

/// The fields a bid request may carry.
pub const BID_REQUEST_FIELDS: [&str; 6] = ["bid_id", "bid_job_id", "bid_data", "bid_subject_id", "submission_time", "is_winner"];

/// Parses a bid request for the job `bid_job_id` (from the path) into a bid with id `fresh_id`,
/// submitted at `now` (kept to the microsecond), not a winner.
pub fn parse_bid_request(body: &Value, bid_job_id: &str, fresh_id: &str, now: DateTime<Utc>) -> Result<Bid, ValidationErrors> {
    let obj = object_body(body)?;
    let mut errors = Vec::new();
    let mut r = Reader::new(obj, "", &mut errors);
    for key in obj.keys().filter(|k| !BID_REQUEST_FIELDS.contains(&k.as_str())) {
        r.fail(key, "is not a bid field");
    }
    let subject = r.required("bid_subject_id").and_then(|v| identifier(&mut r, "bid_subject_id", v));
    let mut data = r.object("bid_data");
    if let Some(given) = r.get("bid_data").filter(|_| data.is_some()) {
        if !r.storable("bid_data", given) {
            data = None;
        }
    }
    if let Some(data) = &data {
        for key in RESERVED_BID_DATA_KEYS.into_iter().filter(|k| data.contains_key(*k)) {
            r.fail(&format!("bid_data.{key}"), "is set by the service when the PQT refuses a bid");
        }
    }
    match r.get("bid_job_id") {
        None => {}
        Some(Value::String(_)) => {}
        Some(other) => r.fail("bid_job_id", format!("must be a string (the path names the job), got {}", kind(other))),
    }
    match r.get("is_winner") {
        None | Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => r.fail("is_winner", "is set by the evaluation, never by a bidder"),
        Some(other) => r.fail("is_winner", format!("must be a boolean, got {}", kind(other))),
    }
    match (subject, data) {
        (Some(bid_subject_id), Some(bid_data)) if errors.is_empty() => Ok(Bid {
            bid_id: fresh_id.to_owned(),
            bid_job_id: bid_job_id.to_owned(),
            bid_data,
            bid_subject_id,
            submission_time: truncate_micros(now),
            is_winner: false,
        }),
        _ => Err(ValidationErrors(errors)),
    }
}
