//! What the Xchange flows record for an operator (`agora_telemetry::names`): each task that
//! reaches a terminal status, with the seconds since its creation. The flows run on one thread
//! under the test's own recorder.

use agora_ports::fakes::{ManualClock, RecordingQueue, RecordingSchedules, ScriptedDelegate};
use agora_ports::{DelegateError, WorkHandler, WorkOutcome};
use agora_store::memory::MemoryStore;
use agora_telemetry::names;
use agora_telemetry::testing::record;
use agora_xchange_core::{xchange_hooks, BiddingLimits, NoBidding, Ports, Settings, Xchange, XchangeError};
use agora_xchange_schema::{exchange_db, DEFAULT_EXCHANGE_ID};
use chrono::TimeZone;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

#[test]
fn tasks_are_counted_by_terminal_status_with_the_seconds_since_their_creation() {
    let recorded = record(|| async {
        let clock = Arc::new(ManualClock::new(chrono::Utc.with_ymd_and_hms(2026, 12, 4, 10, 0, 0).unwrap()));
        let queue = Arc::new(RecordingQueue::default());
        let delegate = ScriptedDelegate::new(|r| match r.subject_id {
            "away" => Err(DelegateError::Unreachable("no route to the subject".into())),
            _ => Ok(json!({"success": true})),
        });
        let ports = Ports {
            store: Arc::new(MemoryStore::new(exchange_db(DEFAULT_EXCHANGE_ID)).expect("store")),
            hooks: xchange_hooks(Arc::new(agora_hooks::NoRemote)),
            assignments: queue.clone(),
            delegate: Arc::new(delegate),
            bidding: Arc::new(NoBidding),
            clock: clock.clone(),
            scheduler: Arc::new(RecordingSchedules::default()),
            exchange_id: "ex-1".into(),
        };
        let xchange = Xchange::new(ports, Settings::new(Duration::from_secs(30), BiddingLimits::default()));
        let direct = |subject: &str| json!({"task_assignment_type": "direct", "task_data": {}, "task_metadata": {"task_assignment": {"subject_id": subject}}});
        for body in [direct("s1"), direct("away"), json!({"task_assignment_type": "open", "task_data": {}})] {
            xchange.intake().submit_task(&body).await.expect("stored");
        }
        // No subject to select: failed at intake.
        let function = json!({"task_assignment_type": "function", "task_data": {},
                "task_metadata": {"task_assignment": {"function_id": "builtin:round-robin"}}});
        assert!(matches!(xchange.intake().submit_task(&function).await, Err(XchangeError::SelectionFailed { .. })));

        clock.advance(chrono::Duration::seconds(5));
        let work = xchange.assignment_work();
        for sent in queue.take() {
            assert_eq!(work.handle(&sent.body).await, WorkOutcome::Done);
        }
    });
    let terminal = |status| recorded.counter(names::XCHANGE_TASKS_TERMINAL, &[("status", status)]);
    assert_eq!([terminal("completed"), terminal("failed"), terminal("rejected")], [Some(1), Some(2), Some(1)]);
    let seconds = |status| recorded.histogram(names::XCHANGE_TASK_SECONDS_TO_TERMINAL, &[("status", status)]);
    assert_eq!(seconds("completed"), Some(vec![5.0]));
    assert_eq!(seconds("rejected"), Some(vec![5.0]));
    // Failed at intake at once, and after its delegate call five seconds on.
    let mut failed = seconds("failed").expect("failed tasks");
    failed.sort_by(f64::total_cmp);
    assert_eq!(failed, vec![0.0, 5.0]);
}
