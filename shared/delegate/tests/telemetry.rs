//! What an operator sees of delegate calls: each call counted by outcome with its duration, and
//! the trace id of the work a call is made for sent in its header. Against a real HTTP server
//! (axum on 127.0.0.1), on one thread, so that the test's own metrics recorder sees every call.

use agora_delegate::HttpDelegate;
use agora_ports::{Delegate, DelegateError, DelegateRequest};
use agora_telemetry::testing::record;
use agora_telemetry::{names, trace};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::time::Duration;

const PATH: &str = "/api/submit-and-wait";

/// A delegate system that answers with the trace header it got (null when none), and one under
/// `/down` that answers 502; its base URL.
async fn server() -> String {
    async fn echo(headers: HeaderMap) -> Json<Value> {
        Json(json!({"success": true, "trace": headers.get(trace::HEADER).map(|v| v.to_str().unwrap().to_owned())}))
    }
    let app = Router::new()
        .route(PATH, post(echo))
        .route(&format!("/down{PATH}"), post(|| async { (StatusCode::BAD_GATEWAY, Json(json!({"error": "subject s-1 is away"}))) }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    base
}

async fn submit(delegate: &HttpDelegate) -> Result<Value, DelegateError> {
    let task_data = json!({"event_type": "bid_request", "bid_job_id": "job-1"});
    let request = DelegateRequest { subject_id: "s-1", session_id: "sess-1", task_id: "t-1", task_data: &task_data, retry: false };
    delegate.submit_and_wait(&request).await
}

fn delegate(base: &str) -> HttpDelegate {
    HttpDelegate::new(base, Duration::from_secs(5)).unwrap()
}

#[tokio::test]
async fn a_call_carries_the_trace_id_of_the_work_it_is_made_for() {
    let base = server().await;
    let traced = trace::scope("t-1", submit(&delegate(&base))).await.unwrap();
    assert_eq!(traced, json!({"success": true, "trace": "t-1"}));
    // Outside a scope: no header.
    assert_eq!(submit(&delegate(&base)).await.unwrap(), json!({"success": true, "trace": null}));
}

#[test]
fn every_call_is_counted_by_outcome_with_its_duration() {
    let recorded = record(|| async {
        let base = server().await;
        assert!(submit(&delegate(&base)).await.is_ok());
        assert!(submit(&delegate(&base)).await.is_ok());
        assert!(matches!(submit(&delegate(&format!("{base}/down"))).await, Err(DelegateError::Refused { status: 502, .. })));
        assert!(matches!(submit(&HttpDelegate::not_configured()).await, Err(DelegateError::NotConfigured)));
    });
    let calls = |outcome| recorded.counter(names::DELEGATE_CALLS, &[("outcome", outcome)]);
    assert_eq!((calls("ok"), calls("failed")), (Some(2), Some(2)));
    let seconds = recorded.histogram(names::DELEGATE_CALL_SECONDS, &[]).map(|s| s.len());
    assert_eq!(seconds, Some(4));
}
