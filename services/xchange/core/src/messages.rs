//! Xchange's messages on the platform's queues and schedules: what the flows send, and what the
//! queues' handlers ([`crate::work`]) and the schedules' targets read.
//!
//! * The **assignment queue** carries [`Assignment`]s: `{"kind": "assign", "task_id"}` (a new
//!   task) and `{"kind": "poll", "task_id", "attempt"}` (a bidding task's next look at its job).
//! * The **bidding-outcome queue** carries Orcade's resolution events,
//!   `{"event_type": "bid_job_resolved", "bid_job_id"}` ([`crate::work::BiddingOutcomeWork`]).
//! * A bidding task has the one-shot schedule `xchange-bidding-<task_id>` at its deadline, with
//!   the body `{"task_id"}` ([`parse_deadline`]).

use serde::{Deserialize, Serialize};

/// One piece of assignment work.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Assignment {
    /// Assign a new task.
    Assign { task_id: String },
    /// Look at a bidding task's job (the `attempt`-th look).
    Poll { task_id: String, attempt: u32 },
}

impl Assignment {
    pub fn body(&self) -> String {
        serde_json::to_string(self).expect("assignments serialize")
    }

    pub fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body.trim())
            .map_err(|e| format!("assignment message is malformed ({e}): {}", agora_hooks::truncate(body.trim())))
    }
}

/// The job id of a resolution event (or of any body naming `bid_job_id`).
pub fn parse_resolution(body: &str) -> Result<String, String> {
    #[derive(Deserialize)]
    struct Event {
        bid_job_id: String,
    }
    match serde_json::from_str::<Event>(body.trim()) {
        Ok(e) if !e.bid_job_id.trim().is_empty() => Ok(e.bid_job_id),
        _ => Err(format!(r#"resolution event is not {{"bid_job_id": "..."}}: {}"#, agora_hooks::truncate(body.trim()))),
    }
}

/// The task id of a deadline schedule's body.
pub fn parse_deadline(body: &serde_json::Value) -> Result<String, String> {
    match body.get("task_id").and_then(serde_json::Value::as_str) {
        Some(id) if !id.trim().is_empty() => Ok(id.to_owned()),
        _ => Err(format!(r#"deadline body is not {{"task_id": "..."}}: {body}"#)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let a = Assignment::Poll { task_id: "t".into(), attempt: 2 };
        assert_eq!(Assignment::parse(&a.body()), Ok(a));
        assert_eq!(Assignment::Assign { task_id: "t".into() }.body(), r#"{"kind":"assign","task_id":"t"}"#);
        assert!(Assignment::parse("{}").is_err());
        assert_eq!(parse_resolution(r#"{"event_type": "bid_job_resolved", "bid_job_id": "j"}"#), Ok("j".into()));
        assert!(parse_resolution(r#"{"bid_job_id": ""}"#).is_err());
        assert_eq!(parse_deadline(&serde_json::json!({"task_id": "t"})), Ok("t".into()));
    }
}
