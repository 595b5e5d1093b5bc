//! The work queue on Amazon SQS: each piece of work is one message whose body is the work's body;
//! the consumer Lambda answers per record (see `agora_runtime::lambda::serve_sqs`).

use crate::config::{env_var, required_env, truncate, ConfigError};
use agora_ports::{QueueError, WorkQueue};
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_sqs::error::DisplayErrorContext;
use std::time::Duration;

/// SQS's longest message delay.
pub const MAX_DELAY: Duration = Duration::from_secs(900);

/// Sends work to an SQS queue (standard or FIFO).
#[derive(Clone, Debug)]
pub struct SqsQueue {
    client: aws_sdk_sqs::Client,
    queue_url: String,
}

impl SqsQueue {
    /// A queue sending to `queue_url`.
    pub fn new(client: aws_sdk_sqs::Client, queue_url: impl Into<String>) -> Self {
        Self { client, queue_url: queue_url.into() }
    }

    /// The queue whose URL is the environment variable `url_env` (required).
    pub fn from_env(sdk: &SdkConfig, url_env: &str) -> Result<Self, ConfigError> {
        Ok(Self::new(aws_sdk_sqs::Client::new(sdk), required_env(url_env)?))
    }

    /// The queue whose URL is the environment variable `url_env`, if set.
    pub fn optional_from_env(sdk: &SdkConfig, url_env: &str) -> Option<Self> {
        env_var(url_env).map(|url| Self::new(aws_sdk_sqs::Client::new(sdk), url))
    }

    /// The queue's URL.
    pub fn queue_url(&self) -> &str {
        &self.queue_url
    }

    fn is_fifo(&self) -> bool {
        self.queue_url.ends_with(".fifo")
    }
}

/// The SQS delay for work due `after`: none for "now", else whole seconds (rounded down, so
/// work is never later than asked) from 1 to 900, the range SQS delays have.
pub fn sqs_delay_seconds(after: Duration) -> i32 {
    if after.is_zero() {
        return 0;
    }
    after.clamp(Duration::from_secs(1), MAX_DELAY).as_secs() as i32
}

#[async_trait]
impl WorkQueue for SqsQueue {
    /// Sends `body`. On a FIFO queue (URL ending `.fifo`) the key is both the message group and
    /// the deduplication id, so repeated work with one key within SQS's five-minute
    /// deduplication window is delivered once (FIFO queues take no per-message delay: `delay` is
    /// then ignored).
    async fn send(&self, key: &str, body: &str, delay: Duration) -> Result<(), QueueError> {
        let mut send = self.client.send_message().queue_url(&self.queue_url).message_body(body);
        if self.is_fifo() {
            send = send.message_group_id(key).message_deduplication_id(key);
        } else if !delay.is_zero() {
            send = send.delay_seconds(sqs_delay_seconds(delay));
        }
        let out = send.send().await.map_err(|e| QueueError {
            key: key.to_owned(),
            reason: truncate(&format!("SendMessage to {} failed: {}", self.queue_url, DisplayErrorContext(&e)), 2000),
        })?;
        tracing::debug!(key, queue = %self.queue_url, message_id = out.message_id(), "work sent");
        Ok(())
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
