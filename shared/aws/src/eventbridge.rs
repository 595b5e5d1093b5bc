//! §5.1 on Amazon EventBridge: every message is one event on a configurable bus, with
//! `detail-type` = the message's `event_type` and `detail` = `{"recipient": address,
//! "message": payload}`. Rules on the bus route the events to any target.

use crate::config::{env_var, truncate};
use agora_ports::{PublishError, Publisher};
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_eventbridge::error::DisplayErrorContext;
use aws_sdk_eventbridge::types::PutEventsRequestEntry;
use serde_json::{json, Value};
use std::time::Duration;

/// Environment variable: the event bus name or ARN (default [`DEFAULT_BUS`]).
pub const BUS_ENV: &str = "AGORA_EVENT_BUS";
/// Environment variable: the events' `source` (the default is the service's, e.g. `agora.voting`).
pub const SOURCE_ENV: &str = "AGORA_EVENT_SOURCE";
/// The account's default event bus.
pub const DEFAULT_BUS: &str = "default";
/// `detail-type` of a message without a string `event_type` (as the local inbox logs it).
pub const FALLBACK_DETAIL_TYPE: &str = "message";
/// EventBridge's limit on the size of one entry (source + detail-type + detail), in bytes.
pub const MAX_ENTRY_BYTES: usize = 256 * 1024;

/// Attempts at an entry that EventBridge failed with a transient error code (throttling,
/// internal failure). Errors of the whole call are retried by the SDK itself.
const ENTRY_ATTEMPTS: u32 = 3;
const RETRY_DELAY: Duration = Duration::from_millis(100);

/// Publishes §5 messages as EventBridge events (PutEvents).
#[derive(Clone, Debug)]
pub struct EventBridgePublisher {
    client: aws_sdk_eventbridge::Client,
    bus: String,
    source: String,
}

impl EventBridgePublisher {
    /// A publisher putting events on `bus` (name or ARN) with `source`.
    pub fn new(client: aws_sdk_eventbridge::Client, bus: impl Into<String>, source: impl Into<String>) -> Self {
        Self { client, bus: bus.into(), source: source.into() }
    }

    /// A publisher configured from `AGORA_EVENT_BUS` (default `default`) and
    /// `AGORA_EVENT_SOURCE` (default `default_source`, the service's own).
    pub fn from_env(sdk: &SdkConfig, default_source: &str) -> Self {
        Self::new(
            aws_sdk_eventbridge::Client::new(sdk),
            env_var(BUS_ENV).unwrap_or_else(|| DEFAULT_BUS.to_owned()),
            env_var(SOURCE_ENV).unwrap_or_else(|| default_source.to_owned()),
        )
    }

    /// The bus events go to.
    pub fn bus(&self) -> &str {
        &self.bus
    }

    /// The `source` of the events.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The event entry for one message.
    fn entry(&self, address: &str, message: &Value) -> Result<PutEventsRequestEntry, PublishError> {
        let error = |reason: String| PublishError { address: address.to_owned(), reason };
        let detail_type = detail_type(message);
        let detail = event_detail(address, message).to_string();
        let size = self.source.len() + detail_type.len() + detail.len();
        if size > MAX_ENTRY_BYTES {
            return Err(error(format!("event is {size} bytes; EventBridge accepts at most {MAX_ENTRY_BYTES}")));
        }
        Ok(PutEventsRequestEntry::builder().event_bus_name(&self.bus).source(&self.source).detail_type(detail_type).detail(detail).build())
    }
}

#[async_trait]
impl crate::warm::Warm for EventBridgePublisher {
    fn target(&self) -> String {
        format!("eventbridge bus {}", self.bus)
    }

    /// `DescribeEventBus` of the bus the events go to.
    async fn warm(&self) -> Result<(), String> {
        self.client
            .describe_event_bus()
            .name(&self.bus)
            .send()
            .await
            .map(drop)
            .map_err(|e| truncate(&format!("DescribeEventBus: {}", DisplayErrorContext(&e)), 500))
    }
}

/// The `detail` of the event carrying `message` to `address`: `{"recipient", "message"}`.
pub fn event_detail(address: &str, message: &Value) -> Value {
    json!({"recipient": address, "message": message})
}

/// The `detail-type` of the event carrying `message`: its `event_type`.
pub fn detail_type(message: &Value) -> &str {
    message.get("event_type").and_then(Value::as_str).filter(|t| !t.is_empty()).unwrap_or(FALLBACK_DETAIL_TYPE)
}

/// Whether a failed entry's error code says that putting it again may succeed.
fn transient(code: &str) -> bool {
    matches!(code, "ThrottlingException" | "InternalFailure" | "InternalException" | "ServiceUnavailable")
}

#[async_trait]
impl Publisher for EventBridgePublisher {
    async fn publish(&self, address: &str, message: &Value) -> Result<(), PublishError> {
        let error = |reason: String| PublishError { address: address.to_owned(), reason };
        let entry = self.entry(address, message)?;
        let mut attempt = 1;
        loop {
            let out = self
                .client
                .put_events()
                .entries(entry.clone())
                .send()
                .await
                .map_err(|e| error(truncate(&format!("PutEvents on bus {} failed: {}", self.bus, DisplayErrorContext(&e)), 2000)))?;
            let failed = out.failed_entry_count() > 0;
            let result = out.entries().first();
            if !failed && result.is_some_and(|r| r.error_code().is_none()) {
                tracing::debug!(
                    recipient = address,
                    bus = %self.bus,
                    event_id = result.and_then(|r| r.event_id()),
                    detail_type = detail_type(message),
                    "event published"
                );
                return Ok(());
            }
            let code = result.and_then(|r| r.error_code()).unwrap_or("unknown");
            let reason = result.and_then(|r| r.error_message()).unwrap_or("no error message");
            if attempt < ENTRY_ATTEMPTS && transient(code) {
                tracing::warn!(recipient = address, bus = %self.bus, code, reason, attempt, "event entry failed; putting it again");
                tokio::time::sleep(RETRY_DELAY * attempt).await;
                attempt += 1;
                continue;
            }
            return Err(error(format!("EventBridge refused the event on bus {} ({code}): {reason}", self.bus)));
        }
    }
}
