//! `mode: "http"`: POST the hook input to a URL over pooled connections; the output is the
//! body's `data` (or the body), and within it `job_output_data` when present, as for external
//! registry functions.

use crate::truncate;
use agora_core::HookError;
use agora_schema::HookInput;
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;

/// The body sent to an HTTP hook: the hook input, plus the spec's `parameters`.
#[derive(Serialize)]
struct Request<'a> {
    #[serde(flatten)]
    input: &'a HookInput<'a>,
    parameters: &'a Value,
}

#[derive(Clone)]
pub struct HttpHooks {
    client: reqwest::Client,
    timeout: Duration,
}

impl HttpHooks {
    pub fn new(timeout: Duration) -> Self {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .pool_max_idle_per_host(64)
            .tcp_nodelay(true)
            .build()
            .expect("the HTTP client builds with static settings");
        Self { client, timeout }
    }

    pub async fn call(&self, url: &str, parameters: &Value, input: &HookInput<'_>) -> Result<Value, HookError> {
        let body = serde_json::to_vec(&Request { input, parameters }).map_err(|e| HookError::Malformed(e.to_string()))?;
        let response = self
            .client
            .post(url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await
            .map_err(|e| self.transport_error(e))?;
        let status = response.status();
        let bytes = response.bytes().await.map_err(|e| self.transport_error(e))?;
        if !status.is_success() {
            return Err(HookError::Status { status: status.as_u16(), body: truncate(&String::from_utf8_lossy(&bytes)) });
        }
        let body: Value = serde_json::from_slice(&bytes)
            .map_err(|e| HookError::Malformed(format!("body is not JSON ({e}): {}", truncate(&String::from_utf8_lossy(&bytes)))))?;
        Ok(unwrap_output(body))
    }

    fn transport_error(&self, e: reqwest::Error) -> HookError {
        if e.is_timeout() {
            HookError::Timeout(self.timeout)
        } else {
            HookError::Unreachable(e.to_string())
        }
    }
}

/// `data` when present, then `job_output_data` when present.
fn unwrap_output(mut body: Value) -> Value {
    if let Some(data) = body.get_mut("data").map(Value::take) {
        body = data;
    }
    if let Some(out) = body.get_mut("job_output_data").map(Value::take) {
        body = out;
    }
    body
}

#[cfg(test)]
mod tests {
    use super::unwrap_output;
    use serde_json::json;

    #[test]
    fn unwraps_data_and_job_output_data() {
        assert_eq!(unwrap_output(json!({"data": {"job_output_data": {"qualified": true}}})), json!({"qualified": true}));
        assert_eq!(unwrap_output(json!({"data": {"qualified": true}})), json!({"qualified": true}));
        assert_eq!(unwrap_output(json!({"qualified": false})), json!({"qualified": false}));
    }
}
