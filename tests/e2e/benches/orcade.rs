//! Throughput of Orcade on the local server, printed as figures (not a test):
//! 1. bids accepted per second through the HTTP API (`POST /bid-jobs/{id}/bids`), builtin PQT
//!    (`required-fields`), embedded store, every bid by a distinct subject on one open job whose
//!    `bid_job_max_subjects` is never reached (or, with BENCH_BIDS_PER_JOB=n, on a new such job
//!    every n bids, which keeps each job's roster short), sent by a lean keep-alive client (as
//!    `wrk` would) and by reqwest, both in this process;
//! 2. the time to evaluate a closed job with 100,000 stored accepted bids with builtin
//!    `lowest-price` (`Evaluator::evaluate_job`), from reading the bids to the stored decision
//!    and the marked winner.
//!
//! `cargo bench -p agora-e2e --bench orcade` (env: BENCH_BIDS, BENCH_CLIENTS, BENCH_BIDS_PER_JOB,
//! BENCH_EVAL_BIDS, BENCH_SWEEP_MS; RUST_LOG=agora_orcade_core=info shows the flows' logs).

use agora_e2e::load::{lean_worker, reqwest_worker};
use agora_e2e::Server;
use agora_orcade_core::EvaluationOutcome;
use agora_orcade_schema::storage::BIDS;
use agora_orcade_schema::{new_id, Bid};
use agora_store::to_json;
use futures::future::join_all;
use serde_json::{json, Map, Value};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Which client sends the bids.
#[derive(Clone, Copy, Debug)]
enum Client {
    /// A minimal HTTP/1.1 keep-alive client on a bare TCP stream, as `wrk` is: the load
    /// generator shares the 2 cores with the server, so the less it costs, the more of the
    /// machine the figure describes.
    Lean,
    /// reqwest (hyper's client): what an application in Rust would use.
    Reqwest,
}

/// An open job that takes every applicant with a `price_usd` (builtin PQT `required-fields`),
/// the lowest price winning, and that never fills.
fn open_job() -> Value {
    json!({
        "bid_job_metadata": {"parameters": {"fields": ["price_usd"]}},
        "bid_job_description": {"task_type": "translate_document"},
        "bid_job_name": {"en": "Benchmark call"},
        "bid_job_evaluator_id": "builtin:lowest-price",
        "bid_job_pqt_id": "builtin:required-fields",
        "bid_job_creator_id": "bench",
        "bid_job_mode": "open",
        "bid_job_max_subjects": 1_000_000_000_i64,
    })
}

fn bid_body(subject: &str, price: f64) -> Value {
    json!({"bid_subject_id": subject, "bid_data": {"price_usd": price, "confidence": 0.9}})
}

async fn create_job(server: &Server) -> String {
    let (status, body) = server.post("/bid-jobs", &open_job()).await;
    assert_eq!(status, 201, "create: {body}");
    body["data"]["bid_job_id"].as_str().expect("bid_job_id").to_owned()
}

/// Sends `total` bids from `clients` concurrent clients, `per_job` to a job (0: all to one),
/// each by a new subject. Returns the accepted bids per second and how many were accepted.
async fn bids_per_second(server: &Server, total: usize, clients: usize, per_job: usize, client: Client) -> (f64, usize) {
    let jobs = if per_job == 0 { 1 } else { total.div_ceil(per_job) };
    let mut paths = Vec::with_capacity(jobs);
    for _ in 0..jobs {
        paths.push(format!("/bid-jobs/{}/bids", create_job(server).await));
    }
    // Warm up connections and caches (each job read, the PQT's parameters).
    let warm_ups = clients.min(4);
    for path in &paths {
        for i in 0..warm_ups {
            let (status, body) = server.post(path, &bid_body(&format!("warmup-{i}"), 1_000.0)).await;
            assert_eq!(status, 201, "warm-up bid: {body}");
        }
    }
    let next = Arc::new(AtomicUsize::new(0));
    let requests: Arc<Vec<(String, String)>> = Arc::new(
        (0..total)
            .map(|i| {
                let path = &paths[i.checked_div(per_job).unwrap_or(0)];
                (path.clone(), bid_body(&format!("bidder-{i:07}"), 100.0 + (i % 977) as f64).to_string())
            })
            .collect(),
    );
    let addr = server.running.addr;
    let started = Instant::now();
    let workers = (0..clients).map(|_| {
        let (http, next, requests, base) = (server.http.clone(), next.clone(), requests.clone(), server.base.clone());
        tokio::spawn(async move {
            match client {
                Client::Reqwest => reqwest_worker(&http, &base, &requests, 201, &next).await,
                Client::Lean => lean_worker(addr, &requests, 201, &next).await.unwrap_or_else(|e| panic!("lean client: {e}")),
            }
        })
    });
    let accepted: usize = join_all(workers).await.into_iter().map(|r| r.expect("worker")).sum();
    let rate = accepted as f64 / started.elapsed().as_secs_f64();
    // Sanity: every accepted applicant is on file.
    let mut on_file = 0;
    for path in &paths {
        let id = path.trim_start_matches("/bid-jobs/").trim_end_matches("/bids");
        on_file += server.running.orcade.repo().bids_raw(id).await.expect("bids").len();
    }
    assert_eq!(on_file, accepted + jobs * warm_ups, "bids on file");
    (rate, accepted)
}

/// The price of the `i`th of `n` stored bids: a permutation of `n` cents above 100 USD, so that
/// exactly one bid is the cheapest, somewhere in the middle of the insertion order.
fn price(i: usize, n: usize) -> f64 {
    100.0 + ((i * 7_919 + n / 2) % n) as f64 / 100.0
}

/// Stores `n` accepted bids on an open job (with its roster and counter as `n` applicants
/// leave them), closes it, and times its evaluation. Returns the time and the winner.
async fn evaluate_bids(server: &Server, n: usize) -> (Duration, String) {
    let id = create_job(server).await;
    let orcade = &server.running.orcade;
    let store = orcade.ports().store.clone();
    let load = Instant::now();
    let base = chrono::Utc::now();
    let subject = |i: usize| format!("bidder-{i:07}");
    for chunk in (0..n).collect::<Vec<_>>().chunks(20_000) {
        let docs = chunk
            .iter()
            .map(|&i| {
                let mut bid_data = Map::new();
                bid_data.insert("price_usd".into(), json!(price(i, n)));
                bid_data.insert("confidence".into(), json!(0.9));
                let bid = Bid {
                    bid_id: new_id(),
                    bid_job_id: id.clone(),
                    bid_data,
                    bid_subject_id: subject(i),
                    submission_time: base + chrono::Duration::microseconds(i as i64),
                    is_winner: false,
                };
                (BIDS, to_json(&bid))
            })
            .collect();
        store.insert(docs).await.expect("bulk insert");
    }
    // What n accepted applicants leave on an open job: its bid counter; the close writes its
    // roster.
    let job = orcade.repo().job(&id).await.expect("job").expect("the job");
    let key = agora_orcade_core::incarnation::JobKey::of(&job);
    store.increment(&agora_orcade_core::closing::bids_counter(&key), n as i64).await.expect("counter");
    // Closed without a request: this process evaluates it, not the server's queue.
    let roster: Vec<String> = (0..n).map(subject).collect();
    assert!(orcade.repo().close_job(&job, Some(&roster)).await.expect("close"));
    eprintln!("  (stored {n} bids in {:.1} s)", load.elapsed().as_secs_f64());
    let expected = subject((0..n).min_by(|&a, &b| price(a, n).total_cmp(&price(b, n))).expect("bids"));

    let started = Instant::now();
    let outcome = orcade.evaluator().evaluate_job(&id).await.expect("evaluate");
    let took = started.elapsed();
    let EvaluationOutcome::Resolved { winner_subject_id, .. } = outcome else { panic!("not resolved: {outcome:?}") };
    assert_eq!(winner_subject_id, expected);
    let winners = orcade.repo().winners(&id).await.expect("winners");
    assert_eq!(winners.iter().map(|b| b.bid_subject_id.as_str()).collect::<Vec<_>>(), [expected.as_str()], "one winner stored");
    let record = orcade.repo().evaluation(&job).await.expect("record").expect("an evaluation record");
    assert!(record.applied(), "{record:?}");
    (took, winner_subject_id)
}

fn main() {
    if std::env::var_os("RUST_LOG").is_some() {
        tracing_subscriber::fmt().with_env_filter(tracing_subscriber::EnvFilter::from_default_env()).with_writer(std::io::stderr).init();
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let total = env_usize("BENCH_BIDS", 40_000);
        let clients = env_usize("BENCH_CLIENTS", 32);
        // 0: every bid on one job (whose roster grows with each); n: a new job every n bids.
        let per_job = env_usize("BENCH_BIDS_PER_JOB", 0);
        let spread = if per_job == 0 { "one open job".to_owned() } else { format!("{per_job} bids per open job") };
        // The sweep as `agora-local` runs it by default (every second): it reads every open job.
        let sweep = env_usize("BENCH_SWEEP_MS", 1_000) as u64;
        {
            let server = Server::start_with(|c| c.sweep_interval_ms = sweep).await;
            for client in [Client::Lean, Client::Reqwest] {
                let (rate, accepted) = bids_per_second(&server, total, clients, per_job, client).await;
                println!(
                    "bids accepted per second (HTTP, builtin PQT, {spread}, embedded store, {clients} {client:?} clients): {rate:.0}/s ({accepted} of {total} accepted; target 5000/s)"
                );
            }
        }

        // No sweep here: its repair must not request the evaluation of the job this process
        // evaluates (the queue's evaluator would race this one).
        let server = Server::start_with(|c| c.sweep_interval_ms = 24 * 3_600_000).await;
        let n = env_usize("BENCH_EVAL_BIDS", 100_000);
        let (took, winner) = evaluate_bids(&server, n).await;
        println!(
            "evaluate {n} accepted bids, builtin lowest-price, read to stored decision and winner: {:.3} s (winner {winner}; target < 1 s)",
            took.as_secs_f64()
        );
    });
}
