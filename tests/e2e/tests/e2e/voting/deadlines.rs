//! Issue 30's deadline and quorum, over the local server's HTTP API on any store: a task with a
//! deadline is evaluated at it with the qualified votes on file, once; a vote after it is a 409
//! naming it; a task under its quorum reports `no_quorum` and notifies no one; a private task
//! with a deadline still closes early when every member has voted.

use agora_e2e::*;
use serde_json::{json, Value};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(15);

/// A server whose sweep (which evaluates tasks at their deadline locally) runs every 100 ms.
async fn server() -> Server {
    Server::start_with(|c| c.sweep_interval_ms = 100).await
}

/// `request` with these keys added to its `social_task`.
fn with_options(mut request: Value, options: Value) -> Value {
    for (k, v) in options.as_object().unwrap() {
        request["social_task"][k] = v.clone();
    }
    request
}

/// The task's core document as stored.
async fn stored_task(server: &Server, id: &str) -> Value {
    let (status, bundle) = server.get(&format!("/get-full-task-bundle/{id}")).await;
    assert_eq!(status, 200);
    bundle["task"].clone()
}

async fn report(server: &Server, id: &str) -> Value {
    let (status, report) = server.get(&format!("/get-report/{id}")).await;
    assert_eq!(status, 200);
    report
}

fn results(inbox: &[Value]) -> usize {
    inbox.iter().filter(|m| m["event_type"] == "voting_result").count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn private_task_with_an_absent_member_is_evaluated_at_its_deadline() {
    let server = server().await;
    let id = server.create(&with_options(example_request(), json!({"deadline_seconds": 2}))).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let task = stored_task(&server, &id).await;
    let start = agora_voting_schema::time::parse_datetime_str(task["start_time"].as_str().expect("start_time")).unwrap();
    let deadline = start + chrono::Duration::seconds(2);

    for voter in &REVIEWERS[..2] {
        let (status, body) = server.vote(&id, voter, json!({"selected_option": "agent-translator-02"})).await;
        assert_eq!((status, body), (200, json!({"status": "accepted", "qualified": true})));
    }
    assert_eq!(server.status_of(&id).await.as_deref(), Some("started"), "one member has not voted and the deadline is ahead");

    server.wait_for_status(&id, "complete", WAIT).await;
    let report = report(&server, &id).await;
    assert_eq!(report["winners"], json!(["agent-translator-02"]));
    assert_eq!(report["votes"].as_array().unwrap().len(), 2, "the votes on file");
    assert!(report.get("outcome").is_none(), "no quorum, no outcome: the spec's report");
    let evaluated_at = agora_voting_schema::time::parse_datetime_str(report["evaluated_at"].as_str().unwrap()).unwrap();
    assert!(evaluated_at >= deadline, "evaluated at {evaluated_at}, before the deadline {deadline}");
    assert_eq!(results(&server.inbox("agent-translator-02").await), 1, "the winner is told once");

    // The absent member comes too late.
    let (status, body) = server.vote(&id, REVIEWERS[2], json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!(status, 409, "{body}");
    assert!(body["error"].as_str().unwrap().starts_with("Vote rejected: "), "{body}");

    // Once: later sweeps do not evaluate it again.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(self::report(&server, &id).await["evaluated_at"], report["evaluated_at"]);
    assert_eq!(results(&server.inbox("agent-translator-02").await), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_vote_after_the_deadline_is_refused_naming_it() {
    let server = server().await;
    // A public task far from its trigger, so only the deadline closes it; its quorum of one is
    // met.
    let request = with_options(public_request(50), json!({"deadline_seconds": 1, "quorum": 1}));
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let (status, _) = server.vote(&id, "early-bird", json!({"selected_option": "agent-translator-03"})).await;
    assert_eq!(status, 200);
    server.wait_for_status(&id, "complete", WAIT).await;
    let (status, body) = server.vote(&id, "late-comer", json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!(status, 409, "{body}");
    let report = report(&server, &id).await;
    assert_eq!((report["winners"].clone(), report["outcome"].clone()), (json!(["agent-translator-03"]), json!("decided")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_refusal_at_the_deadline_names_it_before_the_evaluation_completes() {
    // A post-award hook slow enough that the task is still `started` after its deadline: the
    // vote is refused for the deadline, which the answer names.
    let slow = HookServer::start(Duration::from_secs(3), |_| (200, json!({"done": true}).to_string())).await;
    let mut request = with_options(public_request(50), json!({"deadline_seconds": 1}));
    request["evaluation_spec"]["post_award"] = json!({"mode": "http", "url": slow.url});
    let server = server().await;
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let task = stored_task(&server, &id).await;
    let start = agora_voting_schema::time::parse_datetime_str(task["start_time"].as_str().unwrap()).unwrap();
    let deadline = agora_voting_schema::time::format_datetime(&(start + chrono::Duration::seconds(1)));
    // Past the deadline (1 s after the start) and the sweep's request (every 100 ms), well
    // before post-award's answer (3 s).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(server.status_of(&id).await.as_deref(), Some("started"), "post-award is still running");
    let (status, body) = server.vote(&id, "late-comer", json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!((status, body), (409, json!({"error": format!("Vote rejected: Voting closed at the task's deadline, {deadline} UTC.")})));
    server.wait_for_status(&id, "complete", WAIT).await;
    assert_eq!(slow.calls(), 1, "evaluated once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn public_task_under_its_quorum_reports_no_quorum() {
    let server = server().await;
    let request = with_options(public_request(5), json!({"deadline_seconds": 2, "quorum": 3}));
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    for voter in ["voter-a", "voter-b"] {
        let (status, _) = server.vote(&id, voter, json!({"selected_option": "agent-translator-02"})).await;
        assert_eq!(status, 200);
    }
    server.wait_for_status(&id, "complete", WAIT).await;
    let report = report(&server, &id).await;
    assert_eq!(report["winners"], json!([]));
    assert_eq!(report["outcome"], json!("no_quorum"));
    assert_eq!(report["votes"].as_array().unwrap().len(), 2);
    // No rule ran; post-award did, with no winner (§4.6).
    let hooks: Vec<&str> = report["dsl_outputs"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(hooks, ["post_awarding_dsl"]);
    assert_eq!(report["post_award_payload"], json!({"decision": "none", "reason": "no qualified votes"}));
    for option in TRANSLATORS {
        assert_eq!(results(&server.inbox(option).await), 0, "{option} notified of a decision not taken");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn private_task_with_a_deadline_closes_early_when_everyone_has_voted() {
    let server = server().await;
    let id = server.create(&with_options(example_request(), json!({"deadline_seconds": 3600, "quorum": 2}))).await;
    server.wait_for_status(&id, "started", WAIT).await;
    for voter in REVIEWERS {
        let (status, _) = server.vote(&id, voter, json!({"selected_option": "agent-translator-01"})).await;
        assert_eq!(status, 200);
    }
    server.wait_for_status(&id, "complete", WAIT).await;
    let report = report(&server, &id).await;
    assert_eq!((report["winners"].clone(), report["outcome"].clone()), (json!(["agent-translator-01"]), json!("decided")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn options_are_refused_by_their_path_and_stored_under_properties_voting() {
    let server = server().await;
    let (status, body) = server.post("/submit-social-choice-task", &with_options(example_request(), json!({"quorum": 2}))).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("social_task.quorum needs a deadline"), "{body}");
    let (status, body) =
        server.post("/submit-social-choice-task", &with_options(example_request(), json!({"weights": {"agent-reviewer-01": -1}}))).await;
    assert_eq!(status, 400);
    assert!(body["error"].as_str().unwrap().contains("social_task.weights.agent-reviewer-01 must be a number from 1e-9 to 1e9"), "{body}");

    let id = server.create(&with_options(example_request(), json!({"deadline": "2999-01-01T00:00:00Z", "quorum": 2}))).await;
    let task = stored_task(&server, &id).await;
    assert_eq!(task["social_task_properties"], json!({"urgency": "high", "voting": {"deadline": "2999-01-01T00:00:00", "quorum": 2}}));
    // A task without options is stored as before.
    let plain = server.create(&example_request()).await;
    let task = stored_task(&server, &plain).await;
    assert_eq!(task["social_task_properties"], json!({"urgency": "high"}));
}
