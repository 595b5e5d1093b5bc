//! What the end-to-end tests and the benchmark share: a local server on a free port with its
//! own data folder, an HTTP client, the spec's example task as a create request, and small
//! HTTP servers that play hooks. Every answer of [`Server`]'s requests is checked against the
//! committed OpenAPI document ([`openapi`]).

pub mod crash;
pub mod delegate;
pub mod fromisoformat;
pub mod keys;
pub mod lambda;
pub mod load;
pub mod openapi;
pub mod template;

use agora_local::{start, Config, Running};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A local server for one test, with its data folder removed afterwards.
pub struct Server {
    pub base: String,
    pub http: reqwest::Client,
    pub running: Running,
    dir: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.running.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A fresh, empty data folder under the system temp folder.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("agora-{tag}-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

impl Server {
    pub async fn start() -> Server {
        Self::start_with(|_| {}).await
    }

    pub async fn start_with(adjust: impl FnOnce(&mut Config)) -> Server {
        let dir = temp_dir("e2e");
        let mut config = Config::ephemeral(dir.clone());
        // The same suite runs on every store: AGORA_E2E_STORE=mongodb|dynamodb picks one, each
        // server with a database (or table) of its own.
        if let Some(kind) = std::env::var("AGORA_E2E_STORE").ok().filter(|k| !k.is_empty()) {
            config.store = kind.parse().expect("AGORA_E2E_STORE is embedded, mongodb or dynamodb");
            config.store_namespace = Some(format!("e2e_{}", uuid::Uuid::new_v4().simple()));
        }
        adjust(&mut config);
        let running = start(&config).await.expect("local server starts");
        let base = format!("http://{}", running.addr);
        Server { base, http: reqwest::Client::new(), running, dir }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// POSTs a JSON value; returns the status and the JSON body (`null` when not JSON).
    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.post_raw(path, body.to_string()).await
    }

    /// POSTs raw bytes as the body.
    pub async fn post_raw(&self, path: &str, body: impl Into<reqwest::Body>) -> (u16, Value) {
        let r = self.http.post(self.url(path)).header("content-type", "application/json").body(body).send().await.expect("request");
        documented("POST", path, r).await
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.http.get(self.url(path)).send().await.expect("request");
        documented("GET", path, r).await
    }

    /// Sends `method` with an optional JSON body; returns the status and the JSON body (`null`
    /// when not JSON).
    pub async fn send(&self, method: reqwest::Method, path: &str, body: Option<&Value>) -> (u16, Value) {
        let mut request = self.http.request(method.clone(), self.url(path));
        if let Some(body) = body {
            request = request.header("content-type", "application/json").body(body.to_string());
        }
        let r = request.send().await.expect("request");
        documented(method.as_str(), path, r).await
    }

    pub async fn status_of(&self, id: &str) -> Option<String> {
        self.get(&format!("/get-status/{id}")).await.1["status"].as_str().map(str::to_owned)
    }

    /// Polls the task's status until it is `want`; panics after `timeout`.
    pub async fn wait_for_status(&self, id: &str, want: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        loop {
            let now = self.status_of(id).await;
            if now.as_deref() == Some(want) {
                return;
            }
            assert!(Instant::now() < deadline, "task {id} is {now:?}, not {want}, after {timeout:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    pub async fn inbox(&self, subject: &str) -> Vec<Value> {
        let (status, body) = self.get(&format!("/local/inbox/{subject}")).await;
        assert_eq!(status, 200);
        body.as_array().cloned().unwrap_or_default()
    }

    /// Creates a task and returns its id.
    pub async fn create(&self, request: &Value) -> String {
        let (status, body) = self.post("/submit-social-choice-task", request).await;
        assert_eq!(status, 201, "create: {body}");
        body["social_task_id"].as_str().expect("social_task_id").to_owned()
    }

    /// Submits a vote; returns the status and the body.
    pub async fn vote(&self, task: &str, subject: &str, vote_data: Value) -> (u16, Value) {
        self.post("/submit-vote", &vote_body(task, subject, vote_data)).await
    }
}

/// The status and JSON body (`null` when not JSON) of the answer `r` to `method` on `path`,
/// checked against the committed OpenAPI document ([`openapi::assert_documented`]).
pub async fn documented(method: &str, path: &str, r: reqwest::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    let body = r.json().await.unwrap_or(Value::Null);
    openapi::assert_documented(method, path, status, &body);
    (status, body)
}

/// A vote request with all six keys.
pub fn vote_body(task: &str, subject: &str, vote_data: Value) -> Value {
    json!({
        "vote_id": uuid::Uuid::new_v4().to_string(),
        "social_task_id": task,
        "submitter_subject_id": subject,
        "vote_data": vote_data,
        "submission_time": "2026-10-22T10:03:12.481203",
        "qualified": true,
    })
}

pub const REVIEWERS: [&str; 3] = ["agent-reviewer-01", "agent-reviewer-02", "agent-reviewer-03"];
pub const TRANSLATORS: [&str; 3] = ["agent-translator-01", "agent-translator-02", "agent-translator-03"];

/// The spec's example task (§2.1–2.3) as a create request (`examples/private-task.json`, the
/// README's walk-through), with builtin hooks: the PQT `option-on-ballot`, `plurality`, the
/// `earliest-vote` tie-breaker and `assign-first-winner`. Private, due now.
pub fn example_request() -> Value {
    let mut request: Value = serde_json::from_str(include_str!("../../../examples/private-task.json")).expect("the example is JSON");
    request["social_task"]["scheduled_time"] = json!("2020-01-01T00:00:00Z");
    request
}

/// A public variant of the example: anyone votes, `duration` qualified votes trigger.
pub fn public_request(duration: i64) -> Value {
    let mut r = example_request();
    r["social_task"]["access_type"] = json!("public");
    r["social_task"]["org_ids"] = json!([]);
    r["social_task"]["duration"] = json!(duration);
    r
}

/// A hook played by a real HTTP server on loopback: answers every POST with `reply` and
/// counts the calls.
pub struct HookServer {
    pub url: String,
    pub calls: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for HookServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl HookServer {
    /// `reply(input)` gives the status and body for each call; `delay` is waited first.
    pub async fn start(delay: Duration, reply: impl Fn(&Value) -> (u16, String) + Send + Sync + 'static) -> HookServer {
        use axum::{body::Bytes, http::StatusCode, routing::post, Router};
        let calls = Arc::new(AtomicUsize::new(0));
        let counter = calls.clone();
        let reply = Arc::new(reply);
        let app = Router::new().route(
            "/",
            post(move |body: Bytes| {
                let (counter, reply) = (counter.clone(), reply.clone());
                async move {
                    counter.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(delay).await;
                    let input: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let (status, body) = reply(&input);
                    (StatusCode::from_u16(status).expect("status"), [("content-type", "application/json")], body)
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind hook server");
        let url = format!("http://{}/", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        HookServer { url, calls, task }
    }

    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

/// The repository's root folder (for `infra/local`, the shipped functions and workflows).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("repository root")
}

/// One request received by a [`StubServer`].
#[derive(Debug, Clone)]
pub struct StubRequest {
    pub method: String,
    /// The path as sent (still percent-encoded).
    pub path: String,
    /// Header names in lower case.
    pub headers: std::collections::HashMap<String, String>,
    pub body: Vec<u8>,
    /// The body as JSON (`null` when it is not JSON).
    pub json: Value,
}

/// A real HTTP server on loopback that answers every request, whatever its method and path,
/// with `reply(request)`, and keeps the requests: plays registries, workflow APIs, external
/// functions and Lambda endpoints in tests.
pub struct StubServer {
    /// `http://127.0.0.1:<port>` (no trailing slash).
    pub url: String,
    pub requests: Arc<std::sync::Mutex<Vec<StubRequest>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for StubServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl StubServer {
    /// `reply(request)` gives the status, extra headers and body; `delay` is waited first.
    pub async fn start(
        delay: Duration,
        reply: impl Fn(&StubRequest) -> (u16, Vec<(String, String)>, Vec<u8>) + Send + Sync + 'static,
    ) -> StubServer {
        use axum::{body::Bytes, http::HeaderMap, http::Method, http::StatusCode, http::Uri, response::IntoResponse, Router};
        let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = requests.clone();
        let reply = Arc::new(reply);
        let app = Router::new().fallback(move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let (seen, reply) = (seen.clone(), reply.clone());
            async move {
                let request = StubRequest {
                    method: method.to_string(),
                    path: uri.path().to_owned(),
                    headers: headers.iter().map(|(k, v)| (k.as_str().to_owned(), v.to_str().unwrap_or_default().to_owned())).collect(),
                    json: serde_json::from_slice(&body).unwrap_or(Value::Null),
                    body: body.to_vec(),
                };
                seen.lock().unwrap_or_else(|p| p.into_inner()).push(request.clone());
                if !delay.is_zero() {
                    // (A zero sleep still waits for the next timer tick, about 1 ms.)
                    tokio::time::sleep(delay).await;
                }
                let (status, extra, body) = reply(&request);
                let mut response = (StatusCode::from_u16(status).expect("status"), body).into_response();
                let h = response.headers_mut();
                h.insert("content-type", "application/json".parse().expect("header"));
                for (k, v) in extra {
                    if let (Ok(k), Ok(v)) = (axum::http::HeaderName::try_from(k), axum::http::HeaderValue::try_from(v)) {
                        h.insert(k, v);
                    }
                }
                response
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind stub server");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        StubServer { url, requests, task }
    }

    /// A JSON server: `reply(request)` gives the status and body.
    pub async fn json(reply: impl Fn(&StubRequest) -> (u16, Value) + Send + Sync + 'static) -> StubServer {
        Self::start(Duration::ZERO, move |r| {
            let (status, body) = reply(r);
            (status, Vec::new(), body.to_string().into_bytes())
        })
        .await
    }

    /// The requests received so far whose path starts with `prefix`.
    pub fn received(&self, prefix: &str) -> Vec<StubRequest> {
        self.requests.lock().unwrap_or_else(|p| p.into_inner()).iter().filter(|r| r.path.starts_with(prefix)).cloned().collect()
    }
}

/// The local server as a child process (the `agora-e2e-local` program, which is `agora-local`),
/// for tests that `kill -9` it and start it again on the same data, and benches that measure its
/// memory. Killed when dropped.
pub struct ServerProcess {
    pub base: String,
    pub http: reqwest::Client,
    child: std::process::Child,
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl ServerProcess {
    /// Starts the server `program` (tests and benches pass `env!("CARGO_BIN_EXE_agora-e2e-local")`)
    /// on a free port with `args` (e.g. `--data-dir`), `envs` added to this process's
    /// environment, and waits until it listens.
    pub fn start(program: &str, args: &[String], envs: &[(String, String)]) -> ServerProcess {
        Self::start_logging_to(program, args, envs, std::process::Stdio::inherit())
    }

    /// [`start`](ServerProcess::start) with the server's logs (its stderr) written to `logs`
    /// (`envs` may set `RUST_LOG` and `AGORA_LOG_FORMAT`).
    pub fn start_logging_to(
        program: &str,
        args: &[String],
        envs: &[(String, String)],
        logs: impl Into<std::process::Stdio>,
    ) -> ServerProcess {
        use std::io::BufRead;
        let mut command = std::process::Command::new(program);
        command
            .args(["--port", "0"])
            .args(args)
            .env("RUST_LOG", std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into()))
            .envs(envs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdout(std::process::Stdio::piped())
            .stderr(logs);
        let mut child = command.spawn().expect("the local server starts");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        std::io::BufReader::new(stdout).read_line(&mut line).expect("the local server says where it listens");
        let base = line.trim().rsplit(' ').next().filter(|u| u.starts_with("http://")).map(str::to_owned);
        let Some(base) = base else {
            let _ = child.kill();
            panic!("the local server did not start: {line:?}");
        };
        ServerProcess { base, http: reqwest::Client::new(), child }
    }

    /// The process id (to read its memory).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `kill -9`: the process ends at once, mid-work.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// POSTs a JSON value; returns the status and the JSON body (`null` when not JSON); `None`
    /// when the request got no answer (the server died).
    pub async fn try_post(&self, path: &str, body: &Value) -> Option<(u16, Value)> {
        let r = self.http.post(self.url(path)).header("content-type", "application/json").body(body.to_string()).send().await.ok()?;
        Some(documented("POST", path, r).await)
    }

    pub async fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.try_post(path, body).await.expect("the server answers")
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.http.get(self.url(path)).send().await.expect("request");
        documented("GET", path, r).await
    }
}

/// Polls `probe` until it gives `Some`; panics with `what` after `timeout`.
pub async fn wait_until<T, F: std::future::Future<Output = Option<T>>>(what: &str, timeout: Duration, mut probe: impl FnMut() -> F) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(found) = probe().await {
            return found;
        }
        assert!(Instant::now() < deadline, "{what}: not within {timeout:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
