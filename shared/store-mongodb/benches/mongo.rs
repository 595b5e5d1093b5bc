//! Throughput of [`MongoStore`] against the server at `MONGODB_URI`, on a database of its own
//! (dropped at the end): single-vote inserts (sequential, then 16 at once), gets (sequential,
//! then 16 at once), and `find`/`count` over the votes of one task with 100k votes.
//!
//! `cargo bench -p agora-store-mongodb` (with `MONGODB_URI` set, e.g. by `./tests/run.sh`'s
//! `tests/services.sh`). Sizes: `AGORA_BENCH_INSERTS` (single inserts per phase, default 3000),
//! `AGORA_BENCH_GETS` (default 3000), `AGORA_BENCH_FIND_VOTES` (default 100000).

use agora_filter::Filter;
use agora_store::{to_json, DocumentStore, Json};
use agora_store_contract::spec::VOTES;
use agora_store_contract::CONTRACT_DB;
use agora_store_mongodb::MongoStore;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Concurrent callers in the concurrent phases.
const CONCURRENCY: usize = 16;

/// Votes per `insert` call when loading the big task.
const LOAD_BATCH: usize = 1_000;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn vote(id: &str, task: &str, subject: &str, qualified: bool) -> Json {
    to_json(&json!({
        "vote_id": id,
        "social_task_id": task,
        "submitter_subject_id": subject,
        "vote_data": {"selected_option": "agent-translator-02", "ranking": ["agent-translator-02", "agent-translator-03"]},
        "submission_time": "2026-10-22T10:03:12.481203",
        "qualified": qualified
    }))
}

/// Prints one result line: operations per second, and latency percentiles when measured.
fn report(what: &str, ops: usize, elapsed: Duration, latencies: &mut [Duration]) {
    let per_second = ops as f64 / elapsed.as_secs_f64();
    let mut line = format!("{what:<52} {ops:>7} ops in {:>7.3} s = {per_second:>9.0} /s", elapsed.as_secs_f64());
    if ops == 1 {
        println!("{what:<52} {:>10.1} ms", elapsed.as_secs_f64() * 1e3);
        return;
    }
    if !latencies.is_empty() {
        latencies.sort();
        let at = |q: f64| latencies[((latencies.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1e3;
        line.push_str(&format!("   p50 {:.2} ms  p99 {:.2} ms", at(0.5), at(0.99)));
    }
    println!("{line}");
}

/// Runs `ops` calls of `op(i)` from `CONCURRENCY` tasks at once; returns the elapsed time and
/// every call's latency.
async fn concurrently<F, Fut>(ops: usize, op: F) -> (Duration, Vec<Duration>)
where
    F: Fn(usize) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let op = Arc::new(op);
    let start = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..CONCURRENCY {
        let op = Arc::clone(&op);
        tasks.spawn(async move {
            let mut latencies = Vec::new();
            for i in (worker..ops).step_by(CONCURRENCY) {
                let t = Instant::now();
                op(i).await;
                latencies.push(t.elapsed());
            }
            latencies
        });
    }
    let mut latencies = Vec::with_capacity(ops);
    while let Some(done) = tasks.join_next().await {
        latencies.extend(done.expect("bench task"));
    }
    (start.elapsed(), latencies)
}

/// CPU time this process has used (user + system, all threads), from `/proc/self/stat`; zero
/// where that file is missing.
fn process_cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (in parentheses): utime and stime are the 12th and 13th.
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 = after_name.split_whitespace().skip(11).take(2).filter_map(|f| f.parse::<u64>().ok()).sum();
    // Linux reports them in clock ticks of 1/100 s (USER_HZ).
    Duration::from_millis(ticks * 10)
}

fn main() {
    let Ok(uri) = std::env::var("MONGODB_URI") else {
        eprintln!("MONGODB_URI is not set: run ./tests/run.sh (which starts a MongoDB-protocol server) or export it.");
        std::process::exit(1);
    };
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio runtime");
    runtime.block_on(run(&uri));
}

async fn run(uri: &str) {
    let inserts = env_usize("AGORA_BENCH_INSERTS", 3_000);
    let gets = env_usize("AGORA_BENCH_GETS", 3_000);
    let find_votes = env_usize("AGORA_BENCH_FIND_VOTES", 100_000);
    let name = format!("agora_bench_{}", std::process::id());
    let store = Arc::new(MongoStore::connect(uri, CONTRACT_DB.named(name.clone())).await.expect("connect"));
    println!("MongoStore at {uri}, database {name}");

    // Single-vote inserts, one after the other.
    let mut latencies = Vec::with_capacity(inserts);
    let start = Instant::now();
    for i in 0..inserts {
        let t = Instant::now();
        store
            .insert(vec![(VOTES, vote(&format!("seq-{i}"), &format!("task_seq_{}", i % 100), &format!("agent-{i}"), true))])
            .await
            .expect("insert");
        latencies.push(t.elapsed());
    }
    report("insert 1 vote, sequential", inserts, start.elapsed(), &mut latencies);

    // Single-vote inserts, 16 callers at once.
    let s = Arc::clone(&store);
    let (elapsed, mut latencies) = concurrently(inserts, move |i| {
        let s = Arc::clone(&s);
        async move {
            s.insert(vec![(VOTES, vote(&format!("conc-{i}"), &format!("task_conc_{}", i % 100), &format!("agent-{i}"), true))])
                .await
                .expect("insert");
        }
    })
    .await;
    report(&format!("insert 1 vote, {CONCURRENCY} concurrent"), inserts, elapsed, &mut latencies);

    // Gets of existing votes.
    let mut latencies = Vec::with_capacity(gets);
    let start = Instant::now();
    for i in 0..gets {
        let t = Instant::now();
        let found = store.get(VOTES, &format!("seq-{}", (i * 7_919) % inserts)).await.expect("get");
        assert!(found.is_some());
        latencies.push(t.elapsed());
    }
    report("get 1 vote, sequential", gets, start.elapsed(), &mut latencies);
    let s = Arc::clone(&store);
    let (elapsed, mut latencies) = concurrently(gets, move |i| {
        let s = Arc::clone(&s);
        async move {
            assert!(s.get(VOTES, &format!("conc-{}", (i * 7_919) % inserts)).await.expect("get").is_some());
        }
    })
    .await;
    report(&format!("get 1 vote, {CONCURRENCY} concurrent"), gets, elapsed, &mut latencies);

    // One task with many votes: load in batches (one transaction each), then read them back.
    let start = Instant::now();
    for chunk in (0..find_votes).collect::<Vec<_>>().chunks(LOAD_BATCH) {
        let docs = chunk.iter().map(|i| (VOTES, vote(&format!("big-{i:07}"), "task_big", &format!("agent-{i:07}"), i % 3 != 0))).collect();
        store.insert(docs).await.expect("insert a batch");
    }
    report(&format!("insert votes in batches of {LOAD_BATCH} (transactions)"), find_votes, start.elapsed(), &mut []);

    let by_task = Filter::must(json!({"social_task_id": "task_big"}));
    let (start, cpu) = (Instant::now(), process_cpu());
    let found = store.find(VOTES, &by_task).await.expect("find");
    let (elapsed, cpu) = (start.elapsed(), process_cpu().saturating_sub(cpu));
    assert_eq!(found.len(), find_votes);
    report(&format!("find the {find_votes} votes of one task (docs)"), found.len(), elapsed, &mut []);
    println!("  bench process CPU during that find: {:.0} ms", cpu.as_secs_f64() * 1e3);
    drop(found);

    // The same read through the driver alone, without turning the BSON into JSON: the difference
    // is what the adapter adds.
    let raw = store.database().collection::<bson::RawDocumentBuf>(VOTES);
    let (start, cpu) = (Instant::now(), process_cpu());
    let mut cursor = raw
        .find(bson::doc! {"social_task_id": "task_big"})
        .projection(bson::doc! {"_id": 0})
        .sort(bson::doc! {"_id": 1})
        .await
        .expect("find");
    let mut n = 0;
    while cursor.advance().await.expect("cursor") {
        n += usize::from(!cursor.current().as_bytes().is_empty());
    }
    let (elapsed, cpu) = (start.elapsed(), process_cpu().saturating_sub(cpu));
    report("the same through the driver alone, BSON only (docs)", n, elapsed, &mut []);
    println!("  bench process CPU during that find: {:.0} ms", cpu.as_secs_f64() * 1e3);

    let qualified = Filter::must(json!({"social_task_id": "task_big", "qualified": true}));
    let start = Instant::now();
    let found = store.find(VOTES, &qualified).await.expect("find");
    report("find the qualified votes of that task (docs)", found.len(), start.elapsed(), &mut []);
    drop(found);

    let start = Instant::now();
    let n = store.count(VOTES, &by_task, None).await.expect("count");
    assert_eq!(n, find_votes as u64);
    report("count the votes of that task", 1, start.elapsed(), &mut []);
    let start = Instant::now();
    let n = store.count(VOTES, &qualified, Some(10)).await.expect("count");
    assert_eq!(n, 10.min(find_votes as u64 * 2 / 3));
    report("count qualified votes with limit 10", 1, start.elapsed(), &mut []);

    if let Err(e) = store.database().drop().await {
        eprintln!("could not drop {name}: {e}");
    }
}
