//! What the Orcade flows record for an operator (`agora_telemetry::names`): each bid stored or
//! refused by its kind, each evaluation by outcome with its seconds, and the store errors the
//! flows meet. The flows run on one thread under the test's own recorder.

use agora_hooks::NoRemote;
use agora_orcade_core::{orcade_hooks, EvaluationOutcome, Orcade, OrcadeError, Ports, Settings, ORCADE_DB};
use agora_ports::fakes::{ManualClock, RecordingQueue, RecordingSchedules, ScriptedDelegate};
use agora_store::memory::MemoryStore;
use agora_store::StoreError;
use agora_telemetry::names;
use chrono::{TimeZone, Utc};
use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use serde_json::{json, Value};
use std::future::Future;
use std::sync::Arc;

/// One recorded metric: its name, labels and value.
type Recorded = (String, Vec<(String, String)>, DebugValue);

/// What `work` recorded.
fn recorded<F: Future>(work: impl FnOnce() -> F) -> Vec<Recorded> {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(work())
    });
    let metrics = snapshotter.snapshot().into_vec().into_iter().map(|(key, _, _, value)| {
        let key = key.key();
        (key.name().to_owned(), key.labels().map(|l| (l.key().to_owned(), l.value().to_owned())).collect(), value)
    });
    metrics.collect()
}

/// The counter `name` with exactly `labels`, if it was recorded.
fn counter(recorded: &[Recorded], name: &str, labels: &[(&str, &str)]) -> Option<u64> {
    let labels: Vec<(String, String)> = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    recorded.iter().find_map(|(n, l, value)| match value {
        DebugValue::Counter(count) if n == name && *l == labels => Some(*count),
        _ => None,
    })
}

fn bid(subject: &str, price: f64, confidence: f64) -> Value {
    json!({"bid_subject_id": subject, "bid_data": {"price_usd": price, "confidence": confidence}})
}

#[test]
fn bids_are_counted_stored_or_refused_by_kind_and_the_evaluation_with_its_seconds() {
    let recorded = recorded(|| async {
        let ports = Ports {
            store: Arc::new(MemoryStore::new(ORCADE_DB).expect("store")),
            hooks: orcade_hooks(Arc::new(NoRemote)),
            evaluations: Arc::new(RecordingQueue::default()),
            deliveries: Arc::new(RecordingQueue::default()),
            delegate: Arc::new(ScriptedDelegate::new(|_| Ok(json!({"success": true})))),
            clock: Arc::new(ManualClock::new(Utc.with_ymd_and_hms(2026, 10, 5, 9, 0, 0).unwrap())),
            scheduler: Arc::new(RecordingSchedules::default()),
            resolutions: Arc::new(RecordingQueue::default()),
        };
        let orcade = Orcade::new(ports, Settings::default());
        // A closed job of three: min-confidence 0.8 screens bids, the lowest price wins.
        let job = orcade
            .creator()
            .create_job(&json!({
                "bid_job_metadata": {"parameters": {"min": 0.8}}, "bid_job_description": {}, "bid_job_name": {"en": "Translate"},
                "bid_job_evaluator_id": "builtin:lowest-price", "bid_job_pqt_id": "builtin:min-confidence",
                "bid_job_creator_id": "planner", "bid_job_subject_ids": ["t1", "t2", "t3"],
            }))
            .await
            .expect("created");
        let id = job.bid_job_id.as_str();
        let intake = orcade.intake();
        assert!(matches!(intake.submit_bid(id, &bid("t1", 90.0, 0.5)).await, Err(OrcadeError::PqtRefused { stored: true, .. })));
        intake.submit_bid(id, &bid("t2", 120.0, 0.9)).await.expect("stored");
        assert!(matches!(intake.submit_bid(id, &bid("t2", 100.0, 0.9)).await, Err(OrcadeError::AlreadyBid { .. })));
        assert!(matches!(intake.submit_bid(id, &bid("stranger", 1.0, 1.0)).await, Err(OrcadeError::NotOnRoster { .. })));
        assert!(matches!(intake.submit_bid("no-such-job", &bid("t1", 1.0, 1.0)).await, Err(OrcadeError::UnknownJob(_))));
        // The roster is complete: the job closes.
        intake.submit_bid(id, &bid("t3", 150.0, 0.95)).await.expect("stored");
        let evaluated = orcade.evaluator().evaluate_job(id).await.expect("evaluated");
        assert!(matches!(evaluated, EvaluationOutcome::Resolved { ref winner_subject_id, .. } if winner_subject_id == "t2"));
        assert_eq!(orcade.evaluator().evaluate_job(id).await, Ok(EvaluationOutcome::AlreadyEvaluated));

        // A store error the flows do not handle, converted once.
        let _ = OrcadeError::from(StoreError::Backend("down".into()));
    });
    assert_eq!(counter(&recorded, names::BIDS_ACCEPTED, &[]), Some(2));
    let refused = |reason| counter(&recorded, names::BIDS_REFUSED, &[("reason", reason)]);
    assert_eq!(
        [refused("pqt_refused"), refused("duplicate"), refused("not_on_roster"), refused("not_found")],
        [Some(1), Some(1), Some(1), Some(1)]
    );
    let evaluations = |outcome| counter(&recorded, names::EVALUATIONS, &[("service", "orcade"), ("outcome", outcome)]);
    assert_eq!((evaluations("resolved"), evaluations("already_evaluated")), (Some(1), Some(1)));
    let seconds = recorded.iter().find_map(|(n, _, value)| match value {
        DebugValue::Histogram(values) if n == names::EVALUATION_SECONDS => Some(values.len()),
        _ => None,
    });
    assert_eq!(seconds, Some(1), "the one evaluation that ran");
    assert_eq!(counter(&recorded, names::STORE_ERRORS, &[("kind", "backend")]), Some(1));
}
