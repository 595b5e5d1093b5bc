//! `kill -9` of the local server in the middle of Orcade's work, then a start on the same data
//! (the embedded store's folder, or the same MongoDB or DynamoDB database with
//! `AGORA_E2E_STORE`): within a bounded time every closed job has exactly one winner, the
//! evaluator's decision is applied once, and every round trip of §5 is stored exactly once.

use super::{bid, closed_job, id_of};
use agora_e2e::crash::{recovery, ServerData};
use agora_e2e::{wait_until, HookServer, ServerProcess, StubServer};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// A server's data, its delegate calls to `delegate` under a 2 s time limit.
fn server_data(delegate: &StubServer) -> ServerData {
    let args = ["--delegate-api-url", &delegate.url, "--delegate-timeout-ms", "2000"];
    ServerData::new(env!("CARGO_BIN_EXE_agora-e2e-local"), "ocrash", &args)
}

/// A delegate system that answers after `delay`.
async fn delegate(delay: Duration) -> StubServer {
    StubServer::start(delay, |r| {
        let reply =
            json!({"success": true, "ack": {"for": r.json["subject_id"], "event": r.json["task_data"]["event_type"]}, "output": {}});
        (200, Vec::new(), reply.to_string().into_bytes())
    })
    .await
}

fn calls_of(delegate: &StubServer, event: &str) -> Vec<Value> {
    delegate.received("/").into_iter().map(|r| r.json).filter(|j| j["task_data"]["event_type"] == json!(event)).collect()
}

async fn data(server: &ServerProcess, path: &str) -> Value {
    let (status, body) = server.get(path).await;
    assert_eq!((status, &body["ok"]), (200, &json!(true)), "GET {path}: {body}");
    body["data"].clone()
}

/// Waits until the job has `n` results of `task_type`, then checks that a while later there are
/// still exactly `n`.
async fn results_settle(server: &ServerProcess, job: &str, task_type: &str, n: usize) -> Vec<Value> {
    let of_type = |all: Value| -> Vec<Value> {
        all.as_array().into_iter().flatten().filter(|r| r["task_type"] == json!(task_type)).cloned().collect()
    };
    wait_until(&format!("{n} {task_type} results of {job}"), recovery(), || async {
        let found = of_type(data(server, &format!("/bid-jobs/{job}/task-results")).await);
        assert!(found.len() <= n, "more than {n} {task_type} results: {found:?}");
        (found.len() == n).then_some(())
    })
    .await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let found = of_type(data(server, &format!("/bid-jobs/{job}/task-results")).await);
    assert_eq!(found.len(), n, "{task_type} results of {job}: {found:?}");
    found
}

/// The subjects of the job's winning bids, once one is there.
async fn winners(server: &ServerProcess, job: &str) -> Vec<String> {
    wait_until(&format!("a winner of {job}"), recovery(), || async {
        let bids = data(server, &format!("/bid-jobs/{job}/bids")).await;
        let w: Vec<String> = bids
            .as_array()
            .into_iter()
            .flatten()
            .filter(|b| b["is_winner"] == json!(true))
            .filter_map(|b| b["bid_subject_id"].as_str().map(str::to_owned))
            .collect();
        (!w.is_empty()).then_some(w)
    })
    .await
}

async fn wait_for_calls(what: &str, count: impl Fn() -> usize) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while count() == 0 {
        assert!(Instant::now() < deadline, "{what} never happened");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_during_a_slow_evaluator_the_job_gets_one_winner_after_the_restart() {
    let delegate = delegate(Duration::ZERO).await;
    let evaluator = HookServer::start(Duration::from_millis(3000), |input| {
        let first = input["bids"][0]["bid_subject_id"].clone();
        (200, json!({"status": "resolved", "winner_subject_id": first, "result_data": {}}).to_string())
    })
    .await;
    let data_dir = server_data(&delegate);
    let server = data_dir.start();
    let mut request = closed_job();
    request["bid_job_evaluator_id"] = json!(evaluator.url);
    request["bid_job_subject_ids"] = json!(["k1", "k2"]);
    let (status, created) = server.post("/bid-jobs", &request).await;
    assert_eq!(status, 201, "{created}");
    let id = id_of(&created["data"]);
    for (s, price) in [("k1", 5.0), ("k2", 3.0)] {
        assert_eq!(server.post(&format!("/bid-jobs/{id}/bids"), &bid(s, price, 0.9)).await.0, 201);
    }
    wait_for_calls("the evaluator's call", || evaluator.calls()).await;
    // Mid-call: the evaluator holds the job's claim, and the queued request is not done.
    server.kill();

    let server = data_dir.start();
    assert_eq!(winners(&server, &id).await, ["k1"]);
    assert!(evaluator.calls() >= 2, "asked again after the restart");
    let won = results_settle(&server, &id, "bid_winner", 1).await;
    assert_eq!(won[0]["task_result"]["ack"]["for"], json!("k1"));
    assert_eq!(calls_of(&delegate, "bid_winner").len(), 1, "the winner was told once");
    results_settle(&server, &id, "bid_request", 2).await;
    assert_eq!(winners(&server, &id).await, ["k1"], "still one winner");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_during_slow_delegate_calls_every_round_trip_is_stored_once_after_the_restart() {
    let delegate = delegate(Duration::from_millis(1500)).await;
    let data_dir = server_data(&delegate);
    let server = data_dir.start();
    let mut request = closed_job();
    request["bid_job_subject_ids"] = json!(["d1", "d2", "d3"]);
    let (status, created) = server.post("/bid-jobs", &request).await;
    assert_eq!(status, 201, "{created}");
    let id = id_of(&created["data"]);
    // The bid_requests are in flight: kill.
    wait_for_calls("a bid_request call", || calls_of(&delegate, "bid_request").len()).await;
    server.kill();

    let server = data_dir.start();
    let requests = results_settle(&server, &id, "bid_request", 3).await;
    assert!(requests.iter().all(|r| r["task_result"]["success"] == json!(true)), "{requests:?}");
    for (s, price) in [("d1", 9.0), ("d2", 4.0), ("d3", 6.0)] {
        assert_eq!(server.post(&format!("/bid-jobs/{id}/bids"), &bid(s, price, 0.9)).await.0, 201);
    }
    // The bid_winner is in flight: kill again.
    wait_for_calls("the bid_winner call", || calls_of(&delegate, "bid_winner").len()).await;
    server.kill();

    let server = data_dir.start();
    let won = results_settle(&server, &id, "bid_winner", 1).await;
    assert_eq!(won[0]["task_result"]["ack"]["for"], json!("d2"), "{}", won[0]);
    assert_eq!(winners(&server, &id).await, ["d2"]);
    let to_winner = calls_of(&delegate, "bid_winner");
    assert!(!to_winner.is_empty() && to_winner.iter().all(|c| c["subject_id"] == json!("d2")), "{to_winner:?}");
}
