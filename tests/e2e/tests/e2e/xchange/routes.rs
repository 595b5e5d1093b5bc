//! Every route of §3 with its success status and body in the envelope, and each of its errors,
//! as an existing client sees them.

use super::*;
use reqwest::Method;

fn error_of(body: &Value) -> &str {
    assert_eq!(body["ok"], json!(false), "{body}");
    body["error"].as_str().unwrap_or_else(|| panic!("an error message: {body}"))
}

/// The ids of a query's answer, sorted.
fn ids(body: &Value, field: &str) -> Vec<String> {
    assert_eq!(body["ok"], json!(true), "{body}");
    let mut ids: Vec<String> = body["data"]
        .as_array()
        .unwrap_or_else(|| panic!("an array: {body}"))
        .iter()
        .filter_map(|d| d[field].as_str().map(str::to_owned))
        .collect();
    ids.sort();
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn task_routes_answer_in_the_envelope_with_their_statuses() {
    let server = Server::start().await;
    // POST /tasks: 201, the stored task with every field of §2.1; a posted task_output,
    // taski_creation_time and a "pending" status are the service's to set.
    let request = json!({
        "task_id": "route-task-1",
        "task_assignment_type": "direct",
        "task_data": {},
        "task_assignment_status": "pending",
        "task_metadata": {"task_assignment": {"subject_id": "route-agent"}, "priority": 3},
        "task_output": {"forged": true},
        "taski_creation_time": "1999-01-01T00:00:00",
    });
    let (status, body) = server.post("/tasks", &request).await;
    assert_eq!((status, &body["ok"]), (201, &json!(true)), "{body}");
    let stored = &body["data"];
    assert_eq!(
        keys(stored),
        ["task_assignment_status", "task_assignment_type", "task_data", "task_id", "task_metadata", "task_output", "taski_creation_time"]
    );
    assert_eq!(stored["task_id"], json!("route-task-1"));
    assert_eq!(stored["task_data"], json!({}), "{{}} is valid task_data");
    assert_eq!(stored["task_output"], json!({}), "a posted task_output is ignored");
    assert_eq!(stored["task_metadata"]["priority"], json!(3));
    let created = stored["taski_creation_time"].as_str().expect("taski_creation_time");
    assert!(!created.starts_with("1999") && chrono::NaiveDateTime::parse_from_str(created, "%Y-%m-%dT%H:%M:%S%.f").is_ok(), "{created}");

    // GET /tasks/{id} and its output.
    let output = final_output(&server, "route-task-1", "completed").await;
    let (status, body) = server.get("/tasks/route-task-1").await;
    assert_eq!((status, &body["ok"]), (200, &json!(true)), "{body}");
    assert_eq!((&body["data"]["task_id"], &body["data"]["taski_creation_time"]), (&json!("route-task-1"), &json!(created)));
    assert_eq!(body["data"]["task_output"], output);
    let (status, body) = server.get("/tasks/route-task-1/output").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"ok": true, "data": {"task_assignment_status": "completed", "task_output": output}}));

    // 409: the task_id exists; the stored task is untouched.
    let (status, body) = server
        .post(
            "/tasks",
            &direct_task("someone-else", json!({"other": 1}))
                .as_object()
                .map(|o| {
                    let mut o = o.clone();
                    o.insert("task_id".into(), json!("route-task-1"));
                    Value::Object(o)
                })
                .expect("object"),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(error_of(&body).contains("route-task-1"), "{body}");
    assert_eq!(task(&server, "route-task-1").await["task_data"], json!({}));

    // 404: Task not found, on both reads.
    for path in ["/tasks/no-such-task", "/tasks/no-such-task/output"] {
        let (status, body) = server.get(path).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert_eq!(error_of(&body), "Task not found", "{path}");
    }

    // 400: task_data is required (null is not task_data), an unknown mode, each mode's missing
    // parameter, a status other than pending, a builtin that does not exist.
    for request in [json!({"task_assignment_type": "open"}), json!({"task_assignment_type": "open", "task_data": null})] {
        let (status, body) = server.post("/tasks", &request).await;
        assert_eq!(status, 400, "{request}: {body}");
        assert_eq!(error_of(&body), "task_data is required", "{request}");
    }
    let cases = [
        (json!({"task_assignment_type": "auction", "task_data": {}}), "task_assignment_type"),
        (json!({"task_data": {}}), "task_assignment_type"),
        (json!({"task_assignment_type": "direct", "task_data": {}}), "task_metadata.task_assignment.subject_id"),
        (
            json!({"task_assignment_type": "direct", "task_data": {}, "task_metadata": {"task_assignment": {}}}),
            "task_metadata.task_assignment.subject_id",
        ),
        (json!({"task_assignment_type": "function", "task_data": {}}), "task_metadata.task_assignment.function_id"),
        (json!({"task_assignment_type": "bidding", "task_data": {}}), "task_metadata.task_assignment.bid_job_evaluator_id"),
        (json!({"task_assignment_type": "open", "task_data": {}, "task_assignment_status": "completed"}), "task_assignment_status"),
        (function_task("builtin:no-such-selector", json!({}), json!({})), "function_id"),
    ];
    for (mut request, needle) in cases {
        request["task_id"] = json!("route-refused");
        let (status, body) = server.post("/tasks", &request).await;
        assert_eq!(status, 400, "{request}: {body}");
        assert!(error_of(&body).contains(needle), "{needle} in {body}");
    }
    let (status, body) = server.get("/tasks/route-refused").await;
    assert_eq!(status, 404, "a refused task is not stored: {body}");

    // No update or delete route for tasks: 405 in the envelope, the task unchanged.
    for method in [Method::PATCH, Method::PUT, Method::DELETE] {
        let (status, body) = server.send(method.clone(), "/tasks/route-task-1", Some(&json!({"task_assignment_status": "failed"}))).await;
        assert_eq!(status, 405, "{method}: {body}");
        error_of(&body);
    }
    let (status, body) = server.get("/tasks").await;
    assert_eq!(status, 405, "{body}");
    error_of(&body);
    let (status, body) = server.get("/tasks/route-task-1/output/more").await;
    assert_eq!(status, 404, "{body}");
    error_of(&body);
    assert_eq!(task(&server, "route-task-1").await["task_assignment_status"], json!("completed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn subject_routes_create_read_patch_and_delete() {
    let server = Server::start().await;
    // POST /subjects {}: a fresh id and the defaults of §2.2.
    let (status, body) = server.post("/subjects", &json!({})).await;
    assert_eq!((status, &body["ok"]), (201, &json!(true)), "{body}");
    let fresh = body["data"]["subject_id"].as_str().expect("subject_id").to_owned();
    assert!(!fresh.trim().is_empty());
    assert_eq!(
        body["data"],
        json!({"subject_id": fresh, "subject_metadata": {}, "task_evaluation_function": "", "subject_capabilities": {}, "topics": []})
    );
    let other = post_subject(&server, &json!({})).await;
    assert_ne!(other["subject_id"], json!(fresh), "each gets its own id");

    let full = json!({
        "subject_id": "agent-summarizer-01",
        "subject_metadata": {"owner": "team-nlp", "region": "us-east"},
        "task_evaluation_function": "builtin:anything-later",
        "subject_capabilities": {"max_doc_tokens": 50000, "languages": ["en", "fr"]},
        "topics": ["summarization", "nlp"],
    });
    // An acceptance function this deployment cannot run is refused when it is set.
    let (status, body) = server.post("/subjects", &full).await;
    assert_eq!(status, 400, "{body}");
    assert!(error_of(&body).contains("task_evaluation_function"), "{body}");
    let mut full = full;
    full["task_evaluation_function"] = json!("http://127.0.0.1:9/accepts");
    assert_eq!(post_subject(&server, &full).await, full, "stored as given");

    // 409: the subject_id exists.
    let (status, body) = server.post("/subjects", &json!({"subject_id": "agent-summarizer-01"})).await;
    assert_eq!(status, 409, "{body}");
    assert!(error_of(&body).contains("agent-summarizer-01"), "{body}");
    assert_eq!(data(&server, "/subjects/agent-summarizer-01").await, full, "untouched");

    // PATCH with a dotted path: the refreshed document.
    let (status, body) = server
        .send(Method::PATCH, "/subjects/agent-summarizer-01", Some(&json!({"subject_metadata.owner": "team-ml", "topics": ["nlp"]})))
        .await;
    assert_eq!((status, &body["ok"]), (200, &json!(true)), "{body}");
    let mut want = full.clone();
    want["subject_metadata"]["owner"] = json!("team-ml");
    want["topics"] = json!(["nlp"]);
    assert_eq!(body["data"], want, "the region kept, the owner set");
    assert_eq!(data(&server, "/subjects/agent-summarizer-01").await, want);
    let (status, body) =
        server.send(Method::PATCH, "/subjects/agent-summarizer-01", Some(&json!({"subject_capabilities.gpu.count": 2}))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["subject_capabilities"]["gpu"], json!({"count": 2}));
    assert_eq!(body["data"]["subject_capabilities"]["max_doc_tokens"], json!(50000));

    // DELETE: {"deleted": true}; then 404 Subject not found everywhere.
    let (status, body) = server.send(Method::DELETE, "/subjects/agent-summarizer-01", None).await;
    assert_eq!((status, &body), (200, &json!({"ok": true, "data": {"deleted": true}})));
    for (method, body) in [(Method::GET, None), (Method::PATCH, Some(json!({"topics": []}))), (Method::DELETE, None)] {
        let (status, answer) = server.send(method.clone(), "/subjects/agent-summarizer-01", body.as_ref()).await;
        assert_eq!(status, 404, "{method}: {answer}");
        assert_eq!(error_of(&answer), "Subject not found", "{method}");
    }
    let (status, body) = server.send(Method::PUT, "/subjects", Some(&json!({}))).await;
    assert_eq!(status, 405, "{body}");
    error_of(&body);
    let (status, body) = server.get("/subjects").await;
    assert_eq!(status, 405, "{body}");
    error_of(&body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn queries_filter_tasks_and_subjects_and_refuse_unsupported_operators() {
    let server = Server::start().await;
    for (id, topics, owner) in
        [("q-1", json!(["t", "u"]), "a"), ("q-2", json!(["u"]), "b"), ("q-3", json!(["t"]), "b"), ("q-4", json!([]), "a")]
    {
        post_subject(&server, &json!({"subject_id": id, "topics": topics, "subject_metadata": {"owner": owner}})).await;
    }
    let (status, body) = server.post("/subjects/query", &json!({"topics": {"$in": ["t"]}})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(ids(&body, "subject_id"), ["q-1", "q-3"]);
    let (_, body) = server.post("/subjects/query", &json!({"subject_metadata.owner": "b", "topics": "u"})).await;
    assert_eq!(ids(&body, "subject_id"), ["q-2"]);
    let (_, body) = server.post("/subjects/query", &json!({})).await;
    assert_eq!(ids(&body, "subject_id"), ["q-1", "q-2", "q-3", "q-4"], "every subject of the exchange");
    let (status, body) = server.post_raw("/subjects/query", "").await;
    assert_eq!((status, ids(&body, "subject_id").len()), (200, 4), "an empty body is no filter");
    let (_, body) = server.post("/subjects/query?limit=2&skip=1", &json!({})).await;
    assert_eq!(ids(&body, "subject_id").len(), 2, "{body}");

    // Tasks: an open task nobody can take is rejected, a direct one completed.
    let open = id_of(&post_task(&server, &json!({"task_assignment_type": "open", "task_data": {"k": "open"}})).await);
    let direct = id_of(&post_task(&server, &direct_task("q-1", json!({"k": "direct"}))).await);
    final_output(&server, &open, "rejected").await;
    final_output(&server, &direct, "completed").await;
    for (filter, want) in [
        (json!({"task_assignment_status": "rejected"}), vec![open.clone()]),
        (json!({"task_assignment_type": {"$in": ["direct", "function"]}}), vec![direct.clone()]),
        (json!({"task_metadata.task_assignment.subject_id": "q-1"}), vec![direct.clone()]),
        (json!({"task_data.k": {"$ne": "open"}}), vec![direct.clone()]),
        (json!({"task_id": "no-such-task"}), vec![]),
    ] {
        let (status, body) = server.post("/tasks/query", &filter).await;
        assert_eq!(status, 200, "{filter}: {body}");
        assert_eq!(ids(&body, "task_id"), want, "{filter}");
    }
    let (_, body) = server.post("/tasks/query", &json!({})).await;
    let mut both = vec![open, direct];
    both.sort();
    assert_eq!(ids(&body, "task_id"), both);

    for route in ["/tasks/query", "/subjects/query"] {
        let (status, body) = server.post(route, &json!({"task_id": {"$where": "1"}})).await;
        assert_eq!(status, 400, "{route}: {body}");
        assert!(error_of(&body).contains("$where"), "{route}: {body}");
        let (status, body) = server.post(&format!("{route}?limit=-1"), &json!({})).await;
        assert_eq!(status, 400, "{route}: {body}");
        assert!(error_of(&body).contains("limit"), "{body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn exchanges_sharing_a_store_keep_their_own_documents_and_a_bad_exchange_id_is_refused() {
    // Three servers on one store (one data folder, one namespace): two are the exchange "acme",
    // one is "globex". Each exchange's documents live in its own database (§1).
    let shared_dir = agora_e2e::temp_dir("xchange-shared");
    let namespace = format!("e2e_{}", uuid::Uuid::new_v4().simple());
    let share = |exchange: &'static str| {
        let (dir, namespace) = (shared_dir.clone(), namespace.clone());
        move |c: &mut agora_local::Config| {
            c.data_dir = dir;
            if c.store_namespace.is_some() {
                c.store_namespace = Some(namespace);
            }
            c.exchange_id = exchange.into();
        }
    };
    let acme = Server::start_with(share("acme")).await;
    let acme_again = Server::start_with(share("acme")).await;
    let globex = Server::start_with(share("globex")).await;

    post_subject(&acme, &json!({"subject_id": "acme-agent", "topics": ["x"]})).await;
    let id = id_of(&post_task(&acme, &function_task("builtin:first-subject", json!({}), json!({"for": "acme"}))).await);
    assert_eq!(final_output(&acme, &id, "completed").await["ack"]["subject_id"], json!("acme-agent"));
    let (_, body) = acme.post("/subjects/query", &json!({})).await;
    assert_eq!(ids(&body, "subject_id"), ["acme-agent"]);

    // The same exchange on another server reads the same documents...
    let (_, body) = acme_again.post("/subjects/query", &json!({})).await;
    assert_eq!(ids(&body, "subject_id"), ["acme-agent"], "one exchange, one database");
    assert_eq!(data(&acme_again, &format!("/tasks/{id}")).await["task_assignment_status"], json!("completed"));
    // ...and another exchange none of them: its "every subject" is its own.
    let (_, body) = globex.post("/subjects/query", &json!({})).await;
    assert_eq!(ids(&body, "subject_id"), Vec::<String>::new());
    assert_eq!(globex.get(&format!("/tasks/{id}")).await.0, 404);
    let (_, body) = globex.post("/tasks/query", &json!({})).await;
    assert_eq!(ids(&body, "task_id"), Vec::<String>::new());
    post_subject(&globex, &json!({"subject_id": "acme-agent"})).await;
    let globex_task = id_of(&post_task(&globex, &function_task("builtin:first-subject", json!({}), json!({}))).await);
    assert_eq!(final_output(&globex, &globex_task, "completed").await["ack"]["subject_id"], json!("acme-agent"));
    assert_eq!(acme.get(&format!("/tasks/{globex_task}")).await.0, 404);
    drop((acme, acme_again, globex));
    let _ = std::fs::remove_dir_all(&shared_dir);

    let dir = agora_e2e::temp_dir("xchange-bad-id");
    let mut config = agora_local::Config::ephemeral(dir.clone());
    config.exchange_id = "not/an id".into();
    let started = agora_local::start(&config).await;
    let _ = std::fs::remove_dir_all(&dir);
    match started {
        Ok(running) => {
            running.stop();
            panic!("a server started with EXCHANGE_ID \"not/an id\"");
        }
        Err(e) => assert!(e.to_string().contains("EXCHANGE_ID"), "{e}"),
    }
}
