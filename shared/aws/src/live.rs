//! The live stream on AWS (§3.5): clients hold WebSocket connections to an API Gateway
//! WebSocket API, and the functions reach them through its `@connections` management API
//! ([`ApiGatewayConnections`]); refreshes and changes travel as messages on an SQS queue
//! ([`SqsLiveQueue`], also the [`ChangeListener`] of the flows), consumed by `live-push`.

use crate::config::{env_var, required_env, truncate, ConfigError};
use agora_voting_core::live::LiveMessage;
use agora_voting_core::{ChangeListener, ConnectionGateway, GatewayError, LiveQueue, LiveQueueError};
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_apigatewaymanagement::config::http::HttpResponse;
use aws_sdk_apigatewaymanagement::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_apigatewaymanagement::primitives::Blob;
use std::time::Duration;

/// Environment variable: the URL of the live queue. Unset: tasks' changes are not pushed.
pub const LIVE_QUEUE_URL_ENV: &str = "AGORA_LIVE_QUEUE_URL";
/// Environment variable: the `@connections` endpoint of the WebSocket API,
/// `https://{api-id}.execute-api.{region}.amazonaws.com/{stage}`.
pub const LIVE_ENDPOINT_ENV: &str = "AGORA_LIVE_ENDPOINT";
/// SQS's longest message delay.
pub const MAX_DELAY: Duration = Duration::from_secs(900);

/// The live queue on SQS.
#[derive(Clone, Debug)]
pub struct SqsLiveQueue {
    client: aws_sdk_sqs::Client,
    queue_url: String,
}

impl SqsLiveQueue {
    pub fn new(client: aws_sdk_sqs::Client, queue_url: impl Into<String>) -> Self {
        Self { client, queue_url: queue_url.into() }
    }

    /// The queue at `AGORA_LIVE_QUEUE_URL` (required).
    pub fn from_env(sdk: &SdkConfig) -> Result<Self, ConfigError> {
        Ok(Self::new(aws_sdk_sqs::Client::new(sdk), required_env(LIVE_QUEUE_URL_ENV)?))
    }

    /// The queue at `AGORA_LIVE_QUEUE_URL`, if set.
    pub fn optional_from_env(sdk: &SdkConfig) -> Option<Self> {
        env_var(LIVE_QUEUE_URL_ENV).map(|url| Self::new(aws_sdk_sqs::Client::new(sdk), url))
    }

    pub fn queue_url(&self) -> &str {
        &self.queue_url
    }
}

/// The SQS delay for a message due `after`: none for "now", else whole seconds (rounded down,
/// so a refresh is never later than asked) from 1 to 900, the range SQS delays have.
pub fn sqs_delay_seconds(after: Duration) -> i32 {
    if after.is_zero() {
        return 0;
    }
    after.clamp(Duration::from_secs(1), MAX_DELAY).as_secs() as i32
}

#[async_trait]
impl LiveQueue for SqsLiveQueue {
    async fn send_later(&self, message: &LiveMessage, after: Duration) -> Result<(), LiveQueueError> {
        self.client
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(message.to_body())
            .delay_seconds(sqs_delay_seconds(after))
            .send()
            .await
            .map_err(|e| {
                LiveQueueError(truncate(
                    &format!("SendMessage to {} failed: {}", self.queue_url, aws_sdk_sqs::error::DisplayErrorContext(&e)),
                    2000,
                ))
            })?;
        Ok(())
    }
}

#[async_trait]
impl ChangeListener for SqsLiveQueue {
    /// Queues `{"changed": {"social_task_id": ...}}` for `live-push`. A failure is logged: the
    /// streams' periodic refreshes still carry the change.
    async fn task_changed(&self, social_task_id: &str) {
        let message = LiveMessage::Changed { social_task_id: social_task_id.to_owned() };
        if let Err(e) = self.send_later(&message, Duration::ZERO).await {
            tracing::warn!(social_task_id, error = %e, "live change not queued; the next refresh carries it");
        }
    }
}

/// Reaches WebSocket connections through API Gateway's management API.
#[derive(Clone, Debug)]
pub struct ApiGatewayConnections {
    client: aws_sdk_apigatewaymanagement::Client,
}

impl ApiGatewayConnections {
    /// Connections of the API whose `@connections` endpoint is `endpoint`.
    pub fn new(sdk: &SdkConfig, endpoint: &str) -> Self {
        let config = aws_sdk_apigatewaymanagement::config::Builder::from(sdk).endpoint_url(endpoint).build();
        Self { client: aws_sdk_apigatewaymanagement::Client::from_conf(config) }
    }

    /// Connections of the API at `AGORA_LIVE_ENDPOINT` (required).
    pub fn from_env(sdk: &SdkConfig) -> Result<Self, ConfigError> {
        Ok(Self::new(sdk, &required_env(LIVE_ENDPOINT_ENV)?))
    }
}

/// `Gone` for API Gateway's 410 (the client has left), `Failed` with the detail otherwise.
fn gateway_error<E>(connection_id: &str, action: &str, e: SdkError<E, HttpResponse>) -> GatewayError
where
    E: ProvideErrorMetadata + std::error::Error + 'static,
{
    let gone = e.as_service_error().and_then(|s| s.code()) == Some("GoneException")
        || e.raw_response().is_some_and(|r| r.status().as_u16() == 410);
    if gone {
        return GatewayError::Gone(connection_id.to_owned());
    }
    GatewayError::Failed {
        connection_id: connection_id.to_owned(),
        reason: truncate(&format!("{action} failed: {}", DisplayErrorContext(&e)), 2000),
    }
}

#[async_trait]
impl ConnectionGateway for ApiGatewayConnections {
    async fn send(&self, connection_id: &str, message: &str) -> Result<(), GatewayError> {
        self.client
            .post_to_connection()
            .connection_id(connection_id)
            .data(Blob::new(message.as_bytes()))
            .send()
            .await
            .map(drop)
            .map_err(|e| gateway_error(connection_id, "PostToConnection", e))
    }

    async fn close(&self, connection_id: &str) -> Result<(), GatewayError> {
        self.client
            .delete_connection()
            .connection_id(connection_id)
            .send()
            .await
            .map(drop)
            .map_err(|e| gateway_error(connection_id, "DeleteConnection", e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_are_whole_seconds_sqs_accepts() {
        assert_eq!(sqs_delay_seconds(Duration::ZERO), 0);
        assert_eq!(sqs_delay_seconds(Duration::from_millis(50)), 1);
        assert_eq!(sqs_delay_seconds(Duration::from_millis(2500)), 2);
        assert_eq!(sqs_delay_seconds(Duration::from_secs(5)), 5);
        assert_eq!(sqs_delay_seconds(Duration::from_secs(3600)), 900);
    }
}
