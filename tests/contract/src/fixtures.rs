//! The documents the cases store: the spec's examples (§2.1–2.4), votes and claims built to
//! order, and a task carrying a report of a few megabytes.

use serde_json::{json, Value};

/// §2.1: a private task, just created.
pub const TASK_EXAMPLE: &str = r#"{
  "social_task_id": "task_3f9c6d2e",
  "created_by_subject_id": "planner-service",
  "created_by_subject_data": {"team": "localisation"},
  "org_ids": ["agent-reviewer-01", "agent-reviewer-02", "agent-reviewer-03"],
  "social_task_access_type": "private",
  "goal_data": {"objective": "Choose the lead translator for the Q4 handbook"},
  "social_tasks_topics": ["translation", "fr"],
  "social_task_properties": {"urgency": "high"},
  "creation_time": "2026-10-22T09:00:00",
  "scheduled_time": "2026-10-22T10:00:00",
  "status": "scheduled",
  "report_json": {},
  "enable_live_streaming": true
}"#;

/// §2.2.
pub const SUBJECT_SPEC_EXAMPLE: &str = r#"{
  "social_task_id": "task_3f9c6d2e",
  "topic_title": "Lead translator, Q4 handbook",
  "topic_description": "Pick the agent that will lead the EN→FR translation of the Q4 handbook.",
  "voting_options_map": {
    "agent-translator-01": "Translator 01",
    "agent-translator-02": "Translator 02",
    "agent-translator-03": "Translator 03"
  },
  "voting_option_metadata_map": {
    "agent-translator-01": {"languages": ["en", "fr"], "past_jobs": 42},
    "agent-translator-02": {"languages": ["en", "fr", "de"], "past_jobs": 17}
  },
  "supported_protocols": ["http"],
  "voting_message_request_creator": {
    "mode": "function",
    "function_id": "voting-invite-builder:1.0-stable",
    "parameters": {}
  }
}"#;

/// §2.3.
pub const EVALUATION_INPUT_EXAMPLE: &str = r#"{
  "social_task_id": "task_3f9c6d2e",
  "constraints_entry_id": "",
  "constraints_entry_id_1": "",
  "voting_pqt": {"mode": "dsl", "workflow_id": "vote-option-is-valid:1.0"},
  "choice_evaluation": {"mode": "dsl", "workflow_id": "plurality-count:1.0"},
  "tie_breaker": {"mode": "dsl", "workflow_id": "earliest-vote-wins:1.0"},
  "post_awarding": {"mode": "dsl", "workflow_id": "assign-lead-translator:1.0"}
}"#;

/// §2.4.
pub const VOTE_EXAMPLE: &str = r#"{
  "vote_id": "7d0f2a9c-2b4e-4a51-9a3e-0c6f1b2d4e8a",
  "social_task_id": "task_3f9c6d2e",
  "submitter_subject_id": "agent-reviewer-01",
  "vote_data": {"selected_option": "agent-translator-02"},
  "submission_time": "2026-10-22T10:03:12.481203",
  "qualified": true
}"#;

/// The id the examples share.
pub const EXAMPLE_TASK_ID: &str = "task_3f9c6d2e";

/// Parses one of the example constants.
pub fn example(text: &str) -> Value {
    serde_json::from_str(text).expect("the examples are valid JSON")
}

/// The §2.1 example under another id, with `status` and `org_ids` replaced.
pub fn task(id: &str, status: &str, org_ids: &[&str]) -> Value {
    let mut doc = example(TASK_EXAMPLE);
    doc["social_task_id"] = json!(id);
    doc["status"] = json!(status);
    doc["org_ids"] = json!(org_ids);
    doc
}

/// The §2.2 example under another id.
pub fn subject_spec(id: &str) -> Value {
    let mut doc = example(SUBJECT_SPEC_EXAMPLE);
    doc["social_task_id"] = json!(id);
    doc
}

/// The §2.3 example under another id.
pub fn evaluation_input(id: &str) -> Value {
    let mut doc = example(EVALUATION_INPUT_EXAMPLE);
    doc["social_task_id"] = json!(id);
    doc
}

/// A vote in the shape of §2.4.
pub fn vote(vote_id: &str, task_id: &str, subject: &str, qualified: bool) -> Value {
    json!({
        "vote_id": vote_id,
        "social_task_id": task_id,
        "submitter_subject_id": subject,
        "vote_data": {"selected_option": "agent-translator-02"},
        "submission_time": "2026-10-22T10:03:12.481203",
        "qualified": qualified
    })
}

/// A vote choosing `option`, submitted at second `second` of the example's minute.
pub fn vote_for(vote_id: &str, task_id: &str, subject: &str, option: &str, second: u32) -> Value {
    let mut doc = vote(vote_id, task_id, subject, true);
    doc["vote_data"] = json!({"selected_option": option, "ranking": [option, "agent-translator-03"]});
    doc["submission_time"] = json!(format!("2026-10-22T10:03:{second:02}"));
    doc
}

/// An internal claim document (`agora_claims`).
pub fn claim(claim_id: &str, owner: &str) -> Value {
    json!({"claim_id": claim_id, "owner": owner, "expires_at": "2026-10-22T10:10:00"})
}

/// A §2.6-shaped report listing `votes` votes: about 260 bytes per vote.
pub fn large_report(votes: usize) -> Value {
    let votes: Vec<Value> = (0..votes)
        .map(|i| vote(&format!("00000000-0000-4000-8000-{i:012}"), EXAMPLE_TASK_ID, &format!("agent-reviewer-{i:06}"), i % 7 != 0))
        .collect();
    json!({
        "task": {"social_task_id": EXAMPLE_TASK_ID, "status": "started"},
        "subject_spec": {"topic_title": "Lead translator, Q4 handbook"},
        "evaluation_spec": {},
        "votes": votes,
        "winners": ["agent-translator-02"],
        "post_award_payload": {"assigned_to": "agent-translator-02", "start_by": "2026-10-23T09:00:00Z"},
        "dsl_outputs": {"choice_evaluation_dsl": {"winner": "agent-translator-02"}},
        "evaluated_at": "2026-10-22T10:07:45.221000"
    })
}
