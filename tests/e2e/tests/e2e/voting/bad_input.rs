//! Bad input never gets a 500 and never loses stored data: every route, malformed bodies,
//! missing and mistyped fields, wrong datetimes, unknown collections and filter operators.

use agora_e2e::*;
use serde_json::{json, Value};
use std::time::Duration;

/// Asserts a 4xx with `{"error": ...}` containing every one of `needles`.
fn assert_refused(what: &str, got: (u16, Value), status: u16, needles: &[&str]) {
    let (s, body) = got;
    assert_eq!(s, status, "{what}: {body}");
    let message = body["error"].as_str().unwrap_or_else(|| panic!("{what}: no error message in {body}"));
    for n in needles {
        assert!(message.contains(n), "{what}: {message:?} does not mention {n:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn create_and_parse_refuse_bad_requests_by_field() {
    let server = Server::start().await;
    let id = server.create(&example_request()).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    let (_, before) = server.get(&format!("/get-full-task-bundle/{id}")).await;

    for route in ["/submit-social-choice-task", "/parse-social-choice-task"] {
        assert_refused(route, server.post_raw(route, "").await, 400, &["empty"]);
        assert_refused(route, server.post_raw(route, "{\"social_task\": ").await, 400, &["not valid JSON"]);
        assert_refused(route, server.post_raw(route, "[1,2]").await, 400, &["JSON object"]);
        assert_refused(route, server.post(route, &json!({"social_task": {}})).await, 400, &["subject_spec", "evaluation_spec"]);

        let mut r = example_request();
        r["social_task"].as_object_mut().unwrap().remove("created_by_subject_id");
        assert_refused(route, server.post(route, &r).await, 400, &["social_task.created_by_subject_id is required"]);

        let mut r = example_request();
        r["social_task"]["org_ids"] = json!(["a", 3]);
        r["subject_spec"]["voting_options"] = json!("agent-translator-01");
        r["evaluation_spec"]["evaluation"] = json!({"mode": "telepathy"});
        assert_refused(
            route,
            server.post(route, &r).await,
            400,
            &["social_task.org_ids", "subject_spec.voting_options", "evaluation_spec.evaluation", "telepathy"],
        );

        let mut r = example_request();
        r["social_task"]["creation_time"] = json!("yesterday-ish");
        assert_refused(route, server.post(route, &r).await, 400, &["social_task.creation_time", "Invalid datetime: yesterday-ish"]);

        let mut r = example_request();
        r["social_task"]["scheduled_time"] = json!(true);
        assert_refused(route, server.post(route, &r).await, 400, &["social_task.scheduled_time", "Invalid datetime"]);

        let mut r = example_request();
        r["evaluation_spec"]["voting_pqt"] = json!({"mode": "function"});
        assert_refused(route, server.post(route, &r).await, 400, &["evaluation_spec.voting_pqt", "function_id"]);

        let mut r = example_request();
        r["evaluation_spec"]["evaluation"] = json!({"mode": "dsl", "workflow_id": "plurality-count:1.0"});
        assert_refused(route, server.post(route, &r).await, 400, &["evaluation_spec.evaluation", "dsl", "not available"]);

        let mut r = example_request();
        r["evaluation_spec"]["evaluation"] = json!({"mode": "builtin", "name": "dictator"});
        assert_refused(route, server.post(route, &r).await, 400, &["evaluation_spec.evaluation", "dictator"]);

        let mut r = example_request();
        r["social_task"]["duration"] = json!("five");
        assert_refused(route, server.post(route, &r).await, 400, &["social_task.duration"]);
    }

    // `{}` and `[]` are fine where the spec says "may be"; parse stores nothing.
    let mut r = example_request();
    r["social_task"]["created_by_subject_data"] = json!({});
    r["social_task"]["topics"] = json!([]);
    r["subject_spec"]["voting_metadata"] = json!({});
    r["evaluation_spec"]["tie_breaker"] = json!({});
    let (status, parsed) = server.post("/parse-social-choice-task", &r).await;
    assert_eq!(status, 200, "{parsed}");
    let parsed_id = parsed["parsed"]["social_task"]["social_task_id"].as_str().unwrap().to_owned();
    assert_eq!(parsed["parsed"]["subject_spec"]["topic_title"], "Lead translator, Q4 handbook");
    assert_eq!(parsed["parsed"]["evaluation_spec"]["choice_evaluation"], json!({"mode": "builtin", "name": "plurality"}));
    assert_eq!(server.get(&format!("/get-status/{parsed_id}")).await.0, 404, "parse stores nothing");

    let (_, after) = server.get(&format!("/get-full-task-bundle/{id}")).await;
    assert_eq!(before, after, "refused requests changed nothing");
    let (_, tasks) = server.post("/generic-query/social_task_core_data", &json!({})).await;
    assert_eq!(tasks.as_array().unwrap().len(), 1, "no refused task was stored");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn submit_vote_refuses_bad_requests_by_field() {
    let server = Server::start().await;
    let id = server.create(&public_request(5)).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    let (status, _) = server.vote(&id, "first", json!({"selected_option": "agent-translator-01"})).await;
    assert_eq!(status, 200);

    assert_refused("empty", server.post_raw("/submit-vote", "").await, 400, &["Vote rejected", "empty"]);
    assert_refused("malformed", server.post_raw("/submit-vote", "{\"vote_id\": ").await, 400, &["Vote rejected", "not valid JSON"]);
    assert_refused("array", server.post_raw("/submit-vote", "[]").await, 400, &["Vote rejected", "JSON object"]);
    let mut missing = vote_body(&id, "v", json!({}));
    missing.as_object_mut().unwrap().remove("submission_time");
    missing.as_object_mut().unwrap().remove("qualified");
    assert_refused("missing", server.post("/submit-vote", &missing).await, 400, &["Vote rejected", "submission_time", "qualified"]);
    let mut wrong = vote_body(&id, "v", json!({}));
    wrong["vote_data"] = json!("agent-translator-01");
    wrong["qualified"] = json!("yes");
    assert_refused("mistyped", server.post("/submit-vote", &wrong).await, 400, &["vote_data", "qualified"]);
    let mut bad_time = vote_body(&id, "v", json!({}));
    bad_time["submission_time"] = json!("noon");
    assert_refused("datetime", server.post("/submit-vote", &bad_time).await, 400, &["submission_time", "Invalid datetime: noon"]);

    let (_, votes) = server.post("/generic-query/votes", &json!({"social_task_id": id})).await;
    assert_eq!(votes.as_array().unwrap().len(), 1, "the stored vote is intact, nothing else stored");
    assert_eq!(votes[0]["submitter_subject_id"], "first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn queries_refuse_unknown_collections_operators_and_tasks() {
    let server = Server::start().await;
    let id = server.create(&example_request()).await;

    assert_refused(
        "collection",
        server.post("/generic-query/users", &json!({})).await,
        400,
        &["users", "social_task_core_data", "social_choice_subject_spec", "social_choice_evaluation_input", "votes"],
    );
    assert_refused("internal collection", server.post("/generic-query/agora_claims", &json!({})).await, 400, &["agora_claims"]);
    assert_refused("operator", server.post("/generic-query/votes", &json!({"vote_id": {"$regex": "^a"}})).await, 400, &["$regex"]);
    assert_refused("top operator", server.post("/generic-query/votes", &json!({"$where": "1"})).await, 400, &["$where"]);
    assert_refused("$in operand", server.post("/generic-query/votes", &json!({"vote_id": {"$in": 3}})).await, 400, &["$in"]);
    assert_refused("filter json", server.post_raw("/generic-query/votes", "{nope").await, 400, &["not valid JSON"]);
    assert_refused("filter type", server.post_raw("/generic-query/votes", "[1]").await, 400, &["filter"]);

    for route in ["get-report", "get-status", "get-full-task-bundle", "is-live-streaming-enabled"] {
        assert_refused(route, server.get(&format!("/{route}/task_deadbeef")).await, 404, &["Invalid social_task_id"]);
    }
    assert_refused("no route", server.get("/nowhere").await, 404, &["/nowhere"]);
    assert_refused("method", server.get("/submit-vote").await, 405, &["GET"]);

    // No body, or an empty filter: everything.
    let (status, all) = server.post_raw("/generic-query/social_task_core_data", "").await;
    assert_eq!(status, 200);
    assert_eq!(all.as_array().unwrap().len(), 1);
    let (_, found) = server
        .post(
            "/generic-query/social_task_core_data",
            &json!({"org_ids": "agent-reviewer-02", "social_task_properties.urgency": {"$in": ["high"]}}),
        )
        .await;
    assert_eq!(found[0]["social_task_id"], id.as_str());
    assert!(found[0].get("_id").is_none(), "no store-internal id");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn undecodable_paths_and_oversized_bodies_are_answered_in_json() {
    let server = Server::start().await;
    for path in ["/get-status/%FF", "/get-report/%C3%28", "/get-full-task-bundle/%E2%82", "/is-live-streaming-enabled/%FF%FE"] {
        assert_refused(path, server.get(path).await, 400, &["Invalid path", "UTF-8"]);
    }
    assert_refused("generic-query", server.post_raw("/generic-query/%FF", "{}").await, 400, &["Invalid path"]);

    // Over the limit: answered 413 in JSON, whether the length is declared (answered before the
    // body arrives, here a 10 GB declaration with one byte sent) or only found while reading.
    let too_large = r#"{"error":"Request body is too large: the limit is 1048576 bytes (AGORA_MAX_BODY_BYTES)"}"#;
    for route in ["/submit-social-choice-task", "/parse-social-choice-task", "/submit-vote", "/generic-query/votes"] {
        let answer = raw_post(&server, route, "Content-Length: 10737418240", b"{").await;
        assert!(answer.starts_with("HTTP/1.1 413") && answer.ends_with(too_large), "{route}: {answer}");
        let huge = vec![b'x'; 3 * 1024 * 1024];
        let answer = raw_post(&server, route, "Transfer-Encoding: chunked", &chunked(&huge)).await;
        assert!(answer.starts_with("HTTP/1.1 413") && answer.ends_with(too_large), "{route}: {answer}");
    }
    // A body just under the limit is read (and refused for what it says, not for its size).
    let big = format!("{{\"pad\": \"{}\"}}", "x".repeat(1024 * 1024 - 20));
    assert_refused("submit-vote", server.post_raw("/submit-vote", big).await, 400, &["Vote rejected"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn over_long_uris_and_oversized_heads_are_answered_in_json() {
    let server = Server::start().await;
    // A 9 KiB id: 414, on every route, GET or POST.
    let long = "x".repeat(9 * 1024);
    let (status, body) = server.get(&format!("/get-status/{long}")).await;
    assert_eq!(status, 414, "{body}");
    assert_eq!(body["error"], "Request URI is too long: 9228 bytes, the limit is 8192");
    let (status, body) = server.post_raw(&format!("/generic-query/votes?{long}"), "{}").await;
    assert_eq!((status, body["error"].as_str().is_some_and(|e| e.starts_with("Request URI is too long"))), (414, true), "{body}");
    // A 20 KiB header, or 80 headers: 431.
    let r = server.http.get(server.url("/get-status/task_1")).header("x-pad", "y".repeat(20 * 1024)).send().await.expect("answer");
    assert_eq!(r.status().as_u16(), 431);
    let body: serde_json::Value = r.json().await.expect("JSON");
    agora_e2e::openapi::assert_documented("GET", "/get-status/task_1", 431, &body);
    assert!(body["error"].as_str().is_some_and(|e| e.starts_with("Request headers are too large")), "{body}");
    let mut many = server.http.get(server.url("/get-status/task_1"));
    for i in 0..80 {
        many = many.header(format!("x-h{i}"), "1");
    }
    let r = many.send().await.expect("answer");
    assert_eq!(r.status().as_u16(), 431);
    let body: serde_json::Value = r.json().await.expect("JSON");
    agora_e2e::openapi::assert_documented("GET", "/get-status/task_1", 431, &body);
    assert!(body["error"].as_str().is_some_and(|e| e.starts_with("Request headers are too large")));
    // Just under the limits: served (a 404 for an unknown task).
    let (status, _) = server.get(&format!("/get-status/{}", "x".repeat(8 * 1024 - 20))).await;
    assert_eq!(status, 404);
}

/// Sends a POST with `framing` (a Content-Length or Transfer-Encoding header) and `body` on a
/// raw connection, ignoring a server that stops reading, and returns the answer as text. Fails
/// after 5 s without one.
async fn raw_post(server: &Server, path: &str, framing: &str, body: &[u8]) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let exchange = async {
        let mut socket = tokio::net::TcpStream::connect(server.running.addr).await.expect("connect");
        let head =
            format!("POST {path} HTTP/1.1\r\nHost: agora\r\nContent-Type: application/json\r\n{framing}\r\nConnection: close\r\n\r\n");
        socket.write_all(head.as_bytes()).await.expect("send the head");
        let _ = socket.write_all(body).await;
        let mut answer = Vec::new();
        let _ = socket.read_to_end(&mut answer).await;
        String::from_utf8_lossy(&answer).into_owned()
    };
    tokio::time::timeout(Duration::from_secs(5), exchange).await.expect("an answer within 5 s")
}

/// `body` as one chunk of the chunked transfer encoding, then the last chunk.
fn chunked(body: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out.extend_from_slice(b"\r\n0\r\n\r\n");
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn clients_that_trickle_their_request_do_not_hold_a_connection() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::start_with(|c| {
        c.header_read_timeout_ms = 300;
        c.body_read_timeout_ms = 300;
    })
    .await;

    // A head that never ends: the connection is closed soon after the limit.
    let started = std::time::Instant::now();
    let mut socket = tokio::net::TcpStream::connect(server.running.addr).await.expect("connect");
    socket.write_all(b"GET /get-status/task_00000000 HTTP/1.1\r\nHost: agora\r\n").await.expect("send");
    let mut rest = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), socket.read_to_end(&mut rest)).await.expect("closed within 5 s").expect("read");
    assert!(started.elapsed() >= Duration::from_millis(250), "closed before the limit: {:?}", started.elapsed());

    // A body that stops halfway: answered 400 in JSON once the body limit passes.
    let mut socket = tokio::net::TcpStream::connect(server.running.addr).await.expect("connect");
    socket
        .write_all(
            b"POST /submit-vote HTTP/1.1\r\nHost: agora\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"vote_id\":",
        )
        .await
        .expect("send");
    let mut answer = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(5), socket.read(&mut answer)).await.expect("answered within 5 s").expect("read");
    let answer = String::from_utf8_lossy(&answer[..n]);
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert!(answer.contains(r#"{"error":"Request body could not be read"#), "{answer}");

    // The server goes on answering.
    assert_eq!(server.get("/get-status/task_00000000").await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn odd_numbers_anywhere_never_get_a_5xx() {
    let server = Server::start().await;
    let id = server.create(&example_request()).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    let odd = ["1e308", "-1e308", "1e-308", "-0.0", "0", "-1", "18446744073709551616", "-9223372036854775809", "1.5", "1e400"];
    let mut sent = 0;
    for number in odd {
        let n: Value = serde_json::from_str(number).unwrap_or(Value::Null);
        let fields = [
            ("social_task", "duration"),
            ("social_task", "creation_time"),
            ("social_task", "scheduled_time"),
            ("social_task", "org_ids"),
            ("subject_spec", "voting_options"),
            ("evaluation_spec", "voting_pqt"),
        ];
        for (section, field) in fields {
            for route in ["/submit-social-choice-task", "/parse-social-choice-task"] {
                let mut r = example_request();
                r[section][field] = n.clone();
                let raw = r.to_string().replace("null", number);
                let (status, body) = server.post_raw(route, raw).await;
                assert!(status < 500, "{route} {section}.{field} = {number}: {status} {body}");
                sent += 1;
            }
        }
        for (field, value) in
            [("submission_time", n.clone()), ("vote_data", json!({"selected_option": "agent-translator-01", "weight": n.clone()}))]
        {
            let mut v = vote_body(&id, "agent-outsider", json!({"selected_option": "agent-translator-01"}));
            v[field] = value;
            let raw = v.to_string().replace("null", number);
            let (status, body) = server.post_raw("/submit-vote", raw).await;
            assert!(status < 500, "submit-vote {field} = {number}: {status} {body}");
            sent += 1;
        }
        for filter in [
            format!(r#"{{"duration": {{"$gt": {number}}}}}"#),
            format!(r#"{{"qualified": {number}}}"#),
            format!(r#"{{"$and": [{{"x": {{"$in": [{number}]}}}}]}}"#),
        ] {
            let (status, body) = server.post_raw("/generic-query/social_task_core_data", filter.clone()).await;
            assert!(status < 500, "generic-query {filter}: {status} {body}");
            sent += 1;
        }
    }
    assert!(sent > 100);
    assert_eq!(server.get(&format!("/get-status/{id}")).await, (200, json!({"status": "started"})));
}
