//! `kill -9` of the local server in the middle of Orcade's work, then a start on the same data
//! (the embedded store's folder, or the same MongoDB or DynamoDB database with
//! `AGORA_E2E_STORE`): within a bounded time every closed job has exactly one winner, the
//! evaluator's decision is applied once, and every round trip of §5 is stored exactly once (a
//! call in flight at the kill is made again with the same `task_id` and `session_id`, saying it
//! is a retry: `Agora-Retry: true`). On MongoDB, a kill inside a bid's transaction holds up the
//! job's next bids for no more than a few seconds after the restart.

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

/// Each subject's calls of `event` so far, with the `Agora-Retry` header of each.
fn calls_with_retry(delegate: &StubServer, event: &str) -> std::collections::BTreeMap<String, Vec<(Value, Option<String>)>> {
    let header = agora_ports::RETRY_HEADER.to_ascii_lowercase();
    let mut by_subject: std::collections::BTreeMap<String, Vec<(Value, Option<String>)>> = Default::default();
    for call in delegate.received("/").into_iter().filter(|r| r.json["task_data"]["event_type"] == json!(event)) {
        let subject = call.json["subject_id"].as_str().unwrap_or_default().to_owned();
        by_subject.entry(subject).or_default().push((call.json, call.headers.get(&header).cloned()));
    }
    by_subject
}

/// The `event` calls to `in_flight` (subjects whose call had begun at the kill) were made again
/// after the restart: the same `task_id` and `session_id` (the id of the result `stored` for
/// that subject), the repeat saying it is a retry and the first call not.
fn made_again_as_retries(delegate: &StubServer, event: &str, in_flight: &[String], stored: &[Value]) {
    let calls = calls_with_retry(delegate, event);
    for subject in in_flight {
        let calls = &calls[subject];
        assert!(calls.len() >= 2, "{event} to {subject}, in flight at the kill, is made again: {calls:?}");
        let (first, first_retry) = &calls[0];
        assert_eq!(first_retry, &None, "{event} to {subject}: the first call is no retry: {calls:?}");
        for (again, retry) in &calls[1..] {
            assert_eq!(retry.as_deref(), Some("true"), "{event} to {subject}: a repeat carries Agora-Retry: true: {calls:?}");
            assert_eq!((&again["task_id"], &again["session_id"]), (&first["task_id"], &first["session_id"]), "{calls:?}");
        }
        let result = stored.iter().find(|r| r["bid_subject_id"] == json!(subject)).expect("a stored result");
        assert_eq!(result["bid_task_result_id"], first["task_id"], "the result is stored under the calls' id: {result}");
    }
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
    // A call sent just before the kill reaches the stub a moment later.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let in_flight: Vec<String> = calls_with_retry(&delegate, "bid_request").into_keys().collect();

    let server = data_dir.start();
    let requests = results_settle(&server, &id, "bid_request", 3).await;
    assert!(requests.iter().all(|r| r["task_result"]["success"] == json!(true)), "{requests:?}");
    made_again_as_retries(&delegate, "bid_request", &in_flight, &requests);
    for (s, price) in [("d1", 9.0), ("d2", 4.0), ("d3", 6.0)] {
        assert_eq!(server.post(&format!("/bid-jobs/{id}/bids"), &bid(s, price, 0.9)).await.0, 201);
    }
    // The bid_winner is in flight: kill again.
    wait_for_calls("the bid_winner call", || calls_of(&delegate, "bid_winner").len()).await;
    server.kill();

    let server = data_dir.start();
    let won = results_settle(&server, &id, "bid_winner", 1).await;
    assert_eq!(won[0]["task_result"]["ack"]["for"], json!("d2"), "{}", won[0]);
    made_again_as_retries(&delegate, "bid_winner", &["d2".to_owned()], &won);
    assert_eq!(winners(&server, &id).await, ["d2"]);
    let to_winner = calls_of(&delegate, "bid_winner");
    assert!(!to_winner.is_empty() && to_winner.iter().all(|c| c["subject_id"] == json!("d2")), "{to_winner:?}");
}

/// `uri` with `appName=app` in its query string.
fn with_app_name(uri: &str, app: &str) -> String {
    let has_path = uri.split_once("://").is_some_and(|(_, rest)| rest.contains('/'));
    match (uri.contains('?'), has_path) {
        (true, _) => format!("{uri}&appName={app}"),
        (false, true) => format!("{uri}?appName={app}"),
        (false, false) => format!("{uri}/?appName={app}"),
    }
}

/// MongoDB only: the server is killed while a bid's transaction has raised the job's counter
/// (`bids:<job>`) and waits for its commit, which a `failCommand` failpoint holds (and then
/// fails, so that the transaction is never committed). The transaction stays open on the
/// MongoDB server, holding the counter that every bid of the job raises, until the server's
/// transaction lifetime (60 s) ends it, unless the restarted local server ends it: the next bids
/// on the job must be answered within 5 s of the restart, and no acknowledged bid is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn killed_inside_a_bids_transaction_the_next_bids_on_the_job_are_answered_within_5_s_of_the_restart() {
    use mongodb::bson::doc;
    if std::env::var("AGORA_E2E_STORE").ok().as_deref() != Some("mongodb") {
        println!("skipped: a transaction a kill leaves open is MongoDB's (run with AGORA_E2E_STORE=mongodb)");
        return;
    }
    let uri = std::env::var("MONGODB_URI").expect("AGORA_E2E_STORE=mongodb needs MONGODB_URI");
    let client = mongodb::Client::with_uri_str(&uri).await.expect("MONGODB_URI");
    let admin = client.database("admin");
    if let Err(e) = admin.run_command(doc! {"configureFailPoint": "failCommand", "mode": "off"}).await {
        println!(
            "skipped: the MongoDB server at MONGODB_URI has no failpoints ({e}); start it with its test commands on \
             (secantusd-py --enable-test-commands, as tests/services.sh does; mongod --setParameter enableTestCommands=1)"
        );
        return;
    }
    // The server's own application name, so that the failpoint holds its commit and no other
    // test's.
    let app = format!("agora-ocrash-{}", uuid::Uuid::new_v4().simple());
    let envs = [("MONGODB_URI".to_owned(), with_app_name(&uri, &app))];
    let data_dir = ServerData::new(env!("CARGO_BIN_EXE_agora-e2e-local"), "obidtxn", &[]);
    let server = data_dir.start_with_env(&envs);
    let (status, created) = server.post("/bid-jobs", &super::open_job(Some(1000), None)).await;
    assert_eq!(status, 201, "{created}");
    let id = id_of(&created["data"]);
    let bids_url = format!("/bid-jobs/{id}/bids");
    let mut acknowledged = Vec::new();
    for i in 0..5 {
        let subject = format!("before-{i}");
        let (status, body) = server.post(&bids_url, &bid(&subject, 10.0 + i as f64, 0.9)).await;
        assert_eq!(status, 201, "{body}");
        acknowledged.push(subject);
    }

    // The next commit of this server is held for 4 s, then failed.
    let hold = doc! {
        "configureFailPoint": "failCommand",
        "mode": {"times": 1},
        "data": {"failCommands": ["commitTransaction"], "appName": &app, "blockConnection": true, "blockTimeMS": 4000, "errorCode": 8},
    };
    admin.run_command(hold).await.expect("configureFailPoint");
    let in_flight = {
        let (http, url) = (server.http.clone(), server.url(&bids_url));
        let body = bid("in-flight", 1.0, 0.9).to_string();
        tokio::spawn(
            async move { http.post(url).header("content-type", "application/json").body(body).send().await.ok().map(|r| r.status()) },
        )
    };
    tokio::time::sleep(Duration::from_millis(1000)).await;
    if in_flight.is_finished() {
        panic!("the bid was answered before the kill: the failpoint did not hold its commit ({:?})", in_flight.await);
    }
    // Inside the bid's transaction: the counter raised, the bid inserted, the commit not done.
    server.kill();
    assert_eq!(in_flight.await.expect("sender"), None, "the killed server answered the bid");
    admin.run_command(doc! {"configureFailPoint": "failCommand", "mode": "off"}).await.expect("failpoint off");

    let restart = Instant::now();
    let server = data_dir.start_with_env(&envs);
    let started = restart.elapsed();
    let deadline = restart + Duration::from_secs(5);
    let mut answered = Vec::new();
    for i in 0..5 {
        let subject = format!("after-{i}");
        let request = bid(&subject, 20.0 + i as f64, 0.9);
        let sent = tokio::time::timeout(deadline.saturating_duration_since(Instant::now()), server.post(&bids_url, &request));
        let Ok((status, body)) = sent.await else {
            panic!("bid {subject} not answered within 5 s of the restart (the server started in {started:?}; answered before it: {answered:?})");
        };
        assert_eq!(status, 201, "bid {subject}, {:?} after the restart: {body}", restart.elapsed());
        answered.push((subject.clone(), restart.elapsed()));
        acknowledged.push(subject);
    }
    println!("restart: the server listened after {started:?}; bids answered at {answered:?}");
    // The bid the kill interrupted was never committed: sent again, it is stored once.
    let (status, body) = server.post(&bids_url, &bid("in-flight", 1.0, 0.9)).await;
    assert_eq!(status, 201, "the interrupted bid sent again: {body}");
    acknowledged.push("in-flight".to_owned());

    let bids = data(&server, &bids_url).await;
    let mut stored: Vec<String> =
        bids.as_array().expect("array").iter().map(|b| b["bid_subject_id"].as_str().expect("subject").to_owned()).collect();
    stored.sort();
    acknowledged.sort();
    assert_eq!(stored, acknowledged, "every acknowledged bid is stored, once");
}
