//! The spec's example documents (xchange-2-schema.md §2.1, §2.2) read and write back exactly.

use agora_xchange_schema::{AssignmentType, Entity, ExchangeSubject, ExchangeTask, TaskStatus};
use serde_json::{json, Value};

fn round_trips<T: Entity>(doc: Value) -> T {
    let entity = T::from_dict(&doc).expect("reads");
    assert_eq!(entity.to_dict(), doc, "written back exactly");
    entity
}

#[test]
fn the_direct_task_example_round_trips() {
    let task: ExchangeTask = round_trips(json!({
        "task_id": "3f9c6d2e-1a2b-4c3d-9e8f-7a6b5c4d3e2f",
        "task_assignment_type": "direct",
        "task_data": {"instruction": "summarize this document", "doc_url": "https://..."},
        "task_assignment_status": "completed",
        "task_metadata": {"task_assignment": {"subject_id": "agent-summarizer-01"}},
        "taski_creation_time": "2026-09-17T10:15:32.481203",
        "task_output": {"summary": "...", "acknowledged": true}
    }));
    assert_eq!((task.task_assignment_type, task.task_assignment_status), (AssignmentType::Direct, TaskStatus::Completed));
    assert_eq!(task.assignment_str("subject_id"), Some("agent-summarizer-01"));
}

#[test]
fn the_bidding_task_example_round_trips() {
    let task: ExchangeTask = round_trips(json!({
        "task_id": "6b1a2c3d-4e5f-6789-0abc-def012345678",
        "task_assignment_type": "bidding",
        "task_data": {"task_type": "translate_document", "word_count": 4200},
        "task_assignment_status": "bidding",
        "task_metadata": {
            "task_assignment": {
                "bid_job_evaluator_id": "lowest-cost-evaluator:1.0-stable",
                "bid_job_pqt_id": "min-confidence-pqt:1.0-stable",
                "bid_job_subject_ids": ["agent-translator-01", "agent-translator-02"]
            },
            "bid_job_id": "8f14e45f-ceea-4a19-8f6e-8b5a9c1a9f10"
        },
        "taski_creation_time": "2026-09-17T10:20:00.000000",
        "task_output": {}
    }));
    assert_eq!(task.bid_job_id(), Some("8f14e45f-ceea-4a19-8f6e-8b5a9c1a9f10"));
}

#[test]
fn the_subject_example_round_trips_and_defaults_fill_a_bare_one() {
    let subject: ExchangeSubject = round_trips(json!({
        "subject_id": "agent-summarizer-01",
        "subject_metadata": {"owner": "team-nlp", "region": "us-east"},
        "task_evaluation_function": "accepts-if-capacity:1.0-stable",
        "subject_capabilities": {"max_doc_tokens": 50000, "languages": ["en", "fr"]},
        "topics": ["summarization", "nlp"]
    }));
    assert!(subject.has_topic_in(&["nlp".to_owned()]));
    let bare = ExchangeSubject::from_dict(&json!({"subject_id": "s", "topics": null, "subject_metadata": null})).expect("reads");
    assert_eq!(
        bare.to_dict(),
        json!({"subject_id": "s", "subject_metadata": {}, "task_evaluation_function": "", "subject_capabilities": {}, "topics": []})
    );
    let task = ExchangeTask::from_dict(&json!({"task_id": "t", "task_assignment_type": "open", "task_data": null,
        "task_assignment_status": "pending", "taski_creation_time": null}))
    .expect("reads");
    assert_eq!(task.to_dict()["taski_creation_time"], Value::Null, "None passes through");
    assert_eq!(task.to_dict()["task_metadata"], json!({}));
}
