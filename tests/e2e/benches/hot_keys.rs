//! The hottest DynamoDB partition key of a hot entity, printed as figures (not a test): the
//! local server on the DynamoDB store (moto), every store of the process sharing one tally of
//! its writes per partition key, of the table and of each GSI
//! (`agora_store_dynamodb::process_key_writes`). Three loads, each on a fresh server:
//!
//! 1. one public task voted by `BENCH_HOT_VOTES` distinct voters (default 10,000; its
//!    `duration` is twice that, so that no evaluation writes in the middle);
//! 2. one open job (`bid_job_max_subjects` 1,000,000,000) bid on by `BENCH_HOT_BIDS` distinct
//!    subjects (default 3,000);
//! 3. one exchange taking `BENCH_HOT_TASKS` direct tasks (default 3,000), for 50 subjects.
//!
//! For each: the writes per operation, the hottest key and its share of the operations (the
//! issue's target: at most a tenth), the hottest key that other entities share too (a key not
//! naming this entity: a deployment-wide ceiling), and the ceilings these give at DynamoDB's
//! published 1,000 write units a second per partition (a transactional write costs 2 units per
//! item on the table, a GSI entry 1). Then store round trips per vote of a large task (16 counter
//! shards), counted by the adapter (`DynamoStore::stats`), as `voting::round_trips` counts them
//! for small tasks. `docs/scale.md` holds the figures.
//!
//! `AGORA_E2E_STORE=dynamodb cargo bench -p agora-e2e --bench hot_keys` (with moto, as
//! `tests/run.sh` starts it).

use agora_e2e::load::lean_worker;
use agora_e2e::{public_request, vote_body, Server};
use agora_store_dynamodb::{process_key_writes, reset_process_key_writes, KeyCount, KeyWrites, KEY_WRITES_ENV};
use futures::future::join_all;
use serde_json::{json, Value};
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// DynamoDB's published write throughput of one partition (write units a second).
const PARTITION_WCU: f64 = 1_000.0;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

async fn server() -> Server {
    Server::start().await
}

/// Sends `requests` (path, body) with `clients` lean keep-alive clients, each answer `want`.
async fn send(server: &Server, requests: Vec<(String, String)>, want: u16, clients: usize) -> f64 {
    let (total, requests, next) = (requests.len(), Arc::new(requests), Arc::new(AtomicUsize::new(0)));
    let addr = server.running.addr;
    let started = Instant::now();
    let workers = (0..clients).map(|_| {
        let (requests, next) = (requests.clone(), next.clone());
        tokio::spawn(async move { lean_worker(addr, &requests, want, &next).await.unwrap_or_else(|e| panic!("lean client: {e}")) })
    });
    let done: usize = join_all(workers).await.into_iter().map(|r| r.expect("worker")).sum();
    assert_eq!(done, total, "every request answered {want}");
    done as f64 / started.elapsed().as_secs_f64()
}

/// Write units one write of `key` costs: 2 on the table (the hot paths write in transactions),
/// 1 for a GSI entry.
fn units(key: &KeyCount) -> f64 {
    if key.index.is_some() {
        1.0
    } else {
        2.0
    }
}

/// The ceiling (operations a second) a key puts on its entity: its partition's write units
/// over the units each operation spends on it.
fn ceiling(key: &KeyCount, operations: usize) -> f64 {
    PARTITION_WCU / (key.writes as f64 * units(key) / operations as f64)
}

fn describe(key: &KeyCount) -> String {
    format!("{} `{}`", key.index.as_deref().unwrap_or("table"), key.key)
}

/// Prints the figures of one load: `operations` writes of the entity `entity` (its id; `None`
/// when the entity is the deployment's own, as an exchange is).
fn report(what: &str, entity: Option<&str>, operations: usize, rate: f64, writes: &KeyWrites) {
    println!("{what}: {operations} at {rate:.0}/s through the local server (moto)");
    println!(
        "  writes: {:.2} items and {:.2} partition writes (table and GSIs) per operation, {} keys",
        writes.items as f64 / operations as f64,
        writes.partition_writes as f64 / operations as f64,
        writes.keys
    );
    // A key's share of the writes the load made to its key space (its GSI, or the table): for
    // votes and bids one write each, for tasks each write of a task as it moves through its
    // statuses. The hottest key is the one with the largest share.
    let share_of = |k: &KeyCount| k.writes as f64 / writes.space_writes(k).max(1) as f64;
    let Some(hottest) = writes.top.iter().max_by(|a, b| share_of(a).total_cmp(&share_of(b))) else {
        println!("  nothing written");
        return;
    };
    let share = share_of(hottest);
    let ok = if share <= 0.1 { "at most a tenth" } else { "MORE THAN A TENTH" };
    println!(
        "  hottest key: {} took {} of the {} writes to its {}: {:.1}% ({ok}); {:.3} writes of it per operation",
        describe(hottest),
        hottest.writes,
        writes.space_writes(hottest),
        if hottest.index.is_some() { "index" } else { "table" },
        share * 100.0,
        hottest.writes as f64 / operations as f64
    );
    let entity_ceiling = writes.top.iter().map(|k| ceiling(k, operations)).fold(f64::INFINITY, f64::min);
    println!("  ceiling of one such entity at {PARTITION_WCU:.0} write units/s per partition: about {entity_ceiling:.0}/s");
    let Some(entity) = entity else { return };
    match writes.top.iter().find(|k| !k.key.contains(entity)) {
        Some(shared) => println!(
            "  hottest key shared with other entities: {} ({} writes, {:.1}%): the deployment's ceiling, all entities together, about {:.0}/s",
            describe(shared),
            shared.writes,
            shared.writes as f64 / operations as f64 * 100.0,
            ceiling(shared, operations)
        ),
        None => println!("  no key among the hottest is shared with other entities"),
    }
}

async fn hot_task(voters: usize, clients: usize) {
    let server = server().await;
    let id = server.create(&public_request(2 * voters as i64)).await;
    server.wait_for_status(&id, "started", Duration::from_secs(30)).await;
    reset_process_key_writes();
    let requests = (0..voters)
        .map(|i| {
            (
                "/submit-vote".to_owned(),
                vote_body(&id, &format!("voter-{i:06}"), json!({"selected_option": "agent-translator-01"})).to_string(),
            )
        })
        .collect();
    let rate = send(&server, requests, 200, clients).await;
    let writes = process_key_writes(64).expect("the tally is on");
    report("votes of one public task by distinct voters", Some(&id), voters, rate, &writes);
}

async fn hot_job(bidders: usize, clients: usize) {
    let server = server().await;
    let job = json!({
        "bid_job_metadata": {}, "bid_job_description": {}, "bid_job_name": {"en": "Hot call"},
        "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_creator_id": "bench",
        "bid_job_mode": "open", "bid_job_max_subjects": 1_000_000_000_i64,
    });
    let (status, answer) = server.post("/bid-jobs", &job).await;
    assert_eq!(status, 201, "create: {answer}");
    let id = answer["data"]["bid_job_id"].as_str().expect("bid_job_id").to_owned();
    reset_process_key_writes();
    let path = format!("/bid-jobs/{id}/bids");
    let bid = |i: usize| json!({"bid_subject_id": format!("bidder-{i:06}"), "bid_data": {"price_usd": 100.0 + (i % 97) as f64}});
    let requests = (0..bidders).map(|i| (path.clone(), bid(i).to_string())).collect();
    let rate = send(&server, requests, 201, clients).await;
    let writes = process_key_writes(64).expect("the tally is on");
    report("bids on one open job by distinct subjects", Some(&id), bidders, rate, &writes);
}

async fn busy_exchange(tasks: usize, clients: usize) {
    let server = server().await;
    reset_process_key_writes();
    let task = |i: usize| -> Value {
        json!({"task_assignment_type": "direct", "task_data": {"n": i},
               "task_metadata": {"task_assignment": {"subject_id": format!("agent-{}", i % 50)}}})
    };
    let requests = (0..tasks).map(|i| ("/tasks".to_owned(), task(i).to_string())).collect();
    let rate = send(&server, requests, 201, clients).await;
    // Each task goes on to its assignment and its hand-over: count those writes too.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let writes = process_key_writes(64).expect("the tally is on");
    report("direct tasks posted to one exchange (with their assignment and hand-over)", None, tasks, rate, &writes);
}

/// Store round trips per vote of a task with 16 counter shards, through the vote flow on a
/// store this bench holds (so that its call counts are this flow's alone).
async fn round_trips(votes: usize) {
    use agora_voting_core::{Ports, Settings, Voting, VOTING_DB};
    let mut config = agora_store_dynamodb::DynamoConfig::from_env();
    config.table = format!("hot_trips_{}", uuid::Uuid::new_v4().simple());
    let store = agora_store_dynamodb::DynamoStore::connect(config, VOTING_DB).await.expect("dynamodb");
    store.ensure_table().await.expect("table");
    let store = Arc::new(store);
    let queue = Arc::new(agora_ports::fakes::RecordingQueue::default());
    let hooks = agora_voting_core::voting_hooks(Arc::new(agora_hooks_remote::RemoteHooks::default()), None);
    let voting = Voting::new(Ports::new(store.clone(), hooks, Arc::new(agora_runtime::LogPublisher), queue), Settings::default());
    let task = voting.create_task(&public_request(votes as i64)).await.expect("create");
    voting.start_task(&task).await.expect("start");
    let calls = || {
        let s = store.stats();
        s.get_items + s.put_items + s.delete_items + s.transactions + s.index_queries + s.collection_queries + s.update_items
    };
    voting.submit_vote(&vote_body(&task, "warm-up", json!({"selected_option": "agent-translator-02"}))).await.expect("vote");
    let mut per_vote = Vec::with_capacity(votes);
    for i in 1..votes {
        let before = calls();
        voting.submit_vote(&vote_body(&task, &format!("v-{i:05}"), json!({"selected_option": "agent-translator-02"}))).await.expect("vote");
        per_vote.push(calls() - before);
    }
    per_vote.sort_unstable();
    let mean = per_vote.iter().sum::<u64>() as f64 / per_vote.len() as f64;
    println!(
        "store round trips per vote of a task of {votes} places (16 counter shards), DynamoDB: median {}, mean {mean:.2}, most {} (the votes that fill a shard read the others, in parallel; the last votes find shards full)",
        per_vote[per_vote.len() / 2],
        per_vote[per_vote.len() - 1]
    );
}

fn main() {
    if std::env::var("AGORA_E2E_STORE").as_deref() != Ok("dynamodb") {
        eprintln!("hot_keys measures the DynamoDB adapter: run it with AGORA_E2E_STORE=dynamodb and moto (see tests/run.sh)");
        std::process::exit(2);
    }
    // Every store made from here on shares the process's tally.
    std::env::set_var(KEY_WRITES_ENV, "1");
    let clients = env_usize("BENCH_CLIENTS", 16);
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        hot_task(env_usize("BENCH_HOT_VOTES", 10_000), clients).await;
        hot_job(env_usize("BENCH_HOT_BIDS", 3_000), clients).await;
        busy_exchange(env_usize("BENCH_HOT_TASKS", 3_000), clients).await;
        round_trips(env_usize("BENCH_TRIP_VOTES", 1_100)).await;
    });
}
