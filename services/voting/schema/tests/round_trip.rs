//! §2 storage rules: `from_dict()` → `to_dict()` reproduces the spec's example documents exactly,
//! unset optionals are absent (not null), and datetimes are read in every accepted form and
//! written back as naive UTC ISO-8601.

mod common;

use agora_voting_schema::time::{format_datetime, parse_datetime};
use agora_voting_schema::{
    Entity, FunctionSpec, SocialChoiceEvaluationInput, SocialChoiceSubjectSpecInput, SocialTaskCoreData, TaskBundle, Vote,
};
use chrono::{DateTime, TimeZone, Utc};
use common::*;
use serde_json::{json, Value};

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap()
}

fn task_with(key: &str, value: Value) -> Value {
    let mut doc = task_doc();
    doc[key] = value;
    doc
}

// ---- the spec's example documents ----------------------------------------------------------

#[test]
fn task_example_round_trips_exactly() {
    let doc = task_doc();
    let task = SocialTaskCoreData::from_dict(&doc).unwrap();
    assert_eq!(task.social_task_id, "task_3f9c6d2e");
    assert_eq!(task.creation_time, utc(2026, 10, 22, 9, 0, 0));
    assert_eq!(task.scheduled_time, Some(utc(2026, 10, 22, 10, 0, 0)));
    assert_eq!(task.status().map(agora_voting_schema::TaskStatus::as_str), Some("scheduled"));
    assert_eq!(task.duration, None);
    assert_eq!(task.job_id, None);
    assert!(task.enable_live_streaming);
    assert!(task.is_private() && !task.is_public());
    assert_same_doc(&task.to_dict(), &doc);
}

#[test]
fn subject_spec_example_round_trips_exactly() {
    let doc = subject_spec_doc();
    let spec = SocialChoiceSubjectSpecInput::from_dict(&doc).unwrap();
    assert_eq!(spec.voting_options_map.keys().collect::<Vec<_>>(), ["agent-translator-01", "agent-translator-02", "agent-translator-03"]);
    assert!(!spec.voting_message_request_creator.is_empty());
    assert_same_doc(&spec.to_dict(), &doc);
}

#[test]
fn evaluation_input_example_round_trips_exactly() {
    let doc = evaluation_doc();
    let input = SocialChoiceEvaluationInput::from_dict(&doc).unwrap();
    for spec in [&input.voting_pqt, &input.choice_evaluation, &input.tie_breaker, &input.post_awarding] {
        assert_eq!(spec.target().unwrap().unwrap().mode(), "dsl");
    }
    assert_same_doc(&input.to_dict(), &doc);
}

#[test]
fn vote_example_round_trips_exactly() {
    let doc = vote_doc();
    let vote = Vote::from_dict(&doc).unwrap();
    assert_eq!(vote.submission_time, utc(2026, 10, 22, 10, 3, 12) + chrono::Duration::microseconds(481_203));
    assert!(vote.qualified);
    assert_same_doc(&vote.to_dict(), &doc);
}

#[test]
fn function_spec_examples_round_trip_exactly() {
    for v in [
        json!({"mode": "function", "function_id": "voting-invite-builder:1.0-stable", "parameters": {"tone": "formal"}}),
        json!({"mode": "dsl", "workflow_id": "plurality-count:1.0"}),
        json!({}),
        // key order other than the spec's is kept as given
        json!({"workflow_id": "plurality-count:1.0", "mode": "dsl", "extra": [1, 2]}),
    ] {
        let spec: FunctionSpec = serde_json::from_value(v.clone()).unwrap();
        assert_same_doc(&serde_json::to_value(&spec).unwrap(), &v);
    }
    let spec: FunctionSpec = serde_json::from_value(json!({"mode": "dsl", "workflow_id": "w"})).unwrap();
    assert_eq!(spec.parameters(), &json!({}), "parameters default to {{}}");
}

#[test]
fn round_trip_is_stable_for_a_second_pass() {
    let task = SocialTaskCoreData::from_dict(&task_doc()).unwrap();
    let again = SocialTaskCoreData::from_dict(&task.to_dict()).unwrap();
    assert_eq!(task, again);
    let vote = Vote::from_dict(&vote_doc()).unwrap();
    assert_eq!(Vote::from_dict(&vote.to_dict()).unwrap(), vote);
}

#[test]
fn parsed_bundle_has_the_three_stored_documents() {
    let bundle = TaskBundle {
        task: SocialTaskCoreData::from_dict(&task_doc()).unwrap(),
        subject_spec: SocialChoiceSubjectSpecInput::from_dict(&subject_spec_doc()).unwrap(),
        evaluation_input: SocialChoiceEvaluationInput::from_dict(&evaluation_doc()).unwrap(),
    };
    let parsed = bundle.to_parsed_dict();
    assert_eq!(keys(&parsed), ["social_task", "subject_spec", "evaluation_spec"]);
    assert_same_doc(&parsed["social_task"], &task_doc());
    assert_same_doc(&parsed["subject_spec"], &subject_spec_doc());
    assert_same_doc(&parsed["evaluation_spec"], &evaluation_doc());
}

// ---- unset optionals ------------------------------------------------------------------------

#[test]
fn to_dict_omits_unset_optionals() {
    let mut doc = task_doc();
    let obj = doc.as_object_mut().unwrap();
    obj.shift_remove("scheduled_time");
    obj.shift_remove("status");
    let task = SocialTaskCoreData::from_dict(&doc).unwrap();
    assert_eq!(task.scheduled_time, None);
    assert_eq!(task.status, None);
    let out = task.to_dict();
    for key in ["scheduled_time", "duration", "status", "job_id"] {
        assert!(out.get(key).is_none(), "{key} must be absent, got {out}");
    }
    assert_same_doc(&out, &doc);
}

#[test]
fn set_optionals_are_written_in_field_order() {
    let mut task = SocialTaskCoreData::from_dict(&task_doc()).unwrap();
    task.duration = Some(3);
    task.job_id = Some("job-1".into());
    let out = task.to_dict();
    assert_eq!(
        keys(&out),
        [
            "social_task_id",
            "created_by_subject_id",
            "created_by_subject_data",
            "org_ids",
            "social_task_access_type",
            "goal_data",
            "social_tasks_topics",
            "social_task_properties",
            "creation_time",
            "scheduled_time",
            "duration",
            "status",
            "report_json",
            "job_id",
            "enable_live_streaming",
        ]
    );
    assert_eq!(out["duration"], 3);
    assert_eq!(out["job_id"], "job-1");
    assert_eq!(SocialTaskCoreData::from_dict(&out).unwrap(), task);
}

#[test]
fn null_optionals_read_as_absent() {
    let doc = json!({
        "social_task_id": "task_00000000",
        "created_by_subject_id": "c",
        "created_by_subject_data": {},
        "org_ids": [],
        "social_task_access_type": "public",
        "goal_data": {},
        "social_tasks_topics": [],
        "social_task_properties": {},
        "creation_time": "2026-10-22T09:00:00",
        "scheduled_time": null,
        "duration": null,
        "status": null,
        "job_id": null
    });
    let task = SocialTaskCoreData::from_dict(&doc).unwrap();
    assert_eq!(task.scheduled_time, None);
    assert_eq!(task.duration, None);
    assert_eq!(task.status, None);
    assert_eq!(task.job_id, None);
    let out = task.to_dict();
    for key in ["scheduled_time", "duration", "status", "job_id"] {
        assert!(out.get(key).is_none(), "{key} must be absent, got {out}");
    }
}

#[test]
fn defaults_of_report_json_and_live_streaming() {
    let mut doc = task_doc();
    let obj = doc.as_object_mut().unwrap();
    obj.shift_remove("report_json");
    obj.shift_remove("enable_live_streaming");
    let task = SocialTaskCoreData::from_dict(&doc).unwrap();
    assert!(task.report_json.is_empty());
    assert!(!task.enable_live_streaming);
    let out = task.to_dict();
    assert_eq!(out["report_json"], json!({}));
    assert_eq!(out["enable_live_streaming"], json!(false));
    assert_eq!(task.trigger_count(), 5, "duration defaults to 5");
}

#[test]
fn null_report_json_and_live_streaming_read_as_defaults() {
    let task = SocialTaskCoreData::from_dict(&task_with("report_json", Value::Null)).unwrap();
    assert!(task.report_json.is_empty());
    let task = SocialTaskCoreData::from_dict(&task_with("enable_live_streaming", Value::Null)).unwrap();
    assert!(!task.enable_live_streaming);
}

#[test]
fn a_filled_report_json_round_trips() {
    let report = json!({"winners": ["agent-translator-02"], "evaluated_at": "2026-10-22T10:07:45.221000", "task": {"b": 1, "a": 2}});
    let doc = task_with("report_json", report);
    let task = SocialTaskCoreData::from_dict(&doc).unwrap();
    assert_same_doc(&task.to_dict(), &doc);
}

#[test]
fn missing_required_fields_are_refused() {
    for key in [
        "social_task_id",
        "created_by_subject_id",
        "created_by_subject_data",
        "org_ids",
        "social_task_access_type",
        "goal_data",
        "social_tasks_topics",
        "social_task_properties",
        "creation_time",
    ] {
        let mut doc = task_doc();
        doc.as_object_mut().unwrap().shift_remove(key);
        let err = SocialTaskCoreData::from_dict(&doc).unwrap_err().to_string();
        assert!(err.contains(key), "{key}: {err}");
    }
    for key in ["vote_id", "vote_data", "submission_time", "qualified"] {
        let mut doc = vote_doc();
        doc.as_object_mut().unwrap().shift_remove(key);
        assert!(Vote::from_dict(&doc).is_err(), "{key}");
    }
}

// ---- datetimes --------------------------------------------------------------------------------

#[test]
fn from_dict_accepts_every_datetime_form_and_writes_naive_utc() {
    let want = "2026-10-22T10:00:00";
    let epoch = utc(2026, 10, 22, 10, 0, 0).timestamp();
    for form in [
        json!("2026-10-22T10:00:00"),
        json!("2026-10-22T10:00:00Z"),
        json!("2026-10-22T10:00:00z"),
        json!("2026-10-22T10:00:00+00:00"),
        json!("2026-10-22T12:00:00+02:00"),
        json!("2026-10-22T05:30:00-04:30"),
        json!("2026-10-22T12:00:00+0200"),
        json!("2026-10-22 10:00:00"),
        json!("2026-10-22 12:00:00+02:00"),
        json!("2026-10-22T10:00:00.000000"),
        json!("2026-10-22T10:00:00.000Z"),
        json!(epoch),
        json!(epoch as f64),
    ] {
        let task = SocialTaskCoreData::from_dict(&task_with("scheduled_time", form.clone())).unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(task.scheduled_time, Some(utc(2026, 10, 22, 10, 0, 0)), "{form}");
        assert_eq!(task.to_dict()["scheduled_time"], want, "{form}");

        let task = SocialTaskCoreData::from_dict(&task_with("creation_time", form.clone())).unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(task.to_dict()["creation_time"], want, "{form}");
    }
}

#[test]
fn offsets_crossing_midnight_convert_to_utc() {
    let task = SocialTaskCoreData::from_dict(&task_with("scheduled_time", json!("2026-10-23T01:30:00+05:00"))).unwrap();
    assert_eq!(task.to_dict()["scheduled_time"], "2026-10-22T20:30:00");
    let task = SocialTaskCoreData::from_dict(&task_with("scheduled_time", json!("2026-10-22T20:30:00-05:00"))).unwrap();
    assert_eq!(task.to_dict()["scheduled_time"], "2026-10-23T01:30:00");
}

#[test]
fn fractional_seconds_are_kept_to_the_microsecond() {
    for (form, want) in [
        (json!("2026-10-22T10:03:12.481203"), "2026-10-22T10:03:12.481203"),
        (json!("2026-10-22T10:03:12.481203Z"), "2026-10-22T10:03:12.481203"),
        (json!("2026-10-22T12:03:12.5+02:00"), "2026-10-22T10:03:12.500000"),
        (json!("2026-10-22T10:03:12.1234567"), "2026-10-22T10:03:12.123456"),
        (json!(1_792_663_392.25), "2026-10-22T10:03:12.250000"),
        (json!(1_792_663_392), "2026-10-22T10:03:12"),
    ] {
        let mut doc = vote_doc();
        doc["submission_time"] = form.clone();
        let vote = Vote::from_dict(&doc).unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(vote.to_dict()["submission_time"], want, "{form}");
        // and what was written reads back to the same instant
        assert_eq!(Vote::from_dict(&vote.to_dict()).unwrap(), vote, "{form}");
    }
}

#[test]
fn epoch_seconds_are_utc() {
    assert_eq!(parse_datetime(&json!(0)).map(|d| format_datetime(&d)), Some("1970-01-01T00:00:00".into()));
    assert_eq!(parse_datetime(&json!(-1.5)).map(|d| format_datetime(&d)), Some("1969-12-31T23:59:58.500000".into()));
}

#[test]
fn bad_datetimes_are_refused_with_the_value() {
    for (form, shown) in [
        (json!("tomorrow"), "tomorrow"),
        (json!("2026-10-22T25:00:00"), "2026-10-22T25:00:00"),
        (json!("22/10/2026 10:00"), "22/10/2026 10:00"),
    ] {
        let err = SocialTaskCoreData::from_dict(&task_with("creation_time", form.clone())).unwrap_err().to_string();
        assert!(err.contains(&format!("Invalid datetime: {shown}")), "{form}: {err}");
    }
    for form in [json!(true), json!({}), json!([]), json!(null)] {
        assert!(SocialTaskCoreData::from_dict(&task_with("creation_time", form.clone())).is_err(), "{form}");
    }
    // an optional datetime is still checked when present
    assert!(SocialTaskCoreData::from_dict(&task_with("scheduled_time", json!("soon"))).is_err());
    assert!(SocialTaskCoreData::from_dict(&task_with("scheduled_time", json!(false))).is_err());
}

#[test]
fn minute_precision_datetimes_with_an_offset_or_a_space() {
    // `...T10:00` and `...T10:00Z` are read, so the same value with an offset or a space is too
    for form in [
        "2026-10-22T10:00",
        "2026-10-22T10:00Z",
        "2026-10-22T12:00+02:00",
        "2026-10-22T12:00+0200",
        "2026-10-22 10:00",
        "2026-10-22 12:00+02:00",
    ] {
        let task = SocialTaskCoreData::from_dict(&task_with("scheduled_time", json!(form))).unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(task.to_dict()["scheduled_time"], "2026-10-22T10:00:00", "{form}");
    }
}

#[test]
fn second_60_is_not_a_datetime() {
    // Python's isoformat()/fromisoformat() know no leap seconds; a `:60` would be written back
    // as an unreadable `...:60` document.
    for form in ["2026-10-22T10:00:60", "2026-10-22T10:00:60Z", "2026-12-31T23:59:60+00:00"] {
        assert_eq!(parse_datetime(&json!(form)), None, "{form}");
        let err = SocialTaskCoreData::from_dict(&task_with("creation_time", json!(form))).unwrap_err().to_string();
        assert!(err.contains(&format!("Invalid datetime: {form}")), "{err}");
    }
}

#[test]
fn a_store_internal_id_is_ignored_on_read_and_never_written() {
    let mut doc = task_doc();
    doc["_id"] = json!({"$oid": "65f0c0ffee0000000000beef"});
    let task = SocialTaskCoreData::from_dict(&doc).unwrap();
    assert_same_doc(&task.to_dict(), &task_doc());
    let mut doc = vote_doc();
    doc["_id"] = json!("x");
    assert_same_doc(&Vote::from_dict(&doc).unwrap().to_dict(), &vote_doc());
}

#[test]
fn function_spec_null_parameters_read_as_empty() {
    let spec: FunctionSpec = serde_json::from_value(json!({"mode": "function", "function_id": "f:1", "parameters": null})).unwrap();
    assert_eq!(spec.parameters(), &json!({}));
    match spec.target() {
        Ok(Some(agora_voting_schema::HookTarget::Function { function_id, parameters })) => {
            assert_eq!(function_id, "f:1");
            assert_eq!(parameters, &json!({}));
        }
        other => panic!("{other:?}"),
    }
}
