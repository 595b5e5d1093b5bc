//! `POST /bid-jobs`: the three modes, null = omitted, tag normalisation, closes_at, and every
//! refusal naming its field.

mod common;

use agora_orcade_schema::{parse_create_request, BidJob, BidJobMode, BidJobStatus, Entity, ValidationErrors};
use chrono::{Duration, TimeZone, Utc};
use common::*;
use serde_json::{json, Value};

const ID: &str = "8f14e45f-ceea-4a19-8f6e-8b5a9c1a9f10";

fn parse(body: &Value) -> Result<BidJob, ValidationErrors> {
    parse_create_request(body, ID, created(), &Catalogue)
}

/// The refusal's field errors as `(path, message)`.
#[track_caller]
fn refuse(body: &Value) -> Vec<(String, String)> {
    match parse(body) {
        Ok(job) => panic!("accepted: {}", job.to_dict()),
        Err(e) => {
            assert!(!e.0.is_empty(), "a refusal without a message");
            e.0.into_iter().map(|f| (f.path, f.message)).collect()
        }
    }
}

/// Refused with exactly one error, on `path`, whose message contains `says`.
#[track_caller]
fn refused_on(body: &Value, path: &str, says: &str) {
    let errors = refuse(body);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, path, "{errors:?}");
    assert!(errors[0].1.contains(says), "{path}: {:?} does not say {says:?}", errors[0].1);
}

// ---- accepted ------------------------------------------------------------------------------

#[test]
fn the_closed_example_request_gives_the_closed_example_document() {
    let job = parse(&closed_request()).unwrap();
    assert_same_doc(&job.to_dict(), &doc(CLOSED_JOB));
}

#[test]
fn a_whole_to_dict_posted_back_gives_the_same_document() {
    // Clients post `BidJob(...).to_dict()`: the service's fields are tolerated and set anew.
    let mut body = doc(CLOSED_JOB);
    body["bid_job_created_time"] = json!("2020-01-01T00:00:00");
    let job = parse(&body).unwrap();
    assert_same_doc(&job.to_dict(), &doc(CLOSED_JOB));
    let later = created() + Duration::hours(1);
    let open = parse_create_request(&doc(OPEN_JOB).tap_remove("bid_job_subject_ids"), "x", later, &Catalogue).unwrap();
    assert_eq!(open.bid_job_id, "c2d7f1a0-4e3b-4f19-9a52-7b8e1d6c0a33", "a client's id is kept");
    assert_eq!(open.bid_job_created_time, later);
    assert_eq!(open.bid_job_closes_at, Some(later + Duration::seconds(3600)));
    assert!(open.bid_job_subject_ids.is_empty());
}

trait TapRemove {
    fn tap_remove(self, key: &str) -> Self;
}

impl TapRemove for Value {
    fn tap_remove(mut self, key: &str) -> Self {
        self.as_object_mut().unwrap().shift_remove(key);
        self
    }
}

#[test]
fn defaults_fill_what_is_omitted() {
    let body = json!({
        "bid_job_metadata": {}, "bid_job_description": {}, "bid_job_name": {},
        "bid_job_evaluator_id": "lowest-cost-evaluator:1.0-stable", "bid_job_creator_id": "c",
        "bid_job_subject_ids": ["a"]
    });
    let job = parse(&body).unwrap();
    assert_eq!(job.bid_job_id, ID);
    assert_eq!(job.bid_job_mode, BidJobMode::Closed);
    assert_eq!(job.bid_job_status, BidJobStatus::Open);
    assert_eq!((job.bid_job_pqt_id.as_str(), job.bid_job_tie_id.as_str()), ("", ""));
    assert!(job.bid_job_tags.is_empty());
    assert_eq!((job.bid_job_max_subjects, job.bid_job_max_time, job.bid_job_closes_at), (None, None, None));
}

#[test]
fn an_explicit_null_is_the_same_as_omitting_the_field() {
    let optional = [
        "bid_job_id",
        "bid_job_pqt_id",
        "bid_job_tie_id",
        "bid_job_mode",
        "bid_job_max_subjects",
        "bid_job_max_time",
        "bid_job_tags",
        "bid_job_status",
        "bid_job_created_time",
        "bid_job_closes_at",
    ];
    let mut with_nulls = closed_request();
    for k in optional {
        with_nulls[k] = Value::Null;
    }
    let mut omitted = closed_request();
    for k in optional {
        omitted.as_object_mut().unwrap().shift_remove(k);
    }
    assert_same_doc(&parse(&with_nulls).unwrap().to_dict(), &parse(&omitted).unwrap().to_dict());
    // Open: null subjects, and a null limit beside a set one.
    let open = with(with(open_request(), "bid_job_subject_ids", Some(Value::Null)), "bid_job_max_subjects", Some(Value::Null));
    assert_eq!(parse(&open).unwrap().bid_job_max_subjects, None);
    // Null for a required field is "required".
    refused_on(&with(closed_request(), "bid_job_creator_id", Some(Value::Null)), "bid_job_creator_id", "is required");
}

#[test]
fn open_jobs_close_by_count_or_time() {
    let job = parse(&open_request()).unwrap();
    assert_eq!(job.bid_job_mode, BidJobMode::Open);
    assert_eq!(job.bid_job_closes_at, Some(Utc.with_ymd_and_hms(2026, 9, 9, 11, 0, 0).unwrap()));
    assert_eq!(job.to_dict()["bid_job_closes_at"], json!("2026-09-09T11:00:00.000000+00:00"));
    let by_count = with(with(open_request(), "bid_job_max_time", None), "bid_job_max_subjects", Some(json!(5)));
    let job = parse(&by_count).unwrap();
    assert_eq!((job.bid_job_max_subjects, job.bid_job_closes_at), (Some(5), None));
    let empty_roster = with(open_request(), "bid_job_subject_ids", Some(json!([])));
    assert!(parse(&empty_roster).unwrap().bid_job_subject_ids.is_empty());
}

#[test]
fn closes_at_keeps_the_creation_microseconds() {
    let now = created() + Duration::microseconds(123_456) + Duration::nanoseconds(789);
    let job = parse_create_request(&open_request(), ID, now, &Catalogue).unwrap();
    assert_eq!(job.bid_job_created_time, created() + Duration::microseconds(123_456));
    assert_eq!(job.to_dict()["bid_job_closes_at"], json!("2026-09-09T11:00:00.123456+00:00"));
    let round = BidJob::from_dict(&job.to_dict()).unwrap();
    assert_eq!(round, job);
}

#[test]
fn a_mixed_job_tags_each_roster_member() {
    let body = with(closed_request(), "bid_job_mode", Some(json!("mixed")));
    let job = parse(&body).unwrap();
    assert_eq!(job.bid_job_mode, BidJobMode::Mixed);
    assert_eq!(
        job.bid_job_tags,
        ["translation", "fr", "subject::agent-translator-01", "subject::agent-translator-02", "subject::agent-translator-03"]
    );
    // Without tags, and with a roster member's tag already given (kept where it is, not doubled).
    let body = with(with(body, "bid_job_tags", None), "bid_job_subject_ids", Some(json!(["a", "b"])));
    assert_eq!(parse(&body).unwrap().bid_job_tags, ["subject::a", "subject::b"]);
    let body = with(body, "bid_job_tags", Some(json!(["subject::b", "x"])));
    assert_eq!(parse(&body).unwrap().bid_job_tags, ["subject::b", "x", "subject::a"]);
}

#[test]
fn tags_are_stripped_and_deduplicated_in_order() {
    let body = with(closed_request(), "bid_job_tags", Some(json!(["  fr", "translation ", "fr", "FR", "\ttranslation\n"])));
    assert_eq!(parse(&body).unwrap().bid_job_tags, ["fr", "translation", "FR"]);
}

#[test]
fn rosters_drop_duplicate_subjects() {
    let body = with(closed_request(), "bid_job_subject_ids", Some(json!(["b", "a", "b"])));
    assert_eq!(parse(&body).unwrap().bid_job_subject_ids, ["b", "a"]);
}

// ---- refused, naming the field --------------------------------------------------------------

#[test]
fn each_required_field_is_named_when_missing() {
    for key in ["bid_job_evaluator_id", "bid_job_creator_id"] {
        refused_on(&with(closed_request(), key, None), key, "is required");
    }
}

#[test]
fn the_free_form_objects_may_be_left_out() {
    for key in ["bid_job_metadata", "bid_job_description", "bid_job_name"] {
        for absent in [None, Some(Value::Null)] {
            let job = parse(&with(closed_request(), key, absent.clone())).unwrap();
            let stored = serde_json::to_value(&job).unwrap();
            assert_eq!(stored[key], json!({}), "{key} as {absent:?}");
        }
        refused_on(&with(closed_request(), key, Some(json!("x"))), key, "must be an object, got a string");
        refused_on(&with(closed_request(), key, Some(json!([]))), key, "must be an object, got an array");
    }
}

#[test]
fn all_problems_are_reported_at_once() {
    let body = json!({"bid_job_mode": "closed", "bid_job_tags": [""], "bid_job_max_time": 0});
    let paths: Vec<String> = refuse(&body).into_iter().map(|(p, _)| p).collect();
    for want in ["bid_job_evaluator_id", "bid_job_creator_id", "bid_job_subject_ids", "bid_job_max_time", "bid_job_tags[0]"] {
        assert!(paths.iter().any(|p| p == want), "{want} not in {paths:?}");
    }
    let message = parse(&body).unwrap_err().to_string();
    assert!(message.contains("bid_job_evaluator_id is required; "), "{message}");
}

#[test]
fn wrong_types_say_what_was_expected_and_what_came() {
    let cases = [
        ("bid_job_metadata", json!("x"), "must be an object, got a string"),
        ("bid_job_name", json!("Translate"), "must be an object, got a string"),
        ("bid_job_evaluator_id", json!(3), "must be a function id string, got a number"),
        ("bid_job_pqt_id", json!(false), "must be a function id string (\"\" for none), got a boolean"),
        ("bid_job_creator_id", json!({}), "must be a string, got an object"),
        ("bid_job_subject_ids", json!("a"), "must be an array of subject ids, got a string"),
        ("bid_job_mode", json!(1), "must be \"closed\", \"open\" or \"mixed\", got a number"),
        ("bid_job_tags", json!("fr"), "must be an array of non-empty strings, got a string"),
        ("bid_job_id", json!(7), "must be a string, got a number"),
    ];
    for (key, value, says) in cases {
        refused_on(&with(closed_request(), key, Some(value)), key, says);
    }
}

#[test]
fn a_closed_job_needs_a_roster_and_no_limits() {
    refused_on(&with(closed_request(), "bid_job_subject_ids", None), "bid_job_subject_ids", "is required for a closed job");
    refused_on(
        &with(closed_request(), "bid_job_subject_ids", Some(json!([]))),
        "bid_job_subject_ids",
        "must name at least one subject for a closed job",
    );
    refused_on(&with(closed_request(), "bid_job_max_subjects", Some(json!(3))), "bid_job_max_subjects", "must be omitted for a closed job");
    refused_on(&with(closed_request(), "bid_job_max_time", Some(json!(60))), "bid_job_max_time", "must be omitted for a closed job");
    let mixed = with(with(closed_request(), "bid_job_mode", Some(json!("mixed"))), "bid_job_subject_ids", None);
    refused_on(&mixed, "bid_job_subject_ids", "is required for a mixed job");
}

#[test]
fn an_open_job_takes_no_roster_and_needs_a_limit() {
    refused_on(
        &with(open_request(), "bid_job_subject_ids", Some(json!(["a"]))),
        "bid_job_subject_ids",
        "must not be supplied for an open job",
    );
    refused_on(&with(open_request(), "bid_job_max_time", None), "bid_job_max_subjects", "or bid_job_max_time is required for an open job");
}

#[test]
fn a_limit_below_one_is_refused() {
    for (key, value) in [
        ("bid_job_max_subjects", json!(0)),
        ("bid_job_max_time", json!(-5)),
        ("bid_job_max_time", json!(1.5)),
        ("bid_job_max_subjects", json!("5")),
    ] {
        let got = refuse(&with(open_request(), key, Some(value.clone())));
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0], (key.to_owned(), format!("must be an integer of at least 1, got {value}")));
    }
    refused_on(&with(open_request(), "bid_job_max_time", Some(json!(3_155_760_001_i64))), "bid_job_max_time", "must be at most 3155760000");
    assert!(parse(&with(open_request(), "bid_job_max_time", Some(json!(3_155_760_000_i64)))).is_ok());
}

#[test]
fn an_empty_tag_is_refused_by_position() {
    for tag in [json!(""), json!("   "), json!(null), json!(4)] {
        let body = with(closed_request(), "bid_job_tags", Some(json!(["fr", tag])));
        refused_on(&body, "bid_job_tags[1]", "must be a non-empty string");
    }
}

#[test]
fn subject_tags_are_the_service_s() {
    refused_on(
        &with(closed_request(), "bid_job_tags", Some(json!(["subject::agent-translator-01"]))),
        "bid_job_tags[0]",
        "this job is closed",
    );
    let mixed =
        with(with(closed_request(), "bid_job_mode", Some(json!("mixed"))), "bid_job_tags", Some(json!(["ok", "subject::intruder"])));
    refused_on(&mixed, "bid_job_tags[1]", "\"intruder\" is not on it");
}

#[test]
fn an_unknown_mode_is_named() {
    refused_on(&with(closed_request(), "bid_job_mode", Some(json!("auction"))), "bid_job_mode", "got \"auction\"");
}

#[test]
fn the_service_s_status_cannot_be_chosen() {
    refused_on(&with(closed_request(), "bid_job_status", Some(json!("closed"))), "bid_job_status", "a new job is \"open\"");
    assert!(parse(&with(closed_request(), "bid_job_status", Some(json!("open")))).is_ok());
}

#[test]
fn unknown_fields_are_named() {
    refused_on(&with(closed_request(), "bid_job_max_subject", Some(json!(3))), "bid_job_max_subject", "is not a bid job field");
}

#[test]
fn ids_must_be_usable() {
    refused_on(&with(closed_request(), "bid_job_subject_ids", Some(json!(["a", ""]))), "bid_job_subject_ids[1]", "must not be empty");
    refused_on(&with(closed_request(), "bid_job_subject_ids", Some(json!([" a"]))), "bid_job_subject_ids[0]", "whitespace");
    refused_on(&with(closed_request(), "bid_job_creator_id", Some(json!("  "))), "bid_job_creator_id", "must not be empty");
    refused_on(&with(closed_request(), "bid_job_id", Some(json!("a/b"))), "bid_job_id", "'/'");
    refused_on(&with(closed_request(), "bid_job_id", Some(json!("x".repeat(129)))), "bid_job_id", "at most 128 characters");
    assert_eq!(parse(&with(closed_request(), "bid_job_id", Some(json!("job-1")))).unwrap().bid_job_id, "job-1");
    // `/bid-jobs/query` and `/bid-jobs/by-tags` are routes of their own: such a job could never be read.
    for word in ["query", "by-tags"] {
        refused_on(&with(closed_request(), "bid_job_id", Some(json!(word))), "bid_job_id", "the routes read it as a word of their own");
    }
    assert!(parse(&with(closed_request(), "bid_job_id", Some(json!("query-1")))).is_ok());
}

#[test]
fn function_ids_must_read_as_function_specs() {
    refused_on(&with(closed_request(), "bid_job_evaluator_id", Some(json!(""))), "bid_job_evaluator_id", "must not be empty");
    refused_on(
        &with(closed_request(), "bid_job_evaluator_id", Some(json!("builtin:"))),
        "bid_job_evaluator_id",
        "is not a valid function id",
    );
    refused_on(&with(closed_request(), "bid_job_pqt_id", Some(json!("builtin: "))), "bid_job_pqt_id", "is not a valid function id");
    let trimmed = parse(&with(closed_request(), "bid_job_pqt_id", Some(json!("  https://hooks.example.com/pqt ")))).unwrap();
    assert_eq!(trimmed.bid_job_pqt_id, "https://hooks.example.com/pqt");
    assert_eq!(parse(&with(closed_request(), "bid_job_pqt_id", Some(json!("")))).unwrap().bid_job_pqt_id, "");
}

#[test]
fn builtins_are_judged_by_the_catalogue_with_the_job_s_parameters() {
    let body = with(closed_request(), "bid_job_pqt_id", Some(json!("builtin:nope")));
    refused_on(&body, "bid_job_pqt_id", "names no builtin \"nope\"");
    let body = with(closed_request(), "bid_job_pqt_id", Some(json!("builtin:required-fields")));
    refused_on(&body, "bid_job_metadata.parameters.fields", "must be an array");
    let mut ok = body.clone();
    ok["bid_job_metadata"]["parameters"] = json!({"fields": ["price_usd"]});
    assert!(parse(&ok).is_ok());
    let mut bad = with(body, "bid_job_evaluator_id", Some(json!("builtin:lowest-price")));
    bad["bid_job_metadata"]["parameters"] = json!("min=3");
    refused_on(&bad, "bid_job_metadata.parameters", "must be an object, got a string");
    // A job without builtins may carry any metadata.
    let mut free = closed_request();
    free["bid_job_metadata"]["parameters"] = json!("anything");
    assert!(parse(&free).is_ok());
}

#[test]
fn a_body_that_is_not_an_object_is_refused() {
    let e = parse(&json!([1])).unwrap_err().to_string();
    assert_eq!(e, "Request body must be a JSON object, got an array");
}

// ---- request limits -------------------------------------------------------------------------

/// `n` characters.
fn long(n: usize) -> String {
    "x".repeat(n)
}

/// `n` distinct tags of 128 characters.
fn full_tags(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{i:x<128}")).collect()
}

#[test]
fn ids_are_accepted_up_to_128_characters() {
    let body = with(closed_request(), "bid_job_creator_id", Some(json!(long(128))));
    let body = with(body, "bid_job_subject_ids", Some(json!(["a", long(128)])));
    let job = parse(&with(body, "bid_job_id", Some(json!(long(128))))).unwrap();
    assert_eq!((job.bid_job_id.len(), job.bid_job_creator_id.len(), job.bid_job_subject_ids[1].len()), (128, 128, 128));
}

#[test]
fn an_id_over_128_characters_is_refused_by_path() {
    let says = "must be at most 128 characters, got 129";
    refused_on(&with(closed_request(), "bid_job_creator_id", Some(json!(long(129)))), "bid_job_creator_id", says);
    refused_on(&with(closed_request(), "bid_job_subject_ids", Some(json!(["a", long(129)]))), "bid_job_subject_ids[1]", says);
    refused_on(&with(closed_request(), "bid_job_id", Some(json!(long(129)))), "bid_job_id", says);
    // Too long is said first, without the id, even when it has surrounding whitespace too.
    let errors = refuse(&with(closed_request(), "bid_job_creator_id", Some(json!(format!("{} ", long(300))))));
    assert_eq!(errors, [("bid_job_creator_id".to_owned(), "must be at most 128 characters, got 301".to_owned())]);
}

#[test]
fn tags_are_at_most_64_of_at_most_128_characters() {
    let job = parse(&with(closed_request(), "bid_job_tags", Some(json!(full_tags(64))))).unwrap();
    assert_eq!(job.bid_job_tags, full_tags(64));
    // Stripped first: surrounding whitespace does not count.
    let job = parse(&with(closed_request(), "bid_job_tags", Some(json!([format!("  {}\n", long(128))])))).unwrap();
    assert_eq!(job.bid_job_tags, [long(128)]);

    let errors = refuse(&with(closed_request(), "bid_job_tags", Some(json!(["fr", "de", "en", long(300)]))));
    assert_eq!(errors, [("bid_job_tags[3]".to_owned(), "must be at most 128 characters, got 300".to_owned())]);
    let errors = refuse(&with(closed_request(), "bid_job_tags", Some(json!(full_tags(65)))));
    assert_eq!(errors, [("bid_job_tags".to_owned(), "must hold at most 64 entries, got 65".to_owned())]);
    // A too long `subject::` tag that is not the roster's is a tag like another.
    let mixed = with(closed_request(), "bid_job_mode", Some(json!("mixed")));
    let errors = refuse(&with(mixed, "bid_job_tags", Some(json!([format!("subject::{}", long(200))]))));
    assert_eq!(errors, [("bid_job_tags[0]".to_owned(), "must be at most 128 characters, got 209".to_owned())]);
}

#[test]
fn a_mixed_job_s_roster_tags_count_toward_neither_limit() {
    // 100 members of 128 characters: their `subject::` tags are 137 characters, and 100 of them.
    let roster: Vec<String> = (0..100).map(|i| format!("{i:s<128}")).collect();
    let body = with(closed_request(), "bid_job_mode", Some(json!("mixed")));
    let body = with(body, "bid_job_subject_ids", Some(json!(roster)));
    let job = parse(&with(body.clone(), "bid_job_tags", Some(json!(full_tags(64))))).unwrap();
    assert_eq!(job.bid_job_tags.len(), 164);
    // The stored tags, posted back whole, are accepted as they are.
    assert_eq!(parse(&with(body.clone(), "bid_job_tags", Some(json!(job.bid_job_tags)))).unwrap().bid_job_tags, job.bid_job_tags);
    let errors = refuse(&with(body, "bid_job_tags", Some(json!(full_tags(65)))));
    assert_eq!(errors, [("bid_job_tags".to_owned(), "must hold at most 64 entries, got 65".to_owned())]);
}

#[test]
fn a_key_with_a_nul_or_a_leading_dollar_in_a_job_s_objects_is_refused_by_its_path() {
    for field in ["bid_job_metadata", "bid_job_description", "bid_job_name"] {
        let body = with(closed_request(), field, Some(json!({"ok.dotted": 1, "deep": [{"a\u{0}b": 1}]})));
        refused_on(&body, &format!("{field}.deep[0].a\u{0}b"), "holds a NUL character");
        let body = with(closed_request(), field, Some(json!({"$where": "1"})));
        refused_on(&body, &format!("{field}.$where"), "starts with '$'");
    }
    // A dot in a key is kept as given; a `$` inside a key or a value too.
    let body = with(closed_request(), "bid_job_name", Some(json!({"a.b": "$x", "x$": 1})));
    assert_eq!(parse(&body).unwrap().bid_job_name, json!({"a.b": "$x", "x$": 1}).as_object().cloned().unwrap());
}
