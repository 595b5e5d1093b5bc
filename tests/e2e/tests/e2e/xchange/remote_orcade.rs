//! Bidding mode with Orcade elsewhere (`ORCADE_URL`): one local server is the Orcade, another
//! the exchange, which creates its bid jobs over Orcade's HTTP API and learns their outcomes by
//! polling (no event crosses from another deployment). The Orcade is either Agora's, with its
//! extra `GET /bid-jobs/{id}/evaluation`, or one that serves only the routes of orcade §3 (a
//! local server with `--orcade-spec-routes-only`, as an upstream Orcade would be): outcomes are
//! then read from the job's `bid_job_status`, its bids' `is_winner` and its task results.

use super::{data, final_output, id_of, post_subject, post_task, task};
use agora_e2e::Server;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn bidding_task(assignment: Value) -> Value {
    json!({"task_assignment_type": "bidding", "task_data": {"doc": "q4.pdf"}, "task_metadata": {"task_assignment": assignment}})
}

async fn job_of(exchange: &Server, id: &str) -> String {
    agora_e2e::wait_until("the task bidding", super::SOON, || async {
        let t = task(exchange, id).await;
        t["task_metadata"]["bid_job_id"].as_str().map(str::to_owned)
    })
    .await
}

async fn bid(orcade: &Server, job: &str, subject: &str, bid_data: Value) -> u16 {
    orcade.post(&format!("/bid-jobs/{job}/bids"), &json!({"bid_subject_id": subject, "bid_data": bid_data})).await.0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_exchange_bids_through_an_orcade_at_orcade_url_and_polls_its_outcomes() {
    // An Orcade without a function registry: it refuses a job whose evaluator is a registry id.
    let orcade = Server::start_with(|c| c.functions_dir = std::path::PathBuf::new()).await;
    let exchange = Server::start_with(|c| c.orcade_url = Some(orcade.base.clone())).await;
    for (id, topics) in [("r1", json!(["translation"])), ("r2", json!(["translation"])), ("r3", json!(["legal"]))] {
        post_subject(&exchange, &json!({"subject_id": id, "topics": topics})).await;
    }

    // The job lives on the Orcade server, with the roster the exchange resolved from topics.
    let assignment = json!({"bid_job_evaluator_id": "builtin:lowest-price", "topics": ["translation"],
                            "bid_job_description": {"task_type": "translate_document"}});
    let id = id_of(&post_task(&exchange, &bidding_task(assignment)).await);
    let job = job_of(&exchange, &id).await;
    let stored = data(&orcade, &format!("/bid-jobs/{job}")).await;
    assert_eq!(stored["bid_job_subject_ids"], json!(["r1", "r2"]), "{stored}");
    assert_eq!(stored["bid_job_description"], json!({"task_type": "translate_document"}));
    assert_eq!(exchange.get(&format!("/bid-jobs/{job}")).await.0, 404, "not on the exchange's own Orcade");
    assert_eq!(data(&exchange, &format!("/tasks/{id}/output")).await["task_assignment_status"], json!("bidding"));

    // The agents bid on Orcade; the exchange's polls find the winner's bid_winner.
    assert_eq!(bid(&orcade, &job, "r1", json!({"price_usd": 50})).await, 201);
    assert_eq!(bid(&orcade, &job, "r2", json!({"price_usd": 40})).await, 201);
    let output = final_output(&exchange, &id, "completed").await;
    let results = data(&orcade, &format!("/bid-jobs/{job}/task-results")).await;
    let winner = results.as_array().into_iter().flatten().find(|r| r["task_type"] == json!("bid_winner")).cloned();
    assert_eq!(Some(&output), winner.as_ref(), "task_output is Orcade's bid_winner result");
    assert_eq!(output["bid_subject_id"], json!("r2"));

    // No valid bids, as Orcade's evaluation record says over HTTP: failed.
    let assignment = json!({"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_subject_ids": ["r1"],
                            "bid_job_pqt_id": "builtin:min-confidence", "bid_job_metadata": {"parameters": {"min": 0.9}}});
    let id = id_of(&post_task(&exchange, &bidding_task(assignment)).await);
    let job = job_of(&exchange, &id).await;
    // Refused by the PQT and kept on file: the roster has answered, so the job closes.
    assert_eq!(bid(&orcade, &job, "r1", json!({"price_usd": 10, "confidence": 0.2})).await, 409);
    let output = final_output(&exchange, &id, "failed").await;
    assert!(output["error"].as_str().is_some_and(|e| e.contains("no_valid_bids")), "{output}");

    // A job Orcade's parser refuses (an unknown evaluator builtin) is refused at POST /tasks,
    // with Orcade's reason.
    let (status, body) = exchange.post("/tasks", &bidding_task(json!({"bid_job_evaluator_id": "builtin:no-such-rule"}))).await;
    let error = body["error"].as_str().unwrap_or_default();
    assert_eq!(status, 400, "{body}");
    assert!(error.starts_with("task_metadata.task_assignment.bid_job_evaluator_id names no builtin \"no-such-rule\""), "{body}");
    // A job only that Orcade refuses (a function mode it has no setting for) fails the task with
    // Orcade's words.
    let id = id_of(&post_task(&exchange, &bidding_task(json!({"bid_job_evaluator_id": "lowest-cost-evaluator:1.0-stable"}))).await);
    let output = final_output(&exchange, &id, "failed").await;
    let error = output["error"].as_str().unwrap_or_default();
    assert!(error.contains("Orcade refused") && error.contains("bid_job_evaluator_id"), "{output}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_orcade_serving_only_the_spec_routes_shows_a_winner_and_no_valid_bids_within_seconds() {
    let orcade = Server::start_with(|c| c.orcade_spec_routes_only = true).await;
    let exchange = Server::start_with(|c| c.orcade_url = Some(orcade.base.clone())).await;
    for id in ["s1", "s2"] {
        post_subject(&exchange, &json!({"subject_id": id})).await;
    }

    // A won task: read from the job's task results (the bid_winner).
    let assignment = json!({"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_subject_ids": ["s1", "s2"]});
    let id = id_of(&post_task(&exchange, &bidding_task(assignment)).await);
    let job = job_of(&exchange, &id).await;
    let (status, body) = orcade.get(&format!("/bid-jobs/{job}/evaluation")).await;
    assert_eq!((status, &body["ok"]), (404, &json!(false)), "the extra route is off: {body}");
    assert_eq!(orcade.get(&format!("/bid-jobs/{job}/task-results")).await.0, 200, "the routes of §3 are on");
    let started = Instant::now();
    assert_eq!(bid(&orcade, &job, "s1", json!({"price_usd": 50})).await, 201);
    assert_eq!(bid(&orcade, &job, "s2", json!({"price_usd": 40})).await, 201);
    let output = final_output(&exchange, &id, "completed").await;
    assert!(started.elapsed() < Duration::from_secs(10), "completed after {:?}", started.elapsed());
    let results = data(&orcade, &format!("/bid-jobs/{job}/task-results")).await;
    let winner = results.as_array().into_iter().flatten().find(|r| r["task_type"] == json!("bid_winner")).cloned();
    assert_eq!(Some(&output), winner.as_ref(), "task_output is Orcade's bid_winner result");
    assert_eq!(output["bid_subject_id"], json!("s2"));

    // No valid bids: the job closed, no bid is_winner, and no bid on file passed the PQT. Seen
    // within seconds, not at the bidding time limit (24 h).
    let assignment = json!({"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_subject_ids": ["s1", "s2"],
                            "bid_job_pqt_id": "builtin:min-confidence", "bid_job_metadata": {"parameters": {"min": 0.9}}});
    let id = id_of(&post_task(&exchange, &bidding_task(assignment)).await);
    let job = job_of(&exchange, &id).await;
    let started = Instant::now();
    assert_eq!(bid(&orcade, &job, "s1", json!({"price_usd": 10, "confidence": 0.2})).await, 409);
    assert_eq!(bid(&orcade, &job, "s2", json!({"price_usd": 12, "confidence": 0.5})).await, 409);
    let output = final_output(&exchange, &id, "failed").await;
    assert!(started.elapsed() < Duration::from_secs(10), "failed after {:?}", started.elapsed());
    let error = output["error"].as_str().unwrap_or_default();
    assert!(error.contains("no_valid_bids") && error.contains("PQT"), "{output}");
    assert_eq!(output["bid_job_id"], json!(job));
    let stored = data(&orcade, &format!("/bid-jobs/{job}")).await;
    assert_eq!(stored["bid_job_status"], json!("closed"), "{stored}");
    let bids = data(&orcade, &format!("/bid-jobs/{job}/bids")).await;
    assert!(bids.as_array().is_some_and(|b| b.len() == 2 && b.iter().all(|b| b["is_winner"] == json!(false))), "{bids}");
}
