//! The work queue on Amazon SQS: each piece of work is one message whose body is the work's body;
//! the consumer Lambda answers per record (see `agora_runtime::lambda::serve_sqs`).
//!
//! [`WorkQueue::send_batch`] sends `SendMessageBatch` calls of at most [`MAX_BATCH_ENTRIES`]
//! messages and [`MAX_BATCH_BYTES`] of bodies, each message as `send` would make it. Entries SQS
//! fails on its side (`SenderFault: false`) are sent again, up to [`BATCH_ATTEMPTS`] times; what
//! is still not queued then (or was refused as the sender's fault) is an error naming every such
//! item: nothing is dropped unsaid.

use crate::config::{env_var, required_env, truncate, ConfigError};
use agora_ports::{QueueError, WorkQueue};
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_sqs::error::DisplayErrorContext;
use aws_sdk_sqs::types::{BatchResultErrorEntry, MessageAttributeValue, SendMessageBatchRequestEntry};
use std::collections::{HashMap, HashSet};
use std::time::Duration;

/// SQS's longest message delay.
pub const MAX_DELAY: Duration = Duration::from_secs(900);

/// Most messages one `SendMessageBatch` takes (an SQS limit).
pub const MAX_BATCH_ENTRIES: usize = 10;

/// Most bytes of message bodies one `SendMessageBatch` takes (an SQS limit on the whole batch's
/// payload: 256 KiB). A body larger than this is sent in a batch of its own, and SQS refuses it
/// as `send` would.
pub const MAX_BATCH_BYTES: usize = 256 * 1024;

/// How many times a batch entry that SQS failed on its side is tried in all.
pub const BATCH_ATTEMPTS: u32 = 3;

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

    /// How the message for `key`, due after `delay`, is sent: on a FIFO queue the key is both
    /// its group and its deduplication id (and it takes no delay), else it carries the delay.
    /// Either way it carries the trace id of the work sending it, as the message attribute
    /// [`agora_telemetry::trace::ATTRIBUTE`]. One rule for `send` and for each entry of
    /// `send_batch`.
    fn message(&self, key: &str, delay: Duration) -> Message {
        let attributes = agora_telemetry::trace::current().map(|id| {
            let value =
                MessageAttributeValue::builder().data_type("String").string_value(id).build().expect("a string attribute has its type");
            HashMap::from([(agora_telemetry::trace::ATTRIBUTE.to_owned(), value)])
        });
        if self.is_fifo() {
            Message { fifo_id: Some(key.to_owned()), delay_seconds: None, attributes }
        } else {
            Message { fifo_id: None, delay_seconds: (!delay.is_zero()).then(|| sqs_delay_seconds(delay)), attributes }
        }
    }

    /// The batch entry `id` for the work `key` with `body`, due now.
    fn entry(&self, id: usize, key: &str, body: &str) -> SendMessageBatchRequestEntry {
        let message = self.message(key, Duration::ZERO);
        SendMessageBatchRequestEntry::builder()
            .id(id.to_string())
            .message_body(body)
            .set_message_group_id(message.fifo_id.clone())
            .set_message_deduplication_id(message.fifo_id)
            .set_delay_seconds(message.delay_seconds)
            .set_message_attributes(message.attributes)
            .build()
            .expect("an entry has its id and body")
    }
}

#[async_trait]
impl crate::warm::Warm for SqsQueue {
    fn target(&self) -> String {
        format!("sqs {}", self.queue_url)
    }

    /// `GetQueueAttributes` of the queue's ARN alone: a read of the queue the function sends to.
    async fn warm(&self) -> Result<(), String> {
        self.client
            .get_queue_attributes()
            .queue_url(&self.queue_url)
            .attribute_names(aws_sdk_sqs::types::QueueAttributeName::QueueArn)
            .send()
            .await
            .map(drop)
            .map_err(|e| truncate(&format!("GetQueueAttributes: {}", DisplayErrorContext(&e)), 500))
    }
}

/// The attributes of one message besides its body.
struct Message {
    /// FIFO queues: the message group and deduplication id.
    fifo_id: Option<String>,
    /// Standard queues: the delay, when there is one.
    delay_seconds: Option<i32>,
    /// The trace id, when the work sending it has one.
    attributes: Option<HashMap<String, MessageAttributeValue>>,
}

/// `items` cut into runs of consecutive items, one `SendMessageBatch` each: at most
/// [`MAX_BATCH_ENTRIES`] items and [`MAX_BATCH_BYTES`] of bodies (a larger body alone).
pub fn batches(items: &[(String, String)]) -> Vec<std::ops::Range<usize>> {
    agora_ports::chunks(items, MAX_BATCH_ENTRIES, MAX_BATCH_BYTES)
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
        let message = self.message(key, delay);
        let send = self
            .client
            .send_message()
            .queue_url(&self.queue_url)
            .message_body(body)
            .set_message_group_id(message.fifo_id.clone())
            .set_message_deduplication_id(message.fifo_id)
            .set_delay_seconds(message.delay_seconds)
            .set_message_attributes(message.attributes);
        let out = send.send().await.map_err(|e| QueueError {
            key: key.to_owned(),
            reason: truncate(&format!("SendMessage to {} failed: {}", self.queue_url, DisplayErrorContext(&e)), 2000),
        })?;
        tracing::debug!(key, queue = %self.queue_url, message_id = out.message_id(), "work sent");
        Ok(())
    }

    /// `SendMessageBatch` calls of at most ten messages and 256 KiB (see the module docs), each
    /// message as `send` makes it (on a FIFO queue: the key as group and deduplication id).
    /// Entries failed on SQS's side are sent again; a call that fails as a whole stops the
    /// batch. The error names every item not queued, and how many were.
    async fn send_batch(&self, items: &[(String, String)]) -> Result<(), QueueError> {
        let mut failed: Vec<(usize, String)> = Vec::new();
        let mut unsent_from = None;
        'batches: for range in batches(items) {
            let mut pending: Vec<usize> = range.clone().collect();
            for attempt in 1..=BATCH_ATTEMPTS {
                let entries = pending.iter().map(|&i| self.entry(i, &items[i].0, &items[i].1)).collect();
                let out = match self.client.send_message_batch().queue_url(&self.queue_url).set_entries(Some(entries)).send().await {
                    Ok(out) => out,
                    Err(e) => {
                        let why = format!("SendMessageBatch failed: {}", DisplayErrorContext(&e));
                        failed.extend(pending.iter().map(|&i| (i, why.clone())));
                        unsent_from = Some(range.end);
                        break 'batches;
                    }
                };
                let sent: HashSet<&str> = out.successful().iter().map(|ok| ok.id()).collect();
                let refused: HashMap<&str, &BatchResultErrorEntry> = out.failed().iter().map(|f| (f.id(), f)).collect();
                let mut again = Vec::new();
                for i in pending {
                    let id = i.to_string();
                    if sent.contains(id.as_str()) {
                        continue;
                    }
                    match refused.get(id.as_str()) {
                        Some(f) if !f.sender_fault() && attempt < BATCH_ATTEMPTS => again.push(i),
                        Some(f) => failed.push((i, format!("{}: {}", f.code(), f.message().unwrap_or("no message")))),
                        None => failed.push((i, "SQS answered neither success nor failure for it".to_owned())),
                    }
                }
                if again.is_empty() {
                    break;
                }
                tracing::info!(queue = %self.queue_url, entries = again.len(), attempt, "batch entries failed on SQS's side; sending them again");
                tokio::time::sleep(Duration::from_millis(100 << attempt)).await;
                pending = again;
            }
        }
        if failed.is_empty() {
            tracing::debug!(queue = %self.queue_url, items = items.len(), "work sent in batches");
            return Ok(());
        }
        failed.sort_by_key(|(i, _)| *i);
        Err(self.batch_error(items, &failed, unsent_from))
    }
}

impl SqsQueue {
    /// The error of a batch in which the items `failed` (by index, with why) were not queued, nor
    /// any from `unsent_from` on.
    fn batch_error(&self, items: &[(String, String)], failed: &[(usize, String)], unsent_from: Option<usize>) -> QueueError {
        let unsent = unsent_from.map_or(0, |from| items.len() - from);
        // By reason, in the order first met: a failed call's reason once, with all its items.
        let mut by_reason: Vec<(&str, Vec<String>)> = Vec::new();
        for (i, why) in failed {
            let item = format!("#{} {}", i + 1, items[*i].0);
            match by_reason.iter_mut().find(|(w, _)| *w == why.as_str()) {
                Some((_, named)) => named.push(item),
                None => by_reason.push((why, vec![item])),
            }
        }
        let named: Vec<String> =
            by_reason.into_iter().map(|(why, named)| format!("{} ({})", named.join(", "), truncate(why, 600))).collect();
        let mut reason =
            format!("{} of {} items not queued on {}: {}", failed.len() + unsent, items.len(), self.queue_url, named.join("; "));
        if let Some(from) = unsent_from.filter(|_| unsent > 0) {
            let keys: Vec<&str> = items[from..].iter().map(|(k, _)| k.as_str()).collect();
            reason.push_str(&format!("; not sent after that failure: #{} to #{} ({})", from + 1, items.len(), keys.join(", ")));
        }
        reason.push_str("; every other item was queued");
        QueueError { key: items[failed[0].0].0.clone(), reason: truncate(&reason, 4000) }
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

    /// An SQS endpoint on loopback (a thread, one request per connection) that answers each
    /// `SendMessageBatch` with `answer(call number, entry ids)`: the ids that succeed, and the
    /// `(id, sender fault)` that fail. Keeps the ids of every call.
    fn fake_sqs(
        answer: impl Fn(usize, &[String]) -> (Vec<String>, Vec<(String, bool)>) + Send + 'static,
    ) -> (String, std::sync::Arc<std::sync::Mutex<Vec<Vec<String>>>>) {
        use std::io::{Read, Write};
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let calls = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = calls.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { return };
                let mut bytes = Vec::new();
                let mut buf = [0u8; 8192];
                let body_at = loop {
                    let n = stream.read(&mut buf).unwrap_or(0);
                    if n == 0 {
                        break None;
                    }
                    bytes.extend_from_slice(&buf[..n]);
                    if let Some(at) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
                        break Some(at + 4);
                    }
                };
                let Some(body_at) = body_at else { continue };
                let head = String::from_utf8_lossy(&bytes[..body_at]).to_ascii_lowercase();
                let length: usize =
                    head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
                while bytes.len() < body_at + length {
                    let n = stream.read(&mut buf).unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    bytes.extend_from_slice(&buf[..n]);
                }
                let request: serde_json::Value = serde_json::from_slice(&bytes[body_at..]).unwrap_or_default();
                let ids: Vec<String> =
                    request["Entries"].as_array().into_iter().flatten().map(|e| e["Id"].as_str().unwrap_or_default().to_owned()).collect();
                let call = {
                    let mut calls = seen.lock().unwrap();
                    calls.push(ids.clone());
                    calls.len()
                };
                let (ok, failed) = answer(call, &ids);
                let reply = serde_json::json!({
                    "Successful": ok.iter().map(|id| serde_json::json!({"Id": id, "MessageId": format!("m-{id}"), "MD5OfMessageBody": "0"})).collect::<Vec<_>>(),
                    "Failed": failed.iter().map(|(id, sender)| serde_json::json!({"Id": id, "SenderFault": sender, "Code": if *sender { "InvalidMessageContents" } else { "InternalError" }, "Message": "refused here"})).collect::<Vec<_>>(),
                })
                .to_string();
                let response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/x-amz-json-1.0\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                );
                let _ = stream.write_all(response.as_bytes());
            }
        });
        (url, calls)
    }

    async fn queue_at(url: &str) -> SqsQueue {
        let sdk = crate::config::load_with_endpoint(Some(url)).await;
        SqsQueue::new(aws_sdk_sqs::Client::new(&sdk), format!("{url}/123456789012/work"))
    }

    #[tokio::test]
    async fn entries_failed_on_sqs_side_are_sent_again_and_the_rest_named_never_dropped() {
        // Call 1: "1" fails on SQS's side, "3" is the sender's fault, "4" gets no answer at all;
        // later calls: every entry succeeds.
        let (url, calls) = fake_sqs(|call, ids| match call {
            1 => (
                ids.iter().filter(|id| ["0", "2"].contains(&id.as_str())).cloned().collect(),
                vec![("1".into(), false), ("3".into(), true)],
            ),
            _ => (ids.to_vec(), Vec::new()),
        });
        let queue = queue_at(&url).await;
        let items: Vec<(String, String)> = (0..5).map(|i| (format!("key-{i}"), format!("body {i}"))).collect();
        let e = queue.send_batch(&items).await.unwrap_err();
        assert_eq!(calls.lock().unwrap().clone(), [vec!["0", "1", "2", "3", "4"], vec!["1"]], "only the entry failed on SQS's side again");
        assert_eq!(e.key, "key-3");
        assert!(e.reason.starts_with("2 of 5 items not queued"), "{e}");
        assert!(e.reason.contains("#4 key-3 (InvalidMessageContents: refused here)"), "{e}");
        assert!(e.reason.contains("#5 key-4 (SQS answered neither success nor failure for it)"), "{e}");
        assert!(!e.reason.contains("key-1") && !e.reason.contains("key-0"), "{e}");
    }

    #[tokio::test]
    async fn an_entry_sqs_keeps_failing_is_named_after_the_last_attempt() {
        let (url, calls) = fake_sqs(|_, ids| (ids.iter().filter(|id| *id != "12").cloned().collect(), vec![("12".into(), false)]));
        let queue = queue_at(&url).await;
        let items: Vec<(String, String)> = (0..15).map(|i| (format!("key-{i}"), format!("body {i}"))).collect();
        let e = queue.send_batch(&items).await.unwrap_err();
        let calls = calls.lock().unwrap().clone();
        assert_eq!(calls.len(), 1 + BATCH_ATTEMPTS as usize, "{calls:?}");
        assert_eq!(calls[0].len(), 10);
        assert!(calls[2..].iter().all(|c| c == &["12"]), "{calls:?}");
        assert_eq!(e.key, "key-12");
        assert!(e.reason.starts_with("1 of 15 items not queued") && e.reason.contains("#13 key-12 (InternalError: refused here)"), "{e}");
        // And all at once succeeding is Ok.
        let (url, calls) = fake_sqs(|_, ids| (ids.to_vec(), Vec::new()));
        queue_at(&url).await.send_batch(&items).await.unwrap();
        assert_eq!(calls.lock().unwrap().iter().map(Vec::len).collect::<Vec<_>>(), [10, 5]);
    }

    fn items(sizes: &[usize]) -> Vec<(String, String)> {
        sizes.iter().enumerate().map(|(i, n)| (format!("k{i}"), "x".repeat(*n))).collect()
    }

    #[test]
    fn batches_hold_ten_messages_and_256_kib_at_most() {
        assert!(batches(&[]).is_empty());
        assert_eq!(batches(&items(&[1; 25])), [0..10, 10..20, 20..25]);
        // 100 KiB each: two fit, a third would pass 256 KiB.
        assert_eq!(batches(&items(&[100 * 1024; 5])), [0..2, 2..4, 4..5]);
        // Exactly the limit fits; one byte more starts a new batch.
        assert_eq!(batches(&items(&[128 * 1024, 128 * 1024, 1])), [0..2, 2..3]);
        // A body over the limit goes alone (SQS refuses it, naming it).
        assert_eq!(batches(&items(&[10, MAX_BATCH_BYTES + 1, 10])), [0..1, 1..2, 2..3]);
    }
}
