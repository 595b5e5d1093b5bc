//! The evaluation queue on Amazon SQS: one message `{"social_task_id": "..."}` per evaluation
//! request; the `evaluate-task` Lambda reads it back with [`parse_evaluation_message`].

use crate::config::{required_env, truncate, ConfigError};
use agora_voting_core::{EvaluationQueue, QueueError};
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_sqs::error::DisplayErrorContext;
use serde_json::{json, Value};

/// Environment variable: the URL of the evaluation queue.
pub const QUEUE_URL_ENV: &str = "AGORA_EVALUATION_QUEUE_URL";

/// Longest bare task id [`parse_evaluation_message`] accepts.
const MAX_ID_LEN: usize = 256;

/// Sends evaluation requests to an SQS queue (standard or FIFO).
#[derive(Clone, Debug)]
pub struct SqsEvaluationQueue {
    client: aws_sdk_sqs::Client,
    queue_url: String,
}

impl SqsEvaluationQueue {
    /// A queue sending to `queue_url`.
    pub fn new(client: aws_sdk_sqs::Client, queue_url: impl Into<String>) -> Self {
        Self { client, queue_url: queue_url.into() }
    }

    /// A queue sending to `AGORA_EVALUATION_QUEUE_URL` (required).
    pub fn from_env(sdk: &SdkConfig) -> Result<Self, ConfigError> {
        Ok(Self::new(aws_sdk_sqs::Client::new(sdk), required_env(QUEUE_URL_ENV)?))
    }

    /// The queue's URL.
    pub fn queue_url(&self) -> &str {
        &self.queue_url
    }
}

/// The body of the message requesting the evaluation of `social_task_id`.
pub fn evaluation_message(social_task_id: &str) -> String {
    json!({"social_task_id": social_task_id}).to_string()
}

#[async_trait]
impl EvaluationQueue for SqsEvaluationQueue {
    /// Sends `{"social_task_id": "..."}`. On a FIFO queue (URL ending `.fifo`) the task id is
    /// both the message group and the deduplication id, so repeated requests for one task
    /// within SQS's five-minute deduplication window are delivered once.
    async fn request_evaluation(&self, social_task_id: &str) -> Result<(), QueueError> {
        let mut send = self.client.send_message().queue_url(&self.queue_url).message_body(evaluation_message(social_task_id));
        if self.queue_url.ends_with(".fifo") {
            send = send.message_group_id(social_task_id).message_deduplication_id(social_task_id);
        }
        let out = send.send().await.map_err(|e| QueueError {
            social_task_id: social_task_id.to_owned(),
            reason: truncate(&format!("SendMessage to {} failed: {}", self.queue_url, DisplayErrorContext(&e)), 2000),
        })?;
        tracing::debug!(social_task_id, queue = %self.queue_url, message_id = out.message_id(), "evaluation request sent");
        Ok(())
    }
}

/// The task id of an evaluation request message body: `{"social_task_id": "..."}` (what
/// [`SqsEvaluationQueue`] sends), a JSON string, or a bare task id (letters, digits, `_`, `-`,
/// `.`, `:`; as typed into the console). Err: why the body is neither, quoting it.
pub fn parse_evaluation_message(body: &str) -> Result<String, String> {
    let trimmed = body.trim();
    let refuse = |why: &str| Err(format!("evaluation message {why}: {}", truncate(trimmed, 200)));
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => match map.get("social_task_id") {
            Some(Value::String(id)) if valid_id(id) => Ok(id.clone()),
            Some(_) => refuse("has a social_task_id that is not a task id"),
            None => refuse("has no social_task_id"),
        },
        Ok(Value::String(id)) if valid_id(&id) => Ok(id),
        Ok(Value::String(_)) => refuse("is a JSON string that is not a task id"),
        Ok(_) => refuse(r#"is neither {"social_task_id": "..."} nor a task id"#),
        Err(_) if valid_id(trimmed) => Ok(trimmed.to_owned()),
        Err(_) => refuse(r#"is neither {"social_task_id": "..."} nor a task id"#),
    }
}

/// Whether `id` can be a task id: non-empty, short, and only letters, digits, `_`, `-`, `.`, `:`.
fn valid_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= MAX_ID_LEN && id.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_body() {
        assert_eq!(parse_evaluation_message(r#"{"social_task_id": "task_0a1b2c3d"}"#), Ok("task_0a1b2c3d".into()));
        assert_eq!(parse_evaluation_message(&evaluation_message("task_0a1b2c3d")), Ok("task_0a1b2c3d".into()));
    }

    #[test]
    fn extra_keys_are_ignored() {
        assert_eq!(parse_evaluation_message(r#"{"social_task_id": "task_1", "attempt": 2}"#), Ok("task_1".into()));
    }

    #[test]
    fn bare_and_json_string_ids() {
        assert_eq!(parse_evaluation_message("task_0a1b2c3d"), Ok("task_0a1b2c3d".into()));
        assert_eq!(parse_evaluation_message("  task_0a1b2c3d\n"), Ok("task_0a1b2c3d".into()));
        assert_eq!(parse_evaluation_message(r#""task_0a1b2c3d""#), Ok("task_0a1b2c3d".into()));
    }

    #[test]
    fn refusals_say_why_and_quote_the_body() {
        let cases = [
            ("", "neither"),
            ("{}", "has no social_task_id"),
            (r#"{"task": "task_1"}"#, "has no social_task_id"),
            (r#"{"social_task_id": 7}"#, "not a task id"),
            (r#"{"social_task_id": ""}"#, "not a task id"),
            (r#"{"social_task_id": "a b"}"#, "not a task id"),
            ("[1, 2]", "neither"),
            ("42", "neither"),
            ("null", "neither"),
            (r#""two words""#, "JSON string that is not a task id"),
            ("two words", "neither"),
            ("{not json", "neither"),
        ];
        for (body, want) in cases {
            let err = parse_evaluation_message(body).expect_err(body);
            assert!(err.contains(want), "{body:?}: {err}");
            assert!(err.contains(body.trim()), "{body:?}: {err}");
        }
    }
}
