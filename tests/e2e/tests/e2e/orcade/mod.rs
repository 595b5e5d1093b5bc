//! Orcade end to end over the local server's HTTP API (on the store `AGORA_E2E_STORE` names):
//! the three modes from creation to the winner's notification, every route's statuses in the
//! envelope of §3, and races that must end in one evaluation.

mod bad_input;
mod builtins;
mod concurrency;
mod crash;
mod flow;
mod input_keys;
mod lifecycle;
mod round_trips;
mod routes;

use agora_e2e::{wait_until, Server};
use serde_json::{json, Value};
use std::time::Duration;

/// How long background work (a queue, the sweep) is given.
pub const SOON: Duration = Duration::from_secs(20);

/// A closed job of three translators: min-confidence 0.8, lowest price wins.
pub fn closed_job() -> Value {
    json!({
        "bid_job_metadata": {"parameters": {"min": 0.8}},
        "bid_job_description": {"task_type": "translate_document"},
        "bid_job_name": {"en": "Translate Q3 report"},
        "bid_job_evaluator_id": "builtin:lowest-price",
        "bid_job_pqt_id": "builtin:min-confidence",
        "bid_job_creator_id": "planner",
        "bid_job_subject_ids": ["t1", "t2", "t3"],
        "bid_job_tags": ["translation", "fr"],
    })
}

/// An open job with no PQT, the lowest price winning, closing after `max` applicants or
/// `max_time` seconds.
pub fn open_job(max: Option<i64>, max_time: Option<i64>) -> Value {
    json!({
        "bid_job_metadata": {}, "bid_job_description": {}, "bid_job_name": {"en": "Open call"},
        "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_creator_id": "planner",
        "bid_job_mode": "open", "bid_job_max_subjects": max, "bid_job_max_time": max_time,
    })
}

pub fn bid(subject: &str, price: f64, confidence: f64) -> Value {
    json!({"bid_subject_id": subject, "bid_data": {"price_usd": price, "confidence": confidence}})
}

/// Creates a job; returns the stored job.
pub async fn create_job(server: &Server, request: &Value) -> Value {
    let (status, body) = server.post("/bid-jobs", request).await;
    assert_eq!(status, 201, "create: {body}");
    assert_eq!(body["ok"], json!(true), "{body}");
    body["data"].clone()
}

pub fn id_of(job: &Value) -> String {
    job["bid_job_id"].as_str().expect("bid_job_id").to_owned()
}

pub async fn submit(server: &Server, job: &str, bid: &Value) -> (u16, Value) {
    server.post(&format!("/bid-jobs/{job}/bids"), bid).await
}

/// `data` of a 200 answer to GET `path`.
pub async fn data(server: &Server, path: &str) -> Value {
    let (status, body) = server.get(path).await;
    assert_eq!((status, &body["ok"]), (200, &json!(true)), "GET {path}: {body}");
    body["data"].clone()
}

/// Waits until the job has `n` task results of `task_type`; returns them.
pub async fn results_of(server: &Server, job: &str, task_type: &str, n: usize) -> Vec<Value> {
    wait_until(&format!("{n} {task_type} results of {job}"), SOON, || async {
        let all = data(server, &format!("/bid-jobs/{job}/task-results")).await;
        let found: Vec<Value> = all.as_array().expect("array").iter().filter(|r| r["task_type"] == json!(task_type)).cloned().collect();
        assert!(found.len() <= n, "more than {n} {task_type} results: {found:?}");
        (found.len() == n).then_some(found)
    })
    .await
}

/// The job's bids, by subject.
pub async fn bids_by_subject(server: &Server, job: &str) -> std::collections::BTreeMap<String, Value> {
    let bids = data(server, &format!("/bid-jobs/{job}/bids")).await;
    bids.as_array().expect("array").iter().map(|b| (b["bid_subject_id"].as_str().expect("subject").to_owned(), b.clone())).collect()
}

/// Waits until one of the job's bids is the winner; returns its subject.
pub async fn winner_of(server: &Server, job: &str) -> String {
    wait_until(&format!("a winner of {job}"), SOON, || async {
        let winners: Vec<String> =
            bids_by_subject(server, job).await.into_iter().filter(|(_, b)| b["is_winner"] == json!(true)).map(|(s, _)| s).collect();
        assert!(winners.len() <= 1, "two winners: {winners:?}");
        winners.into_iter().next()
    })
    .await
}

/// Every route that takes a job's or a bid's id in its path, with `id` there.
pub fn id_routes(id: &str) -> [(reqwest::Method, String); 10] {
    use reqwest::Method;
    [
        (Method::GET, format!("/bid-jobs/{id}")),
        (Method::PATCH, format!("/bid-jobs/{id}")),
        (Method::DELETE, format!("/bid-jobs/{id}")),
        (Method::POST, format!("/bid-jobs/{id}/close")),
        (Method::POST, format!("/bid-jobs/{id}/bids")),
        (Method::GET, format!("/bid-jobs/{id}/bids")),
        (Method::GET, format!("/bid-jobs/{id}/task-results")),
        (Method::GET, format!("/bids/{id}")),
        (Method::PATCH, format!("/bids/{id}")),
        (Method::DELETE, format!("/bids/{id}")),
    ]
}
