//! The Lambda functions' cold path: each binary run through a Lambda Runtime API emulator (the
//! `/2018-06-01/runtime/invocation/*` endpoints the real runtime serves), timed in two parts:
//!
//! - **init**: from the spawn to the runtime's first `GET /invocation/next`, which the Lambda
//!   runtime sends once `main` has built its handler (its clients built and warmed,
//!   `agora_aws::warm`);
//! - **first request**: from the event handed over to its response.
//!
//! and, through a proxy the bench puts in front of the store and of the AWS endpoint (TCP for
//! MongoDB; HTTP for moto, keeping the function's connections alive as AWS does, where moto
//! closes each after one response), the connections the process opened to each during init and
//! during the first request. The first
//! request after init must open none: init has paid for them ("the cold path", issue 26). Each
//! functions crate's `startup` bench names its binaries and events and calls [`run`], which
//! prints the medians of several runs per function.
//!
//! Environment:
//!
//! | Variable | Meaning | Default |
//! |---|---|---|
//! | `STARTUP_RUNS` | runs per function | 9 |
//! | `STARTUP_STORE` | `embedded`, `mongodb` (the MongoDB-protocol server) or `dynamodb` (moto's) | `embedded` |
//! | `STARTUP_MONGODB_ADDR` | the MongoDB-protocol server, `host:port` | `127.0.0.1:27117` |
//! | `STARTUP_MOTO_ADDR` | moto (SQS, EventBridge, Scheduler, DynamoDB), `host:port`; when it does not answer, the AWS clients point at a closed port and their warm-up fails fast, as it would without permissions | `127.0.0.1:5055` |
//! | `STARTUP_LOGS`, `STARTUP_RUST_LOG` | set: the functions' logs go to the bench's stderr, at this level | off, `warn` |
//! | `STARTUP_BIN_DIR` | measure the binaries `cargo lambda build` wrote, `<dir>/<function>/bootstrap`, instead of the ones the bench was built with (those are built without the embedded store: measure them with `STARTUP_STORE=mongodb` or `dynamodb`) | |
//!
//! On moto the bench makes the queues, the event bus and the schedule group the functions are
//! given (named `agora-startup-*`), so that every warm-up call reaches a real resource.

use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, Mutex};

/// The target of the first request after init, locally: it pays no set-up, only its work.
pub const FIRST_REQUEST_TARGET_MS: f64 = 30.0;

/// The phases of a run, as the proxies count connections.
const INIT: usize = 0;
const FIRST: usize = 1;
const AFTER: usize = 2;

/// Connections accepted per phase.
#[derive(Default)]
struct Counts([AtomicUsize; 3]);

impl Counts {
    fn get(&self, phase: usize) -> usize {
        self.0[phase].load(Ordering::SeqCst)
    }
}

/// A proxy in front of a server that counts the connections it accepts in each phase: TCP for
/// the MongoDB-protocol server ([`Proxy::tcp`]), HTTP for moto ([`Proxy::http`]).
struct Proxy {
    addr: SocketAddr,
    counts: Arc<Counts>,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Bytes both ways, one upstream connection per connection accepted.
    async fn tcp(upstream: String, phase: Arc<AtomicUsize>) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let counts = Arc::new(Counts::default());
        let counted = counts.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                counted.0[phase.load(Ordering::SeqCst).min(AFTER)].fetch_add(1, Ordering::SeqCst);
                let upstream = upstream.clone();
                tokio::spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(&upstream).await {
                        let _ = (inbound.set_nodelay(true), outbound.set_nodelay(true));
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        Proxy { addr, counts, task }
    }

    /// Each request sent on to `upstream`, the function's connections kept alive as AWS keeps
    /// them: moto's server closes its connection after every response (`Connection: close`),
    /// which would make every call of a function open a connection whatever init did.
    async fn http(upstream: String, phase: Arc<AtomicUsize>) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind proxy");
        let addr = listener.local_addr().expect("proxy addr");
        let counts = Arc::new(Counts::default());
        let client = reqwest::Client::builder().no_proxy().pool_max_idle_per_host(0).build().expect("http client");
        let app = Router::new().fallback(forward).with_state(Forward { upstream, client });
        let listener = Counting { listener, phase, counts: counts.clone() };
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Proxy { addr, counts, task }
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A listener that counts the connections it accepts, by phase.
struct Counting {
    listener: TcpListener,
    phase: Arc<AtomicUsize>,
    counts: Arc<Counts>,
}

impl axum::serve::Listener for Counting {
    type Io = TcpStream;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (TcpStream, SocketAddr) {
        loop {
            if let Ok((stream, addr)) = self.listener.accept().await {
                self.counts.0[self.phase.load(Ordering::SeqCst).min(AFTER)].fetch_add(1, Ordering::SeqCst);
                let _ = stream.set_nodelay(true);
                return (stream, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

#[derive(Clone)]
struct Forward {
    upstream: String,
    client: reqwest::Client,
}

/// Headers that belong to one connection, not to the request.
fn hop_by_hop(name: &axum::http::HeaderName) -> bool {
    matches!(name.as_str(), "connection" | "keep-alive" | "transfer-encoding" | "te" | "upgrade" | "content-length")
}

async fn forward(State(f): State<Forward>, request: axum::extract::Request) -> axum::response::Response {
    use axum::response::IntoResponse;
    let (parts, body) = request.into_parts();
    let body = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    let url = format!("http://{}{}", f.upstream, parts.uri.path_and_query().map_or("/", |p| p.as_str()));
    let mut out = f.client.request(parts.method, url).body(body);
    for (name, value) in parts.headers.iter().filter(|(name, _)| !hop_by_hop(name)) {
        out = out.header(name, value);
    }
    match out.send().await {
        Ok(answer) => {
            let (status, headers) = (answer.status(), answer.headers().clone());
            let mut response = axum::response::Response::new(axum::body::Body::from(answer.bytes().await.unwrap_or_default()));
            *response.status_mut() = status;
            for (name, value) in headers.iter().filter(|(name, _)| !hop_by_hop(name)) {
                response.headers_mut().append(name, value.clone());
            }
            response
        }
        Err(e) => (axum::http::StatusCode::BAD_GATEWAY, e.to_string()).into_response(),
    }
}

/// The emulator's state: the event to hand out, the run's phase, and where responses go.
#[derive(Clone)]
struct Emulator {
    event: Arc<Mutex<Option<Value>>>,
    phase: Arc<AtomicUsize>,
    /// When the first `next` came (the end of init).
    polled: mpsc::UnboundedSender<Instant>,
    done: mpsc::UnboundedSender<Value>,
}

async fn next(State(e): State<Emulator>) -> (HeaderMap, Json<Value>) {
    loop {
        if let Some(event) = e.event.lock().await.take() {
            e.phase.store(FIRST, Ordering::SeqCst);
            let _ = e.polled.send(Instant::now());
            let mut h = HeaderMap::new();
            h.insert("lambda-runtime-aws-request-id", "req-1".parse().expect("header"));
            h.insert("lambda-runtime-deadline-ms", (epoch_ms() + 30_000).to_string().parse().expect("header"));
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

fn epoch_ms() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis()).unwrap_or(0)
}

async fn response(State(e): State<Emulator>, Path(_id): Path<String>, body: String) -> Json<Value> {
    e.phase.store(AFTER, Ordering::SeqCst);
    let _ = e.done.send(serde_json::from_str(&body).unwrap_or(Value::String(body)));
    Json(json!({"status": "OK"}))
}

async fn error(State(e): State<Emulator>, body: String) -> Json<Value> {
    e.phase.store(AFTER, Ordering::SeqCst);
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

/// An SQS event of one record whose body is `body`.
pub fn sqs(body: &Value) -> Value {
    json!({"Records": [{"messageId": "m-1", "receiptHandle": "r-1", "body": body.to_string(), "attributes": {},
        "messageAttributes": {}, "md5OfBody": "", "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:bench", "awsRegion": "us-east-1"}]})
}

/// One function to measure: its name, the binary the bench was built with, and its event.
pub struct Function {
    pub name: &'static str,
    pub binary: &'static str,
    pub event: Value,
}

/// One run's figures.
struct Run {
    init: Option<Duration>,
    first: Option<Duration>,
    answer: Value,
    /// Connections to the store and to AWS: during init, during the first request.
    store: [usize; 2],
    aws: [usize; 2],
}

/// Where the functions' servers are, and the AWS resources on moto.
struct Setup {
    store: String,
    /// The upstream of the store proxy (`None`: the embedded store, no server).
    store_upstream: Option<String>,
    /// moto, when it answers.
    moto: Option<String>,
    /// Environment the functions get whatever the run.
    env: Vec<(String, String)>,
}

/// The queues the functions send to, by variable.
const QUEUES: [(&str, &str); 8] = [
    ("AGORA_EVALUATION_QUEUE_URL", "evaluations"),
    ("AGORA_LIVE_QUEUE_URL", "live"),
    ("AGORA_DELIVERY_QUEUE_URL", "deliveries"),
    ("AGORA_ASSIGNMENT_QUEUE_URL", "assignments"),
    ("AGORA_START_TIMER_QUEUE_URL", "start-timers"),
    ("AGORA_CLOSE_TIMER_QUEUE_URL", "close-timers"),
    ("AGORA_DEADLINE_TIMER_QUEUE_URL", "deadline-timers"),
    ("AGORA_RESOLUTION_QUEUE_URL", "resolutions"),
];
const BUS: &str = "agora-startup";
const GROUP: &str = "agora-startup";

impl Setup {
    async fn new(store: &str) -> Setup {
        let moto_addr = std::env::var("STARTUP_MOTO_ADDR").unwrap_or_else(|_| "127.0.0.1:5055".into());
        let mongo_addr = std::env::var("STARTUP_MONGODB_ADDR").unwrap_or_else(|_| "127.0.0.1:27117".into());
        let moto = match tokio::time::timeout(Duration::from_secs(2), TcpStream::connect(&moto_addr)).await {
            Ok(Ok(_)) => Some(moto_addr),
            _ => None,
        };
        let store_upstream = match store {
            "embedded" => None,
            "mongodb" => Some(mongo_addr),
            "dynamodb" => Some(moto.clone().expect("STARTUP_STORE=dynamodb needs moto at STARTUP_MOTO_ADDR (default 127.0.0.1:5055)")),
            other => panic!("STARTUP_STORE must be embedded, mongodb or dynamodb, not {other:?}"),
        };
        let mut env = vec![];
        match &moto {
            Some(addr) => {
                let sdk = agora_aws_config::load(Some(&format!("http://{addr}")), Some("us-east-1")).await;
                let sqs = aws_sdk_sqs::Client::new(&sdk);
                for (var, name) in QUEUES {
                    let out = sqs.create_queue().queue_name(format!("agora-startup-{name}")).send().await.expect("queue on moto");
                    env.push((var.to_owned(), out.queue_url.expect("queue url")));
                }
                let bus = aws_sdk_eventbridge::Client::new(&sdk).create_event_bus().name(BUS).send().await;
                if let Err(e) = bus {
                    assert!(format!("{e:?}").contains("AlreadyExists"), "event bus on moto: {e:?}");
                }
                let group = aws_sdk_scheduler::Client::new(&sdk).create_schedule_group().name(GROUP).send().await;
                if let Err(e) = group {
                    assert!(format!("{e:?}").contains("Conflict"), "schedule group on moto: {e:?}");
                }
                env.push(("AGORA_PUBLISHER".into(), "eventbridge".into()));
            }
            None => {
                println!(
                    "  (moto does not answer: the AWS clients point at a closed port, their warm-up fails fast and is counted as such)"
                );
                for (var, name) in QUEUES {
                    env.push((var.to_owned(), format!("http://127.0.0.1:9/123456789012/{name}")));
                }
                env.push(("AGORA_PUBLISHER".into(), "log".into()));
            }
        }
        for (var, value) in [
            ("AGORA_EVENT_BUS", BUS),
            ("AGORA_SCHEDULE_GROUP", GROUP),
            ("AGORA_DEADLINE_SCHEDULE_GROUP", GROUP),
            ("AGORA_SCHEDULER_ROLE_ARN", "arn:aws:iam::123456789012:role/agora-startup-scheduler"),
            ("AGORA_START_FUNCTION_ARN", "arn:aws:lambda:us-east-1:123456789012:function:voting-start-tasks"),
            ("AGORA_CLOSE_FUNCTION_ARN", "arn:aws:lambda:us-east-1:123456789012:function:orcade-close-due"),
            ("AGORA_DEADLINE_FUNCTION_ARN", "arn:aws:lambda:us-east-1:123456789012:function:xchange-deadline"),
            ("AGORA_DYNAMODB_TABLE", "agora-startup"),
        ] {
            env.push((var.into(), value.into()));
        }
        Setup { store: store.to_owned(), store_upstream, moto, env }
    }
}

async fn one_run(binary: &str, event: &Value, setup: &Setup, dir: &std::path::Path) -> Run {
    let phase = Arc::new(AtomicUsize::new(INIT));
    let store_proxy = match (&setup.store_upstream, setup.store.as_str()) {
        (Some(upstream), "mongodb") => Some(Proxy::tcp(upstream.clone(), phase.clone()).await),
        (Some(upstream), _) => Some(Proxy::http(upstream.clone(), phase.clone()).await),
        (None, _) => None,
    };
    let aws_proxy = match &setup.moto {
        Some(moto) => Some(Proxy::http(moto.clone(), phase.clone()).await),
        None => None,
    };
    let (done_tx, mut done) = mpsc::unbounded_channel();
    let (polled_tx, mut polled) = mpsc::unbounded_channel();
    let emulator = Emulator { event: Arc::new(Mutex::new(Some(event.clone()))), phase: phase.clone(), polled: polled_tx, done: done_tx };
    let app = Router::new()
        .route("/2018-06-01/runtime/invocation/next", get(next))
        .route("/2018-06-01/runtime/invocation/{id}/response", post(response))
        .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
        .route("/2018-06-01/runtime/init/error", post(error))
        .with_state(emulator);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let mut command = tokio::process::Command::new(binary);
    command
        .env("AWS_LAMBDA_RUNTIME_API", addr.to_string())
        .env("AWS_LAMBDA_FUNCTION_NAME", "bench")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "1")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "128")
        .env("AWS_LAMBDA_LOG_GROUP_NAME", "bench")
        .env("AWS_LAMBDA_LOG_STREAM_NAME", "bench")
        .env("AGORA_STORE", &setup.store)
        .env("AGORA_EMBEDDED_DIR", dir)
        .env("AGORA_LIVE_ENDPOINT", aws_proxy.as_ref().map_or_else(|| "http://127.0.0.1:9".to_owned(), |p| format!("http://{}", p.addr)))
        .env("AGORA_AWS_ENDPOINT", aws_proxy.as_ref().map_or_else(|| "http://127.0.0.1:9".to_owned(), |p| format!("http://{}", p.addr)))
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "testing")
        .env("AWS_SECRET_ACCESS_KEY", "testing")
        .env("RUST_LOG", std::env::var("STARTUP_RUST_LOG").unwrap_or_else(|_| "warn".into()))
        .envs(setup.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .stdout(if std::env::var_os("STARTUP_LOGS").is_some() { Stdio::inherit() } else { Stdio::null() })
        .stderr(if std::env::var_os("STARTUP_LOGS").is_some() { Stdio::inherit() } else { Stdio::null() })
        .kill_on_drop(true);
    if let Some(proxy) = &store_proxy {
        let url = format!("127.0.0.1:{}", proxy.addr.port());
        match setup.store.as_str() {
            // One server, reached through the proxy only (not through the members its `hello` names).
            "mongodb" => command.env("MONGODB_URI", format!("mongodb://{url}/?directConnection=true")),
            _ => command.env("AGORA_DYNAMODB_ENDPOINT", format!("http://{url}")),
        };
    }
    let started = Instant::now();
    let mut child = command.spawn().expect("spawn function");
    let limit = Duration::from_secs(20);
    let polled_at = tokio::time::timeout(limit, polled.recv()).await.ok().flatten();
    let answer = tokio::time::timeout(limit, done.recv()).await.ok().flatten();
    let answered_at = Instant::now();
    let _ = child.kill().await;
    server.abort();
    let counts = |p: &Option<Proxy>| p.as_ref().map_or([0, 0], |p| [p.counts.get(INIT), p.counts.get(FIRST)]);
    Run {
        init: polled_at.map(|t| t - started),
        first: polled_at.filter(|_| answer.is_some()).map(|t| answered_at - t),
        answer: answer.unwrap_or(json!("no answer")),
        store: counts(&store_proxy),
        aws: counts(&aws_proxy),
    }
}

/// Measures each function (the binary in `STARTUP_BIN_DIR` when set) and prints the figures.
pub fn run(functions: Vec<Function>) {
    let runs: usize = std::env::var("STARTUP_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(9).max(1);
    let store = std::env::var("STARTUP_STORE").unwrap_or_else(|_| "embedded".into());
    let dir = std::env::temp_dir().join(format!("agora-startup-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    let mut failures = Vec::new();
    rt.block_on(async {
        let setup = Setup::new(&store).await;
        let aws = setup.moto.as_deref().map_or("no AWS endpoint".to_owned(), |m| format!("AWS on moto at {m}"));
        println!(
            "cold path through a Runtime API emulator ({store} store, {aws}; median of {runs} runs): init = spawn to the first \
             GET /invocation/next, first = the event to its response (target < {FIRST_REQUEST_TARGET_MS} ms); connections \
             opened to the store / to AWS during init, then during the first request (target: 0)"
        );
        let dir_override = std::env::var("STARTUP_BIN_DIR").ok();
        for Function { name, binary, event } in functions {
            let binary = dir_override.as_ref().map_or_else(|| binary.to_owned(), |d| format!("{d}/{name}/bootstrap"));
            let mut all = Vec::with_capacity(runs);
            for _ in 0..runs {
                all.push(one_run(&binary, &event, &setup, &dir).await);
            }
            let last = &all[all.len() - 1].answer;
            let status = last.get("statusCode").map(|s| format!("HTTP {s}")).unwrap_or_else(|| last.to_string().chars().take(60).collect());
            let init = median(all.iter().filter_map(|r| r.init));
            let first = median(all.iter().filter_map(|r| r.first));
            let most = |f: fn(&Run) -> usize| all.iter().map(f).max().unwrap_or(0);
            let (store_init, aws_init) = (most(|r| r.store[0]), most(|r| r.aws[0]));
            let (store_first, aws_first) = (most(|r| r.store[1]), most(|r| r.aws[1]));
            println!(
                "  {name:<24} init {:>7}   first {:>7}   init: store {store_init}, aws {aws_init}   first request: store {store_first}, aws {aws_first}   (answered {status})",
                fmt_ms(init),
                fmt_ms(first),
            );
            let opened = all.iter().filter(|r| r.store[1] + r.aws[1] > 0).count();
            if opened > 0 {
                let line = format!(
                    "  !! {name}: the first request opened a new connection in {opened} of {runs} runs (at most {store_first} to the store, {aws_first} to AWS): init did not open it"
                );
                println!("{line}");
                failures.push(line);
            }
        }
    });
    if failures.is_empty() {
        println!("  the first request after init opened no connection, in every function and run");
    } else {
        println!("  {} function(s) opened a connection on the first request", failures.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn median(times: impl Iterator<Item = Duration>) -> Option<Duration> {
    let mut times: Vec<Duration> = times.collect();
    times.sort();
    times.get(times.len() / 2).copied()
}

fn fmt_ms(d: Option<Duration>) -> String {
    d.map_or_else(|| "-".to_owned(), |d| format!("{:.1} ms", d.as_secs_f64() * 1000.0))
}
