//! Issue 25 item 9: the PQT runs only for a vote the checks of §3.3 let through. A remote PQT
//! (a real HTTP server that counts its calls) is never called for a vote the service refuses or
//! answers from the vote on file: a second vote by a subject, a retried vote, a vote on an
//! unknown task, a vote by a non-member of a private task.

use agora_e2e::{example_request, vote_body, HookServer, Server, REVIEWERS};
use serde_json::{json, Value};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refused_and_retried_votes_never_call_the_pqt() {
    let pqt = HookServer::start(Duration::ZERO, |_| (200, json!({"qualified": true}).to_string())).await;
    let server = Server::start().await;
    let mut request = example_request();
    request["evaluation_spec"]["voting_pqt"] = json!({"mode": "http", "url": pqt.url});
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", Duration::from_secs(20)).await;

    let ballot = json!({"selected_option": "agent-translator-02"});
    let first = vote_body(&id, REVIEWERS[0], ballot.clone());
    let (status, body) = server.post("/submit-vote", &first).await;
    assert_eq!((status, &body), (200, &json!({"status": "accepted", "qualified": true})));
    assert_eq!(pqt.calls(), 1, "the first vote is screened");

    let cases: [(&str, Value, u16); 4] = [
        ("a second vote by the same subject", vote_body(&id, REVIEWERS[0], json!({"selected_option": "agent-translator-01"})), 409),
        ("the first vote retried", first.clone(), 200),
        ("a vote on an unknown task", vote_body("task_0000000000000000000000000000dead", REVIEWERS[1], ballot.clone()), 404),
        ("a vote by a non-member", vote_body(&id, "agent-outsider", ballot.clone()), 403),
    ];
    for (what, vote, want) in cases {
        let (status, body) = server.post("/submit-vote", &vote).await;
        assert_eq!(status, want, "{what}: {body}");
        assert_eq!(pqt.calls(), 1, "{what} called the PQT");
    }
    let (_, votes) = server.post("/generic-query/votes", &json!({"social_task_id": id})).await;
    assert_eq!(votes.as_array().map(Vec::len), Some(1), "one vote on file: {votes}");

    // A member's first vote is screened.
    let (status, body) = server.vote(&id, REVIEWERS[1], ballot).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(pqt.calls(), 2);
}
