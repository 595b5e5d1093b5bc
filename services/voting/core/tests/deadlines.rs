//! Issue 30's deadline below HTTP, with a clock the test moves: the start makes the task's
//! deadline timer (the AWS one-shot schedule's path), the timer requests the evaluation once at
//! the deadline and not before, and the evaluation reports `no_quorum` under the quorum.

use agora_hooks::NoRemote;
use agora_ports::fakes::{ManualClock, RecordingPublisher, RecordingQueue, RecordingSchedules};
use agora_store::memory::MemoryStore;
use agora_voting_core::messages::{deadline_request, deadline_schedule_name, start_schedule_name};
use agora_voting_core::{voting_hooks, EvaluationOutcome, NoChangeListener, Ports, Settings, Stall, Voting, VotingError, VOTING_DB};
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};
use std::sync::Arc;

struct Flows {
    voting: Arc<Voting>,
    clock: Arc<ManualClock>,
    queue: Arc<RecordingQueue>,
    schedules: Arc<RecordingSchedules>,
}

/// The flows at 09:30 on the example's day, half an hour before its `scheduled_time` (10:00).
fn flows() -> Flows {
    let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 10, 22, 9, 30, 0).unwrap()));
    let queue = Arc::new(RecordingQueue::default());
    let schedules = Arc::new(RecordingSchedules::default());
    let ports = Ports {
        store: Arc::new(MemoryStore::new(VOTING_DB).expect("store")),
        hooks: voting_hooks(Arc::new(NoRemote), None),
        publisher: Arc::new(RecordingPublisher::default()),
        queue: queue.clone(),
        clock: clock.clone(),
        changes: Arc::new(NoChangeListener),
        scheduler: schedules.clone(),
    };
    Flows { voting: Arc::new(Voting::new(ports, Settings::default())), clock, queue, schedules }
}

/// The spec's private example with these options in its `social_task`.
fn example_with(options: Value) -> Value {
    let mut request: Value = serde_json::from_str(include_str!("../../../../examples/private-task.json")).expect("JSON");
    for (k, v) in options.as_object().unwrap() {
        request["social_task"][k] = v.clone();
    }
    request
}

fn vote(task: &str, voter: &str) -> Value {
    json!({
        "vote_id": format!("vote-{voter}"), "social_task_id": task, "submitter_subject_id": voter,
        "vote_data": {"selected_option": "agent-translator-02"}, "submission_time": "2026-10-22T10:03:12", "qualified": true,
    })
}

#[tokio::test]
async fn the_start_makes_the_deadline_timer_which_requests_the_evaluation_once_at_the_deadline() {
    let f = flows();
    let id = f.voting.create_task(&example_with(json!({"deadline_seconds": 600, "quorum": 2}))).await.expect("created");
    f.clock.advance(chrono::Duration::minutes(31)); // 10:01
    f.voting.start_due_tasks().await.expect("sweep");
    let made = f.schedules.made();
    let names: Vec<&str> = made.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, [start_schedule_name(&id), deadline_schedule_name(&id)]);
    assert_eq!((made[1].1, &made[1].2), (Utc.with_ymd_and_hms(2026, 10, 22, 10, 11, 0).unwrap(), &deadline_request(&id)));

    f.voting.submit_vote(&vote(&id, "agent-reviewer-01")).await.expect("vote");
    // Early (a timer delivered before its time): nothing.
    assert_eq!(f.voting.close_at_deadline(&id).await.expect("early"), None);
    assert!(f.queue.take().is_empty());

    f.clock.advance(chrono::Duration::minutes(10)); // 10:11, the deadline
    let late = f.voting.submit_vote(&vote(&id, "agent-reviewer-02")).await;
    assert_eq!(late, Err(VotingError::DeadlinePassed("2026-10-22T10:11:00".into())));
    assert_eq!(f.voting.close_at_deadline(&id).await.expect("due"), Some(Stall::DeadlinePassed));
    assert_eq!(f.queue.take().len(), 1, "one evaluation request");
    // Again (the sweep, a timer delivered twice): requested already.
    assert_eq!(f.voting.close_at_deadline(&id).await.expect("again"), None);
    assert!(f.voting.repair_stalled_tasks().await.expect("sweep").is_empty());
    assert!(f.queue.take().is_empty());

    // One qualified vote under a quorum of two.
    assert_eq!(f.voting.evaluator().evaluate_task(&id).await.expect("evaluated"), EvaluationOutcome::Completed { winners: vec![] });
    let report: Value = serde_json::from_str(f.voting.queries().get_report(&id).await.expect("report").get()).expect("JSON");
    assert_eq!((report["winners"].clone(), report["outcome"].clone()), (json!([]), json!("no_quorum")));
}

#[tokio::test]
async fn a_task_without_a_deadline_gets_no_deadline_timer() {
    let f = flows();
    let id = f.voting.create_task(&example_with(json!({}))).await.expect("created");
    f.clock.advance(chrono::Duration::minutes(31));
    f.voting.start_due_tasks().await.expect("sweep");
    let names: Vec<String> = f.schedules.made().into_iter().map(|(n, _, _)| n).collect();
    assert_eq!(names, [start_schedule_name(&id)]);
    f.clock.advance(chrono::Duration::days(365));
    assert_eq!(f.voting.close_at_deadline(&id).await.expect("no deadline"), None);
}
