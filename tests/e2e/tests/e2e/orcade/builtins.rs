//! Each builtin function of §4 over HTTP, from the job's creation to its winner, and
//! `no_valid_bids`: a job is closed with no winner and no `bid_winner`, whether the builtin finds
//! no usable bid or a remote evaluator says so.

use super::*;
use agora_e2e::HookServer;

/// Creates a closed job for `roster` with `pqt`, `evaluator` and `parameters`; submits each
/// `(subject, bid_data, expected status)` in order; returns the job's id.
async fn run_job(server: &Server, pqt: &str, evaluator: &str, parameters: Value, bids: &[(&str, Value, u16)]) -> String {
    let mut request = closed_job();
    request["bid_job_pqt_id"] = json!(pqt);
    request["bid_job_evaluator_id"] = json!(evaluator);
    request["bid_job_metadata"] = json!({"parameters": parameters});
    request["bid_job_subject_ids"] = json!(bids.iter().map(|(s, ..)| *s).collect::<Vec<_>>());
    let id = id_of(&create_job(server, &request).await);
    for (subject, data, want) in bids {
        let (status, body) = submit(server, &id, &json!({"bid_subject_id": subject, "bid_data": data})).await;
        assert_eq!(status, *want, "{subject}: {body}");
    }
    id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_builtin_screens_and_chooses_as_section_4_says() {
    let server = Server::start().await;

    // required-fields refuses a bid without eta_hours; highest-score picks the best of the rest,
    // ties going to the earliest bid.
    let fields = json!({"fields": ["price_usd", "eta_hours"]});
    let id = run_job(
        &server,
        "builtin:required-fields",
        "builtin:highest-score",
        fields,
        &[
            ("s1", json!({"price_usd": 10, "eta_hours": 5, "score": 0.7}), 201),
            ("s2", json!({"price_usd": 10, "score": 0.99}), 409),
            ("s3", json!({"price_usd": 10, "eta_hours": 2, "score": 0.9}), 201),
            ("s4", json!({"price_usd": 10, "eta_hours": 1, "score": 0.9}), 201),
        ],
    )
    .await;
    assert_eq!(winner_of(&server, &id).await, "s3");
    let refused = &bids_by_subject(&server, &id).await["s2"];
    assert_eq!(refused["bid_data"]["bid_rejected"], json!(true), "{refused}");
    assert!(refused["bid_data"]["pqt_reason"].as_str().is_some_and(|r| r.contains("eta_hours")), "{refused}");

    // min-confidence and lowest-price: a tie on price goes to the earliest bid.
    let id = run_job(
        &server,
        "builtin:min-confidence",
        "builtin:lowest-price",
        json!({"min": 0.8}),
        &[
            ("p1", json!({"price_usd": 90, "confidence": 0.5}), 409),
            ("p2", json!({"price_usd": 70, "confidence": 0.9}), 201),
            ("p3", json!({"price_usd": 70, "confidence": 0.95}), 201),
        ],
    )
    .await;
    assert_eq!(winner_of(&server, &id).await, "p2");

    // earliest-bid needs no data; no PQT accepts every bid.
    let id = run_job(&server, "", "builtin:earliest-bid", json!({}), &[("e1", json!({}), 201), ("e2", json!({"price_usd": 1}), 201)]).await;
    assert_eq!(winner_of(&server, &id).await, "e1");
    let winner = results_of(&server, &id, "bid_winner", 1).await;
    assert_eq!(winner[0]["bid_subject_id"], json!("e1"));
    assert_eq!(winner[0]["evaluator_output"]["status"], json!("resolved"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_valid_bids_closes_the_job_with_no_winner_and_tells_no_one() {
    let server = Server::start().await;
    // Every bid refused by the PQT: the builtin evaluator sees no accepted bid.
    let refused = run_job(
        &server,
        "builtin:min-confidence",
        "builtin:lowest-price",
        json!({"min": 0.8}),
        &[("n1", json!({"price_usd": 5, "confidence": 0.1}), 409), ("n2", json!({"price_usd": 6, "confidence": 0.2}), 409)],
    )
    .await;
    // A remote evaluator that answers no_valid_bids for bids that passed.
    let evaluator =
        HookServer::start(Duration::ZERO, |_| (200, json!({"status": "no_valid_bids", "reason": "all too dear"}).to_string())).await;
    let remote = run_job(&server, "", &evaluator.url, json!({}), &[("r1", json!({"price_usd": 500}), 201)]).await;

    wait_until("the remote evaluator's call", SOON, || async { (evaluator.calls() == 1).then_some(()) }).await;
    for id in [&refused, &remote] {
        assert_eq!(data(&server, &format!("/bid-jobs/{id}")).await["bid_job_status"], json!("closed"));
    }
    // A few sweeps later: no winner, no bid_winner, only the bid_requests.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    for id in [&refused, &remote] {
        assert!(bids_by_subject(&server, id).await.values().all(|b| b["is_winner"] == json!(false)), "{id}");
        let results = data(&server, &format!("/bid-jobs/{id}/task-results")).await;
        assert!(results.as_array().expect("results").iter().all(|r| r["task_type"] == json!("bid_request")), "{results}");
    }
    assert_eq!(evaluator.calls(), 1, "evaluated once");
}
