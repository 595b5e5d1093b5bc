//! `kill -9` of the local server in the middle of Xchange's work, then a start on the same data
//! (the embedded store's folder, or the same MongoDB or DynamoDB database with
//! `AGORA_E2E_STORE`): every task acknowledged with a 201 ends `completed`, its `task_output`
//! the reply to one of its own delegate calls; a task whose call had not begun before the kill
//! is handed over exactly once, and one whose call was in flight is handed over again with the
//! same `task_id` and `session_id`, saying it is a retry (`Agora-Retry: true`); a bidding task
//! whose winner was being told completes with the one `bid_winner`.

use super::{delegate_calls, delegate_reply, delegate_stub, direct_task, id_of};
use agora_e2e::crash::{recovery, ServerData};
use agora_e2e::{wait_until, ServerProcess, StubServer};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::Duration;

/// A server's data, its delegate calls to `delegate` under a 3 s time limit.
fn data(delegate: &StubServer) -> ServerData {
    let args = ["--delegate-api-url", &delegate.url, "--delegate-timeout-ms", "3000"];
    ServerData::new(env!("CARGO_BIN_EXE_agora-e2e-local"), "xcrash", &args)
}

async fn created(server: &ServerProcess, path: &str, body: &Value) -> Value {
    let (status, answer) = server.post(path, body).await;
    assert_eq!((status, &answer["ok"]), (201, &json!(true)), "POST {path} {body}: {answer}");
    answer["data"].clone()
}

async fn data_of(server: &ServerProcess, path: &str) -> Value {
    let (status, body) = server.get(path).await;
    assert_eq!((status, &body["ok"]), (200, &json!(true)), "GET {path}: {body}");
    body["data"].clone()
}

/// Waits until the task is final; returns `{"task_assignment_status", "task_output"}`.
async fn final_output(server: &ServerProcess, id: &str) -> Value {
    wait_until(&format!("task {id} final"), recovery(), || async {
        let output = data_of(server, &format!("/tasks/{id}/output")).await;
        let status = output["task_assignment_status"].as_str().unwrap_or_default().to_owned();
        super::FINAL.contains(&status.as_str()).then_some(output)
    })
    .await
}

/// The delegate calls received so far, by task id.
fn calls_by_task(delegate: &StubServer) -> BTreeMap<String, Vec<Value>> {
    let mut by_task: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for call in delegate_calls(delegate) {
        by_task.entry(call["task_id"].as_str().unwrap_or_default().to_owned()).or_default().push(call);
    }
    by_task
}

/// The delegate calls received so far, by task id, with the `Agora-Retry` header of each.
fn calls_with_retry_by_task(delegate: &StubServer) -> BTreeMap<String, Vec<(Value, Option<String>)>> {
    let header = agora_ports::RETRY_HEADER.to_ascii_lowercase();
    let mut by_task: BTreeMap<String, Vec<(Value, Option<String>)>> = BTreeMap::new();
    for call in delegate.received("/api/submit-and-wait") {
        let task = call.json["task_id"].as_str().unwrap_or_default().to_owned();
        by_task.entry(task).or_default().push((call.json, call.headers.get(&header).cloned()));
    }
    by_task
}

async fn wait_for_a_call(delegate: &StubServer, what: &str, matches: impl Fn(&Value) -> bool) {
    wait_until(what, Duration::from_secs(10), || async { delegate_calls(delegate).iter().any(&matches).then_some(()) }).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_with_direct_tasks_in_flight_and_queued_every_acknowledged_task_completes() {
    let delegate = delegate_stub(Duration::from_millis(1500)).await;
    let data = data(&delegate);
    let server = data.start();
    let mut ids = Vec::new();
    for n in 0..12 {
        ids.push(id_of(&created(&server, "/tasks", &direct_task(&format!("c{}", n % 3), json!({"n": n}))).await));
    }
    // The first round trips are in flight, the rest queued: kill.
    wait_for_a_call(&delegate, "a delegate call", |_| true).await;
    server.kill();
    // A call sent just before the kill reaches the stub a moment later.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = calls_by_task(&delegate);

    let server = data.start();
    for id in &ids {
        let output = final_output(&server, id).await;
        assert_eq!(output["task_assignment_status"], json!("completed"), "task {id}: {output}");
        let calls = calls_by_task(&delegate).remove(id).unwrap_or_default();
        assert!(
            calls.iter().any(|c| delegate_reply(c) == output["task_output"]),
            "task {id}: its output is the reply to one of its calls: {output} {calls:?}"
        );
        match before.contains_key(id) {
            // In flight at the kill: made again after the restart, with the same task_id.
            true => assert!(calls.len() <= 2, "task {id}: {calls:?}"),
            false => assert_eq!(calls.len(), 1, "task {id}, queued at the kill, is handed over once: {calls:?}"),
        }
    }
    // A call in flight at the kill is made again with the same task_id and session_id, and says
    // it is a retry; the call before the kill did not.
    let mut repeated = 0;
    for (id, calls) in calls_with_retry_by_task(&delegate) {
        if !before.contains_key(&id) {
            continue;
        }
        let (first, first_retry) = &calls[0];
        assert_eq!(first_retry, &None, "task {id}: its first call is no retry: {calls:?}");
        for (again, retry) in &calls[1..] {
            repeated += 1;
            assert_eq!(retry.as_deref(), Some("true"), "task {id}: a repeat carries Agora-Retry: true: {calls:?}");
            assert_eq!((&again["task_id"], &again["session_id"]), (&first["task_id"], &first["session_id"]), "task {id}: {calls:?}");
        }
    }
    assert!(repeated > 0, "a call in flight at the kill is made again: {before:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_while_the_winner_is_told_the_bidding_task_completes_after_the_restart() {
    let delegate = delegate_stub(Duration::from_millis(1500)).await;
    let data = data(&delegate);
    let server = data.start();
    for subject in ["b1", "b2"] {
        created(&server, "/subjects", &json!({"subject_id": subject, "topics": ["x"]})).await;
    }
    let request = json!({"task_assignment_type": "bidding", "task_data": {},
        "task_metadata": {"task_assignment": {"bid_job_evaluator_id": "builtin:lowest-price", "topics": ["x"]}}});
    let id = id_of(&created(&server, "/tasks", &request).await);
    let job = wait_until("the task bidding", Duration::from_secs(10), || async {
        let task = data_of(&server, &format!("/tasks/{id}")).await;
        task["task_metadata"]["bid_job_id"].as_str().map(str::to_owned)
    })
    .await;
    for (subject, price) in [("b1", 100), ("b2", 80)] {
        created(&server, &format!("/bid-jobs/{job}/bids"), &json!({"bid_subject_id": subject, "bid_data": {"price_usd": price}})).await;
    }
    // The winner's bid_winner call is in flight: kill.
    wait_for_a_call(&delegate, "the bid_winner call", |c| c["task_data"]["event_type"] == json!("bid_winner")).await;
    server.kill();

    let server = data.start();
    let output = final_output(&server, &id).await;
    assert_eq!(output["task_assignment_status"], json!("completed"), "{output}");
    let winner = &output["task_output"];
    assert_eq!((&winner["task_type"], &winner["bid_subject_id"]), (&json!("bid_winner"), &json!("b2")), "{winner}");
    let results = data_of(&server, &format!("/bid-jobs/{job}/task-results")).await;
    let wins: Vec<&Value> = results.as_array().into_iter().flatten().filter(|r| r["task_type"] == json!("bid_winner")).collect();
    assert_eq!(wins, [winner], "one bid_winner, the task's output");
}
