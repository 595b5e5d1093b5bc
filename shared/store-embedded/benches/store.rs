//! `cargo bench -p agora-store-embedded`: throughput of the embedded store on the vote path's
//! calls, and the big reads (a million votes of one task).
//!
//! Each line gives the wall-clock rate and, since the machine may be shared, the CPU time the
//! process spent per operation (all threads, user + system; from `/proc/self/stat`).
//! `AGORA_BENCH_VOTES` sets the size of the big task (default 1,000,000; 0 skips that part);
//! `AGORA_BENCH_SMALL=0` skips the single-document calls; `AGORA_BENCH_LEAN=1` indexes only
//! `votes.social_task_id` (besides the key and the unique pair), to show what the other
//! indexes of the contract suite's `CONTRACT_DB` (voting's layout of votes) cost.

use agora_filter::Filter;
use agora_store::{to_json, CollectionSpec, DatabaseSpec, DocumentStore};
use agora_store_contract::fixtures::{task, vote};
use agora_store_contract::CONTRACT_DB;
use agora_store_embedded::EmbeddedStore;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

const VOTES: &str = "votes";
const TASKS: &str = "tasks";
const CLAIMS: &str = "agora_claims";
const CONCURRENCY: usize = 16;
const SMALL: usize = 20_000;

/// `CONTRACT_DB` with only `social_task_id` indexed on votes.
const LEAN_DB: DatabaseSpec = DatabaseSpec::new(
    "contract",
    &[
        CollectionSpec { name: TASKS, key: "social_task_id", unique: &[], indexed: &["status"] },
        CollectionSpec {
            name: VOTES,
            key: "vote_id",
            unique: &[&["social_task_id", "submitter_subject_id"]],
            indexed: &["social_task_id"],
        },
        CollectionSpec { name: CLAIMS, key: "claim_id", unique: &[], indexed: &[] },
    ],
);

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let path = std::env::temp_dir().join(format!("agora-store-embedded-bench-{}.db", std::process::id()));
    remove_files(&path);
    runtime.block_on(run(&path));
    remove_files(&path);
}

async fn run(path: &Path) {
    let big: usize = std::env::var("AGORA_BENCH_VOTES").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let lean = std::env::var("AGORA_BENCH_LEAN").is_ok_and(|v| v == "1");
    let store = Arc::new(EmbeddedStore::open(path, if lean { LEAN_DB } else { CONTRACT_DB }).expect("open"));
    let spec = if lean { "votes indexed on social_task_id only" } else { "CONTRACT_DB" };
    println!("embedded store bench, file {}, {spec}, 2 tokio workers", path.display());
    println!("{:<46} {:>12} {:>12} {:>12}", "", "rate", "wall each", "cpu each");
    if std::env::var("AGORA_BENCH_SMALL").map_or(true, |v| v != "0") {
        small_calls(&store).await;
    }
    if big > 0 {
        big_task(&store, path, big).await;
    }
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len() as f64 / 1e6).unwrap_or(0.0);
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    println!("database file: {:.0} MB, WAL: {:.0} MB", size(path), size(Path::new(&wal)));
}

/// Single-document calls, one after the other and from 16 tasks.
async fn small_calls(store: &Arc<EmbeddedStore>) {
    let n = SMALL;
    let per_task = n / CONCURRENCY;

    let t = Timer::start();
    for i in 0..n {
        let doc = to_json(&vote(&uuid_like("seq", i), "task_seq", &format!("agent-{i}"), true));
        store.insert(vec![(VOTES, doc)]).await.expect("insert");
    }
    t.report("insert 1 vote, sequential", n);

    let t = Timer::start();
    concurrently(store, move |store, c| async move {
        for i in 0..per_task {
            let id = uuid_like(&format!("c{c:02}"), i);
            let doc = to_json(&vote(&id, "task_conc", &format!("agent-{c}-{i}"), true));
            store.insert(vec![(VOTES, doc)]).await.expect("insert");
        }
    })
    .await;
    t.report(&format!("insert 1 vote, {CONCURRENCY} tasks"), per_task * CONCURRENCY);

    let t = Timer::start();
    for i in 0..n {
        let id = uuid_like("seq", (i * 7919) % n);
        assert!(store.get(VOTES, &id).await.expect("get").is_some());
    }
    t.report("get, sequential", n);
    let t = Timer::start();
    concurrently(store, move |store, c| async move {
        for i in 0..per_task {
            let id = uuid_like("seq", (c * per_task + i) * 7919 % n);
            assert!(store.get(VOTES, &id).await.expect("get").is_some());
        }
    })
    .await;
    t.report(&format!("get, {CONCURRENCY} tasks"), per_task * CONCURRENCY);

    let t = Timer::start();
    concurrently(store, move |store, c| async move {
        for i in 0..per_task {
            let filter = Filter::must(json!({"social_task_id": "task_conc", "submitter_subject_id": format!("agent-{c}-{i}")}));
            assert_eq!(store.find(VOTES, &filter).await.expect("find").len(), 1);
        }
    })
    .await;
    t.report(&format!("find 1 vote by (task, subject), {CONCURRENCY} tasks"), per_task * CONCURRENCY);

    // The store calls of one vote (as a vote path makes them): read the task, look for the vote
    // and for the subject's vote, insert it, check the trigger claim, count qualified votes up
    // to the trigger, claim the trigger.
    store.insert(vec![(TASKS, to_json(&task("task_path", "started", &[])))]).await.expect("insert task");
    let t = Timer::start();
    concurrently(store, move |store, c| async move {
        for i in 0..per_task {
            let subject = format!("agent-{c}-{i}");
            let vote_id = uuid_like(&format!("p{c:02}"), i);
            assert!(store.get(TASKS, "task_path").await.expect("get").is_some());
            assert!(store.get(VOTES, &vote_id).await.expect("get").is_none());
            let mine = Filter::must(json!({"social_task_id": "task_path", "submitter_subject_id": subject}));
            assert!(store.find(VOTES, &mine).await.expect("find").is_empty());
            let doc = to_json(&vote(&vote_id, "task_path", &subject, true));
            store.insert(vec![(VOTES, doc)]).await.expect("insert");
            if store.get(CLAIMS, "trigger:task_path").await.expect("get").is_none() {
                let qualified = Filter::must(json!({"social_task_id": "task_path", "qualified": true}));
                if store.count(VOTES, &qualified, Some(5)).await.expect("count") >= 5 {
                    let claim = to_json(&json!({"claim_id": "trigger:task_path", "owner": subject}));
                    let _ = store.insert(vec![(CLAIMS, claim)]).await;
                }
            }
        }
    })
    .await;
    t.report(&format!("vote path (~6 calls), {CONCURRENCY} tasks"), per_task * CONCURRENCY);
}

/// A task with `big` votes: loading, finding, counting.
async fn big_task(store: &Arc<EmbeddedStore>, path: &Path, big: usize) {
    let t = Timer::start();
    let batch = 5_000;
    let mut bytes = 0usize;
    for start in (0..big).step_by(batch) {
        let docs: Vec<_> = (start..(start + batch).min(big))
            .map(|i| to_json(&vote(&uuid_like("big", i), "task_big", &format!("agent-reviewer-{i:07}"), true)))
            .inspect(|d| bytes += d.get().len())
            .map(|d| (VOTES, d))
            .collect();
        store.insert(docs).await.expect("insert batch");
    }
    t.report(&format!("insert {batch} votes per call (per vote)"), big);
    println!("  {big} votes of {:.0} bytes each", bytes as f64 / big as f64);
    print_plan(path);

    let by_task = Filter::must(json!({"social_task_id": "task_big", "qualified": true}));
    for round in 1..=3 {
        let t = Timer::start();
        let docs = store.find(VOTES, &by_task).await.expect("find");
        assert_eq!(docs.len(), big);
        t.report_once(&format!("find by task, qualified: {big} votes (round {round})"));
    }
    let unindexed = Filter::must(json!({"social_task_id": "task_big", "vote_data.selected_option": "agent-translator-02"}));
    let t = Timer::start();
    let docs = store.find(VOTES, &unindexed).await.expect("find");
    assert_eq!(docs.len(), big);
    t.report_once("find by task + unindexed field (parsed)");
    drop(docs);

    let n_counts = 10_000;
    let t = Timer::start();
    for _ in 0..n_counts {
        assert_eq!(store.count(VOTES, &by_task, Some(5)).await.expect("count"), 5);
    }
    t.report("count by task, qualified, limit 5", n_counts);
    let t = Timer::start();
    assert_eq!(store.count(VOTES, &by_task, None).await.expect("count"), big as u64);
    t.report_once(&format!("count by task, qualified: {big} votes"));
    let t = Timer::start();
    assert_eq!(store.count(VOTES, &unindexed, Some(5)).await.expect("count"), 5);
    t.report_once("count by task + unindexed field, limit 5");
}

/// Wall-clock and process CPU time since `start`.
struct Timer {
    wall: Instant,
    cpu: Duration,
}

impl Timer {
    fn start() -> Timer {
        Timer { wall: Instant::now(), cpu: process_cpu() }
    }

    fn report(&self, what: &str, n: usize) {
        let (wall, cpu) = (self.wall.elapsed().as_secs_f64(), (process_cpu() - self.cpu).as_secs_f64());
        let each = |s: f64| format!("{:.1} µs", s * 1e6 / n as f64);
        println!("{what:<46} {:>10.0}/s {:>12} {:>12}", n as f64 / wall, each(wall), each(cpu));
    }

    fn report_once(&self, what: &str) {
        let (wall, cpu) = (self.wall.elapsed().as_secs_f64(), (process_cpu() - self.cpu).as_secs_f64());
        println!("{what:<46} {:>12} {:>12} {:>12}", "", format!("{wall:.3} s"), format!("{cpu:.3} s"));
    }
}

/// CPU time of this process (user + system, all threads), 0 where unknown.
fn process_cpu() -> Duration {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return Duration::ZERO };
    // Fields after the command name (which may hold spaces) ends with ')'.
    let Some((_, rest)) = stat.rsplit_once(')') else { return Duration::ZERO };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = [11, 12].iter().filter_map(|i| fields.get(*i)?.parse::<u64>().ok()).sum();
    Duration::from_millis(ticks * 10)
}

/// Runs `CONCURRENCY` tasks of `work(store, task_number)` and waits for all.
async fn concurrently<F, Fut>(store: &Arc<EmbeddedStore>, work: F)
where
    F: Fn(Arc<EmbeddedStore>, usize) -> Fut,
    Fut: std::future::Future<Output = ()> + Send + 'static,
{
    let handles: Vec<_> = (0..CONCURRENCY).map(|c| tokio::spawn(work(Arc::clone(store), c))).collect();
    for h in handles {
        h.await.expect("bench task");
    }
}

/// A UUID-shaped vote id, unique per `(prefix, i)`.
fn uuid_like(prefix: &str, i: usize) -> String {
    let mut hex: String = prefix.bytes().map(|b| format!("{b:02x}")).collect();
    hex.truncate(8);
    format!("{hex:0<8}-0000-4000-8000-{i:012}")
}

/// Prints SQLite's plan for the big find (the SQL the store runs for it), read straight from
/// the file.
fn print_plan(path: &Path) {
    let Ok(conn) = rusqlite::Connection::open(path) else { return };
    let sql = "EXPLAIN QUERY PLAN SELECT doc FROM \"votes\" INDEXED BY \"votes__social_task_id\" WHERE \"f_social_task_id\" = ?1 AND \"f_qualified\" = ?2 ORDER BY seq";
    let Ok(mut stmt) = conn.prepare(sql) else { return };
    let rows = stmt.query_map(rusqlite::params!["task_big", vec![1u8]], |row| row.get::<_, String>(3));
    if let Ok(rows) = rows {
        for detail in rows.flatten() {
            println!("  plan: {detail}");
        }
    }
}

fn remove_files(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
}
