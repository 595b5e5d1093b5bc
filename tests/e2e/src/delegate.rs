//! The upstream delegate system (clients.md), played by a real HTTP server on loopback, queues
//! and all: `POST /api/submit-and-wait` with `{"subject_id", "session_id", "task_id",
//! "task_data", "headers"?}` (400 when one of the four named keys is missing or empty) hands the
//! task to a simulated agent, which after a short random delay pushes its output
//! `{"for_task_id": <task_id>, "subject_id": <subject_id>}` onto the queue named by `session_id`;
//! the call then blocks until an output arrives on that queue and answers
//! `{"success": true, "ack": {...}, "output": <what it popped>}`.
//!
//! Two calls in flight with the same `session_id` wait on the same queue, so each may take the
//! other's output: the upstream behaviour that makes a shared session id cross replies. A test
//! reads every call it accepted ([`DelegateServer::calls`]) and checks each stored reply's
//! `output.for_task_id` against the call it answered, and which calls said they repeat an
//! earlier one ([`DelegateServer::retries`]: the `Agora-Retry` header).

use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// The four keys a call must carry, each non-empty.
pub const REQUIRED: [&str; 4] = ["subject_id", "session_id", "task_id", "task_data"];

/// How long a call waits for an output before it answers 504 (far beyond any agent's delay).
const WAIT: Duration = Duration::from_secs(20);

/// One queue named by a `session_id`: agents push onto it, calls pop from it in turn.
struct SessionQueue {
    push: mpsc::UnboundedSender<Value>,
    pop: tokio::sync::Mutex<mpsc::UnboundedReceiver<Value>>,
}

#[derive(Default)]
struct State {
    calls: Mutex<Vec<Value>>,
    /// The `Agora-Retry` header of each accepted call (`None`: absent), in `calls`' order.
    retries: Mutex<Vec<Option<String>>>,
    refused: Mutex<Vec<Value>>,
    queues: Mutex<HashMap<String, Arc<SessionQueue>>>,
}

impl State {
    fn queue(&self, session: &str) -> Arc<SessionQueue> {
        let mut queues = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        queues
            .entry(session.to_owned())
            .or_insert_with(|| {
                let (push, pop) = mpsc::unbounded_channel();
                Arc::new(SessionQueue { push, pop: tokio::sync::Mutex::new(pop) })
            })
            .clone()
    }
}

/// A delegate system on loopback; stops when dropped.
pub struct DelegateServer {
    /// `http://127.0.0.1:<port>`: the value of `DELEGATE_API_URL`.
    pub url: String,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for DelegateServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Empty as the upstream check reads it: missing, `null`, `""`, `[]` or `{}`.
fn empty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(Value::Object(o)) => o.is_empty(),
        Some(_) => false,
    }
}

/// A queue name from a `session_id` (its text, or its JSON when it is not a string).
fn name_of(v: &Value) -> String {
    v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())
}

impl DelegateServer {
    /// Starts the server; each simulated agent answers after 0 to `max_delay`.
    pub async fn start(max_delay: Duration) -> DelegateServer {
        use axum::{body::Bytes, http::HeaderMap, http::StatusCode, routing::post, Json, Router};
        let state = Arc::new(State::default());
        let shared = state.clone();
        let max_ms = max_delay.as_millis();
        let app = Router::new().route(
            "/api/submit-and-wait",
            post(move |headers: HeaderMap, body: Bytes| {
                let state = shared.clone();
                let retry = headers.get(agora_ports::RETRY_HEADER).map(|v| v.to_str().unwrap_or_default().to_owned());
                async move {
                    let call: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                    let missing: Vec<&str> = REQUIRED.into_iter().filter(|k| empty(call.get(*k))).collect();
                    if !call.is_object() || !missing.is_empty() {
                        state.refused.lock().unwrap_or_else(|p| p.into_inner()).push(call);
                        let error = format!("Missing required fields: {}", missing.join(", "));
                        return (StatusCode::BAD_REQUEST, Json(json!({"success": false, "error": error})));
                    }
                    {
                        // Both under one lock's order: the calls' lock is taken first, always.
                        let mut calls = state.calls.lock().unwrap_or_else(|p| p.into_inner());
                        calls.push(call.clone());
                        state.retries.lock().unwrap_or_else(|p| p.into_inner()).push(retry);
                    }
                    let queue = state.queue(&name_of(&call["session_id"]));
                    // The agent: works a little, then pushes its output onto the session's queue.
                    let output = json!({"for_task_id": call["task_id"], "subject_id": call["subject_id"]});
                    let (push, delay) = (queue.push.clone(), uuid::Uuid::new_v4().as_u128() % (max_ms + 1));
                    tokio::spawn(async move {
                        tokio::time::sleep(Duration::from_millis(u64::try_from(delay).unwrap_or(0))).await;
                        let _ = push.send(output);
                    });
                    // The call: blocks until an output arrives on the queue named by session_id.
                    let popped = {
                        let mut pop = queue.pop.lock().await;
                        tokio::time::timeout(WAIT, pop.recv()).await.ok().flatten()
                    };
                    let ack = json!({"subject_id": call["subject_id"], "session_id": call["session_id"], "task_id": call["task_id"]});
                    match popped {
                        Some(output) => (StatusCode::OK, Json(json!({"success": true, "ack": ack, "output": output}))),
                        None => (StatusCode::GATEWAY_TIMEOUT, Json(json!({"success": false, "error": "no output on the session's queue"}))),
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind delegate server");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        DelegateServer { url, state, task }
    }

    /// The bodies of the calls it accepted, in arrival order.
    pub fn calls(&self) -> Vec<Value> {
        self.state.calls.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The `Agora-Retry` header of each accepted call (`None` when it had none), in the order
    /// of [`DelegateServer::calls`].
    pub fn retries(&self) -> Vec<Option<String>> {
        let _calls = self.state.calls.lock().unwrap_or_else(|p| p.into_inner());
        self.state.retries.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The bodies of the calls it refused with 400.
    pub fn refused(&self) -> Vec<Value> {
        self.state.refused.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The `session_id` of each accepted call, with the calls that shared it: empty when every
    /// call had a session of its own.
    pub fn shared_sessions(&self) -> Vec<(String, Vec<Value>)> {
        let mut by_session: std::collections::BTreeMap<String, Vec<Value>> = std::collections::BTreeMap::new();
        for call in self.calls() {
            by_session.entry(name_of(&call["session_id"])).or_default().push(call);
        }
        by_session.into_iter().filter(|(_, calls)| calls.len() > 1).collect()
    }
}
