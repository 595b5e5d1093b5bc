//! The upstream delegate system (clients.md), played by [`DelegateServer`]: each call waits on
//! the queue its `session_id` names, so calls sharing a session may take each other's outputs.
//! Issue 25 item 3: every delegate call of Orcade and Xchange has a session of its own, and every
//! stored reply is the output of its own call.

use super::*;
use crate::orcade::{closed_job, create_job, id_of, results_of, submit, winner_of};
use crate::xchange::{final_output, id_of as task_id_of, post_task};
use agora_e2e::delegate::{DelegateServer, REQUIRED};
use std::time::Duration;

/// The agents' longest think: long enough that calls in flight overlap.
const THINK: Duration = Duration::from_millis(150);

/// The calls that shared a session, for a failure message (empty: none did).
fn shared(delegate: &DelegateServer) -> Vec<String> {
    delegate
        .shared_sessions()
        .into_iter()
        .map(|(session, calls)| {
            let tasks: Vec<String> = calls.iter().map(|c| format!("{} for {}", c["task_id"], c["subject_id"])).collect();
            format!("session {session:?}: {}", tasks.join(", "))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_delegate_server_refuses_incomplete_calls_and_answers_from_the_sessions_queue() {
    let delegate = DelegateServer::start(THINK).await;
    let http = reqwest::Client::new();
    let url = format!("{}/api/submit-and-wait", delegate.url);
    let call = |task: &str, session: &str| json!({"subject_id": "agent-1", "session_id": session, "task_id": task, "task_data": {"n": 1}});
    for key in REQUIRED {
        for body in [
            {
                let mut b = call("t", "s");
                b.as_object_mut().expect("object").remove(key);
                b
            },
            {
                let mut b = call("t", "s");
                b[key] = if key == "task_data" { json!({}) } else { json!("") };
                b
            },
        ] {
            let r = http.post(&url).json(&body).send().await.expect("request");
            assert_eq!(r.status().as_u16(), 400, "{body}");
        }
    }
    assert!(delegate.calls().is_empty() && delegate.refused().len() == 8);

    // Two calls on one session get the two outputs between them, in whichever order.
    let send = |body: Value| {
        let (http, url) = (http.clone(), url.clone());
        async move { http.post(&url).json(&body).send().await.expect("request").json::<Value>().await.expect("JSON") }
    };
    let mut headers = call("t2", "shared");
    headers["headers"] = json!({"x-trace": "1"});
    let (a, b) = tokio::join!(send(call("t1", "shared")), send(headers));
    let mut got = vec![a["output"]["for_task_id"].clone(), b["output"]["for_task_id"].clone()];
    got.sort_by_key(Value::to_string);
    assert_eq!(got, [json!("t1"), json!("t2")], "{a} {b}");
    assert_eq!((&a["success"], &a["ack"]["session_id"]), (&json!(true), &json!("shared")), "{a}");
    assert_eq!(delegate.shared_sessions().len(), 1);
    let own = send(call("t3", "alone")).await;
    assert_eq!(own["output"], json!({"for_task_id": "t3", "subject_id": "agent-1"}));
}

/// Orcade: the roster's `bid_request`s go out together (their calls overlap) and the winner is
/// told; each call has a session of its own, and each stored `task_result` is the reply to its
/// own call (`output.for_task_id` = the call's `task_id`, the result's `bid_task_result_id`).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_orcade_notification_has_a_session_of_its_own() {
    let delegate = DelegateServer::start(THINK).await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(delegate.url.clone())).await;
    let roster: Vec<String> = (1..=8).map(|n| format!("ds-agent-{n}")).collect();
    let mut request = closed_job();
    request["bid_job_subject_ids"] = json!(roster);
    request.as_object_mut().expect("object").remove("bid_job_pqt_id");
    let id = id_of(&create_job(&server, &request).await);
    results_of(&server, &id, "bid_request", roster.len()).await;
    for (n, subject) in roster.iter().enumerate() {
        let price = 100 - n;
        assert_eq!(submit(&server, &id, &json!({"bid_subject_id": subject, "bid_data": {"price_usd": price}})).await.0, 201);
    }
    assert_eq!(winner_of(&server, &id).await, "ds-agent-8");
    results_of(&server, &id, "bid_winner", 1).await;

    let results = read_ok("task results", server.get(&format!("/bid-jobs/{id}/task-results")).await, 200);
    let results = results.as_array().expect("a list");
    let crossed: Vec<String> = results
        .iter()
        .filter(|r| {
            let output = &r["task_result"]["output"];
            output["for_task_id"] != r["bid_task_result_id"] || output["subject_id"] != r["bid_subject_id"]
        })
        .map(|r| format!("{} to {}: {}", r["task_type"], r["bid_subject_id"], r["task_result"]["output"]))
        .collect();
    let calls = delegate.calls();
    assert_eq!(calls.len(), roster.len() + 1, "eight bid_requests and a bid_winner");
    assert!(
        crossed.is_empty() && delegate.shared_sessions().is_empty(),
        "replies crossed: {crossed:#?}\nsessions shared: {:#?}",
        shared(&delegate)
    );
    for result in results {
        let call = calls.iter().find(|c| c["task_id"] == result["bid_task_result_id"]);
        assert!(call.is_some_and(|c| c["subject_id"] == result["bid_subject_id"]), "the call of {result}");
    }
    assert_eq!(delegate.retries(), vec![None; calls.len()], "no crash: no call says it is a retry (Agora-Retry)");
}

/// Xchange: direct tasks delivered at once; each call has a session of its own, and each task's
/// `task_output` is the reply to its own call (`output.for_task_id` = the task's id).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_xchange_delivery_has_a_session_of_its_own() {
    let delegate = DelegateServer::start(THINK).await;
    let server = Server::start_with(|c| c.delegate_api_url = Some(delegate.url.clone())).await;
    let posts = (1..=8).map(|n| {
        let server = &server;
        async move {
            let body = json!({
                "task_assignment_type": "direct",
                "task_data": {"n": n},
                "task_metadata": {"task_assignment": {"subject_id": format!("dx-agent-{}", n % 3)}},
            });
            task_id_of(&post_task(server, &body).await)
        }
    });
    let ids = futures::future::join_all(posts).await;
    let mut crossed = Vec::new();
    for id in &ids {
        let output = final_output(&server, id, "completed").await;
        if output["output"]["for_task_id"] != json!(id) {
            crossed.push(format!("task {id}: {output}"));
        }
    }
    assert_eq!(delegate.calls().len(), ids.len());
    assert_eq!(delegate.retries(), vec![None; ids.len()], "no crash: no call says it is a retry (Agora-Retry)");
    assert!(
        crossed.is_empty() && delegate.shared_sessions().is_empty(),
        "replies crossed: {crossed:#?}\nsessions shared: {:#?}",
        shared(&delegate)
    );
}
