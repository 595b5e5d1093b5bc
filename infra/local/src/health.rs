//! `GET /healthz`: whether the local server can do its work, for a supervisor or a load
//! balancer. It answers at all, so its HTTP server runs; its store answers a cheap read (one
//! document by key from the server's own database, which no write waits behind) within
//! [`PROBE_TIMEOUT`]: 200 `{"status": "ok", "store": "ok"}`; else 503 `{"status": "degraded",
//! "store": "<the error>"}`. Open to every caller, authentication on or not: a probe carries no
//! token.

use crate::recovery::RUNS;
use agora_store::DocumentStore;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// How long the store has to answer the probe.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The key the probe reads (in [`RUNS`]; no run has it, so it reads nothing).
const PROBE_KEY: &str = "agora-health";

/// The health route over `store` (the server's own database).
pub fn router(store: Arc<dyn DocumentStore>) -> Router {
    Router::new().route("/healthz", get(healthz)).with_state(store)
}

async fn healthz(State(store): State<Arc<dyn DocumentStore>>) -> Response {
    match probe(store.as_ref(), PROBE_TIMEOUT).await {
        Ok(()) => Json(json!({"status": "ok", "store": "ok"})).into_response(),
        Err(error) => {
            tracing::warn!(%error, "health probe: the store does not answer");
            (StatusCode::SERVICE_UNAVAILABLE, Json(json!({"status": "degraded", "store": error}))).into_response()
        }
    }
}

/// Reads one document by key from `store`, within `timeout`; the error says what went wrong.
pub async fn probe(store: &dyn DocumentStore, timeout: Duration) -> Result<(), String> {
    match tokio::time::timeout(timeout, store.get(RUNS, PROBE_KEY)).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err(format!("the store did not answer within {} ms", timeout.as_millis())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::WORK_DB;
    use agora_filter::Filter;
    use agora_store::memory::MemoryStore;
    use agora_store::{Change, Counted, DocStream, Json as Doc, Page, StoreError, Uncounted};
    use async_trait::async_trait;
    use tower::ServiceExt;

    /// A store whose reads fail (`hang: false`) or never answer (`hang: true`).
    struct Broken {
        hang: bool,
    }

    impl Broken {
        async fn fail<T>(&self) -> Result<T, StoreError> {
            if self.hang {
                std::future::pending::<()>().await;
            }
            Err(StoreError::Backend("connection refused (127.0.0.1:9)".into()))
        }
    }

    #[async_trait]
    impl DocumentStore for Broken {
        async fn insert(&self, _: Vec<(&'static str, Doc)>) -> Result<(), StoreError> {
            self.fail().await
        }
        async fn get(&self, _: &str, _: &str) -> Result<Option<Doc>, StoreError> {
            self.fail().await
        }
        async fn find(&self, _: &str, _: &Filter) -> Result<Vec<Doc>, StoreError> {
            self.fail().await
        }
        async fn find_stream(&self, _: &str, _: &Filter, _: Page) -> Result<DocStream, StoreError> {
            self.fail().await
        }
        async fn count(&self, _: &str, _: &Filter, _: Option<u64>) -> Result<u64, StoreError> {
            self.fail().await
        }
        async fn update(&self, _: &str, _: &str, _: &Filter, _: &Change) -> Result<bool, StoreError> {
            self.fail().await
        }
        async fn delete(&self, _: &str, _: &str, _: &Filter) -> Result<bool, StoreError> {
            self.fail().await
        }
        async fn insert_counted(&self, _: Vec<(&'static str, Doc)>, _: &str, _: Option<i64>) -> Result<Counted, StoreError> {
            self.fail().await
        }
        async fn delete_counted(&self, _: &str, _: &str, _: &str, _: Option<i64>) -> Result<Uncounted, StoreError> {
            self.fail().await
        }
        async fn increment(&self, _: &str, _: i64) -> Result<i64, StoreError> {
            self.fail().await
        }
    }

    async fn health(store: Arc<dyn DocumentStore>) -> (StatusCode, serde_json::Value) {
        let request = axum::http::Request::get("/healthz").body(axum::body::Body::empty()).unwrap();
        let response = router(store).oneshot(request).await.unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        (status, serde_json::from_slice(&body).unwrap())
    }

    #[tokio::test]
    async fn healthy_when_the_store_answers() {
        let store = Arc::new(MemoryStore::new(WORK_DB).unwrap());
        assert_eq!(health(store).await, (StatusCode::OK, json!({"status": "ok", "store": "ok"})));
    }

    #[tokio::test]
    async fn degraded_when_the_store_fails() {
        let (status, body) = health(Arc::new(Broken { hang: false })).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(body["status"], "degraded");
        assert!(body["store"].as_str().unwrap().contains("connection refused"), "{body}");
    }

    #[tokio::test]
    async fn degraded_when_the_store_does_not_answer_in_time() {
        let started = std::time::Instant::now();
        let error = probe(&Broken { hang: true }, Duration::from_millis(50)).await.unwrap_err();
        assert_eq!(error, "the store did not answer within 50 ms");
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
