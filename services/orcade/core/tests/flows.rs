//! The Orcade flows below HTTP: on the in-memory store, with a clock the test moves, queues and
//! schedules that record what they get, and a scripted delegate. Milliseconds per test.

use agora_auth::Caller;
use agora_filter::Filter;
use agora_hooks::{Call, HookError, NoRemote, Remote};
use agora_orcade_core::incarnation::JobKey;
use agora_orcade_core::messages::{close_request, close_schedule_name, evaluation_request, RESOLUTION_MARK};
use agora_orcade_core::{
    orcade_hooks, Decision, Delivery, DeliveryOutcome, EvaluationOutcome, Orcade, OrcadeError, Ports, Settings, Stall, TagMatch, ORCADE_DB,
};
use agora_orcade_schema::{Bid, BidJob, BidJobStatus, BidTaskResult, HookTarget, TaskType};
use agora_ports::fakes::{ManualClock, RecordingQueue, RecordingSchedules, ScriptedDelegate, Sent};
use agora_ports::{Clock, DelegateError, WorkHandler, WorkOutcome};
use agora_store::memory::MemoryStore;
use agora_store::{Change, Counted, DocStream, DocumentStore, Json, Page, StoreError, Uncounted};
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// Answers remote hook calls by their target (a URL): what the test's function ids name.
type Script = Box<dyn Fn(&str, &Value) -> Result<Value, HookError> + Send + Sync>;
struct ScriptedRemote(Script);

#[async_trait::async_trait]
impl Remote for ScriptedRemote {
    fn check(&self, _target: &HookTarget<'_>) -> Result<(), String> {
        Ok(())
    }

    async fn call(&self, call: &Call<'_>) -> Result<Value, HookError> {
        let input = serde_json::to_value(call.input).expect("inputs serialize");
        (self.0)(call.target.name(), &input)
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(1)
    }
}

/// The remote hooks of these tests, by URL.
fn scripted_remote() -> Arc<dyn Remote> {
    Arc::new(ScriptedRemote(Box::new(|url, input| match url {
        "https://hooks.example/pqt-wrapped" => Ok(json!({"data": {"accepted": true, "reason": "wrapped"}})),
        "https://hooks.example/pqt-malformed" => Ok(json!({"qualified": true})),
        "https://hooks.example/pqt-down" => Err(HookError::Status { status: 503, body: "down".into() }),
        "https://hooks.example/eval-malformed" => Ok(json!({"status": "done"})),
        "https://hooks.example/eval-stranger" => Ok(json!({"status": "resolved", "winner_subject_id": "nobody"})),
        "https://hooks.example/eval-slow" => Err(HookError::Timeout(Duration::from_secs(1))),
        "https://hooks.example/eval-first" => {
            // The input is §4's, unwrapped: the first accepted bid wins.
            let first = input["bids"][0]["bid_subject_id"].clone();
            Ok(
                json!({"data": {"status": "resolved", "winner_subject_id": first, "result_data": {"n": input["bids"].as_array().map(Vec::len)}}}),
            )
        }
        other => Err(HookError::Unreachable(other.to_owned())),
    })))
}

/// The in-memory store, yielding to the scheduler before every call, so that concurrent flows
/// interleave at each store call as they would over a network (the memory store itself never
/// suspends, which would run each flow to its end at once).
///
/// It can also hold the next counted insert (a bid's write) at a gate: [`YieldingStore::hold_next_bid`].
struct YieldingStore(MemoryStore, std::sync::Mutex<Option<Gate>>);

/// Where a held write waits: it says it arrived, then waits to be let through.
struct Gate {
    arrived: tokio::sync::oneshot::Sender<()>,
    release: tokio::sync::oneshot::Receiver<()>,
}

impl YieldingStore {
    /// Holds the next counted insert until the returned sender is used; the receiver tells when
    /// it has arrived.
    fn hold_next_bid(&self) -> (tokio::sync::oneshot::Receiver<()>, tokio::sync::oneshot::Sender<()>) {
        let (arrived, arrival) = tokio::sync::oneshot::channel();
        let (release, released) = tokio::sync::oneshot::channel();
        *self.1.lock().unwrap() = Some(Gate { arrived, release: released });
        (arrival, release)
    }
}

#[async_trait::async_trait]
impl DocumentStore for YieldingStore {
    async fn insert(&self, docs: Vec<(&'static str, Json)>) -> Result<(), StoreError> {
        tokio::task::yield_now().await;
        self.0.insert(docs).await
    }
    async fn get(&self, collection: &str, id: &str) -> Result<Option<Json>, StoreError> {
        tokio::task::yield_now().await;
        self.0.get(collection, id).await
    }
    async fn find(&self, collection: &str, filter: &Filter) -> Result<Vec<Json>, StoreError> {
        tokio::task::yield_now().await;
        self.0.find(collection, filter).await
    }
    async fn find_stream(&self, collection: &str, filter: &Filter, page: Page) -> Result<DocStream, StoreError> {
        tokio::task::yield_now().await;
        self.0.find_stream(collection, filter, page).await
    }
    async fn count(&self, collection: &str, filter: &Filter, limit: Option<u64>) -> Result<u64, StoreError> {
        tokio::task::yield_now().await;
        self.0.count(collection, filter, limit).await
    }
    async fn update(&self, collection: &str, id: &str, condition: &Filter, change: &Change) -> Result<bool, StoreError> {
        tokio::task::yield_now().await;
        self.0.update(collection, id, condition, change).await
    }
    async fn delete(&self, collection: &str, id: &str, condition: &Filter) -> Result<bool, StoreError> {
        tokio::task::yield_now().await;
        self.0.delete(collection, id, condition).await
    }
    async fn insert_counted(&self, docs: Vec<(&'static str, Json)>, counter: &str, limit: Option<i64>) -> Result<Counted, StoreError> {
        tokio::task::yield_now().await;
        let gate = self.1.lock().unwrap().take();
        if let Some(gate) = gate {
            gate.arrived.send(()).unwrap();
            gate.release.await.unwrap();
        }
        self.0.insert_counted(docs, counter, limit).await
    }
    async fn delete_counted(&self, collection: &str, id: &str, counter: &str, limit: Option<i64>) -> Result<Uncounted, StoreError> {
        tokio::task::yield_now().await;
        self.0.delete_counted(collection, id, counter, limit).await
    }
    async fn increment(&self, counter: &str, by: i64) -> Result<i64, StoreError> {
        tokio::task::yield_now().await;
        self.0.increment(counter, by).await
    }
    async fn counter(&self, counter: &str) -> Result<i64, StoreError> {
        tokio::task::yield_now().await;
        self.0.counter(counter).await
    }
}

struct Flows {
    orcade: Arc<Orcade>,
    store: Arc<YieldingStore>,
    clock: Arc<ManualClock>,
    evaluations: Arc<RecordingQueue>,
    deliveries: Arc<RecordingQueue>,
    schedules: Arc<RecordingSchedules>,
    delegate: Arc<ScriptedDelegate>,
    resolutions: Arc<RecordingQueue>,
}

fn ok_delegate() -> ScriptedDelegate {
    ScriptedDelegate::new(|r| Ok(json!({"success": true, "ack": {"subject": r.subject_id}, "output": {"seen": r.task_data["event_type"]}})))
}

fn flows_with(remote: Arc<dyn Remote>, delegate: ScriptedDelegate) -> Flows {
    let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 10, 5, 9, 0, 0).unwrap()));
    let evaluations = Arc::new(RecordingQueue::default());
    let deliveries = Arc::new(RecordingQueue::default());
    let resolutions = Arc::new(RecordingQueue::default());
    let schedules = Arc::new(RecordingSchedules::default());
    let delegate = Arc::new(delegate);
    let store = Arc::new(YieldingStore(MemoryStore::new(ORCADE_DB).expect("store"), Default::default()));
    let ports = Ports {
        store: store.clone(),
        hooks: orcade_hooks(remote),
        evaluations: evaluations.clone(),
        deliveries: deliveries.clone(),
        delegate: delegate.clone(),
        clock: clock.clone(),
        scheduler: schedules.clone(),
        resolutions: resolutions.clone(),
    };
    Flows {
        orcade: Arc::new(Orcade::new(ports, Settings::default())),
        store,
        clock,
        evaluations,
        deliveries,
        schedules,
        delegate,
        resolutions,
    }
}

fn flows() -> Flows {
    flows_with(Arc::new(NoRemote), ok_delegate())
}

/// A closed job of three translators: min-confidence 0.8, lowest price wins.
fn closed_job() -> Value {
    json!({
        "bid_job_metadata": {"parameters": {"min": 0.8}},
        "bid_job_description": {"task_type": "translate_document"},
        "bid_job_name": {"en": "Translate Q3 report"},
        "bid_job_evaluator_id": "builtin:lowest-price",
        "bid_job_pqt_id": "builtin:min-confidence",
        "bid_job_creator_id": "planner",
        "bid_job_subject_ids": ["t1", "t2", "t3"],
        "bid_job_tags": ["translation", "fr"],
    })
}

/// `job` as Xchange's bidding mode opens it: marked `bid_job_metadata.xchange`, whose
/// resolution is announced on the resolutions queue.
fn xchange_job(mut job: Value) -> Value {
    job["bid_job_metadata"][RESOLUTION_MARK] = json!({"exchange_id": "default", "task_id": "task-1"});
    job
}

/// An open job: no PQT, the lowest price wins, closing after `max` applicants (or `max_time`).
fn open_job(max: Option<i64>, max_time: Option<i64>) -> Value {
    json!({
        "bid_job_metadata": {}, "bid_job_description": {}, "bid_job_name": {"en": "Open call"},
        "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_creator_id": "planner",
        "bid_job_mode": "open", "bid_job_max_subjects": max, "bid_job_max_time": max_time,
    })
}

fn bid(subject: &str, price: f64, confidence: f64) -> Value {
    json!({"bid_subject_id": subject, "bid_data": {"price_usd": price, "confidence": confidence}})
}

fn caller(subject: &str) -> Caller {
    Caller { subject: subject.into(), admin: false }
}

fn value(doc: &Json) -> Value {
    serde_json::from_str(doc.get()).expect("documents are JSON")
}

async fn job(f: &Flows, id: &str) -> BidJob {
    serde_json::from_value(value(&f.orcade.queries().job(id).await.expect("job"))).expect("a job")
}

async fn bids(f: &Flows, id: &str) -> Vec<Bid> {
    f.orcade.queries().bids_of(id).await.expect("bids").iter().map(|d| serde_json::from_value(value(d)).expect("a bid")).collect()
}

async fn results(f: &Flows, id: &str) -> Vec<BidTaskResult> {
    let docs = f.orcade.queries().task_results_of(id).await.expect("results");
    docs.iter().map(|d| serde_json::from_value(value(d)).expect("a result")).collect()
}

/// Runs every queued evaluation, then every queued delivery, until both queues are empty.
/// Returns the work each queue was given.
/// The deliveries queued since the last look, each job's `bid_request` fan-out items run through
/// the delivery work (which queues their deliveries), so only the single deliveries are left.
async fn deliveries(f: &Flows) -> Vec<Sent> {
    let mut out = Vec::new();
    loop {
        let sent = f.deliveries.take();
        if sent.is_empty() {
            return out;
        }
        for w in sent {
            if w.key.starts_with("bid_requests:") {
                assert_eq!(f.orcade.delivery_work().handle(&w.body).await, WorkOutcome::Done, "{}", w.body);
            } else {
                out.push(w);
            }
        }
    }
}

/// The job's incarnation, as its internal records are keyed.
async fn key(f: &Flows, id: &str) -> JobKey {
    JobKey::of(&job(f, id).await)
}

async fn drain(f: &Flows) -> (Vec<Sent>, Vec<Sent>) {
    let (mut evaluated, mut delivered) = (Vec::new(), Vec::new());
    loop {
        let evaluations = f.evaluations.take();
        let deliveries = deliveries(f).await;
        if evaluations.is_empty() && deliveries.is_empty() {
            return (evaluated, delivered);
        }
        for w in &evaluations {
            assert_eq!(f.orcade.evaluation_work().handle(&w.body).await, WorkOutcome::Done, "{}", w.body);
        }
        for w in &deliveries {
            assert_eq!(f.orcade.delivery_work().handle(&w.body).await, WorkOutcome::Done, "{}", w.body);
        }
        evaluated.extend(evaluations);
        delivered.extend(deliveries);
    }
}

#[tokio::test]
async fn a_closed_job_runs_from_creation_to_the_winners_result() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&xchange_job(closed_job())).await.expect("created").bid_job_id;

    // One bid_request per roster subject, queued, not sent inline.
    let requests = deliveries(&f).await;
    let k = key(&f, &job_id).await;
    assert_eq!(requests.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(), ["t1", "t2", "t3"].map(|s| format!("bid_request:{k}:{s}")));
    assert!(f.delegate.calls().is_empty());
    for w in &requests {
        assert_eq!(f.orcade.delivery_work().handle(&w.body).await, WorkOutcome::Done);
    }
    let calls = f.delegate.calls();
    assert_eq!(calls.len(), 3);
    assert_eq!(calls[0]["subject_id"], "t1");
    // One session per call: the upstream delegate waits for each answer on its session's queue.
    let sessions: std::collections::HashSet<&Value> = calls.iter().map(|c| &c["session_id"]).collect();
    assert_eq!(sessions.len(), 3, "{calls:?}");
    assert!(calls.iter().all(|c| c["session_id"] == c["task_id"]), "{calls:?}");
    assert_eq!(calls[0]["task_data"]["event_type"], "bid_request");
    assert_eq!(calls[0]["task_data"]["bid_job_id"], json!(job_id));
    assert_eq!(calls[0]["task_data"]["bid_job"]["bid_job_subject_ids"], json!(["t1", "t2", "t3"]));
    let stored = results(&f, &job_id).await;
    assert_eq!(stored.len(), 3);
    assert!(stored.iter().all(|r| r.task_type == TaskType::BidRequest && r.task_result["success"] == true));
    // The task id of a call is the id of the result it is stored under.
    assert!(calls.iter().all(|c| stored.iter().any(|r| c["task_id"] == json!(r.bid_task_result_id))));

    // Three bids; the third completes the roster, closes the job and requests one evaluation.
    f.orcade.intake().submit_bid(&job_id, &bid("t1", 120.0, 0.92)).await.expect("t1");
    f.orcade.intake().submit_bid(&job_id, &bid("t2", 90.0, 0.85)).await.expect("t2");
    assert!(f.evaluations.take().is_empty());
    assert_eq!(job(&f, &job_id).await.bid_job_status, BidJobStatus::Open);
    f.orcade.intake().submit_bid(&job_id, &bid("t3", 150.0, 0.99)).await.expect("t3");
    assert_eq!(job(&f, &job_id).await.bid_job_status, BidJobStatus::Closed);
    let requested = f.evaluations.take();
    assert_eq!(requested.len(), 1);
    assert_eq!(requested[0].body, evaluation_request(&job_id));

    // One evaluation, one winner, one bid_winner queued to the winner.
    let outcome = f.orcade.evaluator().evaluate_job(&job_id).await.expect("evaluated");
    assert!(matches!(&outcome, EvaluationOutcome::Resolved { winner_subject_id, .. } if winner_subject_id == "t2"), "{outcome:?}");
    let winners: Vec<_> = bids(&f, &job_id).await.into_iter().filter(|b| b.is_winner).map(|b| b.bid_subject_id).collect();
    assert_eq!(winners, ["t2"]);
    let winner = deliveries(&f).await;
    assert_eq!(winner.len(), 1);
    assert_eq!(winner[0].key, format!("bid_winner:{}", key(&f, &job_id).await));

    // Delivered through the delegate; the result keeps the reply and the evaluator's output.
    assert_eq!(f.orcade.delivery_work().handle(&winner[0].body).await, WorkOutcome::Done);
    let call = f.delegate.calls().pop().expect("a call");
    assert_eq!(call["subject_id"], "t2");
    assert_eq!(call["task_data"], json!({"event_type": "bid_winner", "bid_job_id": job_id}));
    let result = results(&f, &job_id).await.into_iter().find(|r| r.task_type == TaskType::BidWinner).expect("bid_winner result");
    assert_eq!(result.bid_subject_id, "t2");
    assert_eq!(
        Value::Object(result.task_result.clone()),
        json!({"success": true, "ack": {"subject": "t2"}, "output": {"seen": "bid_winner"}})
    );
    let output = result.evaluator_output.expect("evaluator_output");
    assert_eq!((output["status"].clone(), output["winner_subject_id"].clone()), (json!("resolved"), json!("t2")));

    // Resolved once its bid_winner is stored: one resolution event (Xchange opened the job).
    let events: Vec<Value> = f.resolutions.take().iter().map(|w| serde_json::from_str(&w.body).unwrap()).collect();
    assert_eq!(events, [json!({"event_type": "bid_job_resolved", "bid_job_id": job_id})]);

    // A duplicate request changes nothing.
    assert_eq!(f.orcade.evaluator().evaluate_job(&job_id).await.unwrap(), EvaluationOutcome::AlreadyEvaluated);
    assert!(deliveries(&f).await.is_empty());
    assert_eq!(results(&f, &job_id).await.len(), 4);
}

#[tokio::test]
async fn an_open_job_takes_applicants_until_full_then_closes_once() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&open_job(Some(3), None)).await.expect("created").bid_job_id;
    assert!(deliveries(&f).await.is_empty(), "an open job sends no bid_request");
    assert!(f.schedules.made().is_empty(), "no time limit, no schedule");
    for (i, s) in ["a1", "a2", "a3"].into_iter().enumerate() {
        f.orcade.intake().submit_bid(&job_id, &bid(s, 100.0 - i as f64, 0.5)).await.expect(s);
    }
    let j = job(&f, &job_id).await;
    assert_eq!(j.bid_job_subject_ids, ["a1", "a2", "a3"]);
    assert_eq!(j.bid_job_status, BidJobStatus::Closed);
    let late = f.orcade.intake().submit_bid(&job_id, &bid("a4", 1.0, 0.5)).await.unwrap_err();
    assert_eq!(late, OrcadeError::JobFull { bid_job_id: job_id.clone(), max_subjects: 3 });

    let (evaluated, delivered) = drain(&f).await;
    assert_eq!(evaluated.len(), 1);
    assert_eq!(delivered.len(), 1);
    let winners: Vec<_> = bids(&f, &job_id).await.into_iter().filter(|b| b.is_winner).map(|b| b.bid_subject_id).collect();
    assert_eq!(winners, ["a3"]);
}

#[tokio::test]
async fn an_open_job_with_a_time_limit_closes_when_its_time_has_passed() {
    let f = flows();
    let created = f.orcade.creator().create_job(&open_job(None, Some(3600))).await.expect("created");
    let job_id = created.bid_job_id.clone();
    let closes_at = Utc.with_ymd_and_hms(2026, 10, 5, 10, 0, 0).unwrap();
    assert_eq!(created.bid_job_closes_at, Some(closes_at));
    assert_eq!(f.schedules.made(), [(close_schedule_name(&job_id), closes_at, close_request(&job_id))]);

    f.orcade.intake().submit_bid(&job_id, &bid("a1", 80.0, 0.5)).await.expect("a1");
    f.orcade.intake().submit_bid(&job_id, &bid("a2", 70.0, 0.5)).await.expect("a2");
    assert!(f.orcade.closer().close_due_jobs().await.unwrap().is_empty(), "not due yet");

    f.clock.advance(chrono::Duration::hours(2));
    assert_eq!(f.orcade.closer().close_due_jobs().await.unwrap(), std::slice::from_ref(&job_id));
    assert!(f.orcade.closer().close_due_jobs().await.unwrap().is_empty(), "closed once");
    assert_eq!(job(&f, &job_id).await.bid_job_status, BidJobStatus::Closed);
    assert_eq!(f.orcade.intake().submit_bid(&job_id, &bid("a3", 1.0, 0.5)).await.unwrap_err(), OrcadeError::JobClosed(job_id.clone()));

    let (evaluated, _) = drain(&f).await;
    assert_eq!(evaluated.len(), 1);
    assert_eq!(bids(&f, &job_id).await.iter().filter(|b| b.is_winner).map(|b| b.bid_subject_id.as_str()).collect::<Vec<_>>(), ["a2"]);
}

#[tokio::test]
async fn the_one_shot_close_closes_only_a_due_open_job_and_only_once() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&open_job(None, Some(60))).await.unwrap().bid_job_id;
    let closed_mode = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    assert!(!f.orcade.closer().close_job_if_due(&job_id).await.unwrap(), "not due yet");
    assert!(!f.orcade.closer().close_job_if_due("no-such-job").await.unwrap());
    f.clock.advance(chrono::Duration::seconds(61));
    assert!(!f.orcade.closer().close_job_if_due(&closed_mode).await.unwrap(), "a closed-mode job has no closes_at");
    assert!(f.orcade.closer().close_job_if_due(&job_id).await.unwrap());
    assert!(!f.orcade.closer().close_job_if_due(&job_id).await.unwrap(), "fired twice: closed once");
    assert!(f.orcade.closer().close_due_jobs().await.unwrap().is_empty(), "the sweep after it finds nothing");
    assert_eq!(job(&f, &job_id).await.bid_job_status, BidJobStatus::Closed);
    assert_eq!(job(&f, &closed_mode).await.bid_job_status, BidJobStatus::Open);
    assert_eq!(f.evaluations.take().len(), 1, "one evaluation request");
}

#[tokio::test]
async fn an_open_job_refuses_a_bid_after_its_time_even_before_the_sweep() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&open_job(Some(5), Some(60))).await.unwrap().bid_job_id;
    f.clock.advance(chrono::Duration::seconds(61));
    assert_eq!(f.orcade.intake().submit_bid(&job_id, &bid("a1", 1.0, 0.5)).await.unwrap_err(), OrcadeError::JobClosed(job_id.clone()));
    assert_eq!(job(&f, &job_id).await.bid_job_status, BidJobStatus::Closed);
    assert_eq!(f.evaluations.take().len(), 1, "the bid closed it, once");
    assert!(f.orcade.closer().close_due_jobs().await.unwrap().is_empty());
    let (_, delivered) = drain(&f).await;
    assert!(delivered.is_empty(), "no bids: no winner");
}

#[tokio::test]
async fn a_mixed_job_is_found_by_its_subjects_tags() {
    let f = flows();
    let mut body = closed_job();
    body["bid_job_mode"] = json!("mixed");
    let job_id = f.orcade.creator().create_job(&body).await.expect("created").bid_job_id;
    let mut other = closed_job();
    other["bid_job_tags"] = json!(["translation"]);
    f.orcade.creator().create_job(&other).await.expect("another");
    assert_eq!(deliveries(&f).await.len(), 6, "mixed jobs request bids as closed ones do");

    let ids = |docs: Vec<Json>| docs.iter().map(|d| value(d)["bid_job_id"].as_str().unwrap().to_owned()).collect::<Vec<_>>();
    let q = f.orcade.queries();
    assert_eq!(ids(q.jobs_by_tags(&["subject::t2".into()], TagMatch::All).await.unwrap()), std::slice::from_ref(&job_id));
    assert_eq!(ids(q.jobs_by_tags(&["translation".into(), "fr".into()], TagMatch::All).await.unwrap()), std::slice::from_ref(&job_id));
    assert_eq!(q.jobs_by_tags(&["translation".into(), " ".into()], TagMatch::Any).await.unwrap().len(), 2);
    assert!(q.jobs_by_tags(&["Translation".into()], TagMatch::Any).await.unwrap().is_empty(), "case-sensitive");
    assert_eq!(q.jobs_by_tags(&[" ".into()], TagMatch::All).await.unwrap_err(), OrcadeError::NoTags);
    assert_eq!(TagMatch::parse(Some("some")).unwrap_err(), OrcadeError::InvalidMatch("some".into()));

    for (s, price) in [("t1", 10.0), ("t2", 20.0), ("t3", 30.0)] {
        f.orcade.intake().submit_bid(&job_id, &bid(s, price, 0.9)).await.expect(s);
    }
    let (evaluated, delivered) = drain(&f).await;
    assert_eq!((evaluated.len(), delivered.len()), (1, 1));
    assert_eq!(bids(&f, &job_id).await.iter().filter(|b| b.is_winner).count(), 1);
}

#[tokio::test]
async fn every_refusal_of_section_3() {
    let f = flows();
    let intake = f.orcade.intake();
    let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;

    assert_eq!(intake.submit_bid("nope", &bid("t1", 1.0, 0.9)).await.unwrap_err(), OrcadeError::UnknownJob("nope".into()));
    assert!(matches!(intake.submit_bid(&job_id, &json!({"bid_data": {}})).await, Err(OrcadeError::InvalidBid(_))));
    assert_eq!(
        intake.submit_bid(&job_id, &bid("stranger", 1.0, 0.9)).await.unwrap_err(),
        OrcadeError::NotOnRoster { bid_job_id: job_id.clone(), subject: "stranger".into() }
    );
    intake.submit_bid(&job_id, &bid("t1", 1.0, 0.9)).await.expect("first bid");
    assert_eq!(
        intake.submit_bid(&job_id, &bid("t1", 2.0, 0.9)).await.unwrap_err(),
        OrcadeError::AlreadyBid { bid_job_id: job_id.clone(), subject: "t1".into() }
    );
    // The creator closes early; another creator may not; twice is a 409.
    assert_eq!(
        f.orcade.closer().close_job(&job_id, Some(&caller("intruder"))).await.unwrap_err(),
        OrcadeError::NotCreator { bid_job_id: job_id.clone(), action: "close" }
    );
    let closed = f.orcade.closer().close_job(&job_id, Some(&caller("planner"))).await.expect("closed");
    assert_eq!(closed.bid_job_status, BidJobStatus::Closed);
    assert_eq!(f.orcade.closer().close_job(&job_id, None).await.unwrap_err(), OrcadeError::AlreadyClosed(job_id.clone()));
    assert_eq!(f.orcade.closer().close_job("nope", None).await.unwrap_err(), OrcadeError::UnknownJob("nope".into()));
    assert_eq!(intake.submit_bid(&job_id, &bid("t2", 1.0, 0.9)).await.unwrap_err(), OrcadeError::JobClosed(job_id.clone()));
    assert_eq!(f.evaluations.take().len(), 1);
    // The bids on file are evaluated.
    assert!(matches!(f.orcade.evaluator().evaluate_job(&job_id).await.unwrap(), EvaluationOutcome::Resolved { .. }));

    // Create refusals, and a chosen id used twice.
    assert!(matches!(f.orcade.creator().create_job(&json!({})).await, Err(OrcadeError::InvalidJob(_))));
    let mut chosen = closed_job();
    chosen["bid_job_id"] = json!("job-7");
    f.orcade.creator().create_job(&chosen).await.expect("chosen id");
    assert_eq!(f.orcade.creator().create_job(&chosen).await.unwrap_err(), OrcadeError::JobIdTaken("job-7".into()));
    let mut remote = closed_job();
    remote["bid_job_pqt_id"] = json!("https://hooks.example/pqt");
    assert!(
        matches!(f.orcade.creator().create_job(&remote).await, Err(OrcadeError::UnavailableHooks(p)) if p[0].starts_with("bid_job_pqt_id: "))
    );
}

#[tokio::test]
async fn a_pqt_refusal_is_kept_on_a_closed_job_and_not_on_an_open_one() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    let refused = f.orcade.intake().submit_bid(&job_id, &bid("t1", 1.0, 0.5)).await.unwrap_err();
    let OrcadeError::PqtRefused { reason, stored: true } = &refused else { panic!("{refused:?}") };
    assert!(reason.contains("0.5"), "{reason}");
    let kept = bids(&f, &job_id).await;
    assert_eq!(kept.len(), 1);
    assert_eq!(kept[0].bid_data["bid_rejected"], true);
    assert_eq!(kept[0].pqt_reason(), Some(reason.as_str()));
    // A refused bid counts towards the roster, and is never evaluated.
    f.orcade.intake().submit_bid(&job_id, &bid("t2", 50.0, 0.9)).await.unwrap();
    f.orcade.intake().submit_bid(&job_id, &bid("t3", 60.0, 0.9)).await.unwrap();
    assert_eq!(f.evaluations.take().len(), 1);
    let outcome = f.orcade.evaluator().evaluate_job(&job_id).await.unwrap();
    assert!(
        matches!(&outcome, EvaluationOutcome::Resolved { winner_subject_id, .. } if winner_subject_id == "t2"),
        "t1's price of 1 was refused: {outcome:?}"
    );

    // On an open job a refused applicant is not stored, and may apply again.
    let mut open = open_job(Some(2), None);
    open["bid_job_pqt_id"] = json!("builtin:min-confidence");
    open["bid_job_metadata"] = json!({"parameters": {"min": 0.8}});
    let open_id = f.orcade.creator().create_job(&open).await.unwrap().bid_job_id;
    let refused = f.orcade.intake().submit_bid(&open_id, &bid("a1", 1.0, 0.5)).await.unwrap_err();
    assert!(matches!(refused, OrcadeError::PqtRefused { stored: false, .. }), "{refused:?}");
    assert!(bids(&f, &open_id).await.is_empty());
    assert!(job(&f, &open_id).await.bid_job_subject_ids.is_empty());
    f.orcade.intake().submit_bid(&open_id, &bid("a1", 1.0, 0.9)).await.expect("a better bid");
    assert_eq!(job(&f, &open_id).await.bid_job_subject_ids, ["a1"]);
}

#[tokio::test]
async fn a_pqt_that_fails_or_answers_malformed_refuses_the_bid_saying_so() {
    let f = flows_with(scripted_remote(), ok_delegate());
    let mut body = closed_job();
    body["bid_job_pqt_id"] = json!("https://hooks.example/pqt-down");
    let down = f.orcade.creator().create_job(&body).await.unwrap().bid_job_id;
    let e = f.orcade.intake().submit_bid(&down, &bid("t1", 1.0, 0.9)).await.unwrap_err();
    assert!(
        matches!(&e, OrcadeError::PqtRefused { reason, stored: true } if reason.starts_with("the PQT failed: ") && reason.contains("503")),
        "{e:?}"
    );

    body["bid_job_pqt_id"] = json!("https://hooks.example/pqt-malformed");
    let malformed = f.orcade.creator().create_job(&body).await.unwrap().bid_job_id;
    let e = f.orcade.intake().submit_bid(&malformed, &bid("t1", 1.0, 0.9)).await.unwrap_err();
    assert!(
        matches!(&e, OrcadeError::PqtRefused { reason, .. } if reason.contains("malformed") && reason.contains("accepted is missing")),
        "{e:?}"
    );

    body["bid_job_pqt_id"] = json!("https://hooks.example/pqt-wrapped");
    let wrapped = f.orcade.creator().create_job(&body).await.unwrap().bid_job_id;
    f.orcade.intake().submit_bid(&wrapped, &bid("t1", 1.0, 0.9)).await.expect("{\"data\": {...}} is read as its data");
}

#[tokio::test]
async fn no_valid_bids_marks_no_winner_and_sends_nothing() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&xchange_job(closed_job())).await.unwrap().bid_job_id;
    deliveries(&f).await;
    for s in ["t1", "t2", "t3"] {
        assert!(matches!(f.orcade.intake().submit_bid(&job_id, &bid(s, 10.0, 0.1)).await, Err(OrcadeError::PqtRefused { .. })));
    }
    let (evaluated, delivered) = drain(&f).await;
    assert_eq!((evaluated.len(), delivered.len()), (1, 0));
    assert!(bids(&f, &job_id).await.iter().all(|b| !b.is_winner));
    let record = f.orcade.queries().evaluation(&job_id).await.unwrap().expect("recorded");
    assert!(record.applied());
    assert!(matches!(record.decision, Decision::NoValidBids { evaluator_output } if evaluator_output["status"] == "no_valid_bids"));
    assert_eq!(job(&f, &job_id).await.bid_job_status, BidJobStatus::Closed);
    assert_eq!(f.resolutions.take().len(), 1, "resolved with no winner: one event");
}

#[tokio::test]
async fn only_the_jobs_xchange_opened_announce_their_resolution() {
    let f = flows();
    let mut not_a_mark = closed_job();
    not_a_mark["bid_job_metadata"][RESOLUTION_MARK] = json!("yes");
    // Jobs nobody marked: one with a winner (evaluated, then its bid_winner delivered), one
    // with no valid bids (evaluated), one whose mark is not an object.
    let won = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    let unmarked = f.orcade.creator().create_job(&not_a_mark).await.unwrap().bid_job_id;
    let none_valid = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    for (s, price) in [("t1", 120.0), ("t2", 90.0), ("t3", 150.0)] {
        f.orcade.intake().submit_bid(&won, &bid(s, price, 0.9)).await.expect("bid");
        f.orcade.intake().submit_bid(&unmarked, &bid(s, price, 0.9)).await.expect("bid");
        assert!(matches!(f.orcade.intake().submit_bid(&none_valid, &bid(s, price, 0.1)).await, Err(OrcadeError::PqtRefused { .. })));
    }
    let (evaluated, delivered) = drain(&f).await;
    assert_eq!(evaluated.len(), 3);
    assert_eq!(delivered.iter().filter(|d| d.key.starts_with("bid_winner:")).count(), 2);
    assert!(results(&f, &won).await.iter().any(|r| r.task_type == TaskType::BidWinner));
    assert!(f.resolutions.take().is_empty(), "no resolution event for a job Xchange did not open");

    // The same job marked: its resolution is announced.
    let marked = f.orcade.creator().create_job(&xchange_job(closed_job())).await.unwrap().bid_job_id;
    for (s, price) in [("t1", 120.0), ("t2", 90.0), ("t3", 150.0)] {
        f.orcade.intake().submit_bid(&marked, &bid(s, price, 0.9)).await.expect("bid");
    }
    drain(&f).await;
    let events: Vec<Value> = f.resolutions.take().iter().map(|w| serde_json::from_str(&w.body).unwrap()).collect();
    assert_eq!(events, [json!({"event_type": "bid_job_resolved", "bid_job_id": marked})]);
}

#[tokio::test]
async fn a_malformed_evaluator_is_recorded_and_a_slow_one_retried() {
    let f = flows_with(scripted_remote(), ok_delegate());
    let mut body = closed_job();
    body["bid_job_pqt_id"] = json!("");
    body["bid_job_subject_ids"] = json!(["t1"]);
    for (url, says) in
        [("https://hooks.example/eval-malformed", "malformed"), ("https://hooks.example/eval-stranger", "names no accepted bid")]
    {
        body["bid_job_evaluator_id"] = json!(url);
        let id = f.orcade.creator().create_job(&body).await.unwrap().bid_job_id;
        f.orcade.intake().submit_bid(&id, &bid("t1", 1.0, 0.9)).await.unwrap();
        let outcome = f.orcade.evaluation_work().handle(&evaluation_request(&id)).await;
        assert_eq!(outcome, WorkOutcome::Done, "a malformed output is not retried");
        let record = f.orcade.queries().evaluation(&id).await.unwrap().expect("recorded");
        assert!(matches!(&record.decision, Decision::Failed { error } if error.contains(says)), "{:?}", record.decision);
        assert!(bids(&f, &id).await.iter().all(|b| !b.is_winner));
    }
    f.evaluations.take();
    deliveries(&f).await;

    body["bid_job_evaluator_id"] = json!("https://hooks.example/eval-slow");
    let id = f.orcade.creator().create_job(&body).await.unwrap().bid_job_id;
    f.orcade.intake().submit_bid(&id, &bid("t1", 1.0, 0.9)).await.unwrap();
    assert!(matches!(f.orcade.evaluation_work().handle(&evaluation_request(&id)).await, WorkOutcome::Retry(r) if r.contains("timed out")));
    assert_eq!(f.orcade.queries().evaluation(&id).await.unwrap(), None, "nothing recorded: a retry may succeed");

    // A remote evaluator sees the accepted bids only, as §4 writes them, and may answer
    // {"data": ...}: t1's bid, refused by the PQT, is not first, it is not there.
    body["bid_job_evaluator_id"] = json!("https://hooks.example/eval-first");
    body["bid_job_pqt_id"] = json!("builtin:min-confidence");
    body["bid_job_subject_ids"] = json!(["t1", "t2"]);
    let id = f.orcade.creator().create_job(&body).await.unwrap().bid_job_id;
    assert!(f.orcade.intake().submit_bid(&id, &bid("t1", 1.0, 0.1)).await.is_err());
    f.orcade.intake().submit_bid(&id, &bid("t2", 1.0, 0.9)).await.unwrap();
    let outcome = f.orcade.evaluator().evaluate_job(&id).await.unwrap();
    assert!(matches!(&outcome, EvaluationOutcome::Resolved { winner_subject_id, .. } if winner_subject_id == "t2"), "{outcome:?}");
}

#[tokio::test]
async fn a_failed_delegate_call_is_stored_as_a_failure() {
    let f = flows_with(
        Arc::new(NoRemote),
        ScriptedDelegate::new(|r| match r.subject_id {
            "t1" => Err(DelegateError::Timeout(Duration::from_secs(30))),
            "t2" => Err(DelegateError::Refused { status: 502, reply: json!({"success": false}) }),
            _ => Ok(json!("not an object")),
        }),
    );
    let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    let (_, delivered) = drain(&f).await;
    assert_eq!(delivered.len(), 3);
    let mut stored = results(&f, &job_id).await;
    stored.sort_by(|a, b| a.bid_subject_id.cmp(&b.bid_subject_id));
    let errors: Vec<_> =
        stored.iter().map(|r| (r.task_result["success"].clone(), r.task_result["error"].as_str().unwrap_or("").to_owned())).collect();
    assert!(errors.iter().all(|(success, _)| success == &json!(false)));
    assert!(errors[0].1.contains("did not answer within 30s"), "{}", errors[0].1);
    assert!(errors[1].1.contains("HTTP 502"), "{}", errors[1].1);
    assert!(errors[2].1.contains("not a JSON object"), "{}", errors[2].1);
}

#[tokio::test]
async fn duplicate_evaluation_and_delivery_requests_do_the_work_once() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    let requests = deliveries(&f).await;
    // Every bid_request delivered twice: one call, one result each.
    for w in requests.iter().chain(requests.iter()) {
        assert_eq!(f.orcade.delivery_work().handle(&w.body).await, WorkOutcome::Done);
    }
    assert_eq!(f.delegate.calls().len(), 3);
    assert_eq!(results(&f, &job_id).await.len(), 3);
    let again = Delivery::parse(&requests[0].body).unwrap();
    assert_eq!(f.orcade.deliverer().deliver(&again).await.unwrap(), DeliveryOutcome::AlreadyDelivered);
    // While another worker holds a delivery, it is retried later, not made twice.
    let winner_delivery = Delivery::bid_winner(&job(&f, &job_id).await, "t1", json!({}));
    let claims = agora_store::claims::Claims::new(f.orcade.ports().store.clone());
    claims.take(&format!("deliver:{}", winner_delivery.delivery_id), f.clock.now(), Some(chrono::Duration::seconds(60))).await.unwrap();
    assert!(
        matches!(f.orcade.delivery_work().handle(&winner_delivery.body()).await, WorkOutcome::Busy { reason, .. } if reason.contains("held"))
    );
    claims.release(&format!("deliver:{}", winner_delivery.delivery_id)).await.unwrap();
    assert_eq!(f.delegate.calls().len(), 3);

    for s in ["t1", "t2", "t3"] {
        f.orcade.intake().submit_bid(&job_id, &bid(s, 10.0, 0.9)).await.unwrap();
    }
    // The request arrives three times, two of them at once.
    let body = evaluation_request(&job_id);
    let work = f.orcade.evaluation_work();
    let (a, b) = tokio::join!(work.handle(&body), work.handle(&body));
    assert_eq!((a, b), (WorkOutcome::Done, WorkOutcome::Done));
    assert_eq!(work.handle(&body).await, WorkOutcome::Done);
    assert_eq!(bids(&f, &job_id).await.iter().filter(|b| b.is_winner).count(), 1);
    let winner = deliveries(&f).await;
    assert_eq!(winner.len(), 1, "one bid_winner");
    let deliveries = f.orcade.delivery_work();
    let (x, y) = tokio::join!(deliveries.handle(&winner[0].body), deliveries.handle(&winner[0].body));
    assert!([x, y].contains(&WorkOutcome::Done));
    f.orcade.delivery_work().handle(&winner[0].body).await;
    assert_eq!(results(&f, &job_id).await.iter().filter(|r| r.task_type == TaskType::BidWinner).count(), 1);
    assert_eq!(f.delegate.calls().len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_creators_close_racing_the_last_bid_requests_one_evaluation() {
    for _ in 0..20 {
        let f = flows();
        let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
        f.orcade.intake().submit_bid(&job_id, &bid("t1", 10.0, 0.9)).await.unwrap();
        f.orcade.intake().submit_bid(&job_id, &bid("t2", 20.0, 0.9)).await.unwrap();
        let o = f.orcade.clone();
        let j = job_id.clone();
        let last = tokio::spawn(async move { o.intake().submit_bid(&j, &bid("t3", 5.0, 0.9)).await });
        let closes: Vec<_> = (0..3)
            .map(|_| {
                let (o, j) = (f.orcade.clone(), job_id.clone());
                tokio::spawn(async move { o.closer().close_job(&j, Some(&caller("planner"))).await })
            })
            .collect();
        let last = last.await.unwrap();
        let closes: Vec<_> = futures::future::join_all(closes).await.into_iter().map(Result::unwrap).collect();
        // The bid is stored and evaluated, or refused as the job closed: never lost between.
        match &last {
            Ok(_) => {}
            Err(e) => assert_eq!(e, &OrcadeError::JobClosed(job_id.clone())),
        }
        for close in &closes {
            assert!(close.is_ok() || close == &Err(OrcadeError::AlreadyClosed(job_id.clone())), "{close:?}");
        }
        let closed_by_creator = closes.iter().filter(|c| c.is_ok()).count();
        assert!(closed_by_creator <= 1, "{closes:?}");
        assert_eq!(f.evaluations.take().len(), 1, "one evaluation request");
        let outcome = f.orcade.evaluator().evaluate_job(&job_id).await.unwrap();
        let want = if last.is_ok() { "t3" } else { "t1" };
        assert!(matches!(&outcome, EvaluationOutcome::Resolved { winner_subject_id, .. } if winner_subject_id == want), "{outcome:?}");
    }
}

#[tokio::test]
async fn a_bid_that_read_the_job_open_is_refused_once_it_closed() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    f.orcade.intake().submit_bid(&job_id, &bid("t1", 10.0, 0.9)).await.unwrap();
    // t2's bid has read the job open and passed every check; its write is held.
    let (arrived, release) = f.store.hold_next_bid();
    let (o, j) = (f.orcade.clone(), job_id.clone());
    let late = tokio::spawn(async move { o.intake().submit_bid(&j, &bid("t2", 1.0, 0.9)).await });
    arrived.await.unwrap();
    // Meanwhile the creator closes the job: the held write then finds it closed.
    f.orcade.closer().close_job(&job_id, None).await.unwrap();
    release.send(()).unwrap();
    assert_eq!(late.await.unwrap().unwrap_err(), OrcadeError::JobClosed(job_id.clone()));
    let (evaluated, _) = drain(&f).await;
    assert_eq!(evaluated.len(), 1);
    let on_file = bids(&f, &job_id).await;
    assert_eq!(on_file.len(), 1, "no bid is stored that the evaluation did not read");
    assert!(on_file[0].is_winner);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_concurrent_applicants_for_three_places() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&open_job(Some(3), None)).await.unwrap().bid_job_id;
    let tasks: Vec<_> = (0..20)
        .map(|i| {
            let (orcade, id) = (f.orcade.clone(), job_id.clone());
            tokio::spawn(async move { orcade.intake().submit_bid(&id, &bid(&format!("a{i}"), f64::from(i), 0.5)).await })
        })
        .collect();
    let answers: Vec<_> = futures::future::join_all(tasks).await.into_iter().map(Result::unwrap).collect();
    let accepted: Vec<_> = answers.iter().filter_map(|a| a.as_ref().ok()).map(|b| b.bid_subject_id.clone()).collect();
    assert_eq!(accepted.len(), 3, "{answers:?}");
    for refused in answers.iter().filter_map(|a| a.as_ref().err()) {
        assert!(matches!(refused, OrcadeError::JobFull { max_subjects: 3, .. } | OrcadeError::JobClosed(_)), "{refused:?}");
    }
    let j = job(&f, &job_id).await;
    let mut roster = j.bid_job_subject_ids.clone();
    roster.sort();
    let mut want = accepted.clone();
    want.sort();
    assert_eq!(roster, want);
    assert_eq!(j.bid_job_status, BidJobStatus::Closed);
    assert_eq!(bids(&f, &job_id).await.len(), 3);
    let (evaluated, _) = drain(&f).await;
    assert_eq!(evaluated.len(), 1, "closed once, evaluated once");
}

#[tokio::test]
async fn the_repair_sweep_requests_lost_and_stalled_evaluations() {
    let f = flows();
    // Lost: the request never reached the queue (dropped here).
    let lost = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    f.orcade.closer().close_job(&lost, None).await.unwrap();
    f.evaluations.take();
    // Never requested: marked pending and closed, without a request (a closer that died after
    // the close).
    let never = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    let store = f.orcade.ports().store.clone();
    f.orcade.repo().mark_pending(&never, f.clock.now()).await.unwrap();
    store.update("bid_jobs", &never, &Filter::all(), &Change::set(&json!({"bid_job_status": "closed"}))).await.unwrap();

    // A recorded request is the queue's for its day.
    assert_eq!(f.orcade.repairer().repair_stalled_jobs().await.unwrap(), [(never.clone(), Stall::NeverRequested)]);
    assert!(f.orcade.repairer().repair_stalled_jobs().await.unwrap().is_empty(), "one repair per request");
    f.clock.advance(chrono::Duration::hours(25));
    assert_eq!(
        f.orcade.repairer().repair_stalled_jobs().await.unwrap(),
        [(lost.clone(), Stall::RequestLost), (never.clone(), Stall::RequestLost)]
    );
    let (evaluated, _) = drain(&f).await;
    assert_eq!(evaluated.len(), 3);
    f.clock.advance(chrono::Duration::hours(25));
    assert!(f.orcade.repairer().repair_stalled_jobs().await.unwrap().is_empty(), "evaluated jobs are left alone");
    assert!(f.orcade.repo().pending_job_ids().await.unwrap().is_empty(), "no evaluated job is pending");

    // Evaluator gone: its claim held and run out.
    let gone = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    f.orcade.closer().close_job(&gone, None).await.unwrap();
    let claims = agora_store::claims::Claims::new(store.clone());
    claims
        .take(&format!("evaluate:{}", key(&f, &gone).await), f.clock.now(), Some(chrono::Duration::seconds(60)))
        .await
        .unwrap()
        .expect("taken");
    f.evaluations.take();
    assert!(f.orcade.repairer().repair_stalled_jobs().await.unwrap().is_empty(), "the evaluator is alive");
    assert_eq!(f.orcade.evaluator().evaluate_job(&gone).await.unwrap(), EvaluationOutcome::InProgress);
    f.clock.advance(chrono::Duration::minutes(2));
    assert_eq!(f.orcade.repairer().repair_stalled_jobs().await.unwrap(), [(gone.clone(), Stall::EvaluatorGone)]);
    let (evaluated, _) = drain(&f).await;
    assert_eq!(evaluated.len(), 1);
    assert!(f.orcade.queries().evaluation(&gone).await.unwrap().unwrap().applied());
}

#[tokio::test]
async fn a_recorded_decision_is_applied_as_recorded() {
    // An evaluator recorded its decision and died before applying it: the next one applies the
    // recorded decision, and does not ask the evaluator again (which would pick t1 here).
    let f = flows();
    let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    f.orcade.intake().submit_bid(&job_id, &bid("t1", 10.0, 0.9)).await.unwrap();
    let t2 = f.orcade.intake().submit_bid(&job_id, &bid("t2", 20.0, 0.9)).await.unwrap();
    f.orcade.closer().close_job(&job_id, None).await.unwrap();
    let recorded = Decision::Winner {
        winner_subject_id: "t2".into(),
        bid_id: t2.bid_id.clone(),
        evaluator_output: json!({"status": "resolved", "winner_subject_id": "t2"}),
    };
    f.orcade.repo().record_decision(&job(&f, &job_id).await, &recorded, f.clock.now()).await.unwrap();
    let outcome = f.orcade.evaluator().evaluate_job(&job_id).await.unwrap();
    assert_eq!(outcome, EvaluationOutcome::Resolved { winner_subject_id: "t2".into(), bid_id: t2.bid_id });
    assert_eq!(f.orcade.queries().evaluation(&job_id).await.unwrap().unwrap().decision, recorded);
    let winners: Vec<_> = bids(&f, &job_id).await.into_iter().filter(|b| b.is_winner).map(|b| b.bid_subject_id).collect();
    assert_eq!(winners, ["t2"]);
}

#[tokio::test]
async fn the_repair_sweep_closes_a_job_whose_last_bid_died_before_the_close() {
    let f = flows();
    // The last roster bid is stored with its count, and its process dies before the close.
    let closed = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    for s in ["t1", "t2"] {
        f.orcade.intake().submit_bid(&closed, &bid(s, 10.0, 0.9)).await.unwrap();
    }
    let crashed = |job: &str, subject: &str| Bid {
        bid_id: format!("bid-{subject}"),
        bid_job_id: job.to_owned(),
        bid_data: json!({"price_usd": 1.0}).as_object().unwrap().clone(),
        bid_subject_id: subject.to_owned(),
        submission_time: f.clock.now(),
        is_winner: false,
    };
    f.orcade.repo().insert_counted_bid(&crashed(&closed, "t3"), &job(&f, &closed).await).await.unwrap();
    // An open job's filling applicant died before the close.
    let open = f.orcade.creator().create_job(&open_job(Some(2), None)).await.unwrap().bid_job_id;
    f.orcade.intake().submit_bid(&open, &bid("a1", 10.0, 0.9)).await.unwrap();
    f.orcade.repo().insert_counted_bid(&crashed(&open, "a2"), &job(&f, &open).await).await.unwrap();
    // A job still waiting for bids is left open.
    let waiting = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    f.orcade.intake().submit_bid(&waiting, &bid("t1", 10.0, 0.9)).await.unwrap();
    assert!(f.evaluations.take().is_empty());

    let repaired = f.orcade.repairer().repair_stalled_jobs().await.unwrap();
    assert_eq!(repaired, [(closed.clone(), Stall::NeverClosed), (open.clone(), Stall::NeverClosed)]);
    assert_eq!(job(&f, &open).await.bid_job_subject_ids, ["a1", "a2"]);
    assert_eq!(job(&f, &waiting).await.bid_job_status, BidJobStatus::Open);
    let (evaluated, _) = drain(&f).await;
    assert_eq!(evaluated.len(), 2);
    for (id, winner) in [(&closed, "t3"), (&open, "a2")] {
        let winners: Vec<_> = bids(&f, id).await.into_iter().filter(|b| b.is_winner).map(|b| b.bid_subject_id).collect();
        assert_eq!(winners, [winner]);
    }
    assert!(f.orcade.repairer().repair_stalled_jobs().await.unwrap().is_empty());
}

/// An open job's applicants are its accepted bids: nothing rewrites the job per bid, its
/// readers see them in the order they came, a withdrawn applicant gives its place back while
/// the job is open, and the close writes the final roster into the job.
#[tokio::test]
async fn an_open_jobs_applicants_are_its_bids_until_the_close_writes_them() {
    let f = flows();
    let open = f.orcade.creator().create_job(&open_job(Some(3), None)).await.unwrap().bid_job_id;
    let a1 = f.orcade.intake().submit_bid(&open, &bid("a1", 10.0, 0.9)).await.unwrap();
    f.orcade.intake().submit_bid(&open, &bid("a2", 12.0, 0.9)).await.unwrap();
    let seen = |f: &Flows| {
        let (queries, open) = (f.orcade.queries().clone(), open.clone());
        async move { value(&queries.job(&open).await.unwrap())["bid_job_subject_ids"].clone() }
    };
    let stored = f.orcade.repo().job(&open).await.unwrap().unwrap();
    assert!(stored.bid_job_subject_ids.is_empty(), "the stored job is not rewritten per bid");
    assert_eq!(seen(&f).await, json!(["a1", "a2"]));
    let listed = f.orcade.queries().query_jobs(&json!({"bid_job_id": open})).await.unwrap();
    assert_eq!(value(&listed[0])["bid_job_subject_ids"], json!(["a1", "a2"]));

    // a1 withdraws while the job is open: its place is given back.
    f.orcade.edits().delete_bid(&a1.bid_id, None).await.unwrap();
    assert_eq!(seen(&f).await, json!(["a2"]));
    f.orcade.intake().submit_bid(&open, &bid("a3", 8.0, 0.9)).await.unwrap();
    assert_eq!(job(&f, &open).await.bid_job_status, BidJobStatus::Open, "two of three places taken");
    f.orcade.intake().submit_bid(&open, &bid("a4", 9.0, 0.9)).await.unwrap();
    let closed = f.orcade.repo().job(&open).await.unwrap().unwrap();
    assert_eq!(closed.bid_job_status, BidJobStatus::Closed);
    assert_eq!(closed.bid_job_subject_ids, ["a2", "a3", "a4"], "the close writes the roster");
    assert_eq!(seen(&f).await, json!(["a2", "a3", "a4"]));

    // Closed, then evaluated: a bid can no longer be withdrawn, and says why.
    let a2 = bids(&f, &open).await.into_iter().find(|b| b.bid_subject_id == "a2").unwrap();
    let refused = |evaluated| OrcadeError::BidsFinal { bid_job_id: open.clone(), evaluated };
    assert_eq!(f.orcade.edits().delete_bid(&a2.bid_id, None).await.unwrap_err(), refused(false));
    drain(&f).await;
    assert_eq!(f.orcade.edits().delete_bid(&a2.bid_id, None).await.unwrap_err(), refused(true));
    assert_eq!(bids(&f, &open).await.len(), 3);
    let winners: Vec<_> = bids(&f, &open).await.into_iter().filter(|b| b.is_winner).map(|b| b.bid_subject_id).collect();
    assert_eq!(winners, ["a3"]);
}

/// A job deleted and created again under its id starts clean: a bid that read the deleted one
/// is refused or lands on the new one, never on the old; the old one's bids, results and
/// evaluation are gone; the new one is requested, evaluated and delivered once.
#[tokio::test]
async fn a_job_created_again_under_a_deleted_ones_id_starts_clean() {
    let f = flows();
    let body = {
        let mut b = closed_job();
        b["bid_job_id"] = json!("reused");
        b
    };
    f.orcade.creator().create_job(&body).await.unwrap();
    for s in ["t1", "t2", "t3"] {
        f.orcade.intake().submit_bid("reused", &bid(s, 10.0, 0.9)).await.unwrap();
    }
    drain(&f).await;
    assert_eq!(results(&f, "reused").await.len(), 4, "three bid_requests and the bid_winner");
    assert!(f.orcade.queries().evaluation("reused").await.unwrap().is_some());

    f.orcade.edits().delete_job("reused", None).await.unwrap();
    assert!(f.orcade.repo().bids_raw("reused").await.unwrap().is_empty());
    assert!(f.orcade.repo().results_raw("reused").await.unwrap().is_empty());
    assert_eq!(f.orcade.intake().submit_bid("reused", &bid("t1", 10.0, 0.9)).await.unwrap_err(), OrcadeError::UnknownJob("reused".into()));

    f.clock.advance(chrono::Duration::seconds(1));
    f.orcade.creator().create_job(&body).await.unwrap();
    assert!(f.orcade.queries().evaluation("reused").await.unwrap().is_none());
    assert!(f.orcade.queries().task_results_of("reused").await.unwrap().is_empty());
    let (_, delivered) = drain(&f).await;
    assert_eq!(delivered.len(), 3, "each member of the new job gets its bid_request");
    for s in ["t1", "t2", "t3"] {
        f.orcade.intake().submit_bid("reused", &bid(s, 20.0, 0.9)).await.unwrap();
    }
    let (evaluated, delivered) = drain(&f).await;
    assert_eq!((evaluated.len(), delivered.len()), (1, 1), "evaluated once, one bid_winner");
    let prices: Vec<f64> = bids(&f, "reused").await.iter().map(|b| b.bid_data["price_usd"].as_f64().unwrap()).collect();
    assert_eq!(prices, [20.0, 20.0, 20.0], "only its own bids");
    assert_eq!(results(&f, "reused").await.len(), 4);
}

/// With the caller known, a job is closed, changed or deleted only by its creator or an
/// operator, a bid changed or deleted only by its subject or an operator; a refusal changes
/// nothing.
#[tokio::test]
async fn only_the_creator_or_an_operator_edits_a_job_only_the_bidder_a_bid() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    let b = f.orcade.intake().submit_bid(&job_id, &bid("t1", 10.0, 0.9)).await.unwrap();
    let (edits, stranger, operator) = (f.orcade.edits(), caller("t2"), Caller { subject: "ops".into(), admin: true });
    let not_creator = |action| OrcadeError::NotCreator { bid_job_id: job_id.clone(), action };
    let not_bidder = |action| OrcadeError::NotBidder { bid_id: b.bid_id.clone(), action };
    assert_eq!(edits.patch_job(&job_id, &json!({"bid_job_name": "x"}), Some(&stranger)).await.unwrap_err(), not_creator("change"));
    assert_eq!(edits.delete_job(&job_id, Some(&stranger)).await.unwrap_err(), not_creator("delete"));
    assert_eq!(f.orcade.closer().close_job(&job_id, Some(&stranger)).await.unwrap_err(), not_creator("close"));
    assert_eq!(
        edits.patch_bid(&b.bid_id, &json!({"bid_data.eta_hours": 1}), Some(&caller("planner"))).await.unwrap_err(),
        not_bidder("change")
    );
    assert_eq!(edits.delete_bid(&b.bid_id, Some(&stranger)).await.unwrap_err(), not_bidder("delete"));
    assert_eq!(job(&f, &job_id).await.bid_job_status, BidJobStatus::Open, "nothing changed");
    assert_eq!(bids(&f, &job_id).await.len(), 1);

    let patched = value(&edits.patch_bid(&b.bid_id, &json!({"bid_data.eta_hours": 6}), Some(&caller("t1"))).await.unwrap());
    assert_eq!(patched["bid_data"]["eta_hours"], 6);
    edits.patch_job(&job_id, &json!({"bid_job_metadata.priority": "high"}), Some(&caller("planner"))).await.unwrap();
    edits.patch_job(&job_id, &json!({"bid_job_metadata.by": "ops"}), Some(&operator)).await.unwrap();
    edits.delete_bid(&b.bid_id, Some(&operator)).await.unwrap();
    assert_eq!(edits.delete_bid("nope", Some(&stranger)).await.unwrap_err(), OrcadeError::UnknownBid("nope".into()));
    edits.delete_job(&job_id, Some(&caller("planner"))).await.unwrap();
}

#[tokio::test]
async fn edits_and_queries() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    let patched = value(&f.orcade.edits().patch_job(&job_id, &json!({"bid_job_metadata.priority": "high"}), None).await.unwrap());
    assert_eq!(patched["bid_job_metadata"], json!({"parameters": {"min": 0.8}, "priority": "high"}));
    assert!(matches!(
        f.orcade.edits().patch_job(&job_id, &json!({"bid_job_status": "closed"}), None).await,
        Err(OrcadeError::InvalidPatch(_))
    ));
    assert!(matches!(
        f.orcade.edits().patch_job(&job_id, &json!({"bid_job_evaluator_id": "https://hooks.example/e"}), None).await,
        Err(OrcadeError::UnavailableHooks(_))
    ));
    assert_eq!(
        f.orcade.edits().patch_job("nope", &json!({"bid_job_name": {}}), None).await.unwrap_err(),
        OrcadeError::UnknownJob("nope".into())
    );

    let b = f.orcade.intake().submit_bid(&job_id, &bid("t1", 10.0, 0.9)).await.unwrap();
    let patched = value(&f.orcade.edits().patch_bid(&b.bid_id, &json!({"bid_data.eta_hours": 6}), None).await.unwrap());
    assert_eq!(patched["bid_data"]["eta_hours"], 6);
    assert!(matches!(f.orcade.edits().patch_bid(&b.bid_id, &json!({"is_winner": true}), None).await, Err(OrcadeError::InvalidPatch(_))));

    let q = f.orcade.queries();
    assert_eq!(q.query_bids(&json!({"bid_data.eta_hours": {"$gte": 6}})).await.unwrap().len(), 1);
    assert_eq!(q.query_jobs(&json!({"bid_job_creator_id": "planner"})).await.unwrap().len(), 1);
    assert_eq!(q.query_task_results(&Value::Null).await.unwrap().len(), 0);
    assert!(matches!(q.query_jobs(&json!({"a": {"$regex": "x"}})).await, Err(OrcadeError::InvalidFilter(_))));
    assert_eq!(value(&q.bid(&b.bid_id).await.unwrap())["bid_subject_id"], "t1");
    assert_eq!(q.bid("nope").await.unwrap_err(), OrcadeError::UnknownBid("nope".into()));
    assert_eq!(q.bids_of("nope").await.unwrap_err(), OrcadeError::UnknownJob("nope".into()));
    assert_eq!(q.task_results_of("nope").await.unwrap_err(), OrcadeError::UnknownJob("nope".into()));

    f.orcade.edits().delete_bid(&b.bid_id, None).await.unwrap();
    assert_eq!(f.orcade.edits().delete_bid(&b.bid_id, None).await.unwrap_err(), OrcadeError::UnknownBid(b.bid_id.clone()));
    f.orcade.intake().submit_bid(&job_id, &bid("t2", 10.0, 0.9)).await.unwrap();
    let k = key(&f, &job_id).await;
    f.orcade.edits().delete_job(&job_id, None).await.unwrap();
    assert_eq!(q.job(&job_id).await.unwrap_err(), OrcadeError::UnknownJob(job_id.clone()));
    assert!(q.query_bids(&json!({"bid_job_id": job_id})).await.unwrap().is_empty(), "its bids went with it");
    assert_eq!(f.orcade.edits().delete_job(&job_id, None).await.unwrap_err(), OrcadeError::UnknownJob(job_id.clone()));
    // Its queued fan-out finds it gone and queues nothing; a bid_request queued already too.
    assert!(deliveries(&f).await.is_empty());
    let d = Delivery::bid_request(&job_id, &k, "t1");
    assert_eq!(f.orcade.deliverer().deliver(&d).await.unwrap(), DeliveryOutcome::JobGone);
}

#[tokio::test]
async fn a_closed_job_s_roster_is_replaced_by_patch() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&closed_job()).await.unwrap().bid_job_id;
    deliveries(&f).await;
    f.orcade.intake().submit_bid(&job_id, &bid("t1", 10.0, 0.9)).await.unwrap();
    let edits = f.orcade.edits();

    // A member with a bid on file stays; nothing is stored by the refused PATCH.
    let Err(OrcadeError::InvalidPatch(e)) = edits.patch_job(&job_id, &json!({"bid_job_subject_ids": ["t2", "t3"]}), None).await else {
        panic!("a member with a bid was dropped")
    };
    assert!(e.to_string().contains("must keep \"t1\""), "{e}");
    assert_eq!(job(&f, &job_id).await.bid_job_subject_ids, ["t1", "t2", "t3"]);

    // A new member gets its bid_request, and may bid at once (the bid flow's cached job is stale).
    let patched =
        value(&edits.patch_job(&job_id, &json!({"bid_job_subject_ids": ["t1", "t2", "t3", "t4"], "note": "x"}), None).await.unwrap());
    assert_eq!(patched["bid_job_subject_ids"], json!(["t1", "t2", "t3", "t4"]));
    assert_eq!(patched["note"], "x", "a field the job does not define is stored and read back");
    assert_eq!(
        deliveries(&f).await.iter().map(|s| s.key.as_str()).collect::<Vec<_>>(),
        [format!("bid_request:{}:t4", key(&f, &job_id).await)]
    );
    f.orcade.intake().submit_bid(&job_id, &bid("t4", 12.0, 0.9)).await.unwrap();
    f.orcade.intake().submit_bid(&job_id, &bid("t2", 11.0, 0.9)).await.unwrap();
    assert_eq!(job(&f, &job_id).await.bid_job_status, BidJobStatus::Open, "t3 has not bid yet");

    // Dropping the silent member completes the roster: the job closes, as the last bid would.
    edits.patch_job(&job_id, &json!({"bid_job_subject_ids": ["t1", "t2", "t4"]}), None).await.unwrap();
    assert_eq!(job(&f, &job_id).await.bid_job_status, BidJobStatus::Closed);
    assert_eq!(f.evaluations.take().len(), 1);
    assert_eq!(
        edits.patch_job(&job_id, &json!({"bid_job_subject_ids": ["t1", "t2", "t4", "t5"]}), None).await.unwrap_err(),
        OrcadeError::JobClosed(job_id.clone())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_large_open_job_counts_over_shards_takes_exactly_its_maximum_and_closes_once() {
    let f = flows();
    let job_id = f.orcade.creator().create_job(&open_job(Some(200), None)).await.unwrap().bid_job_id;
    let counter = agora_orcade_core::closing::bid_counter(&job(&f, &job_id).await);
    assert_eq!(counter.shards(), 4);
    let tasks: Vec<_> = (0..260)
        .map(|i| {
            let (orcade, id) = (f.orcade.clone(), job_id.clone());
            tokio::spawn(async move { orcade.intake().submit_bid(&id, &bid(&format!("a{i:03}"), f64::from(i), 0.5)).await })
        })
        .collect();
    let answers: Vec<_> = futures::future::join_all(tasks).await.into_iter().map(Result::unwrap).collect();
    let accepted = answers.iter().filter(|a| a.is_ok()).count();
    assert_eq!(accepted, 200);
    for refused in answers.iter().filter_map(|a| a.as_ref().err()) {
        assert!(matches!(refused, OrcadeError::JobFull { max_subjects: 200, .. } | OrcadeError::JobClosed(_)), "{refused:?}");
    }
    let j = job(&f, &job_id).await;
    assert_eq!((j.bid_job_status, j.bid_job_subject_ids.len()), (BidJobStatus::Closed, 200));
    assert_eq!(f.evaluations.take().len(), 1, "closed once, one evaluation request");
    // Every shard fenced, each holding its share.
    let values = counter.values(f.store.as_ref()).await.unwrap();
    for (i, v) in values.iter().enumerate() {
        assert_eq!(agora_orcade_core::closing::on_file(*v), (counter.shard_limit(i).unwrap(), true));
    }
}

#[tokio::test]
async fn a_large_open_job_gives_a_withdrawn_place_back_and_keeps_its_maximum() {
    let f = flows();
    let open = f.orcade.creator().create_job(&open_job(Some(130), None)).await.unwrap().bid_job_id;
    let counter = agora_orcade_core::closing::bid_counter(&job(&f, &open).await);
    assert_eq!(counter.shards(), 3);
    let mut stored = Vec::new();
    for i in 0..129 {
        stored.push(f.orcade.intake().submit_bid(&open, &bid(&format!("a{i:03}"), 10.0, 0.9)).await.unwrap());
    }
    // Withdrawals (whichever shard their bid took) give places back, and the sum stays exact.
    for b in &stored[..10] {
        f.orcade.edits().delete_bid(&b.bid_id, None).await.unwrap();
    }
    assert_eq!(counter.total(f.store.as_ref()).await.unwrap(), 119);
    for i in 0..10 {
        f.orcade.intake().submit_bid(&open, &bid(&format!("b{i:03}"), 10.0, 0.9)).await.unwrap();
    }
    assert_eq!(job(&f, &open).await.bid_job_status, BidJobStatus::Open, "129 of 130 places taken");
    f.orcade.intake().submit_bid(&open, &bid("last", 9.0, 0.9)).await.unwrap();
    let closed = f.orcade.repo().job(&open).await.unwrap().unwrap();
    assert_eq!((closed.bid_job_status, closed.bid_job_subject_ids.len()), (BidJobStatus::Closed, 130));
    let late = f.orcade.intake().submit_bid(&open, &bid("late", 1.0, 0.9)).await.unwrap_err();
    assert!(matches!(late, OrcadeError::JobFull { max_subjects: 130, .. } | OrcadeError::JobClosed(_)), "{late:?}");
    // Fenced: no withdrawal now, whichever shard.
    for b in &stored[10..20] {
        assert!(matches!(f.orcade.edits().delete_bid(&b.bid_id, None).await.unwrap_err(), OrcadeError::BidsFinal { .. }));
    }
    assert_eq!(bids(&f, &open).await.len(), 130);
}
