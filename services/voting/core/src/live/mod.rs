//! The live stream of §3.5, for both front doors: the client protocol ([`protocol`]: the
//! request, the refusals, and the updates, full while the task's bundle fits in a message of
//! [`protocol::MAX_MESSAGE_BYTES`], compact after), and the stream served through a connection
//! gateway with its state in the store ([`streams`], the AWS shape). The local server holds its
//! WebSocket connections itself and uses [`protocol`] and [`Queries::live_snapshot`] only, so
//! both send the same messages.

pub mod protocol;
pub mod streams;

pub use protocol::{LiveRequest, LiveSnapshot, LiveUpdate};
pub use streams::{LiveStreams, Refreshed, Subscribed, Subscription};

use crate::error::VotingError;
use crate::flows::query::Queries;
use crate::ports::{ChangeListener, WorkQueue};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::time::Duration;

/// A message on the live queue: `{"changed": {"social_task_id": ...}}` or
/// `{"refresh": {"connection_id": ..., "token": ..., "seq": n}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum LiveMessage {
    /// The task changed: push an update to its subscriptions now.
    Changed { social_task_id: String },
    /// A subscription's refresh is due.
    Refresh { connection_id: String, token: String, seq: u64 },
}

impl LiveMessage {
    pub fn to_body(&self) -> String {
        serde_json::to_string(self).expect("live messages serialize")
    }

    /// Reads a message body. Err: why it is not a live message.
    pub fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body).map_err(|e| format!("not a live-stream message ({e}): {}", body.chars().take(200).collect::<String>()))
    }
}

/// The [`ChangeListener`] of the AWS shape: each change of a task is one
/// `{"changed": {"social_task_id": ...}}` on the live queue, for `live-push`.
#[derive(Clone)]
pub struct QueuedChanges {
    queue: Arc<dyn WorkQueue>,
}

impl QueuedChanges {
    pub fn new(queue: Arc<dyn WorkQueue>) -> Self {
        Self { queue }
    }
}

#[async_trait]
impl ChangeListener for QueuedChanges {
    /// A failure is logged (in the span of the flow that changed the task, which names it): the
    /// streams' periodic refreshes still carry the change.
    async fn task_changed(&self, social_task_id: &str) {
        let message = LiveMessage::Changed { social_task_id: social_task_id.to_owned() };
        if let Err(e) = self.queue.send(social_task_id, &message.to_body(), Duration::ZERO).await {
            tracing::warn!(error = %e, "live change not queued; the next refresh carries it");
        }
    }
}

impl Queries {
    /// The task as its live streams see it now, from which each connection's update is made
    /// ([`LiveSnapshot::update_for`]).
    pub async fn live_snapshot(&self, social_task_id: &str) -> Result<LiveSnapshot, VotingError> {
        Ok(LiveSnapshot::new(social_task_id, self.bundle_parts(social_task_id).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let changed = LiveMessage::Changed { social_task_id: "task_1".into() };
        assert_eq!(changed.to_body(), r#"{"changed":{"social_task_id":"task_1"}}"#);
        let refresh = LiveMessage::Refresh { connection_id: "c=".into(), token: "t".into(), seq: 3 };
        assert_eq!(refresh.to_body(), r#"{"refresh":{"connection_id":"c=","token":"t","seq":3}}"#);
        for m in [changed, refresh] {
            assert_eq!(LiveMessage::parse(&m.to_body()), Ok(m));
        }
    }

    #[test]
    fn other_bodies_are_refused_with_the_reason() {
        for body in ["", "{}", r#"{"changed": {}}"#, r#"{"refresh": {"connection_id": "c"}}"#, r#"{"social_task_id": "t"}"#] {
            let err = LiveMessage::parse(body).expect_err(body);
            assert!(err.starts_with("not a live-stream message"), "{err}");
        }
    }
}
