//! `HttpDelegate` against a real HTTP server (axum on 127.0.0.1): one route per way the delegate
//! system can answer, each under its own base path (`/{case}/api/submit-and-wait`).

use agora_delegate::{parse_timeout, DelegateConfig, DelegateConfigError, HttpDelegate, DEFAULT_TIMEOUT, MAX_REFUSED_TEXT};
use agora_ports::{Delegate, DelegateError, DelegateRequest};
use axum::body::Bytes;
use axum::http::{StatusCode, Uri};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const PATH: &str = "/api/submit-and-wait";

/// The server's address, e.g. `http://127.0.0.1:40123`.
async fn server() -> String {
    async fn echo(uri: Uri, Json(body): Json<Value>) -> Json<Value> {
        Json(json!({"success": true, "ack": {"path": uri.path()}, "output": {"received": body}}))
    }
    let app = Router::new()
        .route(PATH, post(echo))
        .route(&format!("/prefix{PATH}"), post(echo))
        .route(
            &format!("/bad-gateway{PATH}"),
            post(|| async { (StatusCode::BAD_GATEWAY, Json(json!({"error": "subject s-1 is not connected"}))) }),
        )
        .route(&format!("/failed{PATH}"), post(|| async { Json(json!({"success": false, "error": "x"})) }))
        .route(&format!("/text{PATH}"), post(|| async { "all good" }))
        .route(&format!("/array{PATH}"), post(|| async { Json(json!([{"success": true}])) }))
        .route(&format!("/no-success{PATH}"), post(|| async { Json(json!({"ack": {}, "output": {}})) }))
        .route(&format!("/string-success{PATH}"), post(|| async { Json(json!({"success": "true"})) }))
        .route(
            &format!("/slow{PATH}"),
            post(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                Json(json!({"success": true}))
            }),
        )
        .route(&format!("/huge-error{PATH}"), post(|| async { (StatusCode::INTERNAL_SERVER_ERROR, "e".repeat(200_000)) }))
        .route(
            &format!("/huge{PATH}"),
            post(|| async { ([("content-type", "application/json")], Bytes::from(vec![b' '; 9 * 1024 * 1024])).into_response() }),
        );
    let app = app.route(
        &format!("/huge-chunked{PATH}"),
        post(|| async {
            // No declared length: the reply streams in 1 MiB chunks, 9 of them.
            let chunks = futures::stream::iter((0..9).map(|_| Ok::<_, std::io::Error>(Bytes::from(vec![b' '; 1024 * 1024]))));
            axum::body::Body::from_stream(chunks)
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

fn delegate(base: &str) -> HttpDelegate {
    HttpDelegate::new(base, Duration::from_secs(5)).unwrap()
}

async fn submit(delegate: &HttpDelegate) -> Result<Value, DelegateError> {
    let task_data = json!({"event_type": "bid_request", "bid_job_id": "job-1", "bid_job": {"n": [1, 2]}});
    let request = DelegateRequest { subject_id: "s-1", session_id: "sess-1", task_id: "t-1", task_data: &task_data };
    delegate.submit_and_wait(&request).await
}

fn expected_sent() -> Value {
    json!({
        "subject_id": "s-1",
        "session_id": "sess-1",
        "task_id": "t-1",
        "task_data": {"event_type": "bid_request", "bid_job_id": "job-1", "bid_job": {"n": [1, 2]}},
    })
}

#[tokio::test]
async fn success_returns_the_whole_reply_and_sends_the_exact_body_and_path() {
    let base = server().await;
    let reply = submit(&delegate(&base)).await.unwrap();
    assert_eq!(reply, json!({"success": true, "ack": {"path": PATH}, "output": {"received": expected_sent()}}));
    // The key order of the body as sent, too.
    let keys: Vec<&str> = reply["output"]["received"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["subject_id", "session_id", "task_id", "task_data"]);
}

#[tokio::test]
async fn a_base_with_a_trailing_slash_or_a_path_joins_the_same() {
    let base = server().await;
    let reply = submit(&delegate(&format!("{base}/"))).await.unwrap();
    assert_eq!(reply["ack"]["path"], PATH);
    let reply = submit(&delegate(&format!("{base}/prefix/"))).await.unwrap();
    assert_eq!(reply["ack"]["path"], format!("/prefix{PATH}"));
    let reply = submit(&delegate(&format!("{base}/prefix"))).await.unwrap();
    assert_eq!(reply["ack"]["path"], format!("/prefix{PATH}"));
    assert_eq!(reply["output"]["received"], expected_sent());
}

#[tokio::test]
async fn one_delegate_serves_many_calls() {
    let base = server().await;
    let delegate = delegate(&base);
    let clone = delegate.clone();
    let (a, b) = tokio::join!(submit(&delegate), submit(&clone));
    assert!(a.is_ok() && b.is_ok());
    assert!(submit(&delegate).await.is_ok());
}

#[tokio::test]
async fn a_502_is_refused_with_its_json_body() {
    let base = server().await;
    let error = submit(&delegate(&format!("{base}/bad-gateway"))).await.unwrap_err();
    assert_eq!(error, DelegateError::Refused { status: 502, reply: json!({"error": "subject s-1 is not connected"}) });
    assert!(error.is_transient());
}

#[tokio::test]
async fn a_huge_error_body_is_kept_as_cut_text() {
    let base = server().await;
    let Err(DelegateError::Refused { status: 500, reply: Value::String(text) }) = submit(&delegate(&format!("{base}/huge-error"))).await
    else {
        panic!("expected a refusal with text");
    };
    assert!(text.len() <= MAX_REFUSED_TEXT + 3, "{} bytes", text.len());
    assert!(text.starts_with("eee") && text.ends_with('…'));
}

#[tokio::test]
async fn success_false_is_refused_with_the_whole_reply() {
    let base = server().await;
    let error = submit(&delegate(&format!("{base}/failed"))).await.unwrap_err();
    assert_eq!(error, DelegateError::Refused { status: 200, reply: json!({"success": false, "error": "x"}) });
    assert!(!error.is_transient());
}

fn malformed(result: Result<Value, DelegateError>) -> String {
    match result {
        Err(DelegateError::Malformed(message)) => message,
        other => panic!("expected Malformed, got {other:?}"),
    }
}

#[tokio::test]
async fn a_reply_that_is_not_json_is_malformed_and_quoted() {
    let base = server().await;
    let message = malformed(submit(&delegate(&format!("{base}/text"))).await);
    assert!(message.contains("not JSON") && message.contains("all good"), "{message}");
}

#[tokio::test]
async fn a_json_array_is_malformed() {
    let base = server().await;
    let message = malformed(submit(&delegate(&format!("{base}/array"))).await);
    assert!(message.contains("an array, not an object"), "{message}");
}

#[tokio::test]
async fn a_reply_without_a_boolean_success_is_malformed() {
    let base = server().await;
    let message = malformed(submit(&delegate(&format!("{base}/no-success"))).await);
    assert!(message.contains("no \"success\""), "{message}");
    let message = malformed(submit(&delegate(&format!("{base}/string-success"))).await);
    assert!(message.contains("a string, not a boolean"), "{message}");
}

#[tokio::test]
async fn a_reply_over_the_size_limit_is_malformed() {
    let base = server().await;
    let message = malformed(submit(&delegate(&format!("{base}/huge"))).await);
    assert!(message.contains("larger than 8 MiB"), "{message}");
    let message = malformed(submit(&delegate(&format!("{base}/huge-chunked"))).await);
    assert!(message.contains("larger than 8 MiB"), "{message}");
}

#[tokio::test]
async fn a_slow_reply_times_out_at_the_limit() {
    let base = server().await;
    let limit = Duration::from_millis(200);
    let delegate = HttpDelegate::new(&format!("{base}/slow"), limit).unwrap();
    let started = Instant::now();
    let error = submit(&delegate).await.unwrap_err();
    let elapsed = started.elapsed();
    assert_eq!(error, DelegateError::Timeout(limit));
    assert!(elapsed >= limit && elapsed < Duration::from_secs(2), "{elapsed:?}");
    assert!(error.is_transient());
}

#[tokio::test]
async fn a_closed_port_is_unreachable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let error = submit(&delegate(&format!("http://{addr}"))).await.unwrap_err();
    let DelegateError::Unreachable(message) = &error else { panic!("expected Unreachable, got {error:?}") };
    assert!(message.to_lowercase().contains("connect"), "{message}");
    assert!(error.is_transient());
}

#[tokio::test]
async fn no_url_is_not_configured() {
    let config = DelegateConfig::from_values(None, None).unwrap();
    assert_eq!(config, DelegateConfig { base_url: None, timeout: DEFAULT_TIMEOUT });
    let delegate = HttpDelegate::from_config(&config).unwrap();
    assert!(!delegate.is_configured());
    assert_eq!(submit(&delegate).await.unwrap_err(), DelegateError::NotConfigured);
    let blank = HttpDelegate::from_config(&DelegateConfig::from_values(Some("  "), None).unwrap()).unwrap();
    assert_eq!(submit(&blank).await.unwrap_err(), DelegateError::NotConfigured);
    assert_eq!(submit(&HttpDelegate::not_configured()).await.unwrap_err(), DelegateError::NotConfigured);
}

#[test]
fn the_timeout_setting_must_be_a_positive_whole_number() {
    assert_eq!(parse_timeout(None).unwrap(), Duration::from_secs(30));
    assert_eq!(parse_timeout(Some("")).unwrap(), Duration::from_secs(30));
    assert_eq!(parse_timeout(Some("1500")).unwrap(), Duration::from_millis(1500));
    assert_eq!(parse_timeout(Some(" 200 ")).unwrap(), Duration::from_millis(200));
    for bad in ["0", "-1", "abc", "+5", "1.5"] {
        let error = parse_timeout(Some(bad)).unwrap_err();
        assert_eq!(error, DelegateConfigError::Timeout(bad.into()));
        let message = error.to_string();
        assert!(message.contains("AGORA_DELEGATE_TIMEOUT_MS") && message.contains(bad), "{message}");
    }
}

#[test]
fn settings_are_checked_together() {
    let config = DelegateConfig::from_values(Some("http://delegate:8080/"), Some("250")).unwrap();
    assert_eq!(config.timeout, Duration::from_millis(250));
    let delegate = HttpDelegate::from_config(&config).unwrap();
    assert_eq!(delegate.endpoint(), Some("http://delegate:8080/api/submit-and-wait"));
    assert_eq!(delegate.timeout(), Duration::from_millis(250));

    let error = DelegateConfig::from_values(Some("delegate:8080"), None).unwrap_err();
    assert!(error.to_string().contains("DELEGATE_API_URL"), "{error}");
    let error = DelegateConfig::from_values(Some("http://delegate"), Some("0")).unwrap_err();
    assert!(error.to_string().contains("AGORA_DELEGATE_TIMEOUT_MS"), "{error}");
    assert!(HttpDelegate::new("http://delegate", Duration::ZERO).is_err());
}
