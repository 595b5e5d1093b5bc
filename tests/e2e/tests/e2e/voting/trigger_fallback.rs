//! The trigger when the store's counter fails: each qualified vote then counts the stored votes
//! instead, and the task is still queued for evaluation exactly once, neither early nor twice,
//! whatever the timing. The store is the embedded one, wrapped so that `increment` fails.

use agora_e2e::{public_request, temp_dir};
use agora_store::{DocumentStore, StoreError};
use agora_voting_core::{Ports, QueueError, Settings, Voting, WorkQueue, VOTING_DB};
use async_trait::async_trait;
use futures::future::join_all;
use serde_json::json;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The embedded store, with counters that fail while `broken` is set.
struct BrokenCounters {
    inner: Arc<dyn DocumentStore>,
    broken: AtomicBool,
    failed: AtomicUsize,
}

agora_store_contract::delegate_store!(BrokenCounters, inner, increment => counter);

impl BrokenCounters {
    async fn counter(&self, counter: &str, by: i64) -> Result<i64, StoreError> {
        if self.broken.load(Ordering::SeqCst) {
            self.failed.fetch_add(1, Ordering::SeqCst);
            return Err(StoreError::Backend("counter unavailable".into()));
        }
        self.inner.increment(counter, by).await
    }
}

#[derive(Default)]
struct RecordingQueue(Mutex<Vec<String>>);

#[async_trait]
impl WorkQueue for RecordingQueue {
    async fn send(&self, key: &str, _body: &str, _delay: std::time::Duration) -> Result<(), QueueError> {
        self.0.lock().unwrap().push(key.to_owned());
        Ok(())
    }
}

async fn voting(broken: bool) -> (Arc<Voting>, Arc<BrokenCounters>, Arc<RecordingQueue>) {
    let dir = temp_dir("trigger-fallback");
    let inner = agora_runtime::open_store(agora_runtime::StoreKind::Embedded, &dir, VOTING_DB, None).await.expect("embedded store");
    let store = Arc::new(BrokenCounters { inner, broken: AtomicBool::new(broken), failed: AtomicUsize::new(0) });
    let queue = Arc::new(RecordingQueue::default());
    let hooks = agora_voting_core::voting_hooks(Arc::new(agora_hooks_remote::RemoteHooks::default()), None);
    let ports = Ports::new(store.clone(), hooks, Arc::new(agora_runtime::LogPublisher), queue.clone());
    (Arc::new(Voting::new(ports, Settings::default())), store, queue)
}

fn ballot(id: &str, voter: &str) -> serde_json::Value {
    agora_e2e::vote_body(id, voter, json!({"selected_option": "agent-translator-02"}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn without_the_counter_the_stored_votes_are_counted() {
    let (voting, store, queue) = voting(true).await;
    let id = voting.create_task(&public_request(3)).await.expect("create");
    voting.start_task(&id).await.expect("start");

    for (n, voter) in ["v1", "v2"].iter().enumerate() {
        assert!(voting.submit_vote(&ballot(&id, voter)).await.expect("vote").qualified);
        // Tried twice a vote: for the vote's place, then for the stored count.
        assert_eq!(store.failed.load(Ordering::SeqCst), 2 * (n + 1), "the counters were tried");
        assert!(queue.0.lock().unwrap().is_empty(), "{} of 3 votes do not trigger", n + 1);
    }
    voting.submit_vote(&ballot(&id, "v3")).await.expect("vote");
    assert_eq!(*queue.0.lock().unwrap(), vec![id.clone()], "the third vote triggers");
    // A fourth vote finds voting closed (the trigger taken), and triggers nothing.
    assert_eq!(voting.submit_vote(&ballot(&id, "v4")).await, Err(agora_voting_core::VotingError::VotingClosed));
    assert_eq!(queue.0.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_counter_failing_midway_still_triggers_once_under_racing_votes() {
    let (voting, store, queue) = voting(false).await;
    let id = voting.create_task(&public_request(20)).await.expect("create");
    voting.start_task(&id).await.expect("start");

    // Ten votes raise the counter; then it fails, and twenty more votes race in.
    for i in 0..10 {
        voting.submit_vote(&ballot(&id, &format!("early-{i}"))).await.expect("vote");
    }
    assert!(queue.0.lock().unwrap().is_empty());
    store.broken.store(true, Ordering::SeqCst);
    let racing = (0..20).map(|i| {
        let (voting, body) = (voting.clone(), ballot(&id, &format!("late-{i}")));
        tokio::spawn(async move { voting.submit_vote(&body).await })
    });
    // Without the counter the stored votes say whether a place is left: at least the ten free
    // places are filled, the rest are told voting has closed.
    let mut accepted = 0;
    for r in join_all(racing).await {
        match r.expect("task") {
            Ok(answer) => {
                assert!(answer.qualified);
                accepted += 1;
            }
            Err(e) => assert_eq!(e, agora_voting_core::VotingError::VotingClosed),
        }
    }
    assert!(accepted >= 10, "{accepted} accepted");
    assert!(store.failed.load(Ordering::SeqCst) >= 20, "every late vote tried the counter");
    assert_eq!(*queue.0.lock().unwrap(), vec![id], "one evaluation request");
}
