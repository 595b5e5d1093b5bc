//! The NATS publisher and a subscription intake against a real NATS server (`NATS_URL`,
//! started by `tests/run.sh`). Subjects are unique per test, so tests can share one server.

use agora_nats::{subject_problem, Intake, NatsPublisher};
use agora_ports::{PublishError, Publisher};
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A client of the server at `NATS_URL`. Fails the test, saying how to get one, when unset.
async fn client() -> async_nats::Client {
    let url = std::env::var("NATS_URL").ok().filter(|u| !u.trim().is_empty()).unwrap_or_else(|| {
        panic!("NATS_URL is not set: these tests need a NATS server; run ./tests/run.sh, which starts one and exports NATS_URL")
    });
    agora_nats::connect(&url).await.expect("NATS server answers at NATS_URL")
}

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4().simple())
}

/// The next message on `sub`, or a failure after a few seconds.
async fn next(sub: &mut async_nats::Subscriber) -> async_nats::Message {
    tokio::time::timeout(Duration::from_secs(5), sub.next()).await.expect("a message within 5 s").expect("subscription open")
}

#[tokio::test]
async fn a_message_arrives_on_the_address_subject_as_the_exact_json() {
    let client = client().await;
    let address = unique("agent-translator");
    let mut sub = client.subscribe(address.clone()).await.expect("subscribe");
    client.flush().await.expect("flush");
    let message = json!({
        "event_type": "voting_invite",
        "sender_subject_id": "planner-service",
        "event_data": {"custom_data": {"z": 1, "a": "ünïcode"}, "voting_info": {"title": "Lead translator"}},
    });
    NatsPublisher::new(client.clone()).publish(&address, &message).await.expect("published");
    let got = next(&mut sub).await;
    assert_eq!(got.subject.as_str(), address);
    assert_eq!(&got.payload[..], serde_json::to_vec(&message).expect("encode").as_slice());
    assert_eq!(serde_json::from_slice::<Value>(&got.payload).expect("JSON"), message);
}

#[tokio::test]
async fn an_address_that_is_not_a_subject_is_an_error_naming_it() {
    let publisher = NatsPublisher::new(client().await);
    for address in ["agent 01", "agent.*", "agent.>", ">", "", ".agent", "agent.", "a..b", "tab\there", "line\nbreak"] {
        let err: PublishError = publisher.publish(address, &json!({"event_type": "voting_result"})).await.expect_err(address);
        assert_eq!(err.address, address);
        assert!(err.reason.contains("not a valid NATS subject"), "{address:?}: {err}");
        assert!(err.to_string().contains(&format!("{address:?}")), "{address:?}: {err}");
    }
}

#[test]
fn subjects() {
    for ok in ["agent-translator-01", "agent.translator.01", "vote.submit", "a_b:c", "ünïcode"] {
        assert_eq!(subject_problem(ok), None, "{ok}");
    }
    for bad in ["", " ", "a b", "a*", "*", "a.>", ".", "a.", ".a", "a..b", "a\u{0}b"] {
        assert!(subject_problem(bad).is_some(), "{bad:?}");
    }
}

/// Records what it is handed.
#[derive(Default)]
struct Recorder(Mutex<Vec<(String, Vec<u8>)>>);

#[async_trait]
impl Intake for Recorder {
    async fn take(&self, subject: &str, payload: &[u8]) {
        self.0.lock().expect("lock").push((subject.to_owned(), payload.to_vec()));
    }
}

#[tokio::test]
async fn an_intake_gets_every_message_of_its_subject_and_no_other() {
    let client = client().await;
    let subject = unique("intake");
    let recorder = Arc::new(Recorder::default());
    let messages = agora_nats::subscribe(&client, &subject).await.expect("subscribed");
    let serving = tokio::spawn(agora_nats::serve(messages, recorder.clone()));
    for i in 0..20 {
        client.publish(subject.clone(), format!("{{\"n\": {i}}}").into()).await.expect("publish");
    }
    client.publish(unique("other"), "elsewhere".into()).await.expect("publish");
    client.flush().await.expect("flush");
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while recorder.0.lock().expect("lock").len() < 20 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut got: Vec<i64> = recorder
        .0
        .lock()
        .expect("lock")
        .iter()
        .map(|(s, p)| {
            assert_eq!(s, &subject);
            serde_json::from_slice::<Value>(p).expect("JSON")["n"].as_i64().expect("n")
        })
        .collect();
    got.sort();
    assert_eq!(got, (0..20).collect::<Vec<_>>());
    serving.abort();
}
