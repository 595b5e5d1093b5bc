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
    let name = format!("{}.fifo", common::unique("agora-work"));
    let url = sqs
        .create_queue()
        .queue_name(&name)
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .expect("create FIFO queue")
        .queue_url
        .expect("url");
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
