//! How Orcade's costs grow with a job's size, printed as figures (not a test), on the store
//! `AGORA_E2E_STORE` names (embedded by default; `mongodb` and `dynamodb` need the servers
//! `tests/run.sh` starts, and their URLs in the environment):
//!
//! 1. bids accepted per second through the HTTP API on one open job that already has N
//!    applicants, for N = 500 and N = 10,000 (`BENCH_APPLICANTS=500,10000`): the applicants are
//!    stored directly, as N accepted bids leave them (the bids and the job's counter), then
//!    `BENCH_SCALE_BIDS` more bids (default 2,000; 300 on DynamoDB) are sent by
//!    `BENCH_CLIENTS` lean keep-alive clients (default 16). An append that rewrote the roster
//!    would make the second rate a fraction of the first.
//! 2. the answer time of `POST /bid-jobs` for a closed job with 5 subjects and with 5,000
//!    (`BENCH_ROSTERS=5,5000`), median of `BENCH_CREATES` creates each (default 5), each on a
//!    fresh server: the `bid_request` fan-out is queued as a few items, not one per subject;
//!    and the create flow alone, in this process, its fan-out queued and not run (see
//!    [`flow_create_time`]). On MongoDB also the server's own time to store the job's document
//!    (one `insert` through the driver, no Agora code, see [`server_insert_time`]): what the
//!    create's time grows by that Agora does not spend.
//!
//! `cargo bench -p agora-e2e --bench orcade_scale`.

use agora_e2e::load::lean_worker;
use agora_e2e::Server;
use agora_orcade_core::closing::bids_counter;
use agora_orcade_core::incarnation::JobKey;
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

fn env_list(name: &str, default: &[usize]) -> Vec<usize> {
    match std::env::var(name) {
        Ok(v) => v.split(',').filter_map(|n| n.trim().parse().ok()).collect(),
        Err(_) => default.to_vec(),
    }
}

fn store_name() -> String {
    std::env::var("AGORA_E2E_STORE").ok().filter(|s| !s.is_empty()).unwrap_or_else(|| "embedded".into())
}

/// An open job with no PQT that never fills.
fn open_job() -> Value {
    json!({
        "bid_job_metadata": {}, "bid_job_description": {}, "bid_job_name": {"en": "Scale call"},
        "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_creator_id": "bench",
        "bid_job_mode": "open", "bid_job_max_subjects": 1_000_000_000_i64,
    })
}

fn closed_job(subjects: usize) -> Value {
    let roster: Vec<String> = (0..subjects).map(|i| format!("agent-{i:05}")).collect();
    json!({
        "bid_job_metadata": {}, "bid_job_description": {}, "bid_job_name": {"en": "Scale roster"},
        "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_creator_id": "bench",
        "bid_job_subject_ids": roster,
    })
}

fn bid_body(subject: &str, price: f64) -> Value {
    json!({"bid_subject_id": subject, "bid_data": {"price_usd": price, "confidence": 0.9}})
}

async fn create(server: &Server, body: &Value) -> String {
    let (status, answer) = server.post("/bid-jobs", body).await;
    assert_eq!(status, 201, "create: {answer}");
    answer["data"]["bid_job_id"].as_str().expect("bid_job_id").to_owned()
}

/// Stores `n` accepted applicants on the open job `id` as their bids leave them.
async fn store_applicants(server: &Server, id: &str, n: usize) {
    let orcade = &server.running.orcade;
    let store = orcade.ports().store.clone();
    let job = orcade.repo().job(id).await.expect("job").expect("the job");
    let now = chrono::Utc::now();
    // DynamoDB takes at most 100 writes in one transaction (each bid: its item and its marker).
    let chunk = if store_name() == "dynamodb" { 40 } else { 2_000 };
    let all: Vec<usize> = (0..n).collect();
    for part in all.chunks(chunk) {
        let docs = part
            .iter()
            .map(|&i| {
                let mut bid_data = Map::new();
                bid_data.insert("price_usd".into(), json!(500.0 + i as f64));
                let bid = Bid {
                    bid_id: new_id(),
                    bid_job_id: id.to_owned(),
                    bid_data,
                    bid_subject_id: format!("applicant-{i:06}"),
                    submission_time: now,
                    is_winner: false,
                };
                (BIDS, to_json(&bid))
            })
            .collect();
        store.insert(docs).await.expect("store applicants");
    }
    store.increment(&bids_counter(&JobKey::of(&job)), n as i64).await.expect("counter");
}

/// Bids accepted per second on one open job that has `applicants` already.
async fn rate_with(server: &Server, applicants: usize, bids: usize, clients: usize) -> f64 {
    let id = create(server, &open_job()).await;
    let loading = Instant::now();
    store_applicants(server, &id, applicants).await;
    eprintln!("  ({applicants} applicants stored in {:.1} s)", loading.elapsed().as_secs_f64());
    let path = format!("/bid-jobs/{id}/bids");
    for i in 0..clients.min(4) {
        let (status, body) = server.post(&path, &bid_body(&format!("warmup-{i}"), 1_000.0)).await;
        assert_eq!(status, 201, "warm-up: {body}");
    }
    let requests: Arc<Vec<(String, String)>> =
        Arc::new((0..bids).map(|i| (path.clone(), bid_body(&format!("bidder-{i:06}"), 100.0 + (i % 97) as f64).to_string())).collect());
    let next = Arc::new(AtomicUsize::new(0));
    let addr = server.running.addr;
    let started = Instant::now();
    let workers = (0..clients).map(|_| {
        let (requests, next) = (requests.clone(), next.clone());
        tokio::spawn(async move { lean_worker(addr, &requests, 201, &next).await.unwrap_or_else(|e| panic!("lean client: {e}")) })
    });
    let accepted: usize = join_all(workers).await.into_iter().map(|r| r.expect("worker")).sum();
    let rate = accepted as f64 / started.elapsed().as_secs_f64();
    assert_eq!(accepted, bids, "every bid accepted");
    let (_, job) = server.get(&format!("/bid-jobs/{id}")).await;
    let roster = job["data"]["bid_job_subject_ids"].as_array().map_or(0, Vec::len);
    assert_eq!(roster, applicants + clients.min(4) + bids, "every applicant on the roster");
    rate
}

/// The median answer time of `POST /bid-jobs` for a closed job of `subjects` subjects, each
/// create on a fresh server after a warm-up create of one subject, so that no earlier job's
/// `bid_request` round trips (which the queue runs after the answer) share the machine with it.
async fn create_time(subjects: usize, runs: usize) -> Duration {
    let body = closed_job(subjects);
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let server = Server::start_with(|c| c.sweep_interval_ms = 24 * 3_600_000).await;
        create(&server, &closed_job(1)).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let started = Instant::now();
        create(&server, &body).await;
        times.push(started.elapsed());
    }
    times.sort();
    times[runs / 2]
}

/// The median time of the create flow alone (`JobCreator::create_job`) for a closed job of
/// `subjects` subjects, in this process: the server's store, and the local durable queue on the
/// same store with no worker reading it. The queue's writes are part of the request; the
/// `bid_request` round trips that follow it are not (on AWS other functions make them; on the
/// 2-core local server they start at once on the same cores, which the HTTP figure includes).
async fn flow_create_time(server: &Server, subjects: usize, runs: usize) -> Duration {
    let kind: agora_runtime::StoreKind = store_name().parse().expect("AGORA_E2E_STORE");
    let namespace = format!("bench_{}", uuid::Uuid::new_v4().simple());
    let dir = agora_e2e::temp_dir("orcade-scale-queue");
    let work = agora_runtime::open_store(kind, &dir, agora_local::queue::WORK_DB, Some(&namespace)).await.expect("work store");
    let (deliveries, _unread) = agora_local::queue::DurableQueue::open("bench-deliveries", work).await.expect("queue");
    let mut ports = server.running.orcade.ports().clone();
    ports.deliveries = Arc::new(deliveries);
    let orcade = agora_orcade_core::Orcade::new(ports, agora_orcade_core::Settings::default());
    let body = closed_job(subjects);
    orcade.creator().create_job(&closed_job(1)).await.expect("warm-up create");
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        orcade.creator().create_job(&body).await.expect("create");
        times.push(started.elapsed());
    }
    let _ = std::fs::remove_dir_all(dir);
    times.sort();
    times[runs / 2]
}

/// The median time the MongoDB-protocol server takes to store the document of a closed job of
/// `subjects` subjects: the job as the create flow stores it, turned into BSON beforehand, then
/// one `insert_one` through the driver per run (a fresh `_id` each), into a database of its own.
async fn server_insert_time(server: &Server, subjects: usize, runs: usize) -> Duration {
    let id = create(server, &closed_job(subjects)).await;
    let job = server.running.orcade.repo().job(&id).await.expect("job").expect("the job");
    let stored: Value = serde_json::from_str(to_json(&job).get()).expect("json");
    let uri = std::env::var("MONGODB_URI").expect("MONGODB_URI");
    let client = mongodb::Client::with_uri_str(&uri).await.expect("client");
    let database = client.database(&format!("bench_raw_{}", uuid::Uuid::new_v4().simple()));
    let jobs = database.collection::<mongodb::bson::Document>("bid_jobs");
    jobs.insert_one(mongodb::bson::doc! {"_id": "warm-up"}).await.expect("warm-up insert");
    let mut times = Vec::with_capacity(runs);
    for run in 0..runs {
        let mut doc = mongodb::bson::serialize_to_document(&stored).expect("bson");
        doc.insert("_id", format!("job-{run}"));
        let started = Instant::now();
        jobs.insert_one(doc).await.expect("insert");
        times.push(started.elapsed());
    }
    let _ = database.drop().await;
    times.sort();
    times[runs / 2]
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let store = store_name();
        let clients = env_usize("BENCH_CLIENTS", 16);
        let bids = env_usize("BENCH_SCALE_BIDS", if store == "dynamodb" { 300 } else { 2_000 });
        let mut rates = Vec::new();
        for n in env_list("BENCH_APPLICANTS", &[500, 10_000]) {
            let server = Server::start_with(|c| c.sweep_interval_ms = 24 * 3_600_000).await;
            let rate = rate_with(&server, n, bids, clients).await;
            println!("bids accepted per second on one open job with {n} applicants ({store} store, {clients} lean clients, {bids} bids): {rate:.0}/s");
            rates.push(rate);
        }
        if let [first, .., last] = rates[..] {
            println!("  the last against the first: {:+.0}%", (last / first - 1.0) * 100.0);
        }
        let runs = env_usize("BENCH_CREATES", 5);
        let mut times = Vec::new();
        for n in env_list("BENCH_ROSTERS", &[5, 5_000]) {
            let took = create_time(n, runs).await;
            println!("POST /bid-jobs, a closed job of {n} subjects ({store} store): median {:.1} ms of {runs}", took.as_secs_f64() * 1e3);
            times.push(took);
        }
        if let [first, .., last] = times[..] {
            println!("  the last against the first: {:.2}x", last.as_secs_f64() / first.as_secs_f64());
        }
        let server = Server::start_with(|c| c.sweep_interval_ms = 24 * 3_600_000).await;
        let mut flow_times = Vec::new();
        for n in env_list("BENCH_ROSTERS", &[5, 5_000]) {
            let took = flow_create_time(&server, n, runs).await;
            println!("the create flow alone, a closed job of {n} subjects ({store} store, the fan-out queued, not run): median {:.1} ms of {runs}", took.as_secs_f64() * 1e3);
            flow_times.push(took);
        }
        if let [first, .., last] = flow_times[..] {
            println!("  the last against the first: {:.2}x", last.as_secs_f64() / first.as_secs_f64());
        }
        if store == "mongodb" {
            let mut raw = Vec::new();
            for n in env_list("BENCH_ROSTERS", &[5, 5_000]) {
                let took = server_insert_time(&server, n, runs).await;
                println!("the server alone, one insert of the document of a closed job of {n} subjects (the driver, no Agora code): median {:.1} ms of {runs}", took.as_secs_f64() * 1e3);
                raw.push(took);
            }
            if let ([c0, .., c1], [r0, .., r1]) = (&times[..], &raw[..]) {
                let ours = |c: &Duration, r: &Duration| c.saturating_sub(*r).as_secs_f64() * 1e3;
                println!("  POST /bid-jobs less the server's insert: {:.1} ms and {:.1} ms", ours(c0, r0), ours(c1, r1));
            }
        }
    });
}
