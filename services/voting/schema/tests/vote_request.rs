//! §3.3: the vote request. All six keys present and of the right types; empty ids refused.

mod common;

use agora_voting_schema::{parse_vote_request, Entity, Vote};
use common::*;
use serde_json::{json, Value};

#[track_caller]
fn refuse(body: &Value) -> String {
    match parse_vote_request(body) {
        Ok(v) => panic!("accepted: {}", v.to_dict()),
        Err(e) => {
            assert!(!e.0.is_empty(), "an error without a message");
            e.to_string()
        }
    }
}

fn vote_with(key: &str, value: Value) -> Value {
    let mut doc = vote_doc();
    doc[key] = value;
    doc
}

fn vote_without(keys: &[&str]) -> Value {
    let mut doc = vote_doc();
    for k in keys {
        doc.as_object_mut().unwrap().shift_remove(*k);
    }
    doc
}

const SIX: [&str; 6] = ["vote_id", "social_task_id", "submitter_subject_id", "vote_data", "submission_time", "qualified"];

#[test]
fn spec_example_vote_parses_to_the_stored_document() {
    let vote = parse_vote_request(&vote_doc()).unwrap();
    assert_eq!(vote, Vote::from_dict(&vote_doc()).unwrap());
    assert_same_doc(&vote.to_dict(), &vote_doc());
}

#[test]
fn the_six_keys_are_the_spec_ones() {
    assert_eq!(agora_voting_schema::request::VOTE_KEYS, SIX);
}

#[test]
fn every_missing_key_is_named() {
    let e = refuse(&json!({}));
    for k in SIX {
        assert!(e.contains(k), "{k}: {e}");
    }
    for k in SIX {
        let e = refuse(&vote_without(&[k]));
        assert!(e.contains(k), "{k}: {e}");
        for other in SIX.iter().filter(|o| **o != k && !k.contains(**o) && !o.contains(k)) {
            assert!(!e.contains(other), "{k} missing, but {other} named: {e}");
        }
    }
    let e = refuse(&vote_without(&["submission_time", "qualified"]));
    assert!(e.contains("submission_time") && e.contains("qualified"), "{e}");
}

#[test]
fn submission_time_and_qualified_must_be_present_although_overwritten() {
    refuse(&vote_without(&["submission_time"]));
    refuse(&vote_without(&["qualified"]));
}

#[test]
fn wrong_types_are_named() {
    for (key, value) in [
        ("vote_id", json!(7)),
        ("social_task_id", json!(["task_3f9c6d2e"])),
        ("submitter_subject_id", json!({"id": "x"})),
        ("vote_data", json!("agent-translator-02")),
        ("vote_data", json!(["agent-translator-02"])),
        ("vote_data", json!(2)),
        ("submission_time", json!("whenever")),
        ("submission_time", json!(true)),
        ("submission_time", json!({})),
        ("qualified", json!("true")),
        ("qualified", json!(1)),
        ("qualified", json!(null)),
        ("vote_id", json!(null)),
        ("vote_data", json!(null)),
    ] {
        let e = refuse(&vote_with(key, value.clone()));
        assert!(e.starts_with(&format!("{key} ")), "{key} = {value}: {e}");
    }
}

#[test]
fn a_bad_submission_time_names_the_value() {
    let e = refuse(&vote_with("submission_time", json!("whenever")));
    assert!(e.contains("submission_time"), "{e}");
    assert!(e.contains("Invalid datetime: whenever"), "{e}");
}

#[test]
fn every_wrong_key_is_reported_at_once() {
    let body = json!({
        "vote_id": "",
        "social_task_id": 3,
        "submitter_subject_id": "   ",
        "vote_data": "x",
        "submission_time": "never",
        "qualified": "yes"
    });
    let err = parse_vote_request(&body).unwrap_err();
    let paths: Vec<&str> = err.0.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, SIX);
}

#[test]
fn empty_ids_are_refused() {
    for key in ["vote_id", "social_task_id", "submitter_subject_id"] {
        for empty in ["", "  ", "\t"] {
            let e = refuse(&vote_with(key, json!(empty)));
            assert!(e.starts_with(&format!("{key} ")), "{key} = {empty:?}: {e}");
            assert!(e.contains("empty"), "{e}");
        }
    }
}

#[test]
fn submission_time_in_every_accepted_form() {
    let epoch = 1_792_663_392; // 2026-10-22T10:03:12Z
    for form in
        [json!("2026-10-22T10:03:12"), json!("2026-10-22T10:03:12Z"), json!("2026-10-22T12:03:12+02:00"), json!(epoch), json!(epoch as f64)]
    {
        let vote = parse_vote_request(&vote_with("submission_time", form.clone())).unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(vote.to_dict()["submission_time"], "2026-10-22T10:03:12", "{form}");
    }
}

#[test]
fn qualified_false_and_empty_vote_data_are_accepted() {
    let mut body = vote_with("qualified", json!(false));
    body["vote_data"] = json!({});
    let vote = parse_vote_request(&body).unwrap();
    assert!(!vote.qualified);
    assert_eq!(vote.vote_data, json!({}));
}

#[test]
fn ranked_vote_data_is_kept_as_given() {
    let data = json!({"ranking": ["agent-translator-02", "agent-translator-01"], "weight": 2});
    let vote = parse_vote_request(&vote_with("vote_data", data.clone())).unwrap();
    assert_same_doc(&vote.vote_data, &data);
}

#[test]
fn extra_keys_are_ignored() {
    let vote = parse_vote_request(&vote_with("comment", json!("hi"))).unwrap();
    assert_same_doc(&vote.to_dict(), &vote_doc());
}

#[test]
fn a_body_that_is_not_an_object_is_refused() {
    for body in [json!([]), json!("vote"), json!(null), json!(1)] {
        let e = refuse(&body);
        assert!(e.to_lowercase().contains("object"), "{body}: {e}");
    }
}

#[test]
fn ids_are_at_most_128_characters() {
    for key in ["vote_id", "social_task_id", "submitter_subject_id"] {
        let vote = parse_vote_request(&vote_with(key, json!("v".repeat(128)))).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(vote.to_dict()[key], json!("v".repeat(128)));
        let e = refuse(&vote_with(key, json!("v".repeat(129))));
        assert_eq!(e, format!("{key} must be at most 128 characters, got 129"));
    }
}

#[test]
fn a_key_with_a_nul_or_a_leading_dollar_in_vote_data_is_refused_by_its_path() {
    let e = refuse(&vote_with("vote_data", json!({"selected_option": "a", "why": {"a\u{0}b": 1}})));
    assert_eq!(e, "vote_data.why.a\\u0000b is not a storable key: it holds a NUL character, which MongoDB cannot store in a key");
    let e = refuse(&vote_with("vote_data", json!({"$selected_option": "a"})));
    assert_eq!(e, "vote_data.$selected_option is not a storable key: it starts with '$', which MongoDB reads as an operator");
    assert!(parse_vote_request(&vote_with("vote_data", json!({"selected_option": "$a", "a.b": 1}))).is_ok());
}
