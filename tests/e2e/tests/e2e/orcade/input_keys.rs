//! Keys a store cannot keep alike (issue 32, item 4): a NUL in a key (MongoDB cannot store one)
//! or a leading `$` (MongoDB reads it as an operator), anywhere inside the free-form objects of
//! every request, as a PATCH's path segments, in filter field names, and in URL path segments.
//! On every store each is a 400 in the envelope naming the key by its path (a NUL shown as
//! `\u0000`), never a 5xx, and nothing stored changes. Keys with dots, and `$` elsewhere than
//! first, are kept as given on every store.

use super::*;
use agora_e2e::keys::{holding, refused_key, BAD_KEYS};
use reqwest::Method;

/// Everything stored that the routes can show.
async fn snapshot(server: &Server) -> Value {
    let mut all = serde_json::Map::new();
    for collection in ["/bid-jobs/query", "/bids/query", "/bid-task-results/query"] {
        let (status, body) = server.post(collection, &json!({})).await;
        assert_eq!(status, 200, "{collection}: {body}");
        all.insert(collection.to_owned(), body["data"].clone());
    }
    Value::Object(all)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn keys_with_a_nul_or_a_leading_dollar_are_refused_by_their_path_on_every_route() {
    let server = Server::start().await;
    let job = id_of(&create_job(&server, &closed_job()).await);
    let (status, placed) = submit(&server, &job, &bid("t1", 10.0, 0.9)).await;
    assert_eq!(status, 201, "{placed}");
    let bid_id = placed["data"]["bid_id"].as_str().expect("bid_id").to_owned();
    results_of(&server, &job, "bid_request", 3).await;
    let before = snapshot(&server).await;

    for (key, shown) in BAD_KEYS {
        // POST /bid-jobs: in each of the job's objects; as a field of the body.
        for field in ["bid_job_metadata", "bid_job_description", "bid_job_name"] {
            for (value, below) in holding(key, shown) {
                let mut request = closed_job();
                request[field] = value;
                refused_key(
                    &format!("POST /bid-jobs {field} {shown}"),
                    server.post("/bid-jobs", &request).await,
                    &format!("{field}.{below}"),
                );
            }
        }
        let mut request = closed_job();
        request[key] = json!(1);
        let (status, body) = server.post("/bid-jobs", &request).await;
        assert_eq!(status, 400, "a body field {shown}: {body}");
        assert!(body["error"].as_str().is_some_and(|e| e.contains(&format!("{shown} is not a bid job field"))), "{body}");

        // POST /bid-jobs/{id}/bids: in bid_data.
        for (value, below) in holding(key, shown) {
            let request = json!({"bid_subject_id": "t2", "bid_data": value});
            refused_key(&format!("a bid's bid_data {shown}"), submit(&server, &job, &request).await, &format!("bid_data.{below}"));
        }

        // PATCH: inside the values set (whole, below a path, in a field of its own), and as a
        // path's segment.
        for (path, field) in [(format!("/bid-jobs/{job}"), "bid_job_metadata"), (format!("/bids/{bid_id}"), "bid_data")] {
            for (value, below) in holding(key, shown) {
                for (set, named) in [
                    (json!({field: value.clone()}), format!("{field}.{below}")),
                    (json!({format!("{field}.extra"): value.clone()}), format!("{field}.extra.{below}")),
                    (json!({"colour": value.clone()}), format!("colour.{below}")),
                ] {
                    let answer = server.send(Method::PATCH, &path, Some(&set)).await;
                    refused_key(&format!("PATCH {path} {set}"), answer, &named);
                }
            }
            for segment in [format!("{field}.{key}"), format!("{field}.{key}.x"), key.to_owned()] {
                let answer = server.send(Method::PATCH, &path, Some(&json!({segment.clone(): 1}))).await;
                let named = segment.replace(key, shown);
                refused_key(&format!("PATCH {path} path {named}"), answer, &named);
            }
        }

        // Queries: the key as a field name, as a path's segment, inside a compared object.
        for route in ["/bid-jobs/query", "/bids/query", "/bid-task-results/query"] {
            for filter in [
                json!({key: 1}),
                json!({format!("bid_data.{key}"): {"$exists": true}}),
                json!({"$or": [{"bid_job_id": job}, {format!("x.{key}.y"): 1}]}),
                json!({"bid_data": {"offer": {key: 1}}}),
                json!({"bid_data": {"$in": [{"n": {key: 1}}]}}),
                json!({"bid_data": {"$ne": {key: 1}}}),
            ] {
                let (status, body) = server.post(route, &filter).await;
                // A `$` key inside a compared value is a value like any other (as in MongoDB);
                // a `$` field or segment is an operator, refused.
                if key.starts_with('$') && filter.get("bid_data").is_some() {
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

    // URL path segments with a NUL or a `$`: no such job or bid, whatever the store.
    for id in ["a%00b", "%00", "%24where", "%24", "a.%24x"] {
        for (method, path) in id_routes(id) {
            let body = (method != Method::GET && method != Method::DELETE).then(|| bid("t2", 1.0, 0.9));
            let (status, answer) = server.send(method.clone(), &path, body.as_ref()).await;
            assert!((400..500).contains(&status), "{method} {path}: {status} {answer}");
            assert_eq!(answer["ok"], json!(false), "{answer}");
        }
    }
    let (status, body) = server.get("/bid-jobs/by-tags?tags=a%00b,%24where&match=any").await;
    assert_eq!((status, &body["data"]), (200, &json!([])), "{body}");

    assert_eq!(snapshot(&server).await, before, "nothing stored changed");

    // Dots in keys, and `$` anywhere but first, are kept as given, on every store.
    let kept = json!({"a.b": {"x$": "$y", "c.d.e": [{"f.g": 1}]}, "price_usd": 5.0, "confidence": 0.9});
    let (status, placed) = submit(&server, &job, &json!({"bid_subject_id": "t2", "bid_data": kept})).await;
    assert_eq!(status, 201, "{placed}");
    let bid_id = placed["data"]["bid_id"].as_str().expect("bid_id").to_owned();
    assert_eq!(data(&server, &format!("/bids/{bid_id}")).await["bid_data"], kept);
    let patched = server.send(Method::PATCH, &format!("/bid-jobs/{job}"), Some(&json!({"bid_job_metadata.notes": {"v.1": "$ok"}}))).await;
    assert_eq!(patched.0, 200, "{}", patched.1);
    assert_eq!(data(&server, &format!("/bid-jobs/{job}")).await["bid_job_metadata"]["notes"], json!({"v.1": "$ok"}));
}
