//! The exchange SDK, `XchangeClient` (clients.md): tasks submitted in each of the four modes
//! with its bodies (keys only when given), read back and waited for as it does (a 404 ends the
//! wait), queries, and subjects with PATCH as a raw `$set`. Issue 25 items 4 (bidding with an
//! explicit empty roster, or none), 5 (function mode's `parameters` reach an HTTP selector) and
//! 6 (subjects).

use super::*;
use crate::xchange::{delegate_calls, delegate_stub, post_subject, FINAL, SOON};
use agora_e2e::{wait_until, StubServer};
use std::time::{Duration, Instant};

/// `submit_task`'s body: the mode and `task_data` always; `task_id` and
/// `task_metadata.task_assignment` only when given.
fn sdk_task(mode: &str, task_data: Value, task_id: Option<&str>, assignment: Option<Value>) -> Value {
    let mut body = json!({"task_assignment_type": mode, "task_data": task_data});
    if let Some(id) = task_id {
        body["task_id"] = json!(id);
    }
    if let Some(assignment) = assignment {
        body["task_metadata"] = json!({"task_assignment": assignment});
    }
    body
}

/// `submit_task`: reads `data.task_id`.
async fn submit_task(server: &Server, body: &Value) -> String {
    let data = read_ok(&format!("submit_task {body}"), server.post("/tasks", body).await, 201);
    data["task_id"].as_str().unwrap_or_else(|| panic!("data.task_id: {data}")).to_owned()
}

/// `get_task`: reads `task_assignment_status` and `taski_creation_time`.
async fn get_task(server: &Server, id: &str) -> Value {
    let task = read_ok(&format!("get_task {id}"), server.get(&format!("/tasks/{id}")).await, 200);
    assert!(task["task_assignment_status"].is_string(), "{task}");
    assert_py_datetime("taski_creation_time", &task["taski_creation_time"]);
    task
}

/// `wait_for_task`: polls the output until `completed`, `failed` or `rejected`; a 404 ends the
/// wait at once (`None`).
async fn wait_for_task(server: &Server, id: &str) -> Option<Value> {
    let path = format!("/tasks/{id}/output");
    wait_until(&format!("task {id} final"), SOON, || async {
        let answer = server.get(&path).await;
        if answer.0 == 404 {
            read_error(&format!("GET {path}"), answer, 404);
            return Some(None);
        }
        let output = read_ok(&format!("GET {path}"), answer, 200);
        FINAL.contains(&output["task_assignment_status"].as_str().unwrap_or_default()).then_some(Some(output))
    })
    .await
}

/// Waits for the task to be final with `status`; returns its `task_output`.
async fn waited(server: &Server, id: &str, status: &str) -> Value {
    let output = wait_for_task(server, id).await.unwrap_or_else(|| panic!("task {id}: 404"));
    assert_eq!(output["task_assignment_status"], json!(status), "task {id}: {output}");
    output["task_output"].clone()
}

/// The task's output once final, if it is within `limit`.
async fn final_within(server: &Server, id: &str, limit: Duration) -> Option<Value> {
    let deadline = Instant::now() + limit;
    loop {
        let output = read_ok("GET output", server.get(&format!("/tasks/{id}/output")).await, 200);
        if FINAL.contains(&output["task_assignment_status"].as_str().unwrap_or_default()) {
            return Some(output);
        }
        if Instant::now() >= deadline {
            return None;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The subjects that got a `bid_request` through `stub`, sorted.
fn asked_to_bid(stub: &StubServer) -> Vec<String> {
    let mut asked: Vec<String> = delegate_calls(stub)
        .iter()
        .filter(|c| c["task_data"]["event_type"] == json!("bid_request"))
        .filter_map(|c| c["subject_id"].as_str().map(str::to_owned))
        .collect();
    asked.sort();
    asked
}

/// Waits until the bidding task has its job; returns the job's id.
async fn bid_job_of(server: &Server, id: &str) -> String {
    wait_until(&format!("task {id}'s bid job"), SOON, || async {
        get_task(server, id).await["task_metadata"]["bid_job_id"].as_str().map(str::to_owned)
    })
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tasks_in_each_mode_are_submitted_read_and_waited_for_as_the_sdk_does() {
    let server = Server::start().await;
    for id in ["xs-a", "xs-b"] {
        post_subject(&server, &json!({"subject_id": id, "topics": ["translation"], "subject_capabilities": {"ocr": id == "xs-b"}})).await;
    }
    let direct = submit_task(&server, &sdk_task("direct", json!({"doc": "q3.pdf"}), None, Some(json!({"subject_id": "xs-a"})))).await;
    assert_eq!(get_task(&server, &direct).await["task_id"], json!(direct));
    assert_eq!(waited(&server, &direct, "completed").await["success"], json!(true));

    for (assignment, want) in [
        (json!({"function_id": "builtin:by-capability", "parameters": {"require": ["ocr"]}}), "xs-b"),
        (json!({"function_id": "builtin:first-subject"}), "xs-a"),
    ] {
        let id = submit_task(&server, &sdk_task("function", json!({"n": 1}), None, Some(assignment.clone()))).await;
        waited(&server, &id, "completed").await;
        assert_eq!(get_task(&server, &id).await["task_metadata"]["assigned_subject_id"], json!(want), "{assignment}");
    }
    // A selector failure: 400, while the task is stored failed.
    let failing = sdk_task(
        "function",
        json!({}),
        Some("xs-no-tpu"),
        Some(json!({"function_id": "builtin:by-capability", "parameters": {"require": ["tpu"]}})),
    );
    read_error("submit_task (the selector finds nobody)", server.post("/tasks", &failing).await, 400);
    assert_eq!(get_task(&server, "xs-no-tpu").await["task_assignment_status"], json!("failed"));
    assert!(waited(&server, "xs-no-tpu", "failed").await["error"].is_string());

    let open = submit_task(&server, &sdk_task("open", json!({"doc": "x"}), None, Some(json!({})))).await;
    assert!(waited(&server, &open, "rejected").await["error"].is_string(), "nobody accepts");

    let assignment =
        json!({"bid_job_evaluator_id": "builtin:lowest-price", "topics": ["translation"], "bid_job_description": {"what": "translate"}});
    let bidding = submit_task(&server, &sdk_task("bidding", json!({"doc": "q4.pdf"}), None, Some(assignment))).await;
    let job = bid_job_of(&server, &bidding).await;
    for (subject, price) in [("xs-a", 20), ("xs-b", 10)] {
        let answer =
            server.post(&format!("/bid-jobs/{job}/bids"), &json!({"bid_subject_id": subject, "bid_data": {"price_usd": price}})).await;
        read_ok(&format!("{subject} bids"), answer, 201);
    }
    let output = waited(&server, &bidding, "completed").await;
    assert_eq!((&output["bid_subject_id"], &output["task_type"]), (&json!("xs-b"), &json!("bid_winner")), "{output}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_unknown_task_ends_the_wait_at_once_and_queries_read_lists() {
    let server = Server::start().await;
    let started = Instant::now();
    assert_eq!(wait_for_task(&server, "no-such-task").await, None, "a 404 ends the wait");
    assert!(started.elapsed() < Duration::from_secs(2), "the wait took {:?}", started.elapsed());

    let id = submit_task(&server, &sdk_task("direct", json!({"k": 1}), Some("xs-q-1"), Some(json!({"subject_id": "xs-q"})))).await;
    assert_eq!(id, "xs-q-1");
    waited(&server, &id, "completed").await;
    let found =
        read_ok("query_tasks", server.post("/tasks/query", &json!({"task_metadata.task_assignment.subject_id": "xs-q"})).await, 200);
    let found = found.as_array().unwrap_or_else(|| panic!("data is a list: {found}"));
    assert_eq!(found.iter().map(|t| t["task_id"].clone()).collect::<Vec<_>>(), [json!("xs-q-1")]);
    found.iter().for_each(|t| assert_py_datetime("taski_creation_time", &t["taski_creation_time"]));
    assert_eq!(read_ok("query_tasks (none)", server.post("/tasks/query", &json!({"task_id": "nope"})).await, 200), json!([]));
}

/// Item 6 on Xchange: `PATCH /subjects/{id}` is a raw `$set`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn subjects_are_created_read_patched_as_a_raw_set_and_deleted() {
    let server = Server::start().await;
    let fresh = read_ok("create_subject {}", server.post("/subjects", &json!({})).await, 201);
    assert!(fresh["subject_id"].as_str().is_some_and(|s| !s.is_empty()), "{fresh}");
    let full = json!({
        "subject_id": "xs-s1",
        "subject_metadata": {"owner": "team-nlp", "region": "us-east"},
        "task_evaluation_function": "",
        "subject_capabilities": {"languages": ["en", "fr"]},
        "topics": ["nlp"],
    });
    assert_eq!(read_ok("create_subject", server.post("/subjects", &full).await, 201), full);
    assert_eq!(read_ok("get_subject", server.get("/subjects/xs-s1").await, 200), full);

    let body = json!({
        "subject_metadata.owner": "team-ml",
        "subject_capabilities.gpu.count": 2,
        "rating": {"stars": 4},
        "notes.internal.first": "trial",
    });
    let stored = assert_raw_set_stored(&server, "/subjects/xs-s1", &body).await;
    assert_eq!(stored["subject_metadata"]["region"], json!("us-east"), "a dotted path sets only its leaf: {stored}");
    assert_patch_refused(&server, "/subjects/xs-s1", &raw_set_refusals("subject_id")).await;

    // A subject with fields of its own is still chosen and reached.
    let found = read_ok("query_subjects", server.post("/subjects/query", &json!({"topics": {"$in": ["nlp"]}})).await, 200);
    assert_eq!(found.as_array().map(|a| a.iter().map(|s| s["subject_id"].clone()).collect::<Vec<_>>()), Some(vec![json!("xs-s1")]));
    let assignment = json!({"function_id": "builtin:by-capability", "parameters": {"require": ["gpu"]}});
    let id = submit_task(&server, &sdk_task("function", json!({"n": 1}), None, Some(assignment))).await;
    waited(&server, &id, "completed").await;
    assert_eq!(get_task(&server, &id).await["task_metadata"]["assigned_subject_id"], json!("xs-s1"));

    let deleted = read_ok("delete_subject", server.send(Method::DELETE, "/subjects/xs-s1", None).await, 200);
    assert_eq!(deleted, json!({"deleted": true}));
    assert_eq!(read_error("get a deleted subject", server.get("/subjects/xs-s1").await, 404), "Subject not found");
}

/// Item 4: an explicit `bid_job_subject_ids: []` is a job with no subjects: nobody is asked to
/// bid, and the task ends at once rather than at the 24 h bidding limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_explicit_empty_roster_asks_nobody_and_the_task_ends() {
    let delegate = delegate_stub(Duration::ZERO).await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(delegate.url.clone())).await;
    for (id, topics) in [("er-a", json!(["translation"])), ("er-b", json!(["translation"])), ("er-c", json!([]))] {
        post_subject(&server, &json!({"subject_id": id, "topics": topics})).await;
    }
    for assignment in [
        json!({"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_subject_ids": []}),
        json!({"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_subject_ids": [], "topics": ["translation"]}),
    ] {
        let id = submit_task(&server, &sdk_task("bidding", json!({"doc": "x"}), None, Some(assignment.clone()))).await;
        let ended = final_within(&server, &id, Duration::from_secs(5)).await;
        let asked = asked_to_bid(&delegate);
        assert!(
            ended.is_some() && asked.is_empty(),
            "{assignment}: after 5 s the task is {} and {asked:?} got a bid_request (want: final, nobody asked)",
            get_task(&server, &id).await["task_assignment_status"],
        );
        let output = ended.unwrap_or_default();
        if output["task_assignment_status"] != json!("completed") {
            assert!(output["task_output"]["error"].is_string(), "a failed task says why: {output}");
        }
    }
}

/// Item 4: with no `bid_job_subject_ids`, the roster is the subjects with one of the `topics`,
/// else every subject.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_absent_roster_falls_back_to_topics_then_to_every_subject() {
    let delegate = delegate_stub(Duration::ZERO).await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(delegate.url.clone())).await;
    for (id, topics) in
        [("fb-a", json!(["translation"])), ("fb-b", json!(["translation", "fr"])), ("fb-c", json!(["legal"])), ("fb-d", json!([]))]
    {
        post_subject(&server, &json!({"subject_id": id, "topics": topics})).await;
    }
    let mut asked_before = 0;
    for (assignment, want) in [
        (json!({"bid_job_evaluator_id": "builtin:lowest-price", "topics": ["translation"]}), vec!["fb-a", "fb-b"]),
        (json!({"bid_job_evaluator_id": "builtin:lowest-price"}), vec!["fb-a", "fb-b", "fb-c", "fb-d"]),
    ] {
        let id = submit_task(&server, &sdk_task("bidding", json!({"doc": "x"}), None, Some(assignment.clone()))).await;
        let job = bid_job_of(&server, &id).await;
        let roster = read_ok("the task's bid job", server.get(&format!("/bid-jobs/{job}")).await, 200)["bid_job_subject_ids"].clone();
        let mut roster: Vec<String> = serde_json::from_value(roster).expect("a list of ids");
        roster.sort();
        assert_eq!(roster, want, "{assignment}");
        let asked = wait_until(&format!("{} bid_requests", want.len()), SOON, || async {
            let asked = asked_to_bid(&delegate);
            (asked.len() == asked_before + want.len()).then_some(asked)
        })
        .await;
        asked_before = asked.len();
        for subject in ["fb-a", "fb-b", "fb-c", "fb-d"] {
            let n = delegate_calls(&delegate)
                .iter()
                .filter(|c| c["subject_id"] == json!(subject) && c["task_data"]["bid_job_id"] == json!(job))
                .count();
            assert_eq!(n, usize::from(want.contains(&subject)), "{assignment}: bid_requests to {subject}");
        }
    }
}

/// Item 5: function mode's `parameters` reach a selector called over HTTP, beside the task and
/// the subjects; a task without them sends none.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn function_mode_parameters_reach_an_http_selector() {
    let selector = StubServer::json(|r| (200, json!({"selected_subject_id": r.json["subjects"][0]["subject_id"]}))).await;
    let server = Server::start().await;
    for id in ["fp-a", "fp-b"] {
        post_subject(&server, &json!({"subject_id": id})).await;
    }
    let function_id = format!("{}/select", selector.url);
    let parameters = json!({"require": ["ocr"], "weights": {"cost": 0.7, "speed": 0.3}});
    let body =
        sdk_task("function", json!({"doc": "q3.pdf"}), Some("fp-1"), Some(json!({"function_id": function_id, "parameters": parameters})));
    submit_task(&server, &body).await;
    let calls = selector.received("/select");
    assert_eq!(calls.len(), 1, "the selector runs once, inline");
    let input = &calls[0].json;
    assert_eq!(input["task"]["task_id"], json!("fp-1"), "{input}");
    assert_eq!(input["subjects"].as_array().map(Vec::len), Some(2), "{input}");
    assert_eq!(input.get("parameters"), Some(&parameters), "the selector's input carries the task's parameters: {input}");
    waited(&server, "fp-1", "completed").await;

    let body = sdk_task("function", json!({"doc": "q4.pdf"}), Some("fp-2"), Some(json!({"function_id": function_id})));
    submit_task(&server, &body).await;
    let calls = selector.received("/select");
    assert_eq!(calls.len(), 2);
    assert!(calls[1].json.get("parameters").is_none_or(|p| p == &json!({})), "no parameters given, none sent: {}", calls[1].json);
}
