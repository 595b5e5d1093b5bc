//! `GET /metrics` after a scripted run of the three services on a fresh server: each metric of
//! `agora_telemetry::names` with the counts the script makes.

use super::*;
use serde_json::json;
use std::collections::BTreeMap;

/// The samples of a Prometheus text: `name{label="value",...}` (labels sorted) to value.
fn samples(text: &str) -> BTreeMap<String, f64> {
    let mut out = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()) {
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("a sample line: {line}"));
        let (name, labels) = match series.split_once('{') {
            Some((name, labels)) => {
                let mut labels: Vec<&str> = labels.trim_end_matches('}').split(',').filter(|l| !l.is_empty()).collect();
                labels.sort();
                (name, labels.join(","))
            }
            None => (series, String::new()),
        };
        out.insert(format!("{name}{{{labels}}}"), value.parse().unwrap_or_else(|_| panic!("a number in {line}")));
    }
    out
}

/// The sum of every sample of `name` whose labels include each of `labels`.
fn total(samples: &BTreeMap<String, f64>, name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|(series, _)| {
            series.split_once('{').is_some_and(|(n, l)| {
                n == name && labels.iter().all(|(k, v)| l.trim_end_matches('}').split(',').any(|p| p == format!("{k}=\"{v}\"")))
            })
        })
        .map(|(_, v)| v)
        .sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_scripted_run_is_counted_in_the_metrics() {
    let delegate = stub(json!({"success": true, "output": {}})).await;
    let server = Logged::start("metrics", &with_delegate(&delegate.url));

    // Voting: two qualified votes (the second triggers the evaluation) and a duplicate refused.
    let (status, created, _) = server.post("/submit-social-choice-task", &public_task(2, json!({})), None).await;
    assert_eq!(status, 201, "{created}");
    let id = created["social_task_id"].as_str().expect("an id").to_owned();
    server.wait_for("the task started", &format!("/get-status/{id}"), |b| b["status"] == json!("started")).await;
    let vote = |voter: &str| agora_e2e::vote_body(&id, voter, json!({"selected_option": "agent-translator-01"}));
    assert_eq!(server.post("/submit-vote", &vote("voter-1"), None).await.0, 200);
    assert_eq!(server.post("/submit-vote", &vote("voter-1"), None).await.0, 409);
    assert_eq!(server.post("/submit-vote", &vote("voter-2"), None).await.0, 200);
    server.wait_for("the task evaluated", &format!("/get-status/{id}"), |b| b["status"] == json!("complete")).await;

    // Orcade: two bids accepted, one refused (not on the roster); the job closes full, is
    // evaluated once and its winner told (two bid_requests and a bid_winner to the delegate).
    let mut job = crate::orcade::closed_job();
    job["bid_job_subject_ids"] = json!(["p1", "p2"]);
    let (status, created, _) = server.post("/bid-jobs", &job, None).await;
    assert_eq!(status, 201, "{created}");
    let job_id = created["data"]["bid_job_id"].as_str().expect("an id").to_owned();
    let bids = format!("/bid-jobs/{job_id}/bids");
    assert_eq!(server.post(&bids, &crate::orcade::bid("p1", 2.0, 0.9), None).await.0, 201);
    assert_ne!(server.post(&bids, &crate::orcade::bid("stranger", 1.0, 0.9), None).await.0, 201);
    assert_eq!(server.post(&bids, &crate::orcade::bid("p2", 1.0, 0.9), None).await.0, 201);

    // Xchange: a direct task handed over and completed.
    let task = json!({"task_assignment_type": "direct", "task_data": {}, "task_metadata": {"task_assignment": {"subject_id": "agent-1"}}});
    let (status, created, _) = server.post("/tasks", &task, None).await;
    assert_eq!(status, 201, "{created}");
    let task_id = created["data"]["task_id"].as_str().expect("an id").to_owned();
    server
        .wait_for("the task completed", &format!("/tasks/{task_id}/output"), |b| b["data"]["task_assignment_status"] == json!("completed"))
        .await;
    wait_until("three delegate calls for the job and one for the task", SOON, || async {
        (delegate.received("/api/submit-and-wait").len() == 4).then_some(())
    })
    .await;

    // The counts settle once the last delivery is recorded.
    let metrics = wait_until("the delivery's metrics", SOON, || async {
        let text = server.server.http.get(server.server.url("/metrics")).send().await.ok()?.text().await.ok()?;
        let found = samples(&text);
        (total(&found, "agora_delegate_calls", &[]) == 4.0).then_some(found)
    })
    .await;
    let count = |name: &str, labels: &[(&str, &str)]| total(&metrics, name, labels);
    assert_eq!(count("agora_votes_accepted", &[("qualified", "true")]), 2.0, "{metrics:#?}");
    assert_eq!(count("agora_votes_accepted", &[("qualified", "false")]), 0.0);
    assert_eq!(count("agora_votes_refused", &[("reason", "duplicate")]), 1.0);
    assert_eq!(count("agora_evaluations", &[("service", "voting"), ("outcome", "completed")]), 1.0);
    assert_eq!(count("agora_evaluation_seconds_count", &[("service", "voting")]), 1.0);
    assert_eq!(count("agora_evaluations", &[("service", "orcade"), ("outcome", "resolved")]), 1.0);
    assert_eq!(count("agora_evaluation_seconds_count", &[("service", "orcade")]), 1.0);
    assert_eq!(count("agora_bids_accepted", &[]), 2.0);
    assert_eq!(count("agora_bids_refused", &[("reason", "not_on_roster")]), 1.0);
    assert_eq!(count("agora_delegate_calls", &[("outcome", "ok")]), 4.0);
    assert_eq!(count("agora_delegate_call_seconds_count", &[]), 4.0);
    assert_eq!(count("agora_xchange_tasks_terminal", &[("status", "completed")]), 1.0);
    assert_eq!(count("agora_xchange_task_seconds_to_terminal_count", &[("status", "completed")]), 1.0);
    // Every hook of the run is a builtin that answered: the PQTs of both services' accepted
    // bids and votes, and each evaluation's rules.
    assert!(count("agora_hook_calls", &[("outcome", "ok")]) >= 4.0, "{metrics:#?}");
    assert_eq!(count("agora_hook_calls", &[("outcome", "failed")]), 0.0);
    assert_eq!(count("agora_hook_call_seconds_count", &[]), count("agora_hook_calls", &[]));
    // Each queue's work done: the two evaluations; the job's deliveries (the bid_requests' fan-out,
    // a bid_request per subject, the bid_winner); the assignment.
    assert_eq!(count("agora_work_items", &[("queue", "evaluation"), ("outcome", "done")]), 1.0, "{metrics:#?}");
    assert_eq!(count("agora_work_items", &[("queue", "orcade-evaluation"), ("outcome", "done")]), 1.0);
    assert_eq!(count("agora_work_items", &[("queue", "orcade-delivery"), ("outcome", "done")]), 4.0);
    assert_eq!(count("agora_work_items", &[("queue", "xchange-assignment"), ("outcome", "done")]), 1.0);
    assert_eq!(count("agora_work_items", &[("outcome", "dead_lettered")]), 0.0);
    assert_eq!(count("agora_store_errors", &[]), 0.0, "a run without a store error counts none");
}
