//! The voting flows below HTTP: on the in-memory store, with a clock the test moves, and a
//! publisher and queue that record what they get. Milliseconds per test, no server.

use agora_hooks::NoRemote;
use agora_ports::fakes::{ManualClock, RecordingPublisher, RecordingQueue, RecordingSchedules};
use agora_ports::Clock;
use agora_ports::{WorkHandler, WorkOutcome};
use agora_store::claims::{Claim, Claims};
use agora_store::memory::MemoryStore;
use agora_store::sharded::{ShardCounted, ShardedCounter};
use agora_store::{Counted, DocumentStore};
use agora_voting_core::messages::{evaluation_request, start_request, start_schedule_name};
use agora_voting_core::{
    voting_hooks, EvaluationOutcome, EvaluationWork, NoChangeListener, Ports, Settings, Stall, StartOutcome, Voting, VotingError, VOTING_DB,
};
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};
use std::sync::Arc;

/// The spec's private example task (three reviewers, three translators, builtin hooks).
fn example() -> Value {
    serde_json::from_str(include_str!("../../../../examples/private-task.json")).expect("the example is JSON")
}

struct Flows {
    voting: Arc<Voting>,
    store: Arc<MemoryStore>,
    clock: Arc<ManualClock>,
    publisher: Arc<RecordingPublisher>,
    queue: Arc<RecordingQueue>,
    schedules: Arc<RecordingSchedules>,
}

/// The flows at 09:30 on the example's day, half an hour before its `scheduled_time`.
fn flows() -> Flows {
    let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 10, 22, 9, 30, 0).unwrap()));
    let publisher = Arc::new(RecordingPublisher::default());
    let queue = Arc::new(RecordingQueue::default());
    let schedules = Arc::new(RecordingSchedules::default());
    let store = Arc::new(MemoryStore::new(VOTING_DB).expect("store"));
    let ports = Ports {
        store: store.clone(),
        hooks: voting_hooks(Arc::new(NoRemote), None),
        publisher: publisher.clone(),
        queue: queue.clone(),
        clock: clock.clone(),
        changes: Arc::new(NoChangeListener),
        scheduler: schedules.clone(),
    };
    Flows { voting: Arc::new(Voting::new(ports, Settings::default())), store, clock, publisher, queue, schedules }
}

/// The example as a public task of `duration`, created and started (the clock moved past its time).
async fn started_public_task(f: &Flows, duration: i64) -> String {
    let mut request = example();
    request["social_task"]["access_type"] = json!("public");
    request["social_task"]["duration"] = json!(duration);
    let id = f.voting.create_task(&request).await.expect("created");
    f.clock.advance(chrono::Duration::hours(1));
    f.voting.start_due_tasks().await.expect("sweep");
    id
}

/// The task's document as stored.
async fn stored_task(f: &Flows, id: &str) -> Value {
    let bundle: Value = serde_json::from_str(f.voting.queries().get_full_task_bundle(id).await.expect("bundle").get()).expect("JSON");
    bundle["task"].clone()
}

fn vote(task: &str, voter: &str, option: &str) -> Value {
    json!({
        "vote_id": format!("vote-{voter}"), "social_task_id": task, "submitter_subject_id": voter,
        "vote_data": {"selected_option": option}, "submission_time": "2026-10-22T10:03:12", "qualified": true,
    })
}

#[tokio::test]
async fn a_private_task_runs_from_creation_to_report() {
    let f = flows();
    let id = f.voting.create_task(&example()).await.expect("created");

    // Its start is scheduled at its time, and nothing starts it early.
    let made = f.schedules.made();
    assert_eq!(made.len(), 1);
    assert_eq!(
        (made[0].0.as_str(), made[0].1, &made[0].2),
        (start_schedule_name(&id).as_str(), Utc.with_ymd_and_hms(2026, 10, 22, 10, 0, 0).unwrap(), &start_request(&id))
    );
    assert!(f.voting.start_due_tasks().await.expect("sweep").is_empty());
    assert_eq!(f.voting.queries().get_status(&id).await.expect("status"), json!({"status": "scheduled"}));

    // Due: started once, one invitation per option.
    f.clock.advance(chrono::Duration::minutes(31));
    let started = f.voting.start_due_tasks().await.expect("sweep");
    assert!(matches!(started.as_slice(), [(t, StartOutcome::Started { invitations: 3 })] if t == &id), "{started:?}");
    assert!(matches!(f.voting.start_task(&id).await.expect("again"), StartOutcome::NotDue | StartOutcome::AlreadyHandled));
    let invite = f.publisher.to("agent-translator-02");
    assert_eq!(invite.len(), 1);
    assert_eq!(invite[0]["event_type"], "voting_invite");
    // It records when it started (10:01), and has no end yet.
    let task = stored_task(&f, &id).await;
    assert_eq!((task["start_time"].as_str(), task.get("end_time")), (Some("2026-10-22T10:01:00"), None));

    // Three votes; the last makes the trigger hold and queues one evaluation request.
    for (voter, option) in [
        ("agent-reviewer-01", "agent-translator-02"),
        ("agent-reviewer-02", "agent-translator-02"),
        ("agent-reviewer-03", "agent-translator-01"),
    ] {
        assert!(f.voting.submit_vote(&vote(&id, voter, option)).await.expect("accepted").qualified);
    }
    let queued = f.queue.take();
    assert_eq!(queued.len(), 1, "{queued:?}");
    assert_eq!((queued[0].key.as_str(), queued[0].body.as_str()), (id.as_str(), evaluation_request(&id).as_str()));

    // The queue's handler evaluates it (at 10:06): done, the report stored, the winner told.
    f.clock.advance(chrono::Duration::minutes(5));
    let work = EvaluationWork::new(f.voting.evaluator().clone());
    assert_eq!(work.handle(&queued[0].body).await, WorkOutcome::Done);
    assert_eq!(f.voting.queries().get_status(&id).await.expect("status"), json!({"status": "complete"}));
    let report: Value = serde_json::from_str(f.voting.queries().get_report(&id).await.expect("report").get()).expect("JSON");
    assert_eq!(report["winners"], json!(["agent-translator-02"]));
    // The task records its end, the report's evaluated_at, and keeps its start.
    let task = stored_task(&f, &id).await;
    assert_eq!((task["start_time"].as_str(), task["end_time"].as_str()), (Some("2026-10-22T10:01:00"), Some("2026-10-22T10:06:00")));
    assert_eq!(report["evaluated_at"].as_str(), task["end_time"].as_str());
    assert_eq!(report["votes"].as_array().map(Vec::len), Some(3));
    let result = f.publisher.to("agent-translator-02");
    assert_eq!(result.last().map(|m| m["event_type"].clone()), Some(json!("voting_result")));

    // A duplicate request is done too, and changes nothing.
    assert_eq!(work.handle(&queued[0].body).await, WorkOutcome::Done);
    assert!(matches!(f.voting.evaluate_task(&id).await.expect("again"), EvaluationOutcome::AlreadyComplete));
    assert_eq!(f.publisher.to("agent-translator-02").len(), 2, "one invitation, one result");
}

#[tokio::test]
async fn votes_are_refused_for_the_reasons_of_the_spec() {
    let f = flows();
    let id = f.voting.create_task(&example()).await.expect("created");
    // Not started yet.
    let early = f.voting.submit_vote(&vote(&id, "agent-reviewer-01", "agent-translator-01")).await.expect_err("not started");
    assert_eq!(early, VotingError::TaskNotActive);
    f.clock.advance(chrono::Duration::hours(1));
    f.voting.start_due_tasks().await.expect("sweep");

    // Not a member of the private task.
    let outsider = f.voting.submit_vote(&vote(&id, "agent-outsider", "agent-translator-01")).await.expect_err("outsider");
    assert_eq!(outsider, VotingError::NotAMember);
    // An option not on the ballot: stored, disqualified by the builtin PQT.
    assert!(!f.voting.submit_vote(&vote(&id, "agent-reviewer-01", "agent-nobody")).await.expect("stored").qualified);
    // A second vote by the same voter is refused.
    let mut second = vote(&id, "agent-reviewer-01", "agent-translator-01");
    second["vote_id"] = json!("vote-second");
    assert_eq!(f.voting.submit_vote(&second).await, Err(VotingError::AlreadyVoted));
    // Unknown task.
    assert!(matches!(f.voting.submit_vote(&vote("task_ffffffff", "agent-reviewer-02", "x")).await, Err(VotingError::UnknownTask)));
    assert!(f.queue.take().is_empty(), "no trigger");
}

#[tokio::test]
async fn a_public_task_triggers_at_its_duration() {
    let f = flows();
    let id = started_public_task(&f, 2).await;
    f.voting.submit_vote(&vote(&id, "anyone-1", "agent-translator-03")).await.expect("accepted");
    assert!(f.queue.take().is_empty());
    f.voting.submit_vote(&vote(&id, "anyone-2", "agent-translator-03")).await.expect("accepted");
    assert_eq!(f.queue.take().len(), 1);
}

#[tokio::test]
async fn a_hook_the_deployment_cannot_run_is_refused_at_creation_naming_the_field() {
    let f = flows();
    let mut request = example();
    request["evaluation_spec"]["evaluation"] = json!({"mode": "http", "url": "http://127.0.0.1:9/rule"});
    let err = f.voting.create_task(&request).await.expect_err("refused");
    let VotingError::UnavailableHooks(problems) = err else { panic!("{err:?}") };
    let message = problems.join("; ");
    assert!(message.starts_with("evaluation_spec.evaluation: mode \"http\" is not available"), "{message}");
    request["evaluation_spec"]["evaluation"] = json!({"mode": "builtin", "name": "no-such-rule"});
    let VotingError::UnavailableHooks(problems) = f.voting.parser().parse_task(&request).expect_err("refused") else { panic!() };
    let message = problems.join("; ");
    assert!(message.contains("evaluation_spec.evaluation") && message.contains("no-such-rule"), "{message}");
    assert!(f.schedules.made().is_empty());
}

/// Stores a qualified vote and its count as the vote path does, as if the process then died
/// before requesting anything.
async fn store_counted(f: &Flows, body: &Value, limit: Option<i64>) -> Counted {
    let mut v = body.clone();
    v["submission_time"] = json!("2026-10-22T10:03:12.000000");
    let task = v["social_task_id"].as_str().unwrap().to_owned();
    f.store.insert_counted(vec![("votes", agora_store::to_json(&v))], &format!("qualified:{task}"), limit).await.unwrap()
}

#[tokio::test]
async fn a_triggering_vote_whose_request_was_lost_is_requested_again_by_its_retry_once() {
    let f = flows();
    let id = started_public_task(&f, 2).await;
    f.voting.submit_vote(&vote(&id, "anyone-1", "agent-translator-03")).await.expect("accepted");
    // The triggering vote was stored and counted, and its process died before the request.
    let last = vote(&id, "anyone-2", "agent-translator-03");
    assert_eq!(store_counted(&f, &last, Some(2)).await, Counted::Stored(2));
    assert!(f.queue.take().is_empty());
    // Its retry requests the evaluation, once.
    assert!(f.voting.submit_vote(&last).await.expect("the same vote again").qualified);
    let queued = f.queue.take();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].body, evaluation_request(&id));
    assert!(f.voting.submit_vote(&last).await.expect("again").qualified);
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty(), "recorded: the queue has it");
    assert!(f.queue.take().is_empty());
}

#[tokio::test]
async fn a_request_claimed_and_lost_is_requested_again_past_the_lease_by_a_retry_or_the_sweep_once() {
    let f = flows();
    let id = started_public_task(&f, 1).await;
    let only = vote(&id, "anyone-1", "agent-translator-03");
    assert_eq!(store_counted(&f, &only, Some(1)).await, Counted::Stored(1));
    // A retry (or a sweep) took the trigger's claim and died before the queue took its request.
    let claims = Claims::new(f.store.clone());
    assert_eq!(claims.claim(&format!("trigger:{id}"), f.clock.now(), Some(chrono::Duration::seconds(60))).await.unwrap(), Claim::Won);
    // Within the lease neither a retry nor the sweep requests it.
    f.clock.advance(chrono::Duration::seconds(30));
    assert!(f.voting.submit_vote(&only).await.expect("the same vote again").qualified);
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty());
    assert!(f.queue.take().is_empty());
    // Past it, the sweep requests it once, and settles the claim.
    f.clock.advance(chrono::Duration::seconds(31));
    assert_eq!(f.voting.repair_stalled_tasks().await.expect("sweep"), vec![(id.clone(), Stall::RequestLost)]);
    assert_eq!(f.queue.take().len(), 1);
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty());
    f.clock.advance(chrono::Duration::hours(1));
    assert!(f.voting.submit_vote(&only).await.is_ok());
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty(), "settled");
    assert!(f.queue.take().is_empty());
}

#[tokio::test]
async fn the_sweep_requests_a_trigger_that_was_never_claimed() {
    let f = flows();
    let id = started_public_task(&f, 2).await;
    // Two qualified votes stored and counted, and the process died before requesting anything.
    assert_eq!(store_counted(&f, &vote(&id, "anyone-1", "agent-translator-03"), Some(2)).await, Counted::Stored(1));
    assert_eq!(store_counted(&f, &vote(&id, "anyone-2", "agent-translator-03"), Some(2)).await, Counted::Stored(2));
    assert_eq!(f.voting.repair_stalled_tasks().await.expect("sweep"), vec![(id.clone(), Stall::NeverRequested)]);
    assert_eq!(f.queue.take().len(), 1);
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty(), "requested once");
    // A public task below its duration is not stalled.
    let other = started_public_task(&f, 3).await;
    f.voting.submit_vote(&vote(&other, "other-1", "agent-translator-03")).await.expect("accepted");
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty());
}

#[tokio::test]
async fn the_sweep_requests_a_task_whose_evaluator_died_then_it_completes_once() {
    let f = flows();
    let id = started_public_task(&f, 1).await;
    f.voting.submit_vote(&vote(&id, "anyone-1", "agent-translator-03")).await.expect("accepted");
    // The evaluator took the request off the queue, claimed the task and died.
    assert_eq!(f.queue.take().len(), 1);
    let claims = Claims::new(f.store.clone());
    claims.claim(&format!("evaluate:{id}"), f.clock.now(), Some(Settings::default().evaluation_lease)).await.unwrap();
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty(), "its lease runs");
    assert_eq!(f.voting.evaluate_task(&id).await.expect("evaluate"), EvaluationOutcome::InProgress);

    f.clock.advance(chrono::Duration::seconds(61));
    assert_eq!(f.voting.repair_stalled_tasks().await.expect("sweep"), vec![(id.clone(), Stall::EvaluatorGone)]);
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty(), "one request per lease");
    let queued = f.queue.take();
    assert_eq!(queued.len(), 1);
    let work = EvaluationWork::new(f.voting.evaluator().clone());
    assert_eq!(work.handle(&queued[0].body).await, WorkOutcome::Done);
    assert_eq!(f.voting.queries().get_status(&id).await.expect("status"), json!({"status": "complete"}));
    let results = f.publisher.messages().into_iter().filter(|(_, m)| m["event_type"] == "voting_result").count();
    assert_eq!(results, 1, "one voting_result");
    f.clock.advance(chrono::Duration::hours(1));
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty(), "complete");
}

#[tokio::test]
async fn a_public_task_stores_at_most_duration_qualified_votes_and_says_voting_has_closed() {
    let f = flows();
    let id = started_public_task(&f, 2).await;
    for voter in ["anyone-1", "anyone-2"] {
        assert!(f.voting.submit_vote(&vote(&id, voter, "agent-translator-03")).await.expect("accepted").qualified);
    }
    assert_eq!(f.voting.submit_vote(&vote(&id, "anyone-3", "agent-translator-03")).await, Err(VotingError::VotingClosed));
    // A disqualified vote is refused too, once the trigger has held.
    assert_eq!(f.voting.submit_vote(&vote(&id, "anyone-4", "agent-nobody")).await, Err(VotingError::VotingClosed));
    // A retry of an accepted vote is still answered with its verdict.
    assert!(f.voting.submit_vote(&vote(&id, "anyone-2", "agent-translator-03")).await.expect("retry").qualified);
    // Once complete, a vote is told so, though the task was remembered started.
    let work = EvaluationWork::new(f.voting.evaluator().clone());
    assert_eq!(work.handle(&f.queue.take()[0].body).await, WorkOutcome::Done);
    assert_eq!(f.voting.submit_vote(&vote(&id, "anyone-5", "agent-translator-03")).await, Err(VotingError::TaskComplete));
    assert_eq!(f.voting.submit_vote(&vote(&id, "anyone-6", "agent-nobody")).await, Err(VotingError::TaskComplete));
    assert_eq!(
        f.voting.queries().get_report(&id).await.map(|r| serde_json::from_str::<Value>(r.get()).unwrap()["votes"].as_array().map(Vec::len)),
        Ok(Some(2))
    );
}

#[tokio::test]
async fn a_queued_request_is_left_to_the_queue_for_a_day_then_requested_again() {
    let f = flows();
    let id = started_public_task(&f, 1).await;
    f.voting.submit_vote(&vote(&id, "anyone-1", "agent-translator-03")).await.expect("accepted");
    // The queue has the request (and, say, dead-letters it after its attempts).
    assert_eq!(f.queue.take().len(), 1);
    f.clock.advance(chrono::Duration::hours(23));
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty(), "the queue has it");
    f.clock.advance(chrono::Duration::hours(2));
    assert_eq!(f.voting.repair_stalled_tasks().await.expect("sweep"), vec![(id.clone(), Stall::RequestLost)]);
    assert_eq!(f.queue.take().len(), 1);
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty());
}

/// The example as a public task of `duration` (created and started) and the sharded counter of
/// its qualified votes as the vote path makes it.
async fn started_large_public_task(f: &Flows, duration: i64) -> (String, ShardedCounter) {
    let id = started_public_task(f, duration).await;
    (id.clone(), ShardedCounter::places(format!("qualified:{id}"), duration))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_large_public_task_counts_over_shards_stores_exactly_duration_votes_and_completes_once() {
    let f = flows();
    let (id, counter) = started_large_public_task(&f, 200).await;
    assert_eq!(counter.shards(), 4);
    let voters: Vec<_> = (0..260)
        .map(|i| {
            let (voting, body) = (f.voting.clone(), vote(&id, &format!("voter-{i:03}"), "agent-translator-02"));
            tokio::spawn(async move { voting.submit_vote(&body).await })
        })
        .collect();
    let mut accepted = 0;
    for v in futures::future::join_all(voters).await {
        match v.expect("voter panicked") {
            Ok(answer) => {
                assert!(answer.qualified);
                accepted += 1;
            }
            Err(e) => assert_eq!(e, VotingError::VotingClosed),
        }
    }
    assert_eq!(accepted, 200);
    assert_eq!(counter.values(f.store.as_ref()).await.unwrap(), [50, 50, 50, 50]);
    // At least one request (two shards filled at once may both request it); evaluated once.
    let queued = f.queue.take();
    assert!(!queued.is_empty());
    let mut completed = 0;
    for request in &queued {
        assert_eq!(request.body, evaluation_request(&id));
        if matches!(f.voting.evaluate_task(&id).await.expect("evaluate"), EvaluationOutcome::Completed { .. }) {
            completed += 1;
        }
    }
    assert_eq!(completed, 1);
    let report: Value = serde_json::from_str(f.voting.queries().get_report(&id).await.expect("report").get()).expect("JSON");
    assert_eq!(report["votes"].as_array().map(Vec::len), Some(200));
    assert_eq!(f.publisher.to("agent-translator-02").iter().filter(|m| m["event_type"] == "voting_result").count(), 1);
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty());
}

#[tokio::test]
async fn a_large_public_task_voted_in_turn_requests_its_evaluation_once() {
    let f = flows();
    let (id, counter) = started_large_public_task(&f, 130).await;
    assert_eq!(counter.shards(), 3);
    for i in 0..130 {
        assert!(f.voting.submit_vote(&vote(&id, &format!("voter-{i:03}"), "agent-translator-02")).await.expect("accepted").qualified);
        assert_eq!(f.queue.take().len(), usize::from(i == 129), "vote {i}");
    }
    assert_eq!(f.voting.submit_vote(&vote(&id, "voter-late", "agent-translator-02")).await, Err(VotingError::VotingClosed));
    assert_eq!(counter.total(f.store.as_ref()).await.unwrap(), 130);
}

#[tokio::test]
async fn a_large_private_task_triggers_when_its_last_member_votes() {
    let f = flows();
    let members: Vec<String> = (0..100).map(|i| format!("member-{i:03}")).collect();
    let mut request = example();
    request["social_task"]["org_ids"] = json!(members);
    let id = f.voting.create_task(&request).await.expect("created");
    f.clock.advance(chrono::Duration::hours(1));
    f.voting.start_due_tasks().await.expect("sweep");
    let counter = ShardedCounter::members(format!("qualified:{id}"), members.iter().map(String::as_str));
    assert_eq!(counter.shards(), 2);
    for (i, m) in members.iter().enumerate() {
        assert!(f.voting.submit_vote(&vote(&id, m, "agent-translator-02")).await.expect("accepted").qualified);
        assert_eq!(f.queue.take().len(), usize::from(i == 99), "vote {i}");
    }
    assert_eq!(counter.total(f.store.as_ref()).await.unwrap(), 100);
    assert_eq!(counter.values(f.store.as_ref()).await.unwrap(), [counter.shard_limit(0).unwrap(), counter.shard_limit(1).unwrap()]);
}

#[tokio::test]
async fn the_sweep_sums_the_shards_of_a_large_task_whose_trigger_was_lost() {
    let f = flows();
    let (id, counter) = started_large_public_task(&f, 130).await;
    // Every vote stored and counted as the vote path does, and the process died each time
    // before requesting anything.
    for i in 0..130 {
        let mut v = vote(&id, &format!("voter-{i:03}"), "agent-translator-03");
        v["submission_time"] = json!("2026-10-22T10:03:12.000000");
        let stored = counter.insert(f.store.as_ref(), &format!("voter-{i:03}"), vec![("votes", agora_store::to_json(&v))]).await.unwrap();
        assert!(matches!(stored, ShardCounted::Stored { .. }));
        if i == 128 {
            assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty(), "one place left");
        }
    }
    assert_eq!(f.voting.repair_stalled_tasks().await.expect("sweep"), vec![(id.clone(), Stall::NeverRequested)]);
    assert_eq!(f.queue.take().len(), 1);
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty(), "requested once");
}
