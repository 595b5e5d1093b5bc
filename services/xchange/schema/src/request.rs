//! Parsing at the edge (§3): `POST /tasks` and `POST /subjects` (`PATCH /subjects/{id}` is
//! [`crate::patch`]'s). Every invalid or missing field is reported by its path with what is
//! wrong, all at once.
//!
//! * `POST /tasks`: `task_assignment_type` (one of the four modes) and `task_data` (any JSON
//!   but `null`; `{}` allowed) are required; `task_id` is the client's when given; a given
//!   `task_assignment_status` may only be `"pending"` (assignment sets the rest);
//!   `task_metadata` is an object. Each mode's parameters, under
//!   `task_metadata.task_assignment`: direct needs `subject_id`; function needs `function_id`
//!   (and takes an object `parameters`); bidding needs `bid_job_evaluator_id`, and its
//!   `bid_job_subject_ids` and `topics` must be arrays of strings and `bid_job_mode` one of
//!   Orcade's modes. `taski_creation_time` and `task_output` are the service's: a posted value is
//!   ignored (clients may post a whole `to_dict()`).
//!   In bidding mode, the bid job the task will create is then read as Orcade reads a
//!   `POST /bid-jobs` ([`check_bid_job`]: Orcade's own parser and builtin catalogue), so that
//!   what Orcade would refuse is refused here, with Orcade's reason at its path under
//!   `task_metadata.task_assignment.`, instead of failing the task when it is assigned (or
//!   leaving it to wait on a job that cannot end).
//! * `POST /subjects`: any of the five fields, each of its §2.2 type; `{}` is a subject with
//!   a fresh id and the defaults.
//! * Keys: no key at any depth of `task_data`, `task_metadata`, `subject_metadata` or
//!   `subject_capabilities` (stored as given) may hold a NUL or start with `$`
//!   (`agora_schema::fields::storable_keys`); each is refused by its path.
//!
//! Request limits (`agora_schema::fields`): the ids (`task_id`, `subject_id`, the direct
//! mode's `subject_id`, the bidding mode's `bid_job_creator_id` when a string and each of its
//! `bid_job_subject_ids`) are at most `MAX_ID_CHARS` characters; the lists of tags (a subject's
//! `topics`, the bidding mode's `topics` and `bid_job_tags`) hold at most `MAX_TAGS` entries of
//! at most `MAX_TAG_CHARS` characters.

use crate::status::{AssignmentType, TaskStatus};
use crate::subject::ExchangeSubject;
use crate::task::{ExchangeTask, TASK_ASSIGNMENT};
use agora_schema::fields::{document_id, id_within_limit, identifier, kind, tags_within_limits, Reader};
use agora_schema::time::truncate_micros;
use agora_schema::{FunctionSpec, ValidationErrors};
use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// Every field of a task, in the order of §2.1.
pub const TASK_FIELDS: [&str; 7] =
    ["task_id", "task_assignment_type", "task_data", "task_assignment_status", "task_metadata", "taski_creation_time", "task_output"];

/// The fixed segment that stands where a task's or subject's id does in §3's paths
/// (`/tasks/query`, `/subjects/query`): refused as an id.
pub const ROUTE_WORDS: [&str; 1] = ["query"];

/// Every field of a subject, in the order of §2.2.
pub const SUBJECT_FIELDS: [&str; 5] = ["subject_id", "subject_metadata", "task_evaluation_function", "subject_capabilities", "topics"];

/// Orcade's job modes, which a bidding task may name.
const BID_JOB_MODES: [&str; 3] = ["closed", "open", "mixed"];

/// The body as an object, or the error that says it is not one.
fn object_body(body: &Value) -> Result<&Map<String, Value>, ValidationErrors> {
    body.as_object().ok_or_else(|| ValidationErrors::single("", format!("Request body must be a JSON object, got {}", kind(body))))
}

fn finish<T>(value: Option<T>, errors: Vec<agora_schema::FieldError>) -> Result<T, ValidationErrors> {
    match value {
        Some(v) if errors.is_empty() => Ok(v),
        _ => Err(ValidationErrors(errors)),
    }
}

/// Parses a `POST /tasks` body into the task to store, created at `now`.
pub fn parse_task_request(body: &Value, fresh_id: &str, now: DateTime<Utc>) -> Result<ExchangeTask, ValidationErrors> {
    let obj = object_body(body)?;
    let mut errors = Vec::new();
    let mut r = Reader::new(obj, "", &mut errors);
    for key in obj.keys().filter(|k| !TASK_FIELDS.contains(&k.as_str())) {
        r.fail(key, "is not a task field");
    }
    let id = match r.get("task_id") {
        None => Some(fresh_id.to_owned()),
        Some(v) => document_id(&mut r, "task_id", v, &ROUTE_WORDS),
    };
    let mode = match r.required("task_assignment_type") {
        None => None,
        Some(Value::String(s)) => {
            let mode = AssignmentType::parse(s);
            if mode.is_none() {
                let known: Vec<&str> = AssignmentType::ALL.iter().map(|m| m.as_str()).collect();
                r.fail("task_assignment_type", format!("must be one of {}, got {s:?}", known.join(", ")));
            }
            mode
        }
        Some(other) => {
            r.fail("task_assignment_type", format!("must be a string, got {}", kind(other)));
            None
        }
    };
    let data = r.required("task_data").cloned();
    if let Some(data) = r.get("task_data") {
        r.storable("task_data", data);
    }
    if let Some(status) = r.get("task_assignment_status").filter(|s| s.as_str() != Some(TaskStatus::Pending.as_str())) {
        r.fail("task_assignment_status", format!("may only be \"pending\" on a new task, got {status}"));
    }
    let metadata = match r.get("task_metadata") {
        None => Some(Map::new()),
        Some(v @ Value::Object(m)) => {
            r.storable("task_metadata", v);
            Some(m.clone())
        }
        Some(other) => {
            r.fail("task_metadata", format!("must be an object, got {}", kind(other)));
            None
        }
    };
    if let (Some(mode), Some(metadata)) = (mode, &metadata) {
        check_assignment(&mut errors, mode, metadata);
        // The bid job as Orcade would read it, once the task's own parameters are right (so that
        // no problem is told twice).
        if mode == AssignmentType::Bidding && !errors.iter().any(|e| e.path.starts_with("task_metadata")) {
            errors.extend(check_bid_job(metadata.get(TASK_ASSIGNMENT).and_then(Value::as_object).unwrap_or(&Map::new()), now));
        }
    }
    let task = match (id, mode, data, metadata) {
        (Some(task_id), Some(mode), Some(task_data), Some(task_metadata)) => Some(ExchangeTask {
            task_id,
            task_assignment_type: mode,
            task_data,
            task_assignment_status: TaskStatus::Pending,
            task_metadata,
            taski_creation_time: Some(truncate_micros(now)),
            task_output: Map::new(),
        }),
        _ => None,
    };
    finish(task, errors)
}

/// The mode's parameters under `task_metadata.task_assignment` (§4).
fn check_assignment(errors: &mut Vec<agora_schema::FieldError>, mode: AssignmentType, metadata: &Map<String, Value>) {
    let empty = Map::new();
    let assignment = match metadata.get(TASK_ASSIGNMENT) {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(a)) => a,
        Some(other) => {
            errors.push(agora_schema::FieldError {
                path: format!("task_metadata.{TASK_ASSIGNMENT}"),
                message: format!("must be an object, got {}", kind(other)),
            });
            return;
        }
    };
    let mut r = Reader::new(assignment, "task_metadata.task_assignment", errors);
    match mode {
        AssignmentType::Direct => {
            if let Some(v) = r.required("subject_id") {
                identifier(&mut r, "subject_id", v);
            }
        }
        AssignmentType::Function => {
            match r.required("function_id") {
                Some(Value::String(id)) if id.trim().is_empty() => r.fail("function_id", "must not be empty"),
                Some(Value::String(id)) => {
                    if let Err(e) = FunctionSpec::from_id(id.trim()).target() {
                        r.fail("function_id", format!("is not a function id: {e}"));
                    }
                }
                Some(other) => r.fail("function_id", format!("must be a function id string, got {}", kind(other))),
                None => {}
            }
            if let Some(p) = r.get("parameters").filter(|p| !p.is_object()) {
                r.fail("parameters", format!("must be an object, got {}", kind(p)));
            }
        }
        AssignmentType::Open => {}
        AssignmentType::Bidding => {
            if r.string("bid_job_evaluator_id").is_some_and(|s| s.trim().is_empty()) {
                r.fail("bid_job_evaluator_id", "must not be empty");
            }
            if r.get("bid_job_subject_ids").is_some() {
                r.id_strings("bid_job_subject_ids");
            }
            for key in ["topics", "bid_job_tags"] {
                if r.get(key).is_some() {
                    r.tag_strings(key);
                }
            }
            // Any other value is ignored (the job's creator is then the service's default).
            if let Some(Value::String(creator)) = r.get("bid_job_creator_id") {
                id_within_limit(&mut r, "bid_job_creator_id", creator);
            }
            match r.get("bid_job_mode") {
                None => {}
                Some(Value::String(m)) if BID_JOB_MODES.contains(&m.as_str()) => {}
                Some(other) => r.fail("bid_job_mode", format!("must be one of {}, got {other}", BID_JOB_MODES.join(", "))),
            }
        }
    }
}

/// The creator a bid job names when the task names none (as a string): Xchange itself.
pub const DEFAULT_BID_JOB_CREATOR: &str = "xchange";

/// Where the task's parameters are; Orcade's field paths are reported below it.
const ASSIGNMENT_PATH: &str = "task_metadata.task_assignment";

/// Stands for a closed or mixed job's roster, which bidding mode resolves when it assigns the
/// task (§7.2: from the subjects of the exchange then), in the job [`check_bid_job`] checks.
const ROSTER_TO_COME: &str = "the-roster-resolved-at-assignment";

/// What Orcade's `POST /bid-jobs` would refuse in the bid job bidding mode creates for a task
/// with the parameters `a` (`task_metadata.task_assignment`), created at `now`: the job built as
/// the assignment builds it (`agora_xchange_core`'s `flows::bidding`), read by Orcade's own
/// parser and builtin catalogue, each refusal Orcade's reason at its path under
/// `task_metadata.task_assignment.` (a roster on an open job, an open job with neither
/// `bid_job_max_subjects` nor `bid_job_max_time`, a limit on a closed job, an empty tag, an
/// unknown builtin, ...). Whether Orcade can run the functions it names (a mode with no
/// setting) is Orcade's deployment's to say, when the job is created.
///
/// The roster of a closed or mixed job is resolved at assignment from the exchange's subjects;
/// here an explicit `bid_job_subject_ids` stands for itself (each id as Orcade reads it), and
/// where the roster may still grow (no explicit list, or a mixed job's topics) the subjects its
/// `subject::<id>` tags name are taken to be on it. An explicit empty roster is not refused:
/// the task fails at once when it is assigned (no job is created; see the core's bidding flow).
pub fn check_bid_job(a: &Map<String, Value>, now: DateTime<Utc>) -> Vec<agora_schema::FieldError> {
    let body = bid_job_request(a);
    match agora_orcade_schema::parse_create_request(&body, "the-bid-job-id-to-come", now, &agora_orcade_rules::Catalogue) {
        Ok(_) => Vec::new(),
        Err(refused) => refused
            .0
            .into_iter()
            .map(|e| {
                let path = if e.path.is_empty() { ASSIGNMENT_PATH.to_owned() } else { format!("{ASSIGNMENT_PATH}.{}", e.path) };
                agora_schema::FieldError { path, message: e.message }
            })
            .collect(),
    }
}

/// The `POST /bid-jobs` body of a task with the parameters `a`, as bidding mode sends it but for
/// its id (the parser's own) and a closed or mixed job's roster (see [`check_bid_job`]).
fn bid_job_request(a: &Map<String, Value>) -> Value {
    let given = |key: &str| a.get(key).filter(|v| !v.is_null());
    let mode = given("bid_job_mode").and_then(Value::as_str).unwrap_or("closed");
    let mut body = Map::new();
    for key in ["bid_job_metadata", "bid_job_description", "bid_job_name"] {
        body.insert(key.into(), given(key).cloned().unwrap_or_else(|| Value::Object(Map::new())));
    }
    let creator = given("bid_job_creator_id").and_then(Value::as_str).unwrap_or(DEFAULT_BID_JOB_CREATOR);
    body.insert("bid_job_creator_id".into(), Value::from(creator));
    body.insert("bid_job_mode".into(), Value::from(mode));
    for key in ["bid_job_evaluator_id", "bid_job_pqt_id", "bid_job_tie_id", "bid_job_tags", "bid_job_max_subjects", "bid_job_max_time"] {
        if let Some(v) = given(key) {
            body.insert(key.into(), v.clone());
        }
    }
    let explicit = given("bid_job_subject_ids");
    if mode == "open" {
        // Orcade refuses a roster on an open job; `[]` is no roster.
        if let Some(roster) = explicit {
            body.insert("bid_job_subject_ids".into(), roster.clone());
        }
        return Value::Object(body);
    }
    let mut roster: Vec<Value> = explicit.and_then(Value::as_array).cloned().unwrap_or_default();
    let topics = given("topics").and_then(Value::as_array).is_some_and(|t| !t.is_empty());
    if mode == "mixed" && (explicit.is_none() || topics) {
        let tags = given("bid_job_tags").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for subject in tags.iter().filter_map(|t| t.as_str()?.trim().strip_prefix(agora_orcade_schema::bid_job::SUBJECT_TAG_PREFIX)) {
            roster.push(Value::from(subject));
        }
    }
    if roster.is_empty() {
        roster.push(Value::from(ROSTER_TO_COME));
    }
    body.insert("bid_job_subject_ids".into(), Value::Array(roster));
    Value::Object(body)
}

/// Parses a `POST /subjects` body into the subject to store.
pub fn parse_subject_request(body: &Value, fresh_id: &str) -> Result<ExchangeSubject, ValidationErrors> {
    let obj = object_body(body)?;
    let mut errors = Vec::new();
    let mut r = Reader::new(obj, "", &mut errors);
    for key in obj.keys().filter(|k| !SUBJECT_FIELDS.contains(&k.as_str())) {
        r.fail(key, "is not a subject field");
    }
    let id = match r.get("subject_id") {
        None => Some(fresh_id.to_owned()),
        Some(v) => document_id(&mut r, "subject_id", v, &ROUTE_WORDS),
    };
    let mut subject = ExchangeSubject { subject_id: id.clone().unwrap_or_default(), ..ExchangeSubject::default() };
    for (key, value) in obj.iter().filter(|(k, v)| k.as_str() != "subject_id" && !v.is_null()) {
        r.storable(key, value);
        set_field(&mut r, &mut subject, key, value);
    }
    finish(id.map(|_| subject), errors)
}

/// Checks one top-level subject field's value and sets it on `subject`.
pub(crate) fn set_field(r: &mut Reader<'_>, subject: &mut ExchangeSubject, key: &str, value: &Value) {
    match (key, value) {
        ("subject_metadata", Value::Object(m)) => subject.subject_metadata = m.clone(),
        ("subject_capabilities", Value::Object(m)) => subject.subject_capabilities = m.clone(),
        ("subject_metadata" | "subject_capabilities", other) => r.fail(key, format!("must be an object, got {}", kind(other))),
        ("task_evaluation_function", Value::String(id)) => match FunctionSpec::from_id(id.trim()).target() {
            Ok(_) => subject.task_evaluation_function = id.trim().to_owned(),
            Err(e) => r.fail(key, format!("is not a function id: {e}")),
        },
        ("task_evaluation_function", other) => r.fail(key, format!("must be a function id string (\"\" for none), got {}", kind(other))),
        ("topics", Value::Array(items)) => match items.iter().map(|t| t.as_str().map(str::to_owned)).collect::<Option<Vec<_>>>() {
            Some(topics) => {
                if tags_within_limits(r, key, &topics) {
                    subject.topics = topics;
                }
            }
            None => r.fail(key, "must be an array of strings"),
        },
        ("topics", other) => r.fail(key, format!("must be an array of strings, got {}", kind(other))),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;
    use serde_json::json;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 9, 17, 10, 15, 32).unwrap()
    }

    fn errors_of(r: Result<impl std::fmt::Debug, ValidationErrors>) -> String {
        r.expect_err("refused").to_string()
    }

    #[test]
    fn a_direct_task_gets_its_defaults() {
        let task = parse_task_request(
            &json!({"task_assignment_type": "direct", "task_data": {"doc": 1}, "task_metadata": {"task_assignment": {"subject_id": "s1"}}}),
            "fresh",
            now(),
        )
        .unwrap();
        assert_eq!(task.task_id, "fresh");
        assert_eq!(task.task_assignment_status, TaskStatus::Pending);
        assert_eq!(task.assignment_str("subject_id"), Some("s1"));
        assert_eq!(task.task_output, Map::new());
        assert_eq!(crate::Entity::to_dict(&task)["taski_creation_time"], json!("2026-09-17T10:15:32.000000"));
    }

    #[test]
    fn an_id_the_routes_read_as_a_word_is_refused() {
        let task = json!({"task_id": "query", "task_assignment_type": "open", "task_data": {}});
        assert!(errors_of(parse_task_request(&task, "f", now())).contains("task_id must not be \"query\""));
        assert!(errors_of(parse_subject_request(&json!({"subject_id": "query"}), "f")).contains("subject_id must not be \"query\""));
        assert_eq!(parse_subject_request(&json!({"subject_id": "query-agent"}), "f").unwrap().subject_id, "query-agent");
    }

    #[test]
    fn each_missing_or_wrong_field_is_named() {
        assert_eq!(errors_of(parse_task_request(&json!({"task_assignment_type": "open"}), "f", now())), "task_data is required");
        assert!(errors_of(parse_task_request(&json!({"task_assignment_type": "auction", "task_data": {}}), "f", now()))
            .contains("task_assignment_type must be one of direct, function, open, bidding"));
        assert!(errors_of(parse_task_request(&json!({"task_assignment_type": "direct", "task_data": {}}), "f", now()))
            .contains("task_metadata.task_assignment.subject_id is required"));
        assert!(errors_of(parse_task_request(&json!({"task_assignment_type": "function", "task_data": {}}), "f", now()))
            .contains("task_metadata.task_assignment.function_id is required"));
        assert!(errors_of(parse_task_request(&json!({"task_assignment_type": "bidding", "task_data": {}}), "f", now()))
            .contains("task_metadata.task_assignment.bid_job_evaluator_id is required"));
        let body = json!({"task_assignment_type": "bidding", "task_data": {}, "task_metadata": {"task_assignment": {"bid_job_evaluator_id": "builtin:lowest-price", "topics": "nlp", "bid_job_mode": "auction"}}});
        let e = errors_of(parse_task_request(&body, "f", now()));
        assert!(e.contains("task_metadata.task_assignment.topics") && e.contains("task_metadata.task_assignment.bid_job_mode"), "{e}");
        let e = errors_of(parse_task_request(
            &json!({"task_assignment_type": "open", "task_data": 1, "task_assignment_status": "completed", "task_id": "a/b", "colour": 1}),
            "f",
            now(),
        ));
        for field in ["task_assignment_status", "task_id", "colour"] {
            assert!(e.contains(field), "{field} in {e}");
        }
        assert!(errors_of(parse_task_request(&json!([1]), "f", now())).contains("JSON object"));
    }

    #[test]
    fn an_empty_subject_gets_the_defaults_and_fields_are_typed() {
        let s = parse_subject_request(&json!({}), "fresh").unwrap();
        assert_eq!(
            crate::Entity::to_dict(&s),
            json!({"subject_id": "fresh", "subject_metadata": {}, "task_evaluation_function": "", "subject_capabilities": {}, "topics": []})
        );
        let s = parse_subject_request(&json!({"subject_id": "agent-1", "topics": ["nlp"], "task_evaluation_function": "builtin:x"}), "f")
            .unwrap();
        assert_eq!((s.subject_id.as_str(), s.topics.as_slice()), ("agent-1", &["nlp".to_owned()][..]));
        let e =
            errors_of(parse_subject_request(&json!({"topics": "nlp", "subject_metadata": [], "task_evaluation_function": 3, "x": 1}), "f"));
        for field in ["topics", "subject_metadata", "task_evaluation_function", "x"] {
            assert!(e.contains(field), "{field} in {e}");
        }
    }

    /// `n` characters.
    fn long(n: usize) -> String {
        "x".repeat(n)
    }

    /// `n` distinct tags of 128 characters.
    fn full_tags(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("{i:x<128}")).collect()
    }

    fn bidding(assignment: Value) -> Value {
        let mut a = json!({"bid_job_evaluator_id": "builtin:lowest-price"});
        a.as_object_mut().unwrap().extend(assignment.as_object().unwrap().clone());
        json!({"task_assignment_type": "bidding", "task_data": {}, "task_metadata": {"task_assignment": a}})
    }

    #[test]
    fn task_ids_are_at_most_128_characters() {
        let direct = |subject: String| json!({"task_assignment_type": "direct", "task_data": {}, "task_metadata": {"task_assignment": {"subject_id": subject}}});
        let task = parse_task_request(&direct(long(128)), "f", now()).unwrap();
        assert_eq!(task.assignment_str("subject_id"), Some(long(128).as_str()));
        assert_eq!(
            errors_of(parse_task_request(&direct(long(129)), "f", now())),
            "task_metadata.task_assignment.subject_id must be at most 128 characters, got 129"
        );
        let body = json!({"task_id": long(128), "task_assignment_type": "open", "task_data": {}});
        assert_eq!(parse_task_request(&body, "f", now()).unwrap().task_id, long(128));
        let body = json!({"task_id": long(129), "task_assignment_type": "open", "task_data": {}});
        assert_eq!(errors_of(parse_task_request(&body, "f", now())), "task_id must be at most 128 characters, got 129");

        let ok = bidding(json!({"bid_job_subject_ids": ["a", long(128)], "bid_job_creator_id": long(128)}));
        assert!(parse_task_request(&ok, "f", now()).is_ok());
        let e = errors_of(parse_task_request(&bidding(json!({"bid_job_subject_ids": ["a", long(129)]})), "f", now()));
        assert_eq!(e, "task_metadata.task_assignment.bid_job_subject_ids[1] must be at most 128 characters, got 129");
        let e = errors_of(parse_task_request(&bidding(json!({"bid_job_creator_id": long(129)})), "f", now()));
        assert_eq!(e, "task_metadata.task_assignment.bid_job_creator_id must be at most 128 characters, got 129");
        // A creator that is not a string is ignored, as before (the service's default creator).
        assert!(parse_task_request(&bidding(json!({"bid_job_creator_id": 7})), "f", now()).is_ok());
    }

    #[test]
    fn a_bidding_task_s_tags_and_topics_are_at_most_64_of_at_most_128_characters() {
        for key in ["topics", "bid_job_tags"] {
            assert!(parse_task_request(&bidding(json!({key: full_tags(64)})), "f", now()).is_ok(), "{key}");
            let e = errors_of(parse_task_request(&bidding(json!({key: ["fr", "de", "en", long(300)]})), "f", now()));
            assert_eq!(e, format!("task_metadata.task_assignment.{key}[3] must be at most 128 characters, got 300"));
            let e = errors_of(parse_task_request(&bidding(json!({key: full_tags(65)})), "f", now()));
            assert_eq!(e, format!("task_metadata.task_assignment.{key} must hold at most 64 entries, got 65"));
        }
    }

    #[test]
    fn a_key_with_a_nul_or_a_leading_dollar_in_a_task_or_subject_is_refused_by_its_path() {
        let task = json!({"task_assignment_type": "open", "task_data": [{"a\u{0}b": 1}], "task_metadata": {"note": {"$x": 1}}});
        assert_eq!(
            errors_of(parse_task_request(&task, "f", now())),
            "task_data[0].a\\u0000b is not a storable key: it holds a NUL character, which MongoDB cannot store in a key; \
             task_metadata.note.$x is not a storable key: it starts with '$', which MongoDB reads as an operator"
        );
        let e = errors_of(parse_task_request(&bidding(json!({"bid_job_metadata": {"$where": 1}})), "f", now()));
        assert_eq!(
            e,
            "task_metadata.task_assignment.bid_job_metadata.$where is not a storable key: it starts with '$', which MongoDB reads as an operator",
            "told once, not again as Orcade's"
        );
        let e =
            errors_of(parse_subject_request(&json!({"subject_metadata": {"a": {"\u{0}": 1}}, "subject_capabilities": {"$gpu": 1}}), "f"));
        assert!(e.contains("subject_metadata.a.\\u0000 is not a storable key") && e.contains("subject_capabilities.$gpu"), "{e}");
        let ok = json!({"task_assignment_type": "open", "task_data": {"a.b": "$x", "x$": [1]}});
        assert!(parse_task_request(&ok, "f", now()).is_ok());
    }

    #[test]
    fn a_bidding_task_whose_job_orcade_would_refuse_is_refused_with_orcade_s_reason() {
        let refused = |assignment: Value| errors_of(parse_task_request(&bidding(assignment), "f", now()));
        // An explicit roster on an open job (issue 32, item 7): Orcade refuses it, so does POST /tasks.
        assert_eq!(
            refused(json!({"bid_job_mode": "open", "bid_job_subject_ids": ["a", "b"], "bid_job_max_subjects": 2})),
            "task_metadata.task_assignment.bid_job_subject_ids must not be supplied for an open job: its roster fills as subjects apply"
        );
        assert_eq!(
            refused(json!({"bid_job_mode": "open"})),
            "task_metadata.task_assignment.bid_job_max_subjects or bid_job_max_time is required for an open job: at least one of them must be set"
        );
        assert!(refused(json!({"bid_job_mode": "open", "bid_job_max_time": 0}))
            .starts_with("task_metadata.task_assignment.bid_job_max_time must be an integer of at least 1"));
        assert!(refused(json!({"bid_job_max_subjects": 3}))
            .starts_with("task_metadata.task_assignment.bid_job_max_subjects must be omitted for a closed job"));
        assert!(refused(json!({"bid_job_tags": ["fr", " "]}))
            .starts_with("task_metadata.task_assignment.bid_job_tags[1] must be a non-empty string"));
        assert!(refused(json!({"bid_job_tags": ["subject::a"]}))
            .starts_with("task_metadata.task_assignment.bid_job_tags[0] \"subject::a\" is reserved"));
        assert!(refused(json!({"bid_job_subject_ids": ["a", " b"]}))
            .starts_with("task_metadata.task_assignment.bid_job_subject_ids[1] must not begin or end with whitespace"));
        assert!(
            refused(json!({"bid_job_creator_id": ""})).starts_with("task_metadata.task_assignment.bid_job_creator_id must not be empty")
        );
        assert!(refused(json!({"bid_job_name": "Translate"})).starts_with("task_metadata.task_assignment.bid_job_name must be an object"));
        let e = refused(json!({"bid_job_evaluator_id": "builtin:no-such-rule"}));
        assert!(e.starts_with("task_metadata.task_assignment.bid_job_evaluator_id names no builtin \"no-such-rule\""), "{e}");
        let e = refused(json!({"bid_job_pqt_id": "builtin:min-confidence"}));
        assert!(e.starts_with("task_metadata.task_assignment.bid_job_metadata.parameters"), "{e}");

        // What Orcade takes is taken: an open job with `[]` or no roster, a closed job whose
        // roster is resolved at assignment (or explicit, or explicitly empty: that task fails
        // when assigned), a mixed job's roster tags for subjects its topics may bring.
        for ok in [
            json!({"bid_job_mode": "open", "bid_job_max_subjects": 2}),
            json!({"bid_job_mode": "open", "bid_job_subject_ids": [], "bid_job_max_time": 60, "topics": ["nlp"]}),
            json!({"bid_job_subject_ids": ["a", "b", "a"], "bid_job_tags": ["fr"], "bid_job_creator_id": 7}),
            json!({"bid_job_subject_ids": []}),
            json!({"topics": ["nlp"], "bid_job_mode": "mixed", "bid_job_tags": ["subject::someone"]}),
            json!({"bid_job_mode": "mixed", "bid_job_subject_ids": ["a"], "bid_job_tags": ["subject::a"]}),
            json!({"bid_job_pqt_id": "builtin:min-confidence", "bid_job_metadata": {"parameters": {"min": 0.8}}}),
            json!({"bid_job_mode": null, "bid_job_max_subjects": null, "bid_job_tags": null, "bid_job_metadata": null}),
        ] {
            assert!(parse_task_request(&bidding(ok.clone()), "f", now()).is_ok(), "{ok}");
        }
        assert!(refused(json!({"bid_job_mode": "mixed", "bid_job_subject_ids": ["a"], "bid_job_tags": ["subject::b"]}))
            .contains("\"b\" is not on it"));
    }

    #[test]
    fn a_subject_s_id_and_topics_are_bounded_at_creation_and_by_patch() {
        let s = parse_subject_request(&json!({"subject_id": long(128), "topics": full_tags(64)}), "f").unwrap();
        assert_eq!((s.subject_id.len(), s.topics.len()), (128, 64));
        assert_eq!(
            errors_of(parse_subject_request(&json!({"subject_id": long(129)}), "f")),
            "subject_id must be at most 128 characters, got 129"
        );
        assert_eq!(
            errors_of(parse_subject_request(&json!({"topics": ["nlp", long(129)]}), "f")),
            "topics[1] must be at most 128 characters, got 129"
        );
        assert_eq!(errors_of(parse_subject_request(&json!({"topics": full_tags(65)}), "f")), "topics must hold at most 64 entries, got 65");

        let stored = crate::Entity::to_dict(&s).as_object().cloned().unwrap();
        let patch = |body: Value| crate::patch::parse_subject_patch(&body, &stored);
        assert!(patch(json!({"topics": full_tags(64)})).is_ok());
        assert_eq!(errors_of(patch(json!({"topics": [long(300)]}))), "topics[0] must be at most 128 characters, got 300");
        assert_eq!(errors_of(patch(json!({"topics": full_tags(65)}))), "topics must hold at most 64 entries, got 65");
    }
}
