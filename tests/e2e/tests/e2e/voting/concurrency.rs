//! One vote per voter, one start, one evaluation, whatever the timing: real concurrent
//! requests against the local server, and concurrent calls into its core.

use agora_e2e::*;
use futures::future::join_all;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_simultaneous_votes_by_one_subject_store_one() {
    let server = Arc::new(Server::start().await);
    let id = server.create(&public_request(100)).await;
    server.wait_for_status(&id, "started", WAIT).await;

    let barrier = Arc::new(tokio::sync::Barrier::new(50));
    let attempts = (0..50).map(|i| {
        let (server, barrier, id) = (server.clone(), barrier.clone(), id.clone());
        tokio::spawn(async move {
            let body = vote_body(&id, "double-voter", json!({"selected_option": TRANSLATORS[i % 3]}));
            barrier.wait().await;
            server.post("/submit-vote", &body).await
        })
    });
    let results: Vec<(u16, serde_json::Value)> = join_all(attempts).await.into_iter().map(|r| r.expect("task")).collect();
    let accepted = results.iter().filter(|(s, _)| *s == 200).count();
    let refused = results.iter().filter(|(s, b)| *s == 409 && b["error"] == "Vote rejected: Vote already submitted for this task.").count();
    assert_eq!((accepted, refused), (1, 49), "{results:?}");

    let (_, votes) = server.post("/generic-query/votes", &json!({"social_task_id": id})).await;
    assert_eq!(votes.as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_task_started_by_racing_sweeps_sends_one_set_of_invitations() {
    // A slow invitation creator widens the window in which two starters could both publish.
    let invite = HookServer::start(Duration::from_millis(300), |_| (200, json!({"prompt": "vote"}).to_string())).await;
    let server = Server::start_with(|c| c.sweep_interval_ms = 50).await;
    let mut request = example_request();
    request["subject_spec"]["voting_request"] = json!({"mode": "http", "url": invite.url});
    let id = server.create(&request).await;

    // The server's own sweep runs every 50 ms; add four more sweeps and two direct starts at once.
    let voting = server.running.voting.clone();
    let sweeps = (0..4).map(|_| {
        let v = voting.clone();
        tokio::spawn(async move { v.start_due_tasks().await.map(|_| ()) })
    });
    let starts = (0..2).map(|_| {
        let (v, id) = (voting.clone(), id.clone());
        tokio::spawn(async move { v.start_task(&id).await.map(|_| ()) })
    });
    for r in join_all(sweeps.chain(starts)).await {
        r.expect("task").expect("start attempt");
    }
    server.wait_for_status(&id, "started", WAIT).await;
    tokio::time::sleep(Duration::from_millis(400)).await;

    assert_eq!(invite.calls(), 1, "the invitation creator ran once");
    for option in TRANSLATORS {
        let invites = server.inbox(option).await.into_iter().filter(|m| m["event_type"] == "voting_invite").count();
        assert_eq!(invites, 1, "{option}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_evaluation_requested_twice_runs_post_award_once() {
    let post_award =
        HookServer::start(Duration::from_millis(300), |input| (200, json!({"assigned_to": input["user_input"]["winners"][0]}).to_string()))
            .await;
    let server = Server::start().await;
    let mut request = public_request(1);
    request["evaluation_spec"]["post_award"] = json!({"mode": "http", "url": post_award.url});
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;

    // This vote triggers the evaluation through the queue; three more requests race it.
    let (status, _) = server.vote(&id, "voter", json!({"selected_option": "agent-translator-02"})).await;
    assert_eq!(status, 200);
    let voting = server.running.voting.clone();
    let extra = (0..3).map(|_| {
        let (v, id) = (voting.clone(), id.clone());
        tokio::spawn(async move { v.evaluate_task(&id).await })
    });
    for r in join_all(extra).await {
        r.expect("task").expect("evaluation attempt");
    }
    server.wait_for_status(&id, "complete", WAIT).await;
    // Once more after completion: nothing runs.
    assert_eq!(voting.evaluate_task(&id).await.expect("evaluate"), agora_voting_core::EvaluationOutcome::AlreadyComplete);
    tokio::time::sleep(Duration::from_millis(400)).await;

    assert_eq!(post_award.calls(), 1, "post-award ran once");
    let results = server.inbox("agent-translator-02").await.into_iter().filter(|m| m["event_type"] == "voting_result").count();
    assert_eq!(results, 1, "one result message");
    let (_, report) = server.get(&format!("/get-report/{id}")).await;
    assert_eq!(report["post_award_payload"], json!({"assigned_to": "agent-translator-02"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_vote_answered_accepted_is_in_the_report() {
    // 200 voters at once on a public task of duration 50: exactly 50 are accepted, every one of
    // them is in the report, and the others get 409: voting has closed (or, once the evaluation
    // has finished, the task is complete, §3.3's wording).
    let server = Arc::new(Server::start().await);
    let id = server.create(&public_request(50)).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let barrier = Arc::new(tokio::sync::Barrier::new(200));
    let attempts = (0..200).map(|i| {
        let (server, barrier, id) = (server.clone(), barrier.clone(), id.clone());
        tokio::spawn(async move {
            let voter = format!("voter-{i:03}");
            let body = vote_body(&id, &voter, json!({"selected_option": TRANSLATORS[i % 3]}));
            barrier.wait().await;
            (voter, server.post("/submit-vote", &body).await)
        })
    });
    let results: Vec<(String, (u16, serde_json::Value))> = join_all(attempts).await.into_iter().map(|r| r.expect("task")).collect();
    let mut accepted: Vec<&str> = results
        .iter()
        .filter(|(_, (s, b))| *s == 200 && *b == json!({"status": "accepted", "qualified": true}))
        .map(|(v, _)| v.as_str())
        .collect();
    let closed = results
        .iter()
        .filter(|(_, (s, b))| {
            *s == 409
                && [json!("Vote rejected: Voting has closed for this task."), json!("Vote rejected: Voting task is complete.")]
                    .contains(&b["error"])
        })
        .count();
    assert_eq!((accepted.len(), closed), (50, 150), "{results:?}");

    server.wait_for_status(&id, "complete", WAIT).await;
    let (_, report) = server.get(&format!("/get-report/{id}")).await;
    let mut in_report: Vec<&str> =
        report["votes"].as_array().expect("votes").iter().map(|v| v["submitter_subject_id"].as_str().expect("voter")).collect();
    accepted.sort_unstable();
    in_report.sort_unstable();
    assert_eq!(in_report, accepted);

    // Closed for good: a late voter is refused too.
    let late = server.post("/submit-vote", &vote_body(&id, "voter-late", json!({"selected_option": TRANSLATORS[0]}))).await;
    assert_eq!(late.0, 409, "{late:?}");
}
