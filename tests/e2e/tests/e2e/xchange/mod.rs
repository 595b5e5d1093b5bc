//! Xchange end to end over the local server's HTTP API (on the store `AGORA_E2E_STORE` names):
//! each assignment mode from `POST /tasks` to a final status, with delegate systems, selectors
//! and acceptance functions played by real HTTP servers and bidding through this server's
//! Orcade; every route of §3 in its envelope; concurrent tasks delivered once each; bad input
//! refused by name with nothing stored changed; a `kill -9` loses no acknowledged task; what
//! existing clients rely on (`compat`); an Orcade elsewhere, Agora's or one serving only its
//! spec's routes (`remote_orcade`).

mod bad_input;
mod compat;
mod concurrency;
mod crash;
mod flow;
mod input_keys;
mod remote_orcade;
mod routes;

use agora_e2e::{wait_until, Server, StubServer};
use serde_json::{json, Value};
use std::time::Duration;

/// How long background work (the assignment queue, Orcade's queues) is given.
pub const SOON: Duration = Duration::from_secs(20);

/// The final statuses (§1).
pub const FINAL: [&str; 3] = ["completed", "failed", "rejected"];

/// Posts a task; asserts the 201 in the envelope; returns the stored task.
pub async fn post_task(server: &Server, request: &Value) -> Value {
    let (status, body) = server.post("/tasks", request).await;
    assert_eq!(status, 201, "POST /tasks {request}: {body}");
    assert_eq!(body["ok"], json!(true), "{body}");
    body["data"].clone()
}

/// Registers a subject; asserts the 201 in the envelope; returns the stored subject.
pub async fn post_subject(server: &Server, request: &Value) -> Value {
    let (status, body) = server.post("/subjects", request).await;
    assert_eq!(status, 201, "POST /subjects {request}: {body}");
    assert_eq!(body["ok"], json!(true), "{body}");
    body["data"].clone()
}

pub fn id_of(task: &Value) -> String {
    task["task_id"].as_str().unwrap_or_else(|| panic!("a task_id in {task}")).to_owned()
}

/// A direct task for `subject`.
pub fn direct_task(subject: &str, task_data: Value) -> Value {
    json!({
        "task_assignment_type": "direct",
        "task_data": task_data,
        "task_metadata": {"task_assignment": {"subject_id": subject}},
    })
}

/// A function-mode task with `function_id` and `parameters`.
pub fn function_task(function_id: &str, parameters: Value, task_data: Value) -> Value {
    json!({
        "task_assignment_type": "function",
        "task_data": task_data,
        "task_metadata": {"task_assignment": {"function_id": function_id, "parameters": parameters}},
    })
}

/// `data` of a 200 answer to GET `path`.
pub async fn data(server: &Server, path: &str) -> Value {
    let (status, body) = server.get(path).await;
    assert_eq!((status, &body["ok"]), (200, &json!(true)), "GET {path}: {body}");
    body["data"].clone()
}

/// The stored task.
pub async fn task(server: &Server, id: &str) -> Value {
    data(server, &format!("/tasks/{id}")).await
}

/// Polls `GET /tasks/{id}/output` until the task is final (as the Python SDK's
/// `wait_for_task` does); returns `{"task_assignment_status", "task_output"}`.
pub async fn wait_for_final(server: &Server, id: &str) -> Value {
    wait_until(&format!("task {id} final"), SOON, || async {
        let output = data(server, &format!("/tasks/{id}/output")).await;
        let status = output["task_assignment_status"].as_str().unwrap_or_default().to_owned();
        FINAL.contains(&status.as_str()).then_some(output)
    })
    .await
}

/// Waits until the task is final with `status`; returns its `task_output`.
pub async fn final_output(server: &Server, id: &str, status: &str) -> Value {
    let output = wait_for_final(server, id).await;
    assert_eq!(output["task_assignment_status"], json!(status), "task {id}: {output}");
    output["task_output"].clone()
}

/// The reply a delegate stub gives to a call: it names what it received, so that a test can
/// tell the stored `task_output` is this very reply.
pub fn delegate_reply(call: &Value) -> Value {
    json!({
        "success": true,
        "ack": {"subject_id": call["subject_id"], "session_id": call["session_id"], "task_id": call["task_id"], "by": "stub"},
        "output": {"done": call["task_data"]},
    })
}

/// A delegate system played by a real HTTP server that answers every call with
/// [`delegate_reply`], after `delay`.
pub async fn delegate_stub(delay: Duration) -> StubServer {
    StubServer::start(delay, |r| {
        let reply = if r.path == "/api/submit-and-wait" { (200, delegate_reply(&r.json)) } else { (404, json!({"error": "no route"})) };
        (reply.0, Vec::new(), reply.1.to_string().into_bytes())
    })
    .await
}

/// The bodies of the delegate calls a stub received.
pub fn delegate_calls(stub: &StubServer) -> Vec<Value> {
    stub.received("/api/submit-and-wait").into_iter().map(|r| r.json).collect()
}

/// The sorted keys of a JSON object.
pub fn keys(v: &Value) -> Vec<String> {
    let mut keys: Vec<String> = v.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
    keys.sort();
    keys
}

/// The inbox messages of `subject` about the task `id`.
pub async fn inbox_for(server: &Server, subject: &str, id: &str) -> Vec<Value> {
    server.inbox(subject).await.into_iter().filter(|m| m["task_id"] == json!(id)).collect()
}

/// Every route that takes a task's or a subject's id in its path, with `id` there.
pub fn id_routes(id: &str) -> [(reqwest::Method, String); 5] {
    use reqwest::Method;
    [
        (Method::GET, format!("/tasks/{id}")),
        (Method::GET, format!("/tasks/{id}/output")),
        (Method::GET, format!("/subjects/{id}")),
        (Method::PATCH, format!("/subjects/{id}")),
        (Method::DELETE, format!("/subjects/{id}")),
    ]
}
