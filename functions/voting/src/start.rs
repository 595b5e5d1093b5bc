//! `start-tasks`: fired by a task's one-shot EventBridge Scheduler schedule (input
//! `{"social_task_id": "..."}`) and by the `rate(1 minute)` sweep rule (a scheduled event).
//! Both go through the same core flow, which starts a task once.

use agora_aws::{parse_start_event, StartRequest};
use agora_voting_core::{StartOutcome, Voting, VotingError};
use serde_json::{json, Value};

/// Handles one event; returns a summary for the invocation result.
pub async fn handle(voting: &Voting, event: &Value) -> Result<Value, VotingError> {
    match parse_start_event(event) {
        StartRequest::Task(id) => {
            let outcome = voting.start_task(&id).await?;
            if let StartOutcome::Failed(reason) = &outcome {
                tracing::warn!(social_task_id = %id, %reason, "one-shot start failed; the sweep retries");
            }
            Ok(json!({ "started": [summary(&id, &outcome)] }))
        }
        StartRequest::Sweep => {
            let outcomes = voting.start_due_tasks().await?;
            Ok(json!({ "started": outcomes.iter().map(|(id, o)| summary(id, o)).collect::<Vec<_>>() }))
        }
    }
}

fn summary(id: &str, outcome: &StartOutcome) -> Value {
    json!({ "social_task_id": id, "outcome": format!("{outcome:?}") })
}
