//! Xchange on the local server, printed as figures (not a test), embedded store, local delegate:
//! 1. direct tasks completed per second: `BENCH_TASKS` direct tasks posted by `BENCH_CLIENTS`
//!    keep-alive clients (the lean client of `agora_e2e::load`), from the first post until every
//!    task is `completed` (each a delegate round trip from the assignment queue);
//! 2. function mode's `POST /tasks` latency, p50 and p99, with `builtin:first-subject` and
//!    `BENCH_SUBJECTS` subjects (the selector reads every subject inline), one request at a time;
//! 3. bidding mode: the time from the last bid's answer to the task's `completed` as a client
//!    polling `GET /tasks/{id}/output` sees it (evaluation, the `bid_winner` round trip,
//!    Orcade's resolution event, the task's settlement), median and worst of `BENCH_BIDDING` runs.
//!
//! `cargo bench -p agora-e2e --bench xchange`

use agora_e2e::load::lean_worker;
use agora_e2e::Server;
use agora_filter::Filter;
use futures::future::join_all;
use serde_json::{json, Value};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

async fn remaining(server: &Server) -> u64 {
    let store = server.running.xchange.ports().store.clone();
    store.count(agora_xchange_schema::TASKS, &Filter::must(json!({"task_assignment_status": {"$ne": "completed"}})), None).await.unwrap()
}

async fn direct_tasks_per_second(server: &Server, total: usize, clients: usize) -> (f64, f64) {
    let body = |i: usize| {
        json!({"task_assignment_type": "direct", "task_data": {"n": i},
               "task_metadata": {"task_assignment": {"subject_id": format!("agent-{}", i % 50)}}})
        .to_string()
    };
    let requests: Arc<Vec<(String, String)>> = Arc::new((0..total).map(|i| ("/tasks".to_owned(), body(i))).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers = (0..clients).map(|_| {
        let (requests, next, addr) = (requests.clone(), next.clone(), server.running.addr);
        tokio::spawn(async move { lean_worker(addr, &requests, 201, &next).await.expect("worker") })
    });
    let accepted: usize = join_all(workers).await.into_iter().map(|r| r.expect("worker task")).sum();
    let posted = started.elapsed();
    assert_eq!(accepted, total, "every task accepted");
    let deadline = Instant::now() + Duration::from_secs(300);
    while remaining(server).await > 0 {
        assert!(Instant::now() < deadline, "tasks not completed in 300 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let done = started.elapsed();
    (total as f64 / posted.as_secs_f64(), total as f64 / done.as_secs_f64())
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn function_latency(server: &Server, subjects: usize, requests: usize) -> (Duration, Duration) {
    for i in 0..subjects {
        let (status, body) =
            server.post("/subjects", &json!({"subject_id": format!("s-{i:05}"), "subject_capabilities": {"ocr": i % 2 == 0}})).await;
        assert_eq!(status, 201, "{body}");
    }
    let task = json!({"task_assignment_type": "function", "task_data": {},
                      "task_metadata": {"task_assignment": {"function_id": "builtin:first-subject"}}});
    let mut times = Vec::with_capacity(requests);
    for _ in 0..requests {
        let started = Instant::now();
        let (status, body) = server.post("/tasks", &task).await;
        times.push(started.elapsed());
        assert_eq!(status, 201, "{body}");
        assert_eq!(body["data"]["task_metadata"]["assigned_subject_id"], json!("s-00000"));
    }
    times.sort();
    (percentile(&times, 0.5), percentile(&times, 0.99))
}

async fn output(server: &Server, id: &str) -> Value {
    server.get(&format!("/tasks/{id}/output")).await.1["data"].clone()
}

async fn last_bid_to_completed(server: &Server, run: usize) -> Duration {
    let task = json!({"task_assignment_type": "bidding", "task_data": {},
        "task_metadata": {"task_assignment": {"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_subject_ids": ["a", "b"]}}});
    let (status, body) = server.post("/tasks", &task).await;
    assert_eq!(status, 201, "{body}");
    let id = body["data"]["task_id"].as_str().unwrap().to_owned();
    let job = loop {
        let (_, t) = server.get(&format!("/tasks/{id}")).await;
        if let Some(job) = t["data"]["task_metadata"]["bid_job_id"].as_str() {
            break job.to_owned();
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    };
    let bid = |s: &str, price: f64| json!({"bid_subject_id": s, "bid_data": {"price_usd": price + run as f64}});
    assert_eq!(server.post(&format!("/bid-jobs/{job}/bids"), &bid("a", 10.0)).await.0, 201);
    let (status, _) = server.post(&format!("/bid-jobs/{job}/bids"), &bid("b", 5.0)).await;
    let last = Instant::now();
    assert_eq!(status, 201);
    loop {
        let out = output(server, &id).await;
        if out["task_assignment_status"] == json!("completed") {
            assert_eq!(out["task_output"]["bid_subject_id"], json!("b"));
            return last.elapsed();
        }
        assert!(last.elapsed() < Duration::from_secs(30), "not completed: {out}");
        tokio::time::sleep(Duration::from_micros(500)).await;
    }
}

#[tokio::main]
async fn main() {
    let (total, clients) = (env_usize("BENCH_TASKS", 5_000), env_usize("BENCH_CLIENTS", 32));
    let server = Server::start().await;
    let (posted, completed) = direct_tasks_per_second(&server, total, clients).await;
    println!(
        "direct tasks: {total} by {clients} clients: {posted:.0} posted/s, {completed:.0} completed/s (post to completed, local delegate)"
    );
    drop(server);

    let (subjects, requests) = (env_usize("BENCH_SUBJECTS", 1_000), env_usize("BENCH_REQUESTS", 500));
    let server = Server::start().await;
    let (p50, p99) = function_latency(&server, subjects, requests).await;
    println!("function mode POST /tasks, builtin:first-subject, {subjects} subjects: p50 {p50:.2?}, p99 {p99:.2?} ({requests} requests)");
    drop(server);

    let runs = env_usize("BENCH_BIDDING", 20);
    let server = Server::start().await;
    let mut times = Vec::with_capacity(runs);
    for run in 0..runs {
        times.push(last_bid_to_completed(&server, run).await);
    }
    times.sort();
    println!("bidding mode, last bid to completed: median {:.2?}, worst {:.2?} ({runs} runs)", percentile(&times, 0.5), times[runs - 1]);
}
