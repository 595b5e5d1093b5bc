//! Dead letters over HTTP: an evaluation whose hook is down fails its attempts and is
//! dead-lettered, listed with its tries, its error and the trace of the vote that triggered it;
//! once the hook is back, putting it back on its queue completes the task.

use agora_e2e::{example_request, vote_body, wait_until, HookServer, Server, REVIEWERS};
use agora_telemetry::trace::HEADER;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

async fn dead_letters(server: &Server, query: &str) -> Vec<Value> {
    let (status, body) = server.get(&format!("/admin/dead-letters{query}")).await;
    assert_eq!(status, 200, "{body}");
    body["dead_letters"].as_array().unwrap_or_else(|| panic!("a list: {body}")).clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_evaluation_that_fails_its_attempts_is_listed_in_its_trace_and_completes_once_put_back() {
    let up = Arc::new(AtomicBool::new(false));
    let hook_up = up.clone();
    let evaluation = HookServer::start(Duration::ZERO, move |_| match hook_up.load(Ordering::SeqCst) {
        true => (200, json!({"winner": "agent-translator-02"}).to_string()),
        false => (503, json!({"error": "down for maintenance"}).to_string()),
    })
    .await;
    let server = Server::start().await;
    let mut request = example_request();
    request["evaluation_spec"]["evaluation"] = json!({"mode": "http", "url": evaluation.url});
    let id = server.create(&request).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    // The votes in a trace of the caller's own: the evaluation they trigger is queued in it.
    let trace = "dead-letter-e2e-1";
    for reviewer in REVIEWERS {
        let vote = vote_body(&id, reviewer, json!({"selected_option": "agent-translator-02"}));
        let answer = server
            .http
            .post(server.url("/submit-vote"))
            .header("content-type", "application/json")
            .header(HEADER, trace)
            .body(vote.to_string());
        assert_eq!(answer.send().await.expect("vote").status(), 200);
    }

    let letters = wait_until("the evaluation dead-lettered", Duration::from_secs(20), || async {
        let letters = dead_letters(&server, "?queue=evaluation").await;
        (!letters.is_empty()).then_some(letters)
    })
    .await;
    assert_eq!(letters.len(), 1, "{letters:?}");
    let letter = &letters[0];
    assert_eq!((&letter["queue"], &letter["key"], &letter["attempts"]), (&json!("evaluation"), &json!(id), &json!(3)), "{letter}");
    assert!(letter["body"].as_str().unwrap().contains(&id), "{letter}");
    assert!(letter["last_error"].as_str().unwrap().contains("503"), "{letter}");
    assert_eq!(letter["agora_trace_id"], trace, "in the trace of the votes: {letter}");
    assert!(letter["first_try"].as_str().unwrap() < letter["last_try"].as_str().unwrap(), "{letter}");
    assert_eq!(evaluation.calls(), 3, "one hook call per attempt");
    assert!(dead_letters(&server, "?queue=orcade-evaluation").await.is_empty());
    assert_eq!(server.status_of(&id).await.as_deref(), Some("started"), "nothing retries a dead letter by itself");

    // The hook is back: put it back on its queue, and the task completes.
    up.store(true, Ordering::SeqCst);
    let work_id = letter["work_id"].clone();
    let (status, answer) = server.post("/admin/dead-letters/redrive", &json!({"work_ids": [work_id]})).await;
    assert_eq!((status, answer), (200, json!({"redriven": 1, "work_ids": [work_id]})));
    server.wait_for_status(&id, "complete", Duration::from_secs(10)).await;
    let (_, report) = server.get(&format!("/get-report/{id}")).await;
    assert_eq!(report["winners"], json!(["agent-translator-02"]), "{report}");
    assert!(dead_letters(&server, "").await.is_empty(), "no dead letter left");
    let (status, answer) = server.post("/admin/dead-letters/redrive", &json!({"work_ids": [work_id]})).await;
    assert_eq!(status, 404, "already put back: {answer}");
}
