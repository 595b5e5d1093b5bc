//! A delegate round trip repeated after its worker died (issue 32, item 3): the repeat has the
//! first call's `bid_task_result_id` as its `task_id` and `session_id`, and is marked a retry
//! (`Agora-Retry: true` over HTTP); a first call is not. On the in-memory store, with a clock
//! the test moves.

use agora_hooks::NoRemote;
use agora_orcade_core::{orcade_hooks, Delivery, DeliveryOutcome, Orcade, Ports, Settings, ORCADE_DB};
use agora_orcade_schema::{BidJob, BidTaskResult};
use agora_ports::fakes::{ManualClock, RecordingQueue, StallsFirst};
use agora_store::memory::MemoryStore;
use chrono::TimeZone;
use serde_json::{json, Value};
use std::sync::Arc;

fn closed_job(subjects: &[&str]) -> Value {
    json!({
        "bid_job_metadata": {}, "bid_job_description": {}, "bid_job_name": {"en": "Translate"},
        "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_creator_id": "planner",
        "bid_job_subject_ids": subjects,
    })
}

async fn job(orcade: &Orcade, id: &str) -> BidJob {
    let doc = orcade.queries().job(id).await.expect("job");
    serde_json::from_str(doc.get()).expect("a job")
}

#[tokio::test]
async fn a_delivery_repeated_after_its_worker_died_has_the_same_ids_and_says_it_is_a_retry() {
    let clock = Arc::new(ManualClock::new(chrono::Utc.with_ymd_and_hms(2026, 10, 5, 9, 0, 0).unwrap()));
    let delegate = Arc::new(StallsFirst::default());
    let store = Arc::new(MemoryStore::new(ORCADE_DB).expect("store"));
    let queue = || Arc::new(RecordingQueue::default());
    let mut ports = Ports::new(store, orcade_hooks(Arc::new(NoRemote)), queue(), queue(), delegate.clone());
    ports.clock = clock.clone();
    let orcade = Orcade::new(ports, Settings::default());
    let job_id = orcade.creator().create_job(&closed_job(&["t1", "t2"])).await.expect("created").bid_job_id;
    let job = job(&orcade, &job_id).await;
    let delivery = Delivery::bid_winner(&job, "t1", json!({"why": "cheapest"}));

    // A worker makes the call and dies during it (its task is aborted mid-call).
    let deliverer = orcade.deliverer().clone();
    let worker = tokio::spawn({
        let delivery = delivery.clone();
        async move { deliverer.deliver(&delivery).await }
    });
    let first = delegate.kill_during_first_call(worker).await;
    assert_eq!(first["task_id"], first["session_id"], "both ids are the result's id");

    // While its lease runs, another delivery of the same work waits.
    assert_eq!(orcade.deliverer().deliver(&delivery).await.unwrap(), DeliveryOutcome::InProgress);
    assert_eq!(delegate.calls().len(), 1);

    // Once it ran out, the call is made again: the same task_id and session_id, a retry.
    clock.advance(chrono::Duration::hours(1));
    let outcome = orcade.deliverer().deliver(&delivery).await.unwrap();
    let result_id = first["task_id"].as_str().unwrap().to_owned();
    assert_eq!(outcome, DeliveryOutcome::Delivered { bid_task_result_id: result_id.clone() });
    let calls = delegate.calls();
    assert_eq!(calls.len(), 2);
    let (again, again_retry) = &calls[1];
    assert!(again_retry, "the repeated call is marked a retry");
    assert_eq!(again, &first, "the same body: subject, session_id, task_id and task_data");
    // The result stored is the repeated call's, under the id both calls carried.
    let results: Vec<BidTaskResult> =
        orcade.queries().task_results_of(&job_id).await.unwrap().iter().map(|d| serde_json::from_str(d.get()).unwrap()).collect();
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].bid_task_result_id, result_id);
    assert_eq!(results[0].task_result["ack"]["session_id"], json!(result_id));
    // Delivered: a later delivery makes no call.
    assert_eq!(orcade.deliverer().deliver(&delivery).await.unwrap(), DeliveryOutcome::AlreadyDelivered);
    assert_eq!(delegate.calls().len(), 2);

    // Another delivery's first call (another job's winner): ids of its own, not a retry.
    let other_job = orcade.creator().create_job(&closed_job(&["t2"])).await.expect("created").bid_job_id;
    let other = Delivery::bid_winner(&self::job(&orcade, &other_job).await, "t2", json!({}));
    assert!(matches!(orcade.deliverer().deliver(&other).await.unwrap(), DeliveryOutcome::Delivered { .. }));
    let (third, third_retry) = delegate.calls()[2].clone();
    assert!(!third_retry);
    assert_eq!(third["subject_id"], json!("t2"));
    assert_ne!(third["task_id"], first["task_id"]);
}
