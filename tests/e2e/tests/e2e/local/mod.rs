//! The local server's own operations: its health, its dead letters (listed and put back), its
//! JSON errors on its own routes, and its recovery from a `kill -9` without waiting out the
//! leases the killed run held.

mod dead_letters;
mod recovery;
mod routes;

use axum::body::Bytes;
use axum::http::StatusCode;
use serde_json::Value;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A JSON server (a hook, a delegate system) on loopback whose first call is held for `hold`
/// before its answer (the local server is killed meanwhile) and every later one answered at once,
/// each with `reply(body)`. Keeps the bodies of the calls.
pub struct HeldOnce {
    /// `http://127.0.0.1:<port>/` (any path is served).
    pub url: String,
    calls: Arc<Mutex<Vec<Value>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for HeldOnce {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl HeldOnce {
    pub async fn start(hold: Duration, reply: impl Fn(&Value) -> Value + Send + Sync + 'static) -> HeldOnce {
        let calls = Arc::new(Mutex::new(Vec::new()));
        let (seen, reply) = (calls.clone(), Arc::new(reply));
        let app = axum::Router::new().fallback(move |body: Bytes| {
            let (seen, reply) = (seen.clone(), reply.clone());
            async move {
                let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                let first = {
                    let mut calls = seen.lock().unwrap();
                    calls.push(body.clone());
                    calls.len() == 1
                };
                if first {
                    tokio::time::sleep(hold).await;
                }
                (StatusCode::OK, [("content-type", "application/json")], reply(&body).to_string())
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/", listener.local_addr().expect("addr"));
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        HeldOnce { url, calls, task }
    }

    /// The bodies of the calls received so far.
    pub fn calls(&self) -> Vec<Value> {
        self.calls.lock().unwrap().clone()
    }
}
