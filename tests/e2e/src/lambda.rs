//! The Lambda front doors driven in process, for the functions' AWS-shape tests: an HTTP
//! function's router called with an API Gateway event, an SQS queue on moto read as the event
//! source reads it, and a batch handed to a consumer with every message twice (SQS delivers at
//! least once).

use agora_ports::WorkHandler;
pub use aws_lambda_events::event::sqs::SqsEvent;
use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, Context, LambdaEvent, Service};
use serde_json::{json, Value};

/// The environment variable `name`, which the servers `./tests/run.sh` starts set.
pub fn required_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run ./tests/run.sh, which starts the servers this test needs"))
}

/// Calls `router` (an HTTP function's) with an API Gateway HTTP API event; the status and the
/// JSON body of its answer.
pub async fn call(router: &axum::Router, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    invoke(router, agora_startup_bench::apigw(method, path, body.map(|b| b.to_string()).as_deref())).await
}

/// Calls `router` as [`call`] does, as API Gateway's JWT authorizer passes a request on: with
/// `claims` (an object of strings, as API Gateway gives a verified token's claims, e.g.
/// `{"sub": "agent-1", "scope": "agora:admin"}`) in the request context's `authorizer.jwt`.
/// `None`: a request context without an authorizer (a route left unguarded).
pub async fn call_as(router: &axum::Router, method: &str, path: &str, body: Option<Value>, claims: Option<Value>) -> (u16, Value) {
    let mut event = agora_startup_bench::apigw(method, path, body.map(|b| b.to_string()).as_deref());
    if let Some(claims) = claims {
        event["requestContext"]["authorizer"] = json!({ "jwt": { "claims": claims } });
    }
    invoke(router, event).await
}

/// The status and the JSON body (`null` when not JSON) of `router`'s answer to `event`.
async fn invoke(router: &axum::Router, event: Value) -> (u16, Value) {
    let event: LambdaRequest = serde_json::from_value(event).expect("API Gateway event");
    let mut adapter = Adapter::from(router.clone());
    let response = adapter.call(LambdaEvent::new(event, Context::default())).await.expect("function answers");
    let v = serde_json::to_value(&response).expect("response");
    let body = v["body"].as_str().and_then(|b| serde_json::from_str(b).ok()).unwrap_or(Value::Null);
    (v["statusCode"].as_u64().unwrap_or(0) as u16, body)
}

/// Receives what is on a queue now (up to 10 messages) as one SQS event, and deletes it from
/// the queue (as the event source does after a successful batch).
pub async fn take_batch(sqs: &aws_sdk_sqs::Client, url: &str) -> SqsEvent {
    let got = sqs.receive_message().queue_url(url).max_number_of_messages(10).wait_time_seconds(1).send().await.expect("receive");
    let mut records = Vec::new();
    for m in got.messages.unwrap_or_default() {
        records.push(json!({
            "messageId": m.message_id, "receiptHandle": m.receipt_handle, "body": m.body,
            "attributes": {}, "messageAttributes": {}, "eventSource": "aws:sqs", "awsRegion": "us-east-1",
            "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:agora"
        }));
        sqs.delete_message().queue_url(url).set_receipt_handle(m.receipt_handle).send().await.expect("delete");
    }
    serde_json::from_value(json!({ "Records": records })).expect("SQS event")
}

/// Hands `handler` a batch holding each message twice. A copy that finds its work under way is
/// handed back for redelivery; redelivered, it finds the work done.
pub async fn handle_redelivered(handler: &dyn WorkHandler, batch: SqsEvent) {
    let mut twice = batch.clone();
    twice.records.extend(batch.records.clone());
    let failed = agora_runtime::lambda::handle_batch(handler, twice).await.batch_item_failures;
    assert!(failed.len() <= batch.records.len(), "at most the copies are handed back: {failed:?}");
    let again: Vec<_> =
        batch.records.iter().filter(|r| failed.iter().any(|f| Some(&f.item_identifier) == r.message_id.as_ref())).cloned().collect();
    let mut redelivered = batch.clone();
    redelivered.records = again;
    assert!(agora_runtime::lambda::handle_batch(handler, redelivered).await.batch_item_failures.is_empty(), "redelivered: done");
}
