//! The documents the cases store, as JSON: realistic nested documents (the examples of the
//! voting spec, §2.1–2.4, kept as text in the repository's `examples/stored/`, because documents must come
//! back exactly as written), votes, claims and bid-job-like documents built to order, and a task
//! carrying a report of a few megabytes. The suite knows none of the services' types.

use serde_json::{json, Value};

/// §2.1: a private task, just created.
pub const TASK_EXAMPLE: &str = include_str!("../../../examples/stored/task.json");

/// §2.2.
pub const SUBJECT_SPEC_EXAMPLE: &str = include_str!("../../../examples/stored/subject_spec.json");

/// §2.3.
pub const EVALUATION_INPUT_EXAMPLE: &str = include_str!("../../../examples/stored/evaluation_input.json");

/// §2.4.
pub const VOTE_EXAMPLE: &str = include_str!("../../../examples/stored/vote.json");

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

/// A job with an open roster: what the append cases fill.
pub fn job(id: &str, status: &str) -> Value {
    json!({
        "job_id": id,
        "bid_job_status": status,
        "task_metadata": {"title": "Translate the Q4 handbook", "budget": {"amount": 120, "currency": "EUR"}},
        "roster": [],
        "created_at": "2026-10-22T09:00:00.000000"
    })
}

/// An internal claim document (`agora_claims`), shaped for the raw insert races.
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
