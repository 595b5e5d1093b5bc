//! Bad input on every route of §3: malformed bodies, bodies of the wrong JSON type, every field of
//! a request given values of the wrong types, and odd ids in paths (not dot segments: the
//! client resolves those before it sends). Each answer is a 4xx in the
//! envelope whose error says what is wrong (naming the field where there is one); none is a 5xx;
//! and what was stored before is unchanged afterwards.

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

/// Everything stored that the routes can show: every job, bid and task result.
async fn snapshot(server: &Server) -> Value {
    let mut all = serde_json::Map::new();
    for collection in ["/bid-jobs/query", "/bids/query", "/bid-task-results/query"] {
        let (status, body) = server.post(collection, &json!({})).await;
        assert_eq!(status, 200, "{collection}: {body}");
        all.insert(collection.to_owned(), body["data"].clone());
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
            "array" => !v.is_array(),
            "int" => !(v.is_i64() && v.as_i64().is_some_and(|n| n > 0)),
            _ => true,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_route_refuses_bad_input_by_name_and_changes_nothing() {
    let server = Server::start().await;
    let job = id_of(&create_job(&server, &closed_job()).await);
    let (status, placed) = submit(&server, &job, &bid("t1", 10.0, 0.9)).await;
    assert_eq!(status, 201, "{placed}");
    let bid_id = placed["data"]["bid_id"].as_str().expect("bid_id").to_owned();
    // Deliveries settle first, so that the snapshot is still.
    results_of(&server, &job, "bid_request", 3).await;
    let before = snapshot(&server).await;

    // Malformed bodies and bodies that are not objects, on every route that takes one.
    let body_routes = [
        (Method::POST, "/bid-jobs".to_owned()),
        (Method::POST, format!("/bid-jobs/{job}/bids")),
        (Method::PATCH, format!("/bid-jobs/{job}")),
        (Method::PATCH, format!("/bids/{bid_id}")),
        (Method::POST, "/bid-jobs/query".to_owned()),
        (Method::POST, "/bids/query".to_owned()),
        (Method::POST, "/bid-task-results/query".to_owned()),
    ];
    for (method, path) in &body_routes {
        let what = |case: &str| format!("{method} {path} with {case}");
        refused(&what("a truncated body"), send_raw(&server, method.clone(), path, "{\"bid_data\": ").await, "JSON");
        refused(&what("not JSON"), send_raw(&server, method.clone(), path, "bid=1&x=2").await, "JSON");
        refused(&what("invalid UTF-8"), send_raw(&server, method.clone(), path, "{\"a\": \"\u{fffd}\\ud800\"}").await, "");
        // (A query's `null` is no filter, as an empty body is.)
        let query = path.ends_with("/query");
        for not_object in ["[1, 2]", "\"text\"", "42", "null", "true"].into_iter().filter(|b| !(query && *b == "null")) {
            refused(&what(not_object), send_raw(&server, method.clone(), path, not_object).await, "object");
        }
    }

    // Every field of a job request, each with values of the wrong type.
    let job_fields = [
        ("bid_job_metadata", "object"),
        ("bid_job_description", "object"),
        ("bid_job_name", "object"),
        ("bid_job_evaluator_id", "string"),
        ("bid_job_pqt_id", "string"),
        ("bid_job_creator_id", "string"),
        ("bid_job_subject_ids", "array"),
        ("bid_job_tags", "array"),
        ("bid_job_mode", "string"),
        ("bid_job_max_subjects", "int"),
        ("bid_job_max_time", "int"),
        ("bid_job_tie_id", "string"),
    ];
    for (field, kind) in job_fields {
        for wrong in wrong_values(kind) {
            let mut request = closed_job();
            request[field] = wrong.clone();
            refused(&format!("POST /bid-jobs with {field} = {wrong}"), server.post("/bid-jobs", &request).await, field);
        }
    }
    let mut request = closed_job();
    request["bid_job_subject_ids"] = json!(["t1", 7]);
    refused("a roster id that is a number", server.post("/bid-jobs", &request).await, "bid_job_subject_ids");
    let mut request = closed_job();
    request["bid_job_metadata"] = json!({"parameters": [1]});
    refused("parameters that are not an object", server.post("/bid-jobs", &request).await, "parameters");

    // Every field of a bid, each with values of the wrong type; a missing subject.
    for (field, kind) in [("bid_subject_id", "string"), ("bid_data", "object"), ("bid_job_id", "string")] {
        for wrong in wrong_values(kind) {
            let mut request = bid("t2", 5.0, 0.9);
            request[field] = wrong.clone();
            refused(&format!("a bid with {field} = {wrong}"), submit(&server, &job, &request).await, field);
        }
    }
    refused("a bid with no subject", submit(&server, &job, &json!({"bid_data": {}})).await, "bid_subject_id");

    // PATCH: paths that may not change, paths that are not paths, values of the wrong type.
    for (path, patch, needle) in [
        (format!("/bid-jobs/{job}"), json!({"bid_job_id": "x"}), "bid_job_id"),
        (format!("/bid-jobs/{job}"), json!({"bid_job_status": "closed"}), "bid_job_status"),
        (format!("/bid-jobs/{job}"), json!({"bid_job_name": 7}), "bid_job_name"),
        (format!("/bid-jobs/{job}"), json!({"bid_job_max_subjects": "many"}), "bid_job_max_subjects"),
        (format!("/bid-jobs/{job}"), json!({"bid_job_evaluator_id": "builtin:no-such-rule"}), "bid_job_evaluator_id"),
        (format!("/bid-jobs/{job}"), json!({"": 1}), "must not be empty"),
        (format!("/bid-jobs/{job}"), json!({"bid_job_name..en": 1}), "bid_job_name..en"),
        (format!("/bid-jobs/{job}"), json!({"$set": {"bid_job_status": "closed"}}), "$set"),
        (format!("/bid-jobs/{job}"), json!({"_id": 1}), "_id"),
        (format!("/bid-jobs/{job}"), json!({}), "at least one field"),
        (format!("/bids/{bid_id}"), json!({"bid_id": "x"}), "bid_id"),
        (format!("/bids/{bid_id}"), json!({"is_winner": true}), "is_winner"),
        (format!("/bids/{bid_id}"), json!({"bid_data": "cheap"}), "bid_data"),
        (format!("/bids/{bid_id}"), json!({"bid_subject_id": 5}), "bid_subject_id"),
    ] {
        refused(&format!("PATCH {path} {patch}"), server.send(Method::PATCH, &path, Some(&patch)).await, needle);
    }

    // Filters: unknown operators, operators of the wrong shape.
    for filter in [json!({"$where": "1"}), json!({"bid_job_id": {"$regex": "."}}), json!({"bid_job_id": {"$in": "x"}}), json!({"$or": {}})]
    {
        for route in ["/bid-jobs/query", "/bids/query", "/bid-task-results/query"] {
            refused(&format!("POST {route} {filter}"), server.post(route, &filter).await, "");
        }
    }
    for query in ["limit=-1", "limit=abc", "skip=-3", "limit=1e9999"] {
        refused(&format!("?{query}"), server.post(&format!("/bids/query?{query}"), &json!({})).await, "");
    }
    refused("by-tags with no tags", server.get("/bid-jobs/by-tags").await, "tags");
    refused("by-tags with an unknown match", server.get("/bid-jobs/by-tags?tags=fr&match=some").await, "match");

    // Odd ids in paths: unknown, long, encoded, unicode, dot segments.
    let long = "x".repeat(5000);
    for id in ["no-such-id", "%20", "%2F..%2F", "%00", "caf%C3%A9", "a%2Fb", long.as_str(), "%ZZ"] {
        for (method, path) in id_routes(id) {
            let body = (method != Method::GET && method != Method::DELETE).then(|| bid("t2", 1.0, 0.9));
            let (status, answer) = server.send(method.clone(), &path, body.as_ref()).await;
            let shown: String = path.chars().take(80).collect();
            refused(&format!("{method} {shown}"), (status, answer), "");
        }
    }

    assert_eq!(snapshot(&server).await, before, "nothing stored changed");
}
