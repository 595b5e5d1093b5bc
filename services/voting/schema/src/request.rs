//! Parsing at the edge: the create request (§3.1, request keys of §2) and the vote request
//! (§3.3). Every invalid or missing field is reported by its path, all at once.
//!
//! Request limits (`agora_schema::fields`): the ids (`created_by_subject_id`, each of
//! `org_ids`, the option ids that key `voting_options` and `voting_metadata`,
//! `constraints_primary` and `constraints_secondary`, and a vote's `vote_id`, `social_task_id`
//! and `submitter_subject_id`) are at most [`MAX_ID_CHARS`] characters; `topics` holds at most
//! `MAX_TAGS` entries of at most `MAX_TAG_CHARS` characters.
//!
//! The objects stored as given (`created_by_subject_data`, `goal`, `properties`, `report`,
//! `voting_options`, `voting_metadata`, the hook specs and a vote's `vote_data`) hold no key, at
//! any depth, with a NUL or a leading `$` (`agora_schema::fields::storable_keys`): such a key is
//! refused by its path, on every store alike.

use crate::entities::*;
use crate::options::{parse_options, TaskShape, PROPERTIES_KEY};
use agora_schema::fields::{id_within_limit, kind, FieldError, Reader, ValidationErrors, MAX_ID_CHARS};
use serde_json::{Map, Value};

/// A fresh task id: `task_` + 8 lowercase hex characters.
pub fn new_task_id() -> String {
    let hex = uuid::Uuid::new_v4().simple().to_string();
    format!("task_{}", &hex[..8])
}

/// Parses a create request (§3.1) into the three documents, with `social_task_id` as their id.
/// Request-side `social_task_id` and `job_id` are ignored; `report` defaults to `{}` and
/// `enable_live_streaming` to `false`.
pub fn parse_create_request(body: &Value, social_task_id: &str) -> Result<TaskBundle, ValidationErrors> {
    let Some(root) = body.as_object() else {
        return Err(ValidationErrors::single("", format!("Request body must be a JSON object, got {}", kind(body))));
    };
    let sections = ["social_task", "subject_spec", "evaluation_spec"];
    let missing: Vec<&str> = sections.iter().copied().filter(|k| root.get(*k).is_none_or(Value::is_null)).collect();
    if !missing.is_empty() {
        return Err(ValidationErrors::single("", format!("Missing required keys: {}", missing.join(", "))));
    }
    let mut errors = Vec::new();
    let section = |name: &'static str, errors: &mut Vec<FieldError>| -> Option<&Map<String, Value>> {
        let v = &root[name];
        let m = v.as_object();
        if m.is_none() {
            errors.push(FieldError { path: name.into(), message: format!("must be an object, got {}", kind(v)) });
        }
        m
    };
    let (t, s, e) = (section("social_task", &mut errors), section("subject_spec", &mut errors), section("evaluation_spec", &mut errors));
    let id = social_task_id.to_owned();

    let task = t.and_then(|obj| {
        let mut r = Reader::new(obj, "social_task", &mut errors);
        let created_by_subject_id = r.id_string("created_by_subject_id");
        let created_by_subject_data = r.object("created_by_subject_data");
        let org_ids = r.id_strings("org_ids");
        let access_type = r.string("access_type");
        let goal = r.object("goal");
        let topics = r.tag_strings("topics");
        let properties = r.object("properties");
        let creation_time = r.datetime("creation_time", true);
        let scheduled_time = r.datetime("scheduled_time", false);
        let duration = r.opt_positive_int("duration");
        let status = r.opt_string("status");
        let report = match r.get("report") {
            None => Some(Map::new()),
            Some(Value::Object(m)) => Some(m.clone()),
            Some(other) => {
                r.fail("report", format!("must be an object, got {}", kind(other)));
                None
            }
        };
        storable(&mut r, &["created_by_subject_data", "goal", "properties", "report"]);
        let enable_live_streaming = r.opt_bool("enable_live_streaming");
        let access = access_type.as_deref().map(AccessType::from);
        let shape = TaskShape {
            org_ids: org_ids.as_deref(),
            private: access.as_ref().is_some_and(|a| *a == AccessType::Private),
            public: access.as_ref().is_some_and(|a| *a == AccessType::Public),
            scheduled_time,
            trigger_count: duration.unwrap_or(DEFAULT_DURATION),
            properties: properties.as_ref(),
        };
        let options = parse_options(&mut r, &shape)?;
        let mut properties = properties;
        if let (false, Some(p)) = (options.is_empty(), properties.as_mut()) {
            p.insert(PROPERTIES_KEY.into(), options.to_stored());
        }
        let bad_live = r.get("enable_live_streaming").is_some() && enable_live_streaming.is_none();
        if bad_live || r.get("scheduled_time").is_some() && scheduled_time.is_none() {
            return None;
        }
        if r.get("duration").is_some() && duration.is_none() || r.get("status").is_some() && status.is_none() {
            return None;
        }
        Some(SocialTaskCoreData {
            social_task_id: id.clone(),
            created_by_subject_id: created_by_subject_id?,
            created_by_subject_data: created_by_subject_data?,
            org_ids: org_ids?,
            social_task_access_type: AccessType::from(access_type?),
            goal_data: goal?,
            social_tasks_topics: topics?,
            social_task_properties: properties?,
            creation_time: creation_time?,
            scheduled_time,
            duration,
            status: status.map(TaskStatus::from),
            start_time: None,
            end_time: None,
            report_json: report?,
            job_id: None,
            enable_live_streaming: enable_live_streaming.unwrap_or(false),
        })
    });

    let subject_spec = s.and_then(|obj| {
        let mut r = Reader::new(obj, "subject_spec", &mut errors);
        let title = r.string("title");
        let description = r.string("description");
        let options = r.object("voting_options").filter(|o| option_ids_within_limit(&mut r, "voting_options", o));
        if let Some(o) = &options {
            if o.is_empty() {
                r.fail("voting_options", "must name at least one option");
            }
        }
        let metadata = r.object("voting_metadata").filter(|m| option_ids_within_limit(&mut r, "voting_metadata", m));
        let protocols = r.strings("supported_protocols");
        let request = r.function_spec("voting_request");
        storable(&mut r, &["voting_options", "voting_metadata", "voting_request"]);
        Some(SocialChoiceSubjectSpecInput {
            social_task_id: id.clone(),
            topic_title: title?,
            topic_description: description?,
            voting_options_map: options.filter(|o| !o.is_empty())?,
            voting_option_metadata_map: metadata?,
            supported_protocols: protocols?,
            voting_message_request_creator: request?,
        })
    });

    let evaluation_input = e.and_then(|obj| {
        let mut r = Reader::new(obj, "evaluation_spec", &mut errors);
        let primary = r.id_string("constraints_primary");
        let secondary = r.id_string("constraints_secondary");
        let pqt = r.function_spec("voting_pqt");
        let evaluation = r.function_spec("evaluation");
        let tie_breaker = r.function_spec("tie_breaker");
        let post_award = r.function_spec("post_award");
        storable(&mut r, &["voting_pqt", "evaluation", "tie_breaker", "post_award"]);
        Some(SocialChoiceEvaluationInput {
            social_task_id: id.clone(),
            constraints_entry_id: primary?,
            constraints_entry_id_1: secondary?,
            voting_pqt: pqt?,
            choice_evaluation: evaluation?,
            tie_breaker: tie_breaker?,
            post_awarding: post_award?,
        })
    });

    match (task, subject_spec, evaluation_input) {
        (Some(task), Some(subject_spec), Some(evaluation_input)) if errors.is_empty() => {
            Ok(TaskBundle { task, subject_spec, evaluation_input })
        }
        _ => Err(ValidationErrors(errors)),
    }
}

/// Checks the keys at any depth inside each of `fields` that the request gives, which are
/// stored as given: none may hold a NUL or start with `$` (`Reader::storable`), each reported
/// by its path (`social_task.properties.$x`).
fn storable(r: &mut Reader<'_>, fields: &[&str]) {
    for field in fields {
        if let Some(v) = r.get(field) {
            r.storable(field, v);
        }
    }
}

/// Whether every key of the option map `map` (at `key`) is an option id of at most
/// [`MAX_ID_CHARS`] characters: the keys double as the options' addresses. A key too long is
/// reported as `voting_options key "<its start>…"`.
fn option_ids_within_limit(r: &mut Reader<'_>, key: &str, map: &Map<String, Value>) -> bool {
    let mut ok = true;
    for option in map.keys() {
        if option.len() > MAX_ID_CHARS {
            let start: String = option.chars().take(24).collect();
            ok &= id_within_limit(r, &format!("{key} key {:?}", format!("{start}…")), option);
        }
    }
    ok
}

/// The six keys a vote request must carry (§3.3).
pub const VOTE_KEYS: [&str; 6] = ["vote_id", "social_task_id", "submitter_subject_id", "vote_data", "submission_time", "qualified"];

/// Parses a vote request (§3.3): all six keys present and of the right types. The returned
/// vote carries the client's `submission_time` and `qualified`; the flow overwrites both.
pub fn parse_vote_request(body: &Value) -> Result<Vote, ValidationErrors> {
    let Some(obj) = body.as_object() else {
        return Err(ValidationErrors::single("", format!("Request body must be a JSON object, got {}", kind(body))));
    };
    let missing: Vec<&str> = VOTE_KEYS.iter().copied().filter(|k| !obj.contains_key(*k)).collect();
    if !missing.is_empty() {
        return Err(ValidationErrors::single("", format!("Missing required keys: {}", missing.join(", "))));
    }
    let mut errors = Vec::new();
    let mut r = Reader::new(obj, "", &mut errors);
    let non_empty = |r: &mut Reader, key: &str| {
        let s = r.id_string(key)?;
        if s.trim().is_empty() {
            r.fail(key, "must not be empty");
            return None;
        }
        Some(s)
    };
    let vote_id = non_empty(&mut r, "vote_id");
    let social_task_id = non_empty(&mut r, "social_task_id");
    let submitter = non_empty(&mut r, "submitter_subject_id");
    let vote_data = r.object("vote_data");
    storable(&mut r, &["vote_data"]);
    let submission_time = r.datetime("submission_time", true);
    let qualified = match obj.get("qualified") {
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            r.fail("qualified", format!("must be a boolean, got {}", kind(other)));
            None
        }
        None => None,
    };
    match (vote_id, social_task_id, submitter, vote_data, submission_time, qualified) {
        (Some(vote_id), Some(social_task_id), Some(submitter_subject_id), Some(vote_data), Some(submission_time), Some(qualified))
            if errors.is_empty() =>
        {
            Ok(Vote {
                vote_id,
                social_task_id,
                submitter_subject_id,
                vote_data: Value::Object(vote_data),
                submission_time,
                qualified,
                weight: None,
            })
        }
        _ => Err(ValidationErrors(errors)),
    }
}
