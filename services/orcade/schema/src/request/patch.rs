//! PATCH bodies (§3): `{"<field or dotted path>": value, ...}`, checked against the document as
//! it is, so that what the store then sets leaves a valid document.
//!
//! `PATCH /bid-jobs/{id}` may set `bid_job_metadata`, `bid_job_description`, `bid_job_name`
//! (whole, as objects, or below them by dotted path), `bid_job_evaluator_id`, `bid_job_pqt_id`,
//! `bid_job_tie_id` (function ids, as at creation), `bid_job_creator_id` and `bid_job_tags`
//! (whole; normalised as at creation, a mixed job keeping a tag per roster member). A builtin
//! the result names is checked again with the result's parameters. Refused, naming the field:
//! the id, and the fields of the status machine, which decide when the job closes and is
//! evaluated (`bid_job_status`, `bid_job_mode`, `bid_job_subject_ids`, `bid_job_max_subjects`,
//! `bid_job_max_time`, `bid_job_created_time`, `bid_job_closes_at`).
//!
//! `PATCH /bids/{id}` may set `bid_data` (whole, or below it by dotted path), except its
//! `bid_rejected` and `pqt_reason`, the PQT's verdict, which a whole `bid_data` keeps. Refused:
//! the ids (`bid_id`, `bid_job_id`, `bid_subject_id`), `submission_time` (the service's clock,
//! which orders ties) and `is_winner` (only the evaluation awards a bid).
//!
//! A top-level `null` is refused (leave the field out to keep it); an empty body is refused.

use super::checks::{check_builtins, function_id, identifier, tags, BuiltinCheck};
use super::object_body;
use super::paths::{apply, overlaps, split, walkable};
use crate::bid::{Bid, RESERVED_BID_DATA_KEYS};
use crate::bid_job::BidJob;
use crate::hook_io::Hook;
use agora_schema::fields::{kind, FieldError, Reader};
use agora_schema::ValidationErrors;
use serde_json::{Map, Value};

/// A checked PATCH: the fields to set (keys may be dotted paths), values normalised, in the
/// body's order. Hand `set` to the store's `Change::set`.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    pub set: Map<String, Value>,
}

/// How a PATCH treats one top-level field.
enum Rule {
    /// Cannot be set; why.
    Refused(&'static str),
    /// An object, set whole or below.
    Object,
    /// A function id (`true`: `""` refused).
    FunctionId(bool),
    /// An id string.
    Identifier,
    /// Tags, set whole.
    Tags,
}

fn job_rule(field: &str) -> Option<Rule> {
    const MACHINE: &str = "it decides when the job closes and is evaluated, and is fixed at creation";
    Some(match field {
        "bid_job_id" => Rule::Refused("it is the job's id"),
        "bid_job_status" => Rule::Refused("the service moves it (a creator closes a job with POST /bid-jobs/{id}/close)"),
        "bid_job_mode"
        | "bid_job_subject_ids"
        | "bid_job_max_subjects"
        | "bid_job_max_time"
        | "bid_job_created_time"
        | "bid_job_closes_at" => Rule::Refused(MACHINE),
        "bid_job_metadata" | "bid_job_description" | "bid_job_name" => Rule::Object,
        "bid_job_evaluator_id" => Rule::FunctionId(true),
        "bid_job_pqt_id" | "bid_job_tie_id" => Rule::FunctionId(false),
        "bid_job_creator_id" => Rule::Identifier,
        "bid_job_tags" => Rule::Tags,
        _ => return None,
    })
}

fn bid_rule(field: &str) -> Option<Rule> {
    Some(match field {
        "bid_id" | "bid_job_id" | "bid_subject_id" => Rule::Refused("it identifies the bid"),
        "submission_time" => Rule::Refused("it is the service's time of the bid, which orders ties"),
        "is_winner" => Rule::Refused("only the evaluation awards a bid"),
        "bid_data" => Rule::Object,
        _ => return None,
    })
}

/// The body's paths, split and checked (syntax, known field, not refused, no overlap).
fn paths<'b>(
    body: &'b Map<String, Value>,
    rule: fn(&str) -> Option<Rule>,
    what: &str,
    errors: &mut Vec<FieldError>,
) -> Vec<(String, Vec<&'b str>)> {
    let mut out = Vec::new();
    if body.is_empty() {
        errors.push(FieldError { path: String::new(), message: "A PATCH body must set at least one field".into() });
    }
    for key in body.keys() {
        let fail = |errors: &mut Vec<FieldError>, message: String| errors.push(FieldError { path: key.clone(), message });
        let parts = match split(key) {
            Ok(p) => p,
            Err(e) => {
                fail(errors, e);
                continue;
            }
        };
        match rule(parts[0]) {
            None => fail(errors, format!("is not a {what} field")),
            Some(Rule::Refused(why)) => fail(errors, format!("cannot be set by PATCH: {why}")),
            Some(Rule::Object) => out.push((key.clone(), parts)),
            Some(_) if parts.len() > 1 => fail(errors, format!("cannot be set: {} is not an object; set it whole", parts[0])),
            Some(_) => out.push((key.clone(), parts)),
        }
    }
    overlaps(&out, errors);
    out
}

/// Parses `PATCH /bid-jobs/{id}` against the job as it is.
pub fn parse_bid_job_patch(body: &Value, current: &BidJob, builtins: &dyn BuiltinCheck) -> Result<Patch, ValidationErrors> {
    let body = object_body(body)?;
    let mut errors = Vec::new();
    let paths = paths(body, job_rule, "bid job", &mut errors);
    let mut set = Map::new();
    let mut metadata = current.bid_job_metadata.clone();
    let (mut pqt_id, mut evaluator_id) = (current.bid_job_pqt_id.clone(), current.bid_job_evaluator_id.clone());
    let mut recheck = false;
    {
        let mut r = Reader::new(body, "", &mut errors);
        for (key, parts) in &paths {
            let value = &body[key.as_str()];
            if value.is_null() && parts.len() == 1 {
                r.fail(key, "cannot be null: leave the field out to keep it");
                continue;
            }
            let checked = match job_rule(parts[0]) {
                Some(Rule::Object) => {
                    let current_value = match parts[0] {
                        "bid_job_metadata" => &current.bid_job_metadata,
                        "bid_job_description" => &current.bid_job_description,
                        _ => &current.bid_job_name,
                    };
                    let ok = object_set(&mut r, key, parts, value, current_value);
                    if ok && parts[0] == "bid_job_metadata" {
                        recheck = true;
                        match value {
                            Value::Object(m) if parts.len() == 1 => metadata = m.clone(),
                            _ => apply(&mut metadata, &parts[1..], value.clone()),
                        }
                    }
                    ok.then(|| value.clone())
                }
                Some(Rule::FunctionId(required)) => function_id(&mut r, key, value, required).map(|id| {
                    match parts[0] {
                        "bid_job_pqt_id" => (pqt_id, recheck) = (id.clone(), true),
                        "bid_job_evaluator_id" => (evaluator_id, recheck) = (id.clone(), true),
                        _ => {}
                    }
                    Value::String(id)
                }),
                Some(Rule::Identifier) => identifier(&mut r, key, value).map(Value::String),
                Some(Rule::Tags) => tags(&mut r, key, value, Some(current.bid_job_mode), Some(&current.bid_job_subject_ids))
                    .map(|t| Value::Array(t.into_iter().map(Value::String).collect())),
                Some(Rule::Refused(_)) | None => None,
            };
            if let Some(v) = checked {
                set.insert(key.clone(), v);
            }
        }
    }
    if recheck {
        check_builtins(builtins, &metadata, &[(Hook::Pqt, &pqt_id), (Hook::Evaluator, &evaluator_id)], &mut errors);
    }
    if errors.is_empty() {
        Ok(Patch { set })
    } else {
        Err(ValidationErrors(errors))
    }
}

/// Parses `PATCH /bids/{id}` against the bid as it is.
pub fn parse_bid_patch(body: &Value, current: &Bid) -> Result<Patch, ValidationErrors> {
    let body = object_body(body)?;
    let mut errors = Vec::new();
    let paths = paths(body, bid_rule, "bid", &mut errors);
    let mut set = Map::new();
    let mut r = Reader::new(body, "", &mut errors);
    for (key, parts) in &paths {
        let value = &body[key.as_str()];
        if value.is_null() && parts.len() == 1 {
            r.fail(key, "cannot be null: leave the field out to keep it");
            continue;
        }
        if let Some(reserved) = parts.get(1).filter(|p| RESERVED_BID_DATA_KEYS.contains(p)) {
            r.fail(key, format!("cannot be set by PATCH: {reserved} is the PQT's verdict, set by the service"));
            continue;
        }
        if !object_set(&mut r, key, parts, value, &current.bid_data) {
            continue;
        }
        let mut value = value.clone();
        if let (Value::Object(new), true) = (&mut value, parts.len() == 1) {
            let given: Vec<&str> = RESERVED_BID_DATA_KEYS.into_iter().filter(|k| new.contains_key(*k)).collect();
            for k in &given {
                r.fail(&format!("{key}.{k}"), "cannot be set by PATCH: it is the PQT's verdict, set by the service");
            }
            // A refused bid stays refused: its verdict carries over into the new data.
            for k in RESERVED_BID_DATA_KEYS {
                if let Some(v) = current.bid_data.get(k) {
                    new.insert(k.to_owned(), v.clone());
                }
            }
        }
        set.insert(key.clone(), value);
    }
    if errors.is_empty() {
        Ok(Patch { set })
    } else {
        Err(ValidationErrors(errors))
    }
}

/// Checks a set of an object field (`parts[0]`, now `current`): whole, it must be an object;
/// below, the path must walk through objects.
fn object_set(r: &mut Reader<'_>, key: &str, parts: &[&str], value: &Value, current: &Map<String, Value>) -> bool {
    if parts.len() == 1 {
        if !value.is_object() {
            r.fail(key, format!("must be an object, got {}", kind(value)));
            return false;
        }
        return true;
    }
    match walkable(parts[0], current, &parts[1..]) {
        Ok(()) => true,
        Err(e) => {
            r.fail(key, e);
            false
        }
    }
}
