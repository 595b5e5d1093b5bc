//! The local server's own routes (the inbox, the admin routes, health, the local registry, the
//! live stream's upgrade) answer every refusal as JSON `{"error": "..."}` naming what is wrong,
//! never the framework's plain text; `GET /healthz` says the store answers.

use agora_e2e::{repo_root, Server};
use reqwest::Method;
use serde_json::{json, Value};

/// Sends `body` (when given) with `method`; returns the status and the body as text.
async fn raw(server: &Server, method: Method, path: &str, body: Option<&str>) -> (u16, String) {
    let mut request = server.http.request(method.clone(), server.url(path));
    if let Some(body) = body {
        request = request.header("content-type", "application/json").body(body.to_owned());
    }
    let answer = request.send().await.expect("request");
    let status = answer.status().as_u16();
    let text = answer.text().await.expect("body");
    agora_e2e::openapi::assert_documented(method.as_str(), path, status, &serde_json::from_str(&text).unwrap_or(Value::Null));
    (status, text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_says_the_store_answers() {
    let server = Server::start().await;
    assert_eq!(server.get("/healthz").await, (200, json!({"status": "ok", "store": "ok"})));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_of_a_local_route_is_json_naming_what_is_wrong() {
    let server = Server::start_with(|c| c.functions_dir = repo_root().join("infra/local")).await;
    let cases: &[(Method, &str, Option<&str>, u16, &str)] = &[
        (Method::GET, "/local/inbox/%FF", None, 400, "Invalid subject in the path"),
        (Method::GET, "/admin/dead-letters?queue=evaluation&queue=x", None, 400, "Invalid queue: given more than once"),
        (Method::GET, "/admin/dead-letters?skip=x", None, 400, "Invalid skip"),
        (Method::POST, "/admin/dead-letters/redrive", Some("{"), 400, "Request body is not valid JSON"),
        (Method::POST, "/admin/dead-letters/redrive", Some(r#"{"work_ids": [1]}"#), 400, "Invalid work_ids"),
        (Method::PUT, "/admin/dead-letters", None, 405, ""),
        (Method::DELETE, "/healthz", None, 405, ""),
        (Method::GET, "/admin/nothing-here", None, 404, ""),
        (Method::GET, "/functions/%FF", None, 400, "Invalid function_id in the path"),
        (Method::GET, "/workflows/%FF", None, 400, "Invalid workflow_id in the path"),
        (Method::POST, "/function/deployments/create/%FF", Some("{}"), 400, "Invalid deployment in the path"),
        (Method::POST, "/function/call_as_job/local", Some("not json"), 400, "Request body is not valid JSON"),
        (Method::POST, "/function/call_function/d1", None, 400, "Request body is empty"),
        (Method::GET, "/live-stream", None, 400, "The live stream is a WebSocket"),
    ];
    for (method, path, body, status, message) in cases {
        let (got, text) = raw(&server, method.clone(), path, *body).await;
        let json: Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{method} {path}: not JSON: {text:?}"));
        assert_eq!(got, *status, "{method} {path}: {json}");
        assert_eq!(json.as_object().map(|o| o.len()), Some(1), "{method} {path}: only the error: {json}");
        let error = json["error"].as_str().unwrap_or_else(|| panic!("{method} {path}: an error message: {json}"));
        assert!(error.contains(message), "{method} {path}: {error:?} does not say {message:?}");
    }
}
