//! Throughput of the local server, printed as figures (not a test):
//! 1. votes accepted per second through the HTTP API, builtin PQT, embedded store, sent by a
//!    lean keep-alive client (as `wrk` would) and by reqwest, both in this process;
//! 2. the time to evaluate a task with 1,000,000 stored qualified votes with builtin
//!    plurality, from reading the votes to the stored report.
//!
//! `cargo bench -p agora-e2e` (env: BENCH_VOTES, BENCH_CLIENTS, BENCH_EVAL_VOTES).

use agora_e2e::load::{lean_worker, reqwest_worker};
use agora_e2e::*;
use agora_store::to_json;
use agora_voting_schema::collections::VOTES;
use futures::future::join_all;
use serde_json::json;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Which client sends the votes.
#[derive(Clone, Copy, Debug)]
enum Client {
    /// reqwest (hyper's client): what an application in Rust would use.
    Reqwest,
    /// A minimal HTTP/1.1 keep-alive client on a bare TCP stream, as `wrk` is: the load
    /// generator shares the 2 cores with the server, so the less it costs, the more of the
    /// machine the figure describes.
    Lean,
}

async fn votes_per_second(server: &Server, total: usize, clients: usize, client: Client) -> (f64, usize) {
    let id = server.create(&public_request(1_000_000_000)).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    // Warm up connections and caches.
    for i in 0..clients {
        server.vote(&id, &format!("warmup-{i}"), json!({"selected_option": "agent-translator-01"})).await;
    }
    let next = Arc::new(AtomicUsize::new(0));
    let bodies: Arc<Vec<(String, String)>> = Arc::new(
        (0..total)
            .map(|i| {
                (
                    "/submit-vote".to_owned(),
                    vote_body(&id, &format!("voter-{i}"), json!({"selected_option": TRANSLATORS[i % 3]})).to_string(),
                )
            })
            .collect(),
    );
    let base = server.url("");
    let addr = server.running.addr;
    let started = Instant::now();
    let workers = (0..clients).map(|_| {
        let (http, next, bodies, base) = (server.http.clone(), next.clone(), bodies.clone(), base.clone());
        tokio::spawn(async move {
            match client {
                Client::Reqwest => reqwest_worker(&http, &base, &bodies, 200, &next).await,
                Client::Lean => lean_worker(addr, &bodies, 200, &next).await.unwrap_or(0),
            }
        })
    });
    let accepted: usize = join_all(workers).await.into_iter().map(|r| r.unwrap_or(0)).sum();
    (accepted as f64 / started.elapsed().as_secs_f64(), accepted)
}

async fn evaluate_million(server: &Server, n: usize) -> (Duration, usize) {
    let id = server.create(&public_request(1_000_000_000)).await;
    server.wait_for_status(&id, "started", Duration::from_secs(10)).await;
    let store = server.running.voting.ports().store.clone();
    let load = Instant::now();
    let base = chrono::Utc::now();
    for chunk in (0..n).collect::<Vec<_>>().chunks(20_000) {
        let docs = chunk
            .iter()
            .map(|&i| {
                let t = base + chrono::Duration::microseconds(i as i64);
                let vote = agora_voting_schema::Vote {
                    vote_id: uuid::Uuid::new_v4().to_string(),
                    social_task_id: id.clone(),
                    submitter_subject_id: format!("voter-{i:07}"),
                    vote_data: json!({"selected_option": TRANSLATORS[(i * 7 + i / 3) % 3]}),
                    submission_time: t,
                    qualified: true,
                    weight: None,
                };
                (VOTES, to_json(&vote))
            })
            .collect();
        store.insert(docs).await.expect("bulk insert");
    }
    eprintln!("  (stored {n} votes in {:.1} s)", load.elapsed().as_secs_f64());
    let started = Instant::now();
    let outcome = server.running.voting.evaluate_task(&id).await.expect("evaluate");
    let took = started.elapsed();
    assert!(matches!(outcome, agora_voting_core::EvaluationOutcome::Completed { .. }), "{outcome:?}");
    let (_, report) = server.get(&format!("/get-report/{id}")).await;
    (took, report["votes"].as_array().map_or(0, Vec::len))
}

fn main() {
    // RUST_LOG=agora_voting_core=info shows where an evaluation spends its time.
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).with_writer(std::io::stderr).init();
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let server = Server::start_with(|c| c.sweep_interval_ms = 50).await;
        let total = env_usize("BENCH_VOTES", 40_000);
        let clients = env_usize("BENCH_CLIENTS", 32);
        for client in [Client::Lean, Client::Reqwest] {
            let (rate, accepted) = votes_per_second(&server, total, clients, client).await;
            println!(
                "votes accepted per second (HTTP, builtin PQT, embedded store, {clients} {client:?} clients): {rate:.0}/s ({accepted} of {total} accepted; target 5000/s)"
            );
        }

        let n = env_usize("BENCH_EVAL_VOTES", 1_000_000);
        let (took, in_report) = evaluate_million(&server, n).await;
        println!("evaluate {n} qualified votes, builtin plurality, read to stored report: {:.2} s ({in_report} votes in the report; target < 3 s)", took.as_secs_f64());
    });
}
