//! The builtins with the schema: creation refuses an unknown builtin or a bad parameter naming
//! the field, and the entry points run §4's inputs and answer §4's outputs.

use agora_orcade_rules::{builtin, run_evaluator, run_pqt, Builtin, Catalogue, RuleError};
use agora_orcade_schema::{parse_bid_job_patch, parse_create_request, Bid, BidJob, Entity, EvaluatorInput, Hook, PqtInput, PqtVerdict};
use chrono::{TimeZone, Utc};
use serde_json::{json, Value};

fn example(name: &str) -> Value {
    let text = match name {
        "job" => include_str!("../../../../examples/stored/orcade/bid_job_closed.json"),
        _ => include_str!("../../../../examples/stored/orcade/bid.json"),
    };
    serde_json::from_str(text).unwrap()
}

fn request(pqt: &str, evaluator: &str, parameters: Value) -> Value {
    json!({
        "bid_job_metadata": {"parameters": parameters},
        "bid_job_description": {},
        "bid_job_name": {"en": "Translate"},
        "bid_job_evaluator_id": evaluator,
        "bid_job_pqt_id": pqt,
        "bid_job_creator_id": "planner-service",
        "bid_job_subject_ids": ["agent-translator-01"]
    })
}

fn create(body: &Value) -> Result<BidJob, Vec<(String, String)>> {
    let now = Utc.with_ymd_and_hms(2026, 9, 9, 10, 0, 0).unwrap();
    parse_create_request(body, "job-1", now, &Catalogue).map_err(|e| e.0.into_iter().map(|f| (f.path, f.message)).collect())
}

#[test]
fn every_builtin_pair_is_accepted_with_its_parameters() {
    let parameters = json!({"fields": ["price_usd", "eta_hours"], "min": 0.8});
    for pqt in ["", "builtin:required-fields", "builtin:min-confidence"] {
        for evaluator in ["builtin:lowest-price", "builtin:highest-score", "builtin:earliest-bid"] {
            assert!(create(&request(pqt, evaluator, parameters.clone())).is_ok(), "{pqt} / {evaluator}");
        }
    }
}

#[test]
fn an_unknown_or_misplaced_builtin_is_a_400_naming_the_field() {
    let e = create(&request("builtin:min-confidense", "builtin:lowest-price", json!({"min": 0.8}))).unwrap_err();
    assert_eq!(e.len(), 1);
    assert_eq!(e[0].0, "bid_job_pqt_id");
    assert!(e[0].1.contains("names no builtin \"min-confidense\""), "{}", e[0].1);
    let e = create(&request("", "builtin:min-confidence", json!({"min": 0.8}))).unwrap_err();
    assert_eq!(e[0].0, "bid_job_evaluator_id");
    assert_eq!(
        e[0].1,
        "names builtin:min-confidence, which is for the PQT, not the evaluator: the evaluator builtins are builtin:lowest-price, builtin:highest-score, builtin:earliest-bid"
    );
    // Both wrong: both named.
    let e = create(&request("builtin:x", "builtin:y", json!({}))).unwrap_err();
    assert_eq!(e.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>(), ["bid_job_pqt_id", "bid_job_evaluator_id"]);
}

#[test]
fn bad_parameters_are_a_400_naming_the_parameter() {
    let e = create(&request("builtin:min-confidence", "builtin:lowest-price", json!({"min": "high"}))).unwrap_err();
    assert_eq!(e, [("bid_job_metadata.parameters.min".to_owned(), "must be a number, got a string".to_owned())]);
    let e = create(&request("builtin:required-fields", "builtin:lowest-price", json!({"fields": ["a", 1]}))).unwrap_err();
    assert_eq!(e[0].0, "bid_job_metadata.parameters.fields[1]");
    let e = create(&request("builtin:required-fields", "builtin:lowest-price", json!([]))).unwrap_err();
    assert_eq!(e, [("bid_job_metadata.parameters".to_owned(), "must be an object, got an array".to_owned())]);
}

#[test]
fn a_patch_that_breaks_a_builtin_is_refused() {
    let job = create(&request("builtin:min-confidence", "builtin:lowest-price", json!({"min": 0.8}))).unwrap();
    let stored = serde_json::to_value(&job).unwrap().as_object().unwrap().clone();
    let parse_bid_job_patch = |body: &serde_json::Value, job, builtins| parse_bid_job_patch(body, job, &stored, builtins);
    let e = parse_bid_job_patch(&json!({"bid_job_metadata.parameters.min": null}), &job, &Catalogue).unwrap_err();
    assert_eq!(e.0[0].path, "bid_job_metadata.parameters.min");
    assert!(parse_bid_job_patch(&json!({"bid_job_metadata.parameters.min": 0.5}), &job, &Catalogue).is_ok());
    let e = parse_bid_job_patch(&json!({"bid_job_evaluator_id": "builtin:cheapest"}), &job, &Catalogue).unwrap_err();
    assert_eq!(e.0[0].path, "bid_job_evaluator_id");
}

#[test]
fn the_spec_example_bid_through_both_pqts() {
    let mut job = BidJob::from_dict(&example("job")).unwrap();
    job.bid_job_metadata.insert("parameters".into(), json!({"fields": ["price_usd", "eta_hours"], "min": 0.8}));
    let bid = Bid::from_dict(&example("bid")).unwrap();
    let input = PqtInput { bid_job: &job, bid: &bid };
    for name in ["required-fields", "min-confidence"] {
        let v = run_pqt(name, &input).unwrap();
        assert!(v.accepted, "{name}: {}", v.reason);
        assert_eq!(PqtVerdict::from_output(&v.to_output()).unwrap(), v);
    }
    job.bid_job_metadata.insert("parameters".into(), json!({"min": 0.95}));
    let input = PqtInput { bid_job: &job, bid: &bid };
    assert_eq!(
        run_pqt("min-confidence", &input).unwrap().to_output(),
        json!({"accepted": false, "reason": "confidence 0.92 is below the minimum 0.95"})
    );
    // Parameters broken after creation: the PQT errs, which refuses the bid.
    assert!(matches!(run_pqt("required-fields", &input), Err(RuleError::BadParameter { .. })));
    assert!(matches!(run_pqt("lowest-price", &input), Err(RuleError::WrongHook { hook: Hook::Pqt, .. })));
    assert!(matches!(run_pqt("nope", &input), Err(RuleError::Unknown { .. })));
}

#[test]
fn the_spec_example_bid_wins_its_job() {
    let job = BidJob::from_dict(&example("job")).unwrap();
    let bid = Bid::from_dict(&example("bid")).unwrap();
    let bids = [bid];
    let input = EvaluatorInput { bid_job: &job, bids: &bids };
    let out = run_evaluator("lowest-price", &input).unwrap().to_output();
    assert_eq!(out["winner_subject_id"], "agent-translator-01");
    assert_eq!(out["status"], "resolved");
    assert_eq!(out["result_data"]["winning_bid_id"], "3c7c3e2a-2d1a-4e2d-9a3b-6d2f9e6b0d4c");
    assert_eq!(out["result_data"]["price_usd"], json!(120.0));
    assert_eq!(run_evaluator("highest-score", &input).unwrap().to_output()["status"], "no_valid_bids");
    assert_eq!(run_evaluator("earliest-bid", &input).unwrap().winner(), Some("agent-translator-01"));
    assert!(matches!(run_evaluator("min-confidence", &input), Err(RuleError::WrongHook { hook: Hook::Evaluator, .. })));
    let mut broken = job.clone();
    broken.bid_job_metadata.insert("parameters".into(), json!(3));
    let input = EvaluatorInput { bid_job: &broken, bids: &bids };
    assert_eq!(
        run_evaluator("earliest-bid", &input).unwrap_err().to_string(),
        "bid_job_metadata.parameters must be an object, got a number"
    );
}

#[test]
fn the_lookup_says_which_names_exist() {
    assert_eq!(builtin("lowest-price"), Some(Builtin::LowestPrice));
    assert_eq!(builtin("lowest-price").map(Builtin::hook), Some(Hook::Evaluator));
    assert_eq!(builtin("plurality"), None, "voting's builtins are not Orcade's");
    assert_eq!(Builtin::ALL.len(), 5);
}
