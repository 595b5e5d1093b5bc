//! The Xchange flows over in-memory ports: what the queue and the clock make hard to reach over
//! HTTP (a redelivered or raced assignment, a bidding job's outcomes, the bidding time limit).

use agora_ports::fakes::{ManualClock, RecordingQueue, RecordingSchedules, ScriptedDelegate};
use agora_ports::{DelegateError, WorkHandler, WorkOutcome};
use agora_store::memory::MemoryStore;
use agora_xchange_core::{
    xchange_hooks, AssignOutcome, Assignment, BidOutcome, Bidding, BiddingError, BiddingLimits, Ports, Settings, Settle, Xchange,
};
use agora_xchange_schema::{exchange_db, DEFAULT_EXCHANGE_ID};
use async_trait::async_trait;
use chrono::TimeZone;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// An Orcade whose jobs end as the test says.
#[derive(Default)]
struct FakeOrcade {
    created: Mutex<Vec<Value>>,
    outcome: Mutex<Option<BidOutcome>>,
}

#[async_trait]
impl Bidding for FakeOrcade {
    async fn create_job(&self, request: &Value) -> Result<(), BiddingError> {
        self.created.lock().unwrap().push(request.clone());
        Ok(())
    }

    async fn outcome(&self, _bid_job_id: &str) -> Result<BidOutcome, BiddingError> {
        Ok(self.outcome.lock().unwrap().clone().unwrap_or(BidOutcome::Pending))
    }
}

struct Flows {
    xchange: Xchange,
    queue: Arc<RecordingQueue>,
    clock: Arc<ManualClock>,
    delegate: Arc<ScriptedDelegate>,
    orcade: Arc<FakeOrcade>,
    schedules: Arc<RecordingSchedules>,
}

fn flows() -> Flows {
    let clock = Arc::new(ManualClock::new(chrono::Utc.with_ymd_and_hms(2026, 12, 4, 10, 0, 0).unwrap()));
    let queue = Arc::new(RecordingQueue::default());
    let delegate = Arc::new(ScriptedDelegate::new(|r| {
        std::thread::sleep(Duration::from_millis(20));
        Ok(json!({"success": true, "ack": {"task_id": r.task_id}, "output": {"done": true}}))
    }));
    let orcade = Arc::new(FakeOrcade::default());
    let schedules = Arc::new(RecordingSchedules::default());
    let store = Arc::new(MemoryStore::new(exchange_db(DEFAULT_EXCHANGE_ID)).expect("store"));
    let ports = Ports {
        store,
        hooks: xchange_hooks(Arc::new(agora_hooks::NoRemote)),
        assignments: queue.clone(),
        delegate: delegate.clone(),
        bidding: orcade.clone(),
        clock: clock.clone(),
        scheduler: schedules.clone(),
    };
    let limits = BiddingLimits { timeout: Duration::from_secs(60), ..BiddingLimits::default() };
    Flows { xchange: Xchange::new(ports, Settings::new(Duration::from_secs(30), limits)), queue, clock, delegate, orcade, schedules }
}

async fn submit(f: &Flows, body: Value) -> String {
    f.xchange.intake().submit_task(&body).await.expect("task stored").task_id
}

async fn status(f: &Flows, id: &str) -> Value {
    f.xchange.queries().output(id).await.expect("task")
}

#[tokio::test]
async fn an_assignment_delivered_twice_at_once_is_made_once() {
    let f = flows();
    let id = submit(
        &f,
        json!({"task_assignment_type": "direct", "task_data": {"n": 1}, "task_metadata": {"task_assignment": {"subject_id": "s1"}}}),
    )
    .await;
    let sent = f.queue.take();
    assert_eq!(sent.len(), 1);
    let work = f.xchange.assignment_work();
    let (a, b) = tokio::join!(work.handle(&sent[0].body), work.handle(&sent[0].body));
    let outcomes = [a, b];
    assert!(outcomes.contains(&WorkOutcome::Done), "{outcomes:?}");
    // The loser is told to come back; when it does, the task is final and nothing is sent.
    assert_eq!(work.handle(&sent[0].body).await, WorkOutcome::Done);
    assert_eq!(f.delegate.calls().len(), 1, "one delegate round trip");
    let out = status(&f, &id).await;
    assert_eq!(out["task_assignment_status"], json!("completed"));
    assert_eq!(out["task_output"]["output"], json!({"done": true}), "the delegate's whole reply: {out}");
    assert_eq!(f.delegate.calls()[0]["task_id"], json!(id));
}

#[tokio::test]
async fn a_failed_round_trip_fails_the_task_naming_the_limit() {
    let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
    let delegate = Arc::new(ScriptedDelegate::new(|_| Err(DelegateError::Timeout(Duration::from_millis(300)))));
    let store = Arc::new(MemoryStore::new(exchange_db("t")).expect("store"));
    let queue = Arc::new(RecordingQueue::default());
    let mut ports =
        Ports::new(store, xchange_hooks(Arc::new(agora_hooks::NoRemote)), queue.clone(), delegate, Arc::new(agora_xchange_core::NoBidding));
    ports.clock = clock;
    let xchange = Xchange::new(ports, Settings::new(Duration::from_millis(300), BiddingLimits::default()));
    let body = json!({"task_assignment_type": "direct", "task_data": {}, "task_metadata": {"task_assignment": {"subject_id": "s1"}}});
    let id = xchange.intake().submit_task(&body).await.unwrap().task_id;
    let outcome = xchange.assigner().assign(&id).await.unwrap();
    let AssignOutcome::Failed { error } = outcome else { panic!("{outcome:?}") };
    assert!(error.contains("300 ms") && error.contains("AGORA_DELEGATE_TIMEOUT_MS"), "{error}");
    let out = xchange.queries().output(&id).await.unwrap();
    assert_eq!(out["task_assignment_status"], json!("failed"));
}

async fn bidding_task(f: &Flows) -> String {
    let id = submit(
        f,
        json!({"task_assignment_type": "bidding", "task_data": {"secret": 1}, "task_metadata": {"task_assignment": {
            "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_subject_ids": ["a", "b"], "bid_job_description": {"what": "translate"}}}}),
    )
    .await;
    let sent = f.queue.take();
    assert_eq!(f.xchange.assignment_work().handle(&sent[0].body).await, WorkOutcome::Done);
    id
}

#[tokio::test]
async fn a_bidding_task_creates_one_job_and_takes_its_winners_result() {
    let f = flows();
    let id = bidding_task(&f).await;
    let created = f.orcade.created.lock().unwrap().clone();
    assert_eq!(created.len(), 1);
    let job = &created[0];
    assert_eq!(job["bid_job_subject_ids"], json!(["a", "b"]));
    assert_eq!(job["bid_job_creator_id"], json!("xchange"));
    assert!(!job.to_string().contains("secret"), "task_data is not sent in bidding mode: {job}");
    let task = f.xchange.repo().task(&id).await.unwrap().unwrap();
    assert_eq!(task.task_assignment_status.as_str(), "bidding");
    assert_eq!(task.bid_job_id(), job["bid_job_id"].as_str());
    // Its first poll is queued, and the deadline scheduled.
    let polls = f.queue.take();
    assert_eq!(Assignment::parse(&polls[0].body).unwrap(), Assignment::Poll { task_id: id.clone(), attempt: 0 });
    assert_eq!(f.schedules.made().len(), 1);
    // A poll before the outcome queues the next one.
    assert!(matches!(f.xchange.bidder().poll(&id, 0).await.unwrap(), Settle::Waiting { .. }));
    assert_eq!(f.queue.take().len(), 1);
    let result = json!({"task_type": "bid_winner", "bid_subject_id": "b", "task_result": {"success": true}});
    *f.orcade.outcome.lock().unwrap() = Some(BidOutcome::Winner(result.clone()));
    let job_id = task.bid_job_id().unwrap().to_owned();
    assert_eq!(f.xchange.bidder().resolved(&job_id).await.unwrap(), Settle::Settled);
    assert_eq!(f.xchange.bidder().resolved(&job_id).await.unwrap(), Settle::NotBidding, "settled once");
    let out = status(&f, &id).await;
    assert_eq!(out, json!({"task_assignment_status": "completed", "task_output": result}));
    assert_eq!(f.orcade.created.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn the_bidding_time_limit_fails_a_task_with_no_winner() {
    let f = flows();
    let id = bidding_task(&f).await;
    f.clock.advance(chrono::Duration::seconds(30));
    assert!(matches!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Waiting { .. }));
    f.clock.advance(chrono::Duration::seconds(31));
    assert_eq!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Settled);
    let out = status(&f, &id).await;
    assert_eq!(out["task_assignment_status"], json!("failed"));
    let error = out["task_output"]["error"].as_str().unwrap();
    assert!(error.contains("60000 ms") && error.contains("AGORA_BIDDING_TIMEOUT_MS"), "{error}");
}

#[tokio::test]
async fn no_valid_bids_fails_the_task() {
    let f = flows();
    let id = bidding_task(&f).await;
    *f.orcade.outcome.lock().unwrap() = Some(BidOutcome::NoValidBids);
    assert_eq!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Settled);
    let out = status(&f, &id).await;
    assert_eq!(out["task_assignment_status"], json!("failed"));
    assert!(out["task_output"]["error"].as_str().unwrap().contains("no_valid_bids"));
}

#[tokio::test]
async fn round_robin_spreads_concurrent_tasks_evenly() {
    let f = flows();
    for s in ["a", "b", "c", "d", "e"] {
        f.xchange.subjects().create(&json!({"subject_id": s})).await.unwrap();
    }
    let body = json!({"task_assignment_type": "function", "task_data": {}, "task_metadata": {"task_assignment": {"function_id": "builtin:round-robin"}}});
    let tasks = futures::future::join_all((0..10).map(|_| f.xchange.intake().submit_task(&body))).await;
    let mut counts = std::collections::BTreeMap::new();
    for t in tasks {
        let t = t.unwrap();
        *counts.entry(t.task_metadata["assigned_subject_id"].as_str().unwrap().to_owned()).or_insert(0) += 1;
    }
    assert_eq!(counts.values().copied().collect::<Vec<_>>(), [2, 2, 2, 2, 2], "{counts:?}");
}
