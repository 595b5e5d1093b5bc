//! A private and a public task through the local server over HTTP, checked against §2.6
//! (the report, field by field), §1.4 (statuses) and §5 (invitations and results).

use agora_e2e::*;
use serde_json::{json, Value};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

fn assert_iso(v: &Value, what: &str) {
    let s = v.as_str().unwrap_or_else(|| panic!("{what} is not a string: {v}"));
    assert!(agora_voting_schema::time::parse_datetime_str(s).is_some(), "{what} is not ISO-8601: {s}");
}

/// Invitations (§5.2): one per option, from the creator, carrying the subject spec.
async fn check_invitations(server: &Server, bundle: &Value) {
    for option in TRANSLATORS {
        let inbox = server.inbox(option).await;
        let invites: Vec<&Value> = inbox.iter().filter(|m| m["event_type"] == "voting_invite").collect();
        assert_eq!(invites.len(), 1, "{option} got {} invitations", invites.len());
        assert_eq!(
            invites[0],
            &json!({
                "event_type": "voting_invite",
                "sender_subject_id": "planner-service",
                "event_data": {"custom_data": {}, "voting_info": bundle["subject_spec"]},
            })
        );
    }
    for reviewer in REVIEWERS {
        assert!(server.inbox(reviewer).await.is_empty(), "voters are not options: no invitation");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn private_task_tie_broken_by_earliest_vote() {
    let server = Server::start().await;
    let id = server.create(&example_request()).await;
    assert!(id.starts_with("task_") && id.len() == 13, "{id}");
    server.wait_for_status(&id, "started", WAIT).await;

    let (_, bundle) = server.get(&format!("/get-full-task-bundle/{id}")).await;
    check_invitations(&server, &bundle).await;

    // A three-way tie: plurality returns all three, the earliest vote (for 03) breaks it.
    let ballots = [
        ("agent-reviewer-01", "agent-translator-03"),
        ("agent-reviewer-02", "agent-translator-01"),
        ("agent-reviewer-03", "agent-translator-02"),
    ];
    for (i, (voter, option)) in ballots.iter().enumerate() {
        let (status, body) = server.vote(&id, voter, json!({"selected_option": option})).await;
        assert_eq!((status, body), (200, json!({"status": "accepted", "qualified": true})));
        if i < 2 {
            assert_eq!(server.status_of(&id).await.as_deref(), Some("started"), "not every reviewer has voted yet");
            assert_eq!(server.get(&format!("/get-report/{id}")).await, (200, json!({})));
        }
        // Keep submission times distinct, so "earliest" is well defined.
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.wait_for_status(&id, "complete", WAIT).await;

    let (status, report) = server.get(&format!("/get-report/{id}")).await;
    assert_eq!(status, 200);
    let keys: Vec<&str> = report.as_object().expect("report object").keys().map(String::as_str).collect();
    assert_eq!(keys, ["task", "subject_spec", "evaluation_spec", "votes", "winners", "post_award_payload", "dsl_outputs", "evaluated_at"]);

    let (_, bundle) = server.get(&format!("/get-full-task-bundle/{id}")).await;
    // task: the core document at evaluation time, so `started`, no report and no end yet.
    let mut task_then = bundle["task"].clone();
    task_then["status"] = json!("started");
    task_then["report_json"] = json!({});
    assert!(task_then.as_object_mut().expect("task object").remove("end_time").is_some(), "a complete task records its end");
    assert_eq!(report["task"], task_then);
    assert_eq!(report["task"]["status"], "started");
    assert_eq!(report["subject_spec"], bundle["subject_spec"]);
    assert_eq!(report["evaluation_spec"], bundle["evaluation_input"]);
    assert_eq!(report["votes"], bundle["votes"], "every vote qualified, in submission order");
    assert_eq!(report["votes"].as_array().unwrap().len(), 3);
    for v in report["votes"].as_array().unwrap() {
        assert_eq!(v["qualified"], true);
        assert_ne!(v["submission_time"], "2026-10-22T10:03:12.481203", "the server sets submission_time");
        assert_iso(&v["submission_time"], "submission_time");
    }
    let winner = "agent-translator-03";
    assert_eq!(report["winners"], json!([winner]));
    let payload =
        json!({"decision": "assigned", "assigned_to": winner, "goal": {"objective": "Choose the lead translator for the Q4 handbook"}});
    assert_eq!(report["post_award_payload"], payload);
    let tally = json!({"agent-translator-03": 1, "agent-translator-01": 1, "agent-translator-02": 1});
    let choice = &report["dsl_outputs"]["choice_evaluation_dsl"];
    assert_eq!(choice["winners"], json!(TRANSLATORS), "every option tied for first, sorted");
    assert_eq!(choice["tally"].as_object().unwrap().len(), 3);
    for (k, n) in tally.as_object().unwrap() {
        assert_eq!(&choice["tally"][k], n);
    }
    assert_eq!(report["dsl_outputs"]["tie_breaker_dsl"], json!({"winner": winner, "rule": "earliest_vote"}));
    assert_eq!(report["dsl_outputs"]["post_awarding_dsl"], payload);
    assert_eq!(report["dsl_outputs"].as_object().unwrap().len(), 3);
    assert_iso(&report["evaluated_at"], "evaluated_at");

    // §5.4: the winner, and only the winner, hears the result.
    let results: Vec<Value> = server.inbox(winner).await.into_iter().filter(|m| m["event_type"] == "voting_result").collect();
    assert_eq!(
        results,
        vec![
            json!({"event_type": "voting_result", "task_id": id, "event_data": {"social_task_id": id, "winners": [winner], "post_award_payload": payload}})
        ]
    );
    for loser in ["agent-translator-01", "agent-translator-02"] {
        assert!(server.inbox(loser).await.iter().all(|m| m["event_type"] != "voting_result"));
    }

    // Complete is final: no more votes.
    let (status, body) = server.vote(&id, "agent-reviewer-01", json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!((status, body), (409, json!({"error": "Vote rejected: Voting task is complete."})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn public_task_counts_only_qualified_votes() {
    let server = Server::start().await;
    let id = server.create(&public_request(5)).await;
    server.wait_for_status(&id, "started", WAIT).await;

    // Two votes for options not on the ballot: stored, disqualified, not counted.
    for (voter, option) in [("stranger-1", "agent-translator-09"), ("stranger-2", "nobody")] {
        let (status, body) = server.vote(&id, voter, json!({"selected_option": option})).await;
        assert_eq!((status, body), (200, json!({"status": "accepted", "qualified": false})));
    }
    // A disqualified voter has used their one vote.
    let (status, body) = server.vote(&id, "stranger-1", json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!((status, body), (409, json!({"error": "Vote rejected: Vote already submitted for this task."})));

    let picks = ["agent-translator-02", "agent-translator-01", "agent-translator-02", "agent-translator-03", "agent-translator-02"];
    for (i, pick) in picks.iter().enumerate() {
        let (status, body) = server.vote(&id, &format!("public-voter-{i}"), json!({"selected_option": pick})).await;
        assert_eq!((status, body), (200, json!({"status": "accepted", "qualified": true})));
        if i < 4 {
            // Six votes stored, four qualified: below duration 5.
            assert_eq!(server.status_of(&id).await.as_deref(), Some("started"));
        }
    }
    server.wait_for_status(&id, "complete", WAIT).await;

    let (_, report) = server.get(&format!("/get-report/{id}")).await;
    let votes = report["votes"].as_array().unwrap();
    assert_eq!(votes.len(), 5, "only the qualified votes are evaluated");
    assert!(votes.iter().all(|v| v["qualified"] == true && v["submitter_subject_id"].as_str().unwrap().starts_with("public-voter-")));
    assert_eq!(report["winners"], json!(["agent-translator-02"]));
    assert_eq!(report["dsl_outputs"]["choice_evaluation_dsl"]["winners"], json!(["agent-translator-02"]));
    assert_eq!(report["dsl_outputs"]["choice_evaluation_dsl"]["tally"]["agent-translator-02"], 3);
    assert!(report["dsl_outputs"].get("tie_breaker_dsl").is_none(), "no tie, no tie-breaker");

    let (_, bundle) = server.get(&format!("/get-full-task-bundle/{id}")).await;
    assert_eq!(bundle["votes"].as_array().unwrap().len(), 7, "the bundle has every vote, qualified or not");
    let (_, disq) = server.post("/generic-query/votes", &json!({"social_task_id": id, "qualified": false})).await;
    assert_eq!(disq.as_array().unwrap().len(), 2);

    assert_eq!(server.inbox("agent-translator-02").await.iter().filter(|m| m["event_type"] == "voting_result").count(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn votes_before_start_and_by_outsiders_are_refused() {
    let server = Server::start().await;
    let mut request = example_request();
    request["social_task"]["scheduled_time"] = json!("2999-01-01T00:00:00Z");
    let id = server.create(&request).await;
    let (status, body) = server.vote(&id, "agent-reviewer-01", json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!((status, body), (409, json!({"error": "Vote rejected: Voting task is not active yet."})));
    let (status, body) = server.vote("task_00000000", "agent-reviewer-01", json!({})).await;
    assert_eq!((status, body), (404, json!({"error": "Vote rejected: Invalid social_task_id."})));

    let started = server.create(&example_request()).await;
    server.wait_for_status(&started, "started", WAIT).await;
    let (status, body) = server.vote(&started, "intruder", json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!((status, body), (403, json!({"error": "Vote rejected: You are not authorized to vote in this private task."})));
    assert_eq!(server.status_of(&id).await.as_deref(), Some("scheduled"), "a future task does not start");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_retried_vote_is_answered_with_its_stored_verdict() {
    let server = Server::start().await;
    let id = server.create(&public_request(5)).await;
    server.wait_for_status(&id, "started", WAIT).await;
    let body = vote_body(&id, "voter-a", json!({"selected_option": "nope"}));
    assert_eq!(server.post("/submit-vote", &body).await, (200, json!({"status": "accepted", "qualified": false})));
    assert_eq!(server.post("/submit-vote", &body).await, (200, json!({"status": "accepted", "qualified": false})));
    // The same vote_id for a different vote is refused.
    let mut other = vote_body(&id, "voter-b", json!({"selected_option": "agent-translator-01"}));
    other["vote_id"] = body["vote_id"].clone();
    let (status, err) = server.post("/submit-vote", &other).await;
    assert_eq!(status, 409, "{err}");
    assert!(err["error"].as_str().unwrap().contains("vote_id"), "{err}");
    let (_, bundle) = server.get(&format!("/get-full-task-bundle/{id}")).await;
    assert_eq!(bundle["votes"].as_array().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_hooks_run_and_a_failing_pqt_disqualifies() {
    let server = Server::start().await;
    // An external invitation creator in the §4.2 Flask shape, and a PQT that answers 500.
    let invite = HookServer::start(Duration::ZERO, |input| {
        let title = input["user_input"]["subject_spec"]["topic_title"].as_str().unwrap_or("?").to_owned();
        (200, json!({"data": {"job_output_data": {"prompt": format!("Please vote: {title}")}}}).to_string())
    })
    .await;
    let broken = HookServer::start(Duration::ZERO, |_| (500, "boom".into())).await;
    let mut request = public_request(1);
    request["subject_spec"]["voting_request"] = json!({"mode": "http", "url": invite.url});
    request["evaluation_spec"]["voting_pqt"] = json!({"mode": "http", "url": broken.url});
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", WAIT).await;
    assert_eq!(invite.calls(), 1, "the invitation creator runs once per task");
    let inbox = server.inbox("agent-translator-01").await;
    assert_eq!(inbox[0]["event_data"]["custom_data"], json!({"prompt": "Please vote: Lead translator, Q4 handbook"}));

    let (status, body) = server.vote(&id, "voter", json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!((status, body), (200, json!({"status": "accepted", "qualified": false})));
    assert_eq!(broken.calls(), 1);
    assert_eq!(server.status_of(&id).await.as_deref(), Some("started"));
}
