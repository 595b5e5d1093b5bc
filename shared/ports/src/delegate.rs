//! The delegate system (orcade-1-3-5.md §5): how a service hands a task to a subject and waits
//! for its answer. `POST {DELEGATE_API_URL}/api/submit-and-wait` with
//! `{"subject_id", "session_id", "task_id", "task_data"}`; the reply
//! `{"success": true, "ack": {...}, "output": {...}}` on success, a 502 or `success: false` on
//! failure. Every call has a time limit (`AGORA_DELEGATE_TIMEOUT_MS`, default 30 s).
//!
//! A hand-over is made at least once: a worker that dies during the call leaves it to be made
//! again, with the same `task_id` and `session_id`, marked [`DelegateRequest::retry`] (the
//! header [`RETRY_HEADER`]`: true` on the HTTP call, never in the body), so that a delegate
//! system can recognise the repeat by its `task_id` and answer it as the first.

use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;

/// The HTTP header a repeated hand-over carries, with the value `true`: this call (same
/// `task_id`, same `session_id`) may have been made before, by a worker that died before it
/// stored the answer. Absent on a first call.
pub const RETRY_HEADER: &str = "Agora-Retry";

/// One call: its body, and whether it repeats an earlier call.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DelegateRequest<'a> {
    pub subject_id: &'a str,
    pub session_id: &'a str,
    pub task_id: &'a str,
    pub task_data: &'a Value,
    /// The same hand-over (same `task_id` and `session_id`) may have been made before: sent as
    /// [`RETRY_HEADER`], never in the body, which the delegate system reads as it is.
    #[serde(skip)]
    pub retry: bool,
}

/// Why a call brought no successful reply. Each keeps what the caller stores or logs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DelegateError {
    /// No delegate system is configured (`DELEGATE_API_URL` unset).
    #[error("the delegate system is not configured: DELEGATE_API_URL is not set")]
    NotConfigured,
    /// No reply within the time limit.
    #[error("the delegate system did not answer within {0:?}")]
    Timeout(Duration),
    /// The delegate system could not be reached (connection refused, DNS, TLS).
    #[error("the delegate system is unreachable: {0}")]
    Unreachable(String),
    /// It answered, and refused: a non-2xx status, or `success` not `true`. `reply` is the body
    /// as received (JSON when it was JSON, else a string).
    #[error("the delegate system refused the task (HTTP {status}): {reply}")]
    Refused { status: u16, reply: Value },
    /// It answered 2xx with a body that is not the reply of §5 (not JSON, not an object, no
    /// `success`).
    #[error("the delegate system's reply is malformed: {0}")]
    Malformed(String),
}

impl DelegateError {
    /// Whether the same call may succeed later (a timeout, an unreachable system, a 5xx or 429).
    pub fn is_transient(&self) -> bool {
        match self {
            DelegateError::Timeout(_) | DelegateError::Unreachable(_) => true,
            DelegateError::Refused { status, .. } => *status >= 500 || *status == 429,
            DelegateError::NotConfigured | DelegateError::Malformed(_) => false,
        }
    }
}

/// Hands tasks to subjects.
#[async_trait]
pub trait Delegate: Send + Sync + 'static {
    /// Submits `request` and waits for the subject's answer: the raw reply, verbatim, when it
    /// says `success: true`.
    async fn submit_and_wait(&self, request: &DelegateRequest<'_>) -> Result<Value, DelegateError>;
}
