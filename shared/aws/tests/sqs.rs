//! The SQS work queue against moto: work sent, received as sent; FIFO deduplication by key.

mod common;

use agora_aws::SqsQueue;
use agora_ports::WorkQueue;
use std::collections::BTreeSet;
use std::time::Duration;

#[tokio::test]
async fn work_is_received_as_sent() {
    let sdk = common::sdk().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let (url, _) = common::create_queue(&sqs, &common::unique("agora-work")).await;
    let queue = SqsQueue::new(sqs.clone(), &url);
    let bodies = [r#"{"social_task_id":"task_00000001"}"#, r#"{"bid_job_id":"job_2"}"#, "plain text"];
    for (i, body) in bodies.iter().enumerate() {
        queue.send(&format!("key-{i}"), body, Duration::ZERO).await.expect("sent");
    }
    let got: BTreeSet<String> = common::receive(&sqs, &url, bodies.len(), Duration::from_secs(10)).await.into_iter().collect();
    assert_eq!(got, bodies.iter().map(|s| s.to_string()).collect());
}

/// The trace id of the work sending a message (a vote's, say) travels as its message attribute,
/// from `send` and from `send_batch`; work sent outside a trace carries none.
#[tokio::test]
async fn the_sender_s_trace_id_travels_as_a_message_attribute() {
    use agora_telemetry::trace;
    let sdk = common::sdk().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let (url, _) = common::create_queue(&sqs, &common::unique("agora-work")).await;
    let queue = SqsQueue::new(sqs.clone(), &url);
    trace::scope("trace-one", queue.send("a", "one", Duration::ZERO)).await.expect("sent");
    trace::scope("trace-two", queue.send_batch(&[("b".to_owned(), "two".to_owned())])).await.expect("sent");
    queue.send("c", "none", Duration::ZERO).await.expect("sent");
    let mut got = std::collections::BTreeMap::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while got.len() < 3 && std::time::Instant::now() < deadline {
        let out = sqs
            .receive_message()
            .queue_url(&url)
            .max_number_of_messages(10)
            .message_attribute_names("All")
            .wait_time_seconds(1)
            .send()
            .await
            .expect("receive");
        for m in out.messages() {
            let id = m.message_attributes().and_then(|a| a.get(trace::ATTRIBUTE)).and_then(|v| v.string_value()).map(str::to_owned);
            got.insert(m.body().unwrap_or_default().to_owned(), id);
        }
    }
    let want = [("none", None), ("one", Some("trace-one")), ("two", Some("trace-two"))];
    assert_eq!(got, want.iter().map(|(b, id)| (b.to_string(), id.map(str::to_owned))).collect());
}

#[tokio::test]
async fn delayed_work_is_sent_with_its_delay() {
    let sdk = common::sdk().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let (url, _) = common::create_queue(&sqs, &common::unique("agora-work")).await;
    let queue = SqsQueue::new(sqs.clone(), &url);
    queue.send("later", "later", Duration::from_millis(1500)).await.expect("sent");
    assert_eq!(common::receive(&sqs, &url, 1, Duration::from_secs(10)).await, ["later"]);
}

#[tokio::test]
async fn a_fifo_queue_gets_one_message_per_key() {
    let sdk = common::sdk().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let url = common::create_fifo_queue(&sqs, "agora-work").await;
    let queue = SqsQueue::new(sqs.clone(), &url);
    queue.send("task_0000000a", "a", Duration::ZERO).await.expect("sent");
    queue.send("task_0000000a", "a", Duration::ZERO).await.expect("sent again");
    queue.send("task_0000000b", "b", Duration::ZERO).await.expect("sent");
    let mut got = common::receive(&sqs, &url, 3, Duration::from_secs(3)).await;
    got.sort();
    assert_eq!(got, ["a", "b"]);
}

#[tokio::test]
async fn an_unknown_queue_is_an_error_naming_the_key() {
    let sdk = common::sdk().await;
    let endpoint = agora_aws::config::env_var(agora_aws::config::ENDPOINT_ENV).expect("endpoint");
    let url = format!("{endpoint}/123456789012/{}", common::unique("no-such-queue"));
    let queue = SqsQueue::new(aws_sdk_sqs::Client::new(&sdk), url);
    let err = queue.send("task_0000000c", "x", Duration::ZERO).await.expect_err("no queue");
    assert_eq!(err.key, "task_0000000c");
    assert!(err.reason.contains("no-such-queue"), "{err}");
}

fn batch(n: usize, body: impl Fn(usize) -> String) -> Vec<(String, String)> {
    (0..n).map(|i| (format!("task_{i:08}"), body(i))).collect()
}

#[tokio::test]
async fn a_batch_of_25_in_one_call_all_arrive_once() {
    let sdk = common::sdk().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let (url, _) = common::create_queue(&sqs, &common::unique("agora-work")).await;
    let queue = SqsQueue::new(sqs.clone(), &url);
    let items = batch(25, |i| format!(r#"{{"n":{i}}}"#));
    queue.send_batch(&items).await.expect("sent");
    let mut got = common::receive(&sqs, &url, 26, Duration::from_secs(4)).await;
    got.sort();
    let mut want: Vec<String> = items.iter().map(|(_, b)| b.clone()).collect();
    want.sort();
    assert_eq!(got, want, "each of the 25 exactly once");
}

#[tokio::test]
async fn a_batch_of_large_bodies_is_cut_under_256_kib_and_all_arrive() {
    let sdk = common::sdk().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let (url, _) = common::create_queue(&sqs, &common::unique("agora-work")).await;
    let queue = SqsQueue::new(sqs.clone(), &url);
    // 7 bodies of 100 KiB: no more than two per call.
    let items = batch(7, |i| format!("{i}:{}", "x".repeat(100 * 1024)));
    queue.send_batch(&items).await.expect("sent");
    let got: BTreeSet<String> = common::receive(&sqs, &url, 7, Duration::from_secs(10)).await.into_iter().collect();
    assert_eq!(got, items.iter().map(|(_, b)| b.clone()).collect());
}

#[tokio::test]
async fn a_fifo_batch_groups_and_deduplicates_by_key_as_send_does() {
    let sdk = common::sdk().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let url = common::create_fifo_queue(&sqs, "agora-work").await;
    let queue = SqsQueue::new(sqs.clone(), &url);
    // 25 keys, one sent before the batch: the batch's copy of it is deduplicated, as a second
    // `send` of it would be.
    queue.send("task_00000003", "3", Duration::ZERO).await.expect("sent");
    let items = batch(25, |i| i.to_string());
    queue.send_batch(&items).await.expect("sent");
    let got = common::receive(&sqs, &url, 26, Duration::from_secs(4)).await;
    let mut sorted: Vec<usize> = got.iter().map(|b| b.parse().expect("a number")).collect();
    sorted.sort();
    assert_eq!(sorted, (0..25).collect::<Vec<_>>(), "each key once: {got:?}");
}

#[tokio::test]
async fn a_batch_to_an_unknown_queue_is_an_error_naming_what_was_not_queued() {
    let sdk = common::sdk().await;
    let endpoint = agora_aws::config::env_var(agora_aws::config::ENDPOINT_ENV).expect("endpoint");
    let url = format!("{endpoint}/123456789012/{}", common::unique("no-such-queue"));
    let queue = SqsQueue::new(aws_sdk_sqs::Client::new(&sdk), url);
    let err = queue.send_batch(&batch(12, |i| i.to_string())).await.expect_err("no queue");
    assert_eq!(err.key, "task_00000000");
    assert!(err.reason.contains("12 of 12 items not queued") && err.reason.contains("no-such-queue"), "{err}");
    assert!(err.reason.contains("task_00000009") && err.reason.contains("task_00000011"), "names them all: {err}");
    assert!(queue.send_batch(&[]).await.is_ok(), "an empty batch sends nothing");
}
