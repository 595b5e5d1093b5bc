//! Keys a store cannot keep alike (issue 32, item 4): a NUL in a key (MongoDB cannot store one)
//! or a leading `$` (MongoDB reads it as an operator), anywhere inside the free-form objects of
//! every request, as a PATCH's path segments, in filter field names, and in URL path segments.
//! On every store each is a 400 in the envelope naming the key by its path (a NUL shown as
//! `\u0000`), never a 5xx, and nothing stored changes. Keys with dots, and `$` elsewhere than
//! first, are kept as given on every store.

use super::*;
use agora_e2e::keys::{holding, refused_key, BAD_KEYS};
use reqwest::Method;

/// Everything stored that the routes can show, and the bid jobs of the server's Orcade.
async fn snapshot(server: &Server) -> Value {
    let mut all = serde_json::Map::new();
    for collection in ["/tasks/query", "/subjects/query", "/bid-jobs/query"] {
        let (status, body) = server.post(collection, &json!({})).await;
        assert_eq!(status, 200, "{collection}: {body}");
        let mut docs = body["data"].as_array().cloned().unwrap_or_default();
        docs.sort_by_key(|d| d.to_string());
        all.insert(collection.to_owned(), Value::Array(docs));
    }
    Value::Object(all)
}

fn bidding_task(assignment: Value) -> Value {
    json!({"task_assignment_type": "bidding", "task_data": {}, "task_metadata": {"task_assignment": assignment}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn keys_with_a_nul_or_a_leading_dollar_are_refused_by_their_path_on_every_route() {
    let server = Server::start().await;
    post_subject(&server, &json!({"subject_id": "ik-subject", "subject_metadata": {"owner": {"team": "a"}}, "topics": ["t"]})).await;
    let done = id_of(&post_task(&server, &direct_task("ik-subject", json!({"k": 1}))).await);
    final_output(&server, &done, "completed").await;
    let before = snapshot(&server).await;

    for (key, shown) in BAD_KEYS {
        // POST /tasks: in task_data (an object or an array), in task_metadata, in each mode's
        // parameters; as a field of the body.
        for (value, below) in holding(key, shown) {
            let request = direct_task("ik-subject", value.clone());
            refused_key(&format!("task_data {shown}"), server.post("/tasks", &request).await, &format!("task_data.{below}"));
            let request = direct_task("ik-subject", json!([0, value.clone()]));
            refused_key(&format!("task_data[1] {shown}"), server.post("/tasks", &request).await, &format!("task_data[1].{below}"));
            let mut request = direct_task("ik-subject", json!({}));
            request["task_metadata"]["note"] = value.clone();
            refused_key(&format!("task_metadata {shown}"), server.post("/tasks", &request).await, &format!("task_metadata.note.{below}"));
            let request = function_task("builtin:first-subject", value.clone(), json!({}));
            let named = format!("task_metadata.task_assignment.parameters.{below}");
            refused_key(&format!("function parameters {shown}"), server.post("/tasks", &request).await, &named);
            for field in ["bid_job_metadata", "bid_job_description", "bid_job_name"] {
                let request = bidding_task(json!({"bid_job_evaluator_id": "builtin:lowest-price", field: value.clone()}));
                let named = format!("task_metadata.task_assignment.{field}.{below}");
                refused_key(&format!("bidding {field} {shown}"), server.post("/tasks", &request).await, &named);
            }
        }
        let mut request = direct_task("ik-subject", json!({}));
        request[key] = json!(1);
        let (status, body) = server.post("/tasks", &request).await;
        assert_eq!(status, 400, "a body field {shown}: {body}");
        assert!(body["error"].as_str().is_some_and(|e| e.contains(&format!("{shown} is not a task field"))), "{body}");

        // POST /subjects: in subject_metadata and subject_capabilities; as a field.
        for field in ["subject_metadata", "subject_capabilities"] {
            for (value, below) in holding(key, shown) {
                let answer = server.post("/subjects", &json!({"subject_id": "ik-new", field: value})).await;
                refused_key(&format!("POST /subjects {field} {shown}"), answer, &format!("{field}.{below}"));
            }
        }
        let (status, body) = server.post("/subjects", &json!({"subject_id": "ik-new", key: 1})).await;
        assert_eq!(status, 400, "a subject field {shown}: {body}");
        assert!(body["error"].as_str().is_some_and(|e| e.contains(&format!("{shown} is not a subject field"))), "{body}");

        // PATCH /subjects/{id}: inside the values set (whole, below a path, a field of its
        // own), and as a path's segment.
        for (value, below) in holding(key, shown) {
            for (set, named) in [
                (json!({"subject_metadata": value.clone()}), format!("subject_metadata.{below}")),
                (json!({"subject_metadata.owner": value.clone()}), format!("subject_metadata.owner.{below}")),
                (json!({"subject_capabilities": value.clone()}), format!("subject_capabilities.{below}")),
                (json!({"colour": value.clone()}), format!("colour.{below}")),
            ] {
                let answer = server.send(Method::PATCH, "/subjects/ik-subject", Some(&set)).await;
                refused_key(&format!("PATCH {set}"), answer, &named);
            }
        }
        for segment in [format!("subject_metadata.{key}"), format!("subject_metadata.owner.{key}.x"), key.to_owned()] {
            let answer = server.send(Method::PATCH, "/subjects/ik-subject", Some(&json!({segment.clone(): 1}))).await;
            let named = segment.replace(key, shown);
            refused_key(&format!("PATCH path {named}"), answer, &named);
        }

        // Queries: the key as a field name, as a path's segment, inside a compared object.
        for route in ["/tasks/query", "/subjects/query"] {
            for filter in [
                json!({key: 1}),
                json!({format!("task_data.{key}"): {"$exists": true}}),
                json!({"$or": [{"task_id": done}, {format!("x.{key}.y"): 1}]}),
                json!({"task_data": {"offer": {key: 1}}}),
                json!({"subject_metadata": {"$in": [{"n": {key: 1}}]}}),
                json!({"subject_metadata": {"$ne": {key: 1}}}),
            ] {
                let (status, body) = server.post(route, &filter).await;
                // A `$` key inside a compared value is a value like any other (as in MongoDB);
                // a `$` field or segment is an operator, refused.
                if key.starts_with('$') && (filter.get("task_data").is_some() || filter.get("subject_metadata").is_some()) {
                    assert_eq!(status, 200, "POST {route} {filter}: {body}");
                    continue;
                }
                assert_eq!(status, 400, "POST {route} {filter}: {body}");
                assert_eq!(body["ok"], json!(false), "{body}");
                let error = body["error"].as_str().unwrap_or_default();
                assert!(error.starts_with("Invalid filter") && (error.contains("NUL") || error.contains('$')), "{route} {filter}: {error}");
            }
        }
    }

    // URL path segments with a NUL or a `$`: no such task or subject, whatever the store.
    for id in ["a%00b", "%00", "%24where", "%24", "a.%24x"] {
        for (method, path) in id_routes(id) {
            let body = (method == Method::PATCH).then(|| json!({"topics": ["hijack"]}));
            let (status, answer) = server.send(method.clone(), &path, body.as_ref()).await;
            assert_eq!(status, 404, "{method} {path}: {answer}");
            assert_eq!(answer["ok"], json!(false), "{answer}");
        }
    }

    assert_eq!(snapshot(&server).await, before, "nothing stored changed");

    // Dots in keys, and `$` anywhere but first, are kept as given, on every store.
    let kept = json!({"a.b": {"x$": "$y", "c.d.e": [{"f.g": 1}]}});
    let task = post_task(&server, &json!({"task_assignment_type": "open", "task_data": kept, "task_metadata": {"n.1": "$ok"}})).await;
    let stored = super::task(&server, &id_of(&task)).await;
    assert_eq!((&stored["task_data"], &stored["task_metadata"]), (&kept, &json!({"n.1": "$ok"})));
    let subject = post_subject(&server, &json!({"subject_metadata": kept, "subject_capabilities": {"v.2": true}})).await;
    let id = subject["subject_id"].as_str().expect("subject_id");
    let patched = server.send(Method::PATCH, &format!("/subjects/{id}"), Some(&json!({"subject_metadata.more": {"p.q": 1}}))).await;
    assert_eq!(patched.0, 200, "{}", patched.1);
    let stored = data(&server, &format!("/subjects/{id}")).await;
    assert_eq!(stored["subject_metadata"], json!({"a.b": {"x$": "$y", "c.d.e": [{"f.g": 1}]}, "more": {"p.q": 1}}));
    assert_eq!(stored["subject_capabilities"], json!({"v.2": true}));
}
