//! The voting options (`deadline`, `deadline_seconds`, `quorum`, `vote_changes`,
//! `weights`): keys of the request's `social_task`, stored in `social_task_properties.voting`,
//! each invalid one refused by its path; a request without them is stored as before.

mod common;

use agora_voting_schema::options::PROPERTIES_KEY;
use agora_voting_schema::{parse_create_request, Deadline, Entity, VotingOptions, Weights};
use chrono::{TimeZone, Utc};
use common::*;
use serde_json::{json, Value};

const ID: &str = "task_0a1b2c3d";

/// The example request with these keys added to `social_task`.
fn with_options(options: Value) -> Value {
    let mut body = create_request();
    let task = body["social_task"].as_object_mut().unwrap();
    for (k, v) in options.as_object().unwrap() {
        task.insert(k.clone(), v.clone());
    }
    body
}

fn public(mut body: Value) -> Value {
    body["social_task"]["access_type"] = json!("public");
    body["social_task"]["duration"] = json!(4);
    body
}

#[track_caller]
fn refuse(body: &Value) -> String {
    match parse_create_request(body, ID) {
        Ok(b) => panic!("accepted: {}", b.to_parsed_dict()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn a_request_without_options_is_stored_exactly_as_before() {
    let bundle = parse_create_request(&create_request(), ID).unwrap();
    assert_same_doc(&bundle.task.to_dict(), &with_id(task_doc(), ID));
    assert!(!bundle.task.social_task_properties.contains_key(PROPERTIES_KEY));
    assert!(bundle.task.options().is_empty());
}

#[test]
fn options_are_stored_under_properties_voting_and_read_back() {
    let body = with_options(json!({
        "deadline": "2026-10-22T11:00:00Z",
        "quorum": 2,
        "weights": {"agent-reviewer-01": 2.5, "agent-reviewer-03": 1}
    }));
    let bundle = parse_create_request(&body, ID).unwrap();
    let stored = bundle.task.to_dict();
    assert_eq!(stored["social_task_properties"]["urgency"], json!("high"));
    assert_eq!(
        stored["social_task_properties"]["voting"],
        json!({"deadline": "2026-10-22T11:00:00", "quorum": 2,
               "weights": {"agent-reviewer-01": 2.5, "agent-reviewer-03": 1.0}})
    );
    // No option key leaks into the spec's fields.
    for key in ["deadline", "quorum", "vote_changes", "weights", "deadline_seconds"] {
        assert!(stored.get(key).is_none(), "{key} stored at the top level");
    }
    let options = bundle.task.options();
    assert_eq!(options.deadline, Some(Deadline::At(Utc.with_ymd_and_hms(2026, 10, 22, 11, 0, 0).unwrap())));
    assert_eq!((options.quorum, options.vote_changes), (Some(2), None));
    assert_eq!(options.mapped_weight("agent-reviewer-01"), Some(2.5));
    assert_eq!(options.mapped_weight("agent-reviewer-02"), Some(1.0), "a member not named weighs 1");
    // The stored form reads back to the same options.
    let reread = VotingOptions::from_properties(stored["social_task_properties"].as_object().unwrap());
    assert_eq!(reread, options);
}

#[test]
fn a_relative_deadline_counts_from_the_start() {
    let bundle = parse_create_request(&with_options(json!({"deadline_seconds": 600})), ID).unwrap();
    let options = bundle.task.options();
    assert_eq!(options.deadline, Some(Deadline::AfterStart(600)));
    assert_eq!(options.deadline_at(None), None, "not started: no deadline yet");
    let start = Utc.with_ymd_and_hms(2026, 10, 22, 10, 0, 0).unwrap();
    assert_eq!(options.deadline_at(Some(start)), Some(start + chrono::Duration::seconds(600)));
}

#[test]
fn weights_may_be_a_function_spec_on_a_public_task() {
    let spec = json!({"mode": "function", "function_id": "member-weight:1.0", "parameters": {"by": "stake"}});
    let bundle = parse_create_request(&public(with_options(json!({"weights": spec.clone()}))), ID).unwrap();
    assert_eq!(bundle.task.social_task_properties["voting"]["weights"], spec);
    assert!(matches!(bundle.task.options().weights, Some(Weights::Function(_))));
    assert_eq!(bundle.task.options().mapped_weight("anyone"), None);
}

#[test]
fn each_invalid_option_is_refused_by_its_path() {
    let cases = [
        (json!({"deadline": "tomorrow"}), "social_task.deadline is not a datetime"),
        (json!({"deadline": "2026-10-22T09:30:00"}), "social_task.deadline must be after scheduled_time"),
        (json!({"deadline": "2026-10-22T11:00:00", "deadline_seconds": 60}), "social_task.deadline_seconds cannot be given with deadline"),
        (json!({"deadline_seconds": 0}), "social_task.deadline_seconds must be a positive integer"),
        (json!({"deadline_seconds": 60, "quorum": -1}), "social_task.quorum must be a positive integer"),
        (json!({"quorum": 2}), "social_task.quorum needs a deadline"),
        (json!({"deadline_seconds": 60, "quorum": 4}), "social_task.quorum must be at most the number of distinct org_ids (3), got 4"),
        (json!({"vote_changes": "twice"}), "social_task.vote_changes must be a positive integer"),
        (json!({"vote_changes": 2}), "social_task.vote_changes is not supported yet: a voter cannot replace a vote"),
        (json!({"weights": [1, 2]}), "social_task.weights must be an object"),
        (json!({"weights": {"agent-reviewer-01": 0}}), "social_task.weights.agent-reviewer-01 must be a number from 1e-9 to 1e9, got 0"),
        (
            json!({"weights": {"agent-reviewer-01": 1e10}}),
            "social_task.weights.agent-reviewer-01 must be a number from 1e-9 to 1e9, got 10000000000.0",
        ),
        (json!({"weights": {"agent-reviewer-01": "heavy"}}), "social_task.weights.agent-reviewer-01 must be a number from 1e-9 to 1e9"),
        (json!({"weights": {"stranger": 2}}), "social_task.weights.stranger is not a member of org_ids"),
        (json!({"weights": {"mode": "function"}}), "social_task.weights is not a valid function spec"),
    ];
    for (options, want) in cases {
        let got = refuse(&with_options(options.clone()));
        assert!(got.contains(want), "{options}: got {got:?}, want {want:?}");
    }
}

#[test]
fn public_task_limits_its_options_by_duration_and_refuses_a_weights_map() {
    let got = refuse(&public(with_options(json!({"deadline_seconds": 60, "quorum": 5}))));
    assert!(got.contains("social_task.quorum must be at most duration (4), got 5"), "{got}");
    let got = refuse(&public(with_options(json!({"weights": {"someone": 2}}))));
    assert!(got.contains("social_task.weights a map of voters' weights is for private tasks"), "{got}");
}

#[test]
fn options_and_a_hand_written_properties_voting_are_refused_together() {
    let mut body = with_options(json!({"deadline_seconds": 60}));
    body["social_task"]["properties"]["voting"] = json!({"mine": true});
    let got = refuse(&body);
    assert!(got.contains("social_task.properties.voting is where the voting options (deadline_seconds) are stored"), "{got}");
    // Without options, the creator's own properties.voting is stored as given.
    let mut body = create_request();
    body["social_task"]["properties"]["voting"] = json!({"mine": true});
    let bundle = parse_create_request(&body, ID).unwrap();
    assert_eq!(bundle.task.social_task_properties["voting"], json!({"mine": true}));
    assert!(bundle.task.options().is_empty());
}
