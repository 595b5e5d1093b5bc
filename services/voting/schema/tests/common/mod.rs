//! The spec's own example documents (§2.1–2.4, verbatim in `examples/stored/`, which the store
//! contract suite reads too) and a create request built from them with the request keys of §2.
#![allow(dead_code)]

use serde_json::{json, Value};

/// §2.1 example: SocialTaskCoreData document (private task, just created).
pub fn task_doc() -> Value {
    serde_json::from_str(include_str!("../../../../../examples/stored/task.json")).unwrap()
}

/// §2.2 example.
pub fn subject_spec_doc() -> Value {
    serde_json::from_str(include_str!("../../../../../examples/stored/subject_spec.json")).unwrap()
}

/// §2.3 example.
pub fn evaluation_doc() -> Value {
    serde_json::from_str(include_str!("../../../../../examples/stored/evaluation_input.json")).unwrap()
}

/// §2.4 example.
pub fn vote_doc() -> Value {
    serde_json::from_str(include_str!("../../../../../examples/stored/vote.json")).unwrap()
}

/// The create request (§3.1) that yields the three example documents, using the request keys of
/// §2's "Request key" column.
pub fn create_request() -> Value {
    json!({
        "social_task": {
            "created_by_subject_id": "planner-service",
            "created_by_subject_data": {"team": "localisation"},
            "org_ids": ["agent-reviewer-01", "agent-reviewer-02", "agent-reviewer-03"],
            "access_type": "private",
            "goal": {"objective": "Choose the lead translator for the Q4 handbook"},
            "topics": ["translation", "fr"],
            "properties": {"urgency": "high"},
            "creation_time": "2026-10-22T09:00:00",
            "scheduled_time": "2026-10-22T10:00:00",
            "status": "scheduled",
            "enable_live_streaming": true
        },
        "subject_spec": {
            "title": "Lead translator, Q4 handbook",
            "description": "Pick the agent that will lead the EN→FR translation of the Q4 handbook.",
            "voting_options": {
                "agent-translator-01": "Translator 01",
                "agent-translator-02": "Translator 02",
                "agent-translator-03": "Translator 03"
            },
            "voting_metadata": {
                "agent-translator-01": {"languages": ["en", "fr"], "past_jobs": 42},
                "agent-translator-02": {"languages": ["en", "fr", "de"], "past_jobs": 17}
            },
            "supported_protocols": ["http"],
            "voting_request": {
                "mode": "function",
                "function_id": "voting-invite-builder:1.0-stable",
                "parameters": {}
            }
        },
        "evaluation_spec": {
            "constraints_primary": "",
            "constraints_secondary": "",
            "voting_pqt": {"mode": "dsl", "workflow_id": "vote-option-is-valid:1.0"},
            "evaluation": {"mode": "dsl", "workflow_id": "plurality-count:1.0"},
            "tie_breaker": {"mode": "dsl", "workflow_id": "earliest-vote-wins:1.0"},
            "post_award": {"mode": "dsl", "workflow_id": "assign-lead-translator:1.0"}
        }
    })
}

/// Replaces `social_task_id` in a document (used to compare parsed documents, whose id is fresh,
/// with the spec examples).
pub fn with_id(mut doc: Value, id: &str) -> Value {
    doc["social_task_id"] = Value::String(id.to_owned());
    doc
}

/// Equal values *and* the same key order at every level (serde_json's `Map` equality ignores
/// order even with `preserve_order`, so the serialized text is compared as well).
#[track_caller]
pub fn assert_same_doc(got: &Value, want: &Value) {
    assert_eq!(got, want, "values differ");
    assert_eq!(serde_json::to_string(got).unwrap(), serde_json::to_string(want).unwrap(), "key order differs");
}

/// The top-level keys of an object, in order.
pub fn keys(v: &Value) -> Vec<&str> {
    v.as_object().expect("an object").keys().map(String::as_str).collect()
}

/// True when `s` is `task_` followed by exactly 8 lowercase hex characters.
pub fn is_task_id(s: &str) -> bool {
    s.strip_prefix("task_").is_some_and(|hex| hex.len() == 8 && hex.chars().all(|c| matches!(c, '0'..='9' | 'a'..='f')))
}
