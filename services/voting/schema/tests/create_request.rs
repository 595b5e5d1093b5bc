//! §3.1 / §3.2: the create request. Request keys are mapped to stored fields, the id is generated,
//! and every invalid or missing field is reported by its path.

mod common;

use agora_voting_schema::{new_task_id, parse_create_request, Entity, TaskBundle, ValidationErrors};
use common::*;
use serde_json::{json, Value};

const ID: &str = "task_0a1b2c3d";

fn parse(body: &Value) -> Result<TaskBundle, ValidationErrors> {
    parse_create_request(body, ID)
}

/// The error message for a request that must be refused.
#[track_caller]
fn refuse(body: &Value) -> String {
    match parse(body) {
        Ok(b) => panic!("accepted: {}", b.to_parsed_dict()),
        Err(e) => {
            assert!(!e.0.is_empty(), "an error without a message");
            e.to_string()
        }
    }
}

/// The example request with `section.key` set to `value` (or removed when `value` is `None`).
fn request_with(section: &str, key: &str, value: Option<Value>) -> Value {
    let mut body = create_request();
    let obj = body[section].as_object_mut().unwrap();
    match value {
        Some(v) => {
            obj.insert(key.into(), v);
        }
        None => {
            obj.shift_remove(key);
        }
    }
    body
}

// ---- the happy path -----------------------------------------------------------------------

#[test]
fn spec_example_request_parses_to_the_spec_documents() {
    let id = new_task_id();
    let bundle = parse_create_request(&create_request(), &id).unwrap();
    assert_same_doc(&bundle.task.to_dict(), &with_id(task_doc(), &id));
    assert_same_doc(&bundle.subject_spec.to_dict(), &with_id(subject_spec_doc(), &id));
    assert_same_doc(&bundle.evaluation_input.to_dict(), &with_id(evaluation_doc(), &id));
}

#[test]
fn parse_answer_uses_stored_names() {
    let parsed = parse(&create_request()).unwrap().to_parsed_dict();
    assert_eq!(keys(&parsed), ["social_task", "subject_spec", "evaluation_spec"]);
    assert_same_doc(&parsed["social_task"], &with_id(task_doc(), ID));
    assert_same_doc(&parsed["subject_spec"], &with_id(subject_spec_doc(), ID));
    assert_same_doc(&parsed["evaluation_spec"], &with_id(evaluation_doc(), ID));
}

#[test]
fn task_id_is_task_plus_8_lowercase_hex_and_shared_by_the_three_documents() {
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        let id = new_task_id();
        assert!(is_task_id(&id), "{id}");
        seen.insert(id);
    }
    assert!(seen.len() > 190, "ids are not random enough: {}", seen.len());

    let id = new_task_id();
    let b = parse_create_request(&create_request(), &id).unwrap();
    assert_eq!(b.task.social_task_id, id);
    assert_eq!(b.subject_spec.social_task_id, id);
    assert_eq!(b.evaluation_input.social_task_id, id);
}

#[test]
fn request_side_social_task_id_and_job_id_are_ignored() {
    let mut body = create_request();
    body["social_task"]["social_task_id"] = json!("task_ffffffff");
    body["social_task"]["job_id"] = json!("job-42");
    body["subject_spec"]["social_task_id"] = json!("task_eeeeeeee");
    body["evaluation_spec"]["social_task_id"] = json!("task_dddddddd");
    let b = parse(&body).unwrap();
    assert_eq!(b.task.social_task_id, ID);
    assert_eq!(b.subject_spec.social_task_id, ID);
    assert_eq!(b.evaluation_input.social_task_id, ID);
    assert_eq!(b.task.job_id, None);
    assert!(b.task.to_dict().get("job_id").is_none());
    // even of the wrong type: never read
    body["social_task"]["social_task_id"] = json!(17);
    body["social_task"]["job_id"] = json!({"x": 1});
    assert!(parse(&body).is_ok());
}

#[test]
fn report_defaults_to_empty_and_a_given_report_is_kept() {
    let b = parse(&create_request()).unwrap();
    assert!(b.task.report_json.is_empty());
    assert_eq!(b.task.to_dict()["report_json"], json!({}));

    let b = parse(&request_with("social_task", "report", Some(Value::Null))).unwrap();
    assert!(b.task.report_json.is_empty());

    let b = parse(&request_with("social_task", "report", Some(json!({"note": "x"})))).unwrap();
    assert_eq!(b.task.to_dict()["report_json"], json!({"note": "x"}));

    let e = refuse(&request_with("social_task", "report", Some(json!("done"))));
    assert!(e.contains("social_task.report"), "{e}");
}

#[test]
fn enable_live_streaming_defaults_to_false() {
    for body in [
        request_with("social_task", "enable_live_streaming", None),
        request_with("social_task", "enable_live_streaming", Some(Value::Null)),
    ] {
        let b = parse(&body).unwrap();
        assert!(!b.task.enable_live_streaming);
        assert_eq!(b.task.to_dict()["enable_live_streaming"], json!(false));
    }
    let b = parse(&request_with("social_task", "enable_live_streaming", Some(json!(false)))).unwrap();
    assert!(!b.task.enable_live_streaming);
    let e = refuse(&request_with("social_task", "enable_live_streaming", Some(json!("yes"))));
    assert!(e.contains("social_task.enable_live_streaming"), "{e}");
}

#[test]
fn optional_fields_absent_or_null_are_absent_from_the_document() {
    let mut body = create_request();
    let st = body["social_task"].as_object_mut().unwrap();
    st.shift_remove("scheduled_time");
    st.shift_remove("status");
    let b = parse(&body).unwrap();
    let doc = b.task.to_dict();
    for key in ["scheduled_time", "duration", "status", "job_id"] {
        assert!(doc.get(key).is_none(), "{key}: {doc}");
    }

    let mut body = create_request();
    for key in ["scheduled_time", "duration", "status"] {
        body["social_task"][key] = Value::Null;
    }
    let doc = parse(&body).unwrap().task.to_dict();
    for key in ["scheduled_time", "duration", "status", "job_id"] {
        assert!(doc.get(key).is_none(), "{key}: {doc}");
    }
}

#[test]
fn duration_is_stored_when_given() {
    let b = parse(&request_with("social_task", "duration", Some(json!(3)))).unwrap();
    assert_eq!(b.task.duration, Some(3));
    assert_eq!(b.task.trigger_count(), 3);
    assert_eq!(b.task.to_dict()["duration"], json!(3));
    // written after scheduled_time, before status
    let doc = b.task.to_dict();
    let k = keys(&doc);
    let pos = |name| k.iter().position(|x| *x == name).unwrap();
    assert!(pos("scheduled_time") < pos("duration") && pos("duration") < pos("status"));
    for bad in [json!("5"), json!(true), json!(2.5), json!([5]), json!(0), json!(-1)] {
        let e = refuse(&request_with("social_task", "duration", Some(bad.clone())));
        assert!(e.contains("social_task.duration"), "{bad}: {e}");
    }
}

#[test]
fn datetimes_in_the_request_are_converted_to_naive_utc() {
    let mut body = create_request();
    body["social_task"]["creation_time"] = json!("2026-10-22T11:00:00+02:00");
    body["social_task"]["scheduled_time"] = json!("2026-10-22T10:00:00Z");
    let doc = parse(&body).unwrap().task.to_dict();
    assert_eq!(doc["creation_time"], "2026-10-22T09:00:00");
    assert_eq!(doc["scheduled_time"], "2026-10-22T10:00:00");

    body["social_task"]["creation_time"] = json!(1_792_659_600); // 2026-10-22T09:00:00Z
    body["social_task"]["scheduled_time"] = json!(1_792_663_200.0);
    let doc = parse(&body).unwrap().task.to_dict();
    assert_same_doc(&doc, &with_id(task_doc(), ID));
}

#[test]
fn may_be_empty_fields_accept_empty_values() {
    let mut body = create_request();
    body["social_task"]["created_by_subject_data"] = json!({});
    body["social_task"]["org_ids"] = json!([]);
    body["social_task"]["goal"] = json!({});
    body["social_task"]["topics"] = json!([]);
    body["social_task"]["properties"] = json!({});
    body["subject_spec"]["voting_metadata"] = json!({});
    body["subject_spec"]["supported_protocols"] = json!([]);
    body["subject_spec"]["voting_request"] = json!({});
    body["evaluation_spec"]["constraints_primary"] = json!("");
    body["evaluation_spec"]["constraints_secondary"] = json!("");
    body["evaluation_spec"]["tie_breaker"] = json!({});
    let b = parse(&body).unwrap();
    let t = b.task.to_dict();
    assert_eq!(t["created_by_subject_data"], json!({}));
    assert_eq!(t["org_ids"], json!([]));
    assert_eq!(t["goal_data"], json!({}));
    assert_eq!(t["social_tasks_topics"], json!([]));
    assert_eq!(t["social_task_properties"], json!({}));
    let s = b.subject_spec.to_dict();
    assert_eq!(s["voting_option_metadata_map"], json!({}));
    assert_eq!(s["supported_protocols"], json!([]));
    assert_eq!(s["voting_message_request_creator"], json!({}));
    assert!(b.subject_spec.voting_message_request_creator.is_empty());
    let e = b.evaluation_input.to_dict();
    assert_eq!(e["tie_breaker"], json!({}));
    assert!(b.evaluation_input.tie_breaker.target().unwrap().is_none());
}

#[test]
fn empty_spec_is_accepted_at_creation_for_every_hook() {
    // §2.5: "{} is accepted at creation but fails when the hook runs" for the other hooks.
    let mut body = create_request();
    for key in ["voting_pqt", "evaluation", "post_award"] {
        body["evaluation_spec"][key] = json!({});
    }
    let b = parse(&body).unwrap();
    assert!(b.evaluation_input.voting_pqt.is_empty());
    assert!(b.evaluation_input.choice_evaluation.is_empty());
    assert!(b.evaluation_input.post_awarding.is_empty());
}

#[test]
fn may_be_empty_fields_must_still_be_present() {
    for (section, key) in [
        ("social_task", "created_by_subject_data"),
        ("social_task", "org_ids"),
        ("social_task", "goal"),
        ("social_task", "topics"),
        ("social_task", "properties"),
        ("subject_spec", "voting_metadata"),
        ("subject_spec", "supported_protocols"),
        ("subject_spec", "voting_request"),
        ("evaluation_spec", "constraints_primary"),
        ("evaluation_spec", "constraints_secondary"),
        ("evaluation_spec", "tie_breaker"),
    ] {
        let e = refuse(&request_with(section, key, None));
        assert_eq!(e, format!("{section}.{key} is required"));
        let e = refuse(&request_with(section, key, Some(Value::Null)));
        assert_eq!(e, format!("{section}.{key} is required"));
    }
}

#[test]
fn every_hook_mode_is_accepted_and_stored_as_given() {
    let specs = [
        json!({"mode": "function", "function_id": "f:1", "parameters": {"tone": "formal"}}),
        json!({"mode": "dsl", "workflow_id": "w:1"}),
        json!({"mode": "builtin", "name": "plurality", "parameters": {}}),
        json!({"mode": "http", "url": "https://hooks.example.com/eval"}),
        json!({"mode": "lambda", "function_name": "arn:aws:lambda:eu-west-1:1:function:x"}),
    ];
    for spec in specs {
        let mut body = create_request();
        body["subject_spec"]["voting_request"] = spec.clone();
        for key in ["voting_pqt", "evaluation", "tie_breaker", "post_award"] {
            body["evaluation_spec"][key] = spec.clone();
        }
        let b = parse(&body).unwrap_or_else(|e| panic!("{spec}: {e}"));
        assert_same_doc(&b.subject_spec.to_dict()["voting_message_request_creator"], &spec);
        let e = b.evaluation_input.to_dict();
        for key in ["voting_pqt", "choice_evaluation", "tie_breaker", "post_awarding"] {
            assert_same_doc(&e[key], &spec);
        }
    }
}

// ---- errors -------------------------------------------------------------------------------

#[test]
fn every_missing_required_field_is_reported_at_once() {
    let body = json!({"social_task": {}, "subject_spec": {}, "evaluation_spec": {}});
    let err = parse(&body).unwrap_err();
    let paths: Vec<&str> = err.0.iter().map(|e| e.path.as_str()).collect();
    let want = [
        "social_task.created_by_subject_id",
        "social_task.created_by_subject_data",
        "social_task.org_ids",
        "social_task.access_type",
        "social_task.goal",
        "social_task.topics",
        "social_task.properties",
        "social_task.creation_time",
        "subject_spec.title",
        "subject_spec.description",
        "subject_spec.voting_options",
        "subject_spec.voting_metadata",
        "subject_spec.supported_protocols",
        "subject_spec.voting_request",
        "evaluation_spec.constraints_primary",
        "evaluation_spec.constraints_secondary",
        "evaluation_spec.voting_pqt",
        "evaluation_spec.evaluation",
        "evaluation_spec.tie_breaker",
        "evaluation_spec.post_award",
    ];
    assert_eq!(paths, want);
    let msg = err.to_string();
    for p in want {
        assert!(msg.contains(&format!("{p} is required")), "{p}: {msg}");
    }
    assert!(msg.contains("social_task.created_by_subject_id is required; "));
    // optional fields are not reported
    for p in ["scheduled_time", "duration", "status", "report", "enable_live_streaming"] {
        assert!(!msg.contains(p), "{p}: {msg}");
    }
}

#[test]
fn a_single_missing_field_gives_the_spec_message() {
    let e = refuse(&request_with("social_task", "created_by_subject_id", None));
    assert_eq!(e, "social_task.created_by_subject_id is required");
    let e = refuse(&request_with("evaluation_spec", "post_award", None));
    assert_eq!(e, "evaluation_spec.post_award is required");
}

#[test]
fn stored_names_in_the_request_do_not_stand_in_for_request_keys() {
    let mut body = request_with("social_task", "access_type", None);
    body["social_task"]["social_task_access_type"] = json!("private");
    let e = refuse(&body);
    assert_eq!(e, "social_task.access_type is required");
}

#[test]
fn wrong_types_are_reported_by_path() {
    let cases: Vec<(&str, &str, Value)> = vec![
        ("social_task", "created_by_subject_id", json!(7)),
        ("social_task", "created_by_subject_data", json!("team")),
        ("social_task", "org_ids", json!("agent-reviewer-01")),
        ("social_task", "org_ids", json!(["agent-reviewer-01", 2])),
        ("social_task", "org_ids", json!([null])),
        ("social_task", "access_type", json!(true)),
        ("social_task", "goal", json!(["objective"])),
        ("social_task", "topics", json!([["fr"]])),
        ("social_task", "properties", json!("high")),
        ("social_task", "status", json!(1)),
        ("subject_spec", "title", json!({"en": "x"})),
        ("subject_spec", "description", json!(null)),
        ("subject_spec", "voting_options", json!(["a", "b"])),
        ("subject_spec", "voting_metadata", json!([])),
        ("subject_spec", "supported_protocols", json!({})),
        ("subject_spec", "voting_request", json!("voting-invite-builder:1.0-stable")),
        ("evaluation_spec", "constraints_primary", json!(1)),
        ("evaluation_spec", "constraints_secondary", json!({})),
        ("evaluation_spec", "voting_pqt", json!("vote-option-is-valid:1.0")),
        ("evaluation_spec", "evaluation", json!([])),
        ("evaluation_spec", "tie_breaker", json!(false)),
        ("evaluation_spec", "post_award", json!(3)),
    ];
    for (section, key, value) in cases {
        let e = refuse(&request_with(section, key, Some(value.clone())));
        assert!(e.starts_with(&format!("{section}.{key} ")), "{section}.{key} = {value}: {e}");
        assert!(!e.contains(';'), "one problem, one message: {e}");
    }
}

#[test]
fn wrong_section_types_are_reported() {
    let mut body = create_request();
    body["subject_spec"] = json!("spec");
    body["evaluation_spec"] = json!([]);
    let err = parse(&body).unwrap_err();
    let paths: Vec<&str> = err.0.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["subject_spec", "evaluation_spec"]);
    let e = err.to_string();
    assert!(e.contains("subject_spec must be an object"), "{e}");
    assert!(e.contains("evaluation_spec must be an object"), "{e}");
}

#[test]
fn errors_in_several_sections_are_all_reported() {
    let mut body = create_request();
    body["social_task"]["org_ids"] = json!([1]);
    body["social_task"]["creation_time"] = json!("yesterday");
    body["subject_spec"].as_object_mut().unwrap().shift_remove("title");
    body["evaluation_spec"]["evaluation"] = json!({"mode": "dsl"});
    let err = parse(&body).unwrap_err();
    let paths: Vec<&str> = err.0.iter().map(|e| e.path.as_str()).collect();
    assert_eq!(paths, ["social_task.org_ids", "social_task.creation_time", "subject_spec.title", "evaluation_spec.evaluation"]);
}

#[test]
fn an_unparseable_datetime_names_the_value_and_the_field() {
    for (key, value, shown) in [
        ("creation_time", json!("tomorrow"), "tomorrow"),
        ("creation_time", json!("2026-02-30T10:00:00"), "2026-02-30T10:00:00"),
        ("scheduled_time", json!("next week"), "next week"),
        ("scheduled_time", json!(""), ""),
        ("scheduled_time", json!(true), "true"),
        ("creation_time", json!({"$date": 1}), "{\"$date\":1}"),
    ] {
        let e = refuse(&request_with("social_task", key, Some(value.clone())));
        assert!(e.contains(&format!("social_task.{key}")), "{value}: {e}");
        assert!(e.contains(&format!("Invalid datetime: {shown}")), "{value}: {e}");
    }
}

#[test]
fn missing_top_level_keys_are_named() {
    let e = refuse(&json!({}));
    assert!(e.contains("social_task"), "{e}");
    assert!(e.contains("subject_spec"), "{e}");
    assert!(e.contains("evaluation_spec"), "{e}");

    let mut body = create_request();
    body.as_object_mut().unwrap().shift_remove("subject_spec");
    let e = refuse(&body);
    assert!(e.contains("subject_spec"), "{e}");
    assert!(!e.contains("social_task") && !e.contains("evaluation_spec"), "{e}");

    let mut body = create_request();
    body["evaluation_spec"] = Value::Null;
    let e = refuse(&body);
    assert!(e.contains("evaluation_spec"), "{e}");
}

#[test]
fn a_body_that_is_not_an_object_is_refused() {
    for body in [json!([]), json!("x"), json!(1), json!(null), json!(true)] {
        let e = refuse(&body);
        assert!(e.to_lowercase().contains("object"), "{body}: {e}");
    }
}

#[test]
fn invalid_function_specs_are_reported_with_their_path() {
    let cases = [
        ("subject_spec", "voting_request", json!({"mode": "telepathy", "function_id": "x"}), "telepathy"),
        ("subject_spec", "voting_request", json!({"mode": "function"}), "function_id"),
        ("subject_spec", "voting_request", json!({"mode": "function", "function_id": ""}), "function_id"),
        ("subject_spec", "voting_request", json!({"function_id": "x"}), "mode"),
        ("evaluation_spec", "voting_pqt", json!({"mode": "dsl"}), "workflow_id"),
        ("evaluation_spec", "voting_pqt", json!({"mode": "dsl", "workflow_id": 3}), "workflow_id"),
        ("evaluation_spec", "evaluation", json!({"mode": "unknown"}), "unknown"),
        ("evaluation_spec", "evaluation", json!({"mode": 1}), "mode"),
        ("evaluation_spec", "tie_breaker", json!({"mode": "builtin"}), "name"),
        ("evaluation_spec", "post_award", json!({"mode": "http"}), "url"),
        ("evaluation_spec", "post_award", json!({"mode": "http", "url": "file:///etc/passwd"}), "url"),
        ("evaluation_spec", "post_award", json!({"mode": "lambda"}), "function_name"),
        ("evaluation_spec", "post_award", json!({"mode": "function", "function_id": "f", "parameters": []}), "parameters"),
    ];
    for (section, key, spec, word) in cases {
        let e = refuse(&request_with(section, key, Some(spec.clone())));
        assert!(e.starts_with(&format!("{section}.{key} ")), "{spec}: {e}");
        assert!(e.contains(word), "{spec}: {e}");
    }
}

#[test]
fn voting_options_must_name_an_option() {
    let e = refuse(&request_with("subject_spec", "voting_options", Some(json!({}))));
    assert!(e.starts_with("subject_spec.voting_options "), "{e}");
}

#[test]
fn unknown_keys_are_ignored() {
    let mut body = create_request();
    body["social_task"]["colour"] = json!("blue");
    body["extra"] = json!(1);
    let b = parse(&body).unwrap();
    assert_same_doc(&b.task.to_dict(), &with_id(task_doc(), ID));
}

#[test]
fn access_type_is_not_validated() {
    let b = parse(&request_with("social_task", "access_type", Some(json!("team-only")))).unwrap();
    assert_eq!(b.task.social_task_access_type, "team-only");
    assert!(!b.task.is_private() && !b.task.is_public());
}

#[test]
fn parsed_documents_read_back_unchanged() {
    let b = parse(&create_request()).unwrap();
    assert_eq!(agora_voting_schema::SocialTaskCoreData::from_dict(&b.task.to_dict()).unwrap(), b.task);
    assert_eq!(agora_voting_schema::SocialChoiceSubjectSpecInput::from_dict(&b.subject_spec.to_dict()).unwrap(), b.subject_spec);
    assert_eq!(agora_voting_schema::SocialChoiceEvaluationInput::from_dict(&b.evaluation_input.to_dict()).unwrap(), b.evaluation_input);
}

#[test]
fn null_parameters_in_a_function_spec_count_as_absent() {
    let spec = json!({"mode": "function", "function_id": "voting-invite-builder:1.0-stable", "parameters": null});
    let b = parse(&request_with("subject_spec", "voting_request", Some(spec))).unwrap();
    assert_eq!(b.subject_spec.voting_message_request_creator.parameters(), &json!({}));
}

// ---- request limits -----------------------------------------------------------------------

/// `n` characters.
fn long(n: usize) -> String {
    "x".repeat(n)
}

#[test]
fn ids_are_accepted_up_to_128_characters() {
    let mut body = create_request();
    body["social_task"]["created_by_subject_id"] = json!(long(128));
    body["social_task"]["org_ids"] = json!(["agent-reviewer-01", long(128)]);
    body["subject_spec"]["voting_options"][long(128)] = json!("Translator 128");
    body["subject_spec"]["voting_metadata"][long(128)] = json!({});
    body["evaluation_spec"]["constraints_primary"] = json!(long(128));
    body["evaluation_spec"]["constraints_secondary"] = json!(long(128));
    let bundle = parse(&body).unwrap();
    assert_eq!(bundle.task.created_by_subject_id, long(128));
    assert_eq!(bundle.task.org_ids[1], long(128));
    assert!(bundle.subject_spec.voting_options_map.contains_key(&long(128)));
    assert_eq!(bundle.evaluation_input.constraints_entry_id_1, long(128));
}

#[test]
fn an_id_over_128_characters_is_refused_by_path() {
    for (section, key, value, path) in [
        ("social_task", "created_by_subject_id", json!(long(129)), "social_task.created_by_subject_id"),
        ("social_task", "org_ids", json!(["agent-reviewer-01", long(129)]), "social_task.org_ids[1]"),
        ("evaluation_spec", "constraints_primary", json!(long(129)), "evaluation_spec.constraints_primary"),
        ("evaluation_spec", "constraints_secondary", json!(long(129)), "evaluation_spec.constraints_secondary"),
    ] {
        let e = refuse(&request_with(section, key, Some(value)));
        assert_eq!(e, format!("{path} must be at most 128 characters, got 129"));
    }
}

#[test]
fn an_option_id_over_128_characters_is_refused_with_its_start() {
    for key in ["voting_options", "voting_metadata"] {
        let mut body = create_request();
        body["subject_spec"][key][format!("agent-{}", long(294))] = json!({});
        let e = refuse(&body);
        // The key's first 24 characters show which option it is, not the whole key.
        assert_eq!(e, format!("subject_spec.{key} key \"agent-{}…\" must be at most 128 characters, got 300", long(18)));
    }
}

#[test]
fn topics_are_at_most_64_of_at_most_128_characters() {
    let at_limit: Vec<String> = (0..64).map(|i| format!("{i:x<128}")).collect();
    let bundle = parse(&request_with("social_task", "topics", Some(json!(at_limit)))).unwrap();
    assert_eq!(bundle.task.social_tasks_topics, at_limit);

    let e = refuse(&request_with("social_task", "topics", Some(json!(["translation", long(300)]))));
    assert_eq!(e, "social_task.topics[1] must be at most 128 characters, got 300");
    let e = refuse(&request_with("social_task", "topics", Some(json!(vec!["fr"; 65]))));
    assert_eq!(e, "social_task.topics must hold at most 64 entries, got 65");
}

#[test]
fn a_key_with_a_nul_or_a_leading_dollar_in_a_stored_object_is_refused_by_its_path() {
    let cases = [
        ("social_task", "created_by_subject_data", json!({"a\u{0}b": 1}), "social_task.created_by_subject_data.a\\u0000b", "NUL"),
        ("social_task", "goal", json!({"k": [{"$x": 1}]}), "social_task.goal.k[0].$x", "'$'"),
        ("social_task", "properties", json!({"$set": {}}), "social_task.properties.$set", "'$'"),
        ("social_task", "report", json!({"r": {"\u{0}": 1}}), "social_task.report.r.\\u0000", "NUL"),
        ("subject_spec", "voting_options", json!({"$opt": "x"}), "subject_spec.voting_options.$opt", "'$'"),
        ("subject_spec", "voting_metadata", json!({"a": {"$b": 1}}), "subject_spec.voting_metadata.a.$b", "'$'"),
        (
            "subject_spec",
            "voting_request",
            json!({"mode": "builtin", "name": "x", "parameters": {"a\u{0}": 1}}),
            "subject_spec.voting_request.parameters.a\\u0000",
            "NUL",
        ),
        (
            "evaluation_spec",
            "evaluation",
            json!({"mode": "builtin", "name": "plurality", "parameters": {"$in": 1}}),
            "evaluation_spec.evaluation.parameters.$in",
            "'$'",
        ),
    ];
    for (section, key, value, path, says) in cases {
        let e = refuse(&request_with(section, key, Some(value)));
        assert!(e.starts_with(&format!("{path} is not a storable key")) && e.contains(says), "{section}.{key}: {e}");
    }
    // Dots in keys, and `$` inside a key or a value, are kept.
    let body = request_with("social_task", "properties", Some(json!({"a.b": "$x", "x$": 1})));
    assert_eq!(parse(&body).unwrap().task.social_task_properties["a.b"], json!("$x"));
}
