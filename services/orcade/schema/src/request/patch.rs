//! PATCH bodies (§3): `{"<field or dotted path>": value, ...}`, the spec's raw `$set`
//! (orcade-2-schema.md §2.4: `update()` applies the caller's dict as it is), checked against the
//! document as it is so that what the store then sets leaves a readable document.
//!
//! Any top-level field or dotted path is accepted, fields the entity does not define included:
//! they are stored as given, and reads return the stored document, so a caller reads back what it
//! set. A path must walk through objects (or missing fields, or `null`), as the store requires.
//! The entity's own fields keep their types, so that the job or bid still reads:
//!
//! `PATCH /bid-jobs/{id}` may set `bid_job_metadata`, `bid_job_description`, `bid_job_name`
//! (whole, as objects, or below them by dotted path), `bid_job_evaluator_id`, `bid_job_pqt_id`,
//! `bid_job_tie_id` (function ids, as at creation), `bid_job_creator_id`, `bid_job_tags` (whole;
//! normalised as at creation, a mixed job keeping a tag per roster member) and, on a closed or
//! mixed job, `bid_job_subject_ids` (whole, at least one subject; a mixed job's `subject::` tags
//! follow it). A builtin the result names is checked again with the result's parameters.
//! Refused, naming the field: the ids (`bid_job_id`, `_id`), and the fields of the status
//! machine, which decide when the job closes and is evaluated (`bid_job_status`, `bid_job_mode`,
//! an open job's `bid_job_subject_ids`, which the service fills, `bid_job_max_subjects`,
//! `bid_job_max_time`, `bid_job_created_time`, `bid_job_closes_at`).
//!
//! `PATCH /bids/{id}` may set `bid_data` (whole, or below it by dotted path), except its
//! `bid_rejected` and `pqt_reason`, the PQT's verdict, which a whole `bid_data` keeps. Refused:
//! the ids (`bid_id`, `_id`, and `bid_job_id`, `bid_subject_id`, which make the bid one
//! subject's on one job), `submission_time` (the service's clock, which orders ties) and
//! `is_winner` (only the evaluation awards a bid).
//!
//! A top-level `null` is refused for the entity's own fields (leave the field out to keep it)
//! and stored for others; an empty body is refused. A path's segments, and the keys at any
//! depth inside the value it sets, may not hold a NUL or start with `$` (`agora_schema::paths`,
//! `agora_schema::fields::storable_keys`): refused by their full path.

use super::checks::{check_builtins, function_id, identifier, subject_ids, tags, BuiltinCheck};
use super::object_body;
use crate::bid::{Bid, RESERVED_BID_DATA_KEYS};
use crate::bid_job::{BidJob, SUBJECT_TAG_PREFIX};
use crate::hook_io::Hook;
use crate::status::BidJobMode;
use agora_schema::fields::{kind, storable_keys, FieldError, Reader};
use agora_schema::paths::{apply, overlaps, split_path, walkable};
use agora_schema::ValidationErrors;
use serde_json::{Map, Value};

/// A checked PATCH: the fields to set (keys may be dotted paths), values normalised, in the
/// body's order. Hand `set` to the store's `Change::set`.
#[derive(Debug, Clone, PartialEq)]
pub struct Patch {
    pub set: Map<String, Value>,
    /// A closed or mixed job's new roster, when the PATCH sets it (the flow sends a
    /// `bid_request` to each new member).
    pub roster: Option<Vec<String>>,
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
    /// A closed or mixed job's roster, set whole.
    Roster,
    /// A field the entity does not define: any value, stored as given.
    Free,
}

/// The store's own key, never set by a PATCH.
const STORE_KEY: &str = "_id";

fn job_rule(field: &str, mode: BidJobMode) -> Rule {
    const MACHINE: &str = "it decides when the job closes and is evaluated, and is fixed at creation";
    match field {
        "bid_job_id" => Rule::Refused("it is the job's id"),
        STORE_KEY => Rule::Refused("it is the store's key of the document"),
        "bid_job_status" => Rule::Refused("the service moves it (a creator closes a job with POST /bid-jobs/{id}/close)"),
        "bid_job_subject_ids" if mode == BidJobMode::Open => {
            Rule::Refused("the service fills an open job's roster as applicants are accepted")
        }
        "bid_job_subject_ids" => Rule::Roster,
        "bid_job_mode" | "bid_job_max_subjects" | "bid_job_max_time" | "bid_job_created_time" | "bid_job_closes_at" => {
            Rule::Refused(MACHINE)
        }
        "bid_job_metadata" | "bid_job_description" | "bid_job_name" => Rule::Object,
        "bid_job_evaluator_id" => Rule::FunctionId(true),
        "bid_job_pqt_id" | "bid_job_tie_id" => Rule::FunctionId(false),
        "bid_job_creator_id" => Rule::Identifier,
        "bid_job_tags" => Rule::Tags,
        _ => Rule::Free,
    }
}

fn bid_rule(field: &str) -> Rule {
    match field {
        "bid_id" | "bid_job_id" | "bid_subject_id" | STORE_KEY => Rule::Refused("it identifies the bid"),
        "submission_time" => Rule::Refused("it is the service's time of the bid, which orders ties"),
        "is_winner" => Rule::Refused("only the evaluation awards a bid"),
        "bid_data" => Rule::Object,
        _ => Rule::Free,
    }
}

/// The body's paths, split and checked (syntax, not refused, walks through objects of the
/// stored document, no overlap).
fn paths<'b>(
    body: &'b Map<String, Value>,
    rule: impl Fn(&str) -> Rule,
    stored: &Map<String, Value>,
    errors: &mut Vec<FieldError>,
) -> Vec<(String, Vec<&'b str>)> {
    let mut out = Vec::new();
    if body.is_empty() {
        errors.push(FieldError { path: String::new(), message: "A PATCH body must set at least one field".into() });
    }
    for key in body.keys() {
        let fail = |errors: &mut Vec<FieldError>, message: String| errors.push(FieldError { path: key.clone(), message });
        let parts = match split_path(key) {
            Ok(p) => p,
            Err(e) => {
                fail(errors, e);
                continue;
            }
        };
        // The value is stored as given: no key inside it may hold a NUL or start with `$`.
        storable_keys(key, &body[key.as_str()], errors);
        match rule(parts[0]) {
            Rule::Refused(why) => fail(errors, format!("cannot be set by PATCH: {why}")),
            Rule::Object | Rule::Free if parts.len() > 1 => match walkable(stored, &parts) {
                Ok(()) => out.push((key.clone(), parts)),
                Err(e) => fail(errors, e),
            },
            Rule::Object | Rule::Free => out.push((key.clone(), parts)),
            _ if parts.len() > 1 => fail(errors, format!("cannot be set: {} is not an object; set it whole", parts[0])),
            _ => out.push((key.clone(), parts)),
        }
    }
    overlaps(&out, errors);
    out
}

/// Parses `PATCH /bid-jobs/{id}` against the job as it is (`current`, and `stored`, the
/// document as stored, for the fields the job does not define).
pub fn parse_bid_job_patch(
    body: &Value,
    current: &BidJob,
    stored: &Map<String, Value>,
    builtins: &dyn BuiltinCheck,
) -> Result<Patch, ValidationErrors> {
    let body = object_body(body)?;
    let mut errors = Vec::new();
    let mode = current.bid_job_mode;
    let paths = paths(body, |field| job_rule(field, mode), stored, &mut errors);
    let mut set = Map::new();
    // The roster first: a mixed job's tags are checked against the roster the PATCH leaves.
    let mut roster = None;
    if let Some(value) = body.get("bid_job_subject_ids").filter(|_| paths.iter().any(|(k, _)| k == "bid_job_subject_ids")) {
        let mut r = Reader::new(body, "", &mut errors);
        roster = new_roster(&mut r, value, mode);
    }
    let roster_now: &[String] = roster.as_deref().unwrap_or(&current.bid_job_subject_ids);
    let mut metadata = current.bid_job_metadata.clone();
    let (mut pqt_id, mut evaluator_id) = (current.bid_job_pqt_id.clone(), current.bid_job_evaluator_id.clone());
    let mut recheck = false;
    {
        let mut r = Reader::new(body, "", &mut errors);
        for (key, parts) in &paths {
            let value = &body[key.as_str()];
            let rule = job_rule(parts[0], mode);
            if value.is_null() && parts.len() == 1 && !matches!(rule, Rule::Free) {
                r.fail(key, "cannot be null: leave the field out to keep it");
                continue;
            }
            let checked = match rule {
                Rule::Object => {
                    let ok = object_set(&mut r, key, parts, value);
                    if ok && parts[0] == "bid_job_metadata" {
                        recheck = true;
                        match value {
                            Value::Object(m) if parts.len() == 1 => metadata = m.clone(),
                            _ => apply(&mut metadata, &parts[1..], value.clone()),
                        }
                    }
                    ok.then(|| value.clone())
                }
                Rule::FunctionId(required) => function_id(&mut r, key, value, required).map(|id| {
                    match parts[0] {
                        "bid_job_pqt_id" => (pqt_id, recheck) = (id.clone(), true),
                        "bid_job_evaluator_id" => (evaluator_id, recheck) = (id.clone(), true),
                        _ => {}
                    }
                    Value::String(id)
                }),
                Rule::Identifier => identifier(&mut r, key, value).map(Value::String),
                Rule::Tags => tags(&mut r, key, value, Some(mode), Some(roster_now)).map(strings),
                Rule::Roster => roster.clone().map(strings),
                Rule::Free => Some(value.clone()),
                Rule::Refused(_) => None,
            };
            if let Some(v) = checked {
                set.insert(key.clone(), v);
            }
        }
    }
    // A mixed job's roster tags follow a new roster unless the PATCH sets the tags itself.
    if let (Some(roster), BidJobMode::Mixed, false) = (&roster, mode, set.contains_key("bid_job_tags")) {
        let kept: Vec<Value> =
            current.bid_job_tags.iter().filter(|t| !t.starts_with(SUBJECT_TAG_PREFIX)).map(|t| Value::String(t.clone())).collect();
        let mut r = Reader::new(body, "", &mut errors);
        if let Some(t) = tags(&mut r, "bid_job_tags", &Value::Array(kept), Some(mode), Some(roster)) {
            set.insert("bid_job_tags".into(), strings(t));
        }
    }
    if recheck {
        check_builtins(builtins, &metadata, &[(Hook::Pqt, &pqt_id), (Hook::Evaluator, &evaluator_id)], &mut errors);
    }
    if errors.is_empty() {
        Ok(Patch { set, roster })
    } else {
        Err(ValidationErrors(errors))
    }
}

/// A closed or mixed job's new roster: ids as at creation, at least one.
fn new_roster(r: &mut Reader<'_>, value: &Value, mode: BidJobMode) -> Option<Vec<String>> {
    let list = subject_ids(r, "bid_job_subject_ids", value)?;
    if list.is_empty() {
        r.fail("bid_job_subject_ids", format!("must name at least one subject for a {mode} job"));
        return None;
    }
    Some(list)
}

fn strings(items: Vec<String>) -> Value {
    Value::Array(items.into_iter().map(Value::String).collect())
}

/// Parses `PATCH /bids/{id}` against the bid as it is (`current`, and `stored`, the document as
/// stored, for the fields the bid does not define).
pub fn parse_bid_patch(body: &Value, current: &Bid, stored: &Map<String, Value>) -> Result<Patch, ValidationErrors> {
    let body = object_body(body)?;
    let mut errors = Vec::new();
    let paths = paths(body, bid_rule, stored, &mut errors);
    let mut set = Map::new();
    let mut r = Reader::new(body, "", &mut errors);
    for (key, parts) in &paths {
        let value = &body[key.as_str()];
        if matches!(bid_rule(parts[0]), Rule::Free) {
            set.insert(key.clone(), value.clone());
            continue;
        }
        if value.is_null() && parts.len() == 1 {
            r.fail(key, "cannot be null: leave the field out to keep it");
            continue;
        }
        if let Some(reserved) = parts.get(1).filter(|p| RESERVED_BID_DATA_KEYS.contains(p)) {
            r.fail(key, format!("cannot be set by PATCH: {reserved} is the PQT's verdict, set by the service"));
            continue;
        }
        if !object_set(&mut r, key, parts, value) {
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
        Ok(Patch { set, roster: None })
    } else {
        Err(ValidationErrors(errors))
    }
}

/// Checks a set of an object field: whole, it must be an object (a path below it was checked
/// against the stored document with the other paths).
fn object_set(r: &mut Reader<'_>, key: &str, parts: &[&str], value: &Value) -> bool {
    if parts.len() == 1 && !value.is_object() {
        r.fail(key, format!("must be an object, got {}", kind(value)));
        return false;
    }
    true
}
