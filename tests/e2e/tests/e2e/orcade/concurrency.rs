//! Races that must end in one evaluation and one winner, with real concurrent requests.

use super::*;
use futures::future::join_all;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_applicants_at_once_for_three_places() {
    let server = Server::start().await;
    let id = id_of(&create_job(&server, &open_job(Some(3), None)).await);
    let answers = join_all((0..20).map(|i| {
        let (server, id) = (&server, id.clone());
        async move { submit(server, &id, &bid(&format!("s{i:02}"), 100.0 - f64::from(i), 1.0)).await }
    }))
    .await;
    let accepted: Vec<usize> = answers.iter().enumerate().filter(|(_, (s, _))| *s == 201).map(|(i, _)| i).collect();
    assert_eq!(accepted.len(), 3, "{answers:?}");
    assert!(answers.iter().all(|(s, _)| *s == 201 || *s == 409), "{answers:?}");
    let winner = winner_of(&server, &id).await;
    let cheapest = accepted.iter().max().map(|i| format!("s{i:02}")).expect("accepted");
    assert_eq!(winner, cheapest);
    let job = data(&server, &format!("/bid-jobs/{id}")).await;
    assert_eq!(job["bid_job_subject_ids"].as_array().map(Vec::len), Some(3), "{job}");
    assert_eq!(bids_by_subject(&server, &id).await.len(), 3, "refused applicants of an open job are not stored");
    results_of(&server, &id, "bid_winner", 1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_creators_close_racing_the_last_bids_and_a_subjects_double_bid() {
    let server = Server::start().await;
    for round in 0..5 {
        let id = id_of(&create_job(&server, &closed_job()).await);
        assert_eq!(submit(&server, &id, &bid("t1", 10.0, 0.9)).await.0, 201);
        let (path, empty) = (format!("/bid-jobs/{id}/close"), json!({}));
        let late = [bid("t2", 5.0, 0.9), bid("t2", 4.0, 0.9), bid("t3", 3.0, 0.9)];
        let (closes, bids) =
            tokio::join!(join_all((0..3).map(|_| server.post(&path, &empty))), join_all(late.iter().map(|b| submit(&server, &id, b))));
        let closed = closes.iter().filter(|(s, _)| *s == 200).count();
        assert!(closed <= 1, "round {round}: one close wins: {closes:?}");
        assert!(closes.iter().all(|(s, _)| *s == 200 || *s == 409), "{closes:?}");
        let t2 = bids[..2].iter().filter(|(s, _)| *s == 201).count();
        assert!(t2 <= 1, "round {round}: one bid per subject: {bids:?}");
        let winner = winner_of(&server, &id).await;
        let on_file = bids_by_subject(&server, &id).await;
        assert!(on_file.contains_key(&winner), "the winner's bid is on file");
        results_of(&server, &id, "bid_winner", 1).await;
        // Every bid on file was one the evaluator read: the cheapest stored bid won.
        let cheapest = on_file
            .iter()
            .min_by(|a, b| a.1["bid_data"]["price_usd"].as_f64().partial_cmp(&b.1["bid_data"]["price_usd"].as_f64()).expect("prices"))
            .map(|(s, _)| s.clone());
        assert_eq!(Some(winner), cheapest, "round {round}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_identical_bids_by_one_subject_at_once_store_one() {
    let server = Server::start().await;
    let open = id_of(&create_job(&server, &open_job(Some(5), None)).await);
    let closed = id_of(&create_job(&server, &closed_job()).await);
    let body = bid("t1", 10.0, 0.9);
    for id in [&open, &closed] {
        let answers = join_all((0..20).map(|_| submit(&server, id, &body))).await;
        let accepted = answers.iter().filter(|(s, _)| *s == 201).count();
        assert_eq!(accepted, 1, "{answers:?}");
        for (status, body) in answers.iter().filter(|(s, _)| *s != 201) {
            assert_eq!(*status, 409, "{body}");
            assert!(body["error"].as_str().is_some_and(|e| e.contains("t1")), "the refusal names the subject: {body}");
        }
        let on_file = bids_by_subject(&server, id).await;
        assert_eq!(on_file.len(), 1, "{on_file:?}");
        let job = data(&server, &format!("/bid-jobs/{id}")).await;
        assert_eq!(job["bid_job_status"], json!("open"), "one bid on file closes neither job");
        assert_eq!(job["bid_job_subject_ids"].as_array().map(|r| r.iter().filter(|s| **s == json!("t1")).count()), Some(1), "{job}");
    }
}
