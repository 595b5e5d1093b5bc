//! Bad input on every route of §3: malformed bodies, bodies of the wrong JSON type, every field
//! given values of the wrong types, unknown fields, odd ids in bodies and paths. Each answer is a
//! 4xx in the envelope whose error says what is wrong (naming the field where there is one);
//! none is a 5xx; and what was stored before is unchanged afterwards.

use super::*;
use reqwest::Method;

/// Sends a raw body with `method`; returns the status and the JSON body (`null`: not JSON).
async fn send_raw(server: &Server, method: Method, path: &str, body: &str) -> (u16, Value) {
    let r =
        server.http.request(method.clone(), server.url(path)).header("content-type", "application/json").body(body.to_owned()).send().await;
    agora_e2e::documented(method.as_str(), path, r.expect("the server answers")).await
}

/// Asserts a 4xx refusal in the envelope whose error contains `needle` (case-insensitive).
fn refused(what: &str, (status, body): (u16, Value), needle: &str) {
    assert!((400..500).contains(&status), "{what}: {status} {body}");
    assert_eq!(body["ok"], json!(false), "{what}: {body}");
    let error = body["error"].as_str().unwrap_or_else(|| panic!("{what}: no error message in {body}"));
    assert!(!error.trim().is_empty(), "{what}: an empty error");
    assert!(error.to_lowercase().contains(&needle.to_lowercase()), "{what}: {error:?} does not mention {needle:?}");
}

/// Everything stored that the routes can show: every task and every subject.
async fn snapshot(server: &Server) -> Value {
    let mut all = serde_json::Map::new();
    for collection in ["/tasks/query", "/subjects/query"] {
        let (status, body) = server.post(collection, &json!({})).await;
        assert_eq!(status, 200, "{collection}: {body}");
        let mut docs = body["data"].as_array().cloned().unwrap_or_default();
        docs.sort_by_key(|d| d.to_string());
        all.insert(collection.to_owned(), Value::Array(docs));
    }
    Value::Object(all)
}

/// Values of the wrong type for a field whose right type is `kind`.
fn wrong_values(kind: &str) -> Vec<Value> {
    let all = [json!(7), json!(-1.5), json!(true), json!("text"), json!([1, "a"]), json!({"x": 1}), json!(1e308)];
    all.into_iter()
        .filter(|v| match kind {
            "string" => !v.is_string(),
            "object" => !v.is_object(),
            _ => true,
        })
        .collect()
}

fn bidding_task(assignment: Value) -> Value {
    json!({"task_assignment_type": "bidding", "task_data": {}, "task_metadata": {"task_assignment": assignment}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_route_refuses_bad_input_by_name_and_changes_nothing() {
    let server = Server::start().await;
    post_subject(&server, &json!({"subject_id": "bi-subject", "subject_metadata": {"owner": "a"}, "topics": ["t"]})).await;
    let done = id_of(&post_task(&server, &direct_task("bi-subject", json!({"k": 1}))).await);
    final_output(&server, &done, "completed").await;
    let before = snapshot(&server).await;

    // Malformed bodies and bodies that are not objects, on every route that takes one.
    let body_routes = [
        (Method::POST, "/tasks"),
        (Method::POST, "/subjects"),
        (Method::PATCH, "/subjects/bi-subject"),
        (Method::POST, "/tasks/query"),
        (Method::POST, "/subjects/query"),
    ];
    for (method, path) in &body_routes {
        let what = |case: &str| format!("{method} {path} with {case}");
        refused(&what("a truncated body"), send_raw(&server, method.clone(), path, "{\"task_data\": ").await, "JSON");
        refused(&what("not JSON"), send_raw(&server, method.clone(), path, "task_data=1&x=2").await, "JSON");
        refused(&what("a lone surrogate"), send_raw(&server, method.clone(), path, "{\"a\": \"\\ud800\"}").await, "");
        refused(&what("trailing garbage"), send_raw(&server, method.clone(), path, "{} {}").await, "JSON");
        // (A query's empty body or `null` is no filter.)
        let query = path.ends_with("/query");
        if !query {
            refused(&what("an empty body"), send_raw(&server, method.clone(), path, "").await, "empty");
        }
        for not_object in ["[1, 2]", "\"text\"", "42", "null", "true"].into_iter().filter(|b| !(query && *b == "null")) {
            refused(&what(not_object), send_raw(&server, method.clone(), path, not_object).await, "object");
        }
    }

    // Every field of a task, each with values of the wrong type, and unknown fields.
    let base = direct_task("bi-subject", json!({}));
    for (field, kind) in [("task_id", "string"), ("task_assignment_type", "string"), ("task_metadata", "object")] {
        for wrong in wrong_values(kind) {
            let mut request = base.clone();
            request[field] = wrong.clone();
            refused(&format!("POST /tasks with {field} = {wrong}"), server.post("/tasks", &request).await, field);
        }
    }
    for wrong in [json!("completed"), json!("assigned"), json!(7), json!({"s": 1}), json!(true)] {
        let mut request = base.clone();
        request["task_assignment_status"] = wrong.clone();
        refused(&format!("task_assignment_status = {wrong}"), server.post("/tasks", &request).await, "task_assignment_status");
    }
    let mut request = base.clone();
    request["colour"] = json!("blue");
    refused("an unknown task field", server.post("/tasks", &request).await, "colour");
    for wrong in [json!(7), json!("x"), json!([1])] {
        let request = json!({"task_assignment_type": "direct", "task_data": {}, "task_metadata": {"task_assignment": wrong}});
        refused(&format!("task_assignment = {wrong}"), server.post("/tasks", &request).await, "task_metadata.task_assignment");
    }
    for wrong in wrong_values("string") {
        refused(
            &format!("direct subject_id = {wrong}"),
            server
                .post(
                    "/tasks",
                    &direct_task("x", json!({}))
                        .as_object()
                        .map(|o| {
                            let mut o = Value::Object(o.clone());
                            o["task_metadata"]["task_assignment"]["subject_id"] = wrong.clone();
                            o
                        })
                        .expect("object"),
                )
                .await,
            "task_metadata.task_assignment.subject_id",
        );
        let request = function_task("builtin:first-subject", json!({}), json!({}));
        let mut request = request;
        request["task_metadata"]["task_assignment"]["function_id"] = wrong.clone();
        refused(&format!("function_id = {wrong}"), server.post("/tasks", &request).await, "function_id");
        let request = bidding_task(json!({"bid_job_evaluator_id": wrong}));
        refused(&format!("bid_job_evaluator_id = {wrong}"), server.post("/tasks", &request).await, "bid_job_evaluator_id");
    }
    for wrong in wrong_values("object") {
        let request = function_task("builtin:first-subject", wrong.clone(), json!({}));
        refused(&format!("function parameters = {wrong}"), server.post("/tasks", &request).await, "parameters");
    }
    for field in ["bid_job_subject_ids", "topics", "bid_job_tags"] {
        for wrong in [json!("nlp"), json!(["a", 7]), json!({"a": 1}), json!(3)] {
            let request = bidding_task(json!({"bid_job_evaluator_id": "builtin:lowest-price", field: wrong}));
            refused(&format!("{field} = {wrong}"), server.post("/tasks", &request).await, field);
        }
    }
    for wrong in [json!("auction"), json!(1), json!(["closed"])] {
        let request = bidding_task(json!({"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_mode": wrong}));
        refused(&format!("bid_job_mode = {wrong}"), server.post("/tasks", &request).await, "bid_job_mode");
    }
    for empty in ["", "   "] {
        refused("an empty function_id", server.post("/tasks", &function_task(empty, json!({}), json!({}))).await, "function_id");
        refused(
            "an empty evaluator",
            server.post("/tasks", &bidding_task(json!({"bid_job_evaluator_id": empty}))).await,
            "bid_job_evaluator_id",
        );
    }

    // Every field of a subject, each with values of the wrong type, and unknown fields.
    for (field, kind) in [
        ("subject_id", "string"),
        ("subject_metadata", "object"),
        ("task_evaluation_function", "string"),
        ("subject_capabilities", "object"),
    ] {
        for wrong in wrong_values(kind) {
            refused(&format!("POST /subjects with {field} = {wrong}"), server.post("/subjects", &json!({field: wrong})).await, field);
        }
    }
    for wrong in [json!("t"), json!(["t", 7]), json!({"t": 1}), json!(3), json!([null])] {
        refused(&format!("topics = {wrong}"), server.post("/subjects", &json!({"topics": wrong})).await, "topics");
    }
    refused("an unknown subject field", server.post("/subjects", &json!({"subject_id": "new", "colour": 1})).await, "colour");
    refused(
        "a registry id with no registry",
        server.post("/subjects", &json!({"task_evaluation_function": "accepts:1.0"})).await,
        "task_evaluation_function",
    );
    refused(
        "an unknown builtin",
        server.post("/subjects", &json!({"task_evaluation_function": "builtin:nope"})).await,
        "task_evaluation_function",
    );

    // Odd ids in bodies: too long, with a '/', a control character, empty.
    let long = "x".repeat(129);
    for odd in [long.as_str(), "a/b", "tab\there", "nul\u{0}", ""] {
        let mut request = base.clone();
        request["task_id"] = json!(odd);
        refused(&format!("task_id {odd:?}"), server.post("/tasks", &request).await, "task_id");
        refused(&format!("subject_id {odd:?}"), server.post("/subjects", &json!({"subject_id": odd})).await, "subject_id");
    }
    let at_limit = "y".repeat(128);
    let (status, body) = server.get(&format!("/subjects/{at_limit}")).await;
    assert_eq!(status, 404, "{body}");

    // PATCH (a raw $set: unknown fields are stored): the ids, operators, paths the store cannot
    // take, overlapping paths, values that would leave the subject unreadable, nothing.
    for (patch, needle) in [
        (json!({"subject_id": "other"}), "subject_id"),
        (json!({"subject_id": "bi-subject"}), "subject_id"),
        (json!({"_id": "x"}), "_id"),
        (json!({"$set": {"colour": 1}}), "$set"),
        (json!({"colour.$inc": 1}), "colour.$inc"),
        (json!({"topics.0": "x"}), "topics.0"),
        (json!({"topics.x": "x"}), "topics.x"),
        (json!({"task_evaluation_function.x": "x"}), "task_evaluation_function.x"),
        (json!({"subject_metadata..owner": 1}), "subject_metadata..owner"),
        (json!({"subject_metadata.": 1}), "subject_metadata."),
        (json!({"a\u{0}b": 1}), "NUL"),
        (json!({"colour": 1, "colour.shade": 2}), "colour.shade"),
        (json!({"subject_metadata.owner.name": "b"}), "subject_metadata.owner.name"),
        (json!({"subject_metadata": [1]}), "subject_metadata"),
        (json!({"subject_capabilities": "all"}), "subject_capabilities"),
        (json!({"topics": "t"}), "topics"),
        (json!({"topics": [1]}), "topics"),
        (json!({"task_evaluation_function": 5}), "task_evaluation_function"),
        (json!({"task_evaluation_function": "builtin:nope"}), "task_evaluation_function"),
        (json!({"subject_metadata.owner": "b", "_id": 1}), "_id"),
        (json!({}), "at least one field"),
    ] {
        let answer = server.send(Method::PATCH, "/subjects/bi-subject", Some(&patch)).await;
        refused(&format!("PATCH {patch}"), answer, needle);
    }

    // Filters: unknown operators, operators of the wrong shape; paging that is not a number.
    for filter in [json!({"$where": "1"}), json!({"task_id": {"$regex": "."}}), json!({"task_id": {"$in": "x"}}), json!({"$or": {}})] {
        for route in ["/tasks/query", "/subjects/query"] {
            refused(&format!("POST {route} {filter}"), server.post(route, &filter).await, "");
        }
    }
    for query in ["limit=-1", "limit=abc", "skip=-3", "limit=1e9999"] {
        for route in ["/tasks/query", "/subjects/query"] {
            refused(&format!("{route}?{query}"), server.post(&format!("{route}?{query}"), &json!({})).await, "");
        }
    }

    // Odd ids in paths: unknown, long, encoded, unicode, a slash, a NUL, bad escapes.
    let long = "x".repeat(5000);
    for id in ["no-such-id", "%20", "%2F..%2F", "%00", "caf%C3%A9", "a%2Fb", long.as_str(), "%ZZ", "%FF%FE"] {
        for (method, path) in id_routes(id) {
            let body = (method == Method::PATCH).then(|| json!({"topics": ["hijack"]}));
            let (status, answer) = server.send(method.clone(), &path, body.as_ref()).await;
            let shown: String = path.chars().take(80).collect();
            refused(&format!("{method} {shown}"), (status, answer), "");
        }
    }
    // Routes tasks do not have.
    for method in [Method::PATCH, Method::PUT, Method::DELETE] {
        let answer = server.send(method.clone(), &format!("/tasks/{done}"), Some(&json!({"task_assignment_status": "failed"}))).await;
        refused(&format!("{method} a task"), answer, "not allowed");
    }

    assert_eq!(snapshot(&server).await, before, "nothing stored changed");
}

/// Issue 32, item 7: a bidding task whose bid job Orcade would refuse is refused at
/// `POST /tasks` with Orcade's reason (a 400 naming the field under
/// `task_metadata.task_assignment.`), nothing stored and no job created; before, an explicit
/// roster on an open job was dropped and the task waited on an empty open job for its limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_bidding_task_orcade_would_refuse_is_refused_at_post_tasks_with_orcade_s_reason() {
    let server = Server::start().await;
    for id in ["a", "b"] {
        post_subject(&server, &json!({"subject_id": id})).await;
    }
    let before = snapshot(&server).await;
    let at = "task_metadata.task_assignment";
    for (assignment, field, reason) in [
        (
            json!({"bid_job_mode": "open", "bid_job_subject_ids": ["a", "b"], "bid_job_max_subjects": 2}),
            "bid_job_subject_ids",
            "must not be supplied for an open job",
        ),
        (json!({"bid_job_mode": "open"}), "bid_job_max_subjects", "or bid_job_max_time is required for an open job"),
        (json!({"bid_job_mode": "open", "bid_job_max_subjects": 0}), "bid_job_max_subjects", "must be an integer of at least 1"),
        (json!({"bid_job_max_time": 60}), "bid_job_max_time", "must be omitted for a closed job"),
        (json!({"bid_job_tags": ["fr", ""]}), "bid_job_tags[1]", "must be a non-empty string"),
        (json!({"bid_job_subject_ids": ["a", ""]}), "bid_job_subject_ids[1]", "must not be empty"),
        (json!({"bid_job_creator_id": " "}), "bid_job_creator_id", "must not be empty"),
        (json!({"bid_job_description": "translate"}), "bid_job_description", "must be an object"),
        (json!({"bid_job_pqt_id": "builtin:lowest-price"}), "bid_job_pqt_id", "which is for the evaluator"),
        (json!({"bid_job_evaluator_id": "builtin:no-such-rule"}), "bid_job_evaluator_id", "names no builtin"),
    ] {
        let mut a = json!({"bid_job_evaluator_id": "builtin:lowest-price"});
        a.as_object_mut().unwrap().extend(assignment.as_object().unwrap().clone());
        let (status, body) = server.post("/tasks", &bidding_task(a.clone())).await;
        assert_eq!((status, &body["ok"]), (400, &json!(false)), "{a}: {body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(error.starts_with(&format!("{at}.{field} ")) && error.contains(reason), "{a}: {error}");
        // Orcade's own words for the same job.
        let mut job = a.clone();
        job["bid_job_creator_id"] = job.get("bid_job_creator_id").cloned().unwrap_or(json!("xchange"));
        if job.get("bid_job_subject_ids").is_none() && job["bid_job_mode"] != json!("open") {
            job["bid_job_subject_ids"] = json!(["a"]);
        }
        let (status, orcade) = server.post("/bid-jobs", &job).await;
        assert_eq!(status, 400, "Orcade takes {job}: {orcade}");
        let words = orcade["error"].as_str().unwrap_or_default();
        assert!(words.contains(&format!("{field} ")) && words.contains(reason), "{words} against {error}");
    }
    assert_eq!(snapshot(&server).await, before, "nothing stored");
    let (status, jobs) = server.post("/bid-jobs/query", &json!({})).await;
    assert_eq!((status, &jobs["data"]), (200, &json!([])), "no bid job created");

    // What Orcade takes is taken: an open job with no roster (or `[]`) opens empty and waits
    // for applicants.
    for roster in [None, Some(json!([]))] {
        let mut a = json!({"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_mode": "open", "bid_job_max_subjects": 1});
        if let Some(roster) = &roster {
            a["bid_job_subject_ids"] = roster.clone();
        }
        let id = id_of(&post_task(&server, &bidding_task(a)).await);
        let job = wait_until("the task bidding", SOON, || async {
            task(&server, &id).await["task_metadata"]["bid_job_id"].as_str().map(str::to_owned)
        })
        .await;
        let stored = data(&server, &format!("/bid-jobs/{job}")).await;
        assert_eq!((&stored["bid_job_mode"], &stored["bid_job_subject_ids"]), (&json!("open"), &json!([])), "{stored}");
    }
}
