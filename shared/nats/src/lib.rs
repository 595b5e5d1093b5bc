//! NATS, the transport of the earlier platform's agents (voting §5.1, §5.3):
//!
//! - [`NatsPublisher`]: each message is published on the subject = its address, with the
//!   message JSON as payload ([`agora_ports::Publisher`]);
//! - [`run_intake`]: the messages of a subject handed to a service's [`Intake`] (voting's
//!   `vote.submit`), a bounded number at once; nothing is replied.

use agora_ports::{PublishError, Publisher};
use async_nats::{Client, Subscriber};
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::Value;
use std::sync::Arc;

/// How many inbound messages an intake takes at once.
pub const INTAKE_CONCURRENCY: usize = 64;

/// Why connecting or subscribing failed.
#[derive(Debug, thiserror::Error)]
pub enum NatsError {
    /// The server could not be reached or refused the connection.
    #[error("cannot connect to NATS at {url}: {reason}")]
    Connect { url: String, reason: String },
    /// The subscription could not be made.
    #[error("cannot subscribe to NATS subject {subject}: {reason}")]
    Subscribe { subject: String, reason: String },
}

/// Connects to the NATS server(s) at `url` (e.g. `nats://127.0.0.1:4222`; comma-separated
/// for several; credentials in the URL as `nats://user:pass@host`).
pub async fn connect(url: &str) -> Result<Client, NatsError> {
    async_nats::connect(url).await.map_err(|e| NatsError::Connect { url: url.to_owned(), reason: e.to_string() })
}

/// Publishes §5 messages on NATS: subject = the address, payload = the message JSON.
#[derive(Clone, Debug)]
pub struct NatsPublisher {
    client: Client,
}

impl NatsPublisher {
    pub fn new(client: Client) -> Self {
        Self { client }
    }

    /// A publisher on a new connection to `url` (see [`connect`]).
    pub async fn connect(url: &str) -> Result<Self, NatsError> {
        Ok(Self::new(connect(url).await?))
    }

    pub fn client(&self) -> &Client {
        &self.client
    }
}

/// Why `subject` cannot be published to, or `None` when it can: a subject is one or more
/// non-empty tokens separated by `.`, with no whitespace, control characters or wildcards
/// (`*`, `>`).
pub fn subject_problem(subject: &str) -> Option<&'static str> {
    if subject.is_empty() {
        Some("the subject is empty")
    } else if subject.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Some("a NATS subject cannot contain whitespace or control characters")
    } else if subject.contains(['*', '>']) {
        Some("a NATS subject to publish to cannot contain the wildcards '*' or '>'")
    } else if subject.split('.').any(str::is_empty) {
        Some("a NATS subject cannot start or end with '.' or contain '..'")
    } else {
        None
    }
}

#[async_trait]
impl Publisher for NatsPublisher {
    /// Publishes and flushes, so that an `Ok` means the message was written to the server
    /// (core NATS: delivered to the subscribers present, not stored).
    async fn publish(&self, address: &str, message: &Value) -> Result<(), PublishError> {
        let error = |reason: String| PublishError { address: address.to_owned(), reason };
        if let Some(problem) = subject_problem(address) {
            return Err(error(format!("{address:?} is not a valid NATS subject: {problem}")));
        }
        let payload = serde_json::to_vec(message).map_err(|e| error(format!("message does not encode: {e}")))?;
        self.client.publish(address.to_owned(), payload.into()).await.map_err(|e| error(format!("NATS publish failed: {e}")))?;
        self.client.flush().await.map_err(|e| error(format!("NATS flush failed: {e}")))?;
        let event_type = message.get("event_type").and_then(Value::as_str).unwrap_or("message");
        tracing::debug!(recipient = address, event_type, "message published on NATS");
        Ok(())
    }
}

/// Takes the messages of one subscription (a service's intake: voting's `vote.submit`).
#[async_trait]
pub trait Intake: Send + Sync + 'static {
    /// Handles one message. Nothing is replied; the intake logs the outcome.
    async fn take(&self, subject: &str, payload: &[u8]);
}

/// Subscribes to `subject`. The subscription is sent before this returns, so a message
/// published afterwards on the same connection reaches it.
pub async fn subscribe(client: &Client, subject: &str) -> Result<Subscriber, NatsError> {
    let error = |reason: String| NatsError::Subscribe { subject: subject.to_owned(), reason };
    let messages = client.subscribe(subject.to_owned()).await.map_err(|e| error(e.to_string()))?;
    client.flush().await.map_err(|e| error(e.to_string()))?;
    tracing::info!(subject, "NATS intake listening");
    Ok(messages)
}

/// Hands each message on `messages` to `intake`, up to [`INTAKE_CONCURRENCY`] at once, until
/// the subscription ends.
pub async fn serve(messages: Subscriber, intake: Arc<dyn Intake>) {
    messages
        .for_each_concurrent(INTAKE_CONCURRENCY, |message| {
            let intake = intake.clone();
            async move { intake.take(&message.subject, &message.payload).await }
        })
        .await;
    tracing::info!("NATS intake stopped: the subscription ended");
}

/// [`subscribe`] to `subject` on `client`, then [`serve`] until the connection closes.
pub async fn run_intake(client: Client, subject: &str, intake: Arc<dyn Intake>) -> Result<(), NatsError> {
    let messages = subscribe(&client, subject).await?;
    serve(messages, intake).await;
    Ok(())
}
