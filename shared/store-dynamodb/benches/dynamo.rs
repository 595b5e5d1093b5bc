//! `cargo bench -p agora-store-dynamodb`: throughput of the DynamoDB store on the server of
//! `AGORA_DYNAMODB_ENDPOINT` (moto locally: the figures measure moto as much as the store), on
//! a fresh table deleted afterwards.
//!
//! 1. store calls: insert one vote (sequential, 16 tasks), get, the vote-intake lookup by
//!    (task, subject), the trigger count;
//! 2. `find` of the 10,000 votes of one task, and the hottest partition key of their inserts
//!    (`DynamoStore::key_writes`);
//! 3. capped-roster appends (`update` with a condition and an append), sequential.
//!
//! (The votes per second through voting's `submit-vote` handler are the voting service's bench:
//! a platform crate does not depend on a service.)
//!
//! `AGORA_BENCH_N` sets the number of calls per line (default 1,000), `AGORA_BENCH_FIND` the
//! size of the big task (default 10,000).

use agora_filter::Filter;
use agora_store::conditions::shorter_than;
use agora_store::{to_json, Change, DocumentStore};
use agora_store_contract::fixtures::{job, vote};
use agora_store_contract::CONTRACT_DB;
use agora_store_dynamodb::{DynamoConfig, DynamoStore, ENDPOINT_ENV};
use serde_json::json;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

const VOTES: &str = "votes";
const CONCURRENCY: usize = 16;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let Some(endpoint) = std::env::var(ENDPOINT_ENV).ok().filter(|v| !v.is_empty()) else {
        eprintln!("{ENDPOINT_ENV} is not set: run against a DynamoDB-compatible server (./tests/run.sh starts moto)");
        std::process::exit(2);
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    runtime.block_on(async {
        let table = format!("agora-bench-{}", std::process::id());
        let config = DynamoConfig { table: table.clone(), endpoint: Some(endpoint.clone()), region: None };
        let store = Arc::new(DynamoStore::connect(config, CONTRACT_DB).await.expect("connect"));
        store.ensure_table().await.expect("create the bench table");
        println!("DynamoDB store bench, endpoint {endpoint}, table {table}, 2 tokio workers");
        run(&store).await;
        store.delete_table().await.expect("delete the bench table");
    });
}

async fn run(store: &Arc<DynamoStore>) {
    let n = env_usize("AGORA_BENCH_N", 1_000);
    let big = env_usize("AGORA_BENCH_FIND", 10_000);
    store_calls(store, n).await;
    find_big_task(store, big).await;
    roster_appends(store, n).await;
    println!("calls made: {:?}", store.stats());
}

/// Single calls, one after the other and from 16 tasks.
async fn store_calls(store: &Arc<DynamoStore>, n: usize) {
    let per_task = n.div_ceil(CONCURRENCY);
    let t = Instant::now();
    for i in 0..n {
        let doc = to_json(&vote(&format!("seq-{i:07}"), "task_seq", &format!("agent-{i}"), i % 3 != 0));
        store.insert(vec![(VOTES, doc)]).await.expect("insert");
    }
    report("insert 1 vote, sequential", n, t.elapsed());

    let t = Instant::now();
    concurrently(store, move |store, c| async move {
        for i in 0..per_task {
            let doc = to_json(&vote(&format!("c{c:02}-{i:07}"), "task_conc", &format!("agent-{c}-{i}"), true));
            store.insert(vec![(VOTES, doc)]).await.expect("insert");
        }
    })
    .await;
    report(&format!("insert 1 vote, {CONCURRENCY} tasks"), per_task * CONCURRENCY, t.elapsed());

    let t = Instant::now();
    for i in 0..n {
        assert!(store.get(VOTES, &format!("seq-{:07}", (i * 7919) % n)).await.expect("get").is_some());
    }
    report("get, sequential", n, t.elapsed());
    let t = Instant::now();
    concurrently(store, move |store, c| async move {
        for i in 0..per_task {
            let id = format!("seq-{:07}", (c * per_task + i) * 7919 % n);
            assert!(store.get(VOTES, &id).await.expect("get").is_some());
        }
    })
    .await;
    report(&format!("get, {CONCURRENCY} tasks"), per_task * CONCURRENCY, t.elapsed());

    let t = Instant::now();
    for i in 0..n {
        let filter = Filter::must(json!({"social_task_id": "task_seq", "submitter_subject_id": format!("agent-{i}")}));
        assert_eq!(store.find(VOTES, &filter).await.expect("find").len(), 1);
    }
    report("find by (task, subject), sequential", n, t.elapsed());

    let qualified = Filter::must(json!({"social_task_id": "task_seq", "qualified": true}));
    let expected = 5.min((0..n).filter(|i| i % 3 != 0).count() as u64);
    let t = Instant::now();
    for _ in 0..n {
        assert_eq!(store.count(VOTES, &qualified, Some(5)).await.expect("count"), expected);
    }
    report("count qualified votes, limit 5, sequential", n, t.elapsed());
}

/// `find` of every vote of a task of `big` votes (inserted 50 per call).
async fn find_big_task(store: &Arc<DynamoStore>, big: usize) {
    store.reset_key_writes();
    store.track_key_writes(true);
    let t = Instant::now();
    let ids: Vec<usize> = (0..big).collect();
    for chunk in ids.chunks(50) {
        let docs = chunk.iter().map(|i| (VOTES, to_json(&vote(&format!("big-{i:07}"), "task_big", &format!("agent-{i}"), true)))).collect();
        store.insert(docs).await.expect("insert 50 votes");
    }
    report("insert 50 votes per call (votes)", big, t.elapsed());
    store.track_key_writes(false);
    let writes = store.key_writes(1);
    if let Some(hottest) = writes.hottest() {
        println!(
            "{:<44} {} {}: {} of {big} votes ({:.1}%), {} partition writes over {} keys",
            "hottest key of one task's votes",
            hottest.index.as_deref().unwrap_or("table"),
            hottest.key,
            hottest.writes,
            100.0 * writes.share_of(big as u64),
            writes.partition_writes,
            writes.keys
        );
    }
    let by_task = Filter::must(json!({"social_task_id": "task_big"}));
    for _ in 0..3 {
        let t = Instant::now();
        let found = store.find(VOTES, &by_task).await.expect("find");
        assert_eq!(found.len(), big);
        report(&format!("find the {big} votes of a task"), 1, t.elapsed());
    }
    let qualified = Filter::must(json!({"social_task_id": "task_big", "qualified": true}));
    let t = Instant::now();
    assert_eq!(store.count(VOTES, &qualified, None).await.expect("count"), big as u64);
    report(&format!("count the {big} qualified votes of a task"), 1, t.elapsed());
}

/// Appends to capped rosters: one job per 10 applicants, each append conditioned on the job
/// being open and its roster shorter than 10.
async fn roster_appends(store: &Arc<DynamoStore>, n: usize) {
    for j in 0..n.div_ceil(10) {
        store.insert(vec![("jobs", to_json(&job(&format!("job-{j:05}"), "open")))]).await.expect("insert a job");
    }
    let condition = Filter::must(json!({"bid_job_status": "open"})).and(shorter_than("roster", 10));
    let t = Instant::now();
    for i in 0..n {
        let change = Change::none().append("roster", &json!({"subject_id": format!("agent-{i}")}));
        assert!(store.update("jobs", &format!("job-{:05}", i / 10), &condition, &change).await.expect("append"));
    }
    report("append to a capped roster, sequential", n, t.elapsed());
}

/// Runs `work(store, c)` on `CONCURRENCY` tasks and waits for all.
async fn concurrently<F, Fut>(store: &Arc<DynamoStore>, work: F)
where
    F: Fn(Arc<DynamoStore>, usize) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let handles: Vec<_> = (0..CONCURRENCY).map(|c| tokio::spawn(work(Arc::clone(store), c))).collect();
    for handle in handles {
        handle.await.expect("worker");
    }
}

fn report(what: &str, n: usize, took: Duration) {
    let secs = took.as_secs_f64().max(1e-9);
    println!("{what:<48} {:>10.0}/s {:>10.2} ms each   ({n} in {secs:.2} s)", n as f64 / secs, secs * 1e3 / n as f64);
}
