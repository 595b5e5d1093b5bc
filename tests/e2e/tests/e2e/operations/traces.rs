//! One trace per unit of work: a vote, from `POST /submit-vote` through its PQT hook, the
//! evaluation queue, the evaluator and its post-award hook to the `voting_result`; a bid, through
//! the evaluation and delivery queues to its `bid_winner` call; an Xchange task, through the
//! assignment queue and the delegate system to `completed`. Each time the log lines of that work,
//! on both sides of every queue hop, carry one trace id, the one the route answered with, and so
//! do the headers of the hook and delegate requests it made.

use super::*;
use agora_telemetry::trace::HEADER;
use serde_json::json;

/// The lines of `logs` in the trace `trace`.
fn in_trace<'a>(logs: &'a [Value], trace: &str) -> Vec<&'a Value> {
    logs.iter().filter(|l| span_field(l, "trace_id") == Some(&json!(trace))).collect()
}

/// Asserts that `trace` has lines in the request span of `path` and in a `work` span of
/// `queue`, and that every line of a work item of `queue` keyed `key` is in `trace`.
fn assert_one_trace_across(logs: &[Value], trace: &str, path: &str, queue: &str, key: &str) {
    let ours = in_trace(logs, trace);
    assert!(
        ours.iter().any(|l| span_names(l).first().map(String::as_str) == Some("request") && span_field(l, "path") == Some(&json!(path))),
        "no line of the request {path} in trace {trace}: {ours:#?}"
    );
    assert!(
        ours.iter().any(|l| span_names(l).first().map(String::as_str) == Some("work") && span_field(l, "queue") == Some(&json!(queue))),
        "no line of the {queue} queue's work in trace {trace}: {ours:#?}"
    );
    let work: Vec<&Value> =
        logs.iter().filter(|l| span_field(l, "queue") == Some(&json!(queue)) && span_field(l, "key") == Some(&json!(key))).collect();
    assert!(!work.is_empty(), "no line of the {queue} work keyed {key}");
    for line in work {
        assert_eq!(span_field(line, "trace_id"), Some(&json!(trace)), "a line of the {queue} work in another trace: {line}");
    }
}

/// Every line whose spans name `field` = `id` carries a trace id.
fn assert_every_line_traced(logs: &[Value], field: &str, id: &str) {
    let lines: Vec<&Value> = logs.iter().filter(|l| span_field(l, field) == Some(&json!(id))).collect();
    assert!(!lines.is_empty(), "no line with {field} = {id}");
    for line in lines {
        assert!(span_field(line, "trace_id").and_then(Value::as_str).is_some_and(|t| !t.is_empty()), "a line without a trace id: {line}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_vote_is_one_trace_from_its_request_across_the_queue_to_its_hooks_and_result() {
    let pqt = stub(json!({"qualified": true})).await;
    let post = stub(json!({"data": {"noted": true}})).await;
    let server = Logged::start("trace-vote", &[]);
    let request = public_task(1, json!({"voting_pqt": {"mode": "http", "url": pqt.url}, "post_award": {"mode": "http", "url": post.url}}));
    let (status, created, create_trace) = server.post("/submit-social-choice-task", &request, None).await;
    assert_eq!(status, 201, "{created}");
    let id = created["social_task_id"].as_str().expect("an id").to_owned();
    server.wait_for("the task started", &format!("/get-status/{id}"), |b| b["status"] == json!("started")).await;

    let vote = agora_e2e::vote_body(&id, "voter-1", json!({"selected_option": "agent-translator-01"}));
    let (status, answer, trace) = server.post("/submit-vote", &vote, None).await;
    assert_eq!((status, &answer["qualified"]), (200, &json!(true)), "{answer}");
    assert_eq!(trace.len(), 32, "the server's own trace id: {trace:?}");
    assert_ne!(trace, create_trace, "each request is a trace of its own");
    server.wait_for("the task evaluated", &format!("/get-status/{id}"), |b| b["status"] == json!("complete")).await;
    let is_result = |m: &Value| m["event_type"] == json!("voting_result");
    let inbox = server
        .wait_for("the voting_result", "/local/inbox/agent-translator-01", |b| b.as_array().is_some_and(|a| a.iter().any(is_result)))
        .await;
    assert_eq!(inbox.as_array().map(|a| a.iter().filter(|m| is_result(m)).count()), Some(1), "{inbox}");

    // The hooks were called in the vote's trace: the PQT by the route, the post-award hook by
    // the evaluator, on the other side of the queue.
    let header_of = |stub: &agora_e2e::StubServer| stub.requests.lock().unwrap()[0].headers.get(HEADER).cloned();
    assert_eq!(header_of(&pqt).as_deref(), Some(trace.as_str()), "the PQT request's trace header");
    assert_eq!(header_of(&post).as_deref(), Some(trace.as_str()), "the post-award request's trace header");

    let logs = server.lines();
    assert_one_trace_across(&logs, &trace, "/submit-vote", "evaluation", &id);
    assert_every_line_traced(&logs, "social_task_id", &id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bid_is_one_trace_from_its_request_across_two_queues_to_its_bid_winner_call() {
    let delegate = stub(json!({"success": true, "output": {}})).await;
    let server = Logged::start("trace-bid", &with_delegate(&delegate.url));
    let mut job = crate::orcade::closed_job();
    job["bid_job_subject_ids"] = json!(["p1"]);
    let (status, created, _) = server.post("/bid-jobs", &job, None).await;
    assert_eq!(status, 201, "{created}");
    let id = created["data"]["bid_job_id"].as_str().expect("an id").to_owned();

    let (status, answer, trace) = server.post(&format!("/bid-jobs/{id}/bids"), &crate::orcade::bid("p1", 1.0, 0.9), None).await;
    assert_eq!(status, 201, "{answer}");
    let winner_call = wait_until("the bid_winner call", SOON, || async {
        delegate.received("/api/submit-and-wait").into_iter().find(|c| c.json["task_data"]["event_type"] == json!("bid_winner"))
    })
    .await;
    assert_eq!(winner_call.headers.get(HEADER), Some(&trace), "the bid_winner call is in the bid's trace");
    let request_call =
        delegate.received("/api/submit-and-wait").into_iter().find(|c| c.json["task_data"]["event_type"] == json!("bid_request"));
    assert!(request_call.is_some_and(|c| c.headers.get(HEADER).is_some_and(|t| *t != trace)), "the bid_request is in the create's trace");

    // The delivery logs its end after the delegate has answered: wait for it to be written.
    let delivered = |logs: &[Value]| in_trace(logs, &trace).iter().any(|l| span_field(l, "queue") == Some(&json!("orcade-delivery")));
    let logs = wait_until("the delivery of the bid_winner in the bid's trace", SOON, || async {
        let logs = server.lines();
        delivered(&logs).then_some(logs)
    })
    .await;
    assert_one_trace_across(&logs, &trace, &format!("/bid-jobs/{id}/bids"), "orcade-evaluation", &id);
    assert!(delivered(&logs), "the delivery of the bid_winner is in the bid's trace");
    assert_every_line_traced(&logs, "bid_job_id", &id);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_exchange_task_is_one_trace_through_its_assignment_and_handover_to_completed() {
    let delegate = stub(json!({"success": true, "output": {"done": true}})).await;
    let server = Logged::start("trace-task", &with_delegate(&delegate.url));
    // The caller names the trace: an agent that ties its own work to Agora's.
    let trace = "agent-7:job-42";
    let task = json!({"task_assignment_type": "direct", "task_data": {"doc": "q3.pdf"}, "task_metadata": {"task_assignment": {"subject_id": "agent-1"}}});
    let (status, created, answered) = server.post("/tasks", &task, Some(trace)).await;
    assert_eq!((status, answered.as_str()), (201, trace), "{created}");
    let id = created["data"]["task_id"].as_str().expect("an id").to_owned();
    server
        .wait_for("the task completed", &format!("/tasks/{id}/output"), |b| b["data"]["task_assignment_status"] == json!("completed"))
        .await;
    let calls = delegate.received("/api/submit-and-wait");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].headers.get(HEADER).map(String::as_str), Some(trace), "the handover is in the task's trace");

    let logs = server.lines();
    assert_one_trace_across(&logs, trace, "/tasks", "xchange-assignment", &id);
    assert_every_line_traced(&logs, "task_id", &id);
}
