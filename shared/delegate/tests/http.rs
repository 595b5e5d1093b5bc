//! `HttpDelegate` against a real HTTP server (axum on 127.0.0.1): one route per way the delegate
//! system can answer, each under its own base path (`/{case}/api/submit-and-wait`).

use agora_delegate::{parse_timeout, DelegateConfig, DelegateConfigError, HttpDelegate, DEFAULT_TIMEOUT, MAX_REFUSED_TEXT, RETRY_HEADER};
use agora_ports::{Delegate, DelegateError, DelegateRequest};
use agora_signing::{verify, SignatureHeaders, VerifyError, ID_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER};
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::IntoResponse;
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const PATH: &str = "/api/submit-and-wait";

/// The secret the `/verify` delegate system shares with Agora.
const SECRET: &str = "whsec_c2VjcmV0LWtleS1mb3ItdGVzdHM=";

/// Someone else's secret.
const OTHER_SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/// A delegate system that accepts only calls signed with [`SECRET`], checked as a real one would:
/// `agora_signing::verify` over the raw body bytes received. It answers (200, or 401 with the
/// reason) with what it received: the three headers and the raw body as text.
async fn verifying(headers: HeaderMap, body: Bytes) -> impl IntoResponse {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let received = json!({
        "id": header(ID_HEADER),
        "timestamp": header(TIMESTAMP_HEADER),
        "signature": header(SIGNATURE_HEADER),
        "body": String::from_utf8(body.to_vec()).unwrap(),
    });
    match SignatureHeaders::from_lookup(header).and_then(|signature| verify(SECRET, &signature, &body)) {
        Ok(()) => (StatusCode::OK, Json(json!({"success": true, "received": received}))),
        Err(e) => (StatusCode::UNAUTHORIZED, Json(json!({"success": false, "error": e.to_string(), "received": received}))),
    }
}

/// The server's address, e.g. `http://127.0.0.1:40123`.
async fn server() -> String {
    async fn echo(uri: Uri, Json(body): Json<Value>) -> Json<Value> {
        Json(json!({"success": true, "ack": {"path": uri.path()}, "output": {"received": body}}))
    }
    /// Answers with the retry header it got (null when none) and the raw body.
    async fn headers(headers: HeaderMap, body: Bytes) -> Json<Value> {
        let retry = headers.get(RETRY_HEADER).map(|v| v.to_str().unwrap().to_owned());
        let retries = headers.get_all(RETRY_HEADER).iter().count();
        Json(json!({"success": true, "retry": retry, "retry_headers": retries, "body": String::from_utf8(body.to_vec()).unwrap()}))
    }
    let app = Router::new()
        .route(PATH, post(echo))
        .route(&format!("/headers{PATH}"), post(headers))
        .route(&format!("/prefix{PATH}"), post(echo))
        .route(
            &format!("/bad-gateway{PATH}"),
            post(|| async { (StatusCode::BAD_GATEWAY, Json(json!({"error": "subject s-1 is not connected"}))) }),
        )
        .route(&format!("/failed{PATH}"), post(|| async { Json(json!({"success": false, "error": "x"})) }))
        .route(&format!("/verify{PATH}"), post(verifying))
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
    submit_as(delegate, false).await
}

/// [`submit`], marked a retry or not.
async fn submit_as(delegate: &HttpDelegate, retry: bool) -> Result<Value, DelegateError> {
    let task_data = json!({"event_type": "bid_request", "bid_job_id": "job-1", "bid_job": {"n": [1, 2]}});
    let request = DelegateRequest { subject_id: "s-1", session_id: "sess-1", task_id: "t-1", task_data: &task_data, retry };
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
async fn a_retry_carries_the_retry_header_and_the_same_body_a_first_call_no_header() {
    assert_eq!(RETRY_HEADER, "Agora-Retry");
    let base = server().await;
    let delegate = delegate(&format!("{base}/headers"));
    let first = submit_as(&delegate, false).await.unwrap();
    let again = submit_as(&delegate, true).await.unwrap();
    assert_eq!((&first["retry"], &first["retry_headers"]), (&Value::Null, &json!(0)), "no header on a first call: {first}");
    assert_eq!((&again["retry"], &again["retry_headers"]), (&json!("true"), &json!(1)), "{again}");
    // The body is byte for byte the same: the flag is never in it.
    assert_eq!(first["body"], again["body"]);
    assert_eq!(serde_json::from_str::<Value>(again["body"].as_str().unwrap()).unwrap(), expected_sent());
}

#[tokio::test]
async fn a_signed_retry_verifies_as_a_first_call_does() {
    let base = server().await;
    let reply = submit_as(&verify_delegate(&base, Some(SECRET)), true).await.unwrap();
    assert_eq!(reply["success"], json!(true), "{reply}");
    let body: Value = serde_json::from_str(reply["received"]["body"].as_str().unwrap()).unwrap();
    assert_eq!(body, expected_sent());
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
    assert_eq!(config, DelegateConfig { base_url: None, timeout: DEFAULT_TIMEOUT, signer: None });
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

// ---- signing (Standard Webhooks, AGORA_HOOK_SIGNING_SECRET) --------------------------------------

/// The delegate of `{base}/verify`, signed with `secret` when given, through the configuration.
fn verify_delegate(base: &str, secret: Option<&str>) -> HttpDelegate {
    let config = DelegateConfig::from_values(Some(&format!("{base}/verify")), None).unwrap().with_signing_secret(secret).unwrap();
    HttpDelegate::from_config(&config).unwrap()
}

/// The three headers and the raw body a `/verify` reply says were received.
fn received(reply: &Value) -> (SignatureHeaders, Vec<u8>) {
    let text = |key: &str| reply["received"][key].as_str().unwrap_or_else(|| panic!("no {key} in {reply}")).to_owned();
    let headers = SignatureHeaders { id: text("id"), timestamp: text("timestamp"), signature: text("signature") };
    (headers, text("body").into_bytes())
}

#[tokio::test]
async fn with_a_secret_every_call_is_signed_over_the_exact_body_sent() {
    let base = server().await;
    let delegate = verify_delegate(&base, Some(SECRET));
    assert!(delegate.is_signed());
    // The server verified it (else 401): here, what it received, checked again.
    let reply = submit(&delegate).await.unwrap();
    let (headers, body) = received(&reply);
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap(), expected_sent());
    assert!(headers.id.starts_with("msg_"), "{headers:?}");
    assert!(headers.signature.starts_with("v1,"), "{headers:?}");
    let sent_at: i64 = headers.timestamp.parse().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    assert!((now - sent_at).abs() <= 5, "sent at {sent_at}, now {now}");
    assert_eq!(verify(SECRET, &headers, &body), Ok(()));
    // Someone else's secret, or a body changed on the way, does not verify.
    assert_eq!(verify(OTHER_SECRET, &headers, &body), Err(VerifyError::Mismatch));
    let tampered = String::from_utf8(body.clone()).unwrap().replace("\"t-1\"", "\"t-2\"");
    assert_ne!(tampered.as_bytes(), &body[..]);
    assert_eq!(verify(SECRET, &headers, tampered.as_bytes()), Err(VerifyError::Mismatch));
    // Each call is a new message.
    let (again, _) = received(&submit(&delegate).await.unwrap());
    assert_ne!(again.id, headers.id);
}

#[tokio::test]
async fn calls_signed_with_another_secret_are_refused_by_the_delegate_system() {
    let base = server().await;
    let error = submit(&verify_delegate(&base, Some(OTHER_SECRET))).await.unwrap_err();
    let DelegateError::Refused { status: 401, reply } = &error else { panic!("expected a 401 refusal, got {error:?}") };
    assert_eq!(reply["error"], VerifyError::Mismatch.to_string());
    // Signed all the same, just not with the delegate system's secret.
    assert!(reply["received"]["signature"].as_str().is_some_and(|s| s.starts_with("v1,")), "{reply}");
}

#[tokio::test]
async fn without_a_secret_calls_carry_no_signature_headers() {
    let base = server().await;
    for secret in [None, Some(""), Some("   ")] {
        let delegate = verify_delegate(&base, secret);
        assert!(!delegate.is_signed());
        let error = submit(&delegate).await.unwrap_err();
        let DelegateError::Refused { status: 401, reply } = &error else { panic!("expected a 401 refusal, got {error:?}") };
        assert_eq!(reply["error"], VerifyError::MissingHeader(ID_HEADER).to_string());
        for header in ["id", "timestamp", "signature"] {
            assert_eq!(reply["received"][header], Value::Null, "{header} sent unsigned: {reply}");
        }
        assert_eq!(serde_json::from_str::<Value>(reply["received"]["body"].as_str().unwrap()).unwrap(), expected_sent());
    }
    // The plain constructor does not sign either.
    assert!(!delegate(&base).is_signed());
}

#[test]
fn a_malformed_secret_is_refused_naming_the_variable() {
    for bad in ["whsec_not base64!", "whsec_", "whsec_%%%%"] {
        let error = DelegateConfig::from_values(Some("http://delegate"), None).unwrap().with_signing_secret(Some(bad)).unwrap_err();
        assert!(matches!(error, DelegateConfigError::SigningSecret(_)), "{error:?}");
        let message = error.to_string();
        assert!(message.contains("AGORA_HOOK_SIGNING_SECRET"), "{message}");
        let key = bad.trim_start_matches("whsec_");
        assert!(key.is_empty() || !message.contains(key), "the message quotes the secret: {message}");
    }
}

#[test]
fn the_secret_is_read_from_the_hooks_variable() {
    let vars = |pairs: &[(&str, &str)]| {
        let map: std::collections::HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |name: &str| map.get(name).cloned()
    };
    let signed = DelegateConfig::from_vars(vars(&[
        ("DELEGATE_API_URL", "http://delegate"),
        ("AGORA_DELEGATE_TIMEOUT_MS", "250"),
        ("AGORA_HOOK_SIGNING_SECRET", SECRET),
    ]))
    .unwrap();
    assert_eq!(signed.base_url.as_deref(), Some("http://delegate"));
    assert_eq!(signed.timeout, Duration::from_millis(250));
    assert_eq!(signed.signer, Some(agora_signing::Signer::from_secret(SECRET).unwrap()));
    assert!(HttpDelegate::from_config(&signed).unwrap().is_signed());

    let unsigned = DelegateConfig::from_vars(vars(&[("DELEGATE_API_URL", "http://delegate")])).unwrap();
    assert_eq!(unsigned.signer, None);
    assert!(!HttpDelegate::from_config(&unsigned).unwrap().is_signed());

    let error = DelegateConfig::from_vars(vars(&[("AGORA_HOOK_SIGNING_SECRET", "whsec_???")])).unwrap_err();
    assert!(error.to_string().contains("AGORA_HOOK_SIGNING_SECRET"), "{error}");
}
