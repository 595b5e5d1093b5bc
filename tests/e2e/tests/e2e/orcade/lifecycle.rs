//! Deletes, withdrawals and re-created ids racing bids, with real concurrent requests, on the
//! store `AGORA_E2E_STORE` names: a delete fences its job in the write every bid must pass, a
//! withdrawn bid gives its place back (count and roster) while the job is open, and a job
//! created again under a deleted one's id starts clean.

use super::*;
use futures::future::join_all;
use reqwest::Method;
use std::time::Instant;

/// What the store holds for the job `id`: its bids (as stored) and its counter's bids on file.
async fn on_file_of(server: &Server, id: &str) -> (Vec<Value>, Option<i64>) {
    let repo = server.running.orcade.repo();
    let bids = repo.bids_raw(id).await.expect("bids").iter().map(|b| serde_json::from_str(b.get()).expect("JSON")).collect();
    let counted = match repo.job(id).await.expect("job") {
        Some(job) => Some(repo.bids_on_file(&job).await.expect("counter").0),
        None => None,
    };
    (bids, counted)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn forty_bids_racing_a_delete_leave_no_bid_stored_after_it() {
    let server = Server::start().await;
    for round in 0..3 {
        let id = id_of(&create_job(&server, &open_job(Some(1_000), None)).await);
        for i in 0..3 {
            assert_eq!(submit(&server, &id, &bid(&format!("early-{i}"), 50.0, 0.9)).await.0, 201);
        }
        let bids = join_all((0..40).map(|i| {
            let (server, id) = (&server, id.clone());
            async move {
                // Spread over the delete: the first bids before it, the last after it.
                tokio::time::sleep(Duration::from_millis(i as u64 / 2)).await;
                let (status, body) = submit(server, &id, &bid(&format!("s{i:02}"), 100.0, 0.9)).await;
                (status, body, Instant::now())
            }
        }));
        let delete = async {
            tokio::time::sleep(Duration::from_millis(8)).await;
            let answer = server.send(Method::DELETE, &format!("/bid-jobs/{id}"), None).await;
            let answered = Instant::now();
            (answer, answered, on_file_of(&server, &id).await.0.len())
        };
        let (bids, ((status, body), deleted_at, left_at_answer)) = tokio::join!(bids, delete);
        assert_eq!(status, 200, "round {round}: delete: {body}");
        assert_eq!(left_at_answer, 0, "round {round}: bids left when the delete answered");
        for (status, body, _) in &bids {
            // Stored (and then deleted with the job), or refused by the fence: 404 once the job
            // is gone, 409 "closed" while the delete that fenced it is still under way.
            assert!([201, 404, 409].contains(status), "round {round}: {body}");
        }
        let after = bids.iter().filter(|(_, _, at)| *at > deleted_at).count();
        let (left, counted) = on_file_of(&server, &id).await;
        assert!(left.is_empty(), "round {round}: {} bids stored after the delete ({after} answered after it): {left:?}", left.len());
        assert_eq!(counted, None, "round {round}: the job is gone");
        let (status, body) = server.post("/bids/query", &json!({"bid_job_id": id})).await;
        assert_eq!((status, &body["data"]), (200, &json!([])), "round {round}: no orphan bid: {body}");
        assert_eq!(server.get(&format!("/bid-jobs/{id}")).await.0, 404);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_withdraw_racing_the_last_place_leaves_count_and_roster_exact() {
    let server = Server::start().await;
    for round in 0..6 {
        let id = id_of(&create_job(&server, &open_job(Some(3), None)).await);
        let (_, first) = submit(&server, &id, &bid("a1", 40.0, 0.9)).await;
        let a1 = first["data"]["bid_id"].as_str().expect("bid_id").to_owned();
        assert_eq!(submit(&server, &id, &bid("a2", 30.0, 0.9)).await.0, 201);
        let (withdraw_path, late) = (format!("/bids/{a1}"), [bid("a3", 20.0, 0.9), bid("a4", 20.0, 0.9)]);
        let withdraw = server.send(Method::DELETE, &withdraw_path, None);
        let last = join_all(late.iter().map(|b| submit(&server, &id, b)));
        let ((withdrawn, body), last) = tokio::join!(withdraw, last);
        assert!(withdrawn == 200 || withdrawn == 409, "round {round}: {body}");
        if withdrawn == 409 {
            let why = body["error"].as_str().unwrap_or_default();
            assert!(why.contains("is closed") || why.contains("is evaluated"), "round {round}: says why: {body}");
        }
        for (status, body) in &last {
            assert!(*status == 201 || *status == 409, "round {round}: {body}");
        }
        let job = data(&server, &format!("/bid-jobs/{id}")).await;
        let (stored, counted) = on_file_of(&server, &id).await;
        let subjects: Vec<Value> = stored.iter().map(|b| b["bid_subject_id"].clone()).collect();
        assert_eq!(counted, Some(subjects.len() as i64), "round {round}: the count is the bids on file: {subjects:?}");
        assert_eq!(job["bid_job_subject_ids"], json!(subjects), "round {round}: the roster is the bids on file, in order");
        assert!(subjects.len() <= 3, "round {round}: {subjects:?}");
        assert_eq!(subjects.contains(&json!("a1")), withdrawn != 200, "round {round}: a1 withdrawn or refused: {subjects:?}");
        if job["bid_job_status"] == json!("closed") {
            let winner = winner_of(&server, &id).await;
            assert!(subjects.contains(&json!(winner)), "round {round}: the winner is on the roster");
            results_of(&server, &id, "bid_winner", 1).await;
        } else {
            assert!(subjects.len() < 3, "round {round}: an open job has a place left: {subjects:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_job_created_again_under_a_deleted_ones_id_is_evaluated_once_with_its_own_bids() {
    let server = Server::start().await;
    let id = format!("reused-{}", agora_orcade_schema::new_id());
    let mut request = closed_job();
    request["bid_job_id"] = json!(id);
    create_job(&server, &request).await;
    for s in ["t1", "t2", "t3"] {
        assert_eq!(submit(&server, &id, &bid(s, 10.0, 0.9)).await.0, 201);
    }
    assert_eq!(winner_of(&server, &id).await, "t1");
    results_of(&server, &id, "bid_winner", 1).await;
    results_of(&server, &id, "bid_request", 3).await;
    let (status, body) = server.send(Method::DELETE, &format!("/bid-jobs/{id}"), None).await;
    assert_eq!(status, 200, "{body}");

    let created = create_job(&server, &request).await;
    assert_eq!(id_of(&created), id);
    let results = data(&server, &format!("/bid-jobs/{id}/task-results")).await;
    let kinds: Vec<&Value> = results.as_array().expect("array").iter().map(|r| &r["task_type"]).collect();
    assert!(kinds.iter().all(|k| **k == json!("bid_request")), "no old bid_winner: {results}");
    assert_eq!(server.get(&format!("/bid-jobs/{id}/evaluation")).await.1["data"], json!(null), "no old decision");
    for (s, price) in [("t1", 30.0), ("t2", 20.0), ("t3", 25.0)] {
        let (status, body) = submit(&server, &id, &bid(s, price, 0.9)).await;
        assert_eq!(status, 201, "{s} bids on the new job: {body}");
    }
    assert_eq!(winner_of(&server, &id).await, "t2");
    results_of(&server, &id, "bid_request", 3).await;
    let winners = results_of(&server, &id, "bid_winner", 1).await;
    assert_eq!(winners[0]["bid_subject_id"], json!("t2"));
    let prices: Vec<Value> = bids_by_subject(&server, &id).await.values().map(|b| b["bid_data"]["price_usd"].clone()).collect();
    assert_eq!(prices, [json!(30.0), json!(20.0), json!(25.0)], "only its own bids");
    // Evaluated once: no second winner, no second bid_winner, however long we look.
    tokio::time::sleep(Duration::from_millis(500)).await;
    results_of(&server, &id, "bid_winner", 1).await;
    let evaluation = data(&server, &format!("/bid-jobs/{id}/evaluation")).await;
    assert_eq!(evaluation["decision"]["winner_subject_id"], json!("t2"), "{evaluation}");
}
