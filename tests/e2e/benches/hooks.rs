//! Hook throughput and latency, printed as figures (not a test):
//! 1. PQT calls per second through the local policy runner (the §4.3 reference PQT, called
//!    directly on the runner), with one Python process and with two;
//! 2. PQT calls per second through an `http` hook on loopback (the hook dispatcher, real
//!    HookInput, a small axum server answering `{"qualified": true}` at once);
//! 3. the added latency per vote of each PQT mode: submit-vote latency through the local server
//!    (HTTP API, embedded store) with that PQT, minus the same with the builtin PQT, at p50 and
//!    p99, sequential votes (one client).
//!
//! `cargo bench -p agora-e2e --bench hooks` (env: BENCH_PQT_CALLS, BENCH_PQT_CLIENTS,
//! BENCH_LATENCY_VOTES; AGORA_PYTHON for the interpreter).

use agora_e2e::*;
use agora_hooks_remote::{HooksConfig, LoadSpec, PolicyCall, PolicyRunner, RemoteHooks};
use agora_voting_schema::{FunctionSpec, Hook, HookInput};
use futures::future::join_all;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Runs `total` calls of `call(i)` with `clients` in flight; returns calls per second and failures.
async fn throughput<F, Fut>(total: usize, clients: usize, call: F) -> (f64, usize)
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let call = Arc::new(call);
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let workers = (0..clients).map(|_| {
        let (call, next) = (call.clone(), next.clone());
        tokio::spawn(async move {
            let mut failed = 0;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return failed;
                }
                if !call(i).await {
                    failed += 1;
                }
            }
        })
    });
    let failed: usize = join_all(workers).await.into_iter().map(|r| r.unwrap_or(0)).sum();
    (total as f64 / started.elapsed().as_secs_f64(), failed)
}

/// The PQT hook input of the spec's example task, as JSON.
fn pqt_input_json() -> Value {
    let bundle = agora_voting_schema::parse_create_request(&public_request(100), "task_0000beef").expect("example parses");
    let vote = json!({"selected_option": "agent-translator-02"});
    let input = HookInput::pqt(&bundle.task, &bundle.subject_spec, &bundle.evaluation_input, &vote, "voter-1");
    serde_json::to_value(&input).expect("input is JSON")
}

async fn policy_runner_rate(workers: usize, total: usize, clients: usize) -> (f64, usize) {
    let config = HooksConfig { policy_workers: workers, ..HooksConfig::default() };
    let runner = PolicyRunner::new(&config);
    let code = repo_root().join("infra/local/functions/voting-pqt-option-on-ballot@1.0").display().to_string();
    let load = Arc::new(LoadSpec { code_path: code, rule_id: "pqt".into(), settings: json!({}), parameters: json!({}) });
    let input = Arc::new(pqt_input_json());
    // One instance per worker (keys chosen to land on distinct processes), warmed up.
    let keys: Arc<Vec<String>> = Arc::new((0..workers).map(|w| format!("bench-pqt-{w}")).collect());
    for key in keys.iter() {
        let call = PolicyCall { key, load: &load, parameters: &json!({}), input: &*input, context: &json!({}) };
        runner.call(&call).await.expect("warm-up call");
    }
    throughput(total, clients, move |i| {
        let (runner, load, input, keys) = (runner.clone(), load.clone(), input.clone(), keys.clone());
        async move {
            let key = &keys[i % keys.len()];
            let empty = json!({});
            let call = PolicyCall { key, load: &load, parameters: &empty, input: &*input, context: &empty };
            matches!(runner.call(&call).await, Ok(out) if out["qualified"] == true)
        }
    })
    .await
}

async fn http_hook_rate(total: usize, clients: usize) -> (f64, usize) {
    let (url, _server) = lean_hook().await;
    let dispatcher = Arc::new(agora_voting_core::voting_hooks(Arc::new(RemoteHooks::with_timeout(Duration::from_secs(30))), None));
    let spec: Arc<FunctionSpec> = Arc::new(serde_json::from_value(json!({"mode": "http", "url": url})).expect("spec"));
    let bundle = Arc::new(agora_voting_schema::parse_create_request(&public_request(100), "task_0000beef").expect("example parses"));
    let vote = Arc::new(json!({"selected_option": "agent-translator-02"}));
    throughput(total, clients, move |_| {
        let (dispatcher, spec, bundle, vote) = (dispatcher.clone(), spec.clone(), bundle.clone(), vote.clone());
        async move {
            let input = HookInput::pqt(&bundle.task, &bundle.subject_spec, &bundle.evaluation_input, &vote, "voter-1");
            matches!(dispatcher.run(Hook::Pqt, &spec, "task_0000beef", &input).await, Ok(out) if out["qualified"] == true)
        }
    })
    .await
}

/// A hook server that does nothing but answer `{"qualified":true}` (reads no body, keeps
/// nothing), so that the figures measure the caller.
async fn lean_hook() -> (String, tokio::task::JoinHandle<()>) {
    let app = axum::Router::new().fallback(|| async { ([("content-type", "application/json")], r#"{"qualified":true}"#) });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/pqt", listener.local_addr().expect("addr"));
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, task)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Submit-vote latencies (sorted) of `n` sequential votes on a public task with `pqt`.
async fn vote_latencies(server: &Server, pqt: &Value, n: usize) -> (Vec<Duration>, usize) {
    let mut r = public_request(1_000_000);
    r["evaluation_spec"]["voting_pqt"] = pqt.clone();
    let id = server.create(&r).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    for i in 0..20 {
        server.vote(&id, &format!("warmup-{i}"), json!({"selected_option": "agent-translator-01"})).await;
    }
    let mut times = Vec::with_capacity(n);
    let mut qualified = 0;
    for i in 0..n {
        let body = vote_body(&id, &format!("voter-{i}"), json!({"selected_option": TRANSLATORS[i % 3]}));
        let started = Instant::now();
        let (status, answer) = server.post("/submit-vote", &body).await;
        times.push(started.elapsed());
        if status == 200 && answer["qualified"] == true {
            qualified += 1;
        }
    }
    times.sort();
    (times, qualified)
}

/// A functions folder for the latency runs: the shipped PQT (stateful), a stateless copy, an
/// external entry pointing at `external_url`, and the PQT workflow.
fn bench_functions(dir: &Path, external_url: &str) {
    let shipped = repo_root().join("infra/local");
    let pqt = shipped.join("functions/voting-pqt-option-on-ballot@1.0/function.py");
    for (name, entry) in [
        ("pqt-stateful@1", json!({"function_name": "pqt-stateful", "is_stateful": true})),
        ("pqt-stateless@1", json!({"function_name": "pqt-stateless", "is_stateful": false})),
        ("pqt-external@1", json!({"function_name": "pqt-external", "is_external": true, "external_function_url": external_url})),
    ] {
        let folder = dir.join("functions").join(name);
        std::fs::create_dir_all(&folder).expect("functions folder");
        std::fs::copy(&pqt, folder.join("function.py")).expect("copy the PQT");
        std::fs::write(folder.join("entry.json"), entry.to_string()).expect("entry");
    }
    std::fs::create_dir_all(dir.join("workflows")).expect("workflows folder");
    let workflow = json!({"data": {"modules": {"pqt": {"codePath": "functions/pqt-stateful@1"}}, "graph": {}}});
    std::fs::write(dir.join("workflows/pqt@1.json"), workflow.to_string()).expect("workflow");
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let total = env_usize("BENCH_PQT_CALLS", 20_000);
        let clients = env_usize("BENCH_PQT_CLIENTS", 64);
        println!("PQT input: the spec's example task, {} bytes of JSON", pqt_input_json().to_string().len());
        for workers in [1, 2] {
            let (rate, failed) = policy_runner_rate(workers, total, clients).await;
            println!(
                "PQT calls per second through the local policy runner ({workers} Python process(es), {clients} in flight): {rate:.0}/s ({failed} failed of {total}; target 2000/s)"
            );
        }
        let (rate, failed) = http_hook_rate(total, clients).await;
        println!("PQT calls per second through an http hook on loopback ({clients} in flight): {rate:.0}/s ({failed} failed of {total}; target 5000/s)");

        // Added latency per vote, per mode.
        let n = env_usize("BENCH_LATENCY_VOTES", 1000);
        let (stub_url, _stub) = lean_hook().await;
        let lambda = StubServer::start(Duration::ZERO, |_| (200, vec![], br#"{"qualified":true}"#.to_vec())).await;
        let dir = temp_dir("bench-functions");
        bench_functions(&dir, &stub_url);
        let (functions_dir, lambda_url) = (dir.clone(), lambda.url.clone());
        let server = Server::start_with(move |c| {
            c.functions_dir = functions_dir;
            c.hooks.lambda_endpoint_url = Some(lambda_url);
        })
        .await;
        let modes = [
            ("builtin", json!({"mode": "builtin", "name": "option-on-ballot"})),
            ("http", json!({"mode": "http", "url": stub_url})),
            ("function external", json!({"mode": "function", "function_id": "pqt-external:1"})),
            ("function stateful", json!({"mode": "function", "function_id": "pqt-stateful:1"})),
            ("function stateless", json!({"mode": "function", "function_id": "pqt-stateless:1"})),
            ("dsl (1 module)", json!({"mode": "dsl", "workflow_id": "pqt:1"})),
            ("lambda (local endpoint)", json!({"mode": "lambda", "function_name": "pqt-fn"})),
        ];
        let mut base = (Duration::ZERO, Duration::ZERO);
        println!("submit-vote latency per PQT mode ({n} sequential votes each; added = minus builtin):");
        for (name, spec) in modes {
            let (times, qualified) = vote_latencies(&server, &spec, n).await;
            let (p50, p99) = (percentile(&times, 0.50), percentile(&times, 0.99));
            if name == "builtin" {
                base = (p50, p99);
            }
            let ms = |d: Duration| d.as_secs_f64() * 1000.0;
            println!(
                "  {name:<24} p50 {:>7.3} ms  p99 {:>7.3} ms   added p50 {:>+7.3} ms  p99 {:>+7.3} ms   ({qualified} of {n} qualified)",
                ms(p50),
                ms(p99),
                ms(p50) - ms(base.0),
                ms(p99) - ms(base.1),
            );
        }
        drop(server);
        let _ = std::fs::remove_dir_all(dir);
    });
}
