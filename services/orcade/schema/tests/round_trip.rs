//! §2 storage: `from_dict()` → `to_dict()` reproduces the spec's example documents exactly (values
//! and key order), and the entities read what clients and older documents write.

mod common;

use agora_orcade_schema::time::format_utc_micros;
use agora_orcade_schema::{Bid, BidJob, BidJobMode, BidJobStatus, BidTaskResult, Entity, TaskType};
use chrono::{Duration, TimeZone, Utc};
use common::*;
use serde_json::{json, Value};

#[test]
fn closed_job_example_round_trips_exactly() {
    let d = doc(CLOSED_JOB);
    let job = BidJob::from_dict(&d).unwrap();
    assert_eq!(job.bid_job_mode, BidJobMode::Closed);
    assert_eq!(job.bid_job_status, BidJobStatus::Open);
    assert_eq!(job.bid_job_created_time, created());
    assert_eq!((job.bid_job_max_subjects, job.bid_job_max_time, job.bid_job_closes_at), (None, None, None));
    assert_eq!(job.bid_job_subject_ids.len(), 3);
    assert!(job.has_subject("agent-translator-02") && !job.has_subject("agent-translator-04"));
    assert_same_doc(&job.to_dict(), &d);
}

#[test]
fn open_job_example_round_trips_exactly() {
    let d = doc(OPEN_JOB);
    let job = BidJob::from_dict(&d).unwrap();
    assert_eq!(job.bid_job_mode, BidJobMode::Open);
    assert_eq!((job.bid_job_max_subjects, job.bid_job_max_time), (Some(5), Some(3600)));
    assert_eq!(job.bid_job_closes_at, agora_orcade_schema::closes_at(job.bid_job_created_time, job.bid_job_max_time));
    assert_eq!(job.bid_job_closes_at, Some(Utc.with_ymd_and_hms(2026, 10, 5, 10, 0, 0).unwrap()));
    assert_same_doc(&job.to_dict(), &d);
}

#[test]
fn bid_example_round_trips_exactly() {
    let d = doc(BID);
    let bid = Bid::from_dict(&d).unwrap();
    assert_eq!(bid.submission_time, Utc.with_ymd_and_hms(2026, 9, 9, 10, 15, 32).unwrap() + Duration::microseconds(481_203));
    assert!(!bid.is_winner && !bid.is_rejected());
    assert_eq!(bid.bid_data["price_usd"], json!(120.0));
    assert_same_doc(&bid.to_dict(), &d);
}

#[test]
fn task_result_example_round_trips_exactly() {
    let d = doc(TASK_RESULT);
    let result = BidTaskResult::from_dict(&d).unwrap();
    assert_eq!(result.task_type, TaskType::BidRequest);
    assert_eq!(result.evaluator_output, None);
    assert_same_doc(&result.to_dict(), &d);
}

#[test]
fn the_winner_record_carries_the_evaluator_output_last() {
    let mut d = doc(TASK_RESULT);
    d["task_type"] = json!("bid_winner");
    d["evaluator_output"] = json!({"winner_subject_id": "agent-translator-01", "status": "resolved", "result_data": {}});
    let result = BidTaskResult::from_dict(&d).unwrap();
    assert_eq!(result.task_type, TaskType::BidWinner);
    let out = result.to_dict();
    assert_eq!(out.as_object().unwrap().keys().next_back().map(String::as_str), Some("evaluator_output"));
    assert_same_doc(&out, &d);
    let failed = BidTaskResult::failure_result("the delegate did not answer within 30000 ms");
    assert_eq!(Value::Object(failed), json!({"success": false, "error": "the delegate did not answer within 30000 ms"}));
}

#[test]
fn job_datetimes_are_written_utc_with_microseconds_whatever_form_they_came_in() {
    for given in ["2026-09-09T10:00:00", "2026-09-09T10:00:00Z", "2026-09-09T12:00:00+02:00", "2026-09-09 10:00:00.000"] {
        let mut d = doc(CLOSED_JOB);
        d["bid_job_created_time"] = json!(given);
        let job = BidJob::from_dict(&d).unwrap();
        assert_eq!(job.to_dict()["bid_job_created_time"], json!("2026-09-09T10:00:00.000000+00:00"), "{given}");
    }
    let fine = created() + Duration::microseconds(7);
    assert_eq!(format_utc_micros(&fine), "2026-09-09T10:00:00.000007+00:00");
}

#[test]
fn absent_or_null_optionals_read_as_their_defaults() {
    let mut d = doc(CLOSED_JOB);
    let obj = d.as_object_mut().unwrap();
    for k in ["bid_job_pqt_id", "bid_job_tie_id", "bid_job_mode", "bid_job_status", "bid_job_closes_at", "bid_job_max_time"] {
        obj.shift_remove(k);
    }
    obj.insert("bid_job_tags".into(), Value::Null);
    obj.insert("bid_job_metadata".into(), Value::Null);
    let job = BidJob::from_dict(&d).unwrap();
    assert_eq!(job.bid_job_pqt_id, "");
    assert_eq!(job.bid_job_tie_id, "");
    assert_eq!(job.bid_job_mode, BidJobMode::Closed);
    assert_eq!(job.bid_job_status, BidJobStatus::Open);
    assert!(job.bid_job_tags.is_empty() && job.bid_job_metadata.is_empty());
    // Written back whole, in the spec's order.
    let keys: Vec<String> = job.to_dict().as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, agora_orcade_schema::request::BID_JOB_FIELDS);

    let mut b = doc(BID);
    b.as_object_mut().unwrap().shift_remove("is_winner");
    assert!(!Bid::from_dict(&b).unwrap().is_winner);
}

#[test]
fn documents_the_service_never_writes_are_refused_naming_the_value() {
    for (key, value) in [("bid_job_mode", "auction"), ("bid_job_status", "evaluating")] {
        let mut d = doc(CLOSED_JOB);
        d[key] = json!(value);
        let e = BidJob::from_dict(&d).unwrap_err().to_string();
        assert!(e.contains(value), "{key}: {e}");
    }
    let mut d = doc(TASK_RESULT);
    d["task_type"] = json!("bid_loser");
    assert!(BidTaskResult::from_dict(&d).unwrap_err().to_string().contains("bid_loser"));
    let mut d = doc(CLOSED_JOB);
    d.as_object_mut().unwrap().shift_remove("bid_job_created_time");
    assert!(BidJob::from_dict(&d).unwrap_err().to_string().contains("bid_job_created_time"));
}

#[test]
fn function_ids_read_as_function_specs() {
    let job = BidJob::from_dict(&doc(CLOSED_JOB)).unwrap();
    assert_eq!(job.evaluator().target().unwrap().unwrap().mode(), "function");
    assert_eq!(job.pqt().target().unwrap().unwrap().name(), "min-confidence-pqt:1.0-stable");
    let mut d = doc(CLOSED_JOB);
    d["bid_job_pqt_id"] = json!("");
    assert!(BidJob::from_dict(&d).unwrap().pqt().is_empty());
}

#[test]
fn parameters_come_from_the_metadata() {
    let mut d = doc(CLOSED_JOB);
    let job = BidJob::from_dict(&d).unwrap();
    assert!(job.parameters().unwrap().is_empty());
    d["bid_job_metadata"]["parameters"] = json!({"min": 0.8});
    assert_eq!(BidJob::from_dict(&d).unwrap().parameters().unwrap()["min"], json!(0.8));
    d["bid_job_metadata"]["parameters"] = json!(null);
    assert!(BidJob::from_dict(&d).unwrap().parameters().unwrap().is_empty());
    d["bid_job_metadata"]["parameters"] = json!([0.8]);
    let e = BidJob::from_dict(&d).unwrap().parameters().unwrap_err();
    assert_eq!(e.to_string(), "bid_job_metadata.parameters must be an object, got an array");
}

#[test]
fn hook_inputs_are_exactly_the_spec_shapes() {
    let job = BidJob::from_dict(&doc(CLOSED_JOB)).unwrap();
    let bid = Bid::from_dict(&doc(BID)).unwrap();
    let pqt = serde_json::to_value(agora_orcade_schema::PqtInput { bid_job: &job, bid: &bid }).unwrap();
    assert_same_doc(&pqt, &json!({"bid_job": doc(CLOSED_JOB), "bid": doc(BID)}));
    let bids = [bid.clone()];
    let eval = serde_json::to_value(agora_orcade_schema::EvaluatorInput { bid_job: &job, bids: &bids }).unwrap();
    assert_same_doc(&eval, &json!({"bid_job": doc(CLOSED_JOB), "bids": [doc(BID)]}));
}
