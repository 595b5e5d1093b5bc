//! PATCH bodies: the spec's raw `$set` (any field, dotted paths), the ids and status-machine
//! fields refused by name, the entity's own values checked as at creation and against the
//! document as it is.

mod common;

use agora_orcade_schema::{parse_bid_job_patch, parse_bid_patch, Bid, BidJob, Entity, Patch, ValidationErrors};
use common::*;
use serde_json::{json, Map, Value};

fn job() -> BidJob {
    BidJob::from_dict(&doc(CLOSED_JOB)).unwrap()
}

/// The document as stored: the entity's fields, and any set by an earlier PATCH.
fn stored(entity: &impl serde::Serialize, extra: Value) -> Map<String, Value> {
    let mut m = serde_json::to_value(entity).unwrap().as_object().unwrap().clone();
    m.extend(extra.as_object().unwrap().clone());
    m
}

fn patch_job(body: Value) -> Result<Patch, ValidationErrors> {
    parse_bid_job_patch(&body, &job(), &stored(&job(), json!({})), &Catalogue)
}

fn patch_of(job: &BidJob, body: Value) -> Result<Patch, ValidationErrors> {
    parse_bid_job_patch(&body, job, &stored(job, json!({})), &Catalogue)
}

fn patch_bid(body: Value, current: &Bid) -> Result<Patch, ValidationErrors> {
    parse_bid_patch(&body, current, &stored(current, json!({"colour": "red"})))
}

#[track_caller]
fn job_refused_on(body: Value, path: &str, says: &str) {
    refused(patch_job(body), path, says)
}

#[track_caller]
fn refused(result: Result<Patch, ValidationErrors>, path: &str, says: &str) {
    let errors = result.expect_err("accepted").0;
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].path, path, "{errors:?}");
    assert!(errors[0].message.contains(says), "{path}: {:?} does not say {says:?}", errors[0].message);
}

#[test]
fn dotted_paths_and_whole_fields_are_set_in_the_body_s_order() {
    let p = patch_job(json!({
        "bid_job_metadata.priority": "low",
        "bid_job_name": {"en": "Translate Q3 report", "fr": "Traduire"},
        "bid_job_description.extra.deep": [1, 2],
        "bid_job_creator_id": "someone-else",
        "bid_job_tie_id": ""
    }))
    .unwrap();
    let keys: Vec<&str> = p.set.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["bid_job_metadata.priority", "bid_job_name", "bid_job_description.extra.deep", "bid_job_creator_id", "bid_job_tie_id"]
    );
    assert_eq!(p.set["bid_job_description.extra.deep"], json!([1, 2]));
}

#[test]
fn the_id_and_the_status_machine_cannot_be_patched() {
    job_refused_on(json!({"bid_job_id": "x"}), "bid_job_id", "it is the job's id");
    job_refused_on(json!({"_id": "x"}), "_id", "the store's key");
    job_refused_on(json!({"bid_job_status": "closed"}), "bid_job_status", "POST /bid-jobs/{id}/close");
    for field in ["bid_job_mode", "bid_job_max_subjects", "bid_job_max_time", "bid_job_created_time", "bid_job_closes_at"] {
        job_refused_on(json!({field: null}), field, "cannot be set by PATCH: it decides when the job closes");
    }
    job_refused_on(json!({"bid_job_subject_ids.x": "a"}), "bid_job_subject_ids.x", "set it whole");
    let mut d = doc(CLOSED_JOB);
    (d["bid_job_mode"], d["bid_job_subject_ids"], d["bid_job_max_subjects"]) = (json!("open"), json!([]), json!(2));
    let open = BidJob::from_dict(&d).unwrap();
    refused(patch_of(&open, json!({"bid_job_subject_ids": ["a"]})), "bid_job_subject_ids", "the service fills an open job's roster");
    // Each refused field is named, all at once.
    let errors = patch_job(json!({"bid_job_id": "x", "bid_job_status": "closed", "bid_job_name": {}})).unwrap_err().0;
    assert_eq!(errors.iter().map(|e| e.path.as_str()).collect::<Vec<_>>(), ["bid_job_id", "bid_job_status"]);
}

#[test]
fn values_are_checked_as_at_creation() {
    job_refused_on(json!({"bid_job_metadata": "x"}), "bid_job_metadata", "must be an object, got a string");
    job_refused_on(json!({"bid_job_evaluator_id": ""}), "bid_job_evaluator_id", "must not be empty");
    job_refused_on(json!({"bid_job_pqt_id": 3}), "bid_job_pqt_id", "must be a function id string");
    job_refused_on(json!({"bid_job_creator_id": " c"}), "bid_job_creator_id", "whitespace");
    job_refused_on(json!({"bid_job_tags": ["ok", ""]}), "bid_job_tags[1]", "must be a non-empty string");
    job_refused_on(json!({"bid_job_name": null}), "bid_job_name", "cannot be null");
    let p = patch_job(json!({"bid_job_tags": [" a ", "a", "b"], "bid_job_pqt_id": " builtin:required-fields ", "bid_job_metadata.parameters": {"fields": []}})).unwrap();
    assert_eq!(p.set["bid_job_tags"], json!(["a", "b"]));
    assert_eq!(p.set["bid_job_pqt_id"], json!("builtin:required-fields"));
    // Below an object field any value may be set, null included.
    assert!(patch_job(json!({"bid_job_metadata.priority": null})).is_ok());
}

#[test]
fn fields_the_job_does_not_define_are_set_as_given() {
    let p = patch_job(json!({"bid_job_priority": "x", "review": {"by": "ops"}, "notes.first": null, "gone": null})).unwrap();
    assert_eq!(Value::Object(p.set), json!({"bid_job_priority": "x", "review": {"by": "ops"}, "notes.first": null, "gone": null}));
    // Below a field set earlier, through objects only.
    let earlier = stored(&job(), json!({"review": {"by": "ops"}, "label": "x"}));
    assert!(parse_bid_job_patch(&json!({"review.when": "now"}), &job(), &earlier, &Catalogue).is_ok());
    refused(parse_bid_job_patch(&json!({"label.en": "x"}), &job(), &earlier, &Catalogue), "label.en", "label holds a string");
    job_refused_on(json!({"$set": {"a": 1}}), "$set", "starts with '$'");
    job_refused_on(json!({"a.$b": 1}), "a.$b", "starts with '$'");
    job_refused_on(json!({"a..b": 1}), "a..b", "empty segment");
    job_refused_on(json!({"a\u{0}b": 1}), "a\u{0}b", "NUL");
    job_refused_on(json!({"a": 1, "a.b": 2}), "a.b", "overlaps a");
}

#[test]
fn a_closed_job_s_roster_may_be_replaced() {
    let p = patch_job(json!({"bid_job_subject_ids": ["agent-translator-01", "agent-new", "agent-new"]})).unwrap();
    assert_eq!(p.set["bid_job_subject_ids"], json!(["agent-translator-01", "agent-new"]));
    assert_eq!(p.roster.as_deref(), Some(&["agent-translator-01".to_owned(), "agent-new".to_owned()][..]));
    job_refused_on(json!({"bid_job_subject_ids": []}), "bid_job_subject_ids", "at least one subject for a closed job");
    job_refused_on(json!({"bid_job_subject_ids": "a"}), "bid_job_subject_ids", "must be an array");
    job_refused_on(json!({"bid_job_subject_ids": ["a", " b"]}), "bid_job_subject_ids[1]", "whitespace");
    // A mixed job's roster tags follow its roster; the creator's tags stay.
    let mut d = doc(CLOSED_JOB);
    d["bid_job_mode"] = json!("mixed");
    d["bid_job_tags"] =
        json!(["translation", "subject::agent-translator-01", "subject::agent-translator-02", "subject::agent-translator-03"]);
    let mixed = BidJob::from_dict(&d).unwrap();
    let p = patch_of(&mixed, json!({"bid_job_subject_ids": ["agent-translator-02", "agent-new"]})).unwrap();
    assert_eq!(p.set["bid_job_tags"], json!(["translation", "subject::agent-translator-02", "subject::agent-new"]));
    let p = patch_of(&mixed, json!({"bid_job_subject_ids": ["agent-new"], "bid_job_tags": ["subject::agent-new", "x"]})).unwrap();
    assert_eq!(p.set["bid_job_tags"], json!(["subject::agent-new", "x"]));
    refused(
        patch_of(&mixed, json!({"bid_job_subject_ids": ["agent-new"], "bid_job_tags": ["subject::agent-translator-01"]})),
        "bid_job_tags[0]",
        "not on it",
    );
}

#[test]
fn paths_the_store_would_refuse_are_named() {
    job_refused_on(json!({"bid_job_metadata..x": 1}), "bid_job_metadata..x", "empty segment");
    job_refused_on(json!({"bid_job_metadata.$set": 1}), "bid_job_metadata.$set", "starts with '$'");
    job_refused_on(json!({"bid_job_metadata.list.0": 1}), "bid_job_metadata.list.0", "array position");
    job_refused_on(
        json!({"bid_job_metadata.priority.level": 1}),
        "bid_job_metadata.priority.level",
        "bid_job_metadata.priority holds a string",
    );
    job_refused_on(json!({"bid_job_creator_id.x": 1}), "bid_job_creator_id.x", "bid_job_creator_id is not an object; set it whole");
    job_refused_on(json!({"bid_job_tags.x": "a"}), "bid_job_tags.x", "set it whole");
    job_refused_on(json!({"bid_job_metadata": {}, "bid_job_metadata.x": 1}), "bid_job_metadata.x", "overlaps bid_job_metadata");
    job_refused_on(json!({}), "", "must set at least one field");
}

#[test]
fn a_mixed_job_keeps_its_roster_tags() {
    let mut d = doc(CLOSED_JOB);
    d["bid_job_mode"] = json!("mixed");
    let mixed = BidJob::from_dict(&d).unwrap();
    let p = patch_of(&mixed, json!({"bid_job_tags": ["new"]})).unwrap();
    assert_eq!(
        p.set["bid_job_tags"],
        json!(["new", "subject::agent-translator-01", "subject::agent-translator-02", "subject::agent-translator-03"])
    );
    refused(patch_of(&mixed, json!({"bid_job_tags": ["subject::x"]})), "bid_job_tags[0]", "not on it");
}

#[test]
fn a_changed_builtin_is_checked_again_with_the_result_s_parameters() {
    job_refused_on(json!({"bid_job_evaluator_id": "builtin:nope"}), "bid_job_evaluator_id", "names no builtin");
    job_refused_on(json!({"bid_job_pqt_id": "builtin:required-fields"}), "bid_job_metadata.parameters.fields", "must be an array");
    assert!(patch_job(json!({"bid_job_pqt_id": "builtin:required-fields", "bid_job_metadata.parameters.fields": ["price_usd"]})).is_ok());
    // A job whose PQT is a builtin: breaking its parameters is refused.
    let mut d = doc(CLOSED_JOB);
    d["bid_job_pqt_id"] = json!("builtin:required-fields");
    d["bid_job_metadata"]["parameters"] = json!({"fields": ["price_usd"]});
    let screened = BidJob::from_dict(&d).unwrap();
    let patch = |body: Value| patch_of(&screened, body);
    refused(patch(json!({"bid_job_metadata.parameters.fields": "price_usd"})), "bid_job_metadata.parameters.fields", "must be an array");
    refused(patch(json!({"bid_job_metadata": {}})), "bid_job_metadata.parameters.fields", "must be an array");
    refused(patch(json!({"bid_job_metadata.parameters": 5})), "bid_job_metadata.parameters", "must be an object, got a number");
    assert!(patch(json!({"bid_job_metadata.priority": "low"})).is_ok());
}

fn bid() -> Bid {
    Bid::from_dict(&doc(BID)).unwrap()
}

#[test]
fn a_bid_s_data_may_change_but_not_its_identity_or_verdict() {
    let p = patch_bid(json!({"bid_data.price_usd": 99.5, "bid_data.plan.steps": 3}), &bid()).unwrap();
    assert_eq!(p.set.len(), 2);
    for (field, says) in [
        ("bid_id", "it identifies the bid"),
        ("_id", "it identifies the bid"),
        ("bid_job_id", "it identifies the bid"),
        ("bid_subject_id", "it identifies the bid"),
        ("submission_time", "orders ties"),
        ("is_winner", "only the evaluation awards a bid"),
    ] {
        refused(patch_bid(json!({field: true}), &bid()), field, says);
    }
    refused(patch_bid(json!({"bid_data.bid_rejected": false}), &bid()), "bid_data.bid_rejected", "the PQT's verdict");
    refused(patch_bid(json!({"bid_data": {"pqt_reason": "x"}}), &bid()), "bid_data.pqt_reason", "the PQT's verdict");
    refused(patch_bid(json!({"bid_data": 1}), &bid()), "bid_data", "must be an object");
    refused(patch_bid(json!({"bid_data.price_usd.cents": 1}), &bid()), "bid_data.price_usd.cents", "holds a number");
    // Fields the bid does not define are set as given, below objects only.
    let p = patch_bid(json!({"note": "fast", "extra.depth": 1, "colour": null}), &bid()).unwrap();
    assert_eq!(Value::Object(p.set), json!({"note": "fast", "extra.depth": 1, "colour": null}));
    refused(patch_bid(json!({"colour.shade": 1}), &bid()), "colour.shade", "colour holds a string");
}

#[test]
fn a_refused_bid_stays_refused_when_its_data_is_replaced() {
    let mut refused_bid = bid();
    refused_bid.reject("confidence 0.5 is below the minimum 0.8");
    let p = patch_bid(json!({"bid_data": {"price_usd": 1.0}}), &refused_bid).unwrap();
    assert_eq!(p.set["bid_data"], json!({"price_usd": 1.0, "bid_rejected": true, "pqt_reason": "confidence 0.5 is below the minimum 0.8"}));
    let p = patch_bid(json!({"bid_data": {"price_usd": 1.0}}), &bid()).unwrap();
    assert_eq!(p.set["bid_data"], json!({"price_usd": 1.0}));
}

#[test]
fn ids_and_tags_are_bounded_as_at_creation() {
    let says = "must be at most 128 characters, got 129";
    assert_eq!(patch_job(json!({"bid_job_creator_id": "c".repeat(128)})).unwrap().set["bid_job_creator_id"], json!("c".repeat(128)));
    job_refused_on(json!({"bid_job_creator_id": "c".repeat(129)}), "bid_job_creator_id", says);
    let tags: Vec<String> = (0..64).map(|i| format!("{i:t<128}")).collect();
    assert_eq!(patch_job(json!({"bid_job_tags": tags})).unwrap().set["bid_job_tags"], json!(tags));
    job_refused_on(json!({"bid_job_tags": ["ok", "t".repeat(129)]}), "bid_job_tags[1]", says);
    job_refused_on(json!({"bid_job_tags": vec!["t"; 65]}), "bid_job_tags", "must hold at most 64 entries, got 65");
    // A mixed job's roster tags are not counted: 64 tags of the client's and the roster's 3.
    let mut d = doc(CLOSED_JOB);
    d["bid_job_mode"] = json!("mixed");
    let mixed = BidJob::from_dict(&d).unwrap();
    let mut given = tags.clone();
    given.push("subject::agent-translator-01".into());
    let p = patch_of(&mixed, json!({"bid_job_tags": given})).unwrap();
    assert_eq!(p.set["bid_job_tags"].as_array().unwrap().len(), 67);
}

#[test]
fn a_key_with_a_nul_or_a_leading_dollar_inside_a_set_value_is_refused_by_its_full_path() {
    job_refused_on(json!({"bid_job_metadata.extra": {"a\u{0}b": 1}}), "bid_job_metadata.extra.a\u{0}b", "holds a NUL character");
    job_refused_on(json!({"bid_job_name": {"$set": {"x": 1}}}), "bid_job_name.$set", "starts with '$'");
    job_refused_on(json!({"colour": [{"$in": 1}]}), "colour[0].$in", "starts with '$'");
    // In a path: as before, by the path.
    job_refused_on(json!({"bid_job_metadata.a\u{0}b": 1}), "bid_job_metadata.a\u{0}b", "NUL");
    let bid = Bid::from_dict(&doc(BID)).unwrap();
    refused(patch_bid(json!({"bid_data": {"n": {"\u{0}": 1}}}), &bid), "bid_data.n.\u{0}", "holds a NUL character");
    refused(patch_bid(json!({"bid_data.offer": {"$gt": 1}}), &bid), "bid_data.offer.$gt", "starts with '$'");
    assert!(patch_bid(json!({"bid_data.offer": {"a.b": "$x"}}), &bid).is_ok());
}
