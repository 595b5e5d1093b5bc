//! One router, two front doors: the same requests through the local server's HTTP listener and
//! through each Lambda function's API Gateway adapter (`lambda_http`, the code path the
//! deployed functions run) get the same status, content type and body. The live stream too:
//! the local server's WebSocket and the `live-stream` function (API Gateway WebSocket) send a
//! client the same first message for the same request.

use agora_e2e::{example_request, vote_body, Server};
use agora_voting_api::{flow_router, Flow};
use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, Context, LambdaEvent, Service};
use serde_json::{json, Value};
use std::time::Duration;

/// An API Gateway HTTP API (payload 2.0) event for a request.
fn apigw_event(method: &str, path: &str, body: Option<&str>) -> LambdaRequest {
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    let event = json!({
        "version": "2.0",
        "routeKey": "$default",
        "rawPath": path,
        "rawQueryString": query,
        "headers": {"content-type": "application/json", "host": "api.example.com"},
        "requestContext": {
            "accountId": "123456789012", "apiId": "api", "domainName": "api.example.com", "domainPrefix": "api",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1", "userAgent": "test"},
            "requestId": "req", "routeKey": "$default", "stage": "$default", "time": "03/Dec/2026:10:00:00 +0000", "timeEpoch": 0
        },
        "body": body,
        "isBase64Encoded": false
    });
    serde_json::from_value(event).expect("a valid API Gateway event")
}

/// Which Lambda function API Gateway routes a path to (template.yaml).
fn flow_of(path: &str) -> Flow {
    match path.split_once('?').map_or(path, |(path, _)| path) {
        "/submit-social-choice-task" => Flow::CreateTask,
        "/parse-social-choice-task" => Flow::ParseTask,
        "/submit-vote" => Flow::SubmitVote,
        _ => Flow::Queries,
    }
}

/// Generated task ids differ between two creations; everything else must not.
fn normalise(v: Value) -> Value {
    let text = v.to_string();
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("task_") {
        out.push_str(&rest[..i]);
        let id = &rest[i + 5..];
        if id.len() >= 8 && id[..8].bytes().all(|b| b.is_ascii_hexdigit()) {
            out.push_str("task_ID");
            rest = &id[8..];
        } else {
            out.push_str("task_");
            rest = id;
        }
    }
    out.push_str(rest);
    serde_json::from_str(&out).expect("still JSON")
}

struct Answer {
    status: u16,
    content_type: String,
    body: Value,
}

async fn via_local(server: &Server, method: &str, path: &str, body: Option<&str>) -> Answer {
    let url = server.url(path);
    let request = match method {
        "GET" => server.http.get(url),
        _ => server.http.post(url).header("content-type", "application/json").body(body.unwrap_or_default().to_owned()),
    };
    let r = request.send().await.expect("local request");
    let status = r.status().as_u16();
    let content_type = r.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    Answer { status, content_type, body: normalise(r.json().await.unwrap_or(Value::Null)) }
}

async fn via_lambda(server: &Server, method: &str, path: &str, body: Option<&str>) -> Answer {
    let mut adapter = Adapter::from(flow_router(server.running.voting.clone(), flow_of(path)));
    let response = adapter.call(LambdaEvent::new(apigw_event(method, path, body), Context::default())).await.expect("lambda response");
    let v = serde_json::to_value(&response).expect("response serializes");
    let content_type = v["headers"]["content-type"].as_str().unwrap_or_default().to_owned();
    let body: Value = v["body"].as_str().map(|b| serde_json::from_str(b).unwrap_or(Value::Null)).unwrap_or(Value::Null);
    Answer { status: v["statusCode"].as_u64().unwrap_or(0) as u16, content_type, body: normalise(body) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn both_front_doors_answer_alike() {
    let server = Server::start().await;
    let id = server.create(&example_request()).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    let mut public = agora_e2e::public_request(5);
    public["social_task"]["scheduled_time"] = json!("2999-01-01T00:00:00");
    let created = example_request().to_string();
    let mut bad = example_request();
    bad["social_task"]["creation_time"] = json!("soon");
    let bad = bad.to_string();
    let vote = |voter: &str, option: &str| vote_body(&id, voter, json!({"selected_option": option})).to_string();

    let samples: Vec<(&str, String, Option<String>)> = vec![
        ("POST", "/submit-social-choice-task".into(), Some(created.clone())),
        ("POST", "/submit-social-choice-task".into(), Some(bad.clone())),
        ("POST", "/submit-social-choice-task".into(), Some("{oops".into())),
        ("POST", "/submit-social-choice-task".into(), None),
        ("POST", "/parse-social-choice-task".into(), Some(public.to_string())),
        ("POST", "/parse-social-choice-task".into(), Some(json!({"social_task": {}}).to_string())),
        ("GET", format!("/get-status/{id}"), None),
        ("GET", "/get-status/task_00000000".into(), None),
        ("GET", format!("/get-report/{id}"), None),
        ("GET", format!("/is-live-streaming-enabled/{id}"), None),
        ("POST", "/generic-query/social_choice_subject_spec".into(), Some(json!({"social_task_id": id}).to_string())),
        ("POST", "/generic-query/votes".into(), Some(json!({"vote_id": {"$regex": "x"}}).to_string())),
        ("POST", "/generic-query/nothing".into(), Some("{}".into())),
        ("POST", "/generic-query/social_task_core_data?limit=1&skip=0".into(), Some("{}".into())),
        ("POST", "/generic-query/social_task_core_data?skip=1".into(), None),
        ("POST", "/generic-query/votes?limit=1e3".into(), Some("{}".into())),
        ("POST", "/generic-query/votes?limit=1&skip=-1".into(), Some("{}".into())),
        ("POST", "/submit-vote".into(), Some("[]".into())),
        ("POST", "/submit-vote".into(), Some(vote_body("task_00000000", "agent-reviewer-01", json!({})).to_string())),
        ("POST", "/submit-vote".into(), Some(vote("intruder", "agent-translator-01"))),
        ("GET", "/submit-vote".into(), None),
        ("GET", "/get-status".into(), None),
    ];
    for (method, path, body) in &samples {
        let local = via_local(&server, method, path, body.as_deref()).await;
        let lambda = via_lambda(&server, method, path, body.as_deref()).await;
        let what = format!("{method} {path}");
        assert_eq!(local.status, lambda.status, "{what}: status");
        assert_eq!(local.content_type, lambda.content_type, "{what}: content type");
        assert_eq!(local.body, lambda.body, "{what}: body");
    }

    // Two voters, one through each door: the same answer, and both votes stored.
    let local = via_local(&server, "POST", "/submit-vote", Some(&vote("agent-reviewer-01", "agent-translator-01"))).await;
    let lambda = via_lambda(&server, "POST", "/submit-vote", Some(&vote("agent-reviewer-02", "agent-translator-01"))).await;
    assert_eq!((local.status, &local.body), (lambda.status, &lambda.body));
    assert_eq!(local.body, json!({"status": "accepted", "qualified": true}));
    // The same bundle through both doors.
    let path = format!("/get-full-task-bundle/{id}");
    let (a, b) = (via_local(&server, "GET", &path, None).await, via_lambda(&server, "GET", &path, None).await);
    assert_eq!(a.body, b.body);
    assert_eq!(a.body["votes"].as_array().map(Vec::len), Some(2));
}

/// The live queue, for the live-stream comparison: what `live-stream` queues is not compared.
struct NoLiveQueue;

#[async_trait::async_trait]
impl agora_voting_core::WorkQueue for NoLiveQueue {
    async fn send(&self, _: &str, _: &str, _: Duration) -> Result<(), agora_voting_core::QueueError> {
        Ok(())
    }
}

/// The local server's answer to a live-stream request: its first message, and whether the
/// stream then closed (within a short wait).
async fn live_via_local(server: &Server, request: &str) -> (Value, bool) {
    use futures::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let (mut socket, _) = tokio_tungstenite::connect_async(format!("ws://{}/live-stream", server.running.addr)).await.expect("connects");
    socket.send(Message::Text(request.into())).await.expect("send");
    let first = loop {
        match tokio::time::timeout(Duration::from_secs(5), socket.next()).await.expect("a first message in time") {
            Some(Ok(Message::Text(t))) => break serde_json::from_str::<Value>(t.as_str()).expect("JSON"),
            Some(Ok(Message::Close(_))) | None => panic!("closed without a message"),
            Some(Ok(_)) => continue,
            Some(Err(e)) => panic!("websocket error: {e}"),
        }
    };
    let closed = tokio::time::timeout(Duration::from_millis(300), socket.next())
        .await
        .is_ok_and(|m| matches!(m, Some(Ok(Message::Close(_))) | None));
    (first, closed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn both_live_stream_front_doors_answer_alike() {
    let server = Server::start().await;
    let live = server.create(&example_request()).await;
    let mut quiet = example_request();
    quiet["social_task"]["enable_live_streaming"] = json!(false);
    let quiet = server.create(&quiet).await;
    server.wait_for_status(&live, "started", Duration::from_secs(10)).await;
    server.post("/submit-vote", &vote_body(&live, "agent-reviewer-01", json!({"selected_option": "agent-translator-01"}))).await;

    let connections = agora_e2e::StubServer::json(|_| (200, json!({}))).await;
    let sdk = agora_aws::config::load_with_endpoint(Some(&connections.url)).await;
    let gateway = agora_aws::ApiGatewayConnections::new(&sdk, &connections.url);
    let voting = &server.running.voting;
    let streams = agora_voting_core::live::LiveStreams::new(
        voting.ports().store.clone(),
        voting.ports().clock.clone(),
        std::sync::Arc::new(gateway),
        std::sync::Arc::new(NoLiveQueue),
    );

    let samples = [
        "not json".to_owned(),
        json!({"social_task_id": live}).to_string(),
        json!({"social_task_id": live, "refresh_interval": "5"}).to_string(),
        json!({"social_task_id": quiet, "refresh_interval": 5}).to_string(),
        json!({"social_task_id": "task_00000000", "refresh_interval": 5}).to_string(),
        json!({"social_task_id": live, "refresh_interval": 30}).to_string(),
    ];
    for (n, request) in samples.iter().enumerate() {
        let connection = format!("conn{n}=");
        let event = serde_json::from_value(json!({
            "requestContext": {"routeKey": "$default", "eventType": "MESSAGE", "connectionId": connection, "connectedAt": 0,
                "requestTimeEpoch": 0, "identity": {"sourceIp": "127.0.0.1"}},
            "body": request, "isBase64Encoded": false
        }))
        .expect("WebSocket event");
        assert_eq!(agora_voting_functions::live::handle_websocket(&streams, None, event).await.status_code, 200);
        let calls: Vec<_> = connections.received(&format!("/@connections/conn{n}")).into_iter().collect();
        let posted: Value = serde_json::from_slice(&calls.iter().find(|c| c.method == "POST").expect("a message").body).expect("JSON");
        let closed = calls.iter().any(|c| c.method == "DELETE");

        let local = live_via_local(&server, request).await;
        assert_eq!(local, (posted, closed), "{request}");
    }
}
