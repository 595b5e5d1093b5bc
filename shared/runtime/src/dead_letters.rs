//! Dead letters with their reasons, on SQS. A queue's RedrivePolicy moves a message that was
//! received `maxReceiveCount` times to its dead-letter queue as it was, saying nothing of why. So
//! the consumer ([`crate::lambda::handle_batch`]) does it itself for a record whose work asked for
//! a retry on its last allowed receive (its `ApproximateReceiveCount` at least the source queue's
//! `maxReceiveCount`): [`set_aside`] sends it to the dead-letter queue with the same body and the
//! message attributes
//!
//! | Attribute | Type | Value |
//! |---|---|---|
//! | [`LAST_ERROR`] | String | the reason of the last failure, cut to [`MAX_REASON_BYTES`] |
//! | [`PREVIOUS_ERROR`] | String | a redriven message's own `agora_last_error`, when it had one |
//! | [`ATTEMPTS`] | Number | its receives (`ApproximateReceiveCount`) |
//! | [`FIRST_TRY`] | String | its first receive (`ApproximateFirstReceiveTimestamp`), RFC 3339 UTC |
//! | [`LAST_TRY`] | String | now, RFC 3339 UTC |
//! | [`SOURCE_QUEUE`] | String | the ARN of the queue it came from |
//! | [`agora_telemetry::trace::ATTRIBUTE`] | String | the trace id it came with, if any |
//!
//! (on a FIFO dead-letter queue, in the record's message group, deduplicated by its message id),
//! and the consumer then reports the record done, so that SQS deletes it from the source queue.
//! When that send fails the record is reported failed as before, and SQS's own redrive still
//! dead-letters it, without a reason. Records that crash or time out the function never get here:
//! SQS dead-letters those alone too.
//!
//! The consumer learns each source queue's dead-letter queue and `maxReceiveCount` from the queue
//! itself (`GetQueueUrl` by the name and account of the record's `eventSourceARN`, then
//! `GetQueueAttributes` of its `RedrivePolicy`), once per queue for the life of the process, with
//! an SQS client made from [`agora_aws::config::load`] the first time a record fails. Nothing to
//! configure; the function's role needs `sqs:GetQueueUrl` and `sqs:GetQueueAttributes` on its
//! source queue and `sqs:SendMessage` on its dead-letter queue (`template.yaml`). The dead-letter
//! queue's URL is the source queue's with the dead-letter queue's account and name (SQS requires
//! both queues in one account and region), so it needs no lookup of its own.
//!
//! `infra/aws/dead-letters` lists the dead letters with these reasons and redrives them.

use agora_telemetry::trace;
use aws_lambda_events::event::sqs::SqsMessage;
use aws_sdk_sqs::error::DisplayErrorContext;
use aws_sdk_sqs::types::{MessageAttributeValue, QueueAttributeName};
use chrono::{DateTime, SecondsFormat, TimeZone, Utc};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::OnceCell;

/// Message attribute: why the work failed the last time.
pub const LAST_ERROR: &str = "agora_last_error";
/// Message attribute: why a redriven message failed before (its own [`LAST_ERROR`]).
pub const PREVIOUS_ERROR: &str = "agora_previous_error";
/// Message attribute: how many times the work was received.
pub const ATTEMPTS: &str = "agora_attempts";
/// Message attribute: when the work was first received.
pub const FIRST_TRY: &str = "agora_first_try";
/// Message attribute: when the work failed the last time.
pub const LAST_TRY: &str = "agora_last_try";
/// Message attribute: the ARN of the queue the work came from (where a redrive sends it back).
pub const SOURCE_QUEUE: &str = "agora_source_queue";

/// Most bytes of a reason kept in [`LAST_ERROR`] (SQS counts attributes in a message's 256 KiB).
pub const MAX_REASON_BYTES: usize = 4096;

/// What the consumer needs of a source queue's RedrivePolicy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redrive {
    /// The dead-letter queue's URL.
    pub dead_letter_url: String,
    /// Receives after which SQS dead-letters a message.
    pub max_receive_count: u32,
}

impl Redrive {
    /// The redrive of the queue at `source_url`, from its `RedrivePolicy` attribute (JSON
    /// `{"deadLetterTargetArn": "arn:aws:sqs:...", "maxReceiveCount": 3}`; the count may be a
    /// string).
    pub fn from_policy(source_url: &str, policy: &str) -> Result<Self, String> {
        let policy: serde_json::Value = serde_json::from_str(policy).map_err(|e| format!("RedrivePolicy {policy:?} is not JSON: {e}"))?;
        let target = policy
            .get("deadLetterTargetArn")
            .and_then(serde_json::Value::as_str)
            .ok_or_else(|| format!("RedrivePolicy {policy} has no deadLetterTargetArn"))?;
        let count = policy.get("maxReceiveCount");
        let max_receive_count = count
            .and_then(|c| c.as_u64().or_else(|| c.as_str().and_then(|s| s.parse().ok())))
            .and_then(|c| u32::try_from(c).ok())
            .ok_or_else(|| format!("RedrivePolicy {policy} has no maxReceiveCount"))?;
        let (account, name) = queue_of_arn(target).ok_or_else(|| format!("deadLetterTargetArn {target:?} is no SQS queue ARN"))?;
        Ok(Self { dead_letter_url: sibling_url(source_url, account, name), max_receive_count })
    }
}

/// The account and name of an SQS queue's ARN (`arn:<partition>:sqs:<region>:<account>:<name>`).
pub fn queue_of_arn(arn: &str) -> Option<(&str, &str)> {
    match arn.split(':').collect::<Vec<_>>()[..] {
        ["arn", _, "sqs", _, account, name] if !account.is_empty() && !name.is_empty() => Some((account, name)),
        _ => None,
    }
}

/// The URL of the queue `name` of `account` beside the queue at `url` (same endpoint).
fn sibling_url(url: &str, account: &str, name: &str) -> String {
    let base = url.trim_end_matches('/').rsplitn(3, '/').nth(2).unwrap_or_default();
    format!("{base}/{account}/{name}")
}

/// `at` as RFC 3339 UTC to the millisecond (`2026-10-22T10:00:00.492Z`).
fn rfc3339(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// The message attributes (name, SQS data type, value) a dead letter of `record`, which failed
/// with `reason` at `now`, carries (see the module docs).
pub fn reasons(record: &SqsMessage, reason: &str, now: DateTime<Utc>) -> Vec<(&'static str, &'static str, String)> {
    let mut attributes = vec![
        (LAST_ERROR, "String", agora_support::truncate(if reason.is_empty() { "(no reason given)" } else { reason }, MAX_REASON_BYTES)),
        (ATTEMPTS, "Number", receive_count(record).unwrap_or(0).to_string()),
        (LAST_TRY, "String", rfc3339(now)),
    ];
    let first = record.attributes.get("ApproximateFirstReceiveTimestamp").and_then(|ms| ms.parse::<i64>().ok());
    if let Some(first) = first.and_then(|ms| Utc.timestamp_millis_opt(ms).single()) {
        attributes.push((FIRST_TRY, "String", rfc3339(first)));
    }
    if let Some(source) = record.event_source_arn.as_deref().filter(|arn| !arn.is_empty()) {
        attributes.push((SOURCE_QUEUE, "String", source.to_owned()));
    }
    let string_attribute = |name: &str| record.message_attributes.get(name).and_then(|a| a.string_value.clone()).filter(|v| !v.is_empty());
    if let Some(previous) = string_attribute(LAST_ERROR) {
        attributes.push((PREVIOUS_ERROR, "String", agora_support::truncate(&previous, MAX_REASON_BYTES)));
    }
    if let Some(id) = string_attribute(trace::ATTRIBUTE).filter(|id| trace::accept(id).is_some()) {
        attributes.push((trace::ATTRIBUTE, "String", id));
    }
    attributes
}

/// The record's `ApproximateReceiveCount`.
fn receive_count(record: &SqsMessage) -> Option<u32> {
    record.attributes.get("ApproximateReceiveCount").and_then(|n| n.parse().ok())
}

/// The dead-letter queues of the process's source queues, and the client that reaches them.
struct DeadLetters {
    sqs: OnceCell<aws_sdk_sqs::Client>,
    /// Per source queue ARN: its redrive (`None`: it has no RedrivePolicy), once known. A lookup
    /// that failed is not kept: the next failed record asks again.
    redrives: Mutex<HashMap<String, Arc<OnceCell<Option<Redrive>>>>>,
}

impl DeadLetters {
    fn global() -> &'static DeadLetters {
        static GLOBAL: OnceLock<DeadLetters> = OnceLock::new();
        GLOBAL.get_or_init(|| DeadLetters { sqs: OnceCell::new(), redrives: Mutex::new(HashMap::new()) })
    }

    async fn sqs(&self) -> &aws_sdk_sqs::Client {
        self.sqs.get_or_init(|| async { aws_sdk_sqs::Client::new(&agora_aws::config::load().await) }).await
    }

    /// The redrive of the queue `source_arn`, looked up the first time (see the module docs).
    async fn redrive(&self, source_arn: &str) -> Result<Option<Redrive>, String> {
        let cell = self.redrives.lock().unwrap_or_else(|e| e.into_inner()).entry(source_arn.to_owned()).or_default().clone();
        cell.get_or_try_init(|| self.look_up(source_arn)).await.cloned()
    }

    async fn look_up(&self, source_arn: &str) -> Result<Option<Redrive>, String> {
        let (account, name) = queue_of_arn(source_arn).ok_or_else(|| format!("{source_arn:?} is no SQS queue ARN"))?;
        let sqs = self.sqs().await;
        let found = sqs.get_queue_url().queue_name(name).queue_owner_aws_account_id(account).send().await;
        let found = found.map_err(|e| format!("GetQueueUrl {name}: {}", DisplayErrorContext(&e)))?;
        let url = found.queue_url().ok_or_else(|| format!("GetQueueUrl {name} answered no URL"))?;
        let attributes = sqs.get_queue_attributes().queue_url(url).attribute_names(QueueAttributeName::RedrivePolicy).send().await;
        let attributes = attributes.map_err(|e| format!("GetQueueAttributes RedrivePolicy of {url}: {}", DisplayErrorContext(&e)))?;
        match attributes.attributes().and_then(|a| a.get(&QueueAttributeName::RedrivePolicy)).filter(|p| !p.is_empty()) {
            None => Ok(None),
            Some(policy) => Redrive::from_policy(url, policy).map(Some),
        }
    }

    async fn set_aside(&self, record: &SqsMessage, reason: &str) -> bool {
        let (Some(attempts), Some(source)) = (receive_count(record), record.event_source_arn.as_deref()) else { return false };
        let redrive = match self.redrive(source).await {
            Ok(Some(redrive)) if attempts >= redrive.max_receive_count => redrive,
            Ok(_) => return false,
            Err(why) => {
                tracing::warn!(error = %why, "the queue's dead-letter queue is unknown: SQS will dead-letter this work without its reason");
                return false;
            }
        };
        let attributes = reasons(record, reason, Utc::now())
            .into_iter()
            .map(|(name, data_type, value)| {
                let value =
                    MessageAttributeValue::builder().data_type(data_type).string_value(value).build().expect("an attribute has its type");
                (name.to_owned(), value)
            })
            .collect();
        let message_id = record.message_id.clone().unwrap_or_default();
        let fifo = redrive.dead_letter_url.ends_with(".fifo");
        let group = fifo.then(|| record.attributes.get("MessageGroupId").cloned().unwrap_or_else(|| message_id.clone()));
        let send = self
            .sqs()
            .await
            .send_message()
            .queue_url(&redrive.dead_letter_url)
            .message_body(record.body.as_deref().unwrap_or_default())
            .set_message_attributes(Some(attributes))
            .set_message_group_id(group)
            .set_message_deduplication_id(fifo.then(|| message_id.clone()));
        match send.send().await {
            Ok(sent) => {
                tracing::error!(%reason, attempts, dead_letter_queue = %redrive.dead_letter_url, dead_letter_id = sent.message_id(), "work dead-lettered");
                true
            }
            Err(e) => {
                tracing::warn!(%reason, attempts, error = %DisplayErrorContext(&e), "the dead letter could not be sent: SQS will dead-letter this work without its reason");
                false
            }
        }
    }
}

/// Sends `record`, whose work asked for a retry because of `reason`, to its queue's dead-letter
/// queue with the reason, if this was its last allowed receive (see the module docs). True when
/// it is there: the consumer then reports it done. False when it is to be redelivered (receives
/// remain, the queue has no dead-letter queue, or the send failed).
pub async fn set_aside(record: &SqsMessage, reason: &str) -> bool {
    DeadLetters::global().set_aside(record, reason).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn record(value: serde_json::Value) -> SqsMessage {
        serde_json::from_value(value).expect("an SQS record")
    }

    #[test]
    fn a_redrive_policy_names_the_dead_letter_queue_beside_its_source() {
        let url = "https://sqs.us-east-1.amazonaws.com/123456789012/agora-EvaluationQueue-AbC";
        let policy =
            r#"{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:agora-EvaluationDeadLetterQueue-XyZ","maxReceiveCount":3}"#;
        let want = Redrive {
            dead_letter_url: "https://sqs.us-east-1.amazonaws.com/123456789012/agora-EvaluationDeadLetterQueue-XyZ".into(),
            max_receive_count: 3,
        };
        assert_eq!(Redrive::from_policy(url, policy), Ok(want));
        let moto = Redrive::from_policy(
            "http://127.0.0.1:5055/123456789012/q",
            r#"{"deadLetterTargetArn": "arn:aws:sqs:us-east-1:123456789012:d.fifo", "maxReceiveCount": "5"}"#,
        );
        assert_eq!(moto, Ok(Redrive { dead_letter_url: "http://127.0.0.1:5055/123456789012/d.fifo".into(), max_receive_count: 5 }));
        for bad in ["", "{}", r#"{"deadLetterTargetArn":"x","maxReceiveCount":3}"#, r#"{"deadLetterTargetArn":"arn:aws:sqs:r:1:d"}"#] {
            assert!(Redrive::from_policy(url, bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_dead_letter_says_why_when_and_where_from() {
        let now = Utc.with_ymd_and_hms(2026, 10, 22, 10, 0, 5).unwrap();
        let failed = record(json!({
            "messageId": "m1", "body": "{}", "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:agora-EvaluationQueue",
            "attributes": {"ApproximateReceiveCount": "3", "ApproximateFirstReceiveTimestamp": "1792663200492"},
            "messageAttributes": {
                "agora_trace_id": {"stringValue": "5d2e", "dataType": "String"},
                "agora_last_error": {"stringValue": "hook down before", "dataType": "String"},
            },
        }));
        let got = reasons(&failed, "evaluation hook: 502", now);
        let want = [
            (LAST_ERROR, "String", "evaluation hook: 502"),
            (ATTEMPTS, "Number", "3"),
            (LAST_TRY, "String", "2026-10-22T10:00:05.000Z"),
            (FIRST_TRY, "String", "2026-10-22T10:00:00.492Z"),
            (SOURCE_QUEUE, "String", "arn:aws:sqs:us-east-1:123456789012:agora-EvaluationQueue"),
            (PREVIOUS_ERROR, "String", "hook down before"),
            (trace::ATTRIBUTE, "String", "5d2e"),
        ];
        assert_eq!(got, want.map(|(n, t, v)| (n, t, v.to_owned())));
        let long = "x".repeat(10 * MAX_REASON_BYTES);
        let bare = record(
            json!({"messageId": "m2", "messageAttributes": {"agora_trace_id": {"stringValue": "no spaces allowed", "dataType": "String"}}}),
        );
        let got = reasons(&bare, &long, now);
        assert!(got[0].2.len() <= MAX_REASON_BYTES + 3, "cut to a few KB");
        assert_eq!(got.iter().map(|a| a.0).collect::<Vec<_>>(), [LAST_ERROR, ATTEMPTS, LAST_TRY]);
    }

    #[test]
    fn queue_arns_are_read() {
        assert_eq!(queue_of_arn("arn:aws:sqs:us-east-1:123456789012:q.fifo"), Some(("123456789012", "q.fifo")));
        assert_eq!(queue_of_arn("arn:aws-cn:sqs:cn-north-1:1:q"), Some(("1", "q")));
        assert_eq!(queue_of_arn("arn:aws:sns:us-east-1:1:q"), None);
        assert_eq!(queue_of_arn("q"), None);
    }
}
