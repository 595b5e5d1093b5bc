//! HTTP calls of every mode that uses HTTP (`http`, the function registry, workflows), over one
//! pooled client. Signed with Standard Webhooks headers when a signer is given. A call made
//! while a unit of work runs under a trace id (`agora_telemetry::trace::scope`) carries it in the
//! header `agora_telemetry::trace::HEADER`.

use crate::truncate;
use agora_hooks::HookError;
use agora_signing::Signer;
use agora_support::error_chain;
use agora_telemetry::trace;
use serde_json::Value;
use std::time::Duration;

/// One pooled HTTP client for every hook call.
#[derive(Clone)]
pub struct HttpClient {
    client: reqwest::Client,
    timeout: Duration,
}

impl HttpClient {
    pub fn new(timeout: Duration) -> Self {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .pool_max_idle_per_host(64)
            .tcp_nodelay(true)
            .build()
            .expect("the HTTP client builds with static settings");
        Self { client, timeout }
    }

    /// POSTs a JSON body; the answer must be 2xx and JSON.
    pub async fn post_json(&self, url: &str, body: Vec<u8>, signer: Option<&Signer>) -> Result<Value, HookError> {
        let mut request = self.client.post(url).header(reqwest::header::CONTENT_TYPE, "application/json");
        if let Some(signer) = signer {
            for (name, value) in signer.sign(&body).pairs() {
                request = request.header(name, value);
            }
        }
        self.answer(url, request.body(body)).await
    }

    /// GETs a JSON document; `Ok(None)` on 404.
    pub async fn get_json(&self, url: &str) -> Result<Option<Value>, HookError> {
        match self.answer(url, self.client.get(url)).await {
            Err(HookError::Status { status: 404, .. }) => Ok(None),
            other => other.map(Some),
        }
    }

    async fn answer(&self, url: &str, mut request: reqwest::RequestBuilder) -> Result<Value, HookError> {
        // A trace id that is no header value (`trace::accept` lets none through) is left out.
        if let Some(id) = trace::current().and_then(|id| reqwest::header::HeaderValue::from_str(&id).ok()) {
            request = request.header(trace::HEADER, id);
        }
        let response = request.send().await.map_err(|e| self.transport_error(url, e))?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| self.transport_error(url, e))?;
        if !status.is_success() {
            return Err(HookError::Status { status: status.as_u16(), body: truncate(&String::from_utf8_lossy(&bytes)) });
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            HookError::Malformed(format!(
                "{url} answered with a body that is not JSON ({e}): {}",
                truncate(&String::from_utf8_lossy(&bytes))
            ))
        })
    }

    fn transport_error(&self, url: &str, e: reqwest::Error) -> HookError {
        if e.is_timeout() {
            HookError::Timeout(self.timeout)
        } else {
            HookError::Unreachable(format!("{url}: {}", error_chain(&e)))
        }
    }
}

/// `data` when present, else the body (§4.1 external functions, `http` hooks).
pub fn unwrap_data(mut body: Value) -> Value {
    match body.get_mut("data").map(Value::take) {
        Some(data) => data,
        None => body,
    }
}

/// `job_output_data` when present, else the result (§4.1).
pub fn unwrap_job_output(mut result: Value) -> Value {
    match result.get_mut("job_output_data").map(Value::take) {
        Some(out) => out,
        None => result,
    }
}

/// `data` when present, then `job_output_data` when present.
pub fn unwrap_output(body: Value) -> Value {
    unwrap_job_output(unwrap_data(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RemoteHooks;
    use agora_hooks::{Call, Remote};
    use agora_schema::HookTarget;
    use axum::http::HeaderMap;
    use axum::routing::{get, post};
    use axum::{Json, Router};
    use serde_json::json;

    /// A hook server on 127.0.0.1 that answers each call with the trace header it got (null
    /// when none); its base URL.
    async fn echo_server() -> String {
        async fn echo(headers: HeaderMap) -> Json<Value> {
            Json(json!({"trace": headers.get(trace::HEADER).map(|v| v.to_str().unwrap().to_owned())}))
        }
        let app = Router::new().route("/hook", post(echo)).route("/entry", get(echo));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        base
    }

    #[tokio::test]
    async fn a_call_carries_the_trace_id_of_the_work_it_is_made_for() {
        let base = echo_server().await;
        let client = HttpClient::new(Duration::from_secs(5));
        let (hook, entry) = (format!("{base}/hook"), format!("{base}/entry"));
        let traced = trace::scope("t-1", client.post_json(&hook, b"{}".to_vec(), None)).await.unwrap();
        assert_eq!(traced, json!({"trace": "t-1"}));
        let read = trace::scope("t-2", client.get_json(&entry)).await.unwrap();
        assert_eq!(read, Some(json!({"trace": "t-2"})));
        // Outside a scope: no header.
        assert_eq!(client.post_json(&hook, b"{}".to_vec(), None).await.unwrap(), json!({"trace": null}));

        // An `http` hook called through the remote modes, as a flow calls it.
        let hooks = RemoteHooks::default();
        let (input, parameters) = (json!({"vote": 1}), json!({}));
        let call = Call {
            hook: "voting_pqt",
            target: HookTarget::Http { url: &hook, parameters: &parameters },
            input: &input,
            scope: "task-1",
            deployment: "task-1",
        };
        let out = trace::scope("t-3", hooks.call(&call)).await.unwrap();
        assert_eq!(out, json!({"trace": "t-3"}));
    }

    #[test]
    fn unwraps_data_and_job_output_data() {
        assert_eq!(unwrap_output(json!({"data": {"job_output_data": {"qualified": true}}})), json!({"qualified": true}));
        assert_eq!(unwrap_output(json!({"data": {"qualified": true}})), json!({"qualified": true}));
        assert_eq!(unwrap_output(json!({"job_output_data": {"qualified": true}})), json!({"qualified": true}));
        assert_eq!(unwrap_output(json!({"qualified": false})), json!({"qualified": false}));
    }
}
