//! The live stream of §3.5 over WebSocket: refusals, the periodic update, the push when a vote
//! is stored, and the final update once the task is complete.

use agora_e2e::*;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(server: &Server, first: &str) -> Socket {
    let url = format!("ws://{}/live-stream", server.running.addr);
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.expect("websocket connects");
    socket.send(Message::Text(first.into())).await.expect("send request");
    socket
}

/// The next text message as JSON, or None when the stream closes. Panics after `within`.
async fn next_json(socket: &mut Socket, within: Duration) -> Option<Value> {
    loop {
        let msg = tokio::time::timeout(within, socket.next()).await.expect("a message in time");
        match msg {
            Some(Ok(Message::Text(t))) => return Some(serde_json::from_str(t.as_str()).expect("JSON message")),
            Some(Ok(Message::Close(_))) | None => return None,
            Some(Ok(_)) => continue,
            Some(Err(e)) => panic!("websocket error: {e}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refuses_malformed_requests_and_tasks_without_streaming() {
    let server = Server::start().await;
    let mut socket = connect(&server, "not json").await;
    let error = "Invalid request format. Must be JSON with 'social_task_id' and 'refresh_interval'";
    assert_eq!(next_json(&mut socket, Duration::from_secs(5)).await, Some(json!({ "error": error })));
    assert_eq!(next_json(&mut socket, Duration::from_secs(5)).await, None, "closed after the error");

    let mut socket = connect(&server, r#"{"social_task_id": "task_00000000"}"#).await;
    assert_eq!(next_json(&mut socket, Duration::from_secs(5)).await, Some(json!({ "error": error })));

    let mut request = example_request();
    request["social_task"]["enable_live_streaming"] = json!(false);
    let id = server.create(&request).await;
    let first = json!({"social_task_id": id, "refresh_interval": 1}).to_string();
    let mut socket = connect(&server, &first).await;
    assert_eq!(next_json(&mut socket, Duration::from_secs(5)).await, Some(json!({"error": "Live streaming not enabled for this task"})));
    let mut socket = connect(&server, r#"{"social_task_id": "task_00000000", "refresh_interval": 1}"#).await;
    assert_eq!(next_json(&mut socket, Duration::from_secs(5)).await, Some(json!({"error": "Live streaming not enabled for this task"})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn streams_updates_on_votes_and_a_final_one_on_completion() {
    let server = Server::start().await;
    let id = server.create(&public_request(2)).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;

    // A long refresh interval: every update after the first is pushed by a change.
    let mut socket = connect(&server, &json!({"social_task_id": id, "refresh_interval": 60}).to_string()).await;
    let first = next_json(&mut socket, Duration::from_secs(5)).await.expect("first update");
    assert_eq!(first["type"], "update");
    assert_eq!(first["data"]["task"]["social_task_id"], id.as_str());
    assert_eq!(first["data"]["votes"], json!([]));
    let (_, bundle) = server.get(&format!("/get-full-task-bundle/{id}")).await;
    assert_eq!(first["data"], bundle, "the update carries the full task bundle");

    server.vote(&id, "streamer-1", json!({"selected_option": "agent-translator-01"})).await;
    let pushed = next_json(&mut socket, Duration::from_secs(5)).await.expect("pushed update");
    assert_eq!(pushed["data"]["votes"].as_array().unwrap().len(), 1, "pushed as soon as the vote is stored");

    server.vote(&id, "streamer-2", json!({"selected_option": "agent-translator-01"})).await;
    let mut last = Value::Null;
    while let Some(update) = next_json(&mut socket, Duration::from_secs(5)).await {
        last = update;
    }
    assert_eq!(last["data"]["task"]["status"], "complete", "the final update shows the completed task, then the stream closes");
    assert_eq!(last["data"]["task"]["report_json"]["winners"], json!(["agent-translator-01"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refreshes_at_the_requested_interval() {
    let server = Server::start().await;
    let id = server.create(&public_request(5)).await;
    let mut socket = connect(&server, &json!({"social_task_id": id, "refresh_interval": 0.2}).to_string()).await;
    // Three updates with no vote in between: periodic ones. The interval is 0.2 s; each wait is
    // generous so that a loaded machine's slow store read is not taken for a missing refresh,
    // and the three together must still come far sooner than at the default interval (5 s).
    let started = std::time::Instant::now();
    for _ in 0..3 {
        let update = next_json(&mut socket, Duration::from_secs(15)).await.expect("periodic update");
        assert_eq!(update["type"], "update");
    }
    assert!(started.elapsed() < Duration::from_secs(6), "three refreshes took {:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refresh_intervals_outside_the_range_are_refused_and_the_server_goes_on() {
    let server = Server::start().await;
    let id = server.create(&example_request()).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    let error = json!({"error": "Invalid request format. Must be JSON with 'social_task_id' and 'refresh_interval'"});
    for interval in ["1e308", "-1e308", "1e-308", "0.049", "3600.5", "18446744073709551616"] {
        let mut socket = connect(&server, &format!(r#"{{"social_task_id": "{id}", "refresh_interval": {interval}}}"#)).await;
        assert_eq!(next_json(&mut socket, Duration::from_secs(5)).await, Some(error.clone()), "{interval}");
        assert_eq!(next_json(&mut socket, Duration::from_secs(5)).await, None, "{interval}: closed after the error");
    }
    // Still serving: the longest interval in the range streams.
    let mut socket = connect(&server, &format!(r#"{{"social_task_id": "{id}", "refresh_interval": 3600}}"#)).await;
    let first = next_json(&mut socket, Duration::from_secs(5)).await.expect("an update");
    assert_eq!(first["type"], "update");
}

/// The next text message as JSON (None when the stream closes), checked to be within the
/// protocol's message limit.
async fn next_within_limit(socket: &mut Socket) -> Option<Value> {
    let text = loop {
        match tokio::time::timeout(Duration::from_secs(5), socket.next()).await.expect("a message in time") {
            Some(Ok(Message::Text(t))) => break t,
            Some(Ok(Message::Close(_))) | None => return None,
            Some(Ok(_)) => continue,
            Some(Err(e)) => panic!("websocket error: {e}"),
        }
    };
    let limit = agora_voting_core::live::protocol::MAX_MESSAGE_BYTES;
    assert!(text.len() <= limit, "a message of {} bytes", text.len());
    Some(serde_json::from_str(text.as_str()).expect("JSON message"))
}

/// A task whose bundle is over API Gateway's 128 KB streams the messages it streams on AWS:
/// compact updates within the limit, each with the votes since the last one, and the final
/// one before the close. The local server has no such limit; it keeps the protocol's so that
/// one client reads both.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn past_the_message_limit_updates_are_compact_as_on_aws() {
    let server = Server::start().await;
    let mut request = public_request(2);
    request["subject_spec"]["description"] = json!("x".repeat(160 * 1024));
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;

    let url = format!("ws://{}/live-stream", server.running.addr);
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.expect("websocket connects");
    socket.send(Message::Text(json!({"social_task_id": id, "refresh_interval": 60}).to_string().into())).await.expect("send");
    let first = next_within_limit(&mut socket).await.expect("first update");
    assert_eq!(first["type"], "update");
    assert_eq!(first["data"]["task"]["social_task_id"], id.as_str());
    assert_eq!(first["data"]["votes"], json!([]));
    assert_eq!(first["compact"]["left_out"], json!(["subject_spec", "evaluation_input"]));
    assert_eq!(first["compact"]["read"]["bundle"], json!({"method": "GET", "path": format!("/get-full-task-bundle/{id}")}));
    let (_, bundle) = server.get(first["compact"]["read"]["bundle"]["path"].as_str().unwrap()).await;
    assert_eq!(bundle["subject_spec"]["topic_description"].as_str().map(str::len), Some(160 * 1024), "the rest, over HTTP");

    server.vote(&id, "streamer-1", json!({"selected_option": "agent-translator-01"})).await;
    let pushed = next_within_limit(&mut socket).await.expect("pushed update");
    assert_eq!(pushed["data"]["votes"].as_array().unwrap().len(), 1);
    assert_eq!((pushed["compact"]["votes_from"].as_u64(), pushed["compact"]["votes_to"].as_u64()), (Some(0), Some(1)));

    server.vote(&id, "streamer-2", json!({"selected_option": "agent-translator-01"})).await;
    let mut last = Value::Null;
    let mut votes = 1;
    while let Some(update) = next_within_limit(&mut socket).await {
        votes += update["data"]["votes"].as_array().unwrap().len();
        last = update;
    }
    assert_eq!(last["data"]["task"]["status"], "complete", "the final update, then the close");
    assert_eq!(last["compact"]["vote_count"], 2);
    assert_eq!(votes, 2, "each vote sent once");
}
