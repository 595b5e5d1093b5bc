//! The `vote.submit` intake against a real NATS server (`NATS_URL`, started by
//! `tests/run.sh`): votes published on NATS go through voting's flow. Subjects are unique per
//! test, so tests can share one server.

use agora_local::voting::intake::{run_vote_intake, VoteIntake};
use agora_voting_api::intake::{take_vote, VoteOutcome, VOTE_SUBJECT};
use agora_voting_core::{voting_hooks, Ports, PublishError, Publisher, QueueError, Settings, Voting, WorkQueue, VOTING_DB};
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// A client of the server at `NATS_URL`. Fails the test, saying how to get one, when unset.
async fn client() -> async_nats::Client {
    let url = std::env::var("NATS_URL").ok().filter(|u| !u.trim().is_empty()).unwrap_or_else(|| {
        panic!("NATS_URL is not set: these tests need a NATS server; run ./tests/run.sh, which starts one and exports NATS_URL")
    });
    agora_nats::connect(&url).await.expect("NATS server answers at NATS_URL")
}

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", uuid::Uuid::new_v4().simple())
}

/// The next message on `sub`, or a failure after a few seconds.
async fn next(sub: &mut async_nats::Subscriber) -> async_nats::Message {
    tokio::time::timeout(Duration::from_secs(5), sub.next()).await.expect("a message within 5 s").expect("subscription open")
}

/// Publishes into memory (the invitations of the intake tests).
#[derive(Default)]
struct Recorder(Mutex<Vec<(String, Value)>>);

#[async_trait]
impl Publisher for Recorder {
    async fn publish(&self, address: &str, message: &Value) -> Result<(), PublishError> {
        self.0.lock().expect("recorder").push((address.to_owned(), message.clone()));
        Ok(())
    }
}

/// Evaluation requests onto a channel.
struct ChannelQueue(mpsc::UnboundedSender<String>);

#[async_trait]
impl WorkQueue for ChannelQueue {
    async fn send(&self, key: &str, _body: &str, _delay: Duration) -> Result<(), QueueError> {
        self.0.send(key.to_owned()).map_err(|_| QueueError { key: key.into(), reason: "closed".into() })
    }
}

/// A voting service on an embedded store in a temp folder (removed on drop).
struct Service {
    voting: Arc<Voting>,
    evaluations: mpsc::UnboundedReceiver<String>,
    dir: PathBuf,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn service(publisher: Arc<dyn Publisher>) -> Service {
    let dir = std::env::temp_dir().join(unique("agora-nats"));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let store = agora_store_embedded::EmbeddedStore::open(&dir.join("agora.sqlite"), VOTING_DB).expect("store");
    let (tx, evaluations) = mpsc::unbounded_channel();
    let ports = Ports::new(
        Arc::new(store),
        voting_hooks(Arc::new(agora_hooks_remote::RemoteHooks::default()), None),
        publisher,
        Arc::new(ChannelQueue(tx)),
    );
    Service { voting: Arc::new(Voting::new(ports, Settings::default())), evaluations, dir }
}

const VOTERS: [&str; 2] = ["agent-reviewer-01", "agent-reviewer-02"];

/// A private task for [`VOTERS`] with builtin hooks (PQT `option-on-ballot`), due already, whose
/// options are `options`.
fn task_request(options: &[String]) -> Value {
    let voting_options: serde_json::Map<String, Value> = options.iter().map(|o| (o.clone(), json!(format!("Option {o}")))).collect();
    json!({
        "social_task": {
            "created_by_subject_id": "planner-service",
            "created_by_subject_data": {},
            "org_ids": VOTERS,
            "access_type": "private",
            "goal": {"objective": "Choose the lead translator"},
            "topics": [],
            "properties": {},
            "creation_time": "2026-10-22T09:00:00",
            "scheduled_time": "2020-01-01T00:00:00Z",
            "status": "scheduled"
        },
        "subject_spec": {
            "title": "Lead translator",
            "description": "Pick one.",
            "voting_options": voting_options,
            "voting_metadata": {},
            "supported_protocols": ["nats"],
            "voting_request": {}
        },
        "evaluation_spec": {
            "constraints_primary": "",
            "constraints_secondary": "",
            "voting_pqt": {"mode": "builtin", "name": "option-on-ballot"},
            "evaluation": {"mode": "builtin", "name": "plurality"},
            "tie_breaker": {"mode": "builtin", "name": "earliest-vote"},
            "post_award": {"mode": "builtin", "name": "assign-first-winner"}
        }
    })
}

/// Creates and starts a task; returns its id.
async fn started_task(voting: &Voting, options: &[String]) -> String {
    let id = voting.create_task(&task_request(options)).await.expect("task created");
    let started = voting.start_due_tasks().await.expect("sweep");
    assert!(started.iter().any(|(t, o)| t == &id && matches!(o, agora_voting_core::StartOutcome::Started { .. })), "{started:?}");
    id
}

fn vote(task: &str, voter: &str, option: &str) -> Value {
    json!({
        "vote_id": uuid::Uuid::new_v4().to_string(),
        "social_task_id": task,
        "submitter_subject_id": voter,
        "vote_data": {"selected_option": option},
        "submission_time": "2026-10-22T10:03:12.481203",
        "qualified": true,
    })
}

/// The stored vote of `voter` in `task`, waiting up to 5 s for it to appear.
async fn stored_vote(voting: &Voting, task: &str, voter: &str) -> agora_voting_schema::Vote {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(v) = voting.repo().vote_by_subject(task, voter).await.expect("read") {
            return v;
        }
        assert!(Instant::now() < deadline, "no vote by {voter} in {task} after 5 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn publish_json(client: &async_nats::Client, subject: &str, body: &Value) {
    client.publish(subject.to_owned(), serde_json::to_vec(body).expect("encode").into()).await.expect("publish");
    client.flush().await.expect("flush");
}

#[tokio::test]
async fn votes_on_the_intake_subject_are_stored_qualified_or_not_and_a_second_vote_is_refused() {
    let client = client().await;
    let options = [unique("agent-translator"), unique("agent-translator")];
    let mut svc = service(Arc::new(agora_nats::NatsPublisher::new(client.clone())));

    // The invitations go out on NATS, one per option, on the option's subject.
    let mut invites = Vec::new();
    for o in &options {
        invites.push(client.subscribe(o.clone()).await.expect("subscribe"));
    }
    client.flush().await.expect("flush");
    let task = started_task(&svc.voting, &options).await;
    for (o, sub) in options.iter().zip(invites.iter_mut()) {
        let got: Value = serde_json::from_slice(&next(sub).await.payload).expect("invitation JSON");
        assert_eq!(got["event_type"], "voting_invite", "{o}: {got}");
        assert_eq!(got["sender_subject_id"], "planner-service");
    }

    let subject = unique("vote.submit.test");
    let votes = agora_nats::subscribe(&client, &subject).await.expect("intake subscribed");
    let intake = tokio::spawn(agora_nats::serve(votes, Arc::new(VoteIntake(svc.voting.clone()))));

    let first = vote(&task, VOTERS[0], &options[0]);
    publish_json(&client, &subject, &first).await;
    let off_ballot = vote(&task, VOTERS[1], "agent-not-on-the-ballot");
    publish_json(&client, &subject, &off_ballot).await;

    let stored = stored_vote(&svc.voting, &task, VOTERS[0]).await;
    assert_eq!(stored.vote_id, first["vote_id"].as_str().expect("id"));
    assert!(stored.qualified);
    let stored = stored_vote(&svc.voting, &task, VOTERS[1]).await;
    assert_eq!(stored.vote_id, off_ballot["vote_id"].as_str().expect("id"));
    assert!(!stored.qualified, "a vote for an option not on the ballot is disqualified by the PQT");

    // A second vote by the same voter, a stranger to this private task, a payload that is not
    // JSON, a body that is not a vote: each refused, nothing stored, the intake keeps going.
    let second = vote(&task, VOTERS[0], &options[1]);
    publish_json(&client, &subject, &second).await;
    publish_json(&client, &subject, &vote(&task, "agent-stranger", &options[0])).await;
    client.publish(subject.clone(), "not json".into()).await.expect("publish");
    publish_json(&client, &subject, &json!({"vote_id": "x"})).await;
    // A retry of the first vote (same vote_id and content) is answered as stored, not again.
    publish_json(&client, &subject, &first).await;
    // A marker vote: once it is stored, everything published before it has been taken.
    let other_task = started_task(&svc.voting, &[unique("agent-translator")]).await;
    publish_json(&client, &subject, &vote(&other_task, VOTERS[0], "x")).await;
    stored_vote(&svc.voting, &other_task, VOTERS[0]).await;

    // The marker may have overtaken the others (votes are taken concurrently): give them time.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stored = svc.voting.repo().vote_by_subject(&task, VOTERS[0]).await.expect("read").expect("vote");
    assert_eq!(stored.vote_id, first["vote_id"].as_str().expect("id"), "the second vote did not replace the first");
    assert!(svc.voting.repo().vote(second["vote_id"].as_str().expect("id")).await.expect("read").is_none());
    assert!(svc.voting.repo().vote_by_subject(&task, "agent-stranger").await.expect("read").is_none());
    let all = svc.voting.repo().all_votes_raw(&task).await.expect("read");
    assert_eq!(all.len(), 2, "{all:?}");
    // Every voter has voted but one was disqualified: the private trigger does not hold.
    assert!(svc.evaluations.try_recv().is_err());

    intake.abort();
}

#[tokio::test]
async fn run_vote_intake_listens_on_vote_submit() {
    let client = client().await;
    let svc = service(Arc::new(Recorder::default()));
    let task = started_task(&svc.voting, &[unique("agent-translator")]).await;
    let intake = tokio::spawn(run_vote_intake(client.clone(), svc.voting.clone()));

    // The intake subscribes in its own task: publish until it has taken the vote (a retried
    // vote is answered as stored, so repeats are harmless).
    let ballot = vote(&task, VOTERS[0], "agent-not-on-the-ballot");
    let deadline = Instant::now() + Duration::from_secs(5);
    let stored = loop {
        publish_json(&client, VOTE_SUBJECT, &ballot).await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        if let Some(v) = svc.voting.repo().vote_by_subject(&task, VOTERS[0]).await.expect("read") {
            break v;
        }
        assert!(Instant::now() < deadline, "vote.submit intake took no vote in 5 s");
    };
    assert_eq!(stored.vote_id, ballot["vote_id"].as_str().expect("id"));
    assert!(!stored.qualified);
    assert!(!intake.is_finished(), "the intake keeps running");
    intake.abort();
}

#[tokio::test]
async fn each_vote_has_an_outcome() {
    let svc = service(Arc::new(Recorder::default()));
    let option = unique("agent-translator");
    let task = started_task(&svc.voting, std::slice::from_ref(&option)).await;
    let take = |body: Value| {
        let voting = svc.voting.clone();
        async move { take_vote(&voting, "vote.submit", &serde_json::to_vec(&body).expect("encode")).await }
    };
    let first = vote(&task, VOTERS[0], &option);
    assert_eq!(take(first.clone()).await, VoteOutcome::Accepted { qualified: true });
    assert_eq!(take(first).await, VoteOutcome::Accepted { qualified: true }, "a retry is answered as stored");
    assert_eq!(take(vote(&task, VOTERS[1], "nobody")).await, VoteOutcome::Accepted { qualified: false });
    assert_eq!(
        take(vote(&task, VOTERS[0], &option)).await,
        VoteOutcome::Refused("Vote rejected: Vote already submitted for this task.".into())
    );
    assert_eq!(
        take(vote(&task, "agent-stranger", &option)).await,
        VoteOutcome::Refused("Vote rejected: You are not authorized to vote in this private task.".into())
    );
    assert_eq!(
        take(vote("task_ffffffff", VOTERS[0], &option)).await,
        VoteOutcome::Refused("Vote rejected: Invalid social_task_id.".into())
    );
    assert!(matches!(take(json!({"vote_id": "x"})).await, VoteOutcome::Refused(m) if m.starts_with("Vote rejected: ")));
    assert!(matches!(take_vote(&svc.voting, "vote.submit", b"not json").await, VoteOutcome::NotJson(_)));
}
