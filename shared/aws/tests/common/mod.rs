//! What the AWS tests share: the SDK configuration for the moto server that `tests/run.sh`
//! starts, and unique names so tests can run in parallel against one server.

#![allow(dead_code)]

use aws_config::SdkConfig;

/// The SDK configuration for the moto server at `AGORA_AWS_ENDPOINT`. Fails the test, saying
/// how to get one, when the environment does not name it.
pub async fn sdk() -> SdkConfig {
    for var in [agora_aws::config::ENDPOINT_ENV, "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
        assert!(
            agora_aws::config::env_var(var).is_some(),
            "{var} is not set: these tests need the moto server; run ./tests/run.sh, which starts it and exports \
             AGORA_AWS_ENDPOINT, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION"
        );
    }
    agora_aws::config::load().await
}

/// `prefix-<random hex>`: a name no other test uses.
pub fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4().simple())
}

/// Creates an SQS queue named `name` and returns its URL and ARN.
pub async fn create_queue(sqs: &aws_sdk_sqs::Client, name: &str) -> (String, String) {
    let url = sqs.create_queue().queue_name(name).send().await.expect("create queue").queue_url.expect("queue url");
    let arn = queue_arn(sqs, &url).await;
    (url, arn)
}

/// A new FIFO queue (its name ends `.fifo`); returns its URL.
pub async fn create_fifo_queue(sqs: &aws_sdk_sqs::Client, prefix: &str) -> String {
    let name = format!("{}.fifo", unique(prefix));
    let created = sqs.create_queue().queue_name(&name).attributes(aws_sdk_sqs::types::QueueAttributeName::FifoQueue, "true").send().await;
    created.expect("create FIFO queue").queue_url.expect("url")
}

/// The ARN of the queue at `url`.
pub async fn queue_arn(sqs: &aws_sdk_sqs::Client, url: &str) -> String {
    use aws_sdk_sqs::types::QueueAttributeName;
    let attrs = sqs.get_queue_attributes().queue_url(url).attribute_names(QueueAttributeName::QueueArn).send().await.expect("attributes");
    attrs.attributes().and_then(|a| a.get(&QueueAttributeName::QueueArn)).cloned().expect("queue ARN")
}

/// Receives messages from `url` until `want` bodies are read or `timeout` passes; deletes them.
pub async fn receive(sqs: &aws_sdk_sqs::Client, url: &str, want: usize, timeout: std::time::Duration) -> Vec<String> {
    let deadline = std::time::Instant::now() + timeout;
    let mut bodies = Vec::new();
    while bodies.len() < want && std::time::Instant::now() < deadline {
        let out = sqs.receive_message().queue_url(url).max_number_of_messages(10).wait_time_seconds(1).send().await.expect("receive");
        for m in out.messages() {
            bodies.push(m.body().expect("body").to_owned());
            if let Some(handle) = m.receipt_handle() {
                sqs.delete_message().queue_url(url).receipt_handle(handle).send().await.expect("delete");
            }
        }
    }
    bodies
}
