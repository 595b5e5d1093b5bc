//! The SQS evaluation queue against moto: requests sent, received and parsed back.

mod common;

use agora_aws::{parse_evaluation_message, SqsEvaluationQueue};
use agora_voting_core::EvaluationQueue;
use std::collections::BTreeSet;
use std::time::Duration;

#[tokio::test]
async fn requests_are_received_and_parsed_back() {
    let sdk = common::sdk().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let (url, _) = common::create_queue(&sqs, &common::unique("agora-eval")).await;
    let queue = SqsEvaluationQueue::new(sqs.clone(), &url);
    let ids = ["task_00000001", "task_00000002", "task_00000003"];
    for id in ids {
        queue.request_evaluation(id).await.expect("sent");
    }
    let bodies = common::receive(&sqs, &url, ids.len(), Duration::from_secs(10)).await;
    for body in &bodies {
        let v: serde_json::Value = serde_json::from_str(body).expect("JSON body");
        assert_eq!(v.as_object().map(|o| o.len()), Some(1), "{body}");
    }
    let got: BTreeSet<String> = bodies.iter().map(|b| parse_evaluation_message(b).expect("parses")).collect();
    assert_eq!(got, ids.iter().map(|s| s.to_string()).collect());
}

#[tokio::test]
async fn a_fifo_queue_gets_one_message_per_task() {
    let sdk = common::sdk().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let name = format!("{}.fifo", common::unique("agora-eval"));
    let url = sqs
        .create_queue()
        .queue_name(&name)
        .attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true")
        .send()
        .await
        .expect("create FIFO queue")
        .queue_url
        .expect("url");
    let queue = SqsEvaluationQueue::new(sqs.clone(), &url);
    queue.request_evaluation("task_0000000a").await.expect("sent");
    queue.request_evaluation("task_0000000a").await.expect("sent again");
    queue.request_evaluation("task_0000000b").await.expect("sent");
    let mut got: Vec<String> =
        common::receive(&sqs, &url, 3, Duration::from_secs(3)).await.iter().map(|b| parse_evaluation_message(b).expect("parses")).collect();
    got.sort();
    assert_eq!(got, ["task_0000000a", "task_0000000b"]);
}

#[tokio::test]
async fn an_unknown_queue_is_an_error_naming_the_task() {
    let sdk = common::sdk().await;
    let endpoint = agora_aws::config::env_var(agora_aws::config::ENDPOINT_ENV).expect("endpoint");
    let url = format!("{endpoint}/123456789012/{}", common::unique("no-such-queue"));
    let queue = SqsEvaluationQueue::new(aws_sdk_sqs::Client::new(&sdk), url);
    let err = queue.request_evaluation("task_0000000c").await.expect_err("no queue");
    assert_eq!(err.social_task_id, "task_0000000c");
    assert!(err.reason.contains("no-such-queue"), "{err}");
}
