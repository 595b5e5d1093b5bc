//! The EventBridge publisher against moto: a bus with a rule routing the events of one
//! `source` to an SQS queue; the queue shows what was put.

mod common;

use agora_aws::eventbridge::{self, EventBridgePublisher};
use agora_ports::Publisher;
use serde_json::{json, Value};
use std::time::Duration;

/// A bus and a rule sending its events from `source` to a new queue. Returns the queue URL.
async fn bus_to_queue(sdk: &aws_config::SdkConfig, bus: &str, source: &str) -> String {
    let events = aws_sdk_eventbridge::Client::new(sdk);
    let sqs = aws_sdk_sqs::Client::new(sdk);
    events.create_event_bus().name(bus).send().await.expect("create bus");
    let (url, arn) = common::create_queue(&sqs, &common::unique("agora-eb")).await;
    let rule = common::unique("to-queue");
    events
        .put_rule()
        .name(&rule)
        .event_bus_name(bus)
        .event_pattern(json!({"source": [source]}).to_string())
        .send()
        .await
        .expect("put rule");
    let target = aws_sdk_eventbridge::types::Target::builder().id("queue").arn(arn).build().expect("target");
    events.put_targets().rule(&rule).event_bus_name(bus).targets(target).send().await.expect("put targets");
    url
}

fn invitation() -> Value {
    json!({
        "event_type": "voting_invite",
        "sender_subject_id": "planner-service",
        "event_data": {"custom_data": {"note": "é ünïcode"}, "voting_info": {"title": "Lead translator", "voting_options": {"a": "A"}}},
    })
}

fn result() -> Value {
    json!({
        "event_type": "voting_result",
        "task_id": "task_0a1b2c3d",
        "event_data": {"social_task_id": "task_0a1b2c3d", "winners": ["agent-translator-01"], "post_award_payload": {"ok": true}},
    })
}

#[tokio::test]
async fn invitation_and_result_reach_a_rule_target_with_detail_type_and_detail() {
    let sdk = common::sdk().await;
    let (bus, source) = (common::unique("agora-bus"), common::unique("agora.test"));
    let url = bus_to_queue(&sdk, &bus, &source).await;
    let publisher = EventBridgePublisher::new(aws_sdk_eventbridge::Client::new(&sdk), &bus, &source);

    publisher.publish("agent-translator-01", &invitation()).await.expect("invitation published");
    publisher.publish("agent-translator-01", &result()).await.expect("result published");

    let bodies = common::receive(&aws_sdk_sqs::Client::new(&sdk), &url, 2, Duration::from_secs(10)).await;
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    let mut events: Vec<Value> = bodies.iter().map(|b| serde_json::from_str(b).expect("event JSON")).collect();
    events.sort_by_key(|e| e["detail-type"].as_str().map(str::to_owned));
    let [invite, res] = &events[..] else { unreachable!() };
    assert_eq!(invite["source"], json!(source));
    assert_eq!(invite["detail-type"], "voting_invite");
    assert_eq!(invite["detail"], json!({"recipient": "agent-translator-01", "message": invitation()}));
    assert_eq!(res["source"], json!(source));
    assert_eq!(res["detail-type"], "voting_result");
    assert_eq!(res["detail"], json!({"recipient": "agent-translator-01", "message": result()}));
    // The detail keeps its key order: recipient first, then the message as built.
    let keys: Vec<&String> = invite["detail"].as_object().expect("detail").keys().collect();
    assert_eq!(keys, ["recipient", "message"]);
}

#[tokio::test]
async fn other_sources_do_not_match_the_rule() {
    let sdk = common::sdk().await;
    let (bus, source) = (common::unique("agora-bus"), common::unique("agora.test"));
    let url = bus_to_queue(&sdk, &bus, &source).await;
    let other = EventBridgePublisher::new(aws_sdk_eventbridge::Client::new(&sdk), &bus, "agora.other");
    other.publish("agent-1", &invitation()).await.expect("published");
    let mine = EventBridgePublisher::new(aws_sdk_eventbridge::Client::new(&sdk), &bus, &source);
    mine.publish("agent-2", &result()).await.expect("published");
    let bodies = common::receive(&aws_sdk_sqs::Client::new(&sdk), &url, 2, Duration::from_secs(3)).await;
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    let event: Value = serde_json::from_str(&bodies[0]).expect("event JSON");
    assert_eq!(event["detail"]["recipient"], "agent-2");
}

#[tokio::test]
async fn a_failed_entry_is_an_error() {
    let sdk = common::sdk().await;
    let bus = common::unique("agora-bus");
    aws_sdk_eventbridge::Client::new(&sdk).create_event_bus().name(&bus).send().await.expect("create bus");
    // An empty source: EventBridge answers 200 with FailedEntryCount 1 (InvalidArgument).
    let publisher = EventBridgePublisher::new(aws_sdk_eventbridge::Client::new(&sdk), &bus, "");
    let err = publisher.publish("agent-1", &invitation()).await.expect_err("failed entry");
    assert_eq!(err.address, "agent-1");
    assert!(err.reason.contains("InvalidArgument"), "{err}");
}

#[tokio::test]
async fn an_unknown_bus_is_an_error() {
    let sdk = common::sdk().await;
    let publisher = EventBridgePublisher::new(aws_sdk_eventbridge::Client::new(&sdk), common::unique("no-such-bus"), "agora.voting");
    let err = publisher.publish("agent-1", &invitation()).await.expect_err("unknown bus");
    assert!(err.reason.contains("no-such-bus"), "{err}");
}

#[tokio::test]
async fn an_oversized_event_is_refused_before_sending() {
    let sdk = common::sdk().await;
    let publisher = EventBridgePublisher::new(aws_sdk_eventbridge::Client::new(&sdk), common::unique("never-created"), "agora.voting");
    let big = json!({"event_type": "voting_invite", "event_data": {"blob": "x".repeat(eventbridge::MAX_ENTRY_BYTES)}});
    let err = publisher.publish("agent-1", &big).await.expect_err("too big");
    assert!(err.reason.contains("EventBridge accepts at most"), "{err}");
}

#[test]
fn detail_type_and_detail_shape() {
    assert_eq!(eventbridge::detail_type(&invitation()), "voting_invite");
    assert_eq!(eventbridge::detail_type(&json!({"x": 1})), eventbridge::FALLBACK_DETAIL_TYPE);
    assert_eq!(eventbridge::detail_type(&json!({"event_type": 7})), eventbridge::FALLBACK_DETAIL_TYPE);
    assert_eq!(eventbridge::event_detail("a", &json!({"k": 1})), json!({"recipient": "a", "message": {"k": 1}}));
}
