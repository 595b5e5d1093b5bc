//! Start-up time of Lambda function binaries to their first handled event, through a Lambda
//! Runtime API emulator (the `/2018-06-01/runtime/invocation/*` endpoints the real runtime
//! serves): spawn the binary, hand it one event, stop the clock when its response arrives. Each
//! functions crate's `startup` bench names its binaries and events and calls [`run`], which
//! prints the median of several runs per function (target: under 30 ms locally).
//!
//! Environment: `STARTUP_RUNS` (default 9), `STARTUP_STORE=embedded|mongodb` (default
//! `embedded`), `STARTUP_BIN_DIR`: measure the binaries `cargo lambda build` wrote,
//! `<dir>/<function>/bootstrap`, instead of the ones the bench was built with (those are built
//! without the embedded store: measure them with `STARTUP_STORE=mongodb`).

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, Mutex};

/// The emulator's state: the next event to hand out, and where responses go.
#[derive(Clone)]
struct Emulator {
    event: Arc<Mutex<Option<Value>>>,
    done: mpsc::UnboundedSender<Value>,
}

async fn next(State(e): State<Emulator>) -> (HeaderMap, Json<Value>) {
    loop {
        if let Some(event) = e.event.lock().await.take() {
            let mut h = HeaderMap::new();
            h.insert("lambda-runtime-aws-request-id", "req-1".parse().expect("header"));
            h.insert("lambda-runtime-deadline-ms", (chrono_ms() + 30_000).to_string().parse().expect("header"));
            h.insert(
                "lambda-runtime-invoked-function-arn",
                "arn:aws:lambda:us-east-1:123456789012:function:bench".parse().expect("header"),
            );
            h.insert("lambda-runtime-trace-id", "Root=1-00000000-000000000000000000000000".parse().expect("header"));
            return (h, Json(event));
        }
        // Later polls wait until the process is stopped.
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
}

fn chrono_ms() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0)
}

async fn response(State(e): State<Emulator>, Path(_id): Path<String>, body: String) -> Json<Value> {
    let _ = e.done.send(serde_json::from_str(&body).unwrap_or(Value::String(body)));
    Json(json!({"status": "OK"}))
}

async fn error(State(e): State<Emulator>, body: String) -> Json<Value> {
    let _ = e.done.send(json!({"runtime_error": body}));
    Json(json!({"status": "OK"}))
}

/// An API Gateway HTTP API (payload 2.0) event; a `?query` on `path` becomes its
/// `rawQueryString`. (The functions' in-process tests build their events with it too.)
pub fn apigw(method: &str, path: &str, body: Option<&str>) -> Value {
    let (path, query) = path.split_once('?').unwrap_or((path, ""));
    json!({
        "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": query,
        "headers": {"content-type": "application/json"},
        "requestContext": {"accountId": "123456789012", "apiId": "api", "domainName": "api.example.com", "domainPrefix": "api",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1", "userAgent": "bench"},
            "requestId": "req", "routeKey": "$default", "stage": "$default", "time": "03/Dec/2026:10:00:00 +0000", "timeEpoch": 0},
        "body": body, "isBase64Encoded": false
    })
}

/// One function to measure: its name, the binary the bench was built with, and its event.
pub struct Function {
    pub name: &'static str,
    pub binary: &'static str,
    pub event: Value,
}

async fn one_run(binary: &str, event: &Value, store: &str, dir: &std::path::Path) -> (Duration, Value) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    let emulator = Emulator { event: Arc::new(Mutex::new(Some(event.clone()))), done: tx };
    let app = Router::new()
        .route("/2018-06-01/runtime/invocation/next", get(next))
        .route("/2018-06-01/runtime/invocation/{id}/response", post(response))
        .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
        .route("/2018-06-01/runtime/init/error", post(error))
        .with_state(emulator);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let started = Instant::now();
    let mut child = tokio::process::Command::new(binary)
        .env("AWS_LAMBDA_RUNTIME_API", addr.to_string())
        .env("AWS_LAMBDA_FUNCTION_NAME", "bench")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
        .env("AWS_LAMBDA_LOG_GROUP_NAME", "bench")
        .env("AWS_LAMBDA_LOG_STREAM_NAME", "bench")
        .env("AGORA_STORE", store)
        .env("AGORA_EMBEDDED_DIR", dir)
        .env("AGORA_PUBLISHER", "log")
        .env("AGORA_EVALUATION_QUEUE_URL", "http://127.0.0.1:9/queue/evaluations")
        .env("AGORA_LIVE_QUEUE_URL", "http://127.0.0.1:9/queue/live")
        .env("AGORA_DELIVERY_QUEUE_URL", "http://127.0.0.1:9/queue/deliveries")
        .env("AGORA_ASSIGNMENT_QUEUE_URL", "http://127.0.0.1:9/queue/assignments")
        .env("AGORA_LIVE_ENDPOINT", "http://127.0.0.1:9/live")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "bench")
        .env("AWS_SECRET_ACCESS_KEY", "bench")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn function");
    let answer = tokio::time::timeout(Duration::from_secs(20), rx.recv()).await.ok().flatten().unwrap_or(json!("no answer"));
    let took = started.elapsed();
    let _ = child.kill().await;
    server.abort();
    (took, answer)
}

/// Measures each function (the binary in `STARTUP_BIN_DIR` when set) and prints the figures.
pub fn run(functions: Vec<Function>) {
    let runs: usize = std::env::var("STARTUP_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(9);
    let store = std::env::var("STARTUP_STORE").unwrap_or_else(|_| "embedded".into());
    let dir = std::env::temp_dir().join(format!("agora-startup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    println!("start-up to first handled event, through a Runtime API emulator ({store} store, median of {runs} runs; target < 30 ms)");
    rt.block_on(async {
        let dir_override = std::env::var("STARTUP_BIN_DIR").ok();
        for Function { name, binary, event } in functions {
            let binary = dir_override.as_ref().map_or_else(|| binary.to_owned(), |d| format!("{d}/{name}/bootstrap"));
            let mut times = Vec::with_capacity(runs);
            let mut last = Value::Null;
            for _ in 0..runs {
                let (t, answer) = one_run(&binary, &event, &store, &dir).await;
                times.push(t);
                last = answer;
            }
            times.sort();
            let median = times[times.len() / 2];
            let status = last.get("statusCode").map(|s| format!("HTTP {s}")).unwrap_or_else(|| last.to_string().chars().take(60).collect());
            println!(
                "  {name:<22} {:>7.1} ms   (min {:.1} ms, max {:.1} ms; answered {status})",
                ms(median),
                ms(times[0]),
                ms(times[times.len() - 1])
            );
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
