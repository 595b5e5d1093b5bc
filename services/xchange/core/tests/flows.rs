//! The Xchange flows over in-memory ports: what the queue and the clock make hard to reach over
//! HTTP (a redelivered or raced assignment, a bidding job's outcomes, the bidding time limit).

use agora_ports::fakes::{ManualClock, RecordingQueue, RecordingSchedules, ScriptedDelegate, StallsFirst};
use agora_ports::{DelegateError, WorkHandler, WorkOutcome};
use agora_store::memory::MemoryStore;
use agora_store::DocumentStore;
use agora_xchange_core::{
    xchange_hooks, AssignOutcome, Assignment, BidOutcome, Bidding, BiddingError, BiddingLimits, Ports, Settings, Settle, Xchange, JOB_MARK,
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
    /// The store the flows were built on, for flows built again on it.
    store: Arc<dyn DocumentStore>,
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
    let store: Arc<dyn DocumentStore> = Arc::new(MemoryStore::new(exchange_db(DEFAULT_EXCHANGE_ID)).expect("store"));
    let ports = Ports {
        store: store.clone(),
        hooks: xchange_hooks(Arc::new(agora_hooks::NoRemote)),
        assignments: queue.clone(),
        delegate: delegate.clone(),
        bidding: orcade.clone(),
        clock: clock.clone(),
        scheduler: schedules.clone(),
        exchange_id: "ex-1".into(),
    };
    let limits = BiddingLimits { timeout: Duration::from_secs(60), ..BiddingLimits::default() };
    Flows { xchange: Xchange::new(ports, Settings::new(Duration::from_secs(30), limits)), store, queue, clock, delegate, orcade, schedules }
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

#[tokio::test]
async fn a_hand_over_repeated_after_its_worker_died_has_the_same_ids_and_says_it_is_a_retry() {
    let clock = Arc::new(ManualClock::new(chrono::Utc.with_ymd_and_hms(2026, 12, 4, 10, 0, 0).unwrap()));
    let delegate = Arc::new(StallsFirst::default());
    let store = Arc::new(MemoryStore::new(exchange_db("retry")).expect("store"));
    let queue = Arc::new(RecordingQueue::default());
    let mut ports = Ports::new(
        store,
        xchange_hooks(Arc::new(agora_hooks::NoRemote)),
        queue.clone(),
        delegate.clone(),
        Arc::new(agora_xchange_core::NoBidding),
    );
    ports.clock = clock.clone();
    let xchange = Xchange::new(ports, Settings::new(Duration::from_secs(30), BiddingLimits::default()));
    let direct = |n: u32| json!({"task_assignment_type": "direct", "task_data": {"n": n}, "task_metadata": {"task_assignment": {"subject_id": "s1"}}});
    let id = xchange.intake().submit_task(&direct(1)).await.unwrap().task_id;

    // A worker makes the call and dies during it (its task is aborted mid-call).
    let assigner = xchange.assigner().clone();
    let worker = tokio::spawn({
        let id = id.clone();
        async move { assigner.assign(&id).await }
    });
    let first = delegate.kill_during_first_call(worker).await;
    assert_eq!(xchange.queries().output(&id).await.unwrap()["task_assignment_status"], json!("assigned"));

    // While its lease runs, another delivery of the work waits.
    assert_eq!(xchange.assigner().assign(&id).await.unwrap(), AssignOutcome::InProgress);
    assert_eq!(delegate.calls().len(), 1);

    // Once it ran out, the hand-over is made again: same task_id and session_id, a retry.
    clock.advance(chrono::Duration::minutes(5));
    assert_eq!(xchange.assigner().assign(&id).await.unwrap(), AssignOutcome::Completed { subject_id: "s1".into() });
    let calls = delegate.calls();
    assert_eq!(calls.len(), 2);
    let (again, again_retry) = &calls[1];
    assert!(again_retry, "the repeated call is marked a retry");
    assert_eq!(again, &first, "the same body: subject, session_id, task_id and task_data");
    assert_eq!(again["task_id"], json!(id));
    let out = xchange.queries().output(&id).await.unwrap();
    assert_eq!(out["task_assignment_status"], json!("completed"));
    assert_eq!(out["task_output"]["ack"]["session_id"], first["session_id"]);
    // Done: a later delivery makes no call.
    assert_eq!(xchange.assigner().assign(&id).await.unwrap(), AssignOutcome::AlreadyDone);
    assert_eq!(delegate.calls().len(), 2);

    // Another task's first hand-over: a session of its own, not a retry.
    let other = xchange.intake().submit_task(&direct(2)).await.unwrap().task_id;
    assert!(matches!(xchange.assigner().assign(&other).await.unwrap(), AssignOutcome::Completed { .. }));
    let (third, third_retry) = delegate.calls()[2].clone();
    assert!(!third_retry);
    assert_eq!(third["task_id"], json!(other));
    assert_ne!(third["session_id"], first["session_id"]);
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
    // Marked as this exchange's, so that Orcade announces its resolution.
    assert_eq!(JOB_MARK, "xchange");
    assert_eq!(job["bid_job_metadata"], json!({"xchange": {"exchange_id": "ex-1", "task_id": id}}));
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

/// Submits a bidding task with `assignment` (plus the evaluator) and runs its assignment.
async fn bidding_with(f: &Flows, assignment: Value) -> (String, AssignOutcome) {
    let mut a = json!({"bid_job_evaluator_id": "builtin:lowest-price"});
    a.as_object_mut().unwrap().extend(assignment.as_object().unwrap().clone());
    let id = submit(f, json!({"task_assignment_type": "bidding", "task_data": {}, "task_metadata": {"task_assignment": a}})).await;
    f.queue.take();
    let outcome = f.xchange.assigner().assign(&id).await.unwrap();
    (id, outcome)
}

#[tokio::test]
async fn the_job_keeps_the_task_s_metadata_and_carries_the_exchange_s_mark() {
    let f = flows();
    let metadata = json!({"parameters": {"min": 0.5}, "team": "fr", "xchange": "the task's own, replaced"});
    let (id, outcome) = bidding_with(&f, json!({"bid_job_subject_ids": ["a"], "bid_job_metadata": metadata})).await;
    assert!(matches!(outcome, AssignOutcome::Bidding { .. }), "{outcome:?}");
    let job = f.orcade.created.lock().unwrap().pop().unwrap();
    assert_eq!(
        job["bid_job_metadata"],
        json!({"parameters": {"min": 0.5}, "team": "fr", "xchange": {"exchange_id": "ex-1", "task_id": id}})
    );
    // An event for a job no task here has is ignored.
    assert_eq!(f.xchange.bidder().resolved("someone-elses-job").await.unwrap(), Settle::NotBidding);
}

#[tokio::test]
async fn an_explicit_empty_roster_is_verbatim_and_fails_the_task_at_once_without_a_job() {
    let f = flows();
    for (s, topics) in [("a", json!(["fr"])), ("b", json!(["de"]))] {
        f.xchange.subjects().create(&json!({"subject_id": s, "topics": topics})).await.unwrap();
    }
    for assignment in [
        json!({"bid_job_subject_ids": []}),
        json!({"bid_job_subject_ids": [], "topics": ["fr"]}),
        json!({"bid_job_subject_ids": [], "bid_job_mode": "mixed"}),
    ] {
        let (id, outcome) = bidding_with(&f, assignment.clone()).await;
        assert!(matches!(outcome, AssignOutcome::Failed { .. }), "{assignment}: {outcome:?}");
        let out = status(&f, &id).await;
        assert_eq!(out["task_assignment_status"], json!("failed"), "{assignment}: {out}");
        let error = out["task_output"]["error"].as_str().unwrap();
        assert!(error.contains("bid_job_subject_ids is [] (an explicit empty roster)") && error.contains("no_valid_bids"), "{error}");
        let task = f.xchange.repo().task(&id).await.unwrap().unwrap();
        assert_eq!(task.bid_job_id(), None, "no job: {assignment}");
        assert!(f.queue.take().is_empty(), "no poll queued: {assignment}");
    }
    assert!(f.orcade.created.lock().unwrap().is_empty(), "no bid job was created, so nobody got a bid_request");

    // Only an absent (or null) key falls back: to the topics, then to every subject; mixed
    // joins the explicit list and the topic matches.
    for (assignment, roster) in [
        (json!({"topics": ["de"]}), json!(["b"])),
        (json!({"bid_job_subject_ids": null, "topics": ["fr"]}), json!(["a"])),
        (json!({}), json!(["a", "b"])),
        (json!({"topics": []}), json!(["a", "b"])),
        (json!({"bid_job_subject_ids": ["z"], "topics": ["fr"]}), json!(["z"])),
        (json!({"bid_job_subject_ids": [], "topics": ["de"], "bid_job_mode": "mixed"}), json!(["b"])),
        (json!({"bid_job_subject_ids": ["z"], "topics": ["fr"], "bid_job_mode": "mixed"}), json!(["z", "a"])),
    ] {
        let (_, outcome) = bidding_with(&f, assignment.clone()).await;
        assert!(matches!(outcome, AssignOutcome::Bidding { .. }), "{assignment}: {outcome:?}");
        let job = f.orcade.created.lock().unwrap().pop().unwrap();
        assert_eq!(job["bid_job_subject_ids"], roster, "{assignment}");
    }
}

#[tokio::test]
async fn a_job_read_through_spec_routes_closed_with_no_accepted_bid_fails_the_task_after_a_short_grace() {
    let f = flows();
    let id = bidding_task(&f).await;
    f.queue.take();
    *f.orcade.outcome.lock().unwrap() = Some(BidOutcome::ClosedWithoutWinner { accepted_bids: 0 });
    // The first look records the sighting and comes back at the end of the grace (2 s).
    assert_eq!(f.xchange.bidder().poll(&id, 3).await.unwrap(), Settle::Waiting { after: Duration::from_secs(2) });
    assert_eq!(f.queue.take()[0].delay, Duration::from_secs(2), "the next look at the end of the grace, not after the backoff");
    f.clock.advance(chrono::Duration::milliseconds(1500));
    assert_eq!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Waiting { after: Duration::from_millis(500) });
    f.clock.advance(chrono::Duration::milliseconds(500));
    assert_eq!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Settled);
    let out = status(&f, &id).await;
    assert_eq!(out["task_assignment_status"], json!("failed"));
    let error = out["task_output"]["error"].as_str().unwrap();
    assert!(error.contains("no_valid_bids") && error.contains("PQT"), "{error}");
}

#[tokio::test]
async fn a_job_read_through_spec_routes_closed_with_accepted_bids_waits_for_its_evaluation() {
    let f = flows();
    let id = bidding_task(&f).await;
    *f.orcade.outcome.lock().unwrap() = Some(BidOutcome::ClosedWithoutWinner { accepted_bids: 2 });
    assert_eq!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Waiting { after: Duration::from_secs(60) }, "the deadline first");
    // The evaluation finds a winner in time: completed.
    f.clock.advance(chrono::Duration::seconds(20));
    let result = json!({"task_type": "bid_winner", "bid_subject_id": "a", "task_result": {"success": true}});
    *f.orcade.outcome.lock().unwrap() = Some(BidOutcome::Winner(result.clone()));
    assert_eq!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Settled);
    assert_eq!(status(&f, &id).await, json!({"task_assignment_status": "completed", "task_output": result}));

    // No winner for the long grace: failed, saying what is known.
    let f = flows();
    let limits =
        BiddingLimits { timeout: Duration::from_secs(3600), no_winner_grace: Duration::from_secs(600), ..BiddingLimits::default() };
    let f = Flows { xchange: with_limits(&f, limits), ..f };
    let id = bidding_task(&f).await;
    *f.orcade.outcome.lock().unwrap() = Some(BidOutcome::ClosedWithoutWinner { accepted_bids: 2 });
    assert_eq!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Waiting { after: Duration::from_secs(600) });
    f.clock.advance(chrono::Duration::seconds(599));
    assert!(matches!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Waiting { .. }));
    f.clock.advance(chrono::Duration::seconds(1));
    assert_eq!(f.xchange.bidder().settle(&id).await.unwrap(), Settle::Settled);
    let out = status(&f, &id).await;
    assert_eq!(out["task_assignment_status"], json!("failed"));
    let error = out["task_output"]["error"].as_str().unwrap();
    assert!(error.contains("no winner") && error.contains("600000 ms") && error.contains("2 accepted"), "{error}");
}

/// The flows of `f` again, with other bidding limits (same ports).
fn with_limits(f: &Flows, limits: BiddingLimits) -> Xchange {
    let ports = Ports {
        store: f.store.clone(),
        hooks: xchange_hooks(Arc::new(agora_hooks::NoRemote)),
        assignments: f.queue.clone(),
        delegate: f.delegate.clone(),
        bidding: f.orcade.clone(),
        clock: f.clock.clone(),
        scheduler: f.schedules.clone(),
        exchange_id: "ex-1".into(),
    };
    Xchange::new(ports, Settings::new(Duration::from_secs(30), limits))
}

/// A remote hook runner that records what each call was given and picks the first subject.
#[derive(Default)]
struct RecordingRemote {
    calls: Mutex<Vec<(String, Value, Value)>>,
}

#[async_trait]
impl agora_hooks::Remote for RecordingRemote {
    fn check(&self, _target: &agora_schema::HookTarget<'_>) -> Result<(), String> {
        Ok(())
    }

    async fn call(&self, call: &agora_hooks::Call<'_>) -> Result<Value, agora_hooks::HookError> {
        let input = serde_json::to_value(call.input).unwrap();
        let parameters = match call.target {
            agora_schema::HookTarget::Function { parameters, .. }
            | agora_schema::HookTarget::Http { parameters, .. }
            | agora_schema::HookTarget::Lambda { parameters, .. } => parameters.clone(),
            _ => Value::Null,
        };
        self.calls.lock().unwrap().push((call.target.mode().to_owned(), input.clone(), parameters));
        Ok(json!({"selected_subject_id": input["subjects"][0]["subject_id"]}))
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(5)
    }
}

#[tokio::test]
async fn every_selector_gets_the_task_s_parameters() {
    let remote = Arc::new(RecordingRemote::default());
    let f = flows();
    let ports = Ports {
        store: f.store.clone(),
        hooks: xchange_hooks(remote.clone()),
        assignments: f.queue.clone(),
        delegate: f.delegate.clone(),
        bidding: f.orcade.clone(),
        clock: f.clock.clone(),
        scheduler: f.schedules.clone(),
        exchange_id: "ex-1".into(),
    };
    let xchange = Xchange::new(ports, Settings::default());
    xchange.subjects().create(&json!({"subject_id": "s1", "subject_capabilities": {"gpu": true}})).await.unwrap();
    let parameters = json!({"require": ["gpu"], "weights": {"cost": 0.7}});
    for function_id in ["https://selectors.example/pick", "arn:aws:lambda:us-east-1:123456789012:function:pick", "pick-subject:1.0"] {
        let body = json!({"task_assignment_type": "function", "task_data": {"doc": 1},
            "task_metadata": {"task_assignment": {"function_id": function_id, "parameters": parameters}}});
        let task = xchange.intake().submit_task(&body).await.unwrap();
        assert_eq!(task.task_metadata["assigned_subject_id"], json!("s1"));
    }
    // The builtin gets them as its parameters (the capability it requires).
    let body = json!({"task_assignment_type": "function", "task_data": {},
        "task_metadata": {"task_assignment": {"function_id": "builtin:by-capability", "parameters": parameters}}});
    assert_eq!(xchange.intake().submit_task(&body).await.unwrap().task_metadata["assigned_subject_id"], json!("s1"));

    let calls = remote.calls.lock().unwrap().clone();
    let modes: Vec<&str> = calls.iter().map(|(mode, _, _)| mode.as_str()).collect();
    assert_eq!(modes, ["http", "lambda", "function"]);
    for (mode, input, spec_parameters) in &calls {
        assert_eq!(input["parameters"], parameters, "{mode}: the input's parameters");
        assert_eq!(input["task"]["task_data"], json!({"doc": 1}), "{mode}");
        assert_eq!(input["subjects"][0]["subject_id"], json!("s1"), "{mode}");
        // The registry also gets them as its job's parameters; the others once, in the input.
        let want = if mode == "function" { parameters.clone() } else { json!({}) };
        assert_eq!(spec_parameters, &want, "{mode}");
    }

    // A task without parameters sends §4's input unchanged.
    let body = json!({"task_assignment_type": "function", "task_data": {},
        "task_metadata": {"task_assignment": {"function_id": "https://selectors.example/pick"}}});
    xchange.intake().submit_task(&body).await.unwrap();
    let (_, input, _) = remote.calls.lock().unwrap().last().cloned().unwrap();
    let keys: Vec<&String> = input.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["task", "subjects"]);
}
