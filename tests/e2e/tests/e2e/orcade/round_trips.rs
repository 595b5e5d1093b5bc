//! Store round trips per accepted bid, counted against the real servers: on MongoDB every
//! command the driver sends (its command monitoring: one event per round trip, heartbeats
//! aside), on DynamoDB every API call the adapter makes (`DynamoStore::stats`). Each case is
//! measured warm: the job already read and bid on once, its counter made. The queues and the
//! delegate are in-memory fakes, so only the bid's own store calls are counted (the evaluation
//! the closing bid requests is queued, not run). The figures are printed (`--nocapture`) and
//! held to the numbers measured, so that a change in the flow shows here.

use super::{bid, closed_job, open_job};
use agora_orcade_core::{orcade_hooks, Orcade, Ports, Settings, ORCADE_DB};
use agora_ports::fakes::{RecordingQueue, ScriptedDelegate};
use agora_store::DocumentStore;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The calls made so far, by kind (a MongoDB command's name, a DynamoDB API call).
type Calls = BTreeMap<String, u64>;

/// What one kind of accepted bid costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Trips {
    /// On an open job, not its last place.
    open: u64,
    /// The bid that fills an open job (`bid_job_max_subjects`), which closes it.
    open_filling: u64,
    /// On a closed-mode job, not the last roster member.
    closed: u64,
    /// The bid that completes a closed-mode job's roster, which closes it.
    closing: u64,
}

/// Counts the round trips of each kind of bid on `store`; `calls()` reads the calls so far.
/// Prints what each case sent.
async fn measure(store: Arc<dyn DocumentStore>, calls: impl Fn() -> Calls) -> Trips {
    let evaluations = Arc::new(RecordingQueue::default());
    let deliveries = Arc::new(RecordingQueue::default());
    let delegate = Arc::new(ScriptedDelegate::new(|_| Ok(json!({"success": true, "ack": {}, "output": {}}))));
    let mut ports = Ports::new(store, orcade_hooks(Arc::new(agora_hooks::NoRemote)), evaluations.clone(), deliveries, delegate);
    // A clock that stands still: each job, once read, stays in the bid flow's cache (as on a busy
    // job, read at most once a second), however long the servers take.
    ports.clock = Arc::new(agora_ports::fakes::ManualClock::new(chrono::Utc::now()));
    let orcade = Orcade::new(ports, Settings::default());
    let open = orcade.creator().create_job(&open_job(Some(3), None)).await.expect("create").bid_job_id;
    let mut roster = closed_job();
    roster["bid_job_subject_ids"] = json!(["m1", "m2", "m3"]);
    let closed = orcade.creator().create_job(&roster).await.expect("create").bid_job_id;

    // Warm: each job read and bid on once, its counter made (on MongoDB a job's first counted
    // insert also aborts and retries its transaction once, the counter being new).
    cost(&orcade, &calls, &open, bid("o1", 30.0, 0.9)).await;
    cost(&orcade, &calls, &closed, bid("m1", 30.0, 0.9)).await;
    let measured = Trips {
        open: cost(&orcade, &calls, &open, bid("o2", 20.0, 0.9)).await,
        open_filling: cost(&orcade, &calls, &open, bid("o3", 10.0, 0.9)).await,
        closed: cost(&orcade, &calls, &closed, bid("m2", 20.0, 0.9)).await,
        closing: cost(&orcade, &calls, &closed, bid("m3", 10.0, 0.9)).await,
    };
    // The last bids closed both jobs, each requesting one evaluation.
    let requested: Vec<String> = evaluations.take().into_iter().map(|s| s.key).collect();
    assert_eq!(requested, [open, closed], "one evaluation request per closed job");
    measured
}

/// The round trips of one accepted bid (printed by kind).
async fn cost(orcade: &Orcade, calls: &impl Fn() -> Calls, job: &str, body: Value) -> u64 {
    let before = calls();
    orcade.intake().submit_bid(job, &body).await.expect("accepted");
    let made: Calls = calls()
        .into_iter()
        .filter_map(|(kind, n)| {
            let new = n - before.get(&kind).copied().unwrap_or(0);
            (new > 0).then_some((kind, new))
        })
        .collect();
    println!("  bid {} on {job}: {made:?}", body["bid_subject_id"]);
    made.values().sum()
}

fn report(store: &str, trips: Trips) {
    println!(
        "round trips per accepted bid on {store}: open job {}, open job's filling bid (closes it) {}, closed job (not the last) {}, closed job's last roster bid (closes it) {}",
        trips.open, trips.open_filling, trips.closed, trips.closing
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn round_trips_per_bid_on_mongodb() {
    let Ok(uri) = std::env::var("MONGODB_URI") else {
        panic!("MONGODB_URI is not set: run ./tests/run.sh, which starts the servers this test needs")
    };
    let sent = Arc::new(Mutex::new(Calls::new()));
    let counter = sent.clone();
    let mut options = mongodb::options::ClientOptions::parse(&uri).await.expect("uri");
    options.command_event_handler = Some(mongodb::event::EventHandler::callback(move |event| {
        if let mongodb::event::command::CommandEvent::Started(started) = event {
            *counter.lock().unwrap_or_else(|p| p.into_inner()).entry(started.command_name).or_default() += 1;
        }
    }));
    let client = mongodb::Client::with_options(options).expect("client");
    let db = ORCADE_DB.named(format!("trips_{}", uuid::Uuid::new_v4().simple()));
    let store = agora_store_mongodb::MongoStore::with_client(client, db).await.expect("mongodb");
    let trips = measure(Arc::new(store), move || sent.lock().unwrap_or_else(|p| p.into_inner()).clone()).await;
    report("MongoDB", trips);
    // A bid on a closed job: the bid with its count in one transaction (findAndModify, insert,
    // commitTransaction); the job comes from the bid flow's cache, and with a builtin PQT there
    // is no lookup of the subject's earlier bid (the unique index refuses a second one in that
    // write). An open job's bid costs the same: its applicants are its bids, nothing else is
    // written. The bid that closes a job adds the pending mark (insert), the fence
    // (findAndModify, unread: every closer fences first), the close (update) and the request's
    // record (insert); an open job's filling bid reads its applicants (find) for the roster the
    // close writes, a closed job's last bid reads the job again (find), whose roster a PATCH may
    // have replaced since the cache read it.
    assert_eq!(trips, Trips { open: 3, open_filling: 8, closed: 3, closing: 8 });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn round_trips_per_bid_on_dynamodb() {
    assert!(std::env::var("AGORA_DYNAMODB_ENDPOINT").is_ok(), "AGORA_DYNAMODB_ENDPOINT is not set: run ./tests/run.sh");
    let mut config = agora_store_dynamodb::DynamoConfig::from_env();
    config.table = format!("trips_{}", uuid::Uuid::new_v4().simple());
    let store = agora_store_dynamodb::DynamoStore::connect(config, ORCADE_DB).await.expect("dynamodb");
    store.ensure_table().await.expect("table");
    let store = Arc::new(store);
    let counted = store.clone();
    let calls = move || {
        let s = counted.stats();
        [
            ("GetItem", s.get_items),
            ("PutItem", s.put_items),
            ("DeleteItem", s.delete_items),
            ("TransactWriteItems", s.transactions),
            ("Query (field index)", s.index_queries),
            ("Query (collection)", s.collection_queries),
            ("UpdateItem", s.update_items),
        ]
        .into_iter()
        .map(|(k, n)| (k.to_owned(), n))
        .collect::<Calls>()
    };
    let trips = measure(store.clone(), calls).await;
    report("DynamoDB", trips);
    let _ = store.delete_table().await;
    // A bid on a closed job: one TransactWriteItems (the bid, its unique pair's marker, its
    // count) and the count read back; the job comes from the cache, and with a builtin PQT there
    // is no lookup of the subject's earlier bid. An open job's bid costs the same. The bid that
    // closes a job adds the pending mark (put), the fence (UpdateItem, unread), the close (get,
    // conditional put) and the request's record (put); an open job's filling bid reads its
    // applicants (one query of each of the index's 16 write shards, in parallel: 16 calls, one
    // round trip of latency) for the roster the close writes, a closed job's last bid reads the
    // job again (get), whose roster a PATCH may have replaced since the cache read it.
    assert_eq!(trips, Trips { open: 2, open_filling: 7 + agora_store_dynamodb::GSI_SHARDS as u64, closed: 2, closing: 8 });
}
