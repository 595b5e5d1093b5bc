//! `kill -9` in the middle of work a leased claim guards, with leases of a minute: the restarted
//! server ends the leases its killed run held (`agora_local::recovery`), so the work resumes
//! within seconds of the restart instead of a lease later. The first call of the hook or
//! delegate system is held until the kill; the call made after the restart is answered at once.

use super::HeldOnce;
use crate::xchange::{delegate_reply, direct_task, id_of};
use agora_e2e::crash::ServerData;
use agora_e2e::{example_request, vote_body, wait_until, HookServer, ServerProcess, REVIEWERS};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The claims' lease in these tests: far longer than the recovery they allow.
const LEASE_MS: u64 = 60_000;

/// How long after the restart the interrupted work must be done.
const WITHIN: Duration = Duration::from_secs(5);

/// How long the first call is held: until long after the kill.
const HOLD: Duration = Duration::from_secs(120);

fn data(tag: &str, extra: &[&str]) -> ServerData {
    ServerData::with_lease(env!("CARGO_BIN_EXE_agora-e2e-local"), tag, LEASE_MS, extra)
}

async fn status_of(server: &ServerProcess, id: &str) -> Value {
    server.get(&format!("/get-status/{id}")).await.1["status"].clone()
}

/// Waits `within` at most for `probe`, timed from `since`; returns what it found.
async fn done_within<T, F: std::future::Future<Output = Option<T>>>(what: &str, since: Instant, probe: impl FnMut() -> F) -> T {
    let found = wait_until(what, WITHIN + Duration::from_secs(10), probe).await;
    let took = since.elapsed();
    assert!(took < WITHIN, "{what} {took:?} after the restart: not within {WITHIN:?} (the lease is {LEASE_MS} ms)");
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_mid_evaluation_the_task_completes_within_seconds_of_the_restart_not_a_lease_later() {
    let evaluation = HeldOnce::start(HOLD, |_| json!({"winner": "agent-translator-02"})).await;
    let post_award = HookServer::start(Duration::ZERO, |input| {
        (200, json!({"assigned_to": input["user_input"]["winners"][0], "decision": "assigned"}).to_string())
    })
    .await;
    let data = data("recovery", &[]);
    let server = data.start();
    let mut request = example_request();
    request["evaluation_spec"]["evaluation"] = json!({"mode": "http", "url": evaluation.url});
    request["evaluation_spec"]["post_award"] = json!({"mode": "http", "url": post_award.url});
    let (status, created) = server.post("/submit-social-choice-task", &request).await;
    assert_eq!(status, 201, "{created}");
    let id = created["social_task_id"].as_str().expect("id").to_owned();
    wait_until("the task started", Duration::from_secs(10), || async { (status_of(&server, &id).await == "started").then_some(()) }).await;
    for (reviewer, option) in REVIEWERS.iter().zip(["agent-translator-02", "agent-translator-02", "agent-translator-01"]) {
        let (status, body) = server.post("/submit-vote", &vote_body(&id, reviewer, json!({"selected_option": option}))).await;
        assert_eq!(status, 200, "{body}");
    }
    // Mid-hook: the evaluator holds the task's claim, leased for a minute.
    wait_until("the evaluation hook called", Duration::from_secs(10), || async { (!evaluation.calls().is_empty()).then_some(()) }).await;
    server.kill();

    let server = data.start();
    let restarted = Instant::now();
    done_within("the task complete", restarted, || async { (status_of(&server, &id).await == "complete").then_some(()) }).await;
    let (_, report) = server.get(&format!("/get-report/{id}")).await;
    assert_eq!(report["winners"], json!(["agent-translator-02"]), "{report}");
    assert_eq!(evaluation.calls().len(), 2, "evaluated again after the restart, once");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(post_award.calls(), 1, "post-award ran once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_mid_hand_over_the_exchange_task_completes_within_seconds_of_the_restart_not_a_lease_later() {
    let delegate = HeldOnce::start(HOLD, delegate_reply).await;
    // The delegate's time limit is a minute, and so the assignment's lease at least.
    let url = delegate.url.trim_end_matches('/').to_owned();
    let data = data("recovery-x", &["--delegate-api-url", &url, "--delegate-timeout-ms", "60000"]);
    let server = data.start();
    let (status, created) = server.post("/tasks", &direct_task("agent-summarizer-01", json!({"doc": "minutes.txt"}))).await;
    assert_eq!(status, 201, "{created}");
    let id = id_of(&created["data"]);
    wait_until("the hand-over begun", Duration::from_secs(10), || async { (!delegate.calls().is_empty()).then_some(()) }).await;
    server.kill();

    let server = data.start();
    let restarted = Instant::now();
    let output = done_within("the task completed", restarted, || async {
        let (_, body) = server.get(&format!("/tasks/{id}/output")).await;
        (body["data"]["task_assignment_status"] == "completed").then(|| body["data"].clone())
    })
    .await;
    let calls = delegate.calls();
    assert_eq!(calls.len(), 2, "handed over again after the restart, once: {calls:?}");
    assert_eq!((&calls[1]["task_id"], &calls[1]["session_id"]), (&calls[0]["task_id"], &calls[0]["session_id"]), "the same call again");
    assert_eq!(output["task_output"], delegate_reply(&calls[1]));
}
