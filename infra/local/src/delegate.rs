//! The local delegate system (orcade-1-3-5.md §5), used when no `DELEGATE_API_URL` is set: each
//! call is recorded in the message inbox of its subject (`GET /local/inbox/{subject}`, the
//! request as it would have been sent, with `"event_type"` from its `task_data`) and answered
//! `{"success": true, "ack": {...}, "output": {}}` at once, so a whole job runs on one machine.
//! A repeated hand-over (the HTTP delegate's `Agora-Retry: true`) is recorded again, with
//! `"retry": true`; a first one has no `retry` key.

use crate::inbox::LocalInbox;
use agora_ports::{Delegate, DelegateError, DelegateRequest, Publisher};
use async_trait::async_trait;
use serde_json::{json, Value};

/// Records each call in the inbox and acknowledges it.
#[derive(Clone)]
pub struct LocalDelegate {
    inbox: LocalInbox,
}

impl LocalDelegate {
    pub fn new(inbox: LocalInbox) -> Self {
        Self { inbox }
    }
}

#[async_trait]
impl Delegate for LocalDelegate {
    async fn submit_and_wait(&self, request: &DelegateRequest<'_>) -> Result<Value, DelegateError> {
        let received_at = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.6f").to_string();
        let mut message = json!({
            "event_type": request.task_data.get("event_type").cloned().unwrap_or(Value::Null),
            "subject_id": request.subject_id,
            "session_id": request.session_id,
            "task_id": request.task_id,
            "task_data": request.task_data,
        });
        if request.retry {
            message["retry"] = Value::Bool(true);
        }
        self.inbox.publish(request.subject_id, &message).await.map_err(|e| DelegateError::Unreachable(e.to_string()))?;
        Ok(json!({
            "success": true,
            "ack": {"subject_id": request.subject_id, "session_id": request.session_id, "task_id": request.task_id, "received_at": received_at, "delegate": "local"},
            "output": {},
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_call_is_in_the_subjects_inbox_and_acknowledged() {
        let inbox = LocalInbox::default();
        let delegate = LocalDelegate::new(inbox.clone());
        let data = json!({"event_type": "bid_winner", "bid_job_id": "job-1"});
        let request = DelegateRequest { subject_id: "agent-1", session_id: "job-1", task_id: "result-1", task_data: &data, retry: false };
        let reply = delegate.submit_and_wait(&request).await.unwrap();
        assert_eq!(reply["success"], json!(true));
        assert_eq!(reply["ack"]["task_id"], json!("result-1"));
        assert_eq!(reply["output"], json!({}));
        let messages = inbox.messages("agent-1");
        assert_eq!(messages.len(), 1);
        assert_eq!(messages[0]["event_type"], json!("bid_winner"));
        assert_eq!(messages[0]["task_data"], data);
        assert!(inbox.messages("agent-2").is_empty());
        assert!(messages[0].get("retry").is_none(), "a first call is not marked");
        // The same hand-over again, marked a retry: recorded again, saying so.
        delegate.submit_and_wait(&DelegateRequest { retry: true, ..request }).await.unwrap();
        let messages = inbox.messages("agent-1");
        assert_eq!(messages.len(), 2);
        assert_eq!((&messages[1]["task_id"], &messages[1]["session_id"]), (&json!("result-1"), &json!("job-1")));
        assert_eq!(messages[1]["retry"], json!(true));
    }
}
