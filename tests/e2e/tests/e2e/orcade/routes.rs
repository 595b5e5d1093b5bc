//! Every route of §3 with its statuses, in the envelope, as an existing client sees them.

use super::*;
use reqwest::Method;

fn error_of(body: &Value) -> &str {
    assert_eq!(body["ok"], json!(false), "{body}");
    body["error"].as_str().unwrap_or_else(|| panic!("an error message: {body}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn invalid_jobs_are_refused_naming_the_field_and_explicit_nulls_are_omissions() {
    let server = Server::start().await;
    let cases: Vec<(Value, &str)> = vec![
        (
            {
                let mut r = closed_job();
                r["bid_job_subject_ids"] = json!([]);
                r
            },
            "bid_job_subject_ids",
        ),
        (
            {
                let mut r = open_job(Some(2), None);
                r["bid_job_subject_ids"] = json!(["a"]);
                r
            },
            "bid_job_subject_ids",
        ),
        (open_job(None, None), "bid_job_max"),
        (open_job(Some(0), None), "bid_job_max_subjects"),
        (
            {
                let mut r = closed_job();
                r["bid_job_tags"] = json!(["ok", " "]);
                r
            },
            "bid_job_tags",
        ),
        (
            {
                let mut r = closed_job();
                r["bid_job_evaluator_id"] = json!("builtin:no-such-rule");
                r
            },
            "bid_job_evaluator_id",
        ),
        (
            {
                let mut r = closed_job();
                r["bid_job_pqt_id"] = json!("builtin:no-such-pqt");
                r
            },
            "bid_job_pqt_id",
        ),
        (
            {
                let mut r = closed_job();
                r.as_object_mut().expect("object").remove("bid_job_creator_id");
                r
            },
            "bid_job_creator_id",
        ),
        (
            {
                let mut r = closed_job();
                r["bid_job_mode"] = json!("auction");
                r
            },
            "bid_job_mode",
        ),
    ];
    for (request, field) in cases {
        let (status, body) = server.post("/bid-jobs", &request).await;
        assert_eq!(status, 400, "{request}: {body}");
        assert!(error_of(&body).contains(field), "{field} named in {body}");
    }
    let (status, body) = server.post_raw("/bid-jobs", "{not json").await;
    assert_eq!(status, 400, "{body}");
    assert!(error_of(&body).contains("JSON"), "{body}");
    assert_eq!(data(&server, "/bid-jobs/by-tags?tags=fr").await, json!([]), "nothing stored");

    // Explicit nulls for the optional fields are the same as leaving them out.
    let mut request = closed_job();
    for field in ["bid_job_max_subjects", "bid_job_max_time", "bid_job_tie_id", "bid_job_tags", "bid_job_mode"] {
        request[field] = Value::Null;
    }
    let job = create_job(&server, &request).await;
    assert_eq!(job["bid_job_mode"], json!("closed"));
    assert_eq!(job["bid_job_tags"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_refusal_of_a_bid_and_of_an_unknown_id() {
    let server = Server::start().await;
    let id = id_of(&create_job(&server, &closed_job()).await);
    let (status, body) = submit(&server, "no-such-job", &bid("t1", 1.0, 1.0)).await;
    assert_eq!(status, 404, "{body}");
    error_of(&body);
    let (status, body) = submit(&server, &id, &json!({"bid_data": {}})).await;
    assert_eq!(status, 400, "{body}");
    assert!(error_of(&body).contains("bid_subject_id"), "{body}");
    let (status, body) = submit(&server, &id, &bid("stranger", 1.0, 1.0)).await;
    assert_eq!(status, 403, "{body}");
    assert!(error_of(&body).contains("roster"), "{body}");
    assert_eq!(submit(&server, &id, &bid("t1", 10.0, 0.9)).await.0, 201);
    let (status, body) = submit(&server, &id, &bid("t1", 9.0, 0.9)).await;
    assert_eq!(status, 409, "a second bid: {body}");
    assert!(error_of(&body).contains("already"), "{body}");
    // The job id comes from the path only (§2.2): another one in the body is overridden.
    let mut other = bid("t2", 10.0, 0.9);
    other["bid_job_id"] = json!("somewhere-else");
    let (status, body) = submit(&server, &id, &other).await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["data"]["bid_job_id"], json!(id));

    for path in ["/bid-jobs/nope", "/bid-jobs/nope/bids", "/bid-jobs/nope/task-results", "/bids/nope"] {
        let (status, body) = server.get(path).await;
        assert_eq!(status, 404, "GET {path}: {body}");
        error_of(&body);
    }
    for (method, path) in [
        (Method::PATCH, "/bid-jobs/nope"),
        (Method::DELETE, "/bid-jobs/nope"),
        (Method::PATCH, "/bids/nope"),
        (Method::DELETE, "/bids/nope"),
    ] {
        let (status, body) = server.send(method.clone(), path, Some(&json!({"bid_job_name": {"en": "x"}}))).await;
        assert_eq!(status, 404, "{method} {path}: {body}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn patch_delete_and_queries() {
    let server = Server::start().await;
    let id = id_of(&create_job(&server, &closed_job()).await);
    let (status, body) = server
        .send(Method::PATCH, &format!("/bid-jobs/{id}"), Some(&json!({"bid_job_name.fr": "Traduire", "bid_job_description.pages": 12})))
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["bid_job_name"], json!({"en": "Translate Q3 report", "fr": "Traduire"}));
    assert_eq!(body["data"]["bid_job_description"]["pages"], json!(12));
    for field in ["bid_job_id", "bid_job_status", "bid_job_closes_at"] {
        let (status, body) = server.send(Method::PATCH, &format!("/bid-jobs/{id}"), Some(&json!({field: "x"}))).await;
        assert_eq!(status, 400, "{field}: {body}");
        assert!(error_of(&body).contains(field), "{body}");
    }
    assert_eq!(data(&server, &format!("/bid-jobs/{id}")).await["bid_job_status"], json!("open"), "nothing changed");

    let (_, bid_body) = submit(&server, &id, &bid("t1", 10.0, 0.9)).await;
    let bid_id = bid_body["data"]["bid_id"].as_str().expect("bid_id").to_owned();
    let (status, body) = server.send(Method::PATCH, &format!("/bids/{bid_id}"), Some(&json!({"bid_data.eta_hours": 6}))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["bid_data"]["eta_hours"], json!(6));
    assert_eq!(data(&server, &format!("/bids/{bid_id}")).await["bid_data"]["price_usd"], json!(10.0));

    // Queries: the filter language, paging, a 400 for an unsupported operator.
    let (status, body) = server.post("/bids/query", &json!({"bid_job_id": id, "bid_data.price_usd": {"$lt": 11}})).await;
    assert_eq!((status, body["data"].as_array().map(Vec::len)), (200, Some(1)), "{body}");
    let (status, body) = server.post("/bid-jobs/query", &json!({"bid_job_tags": "fr"})).await;
    assert_eq!((status, body["data"].as_array().map(Vec::len)), (200, Some(1)), "{body}");
    for i in 0..3 {
        create_job(&server, &{
            let mut r = closed_job();
            r["bid_job_tags"] = json!([format!("page-{i}"), "paged"]);
            r
        })
        .await;
    }
    let (status, body) = server.post("/bid-jobs/query?limit=2&skip=1", &json!({"bid_job_tags": "paged"})).await;
    assert_eq!((status, body["data"].as_array().map(Vec::len)), (200, Some(2)), "{body}");
    let (status, body) = server.post("/bid-jobs/query", &json!({"bid_job_tags": {"$where": "1"}})).await;
    assert_eq!(status, 400, "{body}");
    error_of(&body);
    let (status, body) = server.post("/bid-jobs/query?limit=-1", &json!({})).await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = server.post("/bid-task-results/query", &json!({"bid_job_id": id})).await;
    assert_eq!(status, 200, "{body}");

    // Deleting a bid, then the job (its bids go with it).
    let (status, body) = server.send(Method::DELETE, &format!("/bids/{bid_id}"), None).await;
    assert_eq!((status, &body), (200, &json!({"ok": true, "data": {"deleted": true}})));
    assert_eq!(server.get(&format!("/bids/{bid_id}")).await.0, 404);
    let (_, again) = submit(&server, &id, &bid("t2", 10.0, 0.9)).await;
    let (status, body) = server.send(Method::DELETE, &format!("/bid-jobs/{id}"), None).await;
    assert_eq!((status, &body), (200, &json!({"ok": true, "data": {"deleted": true}})));
    assert_eq!(server.get(&format!("/bid-jobs/{id}")).await.0, 404);
    assert_eq!(server.get(&format!("/bids/{}", again["data"]["bid_id"].as_str().expect("id"))).await.0, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn unknown_routes_methods_and_oversized_requests_get_the_envelope() {
    let server = Server::start().await;
    let (status, body) = server.get("/bid-jobs/a/b/c").await;
    assert_eq!(status, 404, "{body}");
    error_of(&body);
    let (status, body) = server.send(Method::PUT, "/bid-jobs", Some(&json!({}))).await;
    assert_eq!(status, 405, "{body}");
    error_of(&body);
    // (A body over the limit is refused by the shared extractor, tested in voting's bad_input.)
    let (status, body) = server.get(&format!("/bid-jobs/{}", "x".repeat(9000))).await;
    assert_eq!(status, 414, "{body}");
    error_of(&body);
    let (status, body) = server.get("/bid-jobs/by-tags").await;
    assert_eq!(status, 400, "{body}");
    let (status, body) = server.get("/bid-jobs/by-tags?tags=a&match=some").await;
    assert_eq!(status, 400, "{body}");
    assert!(error_of(&body).contains("match"), "{body}");
    // Voting's routes keep voting's shape beside Orcade's.
    let (status, body) = server.get("/get-status/nope").await;
    assert_eq!(status, 404);
    assert!(body.get("ok").is_none(), "{body}");
}
