//! Issue 30's cancel over the local server's HTTP API, on any store: `POST
//! /cancel-social-task/{id}` makes a scheduled or started task `cancelled`, later votes get 409,
//! no evaluation runs; an evaluation under way wins (the cancel answers 409); a cancel racing the
//! last vote leaves a cancelled task with no report or a complete one, never both; the live
//! stream's subscribers get a final update.

use agora_e2e::*;
use futures::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

const WAIT: Duration = Duration::from_secs(15);

async fn cancel(server: &Server, id: &str) -> (u16, Value) {
    server.post(&format!("/cancel-social-task/{id}"), &json!({})).await
}

async fn report(server: &Server, id: &str) -> Value {
    server.get(&format!("/get-report/{id}")).await.1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_started_task_is_cancelled_and_takes_no_more_votes() {
    let server = Server::start().await;
    let id = server.create(&example_request()).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let (status, _) = server.vote(&id, REVIEWERS[0], json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!(status, 200);

    assert_eq!(cancel(&server, &id).await, (200, json!({"social_task_id": id, "status": "cancelled"})));
    assert_eq!(server.status_of(&id).await.as_deref(), Some("cancelled"));
    for voter in &REVIEWERS[1..] {
        let answer = server.vote(&id, voter, json!({"selected_option": "agent-translator-01"})).await;
        assert_eq!(answer, (409, json!({"error": "Vote rejected: Voting task is cancelled."})));
    }
    assert_eq!(report(&server, &id).await, json!({}), "no evaluation");
    assert_eq!(cancel(&server, &id).await, (409, json!({"error": "Voting task is cancelled."})));
    assert_eq!(cancel(&server, "task_00000000").await, (404, json!({"error": "Invalid social_task_id."})));
    // The stored task keeps the spec's fields, its status aside.
    let (_, bundle) = server.get(&format!("/get-full-task-bundle/{id}")).await;
    assert_eq!(bundle["task"]["report_json"], json!({}));
    assert_eq!(bundle["votes"].as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_scheduled_task_is_cancelled_and_never_starts() {
    let server = Server::start_with(|c| c.sweep_interval_ms = 100).await;
    let mut request = example_request();
    let soon = chrono::Utc::now() + chrono::Duration::milliseconds(800);
    request["social_task"]["scheduled_time"] = json!(agora_voting_schema::time::format_datetime(&soon));
    let id = server.create(&request).await;
    assert_eq!(cancel(&server, &id).await.0, 200);
    // Past its start time, its start timer fired and the sweeps ran: it stays cancelled.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(server.status_of(&id).await.as_deref(), Some("cancelled"));
    for option in TRANSLATORS {
        assert!(server.inbox(option).await.is_empty(), "{option} invited to a cancelled task");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_evaluation_under_way_wins_and_the_cancel_answers_409() {
    let post_award = HookServer::start(Duration::from_secs(2), |_| (200, json!({"done": true}).to_string())).await;
    let mut request = example_request();
    request["evaluation_spec"]["post_award"] = json!({"mode": "http", "url": post_award.url});
    let server = Server::start().await;
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    for voter in REVIEWERS {
        assert_eq!(server.vote(&id, voter, json!({"selected_option": "agent-translator-02"})).await.0, 200);
    }
    wait_until("post-award called", WAIT, || async { (post_award.calls() > 0).then_some(()) }).await;
    let answer = cancel(&server, &id).await;
    assert_eq!(answer, (409, json!({"error": "The task's evaluation is under way: it can no longer be cancelled."})));
    server.wait_for_status(&id, "complete", WAIT).await;
    assert_eq!(report(&server, &id).await["winners"], json!(["agent-translator-02"]));
    assert_eq!(cancel(&server, &id).await, (409, json!({"error": "Voting task is complete."})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancel_racing_the_last_vote_leaves_a_cancelled_task_or_a_complete_one_never_both() {
    let server = Server::start_with(|c| c.sweep_interval_ms = 100).await;
    let (mut cancelled, mut completed) = (0, 0);
    for _ in 0..8 {
        let id = server.create(&example_request()).await;
        server.wait_for_status(&id, "started", WAIT).await;
        for voter in &REVIEWERS[..2] {
            assert_eq!(server.vote(&id, voter, json!({"selected_option": "agent-translator-03"})).await.0, 200);
        }
        // The last vote and the cancel, as two real requests at once.
        let (vote, cancel_answer) =
            tokio::join!(server.vote(&id, REVIEWERS[2], json!({"selected_option": "agent-translator-03"})), cancel(&server, &id));
        // Let any evaluation the last vote requested run (or find the task cancelled).
        tokio::time::sleep(Duration::from_millis(400)).await;
        let status = server.status_of(&id).await;
        let report = report(&server, &id).await;
        match status.as_deref() {
            Some("cancelled") => {
                cancelled += 1;
                assert_eq!(cancel_answer.0, 200, "cancelled by this cancel");
                assert_eq!(report, json!({}), "a cancelled task has no report");
                assert!(vote.0 == 200 || vote.1["error"] == "Vote rejected: Voting task is cancelled.", "{vote:?}");
            }
            Some("complete") => {
                completed += 1;
                assert_eq!(cancel_answer.0, 409, "a completed task was not cancelled: {cancel_answer:?}");
                assert_eq!(vote.0, 200);
                assert_eq!(report["winners"], json!(["agent-translator-03"]));
            }
            other => panic!("task {id} is {other:?} after the race (vote {vote:?}, cancel {cancel_answer:?})"),
        }
        // Settled: a second look sees the same.
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(server.status_of(&id).await, status);
    }
    assert_eq!(cancelled + completed, 8);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn live_stream_subscribers_get_a_final_update_on_cancel() {
    let server = Server::start().await;
    let id = server.create(&public_request(5)).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let url = format!("ws://{}/live-stream", server.running.addr);
    let (mut socket, _) = tokio_tungstenite::connect_async(url).await.expect("websocket connects");
    let first = json!({"social_task_id": id, "refresh_interval": 60}).to_string();
    socket.send(Message::Text(first.into())).await.expect("send request");
    let mut updates = Vec::new();
    let read = async {
        while let Some(msg) = socket.next().await {
            match msg {
                Ok(Message::Text(t)) => updates.push(serde_json::from_str::<Value>(t.as_str()).expect("JSON")),
                Ok(Message::Close(_)) => break,
                Ok(_) => {}
                Err(e) => panic!("websocket error: {e}"),
            }
        }
    };
    let cancel_soon = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel(&server, &id).await
    };
    let ((), answer) = tokio::time::timeout(Duration::from_secs(10), async { tokio::join!(read, cancel_soon) })
        .await
        .expect("the stream closes after the final update");
    assert_eq!(answer.0, 200);
    let last = updates.last().expect("an update");
    assert_eq!(last["data"]["task"]["status"], "cancelled", "the final update shows the cancelled task, then the stream closes");
}
