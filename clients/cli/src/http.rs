//! The HTTP client of every command: one base URL, an optional bearer token, JSON in and out,
//! and the errors a call can end in ([`ApiError`]), told apart by who is at fault: the caller
//! (a 4xx: the service refused), the server (a 5xx) or the network (unreachable).
//!
//! Retries only where they cannot do a thing twice: a GET is tried again after a connection
//! error or a 5xx; any other method only after a connection error that happened before the
//! request was sent (nothing reached the server).

use reqwest::{Method, StatusCode, Url};
use serde_json::Value;
use std::time::Duration;

/// How many times a call is tried in all, when it may be retried.
const ATTEMPTS: u32 = 3;
/// The pause before the first retry, doubled before each next one.
const FIRST_PAUSE: Duration = Duration::from_millis(200);
/// Time limit of one call.
const TIMEOUT: Duration = Duration::from_secs(60);

/// How a service answers errors, which says where its message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Voting and the local server's admin routes: `{"error": "..."}`.
    Plain,
    /// Orcade and Xchange: `{"ok": true, "data": ...}` or `{"ok": false, "error": "..."}`.
    Envelope,
}

/// Why a call did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    /// The service answered 4xx: the request was refused.
    #[error("HTTP {status}: {message}")]
    Refused { status: u16, message: String, body: Value },
    /// The service answered 5xx, or something that is not the JSON it promises.
    #[error("HTTP {status}: {message}")]
    Server { status: u16, message: String },
    /// No answer: the server could not be reached, or the connection broke.
    #[error("server unreachable at {url}: {cause}")]
    Unreachable { url: String, cause: String },
    /// The base URL and a path do not make a URL.
    #[error("invalid URL {0:?}: {1}")]
    BadUrl(String, String),
}

impl ApiError {
    /// The HTTP status of a refusal or a server error.
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Refused { status, .. } | ApiError::Server { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// A successful answer: its body as sent, and that body read as JSON.
#[derive(Debug, Clone)]
pub struct Answer {
    pub text: String,
    pub json: Value,
}

impl Answer {
    /// What the answer carries: an envelope's `data`, else the whole body.
    pub fn data(&self, shape: Shape) -> &Value {
        match shape {
            Shape::Envelope => self.json.get("data").unwrap_or(&self.json),
            Shape::Plain => &self.json,
        }
    }
}

/// The API of one Agora deployment, as one caller.
#[derive(Debug, Clone)]
pub struct Api {
    http: reqwest::Client,
    base: Url,
    token: Option<String>,
}

impl Api {
    /// The API at `base` (e.g. `http://127.0.0.1:8080`), calling with `token` if given.
    pub fn new(base: &str, token: Option<String>) -> Result<Api, ApiError> {
        let base = Url::parse(base).map_err(|e| ApiError::BadUrl(base.to_owned(), e.to_string()))?;
        if !matches!(base.scheme(), "http" | "https") || base.cannot_be_a_base() {
            return Err(ApiError::BadUrl(base.to_string(), "must be an http:// or https:// URL".into()));
        }
        let http = reqwest::Client::builder()
            .timeout(TIMEOUT)
            .user_agent(concat!("agora-cli/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ApiError::BadUrl(base.to_string(), e.to_string()))?;
        Ok(Api { http, base, token: token.filter(|t| !t.is_empty()) })
    }

    /// The same API as another caller (the MCP server's HTTP callers): `token` replaces this
    /// one's, `None` calling with none.
    pub fn with_token(&self, token: Option<String>) -> Api {
        Api { http: self.http.clone(), base: self.base.clone(), token: token.filter(|t| !t.is_empty()) }
    }

    /// The bearer token calls carry, if any.
    pub fn token(&self) -> Option<&str> {
        self.token.as_deref()
    }

    /// The URL of the path made of `segments` (each percent-encoded) under the base, with
    /// `query` pairs.
    pub fn url(&self, segments: &[&str], query: &[(&str, &str)]) -> Result<Url, ApiError> {
        let mut url = self.base.clone();
        url.path_segments_mut()
            .map_err(|_| ApiError::BadUrl(self.base.to_string(), "cannot be a base".into()))?
            .pop_if_empty()
            .extend(segments);
        if !query.is_empty() {
            url.query_pairs_mut().extend_pairs(query);
        }
        Ok(url)
    }

    pub async fn get(&self, shape: Shape, segments: &[&str], query: &[(&str, &str)]) -> Result<Answer, ApiError> {
        self.call(Method::GET, shape, self.url(segments, query)?, None).await
    }

    pub async fn post(&self, shape: Shape, segments: &[&str], body: &Value) -> Result<Answer, ApiError> {
        self.call(Method::POST, shape, self.url(segments, &[])?, Some(body)).await
    }

    /// Sends one request (retried where safe) and reads its answer.
    pub async fn call(&self, method: Method, shape: Shape, url: Url, body: Option<&Value>) -> Result<Answer, ApiError> {
        let idempotent = method == Method::GET;
        let mut pause = FIRST_PAUSE;
        let mut attempt = 1;
        loop {
            let result = self.send_once(method.clone(), shape, url.clone(), body).await;
            let retry = match &result {
                Err(Attempt::NotSent(_)) => true,
                Err(Attempt::Failed(ApiError::Unreachable { .. })) | Err(Attempt::Failed(ApiError::Server { .. })) => idempotent,
                _ => false,
            };
            if !retry || attempt >= ATTEMPTS {
                return result.map_err(Attempt::into_error);
            }
            tokio::time::sleep(pause).await;
            pause *= 2;
            attempt += 1;
        }
    }

    async fn send_once(&self, method: Method, shape: Shape, url: Url, body: Option<&Value>) -> Result<Answer, Attempt> {
        let mut request = self.http.request(method, url.clone());
        if let Some(token) = &self.token {
            request = request.bearer_auth(token);
        }
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body.to_string());
        }
        let unreachable = |e: &reqwest::Error| ApiError::Unreachable { url: url.to_string(), cause: cause_of(e) };
        let response = match request.send().await {
            Ok(response) => response,
            // A connection never made: nothing was sent, any request may be tried again.
            Err(e) if e.is_connect() => return Err(Attempt::NotSent(unreachable(&e))),
            Err(e) => return Err(Attempt::Failed(unreachable(&e))),
        };
        let status = response.status();
        let text = response.text().await.map_err(|e| Attempt::Failed(unreachable(&e)))?;
        let json: Option<Value> = serde_json::from_str(&text).ok();
        if status.is_success() {
            return match json {
                Some(json) => Ok(Answer { text, json }),
                None => Err(Attempt::Failed(ApiError::Server {
                    status: status.as_u16(),
                    message: format!("the answer is not JSON: {}", excerpt(&text)),
                })),
            };
        }
        let message = error_message(shape, status, json.as_ref(), &text);
        let error = if status.is_client_error() {
            ApiError::Refused { status: status.as_u16(), message, body: json.unwrap_or(Value::String(text)) }
        } else {
            ApiError::Server { status: status.as_u16(), message }
        };
        Err(Attempt::Failed(error))
    }
}

/// One try's failure: whether the request may have reached the server.
enum Attempt {
    NotSent(ApiError),
    Failed(ApiError),
}

impl Attempt {
    fn into_error(self) -> ApiError {
        match self {
            Attempt::NotSent(e) | Attempt::Failed(e) => e,
        }
    }
}

/// The message of an error answer: the service's `error` (in its shape), else the body's text,
/// else the status's reason.
fn error_message(shape: Shape, status: StatusCode, json: Option<&Value>, text: &str) -> String {
    let from_json = json.and_then(|j| j.get("error")).and_then(Value::as_str).filter(|_| match shape {
        Shape::Plain => true,
        Shape::Envelope => json.and_then(|j| j.get("ok")) != Some(&Value::Bool(true)),
    });
    match from_json {
        Some(message) => message.to_owned(),
        None if !text.trim().is_empty() => excerpt(text),
        None => status.canonical_reason().unwrap_or("error").to_owned(),
    }
}

/// At most 500 characters of `text`.
fn excerpt(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(500) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// A reqwest error with its causes, which say what went wrong (refused, DNS, TLS...).
fn cause_of(error: &reqwest::Error) -> String {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn path_segments_are_encoded_under_the_base_path() {
        let api = Api::new("http://h:1/stage/", None).unwrap();
        assert_eq!(api.url(&["get-status", "a/b c"], &[]).unwrap().as_str(), "http://h:1/stage/get-status/a%2Fb%20c");
        let api = Api::new("http://h:1", None).unwrap();
        assert_eq!(
            api.url(&["bid-jobs", "by-tags"], &[("tags", "a,b"), ("match", "any")]).unwrap().as_str(),
            "http://h:1/bid-jobs/by-tags?tags=a%2Cb&match=any"
        );
    }

    #[test]
    fn a_base_that_is_not_http_is_refused() {
        assert!(matches!(Api::new("ftp://h", None), Err(ApiError::BadUrl(..))));
        assert!(matches!(Api::new("not a url", None), Err(ApiError::BadUrl(..))));
    }

    #[test]
    fn error_messages_come_from_each_shape() {
        let bad = StatusCode::BAD_REQUEST;
        assert_eq!(error_message(Shape::Plain, bad, Some(&json!({"error": "Vote rejected: x"})), ""), "Vote rejected: x");
        assert_eq!(error_message(Shape::Envelope, bad, Some(&json!({"ok": false, "error": "Task not found"})), ""), "Task not found");
        assert_eq!(error_message(Shape::Plain, bad, None, "plain text"), "plain text");
        assert_eq!(error_message(Shape::Plain, StatusCode::NOT_FOUND, None, ""), "Not Found");
    }
}
