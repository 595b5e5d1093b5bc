//! HTTP calls of every mode that uses HTTP (`http`, the function registry, workflows), over one
//! pooled client. Signed with Standard Webhooks headers when a signer is given.

use crate::truncate;
use agora_hooks::HookError;
use agora_signing::Signer;
use agora_support::error_chain;
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

    async fn answer(&self, url: &str, request: reqwest::RequestBuilder) -> Result<Value, HookError> {
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
    use super::unwrap_output;
    use serde_json::json;

    #[test]
    fn unwraps_data_and_job_output_data() {
        assert_eq!(unwrap_output(json!({"data": {"job_output_data": {"qualified": true}}})), json!({"qualified": true}));
        assert_eq!(unwrap_output(json!({"data": {"qualified": true}})), json!({"qualified": true}));
        assert_eq!(unwrap_output(json!({"job_output_data": {"qualified": true}})), json!({"qualified": true}));
        assert_eq!(unwrap_output(json!({"qualified": false})), json!({"qualified": false}));
    }
}
