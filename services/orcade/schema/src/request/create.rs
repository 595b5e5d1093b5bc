//! `POST /bid-jobs` (§3): a BidJob's fields (§2.1) in, the job to store out.
//!
//! * `bid_job_id` is the client's when given (an id usable in a URL path, not `query` or
//!   `by-tags`, which §3's paths read as words of their own), else `fresh_id`.
//! * Required: `bid_job_evaluator_id` (a function id, not `""`), `bid_job_creator_id`.
//! * Objects, `{}` when absent or `null` (the upstream SDK sends no `bid_job_metadata` unless its
//!   caller gives one): `bid_job_metadata`, `bid_job_description`, `bid_job_name`; any other
//!   type is refused, and so is a key anywhere inside one that holds a NUL or starts with `$`
//!   (`agora_schema::fields::storable_keys`: the stores could not all keep it as given).
//! * Optional, `null` the same as absent (compat): `bid_job_pqt_id` and `bid_job_tie_id`
//!   (default `""`), `bid_job_mode` (default `"closed"`), `bid_job_subject_ids`,
//!   `bid_job_max_subjects`, `bid_job_max_time`, `bid_job_tags` (default `[]`).
//! * The service's own fields: `bid_job_status` may only be `"open"` (a new job is open);
//!   `bid_job_created_time` and `bid_job_closes_at` are ignored (clients post a whole
//!   `to_dict()`), the service sets them from `now`.
//! * Modes (§1): closed and mixed need a roster of at least one subject and take no
//!   `bid_job_max_*`; open takes no roster (`[]` allowed) and needs at least one of
//!   `bid_job_max_subjects` and `bid_job_max_time`, each an integer of at least 1
//!   (`bid_job_max_time` at most [`MAX_TIME_LIMIT`]).
//! * Any other field is refused (a misspelt optional field would otherwise be dropped unseen).

use super::checks::{check_builtins, document_id, function_id, identifier, subject_ids, tags, BuiltinCheck};
use super::object_body;
use crate::bid_job::{closes_at, BidJob};
use crate::hook_io::Hook;
use crate::status::{BidJobMode, BidJobStatus};
use agora_schema::fields::{kind, Reader};
use agora_schema::time::truncate_micros;
use agora_schema::ValidationErrors;
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// Every field of a bid job, in the order of §2.1.
pub const BID_JOB_FIELDS: [&str; 16] = [
    "bid_job_id",
    "bid_job_metadata",
    "bid_job_description",
    "bid_job_name",
    "bid_job_evaluator_id",
    "bid_job_pqt_id",
    "bid_job_tie_id",
    "bid_job_creator_id",
    "bid_job_subject_ids",
    "bid_job_mode",
    "bid_job_max_subjects",
    "bid_job_max_time",
    "bid_job_status",
    "bid_job_created_time",
    "bid_job_closes_at",
    "bid_job_tags",
];

/// The fixed segments that stand where a job's id does in §3's paths (`/bid-jobs/query`,
/// `/bid-jobs/by-tags`): refused as ids.
pub const ROUTE_WORDS: [&str; 2] = ["query", "by-tags"];

/// The longest `bid_job_max_time`: 100 years of seconds (365.25 days a year).
pub const MAX_TIME_LIMIT: i64 = 3_155_760_000;

/// Parses a create request into the job to store, created at `now` (kept to the microsecond).
pub fn parse_create_request(
    body: &Value,
    fresh_id: &str,
    now: DateTime<Utc>,
    builtins: &dyn BuiltinCheck,
) -> Result<BidJob, ValidationErrors> {
    let obj = object_body(body)?;
    let mut errors = Vec::new();
    let mut r = Reader::new(obj, "", &mut errors);
    for key in obj.keys().filter(|k| !BID_JOB_FIELDS.contains(&k.as_str())) {
        r.fail(key, "is not a bid job field");
    }

    let id = match r.get("bid_job_id") {
        None => Some(fresh_id.to_owned()),
        Some(v) => document_id(&mut r, "bid_job_id", v, &ROUTE_WORDS),
    };
    let metadata = optional_object(&mut r, "bid_job_metadata");
    let description = optional_object(&mut r, "bid_job_description");
    let name = optional_object(&mut r, "bid_job_name");
    let evaluator_id = r.required("bid_job_evaluator_id").and_then(|v| function_id(&mut r, "bid_job_evaluator_id", v, true));
    let pqt_id = optional(&mut r, "bid_job_pqt_id", |r, v| function_id(r, "bid_job_pqt_id", v, false));
    let tie_id = optional(&mut r, "bid_job_tie_id", |r, v| function_id(r, "bid_job_tie_id", v, false));
    let creator_id = r.required("bid_job_creator_id").and_then(|v| identifier(&mut r, "bid_job_creator_id", v));
    let mode = optional(&mut r, "bid_job_mode", mode);
    let roster = optional(&mut r, "bid_job_subject_ids", |r, v| subject_ids(r, "bid_job_subject_ids", v));
    let max_subjects = optional(&mut r, "bid_job_max_subjects", |r, v| at_least_one(r, "bid_job_max_subjects", v, None));
    let max_time = optional(&mut r, "bid_job_max_time", |r, v| at_least_one(r, "bid_job_max_time", v, Some(MAX_TIME_LIMIT)));
    match r.get("bid_job_status") {
        None => {}
        Some(Value::String(s)) if s == BidJobStatus::Open.as_str() => {}
        Some(other) => r.fail("bid_job_status", format!("is set by the service: a new job is \"open\", got {other}")),
    }

    // The mode's rules, when the mode is known.
    let mode = mode.map(|m| m.unwrap_or_default());
    match mode {
        Some(m) if m.has_fixed_roster() => {
            match &roster {
                Some(None) => r.fail("bid_job_subject_ids", format!("is required for a {m} job: the subjects who may bid")),
                Some(Some(list)) if list.is_empty() => {
                    r.fail("bid_job_subject_ids", format!("must name at least one subject for a {m} job"))
                }
                _ => {}
            }
            for key in ["bid_job_max_subjects", "bid_job_max_time"] {
                if r.get(key).is_some() {
                    r.fail(key, format!("must be omitted for a {m} job: only an open job closes by count or time"));
                }
            }
        }
        Some(BidJobMode::Open) => {
            if matches!(&roster, Some(Some(list)) if !list.is_empty()) {
                r.fail("bid_job_subject_ids", "must not be supplied for an open job: its roster fills as subjects apply");
            }
            if r.get("bid_job_max_subjects").is_none() && r.get("bid_job_max_time").is_none() {
                r.fail("bid_job_max_subjects", "or bid_job_max_time is required for an open job: at least one of them must be set");
            }
        }
        _ => {}
    }
    let roster: Option<Vec<String>> = roster.map(Option::unwrap_or_default);
    // Absent tags are `[]`, which a mixed job still fills with its roster's tags.
    let no_tags = Value::Array(Vec::new());
    let given_tags = r.get("bid_job_tags").unwrap_or(&no_tags);
    let tags = tags(&mut r, "bid_job_tags", given_tags, mode, roster.as_deref());

    if let (Some(metadata), Some(evaluator_id), Some(pqt_id)) = (&metadata, &evaluator_id, &pqt_id) {
        let mut ids = vec![(Hook::Evaluator, evaluator_id.as_str())];
        if let Some(pqt_id) = pqt_id {
            ids.insert(0, (Hook::Pqt, pqt_id.as_str()));
        }
        check_builtins(builtins, metadata, &ids, &mut errors);
    }
    let created = truncate_micros(now);
    let job = (|| {
        let max_time = max_time?;
        Some(BidJob {
            bid_job_id: id?,
            bid_job_metadata: metadata?,
            bid_job_description: description?,
            bid_job_name: name?,
            bid_job_evaluator_id: evaluator_id?,
            bid_job_pqt_id: pqt_id?.unwrap_or_default(),
            bid_job_tie_id: tie_id?.unwrap_or_default(),
            bid_job_creator_id: creator_id?,
            bid_job_subject_ids: roster?,
            bid_job_mode: mode?,
            bid_job_max_subjects: max_subjects?,
            bid_job_max_time: max_time,
            bid_job_status: BidJobStatus::Open,
            bid_job_created_time: created,
            bid_job_closes_at: closes_at(created, max_time),
            bid_job_tags: tags?,
        })
    })();
    match job {
        Some(job) if errors.is_empty() => Ok(job),
        _ => {
            debug_assert!(!errors.is_empty(), "a field was left unset without an error");
            Err(ValidationErrors(errors))
        }
    }
}

/// An optional field: `Some(None)` when absent or `null`, `Some(Some(v))` when valid, `None`
/// when invalid (reported).
fn optional<T>(r: &mut Reader<'_>, key: &str, read: impl FnOnce(&mut Reader<'_>, &Value) -> Option<T>) -> Option<Option<T>> {
    match r.get(key) {
        None => Some(None),
        Some(v) => read(r, v).map(Some),
    }
}

/// An object that may be left out: `{}` when absent or `null`, `None` (reported) when not an
/// object or when a key inside it is not storable (a NUL, a leading `$`: `Reader::storable`).
fn optional_object(r: &mut Reader<'_>, key: &str) -> Option<Map<String, Value>> {
    match r.get(key) {
        None => Some(Map::new()),
        Some(v) => {
            let map = r.object(key)?;
            r.storable(key, v).then_some(map)
        }
    }
}

fn mode(r: &mut Reader<'_>, v: &Value) -> Option<BidJobMode> {
    let expected = "\"closed\", \"open\" or \"mixed\"";
    match v {
        Value::String(s) => BidJobMode::parse(s).or_else(|| {
            r.fail("bid_job_mode", format!("must be {expected}, got {s:?}"));
            None
        }),
        other => {
            r.fail("bid_job_mode", format!("must be {expected}, got {}", kind(other)));
            None
        }
    }
}

/// An integer of at least 1 (and at most `max`).
fn at_least_one(r: &mut Reader<'_>, key: &str, v: &Value, max: Option<i64>) -> Option<i64> {
    match (v.as_i64(), max) {
        (Some(n), Some(max)) if n > max => {
            r.fail(key, format!("must be at most {max}, got {n}"));
            None
        }
        (Some(n), _) if n >= 1 => Some(n),
        _ => {
            r.fail(key, format!("must be an integer of at least 1, got {v}"));
            None
        }
    }
}
