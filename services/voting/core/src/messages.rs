//! Voting's messages: the payloads it sends subjects, and its messages on the platform's queue
//! and schedules (read by the queue's handler, [`crate::work`], and the schedules' targets).
//!
//! - The payloads of §5: invitations and results. Transports are pluggable; these are not.
//! - An evaluation request is the work body `{"social_task_id": "..."}`, keyed by the task id
//!   (a FIFO queue delivers repeated requests for one task once).
//! - A one-shot start is the schedule `start-<social_task_id>` with the body
//!   `{"social_task_id": "..."}`.
//! - A task's deadline is the schedule `deadline-<social_task_id>`, made when the task
//!   starts, with the body `{"social_task_id": "...", "at": "deadline"}`: it rides the start's
//!   timers and target, whose handler closes the task at its deadline.

use agora_voting_schema::{Entity, SocialChoiceSubjectSpecInput, SocialTaskCoreData};
use serde_json::{json, Value};

/// §5.2: one per key of `voting_options_map`, addressed to that key.
pub fn voting_invite(task: &SocialTaskCoreData, subject_spec: &SocialChoiceSubjectSpecInput, custom_data: &Value) -> Value {
    json!({
        "event_type": "voting_invite",
        "sender_subject_id": task.created_by_subject_id,
        "event_data": {"custom_data": custom_data, "voting_info": subject_spec.to_dict()},
    })
}

/// §5.4: one per final winner, addressed to that winner.
pub fn voting_result(social_task_id: &str, winners: &[String], post_award_payload: &Value) -> Value {
    json!({
        "event_type": "voting_result",
        "task_id": social_task_id,
        "event_data": {"social_task_id": social_task_id, "winners": winners, "post_award_payload": post_award_payload},
    })
}

/// Longest bare task id [`parse_evaluation_request`] accepts.
const MAX_ID_LEN: usize = 256;

/// The body of the work requesting the evaluation of `social_task_id`.
pub fn evaluation_request(social_task_id: &str) -> String {
    json!({"social_task_id": social_task_id}).to_string()
}

/// The task id of an evaluation request: `{"social_task_id": "..."}` (what
/// [`evaluation_request`] writes), a JSON string, or a bare task id (letters, digits, `_`, `-`,
/// `.`, `:`; as typed into a console). Err: why the body is neither, quoting it.
pub fn parse_evaluation_request(body: &str) -> Result<String, String> {
    let trimmed = body.trim();
    let refuse = |why: &str| Err(format!("evaluation message {why}: {}", agora_hooks::truncate(trimmed)));
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => match map.get("social_task_id") {
            Some(Value::String(id)) if valid_id(id) => Ok(id.clone()),
            Some(_) => refuse("has a social_task_id that is not a task id"),
            None => refuse("has no social_task_id"),
        },
        Ok(Value::String(id)) if valid_id(&id) => Ok(id),
        Ok(Value::String(_)) => refuse("is a JSON string that is not a task id"),
        Ok(_) => refuse(r#"is neither {"social_task_id": "..."} nor a task id"#),
        Err(_) if valid_id(trimmed) => Ok(trimmed.to_owned()),
        Err(_) => refuse(r#"is neither {"social_task_id": "..."} nor a task id"#),
    }
}

/// Whether `id` can be a task id: non-empty, short, and only letters, digits, `_`, `-`, `.`, `:`.
fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_ID_LEN && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

/// The name of a task's one-shot start schedule.
pub fn start_schedule_name(social_task_id: &str) -> String {
    format!("start-{social_task_id}")
}

/// The body a task's one-shot start delivers.
pub fn start_request(social_task_id: &str) -> Value {
    json!({"social_task_id": social_task_id})
}

/// The name of a task's one-shot deadline schedule.
pub fn deadline_schedule_name(social_task_id: &str) -> String {
    format!("deadline-{social_task_id}")
}

/// The body a task's deadline schedule delivers.
pub fn deadline_request(social_task_id: &str) -> Value {
    json!({"social_task_id": social_task_id, "at": "deadline"})
}

/// Whether a timer's body is a deadline's ([`deadline_request`]) rather than a start's.
pub fn is_deadline_request(body: &Value) -> bool {
    body.get("at").and_then(Value::as_str) == Some("deadline")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_body() {
        assert_eq!(parse_evaluation_request(r#"{"social_task_id": "task_0a1b2c3d"}"#), Ok("task_0a1b2c3d".into()));
        assert_eq!(parse_evaluation_request(&evaluation_request("task_0a1b2c3d")), Ok("task_0a1b2c3d".into()));
    }

    #[test]
    fn extra_keys_are_ignored() {
        assert_eq!(parse_evaluation_request(r#"{"social_task_id": "task_1", "attempt": 2}"#), Ok("task_1".into()));
    }

    #[test]
    fn bare_and_json_string_ids() {
        assert_eq!(parse_evaluation_request("task_0a1b2c3d"), Ok("task_0a1b2c3d".into()));
        assert_eq!(parse_evaluation_request("  task_0a1b2c3d\n"), Ok("task_0a1b2c3d".into()));
        assert_eq!(parse_evaluation_request(r#""task_0a1b2c3d""#), Ok("task_0a1b2c3d".into()));
    }

    #[test]
    fn refusals_say_why_and_quote_the_body() {
        let cases = [
            ("", "neither"),
            ("{}", "has no social_task_id"),
            (r#"{"task": "task_1"}"#, "has no social_task_id"),
            (r#"{"social_task_id": 7}"#, "not a task id"),
            (r#"{"social_task_id": ""}"#, "not a task id"),
            (r#"{"social_task_id": "a b"}"#, "not a task id"),
            ("[1, 2]", "neither"),
            ("42", "neither"),
            ("null", "neither"),
            (r#""two words""#, "JSON string that is not a task id"),
            ("two words", "neither"),
            ("{not json", "neither"),
        ];
        for (body, want) in cases {
            let err = parse_evaluation_request(body).expect_err(body);
            assert!(err.contains(want), "{body:?}: {err}");
            assert!(err.contains(body.trim()), "{body:?}: {err}");
        }
    }

    #[test]
    fn start_schedules_are_named_after_the_task() {
        assert_eq!(start_schedule_name("task_1"), "start-task_1");
        assert_eq!(start_request("task_1"), json!({"social_task_id": "task_1"}));
    }

    #[test]
    fn deadline_schedules_are_named_after_the_task_and_told_from_starts() {
        assert_eq!(deadline_schedule_name("task_1"), "deadline-task_1");
        assert!(is_deadline_request(&deadline_request("task_1")));
        assert!(!is_deadline_request(&start_request("task_1")));
    }
}
