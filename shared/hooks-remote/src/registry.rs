//! `mode: "function"`: a function of the registry at `FUNCTIONS_REGISTRY_URL`, run the way its
//! entry says ("Hooks (§4) in practice"):
//!
//! - `GET /functions/{function_id}` gives the entry (404: unknown); entries are cached briefly.
//! - external (`is_external`): POST the hook input to `external_function_url` (signed when a
//!   secret is configured); result = the body's `data`, or the body.
//! - stateful (`is_stateful`): the deployment `<function_name>-<deployment>` is created once
//!   (`<deployment>` is the service's deployment id, else the task or job id)
//!   (`POST /function/deployments/create/{deployment}`), then called with
//!   `POST /function/call_function/{deployment}` (the hook input plus `function_id`).
//! - stateless: `POST /function/call_as_job/{EXECUTOR_ID}` with
//!   `{"function_id", "inputs", "parameters"}`.
//! - The hook output is the result's `job_output_data` when present, else the result.

use crate::cache::TtlCache;
use crate::http::{unwrap_data, unwrap_job_output, HttpClient};
use crate::json_body;
use crate::signing::Signer;
use agora_hooks::HookError;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::OnceCell;

/// A registry entry: the fields that say how the function runs.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct FunctionEntry {
    #[serde(default)]
    pub function_name: Option<String>,
    #[serde(default)]
    pub is_external: bool,
    #[serde(default)]
    pub external_function_url: Option<String>,
    #[serde(default)]
    pub is_stateful: bool,
}

impl FunctionEntry {
    /// How the entry runs, for logs.
    pub fn kind(&self) -> &'static str {
        if self.is_external {
            "external"
        } else if self.is_stateful {
            "stateful"
        } else {
            "stateless"
        }
    }
}

/// The stateful call body: the hook input plus `function_id`.
#[derive(Serialize)]
struct StatefulCall<'a> {
    #[serde(flatten)]
    input: &'a (dyn erased_serde::Serialize + Sync),
    function_id: &'a str,
}

#[derive(Serialize)]
struct JobCall<'a> {
    function_id: &'a str,
    inputs: &'a (dyn erased_serde::Serialize + Sync),
    parameters: &'a Value,
}

pub struct Registry {
    base: String,
    executor_id: Option<String>,
    http: HttpClient,
    signer: Option<Signer>,
    entries: TtlCache<Arc<FunctionEntry>>,
    /// Deployments known to exist; the cell makes a concurrent first use create it once.
    deployments: Mutex<HashMap<String, Arc<OnceCell<()>>>>,
}

impl Registry {
    pub fn new(base: &str, executor_id: Option<String>, http: HttpClient, signer: Option<Signer>, ttl: std::time::Duration) -> Self {
        Self {
            base: base.trim_end_matches('/').to_owned(),
            executor_id,
            http,
            signer,
            entries: TtlCache::new(ttl),
            deployments: Mutex::new(HashMap::new()),
        }
    }

    fn url(&self, segments: &[&str]) -> String {
        let mut url = self.base.clone();
        for s in segments {
            url.push('/');
            url.push_str(&encode_segment(s));
        }
        url
    }

    /// The function's entry, cached.
    pub async fn entry(&self, function_id: &str) -> Result<Arc<FunctionEntry>, HookError> {
        if let Some(hit) = self.entries.get(function_id) {
            return Ok(hit);
        }
        let url = self.url(&["functions", function_id]);
        let body = self
            .http
            .get_json(&url)
            .await?
            .ok_or_else(|| HookError::Unavailable(format!("function {function_id:?} is not in the registry ({url} answered 404)")))?;
        // The entry itself, or wrapped in `data`.
        let body = if body.get("is_external").is_none() && body.get("function_name").is_none() { unwrap_data(body) } else { body };
        let entry: FunctionEntry = serde_json::from_value(body)
            .map_err(|e| HookError::Malformed(format!("registry entry of {function_id:?} is malformed: {e}")))?;
        let entry = Arc::new(entry);
        self.entries.put(function_id, entry.clone());
        Ok(entry)
    }

    /// Runs the function for one hook call; a stateful function runs in the deployment
    /// `<function_name>-<deployment>`.
    pub async fn call(
        &self,
        function_id: &str,
        parameters: &Value,
        input: &(dyn erased_serde::Serialize + Sync),
        deployment: &str,
    ) -> Result<Value, HookError> {
        let entry = self.entry(function_id).await?;
        let result = if entry.is_external {
            let url = entry
                .external_function_url
                .as_deref()
                .filter(|u| !u.is_empty())
                .ok_or_else(|| HookError::Unavailable(format!("external function {function_id:?} has no external_function_url")))?;
            unwrap_data(self.http.post_json(url, json_body(input)?, self.signer.as_ref()).await?)
        } else if entry.is_stateful {
            let name = entry.function_name.as_deref().filter(|n| !n.is_empty()).unwrap_or(function_id);
            let deployment = format!("{name}-{deployment}");
            self.ensure_deployment(&deployment, function_id).await?;
            let body = json_body(&StatefulCall { input, function_id })?;
            unwrap_data(self.http.post_json(&self.url(&["function", "call_function", &deployment]), body, None).await?)
        } else {
            let executor = self.executor_id.as_deref().ok_or_else(|| {
                HookError::Unavailable(format!("function {function_id:?} is stateless and runs as a job, which needs EXECUTOR_ID"))
            })?;
            let body = json_body(&JobCall { function_id, inputs: input, parameters })?;
            unwrap_data(self.http.post_json(&self.url(&["function", "call_as_job", executor]), body, None).await?)
        };
        Ok(unwrap_job_output(result))
    }

    /// Creates the deployment on its first use, once even when calls race; a failed creation
    /// is tried again by the next call.
    async fn ensure_deployment(&self, deployment: &str, function_id: &str) -> Result<(), HookError> {
        let cell = self.deployments.lock().unwrap_or_else(|p| p.into_inner()).entry(deployment.to_owned()).or_default().clone();
        cell.get_or_try_init(|| async {
            let url = self.url(&["function", "deployments", "create", deployment]);
            let body = json_body(&serde_json::json!({"function_id": function_id}))?;
            match self.http.post_json(&url, body, None).await {
                // 409: it exists already (created by an earlier run of this process).
                Ok(_) | Err(HookError::Status { status: 409, .. }) => {
                    tracing::info!(deployment, function_id, "stateful deployment ready");
                    Ok(())
                }
                Err(e) => Err(e),
            }
        })
        .await
        .map(|_| ())
    }
}

/// Percent-encodes a path segment (function ids hold `:` and may hold `/`).
pub(crate) fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~' | b':' | b'@') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn encodes_path_segments() {
        assert_eq!(super::encode_segment("voting-invite-builder:1.0-stable"), "voting-invite-builder:1.0-stable");
        assert_eq!(super::encode_segment("a/b c"), "a%2Fb%20c");
    }
}
