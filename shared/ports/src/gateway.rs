//! Clients' open connections as a server that did not accept them sees them (API Gateway's
//! WebSocket `@connections` management API on AWS).

use async_trait::async_trait;

/// Why a message could not be handed to a connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GatewayError {
    /// The client has left (API Gateway answers 410 Gone): forget it.
    #[error("connection {0} is gone")]
    Gone(String),
    /// Anything else; the message is for the log.
    #[error("connection {connection_id}: {reason}")]
    Failed { connection_id: String, reason: String },
}

#[async_trait]
pub trait ConnectionGateway: Send + Sync + 'static {
    /// Sends one text message to the client.
    async fn send(&self, connection_id: &str, message: &str) -> Result<(), GatewayError>;
    /// Closes the connection.
    async fn close(&self, connection_id: &str) -> Result<(), GatewayError>;
}
