//! The field checks the requests share: ids, rosters, tags, function ids and the builtins.

use crate::bid_job::{parameters_of, subject_tag, SUBJECT_TAG_PREFIX};
use crate::hook_io::Hook;
use crate::status::BidJobMode;
use agora_schema::fields::{kind, tag_count_within_limit, tag_within_limit, FieldError, Reader};
use agora_schema::{FunctionSpec, HookTarget};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Judges the builtin functions a job names (the rules crate's catalogue implements it).
pub trait BuiltinCheck {
    /// What is wrong with running builtin `name` as `hook` with `parameters` (the job's
    /// `bid_job_metadata.parameters`, `{}` when absent): each problem a field error with its full
    /// path (`bid_job_pqt_id` for an unknown name, `bid_job_metadata.parameters.min` for a bad
    /// parameter). Empty when the builtin can run.
    fn check(&self, hook: Hook, name: &str, parameters: &Map<String, Value>) -> Vec<FieldError>;
}

pub use agora_schema::fields::{document_id, identifier, MAX_ID_CHARS, MAX_TAGS, MAX_TAG_CHARS};

/// A function id (§4): a string that reads as a function spec. `required`: `""` is refused
/// (the evaluator must be named). Stored trimmed, as it is read.
pub(crate) fn function_id(r: &mut Reader<'_>, path: &str, v: &Value, required: bool) -> Option<String> {
    let Value::String(s) = v else {
        let hint = if required { "" } else { " (\"\" for none)" };
        r.fail(path, format!("must be a function id string{hint}, got {}", kind(v)));
        return None;
    };
    let id = s.trim();
    if id.is_empty() && required {
        r.fail(path, "must not be empty: name the function (builtin:<name>, a URL, a Lambda ARN or a registry id)");
        return None;
    }
    if let Err(e) = FunctionSpec::from_id(id).target() {
        r.fail(path, format!("is not a valid function id: {e}"));
        return None;
    }
    Some(id.to_owned())
}

/// A roster: an array of [`identifier`]s (each at most [`MAX_ID_CHARS`] characters), duplicates
/// removed (first kept).
pub(crate) fn subject_ids(r: &mut Reader<'_>, path: &str, v: &Value) -> Option<Vec<String>> {
    let Value::Array(items) = v else {
        r.fail(path, format!("must be an array of subject ids, got {}", kind(v)));
        return None;
    };
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    // Duplicates dropped (the first kept) in time linear in the roster: rosters run to thousands.
    let mut seen: HashSet<&str> = HashSet::with_capacity(items.len());
    let mut ok = true;
    for (i, item) in items.iter().enumerate() {
        match identifier(r, &format!("{path}[{i}]"), item) {
            Some(id) if seen.insert(item.as_str().unwrap_or_default()) => out.push(id),
            Some(_) => {}
            None => ok = false,
        }
    }
    ok.then_some(out)
}

/// Tags (§2.1): non-empty strings, stripped, duplicates removed (first kept). `subject::<id>`
/// tags are the service's: allowed only on a mixed job whose roster holds `<id>`; a mixed job
/// gets one per roster member, after the given tags. `roster` is `None` when it did not parse
/// (the `subject::` checks are then skipped).
///
/// Limits: each tag is at most [`MAX_TAG_CHARS`] characters once stripped, and the list holds
/// at most [`MAX_TAGS`] tags, not counting a mixed job's `subject::<id>` tags for its roster,
/// which are the service's and bounded by the roster (a member's id is at most
/// [`MAX_ID_CHARS`] characters): a mixed job's stored tags, posted back whole, are accepted
/// whatever the size of its roster.
pub(crate) fn tags(r: &mut Reader<'_>, path: &str, v: &Value, mode: Option<BidJobMode>, roster: Option<&[String]>) -> Option<Vec<String>> {
    let Value::Array(items) = v else {
        r.fail(path, format!("must be an array of non-empty strings, got {}", kind(v)));
        return None;
    };
    // Sets, so that the checks take time linear in the tags and the roster (thousands of each).
    let members: Option<HashSet<&str>> = roster.map(|r| r.iter().map(String::as_str).collect());
    let on_roster = |subject: &str| members.as_ref().is_some_and(|m| m.contains(subject));
    let roster_tag = |tag: &str| mode == Some(BidJobMode::Mixed) && tag.strip_prefix(SUBJECT_TAG_PREFIX).is_some_and(on_roster);
    let counted = items.iter().filter(|item| !item.as_str().is_some_and(|s| roster_tag(s.trim()))).count();
    let mut ok = tag_count_within_limit(r, path, counted);
    let mut out: Vec<String> = Vec::with_capacity(items.len());
    let mut seen: HashSet<String> = HashSet::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let tag = match item {
            Value::String(s) if !s.trim().is_empty() => s.trim(),
            Value::String(_) => {
                r.fail(&at, "must be a non-empty string");
                ok = false;
                continue;
            }
            other => {
                r.fail(&at, format!("must be a non-empty string, got {}", kind(other)));
                ok = false;
                continue;
            }
        };
        if !roster_tag(tag) && !tag_within_limit(r, &at, tag) {
            ok = false;
            continue;
        }
        if let (Some(subject), Some(mode), Some(_)) = (tag.strip_prefix(SUBJECT_TAG_PREFIX), mode, roster) {
            if mode != BidJobMode::Mixed {
                r.fail(
                    &at,
                    format!("{tag:?} is reserved: {SUBJECT_TAG_PREFIX} tags name the roster of a mixed job, and this job is {mode}"),
                );
                ok = false;
                continue;
            }
            if !on_roster(subject) {
                r.fail(&at, format!("{tag:?} is reserved: {SUBJECT_TAG_PREFIX} tags name the roster, and {subject:?} is not on it"));
                ok = false;
                continue;
            }
        }
        if seen.insert(tag.to_owned()) {
            out.push(tag.to_owned());
        }
    }
    if let (Some(BidJobMode::Mixed), Some(roster)) = (mode, roster) {
        for subject in roster {
            let tag = subject_tag(subject);
            if seen.insert(tag.clone()) {
                out.push(tag);
            }
        }
    }
    ok.then_some(out)
}

/// Asks `builtins` about every `builtin:` function id among `ids` (hook, id), with the
/// parameters of `metadata`; reports a `parameters` that is not an object once.
pub(crate) fn check_builtins(
    builtins: &dyn BuiltinCheck,
    metadata: &Map<String, Value>,
    ids: &[(Hook, &str)],
    errors: &mut Vec<FieldError>,
) {
    let mut parameters_reported = false;
    for (hook, id) in ids {
        let spec = FunctionSpec::from_id(id);
        let Ok(Some(HookTarget::Builtin { name, .. })) = spec.target() else { continue };
        match parameters_of(metadata) {
            Ok(parameters) => errors.extend(builtins.check(*hook, name, parameters)),
            Err(e) if !parameters_reported => {
                parameters_reported = true;
                errors.push(FieldError {
                    path: "bid_job_metadata.parameters".into(),
                    message: format!("must be an object, got {}", e.found),
                });
            }
            Err(_) => {}
        }
    }
}
