//! What the Orcade flows record for an operator (`agora_telemetry::names`): each bid stored or
//! refused by its kind, each evaluation by outcome with its seconds, and the store errors the
//! flows meet. The flows run on one thread under the test's own recorder.

use agora_hooks::NoRemote;
use agora_orcade_core::{orcade_hooks, EvaluationOutcome, Orcade, OrcadeError, Ports, Settings, ORCADE_DB};
use agora_ports::fakes::{ManualClock, RecordingQueue, RecordingSchedules, ScriptedDelegate};
use agora_store::memory::MemoryStore;
use agora_store::StoreError;
use agora_telemetry::names;
use agora_telemetry::testing::record;
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};
use std::sync::Arc;

fn bid(subject: &str, price: f64, confidence: f64) -> Value {
    json!({"bid_subject_id": subject, "bid_data": {"price_usd": price, "confidence": confidence}})
}

#[test]
fn bids_are_counted_stored_or_refused_by_kind_and_the_evaluation_with_its_seconds() {
    let recorded = record(|| async {
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
    assert_eq!(recorded.counter(names::BIDS_ACCEPTED, &[]), Some(2));
    let refused = |reason| recorded.counter(names::BIDS_REFUSED, &[("reason", reason)]);
    assert_eq!(
        [refused("pqt_refused"), refused("duplicate"), refused("not_on_roster"), refused("not_found")],
        [Some(1), Some(1), Some(1), Some(1)]
    );
    let evaluations = |outcome| recorded.counter(names::EVALUATIONS, &[("service", "orcade"), ("outcome", outcome)]);
    assert_eq!((evaluations("resolved"), evaluations("already_evaluated")), (Some(1), Some(1)));
    let seconds = recorded.histogram(names::EVALUATION_SECONDS, &[("service", "orcade")]).map(|s| s.len());
    assert_eq!(seconds, Some(1), "the one evaluation that ran");
    assert_eq!(recorded.counter(names::STORE_ERRORS, &[("kind", "backend")]), Some(1));
}
