//! `POST /bid-jobs/{id}/bids`: the job id from the path, the service's fields tolerated or
//! refused, every refusal naming its field.

mod common;

use agora_orcade_schema::{parse_bid_request, Bid, Entity, ValidationErrors};
use chrono::{Duration, TimeZone, Utc};
use common::*;
use serde_json::{json, Value};

const JOB: &str = "8f14e45f-ceea-4a19-8f6e-8b5a9c1a9f10";
const BID_ID: &str = "3c7c3e2a-2d1a-4e2d-9a3b-6d2f9e6b0d4c";

fn now() -> chrono::DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 9, 9, 10, 15, 32).unwrap() + Duration::microseconds(481_203)
}

fn parse(body: &Value) -> Result<Bid, ValidationErrors> {
    parse_bid_request(body, JOB, BID_ID, now())
}

fn request() -> Value {
    json!({"bid_subject_id": "agent-translator-01", "bid_data": {"price_usd": 120.0, "eta_hours": 6, "confidence": 0.92}})
}

#[track_caller]
fn refused_on(body: &Value, path: &str, says: &str) {
    let errors = parse(body).expect_err("accepted").0;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path, path, "{errors:?}");
    assert!(errors[0].message.contains(says), "{path}: {:?} does not say {says:?}", errors[0].message);
}

#[test]
fn the_request_gives_the_example_bid() {
    assert_same_doc(&parse(&request()).unwrap().to_dict(), &doc(BID));
}

#[test]
fn a_whole_to_dict_is_tolerated_and_the_service_s_fields_set_anew() {
    let mut body = doc(BID);
    body["bid_id"] = json!("chosen-by-client");
    body["submission_time"] = json!("2020-01-01T00:00:00");
    let bid = parse(&body).unwrap();
    assert_same_doc(&bid.to_dict(), &doc(BID));
    let with_nulls =
        with(with(with(request(), "bid_job_id", Some(Value::Null)), "is_winner", Some(Value::Null)), "bid_id", Some(Value::Null));
    assert_same_doc(&parse(&with_nulls).unwrap().to_dict(), &doc(BID));
}

#[test]
fn empty_bid_data_is_a_bid() {
    let bid = parse(&with(request(), "bid_data", Some(json!({})))).unwrap();
    assert!(bid.bid_data.is_empty());
}

#[test]
fn required_fields_are_named() {
    refused_on(&with(request(), "bid_subject_id", None), "bid_subject_id", "is required");
    refused_on(&with(request(), "bid_data", None), "bid_data", "is required");
    refused_on(&with(request(), "bid_data", Some(Value::Null)), "bid_data", "is required");
    let errors = parse(&json!({})).unwrap_err().0;
    assert_eq!(errors.iter().map(|e| e.path.as_str()).collect::<Vec<_>>(), ["bid_subject_id", "bid_data"]);
}

#[test]
fn malformed_fields_are_named() {
    refused_on(&with(request(), "bid_data", Some(json!([1]))), "bid_data", "must be an object, got an array");
    refused_on(&with(request(), "bid_subject_id", Some(json!(1))), "bid_subject_id", "must be a string, got a number");
    refused_on(&with(request(), "bid_subject_id", Some(json!(""))), "bid_subject_id", "must not be empty");
    refused_on(&with(request(), "bid_subject_id", Some(json!("a "))), "bid_subject_id", "whitespace");
    refused_on(&with(request(), "price_usd", Some(json!(1))), "price_usd", "is not a bid field");
    assert_eq!(parse(&json!("bid")).unwrap_err().to_string(), "Request body must be a JSON object, got a string");
}

#[test]
fn the_job_comes_from_the_path() {
    assert_eq!(parse(&with(request(), "bid_job_id", Some(json!(JOB)))).unwrap().bid_job_id, JOB);
    // The body's job id is not the path's: the path names the job (§2.2).
    assert_eq!(parse(&with(request(), "bid_job_id", Some(json!("another-job")))).unwrap().bid_job_id, JOB);
    refused_on(&with(request(), "bid_job_id", Some(json!(7))), "bid_job_id", "must be a string");
}

#[test]
fn a_bidder_cannot_award_or_refuse_itself() {
    refused_on(&with(request(), "is_winner", Some(json!(true))), "is_winner", "is set by the evaluation");
    refused_on(&with(request(), "is_winner", Some(json!("no"))), "is_winner", "must be a boolean");
    refused_on(&with(request(), "bid_data", Some(json!({"bid_rejected": false}))), "bid_data.bid_rejected", "is set by the service");
    refused_on(&with(request(), "bid_data", Some(json!({"pqt_reason": "fine"}))), "bid_data.pqt_reason", "is set by the service");
}

#[test]
fn submission_time_is_the_service_s_clock_to_the_microsecond() {
    let bid = parse_bid_request(&request(), JOB, BID_ID, now() + Duration::nanoseconds(999)).unwrap();
    assert_eq!(bid.submission_time, now());
    assert!(!bid.is_winner);
}

#[test]
fn the_bidder_s_id_is_at_most_128_characters() {
    let mut body = request();
    body["bid_subject_id"] = json!("b".repeat(128));
    assert_eq!(parse(&body).unwrap().bid_subject_id, "b".repeat(128));
    body["bid_subject_id"] = json!("b".repeat(129));
    refused_on(&body, "bid_subject_id", "must be at most 128 characters, got 129");
}

#[test]
fn a_key_with_a_nul_or_a_leading_dollar_in_bid_data_is_refused_by_its_path() {
    let body = json!({"bid_subject_id": "s", "bid_data": {"offer": {"a\u{0}b": 1}}});
    refused_on(&body, "bid_data.offer.a\u{0}b", "holds a NUL character");
    let body = json!({"bid_subject_id": "s", "bid_data": {"items": [{"$price": 1}]}});
    refused_on(&body, "bid_data.items[0].$price", "starts with '$'");
    let shown = parse(&json!({"bid_subject_id": "s", "bid_data": {"a\u{0}b": 1}})).unwrap_err().to_string();
    assert!(shown.starts_with("bid_data.a\\u0000b is not a storable key"), "{shown}");
    assert!(parse(&json!({"bid_subject_id": "s", "bid_data": {"a.b": "$x"}})).is_ok());
}
