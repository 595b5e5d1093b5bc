//! Store round trips per vote, counted against the real servers: on MongoDB every command the
//! driver sends (its command monitoring: one event per round trip, heartbeats aside), on
//! DynamoDB every API call the adapter makes (`DynamoStore::stats`). Each case is measured
//! warm, as a busy task's votes are: the task and its specs already read once. The figures are
//! printed (`--nocapture`) and held to the numbers the README gives.

use agora_e2e::{public_request, vote_body};
use agora_store::DocumentStore;
use agora_voting_core::{Ports, Settings, Voting, VOTING_DB};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What one kind of vote costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Trips {
    qualified: u64,
    disqualified: u64,
    triggering: u64,
    private: u64,
}

/// Counts the round trips of each kind of vote on `store`; `trips()` reads the count so far.
async fn measure(store: Arc<dyn DocumentStore>, trips: impl Fn() -> u64) -> Trips {
    let queue = Arc::new(agora_ports::fakes::RecordingQueue::default());
    let hooks = agora_voting_core::voting_hooks(Arc::new(agora_hooks_remote::RemoteHooks::default()), None);
    let voting = Voting::new(Ports::new(store, hooks, Arc::new(agora_runtime::LogPublisher), queue), Settings::default());
    let public = voting.create_task(&public_request(3)).await.expect("create");
    voting.start_task(&public).await.expect("start");
    let mut private_request = agora_e2e::example_request();
    private_request["social_task"]["org_ids"] = json!(["m1", "m2", "m3"]);
    let private = voting.create_task(&private_request).await.expect("create");
    voting.start_task(&private).await.expect("start");
    let good = json!({"selected_option": "agent-translator-02"});
    let bad = json!({"selected_option": "agent-nobody"});

    // Warm: each task read once, its specs and its counter made.
    cost(&voting, &trips, vote_body(&public, "warm-1", good.clone())).await;
    cost(&voting, &trips, vote_body(&private, "m1", good.clone())).await;
    Trips {
        qualified: cost(&voting, &trips, vote_body(&public, "voter-2", good.clone())).await,
        disqualified: cost(&voting, &trips, vote_body(&public, "voter-3", bad)).await,
        triggering: cost(&voting, &trips, vote_body(&public, "voter-4", good.clone())).await,
        private: cost(&voting, &trips, vote_body(&private, "m2", good)).await,
    }
}

/// The round trips of one accepted vote.
async fn cost(voting: &Voting, trips: &impl Fn() -> u64, body: Value) -> u64 {
    let before = trips();
    voting.submit_vote(&body).await.expect("accepted");
    trips() - before
}

fn report(store: &str, trips: Trips) {
    println!(
        "round trips per vote on {store}: qualified {}, disqualified {}, triggering {}, private (not triggering) {}",
        trips.qualified, trips.disqualified, trips.triggering, trips.private
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn round_trips_per_vote_on_mongodb() {
    let Ok(uri) = std::env::var("MONGODB_URI") else {
        panic!("MONGODB_URI is not set: run ./tests/run.sh, which starts the servers this test needs")
    };
    let sent = Arc::new(AtomicU64::new(0));
    let counter = sent.clone();
    let mut options = mongodb::options::ClientOptions::parse(&uri).await.expect("uri");
    options.command_event_handler = Some(mongodb::event::EventHandler::callback(move |event| {
        if let mongodb::event::command::CommandEvent::Started(_) = event {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    }));
    let client = mongodb::Client::with_options(options).expect("client");
    let db = VOTING_DB.named(format!("trips_{}", uuid::Uuid::new_v4().simple()));
    let store = agora_store_mongodb::MongoStore::with_client(client, db).await.expect("mongodb");
    let trips = measure(Arc::new(store), move || sent.load(Ordering::SeqCst)).await;
    report("MongoDB", trips);
    // A qualified vote: its insert and its count in one transaction (insert, findAndModify,
    // commit); a disqualified one: the trigger's claim read, the insert; the triggering vote adds
    // the record of its request (the settled trigger claim).
    assert_eq!(trips, Trips { qualified: 3, disqualified: 2, triggering: 4, private: 3 });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn round_trips_per_vote_on_dynamodb() {
    assert!(std::env::var("AGORA_DYNAMODB_ENDPOINT").is_ok(), "AGORA_DYNAMODB_ENDPOINT is not set: run ./tests/run.sh");
    let mut config = agora_store_dynamodb::DynamoConfig::from_env();
    config.table = format!("trips_{}", uuid::Uuid::new_v4().simple());
    let store = agora_store_dynamodb::DynamoStore::connect(config, VOTING_DB).await.expect("dynamodb");
    store.ensure_table().await.expect("table");
    let store = Arc::new(store);
    let counted = store.clone();
    let calls = move || {
        let s = counted.stats();
        s.get_items + s.put_items + s.delete_items + s.transactions + s.index_queries + s.collection_queries + s.update_items
    };
    let trips = measure(store, calls).await;
    report("DynamoDB", trips);
    // A qualified vote: one TransactWriteItems (the vote, its unique pair, its count) and the
    // count read back; a disqualified one: the claim read, the transaction.
    assert_eq!(trips, Trips { qualified: 2, disqualified: 2, triggering: 3, private: 2 });
}
