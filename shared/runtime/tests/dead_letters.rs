//! The SQS consumer's dead letters against moto (the server at `AGORA_AWS_ENDPOINT`, which
//! `tests/run.sh` starts): a record whose work asks for a retry on its last receive is sent to the
//! source queue's dead-letter queue with its reason, attempts, first and last try, source queue and
//! trace id, and answered done (so the event source deletes it); before its last receive, or on a
//! queue without a dead-letter queue, it is redelivered as before.
//!
//! The events are what the Lambda event source makes of a real `ReceiveMessage` of the queue (all
//! attributes, so `ApproximateReceiveCount` is SQS's own), and the test deletes what the answer
//! says is done, as the event source does.

#![cfg(feature = "lambda")]

use agora_ports::{WorkHandler, WorkOutcome};
use agora_runtime::dead_letters;
use agora_runtime::lambda::handle_batch;
use agora_telemetry::{names, trace};
use aws_lambda_events::event::sqs::{SqsBatchResponse, SqsEvent};
use aws_sdk_sqs::types::{MessageAttributeValue, MessageSystemAttributeName, QueueAttributeName};
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use serde_json::json;
use std::collections::HashMap;
use std::future::Future;
use std::sync::OnceLock;

/// One runtime for every test: the consumer's SQS client is made once per process, and its
/// connections belong to the runtime it was made on.
fn run<F: Future>(work: F) -> F::Output {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| tokio::runtime::Runtime::new().expect("a runtime")).block_on(work)
}

/// `work` run under a recorder of its own; what it answered and the `agora_work_items` counter
/// of `queue` with outcome `outcome`.
fn counted<T>(queue: &str, outcome: &str, work: impl Future<Output = T>) -> (T, u64) {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let answer = metrics::with_local_recorder(&recorder, || run(work));
    let count = snapshotter.snapshot().into_vec().into_iter().find_map(|(key, _, _, value)| {
        let labels: Vec<(String, String)> = key.key().labels().map(|l| (l.key().to_owned(), l.value().to_owned())).collect();
        let wanted = [("queue".to_owned(), queue.to_owned()), ("outcome".to_owned(), outcome.to_owned())];
        match value {
            DebugValue::Counter(n) if key.key().name() == names::WORK_ITEMS && labels == wanted => Some(n),
            _ => None,
        }
    });
    (answer, count.unwrap_or(0))
}

async fn sqs() -> aws_sdk_sqs::Client {
    for var in [agora_aws::config::ENDPOINT_ENV, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
        assert!(
            agora_aws::config::env_var(var).is_some(),
            "{var} is not set: these tests need the moto server; run ./tests/run.sh, which starts it and exports \
             AGORA_AWS_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION"
        );
    }
    aws_sdk_sqs::Client::new(&agora_aws::config::load().await)
}

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4().simple())
}

/// Work that always fails: its hook is down.
struct HookDown;

#[async_trait::async_trait]
impl WorkHandler for HookDown {
    async fn handle(&self, _body: &str) -> WorkOutcome {
        WorkOutcome::Retry("hook down".into())
    }
}

struct Queue {
    url: String,
    arn: String,
}

async fn create(sqs: &aws_sdk_sqs::Client, name: &str, attributes: &[(QueueAttributeName, String)]) -> Queue {
    let mut create = sqs.create_queue().queue_name(name);
    for (k, v) in attributes {
        create = create.attributes(k.clone(), v);
    }
    let url = create.send().await.expect("create queue").queue_url.expect("url");
    let got = sqs.get_queue_attributes().queue_url(&url).attribute_names(QueueAttributeName::QueueArn).send().await.expect("attributes");
    let arn = got.attributes().and_then(|a| a.get(&QueueAttributeName::QueueArn)).cloned().expect("ARN");
    Queue { url, arn }
}

/// A queue that dead-letters after `max_receives` into a new dead-letter queue (both FIFO when
/// `fifo`): (source, dead-letter queue).
async fn with_dead_letters(sqs: &aws_sdk_sqs::Client, max_receives: u32, fifo: bool) -> (Queue, Queue) {
    let (suffix, fifo_attributes) = if fifo { (".fifo", vec![(QueueAttributeName::FifoQueue, "true".to_owned())]) } else { ("", vec![]) };
    let dlq = create(sqs, &format!("{}{suffix}", unique("agora-dl")), &fifo_attributes).await;
    let policy = json!({"deadLetterTargetArn": dlq.arn, "maxReceiveCount": max_receives}).to_string();
    let mut attributes = fifo_attributes;
    attributes.push((QueueAttributeName::RedrivePolicy, policy));
    let source = create(sqs, &format!("{}{suffix}", unique("agora-work")), &attributes).await;
    (source, dlq)
}

fn string(value: &str) -> MessageAttributeValue {
    MessageAttributeValue::builder().data_type("String").string_value(value).build().expect("an attribute")
}

/// One `ReceiveMessage` of `queue` (visible again at once) as the Lambda event source delivers it.
async fn receive_event(sqs: &aws_sdk_sqs::Client, queue: &Queue) -> SqsEvent {
    let out = sqs
        .receive_message()
        .queue_url(&queue.url)
        .max_number_of_messages(10)
        .visibility_timeout(0)
        .wait_time_seconds(1)
        .message_system_attribute_names(MessageSystemAttributeName::All)
        .message_attribute_names("All")
        .send()
        .await
        .expect("receive");
    let records: Vec<_> = out
        .messages()
        .iter()
        .map(|m| {
            let attributes: HashMap<&str, &str> = m.attributes().into_iter().flatten().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let message_attributes: HashMap<&str, serde_json::Value> = m
                .message_attributes()
                .into_iter()
                .flatten()
                .map(|(k, v)| (k.as_str(), json!({"stringValue": v.string_value(), "dataType": v.data_type()})))
                .collect();
            json!({"messageId": m.message_id(), "receiptHandle": m.receipt_handle(), "body": m.body(), "attributes": attributes,
                   "messageAttributes": message_attributes, "eventSource": "aws:sqs", "eventSourceARN": queue.arn, "awsRegion": "us-east-1"})
        })
        .collect();
    serde_json::from_value(json!({ "Records": records })).expect("an SQS event")
}

/// What the event source does with the answer: deletes every record not listed as failed.
async fn delete_done(sqs: &aws_sdk_sqs::Client, queue: &Queue, event: &SqsEvent, answer: &SqsBatchResponse) {
    let failed: Vec<&str> = answer.batch_item_failures.iter().map(|f| f.item_identifier.as_str()).collect();
    for record in &event.records {
        if !failed.contains(&record.message_id.as_deref().unwrap_or_default()) {
            sqs.delete_message()
                .queue_url(&queue.url)
                .receipt_handle(record.receipt_handle.clone().unwrap_or_default())
                .send()
                .await
                .expect("delete");
        }
    }
}

fn failed_ids(answer: &SqsBatchResponse) -> Vec<String> {
    answer.batch_item_failures.iter().map(|f| f.item_identifier.clone()).collect()
}

/// Every message on `queue` now (left there, visible again at once).
async fn peek(sqs: &aws_sdk_sqs::Client, queue: &Queue) -> Vec<aws_sdk_sqs::types::Message> {
    let out = sqs
        .receive_message()
        .queue_url(&queue.url)
        .max_number_of_messages(10)
        .visibility_timeout(0)
        .message_system_attribute_names(MessageSystemAttributeName::All)
        .message_attribute_names("All")
        .send()
        .await
        .expect("receive");
    out.messages.unwrap_or_default()
}

fn attribute<'a>(message: &'a aws_sdk_sqs::types::Message, name: &str) -> Option<&'a str> {
    message.message_attributes().and_then(|a| a.get(name)).and_then(|v| v.string_value())
}

#[test]
fn work_failing_its_last_receive_is_dead_lettered_with_its_reason() {
    let sqs = run(sqs());
    let (source, dlq) = run(with_dead_letters(&sqs, 2, false));
    let queue_name = source.arn.rsplit(':').next().unwrap().to_owned();
    let sent = run(sqs
        .send_message()
        .queue_url(&source.url)
        .message_body(r#"{"social_task_id":"task_1"}"#)
        .message_attributes(trace::ATTRIBUTE, string("trace-dl-1"))
        .send());
    let id = sent.expect("sent").message_id.expect("an id");

    // The first receive of two: redelivered, as before.
    let event = run(receive_event(&sqs, &source));
    assert_eq!(event.records.len(), 1);
    let (answer, retried) = counted(&queue_name, "retried", handle_batch(&HookDown, event.clone()));
    assert_eq!(failed_ids(&answer), vec![id]);
    assert_eq!(retried, 1);
    run(delete_done(&sqs, &source, &event, &answer));
    assert!(run(peek(&sqs, &dlq)).is_empty(), "dead-lettered before its last receive");

    // The last: on the dead-letter queue with its reasons, and done.
    let event = run(receive_event(&sqs, &source));
    assert_eq!(event.records[0].attributes.get("ApproximateReceiveCount").map(String::as_str), Some("2"));
    let (answer, dead_lettered) = counted(&queue_name, "dead_lettered", handle_batch(&HookDown, event.clone()));
    assert_eq!(failed_ids(&answer), Vec::<String>::new(), "answered done");
    assert_eq!(dead_lettered, 1);
    run(delete_done(&sqs, &source, &event, &answer));

    let dead = run(peek(&sqs, &dlq));
    assert_eq!(dead.len(), 1, "one dead letter");
    let letter = &dead[0];
    assert_eq!(letter.body(), Some(r#"{"social_task_id":"task_1"}"#));
    assert_eq!(attribute(letter, dead_letters::LAST_ERROR), Some("hook down"));
    assert_eq!(attribute(letter, dead_letters::ATTEMPTS), Some("2"));
    assert_eq!(letter.message_attributes().unwrap()[dead_letters::ATTEMPTS].data_type(), "Number");
    assert_eq!(attribute(letter, dead_letters::SOURCE_QUEUE), Some(source.arn.as_str()));
    assert_eq!(attribute(letter, trace::ATTRIBUTE), Some("trace-dl-1"));
    let first = chrono::DateTime::parse_from_rfc3339(attribute(letter, dead_letters::FIRST_TRY).expect("first try")).expect("RFC 3339");
    let last = chrono::DateTime::parse_from_rfc3339(attribute(letter, dead_letters::LAST_TRY).expect("last try")).expect("RFC 3339");
    assert!(first <= last, "first try {first} after last {last}");
    assert!(attribute(letter, dead_letters::LAST_TRY).unwrap().ends_with('Z'), "UTC");
    assert!((chrono::Utc::now() - last.to_utc()).num_seconds().abs() < 60, "the last try is now");

    // Gone from the source: SQS will not dead-letter it a second time.
    assert!(run(peek(&sqs, &source)).is_empty(), "still on the source queue");
    let counts =
        run(sqs.get_queue_attributes().queue_url(&source.url).attribute_names(QueueAttributeName::All).send()).expect("attributes");
    for count in [QueueAttributeName::ApproximateNumberOfMessages, QueueAttributeName::ApproximateNumberOfMessagesNotVisible] {
        assert_eq!(counts.attributes().and_then(|a| a.get(&count)).map(String::as_str), Some("0"), "{count:?}");
    }
}

#[test]
fn a_fifo_dead_letter_keeps_its_message_group() {
    let sqs = run(sqs());
    let (source, dlq) = run(with_dead_letters(&sqs, 1, true));
    let send =
        sqs.send_message().queue_url(&source.url).message_body("fifo work").message_group_id("task_7").message_deduplication_id("d-7");
    run(send.send()).expect("sent");

    let event = run(receive_event(&sqs, &source));
    let answer = run(handle_batch(&HookDown, event.clone()));
    assert_eq!(failed_ids(&answer), Vec::<String>::new(), "dead-lettered on its one receive");
    run(delete_done(&sqs, &source, &event, &answer));

    let dead = run(peek(&sqs, &dlq));
    assert_eq!(dead.len(), 1);
    assert_eq!(dead[0].body(), Some("fifo work"));
    assert_eq!(dead[0].attributes().and_then(|a| a.get(&MessageSystemAttributeName::MessageGroupId)).map(String::as_str), Some("task_7"));
    assert_eq!(attribute(&dead[0], dead_letters::LAST_ERROR), Some("hook down"));
    assert_eq!(attribute(&dead[0], dead_letters::ATTEMPTS), Some("1"));
}

#[test]
fn without_a_dead_letter_queue_work_is_redelivered_as_before() {
    let sqs = run(sqs());
    let plain = run(create(&sqs, &unique("agora-plain"), &[]));
    run(sqs.send_message().queue_url(&plain.url).message_body("again and again").send()).expect("sent");
    for receive in 1..=3 {
        let event = run(receive_event(&sqs, &plain));
        assert_eq!(event.records.len(), 1, "receive {receive}");
        let answer = run(handle_batch(&HookDown, event));
        assert_eq!(failed_ids(&answer).len(), 1, "receive {receive}: redelivered");
    }
    // A queue that is gone (its redrive cannot be looked up): redelivered, for SQS to dead-letter.
    let mut event = run(receive_event(&sqs, &plain));
    event.records[0].event_source_arn = Some(format!("arn:aws:sqs:us-east-1:123456789012:{}", unique("agora-gone")));
    event.records[0].attributes.insert("ApproximateReceiveCount".into(), "99".into());
    assert_eq!(failed_ids(&run(handle_batch(&HookDown, event))).len(), 1);
}
