//! The delegate system over HTTP (orcade-1-3-5.md §5, xchange-1-3-5.md §1 and §4): the
//! [`Delegate`] port's adapter. [`HttpDelegate::submit_and_wait`] sends
//! `POST {DELEGATE_API_URL}/api/submit-and-wait` with
//! `{"subject_id", "session_id", "task_id", "task_data"}` and waits for the subject's answer:
//!
//! | Answer | Result |
//! |---|---|
//! | 2xx, a JSON object with `"success": true` | `Ok(reply)`: the whole object, verbatim, to be stored as is |
//! | 2xx, a JSON object with `"success": false` | [`DelegateError::Refused`] with the status and the object |
//! | 2xx, not JSON, not an object, no boolean `success`, or larger than [`MAX_REPLY_BYTES`] | [`DelegateError::Malformed`], saying what was wrong |
//! | any other status (redirects are not followed) | [`DelegateError::Refused`] with the body as JSON, else as a string cut to [`MAX_REFUSED_TEXT`] bytes |
//! | no complete answer within the time limit (connect, send, reply body) | [`DelegateError::Timeout`] |
//! | no connection (refused, DNS, TLS) | [`DelegateError::Unreachable`], with the cause |
//! | no `DELEGATE_API_URL` | [`DelegateError::NotConfigured`] |
//!
//! Settings, read by [`DelegateConfig::from_env`] (or [`HttpDelegate::from_env`]):
//!
//! | Variable | What | Default |
//! |---|---|---|
//! | `DELEGATE_API_URL` | base URL of the delegate system (`http://` or `https://`, with or without a path and a trailing `/`) | none: every call answers [`DelegateError::NotConfigured`] |
//! | `AGORA_DELEGATE_TIMEOUT_MS` | time limit of one whole call, in milliseconds (a positive whole number) | 30 000 |
//! | `AGORA_HOOK_SIGNING_SECRET` | the hooks' Standard Webhooks secret (`whsec_` + base64): every call carries `webhook-id`, `webhook-timestamp` and `webhook-signature` over the exact body sent (see `agora_signing`) | none: calls are not signed |
//!
//! An unset `DELEGATE_API_URL` is not an error: the deployment simply has no delegate system, and
//! [`HttpDelegate::from_env`] returns a delegate that refuses every call with
//! [`DelegateError::NotConfigured`] (so services hold one `Arc<dyn Delegate>` either way and the
//! failure is stored like any other). A set but unusable value of any of these variables is a
//! [`DelegateConfigError`] naming the variable, for the service to refuse to start.
//!
//! With a signing secret, a delegate system can tell Agora's calls from anyone else's by
//! checking each request with `agora_signing::verify` (the same secret, the received headers and
//! the raw body bytes): the signature covers the message id, the timestamp and the body.
//!
//! A repeated hand-over ([`DelegateRequest::retry`]: the same `task_id` and `session_id` as a
//! call a worker may have made before it died) carries the header [`RETRY_HEADER`]` = "Agora-Retry"`
//! with the value `true`; a first call carries no such header. The body is the same either way
//! (the flag is never in it), and the signature, over the body, is made the same way. A delegate
//! system that must not do a task twice keeps the `task_id`s it has taken and answers a repeat
//! from what it kept (or waits for the first call's answer).
//!
//! A call made while a unit of work runs under a trace id (`agora_telemetry::trace::scope`)
//! carries it in the header `agora_telemetry::trace::HEADER` (`x-agora-trace-id`), so that the
//! delegate system's logs of the call can be joined to Agora's.
//!
//! Each [`HttpDelegate`] holds one pooled HTTP client (rustls), reused by every call and every
//! clone. A failed call is logged once, here, at `warn` with `subject_id`, `task_id`, the error
//! and the elapsed milliseconds. Every call is counted by outcome (`ok`, `failed`), with the
//! seconds it took (`agora_telemetry::names::DELEGATE_CALLS`, `DELEGATE_CALL_SECONDS`).

pub use agora_ports::RETRY_HEADER;
use agora_ports::{Delegate, DelegateError, DelegateRequest};
pub use agora_signing::{SecretError, Signer};
use agora_telemetry::{names, trace};
use async_trait::async_trait;
use serde_json::Value;
use std::time::{Duration, Instant};

/// Default time limit of one call (orcade-1-3-5.md §5).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// The variable holding the delegate system's base URL.
pub const URL_VAR: &str = "DELEGATE_API_URL";

/// The variable holding the time limit of one call, in milliseconds.
pub const TIMEOUT_VAR: &str = "AGORA_DELEGATE_TIMEOUT_MS";

/// The variable holding the signing secret, the hooks' own.
pub const SIGNING_SECRET_VAR: &str = agora_signing::SIGNING_SECRET_ENV;

/// The path of the one endpoint, under the base URL.
pub const SUBMIT_PATH: &str = "api/submit-and-wait";

/// A successful reply larger than this is refused as malformed, without reading it all.
pub const MAX_REPLY_BYTES: usize = 8 * 1024 * 1024;

/// A refusal's body is kept as JSON up to this size; beyond, or when it is not JSON, it is kept
/// as text cut to [`MAX_REFUSED_TEXT`]. No more than this is read of a refusal.
pub const MAX_REFUSED_JSON: usize = 64 * 1024;

/// How much of a body that is kept (or quoted) as text is kept.
pub const MAX_REFUSED_TEXT: usize = 4 * 1024;

/// How much of a malformed body an error message quotes.
const QUOTE_BYTES: usize = 300;

/// A setting that cannot be used. Each message names its variable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DelegateConfigError {
    /// `AGORA_DELEGATE_TIMEOUT_MS` is not a positive whole number.
    #[error("AGORA_DELEGATE_TIMEOUT_MS must be a positive whole number of milliseconds, got {0:?}")]
    Timeout(String),
    /// `DELEGATE_API_URL` is not an `http://` or `https://` URL.
    #[error("DELEGATE_API_URL must be an http:// or https:// URL, got {value:?}: {reason}")]
    Url { value: String, reason: String },
    /// `AGORA_HOOK_SIGNING_SECRET` is not `whsec_` + base64 (the message names the variable,
    /// never the secret).
    #[error(transparent)]
    SigningSecret(#[from] SecretError),
    /// The HTTP client could not be built (the TLS backend failed to start).
    #[error("the delegate system's HTTP client cannot be built: {0}")]
    Client(String),
}

/// The delegate settings of a deployment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DelegateConfig {
    /// The base URL; `None`: no delegate system.
    pub base_url: Option<String>,
    /// The time limit of one whole call.
    pub timeout: Duration,
    /// Signs every call (Standard Webhooks); `None`: calls are not signed.
    pub signer: Option<Signer>,
}

impl Default for DelegateConfig {
    /// No delegate system, the default time limit, no signing.
    fn default() -> Self {
        Self { base_url: None, timeout: DEFAULT_TIMEOUT, signer: None }
    }
}

impl DelegateConfig {
    /// Reads `DELEGATE_API_URL`, `AGORA_DELEGATE_TIMEOUT_MS` and `AGORA_HOOK_SIGNING_SECRET` (see
    /// the crate documentation).
    pub fn from_env() -> Result<Self, DelegateConfigError> {
        Self::from_vars(agora_support::env::var)
    }

    /// The settings from the variables of the crate documentation, each read with `var` (`None`:
    /// unset), e.g. from a map instead of the environment.
    pub fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Self, DelegateConfigError> {
        Self::from_values(var(URL_VAR).as_deref(), var(TIMEOUT_VAR).as_deref())?.with_signing_secret(var(SIGNING_SECRET_VAR).as_deref())
    }

    /// The settings from the URL's and time limit's values (`None`: unset), without the
    /// environment and without signing. Blank values count as unset. The URL is checked here, so
    /// a bad one stops the start-up.
    pub fn from_values(base_url: Option<&str>, timeout_ms: Option<&str>) -> Result<Self, DelegateConfigError> {
        let timeout = parse_timeout(timeout_ms)?;
        let base_url = match base_url.map(str::trim).filter(|v| !v.is_empty()) {
            Some(url) => {
                endpoint(url)?;
                Some(url.to_owned())
            }
            None => None,
        };
        Ok(Self { base_url, timeout, signer: None })
    }

    /// These settings, every call signed with `secret` (the value of `AGORA_HOOK_SIGNING_SECRET`,
    /// `whsec_` + base64); `None` or blank: not signed. A malformed secret is an error naming the
    /// variable.
    pub fn with_signing_secret(self, secret: Option<&str>) -> Result<Self, DelegateConfigError> {
        let signer = secret.map(str::trim).filter(|v| !v.is_empty()).map(Signer::from_secret).transpose()?;
        Ok(Self { signer, ..self })
    }
}

/// `AGORA_DELEGATE_TIMEOUT_MS`: unset or blank → [`DEFAULT_TIMEOUT`]; else a positive whole
/// number of milliseconds, or an error naming the variable.
pub fn parse_timeout(value: Option<&str>) -> Result<Duration, DelegateConfigError> {
    let Some(text) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(DEFAULT_TIMEOUT);
    };
    match text.parse::<u64>() {
        Ok(ms) if ms > 0 && text.bytes().all(|b| b.is_ascii_digit()) => Ok(Duration::from_millis(ms)),
        _ => Err(DelegateConfigError::Timeout(text.to_owned())),
    }
}

/// `{base}/api/submit-and-wait`, whether `base` ends with `/` or not.
fn endpoint(base: &str) -> Result<reqwest::Url, DelegateConfigError> {
    let invalid = |reason: String| DelegateConfigError::Url { value: base.to_owned(), reason };
    let parsed = reqwest::Url::parse(base.trim()).map_err(|e| invalid(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(invalid(format!("the scheme is {:?}", parsed.scheme())));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(invalid("there is no host".into()));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(invalid("a base URL takes no query or fragment".into()));
    }
    let joined = format!("{}/{SUBMIT_PATH}", parsed.as_str().trim_end_matches('/'));
    reqwest::Url::parse(&joined).map_err(|e| invalid(e.to_string()))
}

/// The delegate system over HTTP. Cheap to clone: clones share one pooled client.
#[derive(Clone)]
pub struct HttpDelegate {
    /// `None`: not configured, every call answers [`DelegateError::NotConfigured`].
    target: Option<Target>,
    timeout: Duration,
    /// Signs every call when set.
    signer: Option<Signer>,
}

#[derive(Clone)]
struct Target {
    endpoint: reqwest::Url,
    client: reqwest::Client,
}

impl std::fmt::Debug for HttpDelegate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpDelegate")
            .field("endpoint", &self.target.as_ref().map(|t| t.endpoint.as_str()))
            .field("timeout", &self.timeout)
            .field("signed", &self.signer.is_some())
            .finish()
    }
}

impl HttpDelegate {
    /// A delegate calling `{base_url}/api/submit-and-wait`, each whole call under `timeout`, not
    /// signed (see [`HttpDelegate::with_signer`]). Refuses a URL that is not
    /// `http(s)://host[/path]` and a zero time limit.
    pub fn new(base_url: &str, timeout: Duration) -> Result<Self, DelegateConfigError> {
        if timeout.is_zero() {
            return Err(DelegateConfigError::Timeout(format!("{timeout:?}")));
        }
        let endpoint = endpoint(base_url)?;
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            // A redirected POST would arrive as a GET without its body: a 3xx is a refusal.
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(64)
            .tcp_nodelay(true)
            .build()
            .map_err(|e| DelegateConfigError::Client(error_chain(&e)))?;
        Ok(Self { target: Some(Target { endpoint, client }), timeout, signer: None })
    }

    /// This delegate, every call signed by `signer` (Standard Webhooks headers over the exact
    /// body sent); `None`: not signed.
    pub fn with_signer(self, signer: Option<Signer>) -> Self {
        Self { signer, ..self }
    }

    /// A delegate for a deployment without a delegate system: every call answers
    /// [`DelegateError::NotConfigured`].
    pub fn not_configured() -> Self {
        Self { target: None, timeout: DEFAULT_TIMEOUT, signer: None }
    }

    /// The delegate of `config`, signed when it has a signer: [`HttpDelegate::not_configured`]
    /// when it has no URL.
    pub fn from_config(config: &DelegateConfig) -> Result<Self, DelegateConfigError> {
        match &config.base_url {
            Some(url) => Ok(Self::new(url, config.timeout)?.with_signer(config.signer.clone())),
            None => Ok(Self::not_configured()),
        }
    }

    /// The delegate of this deployment's environment ([`DelegateConfig::from_env`]): not
    /// configured when `DELEGATE_API_URL` is unset, an error when a setting is unusable.
    pub fn from_env() -> Result<Self, DelegateConfigError> {
        Self::from_config(&DelegateConfig::from_env()?)
    }

    /// Whether a delegate system is configured.
    pub fn is_configured(&self) -> bool {
        self.target.is_some()
    }

    /// The URL calls go to, when configured.
    pub fn endpoint(&self) -> Option<&str> {
        self.target.as_ref().map(|t| t.endpoint.as_str())
    }

    /// The time limit of one call.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Whether calls are signed.
    pub fn is_signed(&self) -> bool {
        self.signer.is_some()
    }

    async fn call(&self, target: &Target, request: &DelegateRequest<'_>) -> Result<Value, DelegateError> {
        let body = serde_json::to_vec(request).map_err(|e| DelegateError::Malformed(format!("the request is not JSON: {e}")))?;
        let mut post = target
            .client
            .post(target.endpoint.clone())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "application/json");
        if request.retry {
            post = post.header(RETRY_HEADER, "true");
        }
        // A trace id that is no header value (`trace::accept` lets none through) is left out.
        if let Some(id) = trace::current().and_then(|id| reqwest::header::HeaderValue::from_str(&id).ok()) {
            post = post.header(trace::HEADER, id);
        }
        if let Some(signer) = &self.signer {
            // Over the very bytes sent below.
            for (name, value) in signer.sign(&body).pairs() {
                post = post.header(name, value);
            }
        }
        let mut response = post.body(body).send().await.map_err(|e| self.transport_error(e))?;
        let status = response.status().as_u16();
        if !response.status().is_success() {
            let (bytes, complete) = read_body(&mut response, MAX_REFUSED_JSON).await.map_err(|e| self.transport_error(e))?;
            return Err(DelegateError::Refused { status, reply: refused_reply(&bytes, complete) });
        }
        // A declared length over the limit is not read at all; an undeclared one, up to the limit.
        let too_large = || DelegateError::Malformed(format!("the reply is larger than {} MiB", MAX_REPLY_BYTES / (1024 * 1024)));
        if response.content_length().is_some_and(|len| len > MAX_REPLY_BYTES as u64) {
            return Err(too_large());
        }
        let (bytes, complete) = read_body(&mut response, MAX_REPLY_BYTES).await.map_err(|e| self.transport_error(e))?;
        if !complete {
            return Err(too_large());
        }
        check_reply(status, &bytes)
    }

    fn transport_error(&self, e: reqwest::Error) -> DelegateError {
        if e.is_timeout() {
            DelegateError::Timeout(self.timeout)
        } else {
            DelegateError::Unreachable(error_chain(&e))
        }
    }
}

#[async_trait]
impl Delegate for HttpDelegate {
    async fn submit_and_wait(&self, request: &DelegateRequest<'_>) -> Result<Value, DelegateError> {
        let started = Instant::now();
        let result = match &self.target {
            None => Err(DelegateError::NotConfigured),
            Some(target) => match tokio::time::timeout(self.timeout, self.call(target, request)).await {
                Ok(result) => result,
                Err(_) => Err(DelegateError::Timeout(self.timeout)),
            },
        };
        let took = started.elapsed();
        metrics::counter!(names::DELEGATE_CALLS, "outcome" => if result.is_ok() { "ok" } else { "failed" }).increment(1);
        metrics::histogram!(names::DELEGATE_CALL_SECONDS).record(took.as_secs_f64());
        if let Err(error) = &result {
            tracing::warn!(
                subject_id = request.subject_id,
                session_id = request.session_id,
                task_id = request.task_id,
                retry = request.retry,
                elapsed_ms = took.as_millis() as u64,
                transient = error.is_transient(),
                %error,
                "delegate call failed"
            );
        }
        result
    }
}

/// Up to `limit` bytes of the body, and whether that was all of it.
async fn read_body(response: &mut reqwest::Response, limit: usize) -> Result<(Vec<u8>, bool), reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if bytes.len() + chunk.len() > limit {
            let room = limit - bytes.len();
            bytes.extend_from_slice(&chunk[..room]);
            return Ok((bytes, false));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok((bytes, true))
}

/// A refusal's body: JSON when it is (whole) JSON, else text cut to [`MAX_REFUSED_TEXT`].
fn refused_reply(bytes: &[u8], complete: bool) -> Value {
    if complete {
        if let Ok(json) = serde_json::from_slice::<Value>(bytes) {
            return json;
        }
    }
    Value::String(truncate(&String::from_utf8_lossy(bytes), MAX_REFUSED_TEXT))
}

/// A whole 2xx body against §5: an object with a boolean `success`.
fn check_reply(status: u16, bytes: &[u8]) -> Result<Value, DelegateError> {
    let quote = || truncate(&String::from_utf8_lossy(bytes), QUOTE_BYTES);
    let reply: Value = serde_json::from_slice(bytes)
        .map_err(|e| DelegateError::Malformed(format!("HTTP {status} with a body that is not JSON ({e}): {:?}", quote())))?;
    let Some(object) = reply.as_object() else {
        return Err(DelegateError::Malformed(format!("HTTP {status} with JSON that is {}, not an object: {}", kind(&reply), quote())));
    };
    match object.get("success") {
        Some(Value::Bool(true)) => Ok(reply),
        Some(Value::Bool(false)) => Err(DelegateError::Refused { status, reply }),
        Some(other) => {
            Err(DelegateError::Malformed(format!("HTTP {status} with \"success\" that is {}, not a boolean: {}", kind(other), quote())))
        }
        None => Err(DelegateError::Malformed(format!("HTTP {status} with no \"success\" in the reply: {}", quote()))),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

use agora_support::{error_chain, truncate};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_the_path_with_or_without_a_trailing_slash() {
        for base in ["http://h:1", "http://h:1/", "http://h:1//"] {
            assert_eq!(endpoint(base).unwrap().as_str(), "http://h:1/api/submit-and-wait");
        }
        assert_eq!(endpoint("https://h/delegate/").unwrap().as_str(), "https://h/delegate/api/submit-and-wait");
        assert_eq!(endpoint("https://h/delegate").unwrap().as_str(), "https://h/delegate/api/submit-and-wait");
    }

    #[test]
    fn refuses_urls_that_are_not_http() {
        for bad in ["h:1", "ftp://h/", "not a url", "http://h/?a=1"] {
            let e = endpoint(bad).unwrap_err();
            assert!(e.to_string().contains("DELEGATE_API_URL"), "{e}");
        }
    }
}
