//! Jobs and bids for the unit tests.

use agora_orcade_schema::{Bid, BidJob, Entity};
use chrono::{Duration, TimeZone, Utc};
use serde_json::{json, Value};

/// The spec's closed example job (§2.1).
pub(crate) fn job_without_parameters() -> BidJob {
    let doc: Value = serde_json::from_str(include_str!("../../../../examples/stored/orcade/bid_job_closed.json")).unwrap();
    BidJob::from_dict(&doc).unwrap()
}

/// The example job with `bid_job_metadata.parameters` set to `parameters`.
pub(crate) fn job_with_parameters(parameters: Value) -> BidJob {
    let mut job = job_without_parameters();
    job.bid_job_metadata.insert("parameters".into(), parameters);
    job
}

/// Subject `subject`'s bid `bid-<subject>`, submitted `seconds` after 10:00:00 on the example day.
pub(crate) fn bid(subject: &str, seconds: i64, bid_data: Value) -> Bid {
    let Value::Object(bid_data) = bid_data else { panic!("bid_data must be an object") };
    Bid {
        bid_id: format!("bid-{subject}"),
        bid_job_id: job_without_parameters().bid_job_id,
        bid_data,
        bid_subject_id: subject.into(),
        submission_time: Utc.with_ymd_and_hms(2026, 9, 9, 10, 0, 0).unwrap() + Duration::seconds(seconds),
        is_winner: false,
    }
}

#[test]
fn the_example_job_has_no_parameters() {
    assert!(job_without_parameters().parameters().unwrap().is_empty());
    assert_eq!(job_with_parameters(json!({"min": 1})).parameters().unwrap()["min"], json!(1));
}
