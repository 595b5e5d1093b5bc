//! The memory of the local server answering `POST /generic-query/votes` over the 200,000 votes of
//! one task, printed as figures (not a test): the server runs as a child process (the
//! `agora-e2e-local` program) on an embedded store filled beforehand, and its peak resident
//! memory (`VmHWM` of `/proc/<pid>/status`) is read after the query, beside its resident memory
//! before it (and, after it, how much of it is anonymous memory, how much mapped files). Twice,
//! each on a fresh process: the unpaged query, then a walk through pages of `?limit=10000`. The
//! body is read as a stream (its bytes and documents counted as they come), so this process never
//! holds it either.
//!
//! `cargo bench -p agora-e2e --bench query_memory` (env: BENCH_QUERY_VOTES, BENCH_QUERY_PAGE).
//! Target: under 100 MB peak for the unpaged query over 200,000 votes.

use agora_e2e::{temp_dir, ServerProcess, TRANSLATORS};
use agora_store::to_json;
use agora_voting_core::VOTING_DB;
use agora_voting_schema::collections::VOTES;
use serde_json::json;
use std::path::Path;
use std::time::{Duration, Instant};

const TASK: &str = "task_querymem";

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Writes `n` qualified votes of [`TASK`] straight into the embedded store in `dir`, as the
/// server will open it.
async fn fill(dir: &Path, n: usize) {
    let store = agora_runtime::open_store(agora_runtime::StoreKind::Embedded, dir, VOTING_DB, None).await.expect("embedded store");
    let base = chrono::Utc::now();
    let ids: Vec<usize> = (0..n).collect();
    for chunk in ids.chunks(5_000) {
        let docs = chunk
            .iter()
            .map(|&i| {
                let vote = agora_voting_schema::Vote {
                    vote_id: uuid::Uuid::new_v4().to_string(),
                    social_task_id: TASK.to_owned(),
                    submitter_subject_id: format!("voter-{i:07}"),
                    vote_data: json!({"selected_option": TRANSLATORS[(i * 7 + i / 3) % 3]}),
                    submission_time: base + chrono::Duration::microseconds(i as i64),
                    qualified: true,
                    weight: None,
                };
                (VOTES, to_json(&vote))
            })
            .collect();
        store.insert(docs).await.expect("bulk insert");
    }
}

/// A field of `/proc/<pid>/status`, in kB.
fn status_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("the server's /proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':')?.trim().strip_suffix("kB")?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

fn mb(kb: u64) -> f64 {
    kb as f64 / 1024.0
}

/// Counts the documents of a JSON array as its bytes come: the objects opened right inside the
/// top-level array (strings, with their escapes, skipped).
#[derive(Default)]
struct ArrayCounter {
    depth: u32,
    in_string: bool,
    escaped: bool,
    docs: u64,
    bytes: u64,
    first: Option<u8>,
    last: Option<u8>,
}

impl ArrayCounter {
    fn feed(&mut self, chunk: &[u8]) {
        self.bytes += chunk.len() as u64;
        for &b in chunk {
            self.first.get_or_insert(b);
            self.last = Some(b);
            if self.in_string {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b'"') => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    if b == b'{' && self.depth == 1 {
                        self.docs += 1;
                    }
                    self.depth += 1;
                }
                b'}' | b']' => self.depth -= 1,
                _ => {}
            }
        }
    }

    /// Whether what was fed is one whole array.
    fn whole(&self) -> bool {
        self.first == Some(b'[') && self.last == Some(b']') && self.depth == 0 && !self.in_string
    }
}

/// POSTs the votes query (`query`: the query string) and reads the answer as it comes; returns
/// the bytes and documents it held.
async fn query(server: &ServerProcess, query: &str) -> (u64, u64) {
    let url = server.url(&format!("/generic-query/votes{query}"));
    let mut response = server.http.post(url).body(json!({"social_task_id": TASK}).to_string()).send().await.expect("the query is answered");
    assert_eq!(response.status().as_u16(), 200, "{query}");
    let mut counter = ArrayCounter::default();
    while let Some(chunk) = response.chunk().await.expect("the body reads to its end") {
        counter.feed(&chunk);
    }
    assert!(counter.whole(), "{query}: the answer is one JSON array");
    (counter.bytes, counter.docs)
}

/// One run on a fresh server process over `dir`: what `work` read, the time it took, the
/// server's resident memory before it and its peak.
async fn measure<F, Fut>(dir: &Path, what: &str, work: F)
where
    F: FnOnce(ServerProcess) -> Fut,
    Fut: std::future::Future<Output = (ServerProcess, u64, u64)>,
{
    let server = ServerProcess::start(env!("CARGO_BIN_EXE_agora-e2e-local"), &["--data-dir".into(), dir.display().to_string()], &[]);
    // Let the start-up settle (the first sweep, the store's first reads).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = server.pid();
    let (rss_before, peak_before) = (status_kb(pid, "VmRSS"), status_kb(pid, "VmHWM"));
    let started = Instant::now();
    let (server, bytes, docs) = work(server).await;
    let took = started.elapsed();
    let (peak, rss_after) = (status_kb(pid, "VmHWM"), status_kb(pid, "VmRSS"));
    let (anon, file) = (status_kb(pid, "RssAnon"), status_kb(pid, "RssFile"));
    println!(
        "{what}: {docs} votes, {:.1} MB in {:.2} s ({:.0} MB/s); server RSS before {:.1} MB (peak so far {:.1} MB), peak {:.1} MB, after {:.1} MB ({:.1} MB anonymous, {:.1} MB file-backed) (target: peak < 100 MB)",
        bytes as f64 / 1e6,
        took.as_secs_f64(),
        bytes as f64 / 1e6 / took.as_secs_f64(),
        mb(rss_before),
        mb(peak_before),
        mb(peak),
        mb(rss_after),
        mb(anon),
        mb(file),
    );
    drop(server);
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let n = env_usize("BENCH_QUERY_VOTES", 200_000);
        let page = env_usize("BENCH_QUERY_PAGE", 10_000);
        let dir = temp_dir("query-memory");
        let filled = Instant::now();
        fill(&dir, n).await;
        let size: u64 = std::fs::read_dir(&dir).expect("data dir").filter_map(|e| e.ok()?.metadata().ok()).map(|m| m.len()).sum();
        eprintln!("  (stored {n} votes in {:.1} s; data folder {:.0} MB)", filled.elapsed().as_secs_f64(), size as f64 / 1e6);

        measure(&dir, &format!("unpaged query over {n} votes"), |server| async move {
            let (bytes, docs) = query(&server, "").await;
            assert_eq!(docs, n as u64, "every vote");
            (server, bytes, docs)
        })
        .await;

        measure(&dir, &format!("paged walk (limit={page}) over {n} votes"), |server| async move {
            let (mut bytes, mut docs) = (0, 0);
            loop {
                let (b, d) = query(&server, &format!("?limit={page}&skip={docs}")).await;
                bytes += b;
                docs += d;
                if d < page as u64 {
                    break;
                }
            }
            assert_eq!(docs, n as u64, "every vote, once");
            (server, bytes, docs)
        })
        .await;

        let _ = std::fs::remove_dir_all(&dir);
    });
}
