//! The live stream on the AWS shape, on one machine: the `live-stream` and `live-push` handlers
//! in process, the live queue and the evaluation queue on moto's SQS, the store on the
//! MongoDB-protocol server, and API Gateway's `@connections` endpoint played by a real HTTP
//! server that records what the functions send (and answers 410 Gone for clients that left).
//!
//! Needs the servers `./tests/run.sh` starts: `MONGODB_URI` and `AGORA_AWS_ENDPOINT`.

use agora_e2e::{example_request, vote_body, StubServer, REVIEWERS};
use agora_voting_core::live::{LiveStreams, Subscription};
use agora_voting_core::storage::LIVE_SUBSCRIPTIONS;
use agora_voting_core::{Ports, Settings, SystemClock, Voting, VOTING_DB};
use agora_voting_functions::live::{handle_batch, handle_websocket};
use aws_lambda_events::event::sqs::SqsEvent;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

fn required_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run ./tests/run.sh, which starts the servers this test needs"))
}

/// A WebSocket route event as API Gateway sends it to `live-stream`.
fn ws_event(route: &str, connection_id: &str, body: Option<&str>) -> aws_lambda_events::event::apigw::ApiGatewayWebsocketProxyRequest {
    let event_type = match route {
        "$connect" => "CONNECT",
        "$disconnect" => "DISCONNECT",
        _ => "MESSAGE",
    };
    serde_json::from_value(json!({
        "requestContext": {
            "routeKey": route, "eventType": event_type, "connectionId": connection_id, "messageDirection": "IN",
            "stage": "live", "domainName": "abc123.execute-api.us-east-1.amazonaws.com", "apiId": "abc123",
            "requestId": "req", "connectedAt": 1764756000000i64, "requestTimeEpoch": 1764756000000i64,
            "identity": {"sourceIp": "127.0.0.1"}
        },
        "body": body, "isBase64Encoded": false
    }))
    .expect("WebSocket event")
}

/// API Gateway's `@connections` endpoint: records every call, answers 410 for gone clients
/// and 413 to the posts of refused ones (as API Gateway refuses a message over 128 KB).
struct Connections {
    server: StubServer,
    gone: Arc<Mutex<HashSet<String>>>,
    refused: Arc<Mutex<HashSet<String>>>,
}

impl Connections {
    async fn start() -> Self {
        let gone: Arc<Mutex<HashSet<String>>> = Arc::default();
        let refused: Arc<Mutex<HashSet<String>>> = Arc::default();
        let (left, refusing) = (gone.clone(), refused.clone());
        let server = StubServer::start(Duration::ZERO, move |r| {
            let id = connection_of(&r.path);
            if left.lock().unwrap().contains(&id) {
                let headers = vec![("x-amzn-errortype".to_owned(), "GoneException".to_owned())];
                return (410, headers, br#"{"message":"Gone"}"#.to_vec());
            }
            if r.method == "POST" && refusing.lock().unwrap().contains(&id) {
                let headers = vec![("x-amzn-errortype".to_owned(), "PayloadTooLargeException".to_owned())];
                return (413, headers, br#"{"message":"Message too long"}"#.to_vec());
            }
            (200, Vec::new(), Vec::new())
        })
        .await;
        Self { server, gone, refused }
    }

    fn leave(&self, connection_id: &str) {
        self.gone.lock().unwrap().insert(connection_id.to_owned());
    }

    fn refuse(&self, connection_id: &str) {
        self.refused.lock().unwrap().insert(connection_id.to_owned());
    }

    /// The messages posted to `connection_id` so far, as JSON.
    fn posted(&self, connection_id: &str) -> Vec<Value> {
        self.calls(connection_id, "POST").iter().map(|r| serde_json::from_slice(&r.body).expect("posted JSON")).collect()
    }

    fn closed(&self, connection_id: &str) -> bool {
        !self.calls(connection_id, "DELETE").is_empty()
    }

    fn calls(&self, connection_id: &str, method: &str) -> Vec<agora_e2e::StubRequest> {
        self.server
            .received("/@connections/")
            .into_iter()
            .filter(|r| r.method == method && connection_of(&r.path) == connection_id)
            .collect()
    }
}

fn connection_of(path: &str) -> String {
    path.trim_start_matches("/@connections/").replace("%3D", "=").replace("%3d", "=")
}

/// The live queue as Lambda's event source mapping sees it: receive, hand the batch to
/// `live-push`, delete what it did not report as failed.
struct LiveQueue {
    sqs: aws_sdk_sqs::Client,
    url: String,
}

impl LiveQueue {
    /// Receives what is visible within `wait` (at most 10 messages).
    async fn receive(&self, wait: i32) -> Vec<aws_sdk_sqs::types::Message> {
        let got = self.sqs.receive_message().queue_url(&self.url).max_number_of_messages(10).wait_time_seconds(wait).send().await;
        got.expect("receive").messages.unwrap_or_default()
    }

    async fn delete(&self, messages: &[aws_sdk_sqs::types::Message]) {
        for m in messages {
            self.sqs.delete_message().queue_url(&self.url).receipt_handle(m.receipt_handle().unwrap()).send().await.expect("delete");
        }
    }
}

fn sqs_event(messages: &[aws_sdk_sqs::types::Message]) -> SqsEvent {
    let records: Vec<Value> = messages
        .iter()
        .map(|m| {
            json!({
                "messageId": m.message_id, "receiptHandle": m.receipt_handle, "body": m.body,
                "attributes": {}, "messageAttributes": {}, "eventSource": "aws:sqs", "awsRegion": "us-east-1",
                "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:live"
            })
        })
        .collect();
    serde_json::from_value(json!({ "Records": records })).expect("SQS event")
}

fn bodies(messages: &[aws_sdk_sqs::types::Message]) -> Vec<Value> {
    messages.iter().map(|m| serde_json::from_str(m.body().unwrap()).expect("JSON body")).collect()
}

async fn subscription(voting: &Voting, connection_id: &str) -> Option<Subscription> {
    let doc = voting.ports().store.get(LIVE_SUBSCRIPTIONS, connection_id).await.expect("store");
    doc.map(|d| serde_json::from_str(d.get()).expect("subscription"))
}

/// The stack: the live and evaluation queues on moto, a fresh database on the MongoDB-protocol
/// server, the `@connections` endpoint, and the live stream over them.
struct Stack {
    voting: Arc<Voting>,
    streams: LiveStreams,
    live: LiveQueue,
    connections: Connections,
}

impl Stack {
    async fn start() -> Stack {
        let mongo_uri = required_env("MONGODB_URI");
        required_env("AGORA_AWS_ENDPOINT");
        let suffix = uuid::Uuid::new_v4().simple().to_string()[..10].to_owned();
        let sdk = agora_aws::config::load().await;
        let sqs = aws_sdk_sqs::Client::new(&sdk);
        let create_queue = |name: String| {
            let sqs = sqs.clone();
            async move { sqs.create_queue().queue_name(name).send().await.expect("queue").queue_url.expect("url") }
        };
        let evaluations_url = create_queue(format!("evaluations-{suffix}")).await;
        let live = LiveQueue { sqs: sqs.clone(), url: create_queue(format!("live-{suffix}")).await };
        let connections = Connections::start().await;

        let store =
            agora_store_mongodb::MongoStore::connect(&mongo_uri, VOTING_DB.named(format!("voting_{suffix}"))).await.expect("mongodb");
        let live_queue = agora_aws::SqsQueue::new(sqs.clone(), &live.url);
        let ports = Ports {
            store: Arc::new(store),
            hooks: agora_voting_core::voting_hooks(Arc::new(agora_hooks_remote::RemoteHooks::default()), None),
            publisher: Arc::new(agora_runtime::LogPublisher),
            queue: Arc::new(agora_aws::SqsQueue::new(sqs.clone(), &evaluations_url)),
            clock: Arc::new(SystemClock),
            changes: Arc::new(agora_voting_core::live::QueuedChanges::new(Arc::new(live_queue.clone()))),
            scheduler: Arc::new(agora_voting_core::NoSchedules),
        };
        let voting = Arc::new(Voting::new(ports, Settings::default()));
        let gateway = agora_aws::ApiGatewayConnections::new(&sdk, &connections.server.url);
        let streams = LiveStreams::new(voting.ports().store.clone(), voting.ports().clock.clone(), Arc::new(gateway), Arc::new(live_queue));
        Stack { voting, streams, live, connections }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn live_streams_run_through_the_lambda_handlers_on_moto_and_mongodb() {
    let Stack { voting, streams, live, connections } = Stack::start().await;

    // Two started tasks: one streams live, one does not.
    let id = voting.create_task(&example_request()).await.expect("create");
    let mut request = example_request();
    request["social_task"]["enable_live_streaming"] = json!(false);
    let quiet = voting.create_task(&request).await.expect("create");
    for task in [&id, &quiet] {
        assert!(format!("{:?}", voting.start_task(task).await.expect("start")).contains("Started"));
    }
    // The live task's start is queued as a change; with no subscription yet it pushes nothing.
    let started = live.receive(1).await;
    assert_eq!(bodies(&started), vec![json!({"changed": {"social_task_id": id}})], "only the live task's change is queued");
    assert!(handle_batch(&streams, sqs_event(&started)).await.batch_item_failures.is_empty());
    live.delete(&started).await;
    assert!(connections.server.received("/").is_empty());

    // $connect is accepted; nothing is sent yet.
    let ok = |r: aws_lambda_events::event::apigw::ApiGatewayProxyResponse| assert_eq!(r.status_code, 200);
    ok(handle_websocket(&streams, None, ws_event("$connect", "A1=", None)).await);
    assert!(connections.posted("A1=").is_empty());

    // Refusals: the error of §3.5, then the connection is closed.
    let refusals = [
        ("bad1=", "not json".to_owned(), "Invalid request format. Must be JSON with 'social_task_id' and 'refresh_interval'"),
        (
            "bad2=",
            json!({"social_task_id": id}).to_string(),
            "Invalid request format. Must be JSON with 'social_task_id' and 'refresh_interval'",
        ),
        ("bad3=", json!({"social_task_id": quiet, "refresh_interval": 5}).to_string(), "Live streaming not enabled for this task"),
        ("bad4=", json!({"social_task_id": "task_missing", "refresh_interval": 5}).to_string(), "Live streaming not enabled for this task"),
    ];
    for (conn, body, error) in &refusals {
        ok(handle_websocket(&streams, None, ws_event("$default", conn, Some(body))).await);
        assert_eq!(connections.posted(conn), vec![json!({ "error": error })], "{conn}");
        assert!(connections.closed(conn), "{conn} closed");
        assert!(subscription(&voting, conn).await.is_none());
    }

    // Subscribing sends the full bundle at once and stores the subscription.
    let subscribe = |interval: u64| json!({"social_task_id": id, "refresh_interval": interval}).to_string();
    for (conn, interval) in [("A1=", 1), ("B2=", 60), ("C3=", 60)] {
        ok(handle_websocket(&streams, None, ws_event("$default", conn, Some(&subscribe(interval)))).await);
        let posted = connections.posted(conn);
        assert_eq!(posted.len(), 1, "{conn}: {posted:?}");
        assert_eq!(posted[0]["type"], "update");
        assert_eq!(posted[0]["data"]["task"]["social_task_id"], json!(id));
        assert_eq!(posted[0]["data"]["task"]["status"], "started");
        assert_eq!(posted[0]["data"]["votes"], json!([]));
        assert_eq!(
            posted[0]["data"],
            serde_json::from_str::<Value>(voting.queries().get_full_task_bundle(&id).await.unwrap().get()).unwrap()
        );
        let sub = subscription(&voting, conn).await.expect("subscription stored");
        assert_eq!((sub.social_task_id.as_str(), sub.refresh_interval, sub.seq), (id.as_str(), interval as f64, 0));
        assert!(!connections.closed(conn));
    }

    // A's refresh (due in a second) sends the bundle again and schedules the next one; the
    // same message delivered twice, in one batch and to two invocations at once, counts once.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let due = live.receive(2).await;
    let refresh: Vec<_> = due.iter().filter(|m| m.body().unwrap().contains("A1=")).cloned().collect();
    assert_eq!(refresh.len(), 1, "{:?}", bodies(&due));
    let twice = sqs_event(&[refresh.clone(), refresh.clone()].concat());
    let (a, b) = tokio::join!(handle_batch(&streams, twice.clone()), handle_batch(&streams, twice));
    assert!(a.batch_item_failures.is_empty() && b.batch_item_failures.is_empty());
    live.delete(&due).await;
    assert_eq!(connections.posted("A1=").len(), 2, "one refresh sent");
    assert_eq!(subscription(&voting, "A1=").await.unwrap().seq, 1);
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let next = live.receive(2).await;
    assert_eq!(bodies(&next).iter().filter(|b| b["refresh"]["connection_id"] == "A1=").count(), 1, "one next refresh: {:?}", bodies(&next));
    assert!(bodies(&next).iter().all(|b| b["refresh"]["seq"] == 1), "{:?}", bodies(&next));
    live.delete(&next).await;

    // C leaves without a $disconnect; B disconnects. A vote is pushed to A alone.
    connections.leave("C3=");
    ok(handle_websocket(&streams, None, ws_event("$disconnect", "B2=", None)).await);
    assert!(subscription(&voting, "B2=").await.is_none());
    let vote = vote_body(&id, REVIEWERS[0], json!({"selected_option": "agent-translator-02"}));
    voting.submit_vote(&vote).await.expect("vote");
    let quiet_vote = vote_body(&quiet, REVIEWERS[0], json!({"selected_option": "agent-translator-02"}));
    voting.submit_vote(&quiet_vote).await.expect("vote");
    let changed = live.receive(1).await;
    assert_eq!(bodies(&changed), vec![json!({"changed": {"social_task_id": id}})], "only the live task's change is queued");
    assert!(handle_batch(&streams, sqs_event(&changed)).await.batch_item_failures.is_empty());
    live.delete(&changed).await;
    let a = connections.posted("A1=");
    assert_eq!(a.len(), 3);
    assert_eq!(a[2]["data"]["votes"][0]["vote_id"], vote["vote_id"]);
    assert_eq!(connections.posted("B2=").len(), 1, "B left");
    assert_eq!(connections.calls("C3=", "POST").len(), 2, "C was tried once");
    assert!(subscription(&voting, "C3=").await.is_none(), "C's subscription is forgotten once API Gateway says it is gone");

    // The last votes complete the task: A gets the final update and is closed.
    for reviewer in &REVIEWERS[1..] {
        voting.submit_vote(&vote_body(&id, reviewer, json!({"selected_option": "agent-translator-02"}))).await.expect("vote");
    }
    assert!(format!("{:?}", voting.evaluate_task(&id).await.expect("evaluate")).contains("Completed"));
    let mut pushed = Vec::new();
    for _ in 0..5 {
        let got = live.receive(1).await;
        if got.is_empty() {
            break;
        }
        assert!(handle_batch(&streams, sqs_event(&got)).await.batch_item_failures.is_empty());
        live.delete(&got).await;
        pushed.extend(bodies(&got));
    }
    assert!(pushed.contains(&json!({"changed": {"social_task_id": id}})), "{pushed:?}");
    let a = connections.posted("A1=");
    let last = a.last().unwrap();
    assert_eq!(last["data"]["task"]["status"], "complete");
    assert_eq!(last["data"]["votes"].as_array().map(Vec::len), Some(3));
    assert!(connections.closed("A1="), "closed after the final update");
    assert!(subscription(&voting, "A1=").await.is_none());
    let finals = a.iter().filter(|m| m["data"]["task"]["status"] == "complete").count();
    assert_eq!(finals, 1, "one final update");

    // A late refresh of the closed stream sends nothing.
    let posts = connections.server.received("/@connections/").len();
    let late = agora_voting_core::live::LiveMessage::Refresh { connection_id: "A1=".into(), token: "old".into(), seq: 7 };
    let late: SqsEvent =
        serde_json::from_value(json!({"Records": [{"messageId": "m", "body": late.to_body(), "eventSource": "aws:sqs"}]})).unwrap();
    assert!(handle_batch(&streams, late).await.batch_item_failures.is_empty());
    assert_eq!(connections.server.received("/@connections/").len(), posts);

    // A subscription to a complete task gets the final update and is closed at once.
    ok(handle_websocket(&streams, None, ws_event("$default", "D4=", Some(&subscribe(5)))).await);
    assert_eq!(connections.posted("D4=").len(), 1);
    assert!(connections.closed("D4="));
    assert!(subscription(&voting, "D4=").await.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_second_request_replaces_the_first_and_a_refused_one_ends_it() {
    let Stack { voting, streams, live, connections } = Stack::start().await;
    let id = voting.create_task(&example_request()).await.expect("create");
    voting.start_task(&id).await.expect("start");
    let started = live.receive(1).await;
    assert_eq!(bodies(&started), vec![json!({"changed": {"social_task_id": id}})]);
    live.delete(&started).await;
    let ok = |r: aws_lambda_events::event::apigw::ApiGatewayProxyResponse| assert_eq!(r.status_code, 200);

    // Two requests on one connection: two first updates, and two refresh chains queued, of
    // which only the second request's goes on.
    let request = json!({"social_task_id": id, "refresh_interval": 1}).to_string();
    for _ in 0..2 {
        ok(handle_websocket(&streams, None, ws_event("$default", "E5=", Some(&request))).await);
    }
    assert_eq!(connections.posted("E5=").len(), 2);
    let token = subscription(&voting, "E5=").await.expect("subscription").token;
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let mut due = Vec::new();
    while due.len() < 2 {
        let got = live.receive(2).await;
        assert!(!got.is_empty(), "two refreshes are due: {:?}", bodies(&due));
        due.extend(got);
    }
    let refreshes = bodies(&due).into_iter().filter(|b| b["refresh"]["connection_id"] == "E5=").count();
    assert_eq!(refreshes, 2, "{:?}", bodies(&due));
    assert!(handle_batch(&streams, sqs_event(&due)).await.batch_item_failures.is_empty());
    live.delete(&due).await;
    assert_eq!(connections.posted("E5=").len(), 3, "the first request's refresh is stale: one update sent");
    let sub = subscription(&voting, "E5=").await.expect("subscription");
    assert_eq!((sub.token.as_str(), sub.seq), (token.as_str(), 1));

    // A refused request ends the stream: error, close, subscription gone; its chain stops.
    ok(handle_websocket(&streams, None, ws_event("$default", "E5=", Some("not json"))).await);
    assert_eq!(
        connections.posted("E5=").last(),
        Some(&json!({"error": "Invalid request format. Must be JSON with 'social_task_id' and 'refresh_interval'"}))
    );
    assert!(connections.closed("E5="));
    assert!(subscription(&voting, "E5=").await.is_none());
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let next = live.receive(2).await;
    assert_eq!(bodies(&next).iter().filter(|b| b["refresh"]["token"] == json!(token)).count(), 1, "{:?}", bodies(&next));
    let posts = connections.posted("E5=").len();
    assert!(handle_batch(&streams, sqs_event(&next)).await.batch_item_failures.is_empty());
    assert_eq!(connections.posted("E5=").len(), posts, "nothing sent after the refusal");
}

/// A task whose bundle is over API Gateway's 128 KB: every message is a compact update within
/// the limit, each with the votes since the connection's last one (recorded in its
/// subscription), the final one before the close; a post API Gateway refuses (other than 410
/// Gone) closes the connection and forgets the subscription, at the first update and later.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn past_the_message_limit_updates_are_compact_and_a_refused_post_ends_the_stream() {
    use agora_voting_core::live::protocol::MAX_MESSAGE_BYTES;
    let Stack { voting, streams, live, connections } = Stack::start().await;
    let mut request = example_request();
    request["subject_spec"]["description"] = json!("x".repeat(160 * 1024));
    let id = voting.create_task(&request).await.expect("create");
    voting.start_task(&id).await.expect("start");
    live.delete(&live.receive(1).await).await;
    let ok = |r: aws_lambda_events::event::apigw::ApiGatewayProxyResponse| assert_eq!(r.status_code, 200);
    let subscribe = json!({"social_task_id": id, "refresh_interval": 60}).to_string();

    // A client whose first update is refused: closed, forgotten.
    connections.refuse("BAD1=");
    ok(handle_websocket(&streams, None, ws_event("$default", "BAD1=", Some(&subscribe))).await);
    assert_eq!(connections.calls("BAD1=", "POST").len(), 1);
    assert!(connections.closed("BAD1="), "closed when its update was refused");
    assert!(subscription(&voting, "BAD1=").await.is_none());

    for conn in ["BIG1=", "BAD2="] {
        ok(handle_websocket(&streams, None, ws_event("$default", conn, Some(&subscribe))).await);
    }
    let first = &connections.posted("BIG1=")[0];
    assert_eq!(first["data"]["task"]["status"], "started");
    assert_eq!(first["data"]["votes"], json!([]));
    assert_eq!(first["compact"]["left_out"], json!(["subject_spec", "evaluation_input"]));
    assert_eq!(first["compact"]["read"]["bundle"]["path"], format!("/get-full-task-bundle/{id}"));

    // A vote is pushed as the change since the last update; BAD2's push is refused: closed.
    connections.refuse("BAD2=");
    let push = || async {
        let mut pushed = 0;
        for _ in 0..5 {
            let got = live.receive(1).await;
            if got.is_empty() {
                break;
            }
            assert!(handle_batch(&streams, sqs_event(&got)).await.batch_item_failures.is_empty());
            live.delete(&got).await;
            pushed += got.len();
        }
        pushed
    };
    let first_vote = vote_body(&id, REVIEWERS[0], json!({"selected_option": "agent-translator-02"}));
    voting.submit_vote(&first_vote).await.expect("vote");
    assert!(push().await > 0);
    let posted = connections.posted("BIG1=");
    assert_eq!(posted.len(), 2);
    assert_eq!(posted[1]["data"]["votes"].as_array().map(Vec::len), Some(1));
    assert_eq!(posted[1]["data"]["votes"][0]["vote_id"], first_vote["vote_id"]);
    assert_eq!((posted[1]["compact"]["votes_from"].as_u64(), posted[1]["compact"]["votes_to"].as_u64()), (Some(0), Some(1)));
    assert_eq!(subscription(&voting, "BIG1=").await.expect("subscribed").votes_sent, 1);
    assert!(connections.closed("BAD2="), "closed when a push was refused");
    assert!(subscription(&voting, "BAD2=").await.is_none());

    // The other votes complete the task: the final compact update, then the close.
    for reviewer in &REVIEWERS[1..] {
        voting.submit_vote(&vote_body(&id, reviewer, json!({"selected_option": "agent-translator-02"}))).await.expect("vote");
    }
    assert!(format!("{:?}", voting.evaluate_task(&id).await.expect("evaluate")).contains("Completed"));
    push().await;
    let posted = connections.posted("BIG1=");
    let last = posted.last().unwrap();
    assert_eq!(last["data"]["task"]["status"], "complete");
    assert_eq!(last["compact"]["vote_count"], 3);
    let ids: HashSet<_> =
        posted.iter().flat_map(|m| m["data"]["votes"].as_array().unwrap().clone()).map(|v| v["vote_id"].clone()).collect();
    assert_eq!(ids.len(), 3, "every vote came in some update");
    assert!(connections.closed("BIG1="));
    assert!(subscription(&voting, "BIG1=").await.is_none());
    for r in connections.server.received("/@connections/") {
        assert!(r.body.len() <= MAX_MESSAGE_BYTES, "a post of {} bytes", r.body.len());
    }
}

/// With authentication on (API Gateway's WebSocket APIs have no JWT authorizer, so the function
/// verifies the token itself), `$connect` is accepted with a verified token in the
/// `access_token` query parameter or the `Authorization` header, and refused 401 without one or
/// with a bad one; the connection's messages then need none.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn connect_needs_a_verified_token_when_authentication_is_on() {
    use agora_auth::verify::{KeySource, Verifier, VerifierConfig};
    use agora_test_tokens::{claims, sign, with, TestKey, AUDIENCE, ISSUER};
    let Stack { streams, .. } = Stack::start().await;
    let key = TestKey::es256("ec-live");
    let pem = std::env::temp_dir().join(format!("agora-live-key-{}.pem", uuid::Uuid::new_v4().simple()));
    std::fs::write(&pem, &key.public_pem).expect("key file");
    let config = VerifierConfig {
        keys: KeySource::PemFile(pem.clone()),
        issuer: ISSUER.into(),
        audience: AUDIENCE.into(),
        rules: Default::default(),
    };
    let verifier = Verifier::new(config.clone()).await.expect("verifier");
    // voting-live-stream's own (connect_verifier_from_env): the HTTP API authorizer's algorithms.
    let rsa_only = Verifier::new(config).await.expect("verifier").with_algorithms(agora_voting_functions::live::CONNECT_ALGORITHMS);
    let _ = std::fs::remove_file(&pem);

    let connect = |query: Value, headers: Value| {
        let mut event = serde_json::to_value(ws_event("$connect", "AUTH=", None)).expect("event");
        event["queryStringParameters"] = query;
        event["headers"] = headers;
        serde_json::from_value::<aws_lambda_events::event::apigw::ApiGatewayWebsocketProxyRequest>(event).expect("event")
    };
    let token = sign(&key, &claims("agent-viewer"));
    let status = |e| async { handle_websocket(&streams, Some(&verifier), e).await.status_code };
    assert_eq!(status(connect(json!({}), json!({}))).await, 401, "no token");
    assert_eq!(status(connect(json!({"access_token": token}), json!({}))).await, 200, "the query parameter");
    assert_eq!(status(connect(json!({}), json!({"authorization": format!("Bearer {token}")}))).await, 200, "the header");
    let elsewhere = sign(&key, &with(claims("agent-viewer"), json!({"iss": "https://other.test/"})));
    assert_eq!(status(connect(json!({"access_token": elsewhere}), json!({}))).await, 401, "another issuer");
    let expired = sign(&key, &with(claims("agent-viewer"), json!({"exp": agora_test_tokens::now() - 3600})));
    assert_eq!(status(connect(json!({"access_token": expired}), json!({}))).await, 401, "expired");
    assert_eq!(status(ws_event("$disconnect", "AUTH=", None)).await, 200, "no token needed after $connect");

    // Behind the HTTP API's authorizer (RSA-based algorithms only), this ES256 token is refused
    // at $connect as it is over HTTP.
    let connect_rsa_only = handle_websocket(&streams, Some(&rsa_only), connect(json!({"access_token": token}), json!({}))).await;
    assert_eq!(connect_rsa_only.status_code, 401);
}
