//! Messages to subjects: the service says what, the adapter how (EventBridge, NATS, the local
//! inbox).

use async_trait::async_trait;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("publish to {address} failed: {reason}")]
pub struct PublishError {
    pub address: String,
    pub reason: String,
}

/// Sends a message to a subject.
#[async_trait]
pub trait Publisher: Send + Sync + 'static {
    async fn publish(&self, address: &str, message: &Value) -> Result<(), PublishError>;
}
