//! What the voting flows record for an operator (`agora_telemetry::names`): each vote accepted
//! by the PQT's verdict or refused by its kind, each evaluation by outcome with its seconds, and
//! the store errors the flows meet. The flows run on one thread under the test's own recorder.

use agora_hooks::NoRemote;
use agora_ports::fakes::{ManualClock, RecordingPublisher, RecordingQueue, RecordingSchedules};
use agora_ports::{WorkHandler, WorkOutcome};
use agora_store::memory::MemoryStore;
use agora_store::StoreError;
use agora_telemetry::names;
use agora_telemetry::testing::record;
use agora_voting_core::messages::evaluation_request;
use agora_voting_core::{voting_hooks, EvaluationWork, NoChangeListener, Ports, Settings, Voting, VotingError, VOTING_DB};
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};
use std::sync::Arc;

/// The spec's private example task (three reviewers, three translators, builtin hooks).
fn example() -> Value {
    serde_json::from_str(include_str!("../../../../examples/private-task.json")).expect("the example is JSON")
}

fn vote(task: &str, voter: &str, option: &str) -> Value {
    json!({
        "vote_id": format!("vote-{voter}-{option}"), "social_task_id": task, "submitter_subject_id": voter,
        "vote_data": {"selected_option": option}, "submission_time": "2026-10-22T10:03:12", "qualified": true,
    })
}

#[test]
fn votes_are_counted_accepted_by_verdict_and_refused_by_kind_and_the_evaluation_with_its_seconds() {
    let recorded = record(|| async {
        let clock = Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 10, 22, 9, 30, 0).unwrap()));
        let ports = Ports {
            store: Arc::new(MemoryStore::new(VOTING_DB).expect("store")),
            hooks: voting_hooks(Arc::new(NoRemote), None),
            publisher: Arc::new(RecordingPublisher::default()),
            queue: Arc::new(RecordingQueue::default()),
            clock: clock.clone(),
            changes: Arc::new(NoChangeListener),
            scheduler: Arc::new(RecordingSchedules::default()),
        };
        let voting = Voting::new(ports, Settings::default());
        let id = voting.create_task(&example()).await.expect("created");
        let early = voting.submit_vote(&vote(&id, "agent-reviewer-01", "agent-translator-02")).await;
        assert_eq!(early, Err(VotingError::TaskNotActive));
        clock.advance(chrono::Duration::hours(1));
        voting.start_due_tasks().await.expect("sweep");

        assert_eq!(voting.submit_vote(&vote(&id, "agent-outsider", "agent-translator-02")).await, Err(VotingError::NotAMember));
        assert!(!voting.submit_vote(&vote(&id, "agent-reviewer-01", "agent-nobody")).await.expect("disqualified").qualified);
        let again = voting.submit_vote(&vote(&id, "agent-reviewer-01", "agent-translator-02")).await;
        assert_eq!(again, Err(VotingError::AlreadyVoted));
        assert!(matches!(voting.submit_vote(&json!({"vote_id": 1})).await, Err(VotingError::InvalidVote(_))));
        for voter in ["agent-reviewer-02", "agent-reviewer-03"] {
            assert!(voting.submit_vote(&vote(&id, voter, "agent-translator-02")).await.expect("accepted").qualified);
        }
        // Two of the three members' votes qualified: evaluated on request all the same.
        let work = EvaluationWork::new(voting.evaluator().clone());
        assert_eq!(work.handle(&evaluation_request(&id)).await, WorkOutcome::Done);
        assert_eq!(work.handle(&evaluation_request(&id)).await, WorkOutcome::Done);

        // A store error the flows do not handle, converted once.
        let _ = VotingError::from(StoreError::Backend("down".into()));
    });
    let accepted = |qualified| recorded.counter(names::VOTES_ACCEPTED, &[("qualified", qualified)]);
    assert_eq!((accepted("true"), accepted("false")), (Some(2), Some(1)));
    let refused = |reason| recorded.counter(names::VOTES_REFUSED, &[("reason", reason)]);
    assert_eq!(
        [refused("not_started"), refused("not_a_member"), refused("duplicate"), refused("bad_request")],
        [Some(1), Some(1), Some(1), Some(1)]
    );
    let evaluations = |outcome| recorded.counter(names::EVALUATIONS, &[("service", "voting"), ("outcome", outcome)]);
    assert_eq!((evaluations("completed"), evaluations("already_complete")), (Some(1), Some(1)));
    // The seconds of the one evaluation that ran.
    let seconds = recorded.histogram(names::EVALUATION_SECONDS, &[("service", "voting")]).map(|s| s.len());
    assert_eq!(seconds, Some(1));
    assert_eq!(recorded.counter(names::STORE_ERRORS, &[("kind", "backend")]), Some(1));
}
