//! The spec's example documents (§2.1–2.3, verbatim in `examples/stored/orcade/`), a create
//! request that yields the closed example, and a stand-in builtin catalogue (the real one is
//! the rules crate's, which depends on this crate).
#![allow(dead_code)]

use agora_orcade_schema::{FieldError, Hook};
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Map, Value};

pub const CLOSED_JOB: &str = include_str!("../../../../../examples/stored/orcade/bid_job_closed.json");
pub const OPEN_JOB: &str = include_str!("../../../../../examples/stored/orcade/bid_job_open.json");
pub const BID: &str = include_str!("../../../../../examples/stored/orcade/bid.json");
pub const TASK_RESULT: &str = include_str!("../../../../../examples/stored/orcade/bid_task_result.json");

pub fn doc(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

/// The closed example's creation time.
pub fn created() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 9, 9, 10, 0, 0).unwrap()
}

/// The closed example as a client posts it: its own fields, none of the service's.
pub fn closed_request() -> Value {
    let mut body = doc(CLOSED_JOB);
    let obj = body.as_object_mut().unwrap();
    for k in ["bid_job_id", "bid_job_max_subjects", "bid_job_max_time", "bid_job_status", "bid_job_created_time", "bid_job_closes_at"] {
        obj.shift_remove(k);
    }
    body
}

/// A minimal open request.
pub fn open_request() -> Value {
    json!({
        "bid_job_metadata": {},
        "bid_job_description": {},
        "bid_job_name": {},
        "bid_job_evaluator_id": "builtin:lowest-price",
        "bid_job_creator_id": "planner-service",
        "bid_job_mode": "open",
        "bid_job_max_time": 3600
    })
}

/// `body` with `key` set to `value`, or removed when `value` is `None`.
pub fn with(mut body: Value, key: &str, value: Option<Value>) -> Value {
    let obj = body.as_object_mut().unwrap();
    match value {
        Some(v) => {
            obj.insert(key.into(), v);
        }
        None => {
            obj.shift_remove(key);
        }
    }
    body
}

/// Equal values *and* the same key order at every level.
#[track_caller]
pub fn assert_same_doc(got: &Value, want: &Value) {
    assert_eq!(got, want, "values differ");
    assert_eq!(serde_json::to_string(got).unwrap(), serde_json::to_string(want).unwrap(), "key order differs");
}

/// Knows `required-fields` (PQT; `parameters.fields` must be an array) and `lowest-price`
/// (evaluator).
pub struct Catalogue;

impl agora_orcade_schema::BuiltinCheck for Catalogue {
    fn check(&self, hook: Hook, name: &str, parameters: &Map<String, Value>) -> Vec<FieldError> {
        match (hook, name) {
            (Hook::Pqt, "required-fields") => match parameters.get("fields") {
                Some(Value::Array(_)) => vec![],
                _ => vec![FieldError { path: "bid_job_metadata.parameters.fields".into(), message: "must be an array".into() }],
            },
            (Hook::Evaluator, "lowest-price") => vec![],
            _ => vec![FieldError { path: hook.field().into(), message: format!("names no builtin {name:?}") }],
        }
    }
}
