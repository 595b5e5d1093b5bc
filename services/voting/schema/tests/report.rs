//! §2.6 `report_json` and the hook input of §4 ("Hooks in practice"): exact field sets and order.

mod common;

use agora_voting_schema::time::parse_datetime;
use agora_voting_schema::{
    Entity, Hook, HookInput, Report, SocialChoiceEvaluationInput, SocialChoiceSubjectSpecInput, SocialTaskCoreData, Vote,
};
use common::*;
use serde_json::{json, Map, Value};

struct Fixture {
    task: SocialTaskCoreData,
    spec: SocialChoiceSubjectSpecInput,
    eval: SocialChoiceEvaluationInput,
    votes: Vec<Vote>,
}

fn fixture() -> Fixture {
    let mut task = SocialTaskCoreData::from_dict(&task_doc()).unwrap();
    task.status = Some("started".into());
    let mut second = vote_doc();
    second["vote_id"] = json!("c41a");
    second["submitter_subject_id"] = json!("agent-reviewer-02");
    second["submission_time"] = json!("2026-10-22T10:04:00");
    Fixture {
        task,
        spec: SocialChoiceSubjectSpecInput::from_dict(&subject_spec_doc()).unwrap(),
        eval: SocialChoiceEvaluationInput::from_dict(&evaluation_doc()).unwrap(),
        votes: vec![Vote::from_dict(&vote_doc()).unwrap(), Vote::from_dict(&second).unwrap()],
    }
}

const REPORT_KEYS: [&str; 8] =
    ["task", "subject_spec", "evaluation_spec", "votes", "winners", "post_award_payload", "dsl_outputs", "evaluated_at"];

fn dsl_outputs() -> Map<String, Value> {
    let v = json!({
        "choice_evaluation_dsl": {"winner": "agent-translator-02", "tally": {"agent-translator-02": 2, "agent-translator-01": 1}},
        "post_awarding_dsl": {"assigned_to": "agent-translator-02", "start_by": "2026-10-23T09:00:00Z"}
    });
    v.as_object().unwrap().clone()
}

#[test]
fn report_has_exactly_the_spec_fields_in_order() {
    let f = fixture();
    let winners = vec!["agent-translator-02".to_owned()];
    let payload = json!({"assigned_to": "agent-translator-02", "start_by": "2026-10-23T09:00:00Z"});
    let outputs = dsl_outputs();
    let evaluated_at = parse_datetime(&json!("2026-10-22T10:07:45.221000Z")).unwrap();
    let report = Report {
        task: &f.task,
        subject_spec: &f.spec,
        evaluation_spec: &f.eval,
        votes: &f.votes,
        winners: &winners,
        post_award_payload: &payload,
        dsl_outputs: &outputs,
        evaluated_at,
    };
    let v = serde_json::to_value(&report).unwrap();
    assert_eq!(keys(&v), REPORT_KEYS);
    assert_same_doc(&v["task"], &f.task.to_dict());
    assert_eq!(v["task"]["status"], "started");
    assert_same_doc(&v["subject_spec"], &f.spec.to_dict());
    assert_same_doc(&v["evaluation_spec"], &f.eval.to_dict());
    assert_same_doc(&v["votes"], &Value::Array(f.votes.iter().map(Entity::to_dict).collect()));
    assert_eq!(v["winners"], json!(["agent-translator-02"]));
    assert_same_doc(&v["post_award_payload"], &payload);
    assert_same_doc(&v["dsl_outputs"], &Value::Object(outputs.clone()));
    assert_eq!(v["evaluated_at"], "2026-10-22T10:07:45.221000");
}

#[test]
fn report_evaluated_at_is_naive_utc() {
    let f = fixture();
    let outputs = Map::new();
    let evaluated_at = parse_datetime(&json!("2026-10-22T12:07:45+02:00")).unwrap();
    let report = Report::<Vote> {
        task: &f.task,
        subject_spec: &f.spec,
        evaluation_spec: &f.eval,
        votes: &[],
        winners: &[],
        post_award_payload: &Value::Object(Map::new()),
        dsl_outputs: &outputs,
        evaluated_at,
    };
    let v = serde_json::to_value(&report).unwrap();
    assert_eq!(v["evaluated_at"], "2026-10-22T10:07:45");
    assert_eq!(v["votes"], json!([]));
    assert_eq!(v["winners"], json!([]));
    assert_eq!(keys(&v), REPORT_KEYS);
}

#[test]
fn report_over_raw_vote_documents_keeps_them_as_stored() {
    let f = fixture();
    let raw = vec![vote_doc()];
    let outputs = dsl_outputs();
    let report = Report {
        task: &f.task,
        subject_spec: &f.spec,
        evaluation_spec: &f.eval,
        votes: &raw,
        winners: &[],
        post_award_payload: &json!({}),
        dsl_outputs: &outputs,
        evaluated_at: parse_datetime(&json!("2026-10-22T10:07:45")).unwrap(),
    };
    let v = serde_json::to_value(&report).unwrap();
    assert_same_doc(&v["votes"], &json!([vote_doc()]));
    // the stored report reads back as the task's report_json
    let mut doc = f.task.to_dict();
    doc["report_json"] = v.clone();
    let task = SocialTaskCoreData::from_dict(&doc).unwrap();
    assert_same_doc(&Value::Object(task.report_json), &v);
}

// ---- hook input -----------------------------------------------------------------------------

#[test]
fn invitation_input_has_task_and_subject_spec_only() {
    let f = fixture();
    let v = serde_json::to_value(HookInput::invitation(&f.task, &f.spec)).unwrap();
    assert_eq!(keys(&v), ["user_input", "addons"]);
    assert_eq!(keys(&v["user_input"]), ["task", "subject_spec"]);
    assert_same_doc(&v["user_input"]["task"], &f.task.to_dict());
    assert_same_doc(&v["user_input"]["subject_spec"], &f.spec.to_dict());
    // §4.2 gives the invitation creator no addons
    assert_eq!(v["addons"], json!({}));
}

#[test]
fn pqt_input_has_vote_data_and_the_voter_in_addons() {
    let f = fixture();
    let vote = &f.votes[0];
    let v = serde_json::to_value(HookInput::pqt(&f.task, &f.spec, &f.eval, &vote.vote_data, &vote.submitter_subject_id)).unwrap();
    assert_eq!(keys(&v), ["user_input", "addons"]);
    assert_eq!(keys(&v["user_input"]), ["task", "subject_spec", "evaluation_spec", "vote_data"]);
    assert_same_doc(&v["user_input"]["evaluation_spec"], &f.eval.to_dict());
    assert_eq!(v["user_input"]["vote_data"], json!({"selected_option": "agent-translator-02"}));
    assert_same_doc(&v["addons"], &json!({"submitter_subject_id": "agent-reviewer-01"}));
}

#[test]
fn choice_evaluation_input_has_votes_and_the_task_id_in_addons() {
    let f = fixture();
    let v = serde_json::to_value(HookInput::evaluation(&f.task, &f.spec, &f.eval, &f.votes, None)).unwrap();
    assert_eq!(keys(&v), ["user_input", "addons"]);
    assert_eq!(keys(&v["user_input"]), ["task", "subject_spec", "evaluation_spec", "votes"]);
    assert_same_doc(&v["user_input"]["votes"], &Value::Array(f.votes.iter().map(Entity::to_dict).collect()));
    assert_same_doc(&v["addons"], &json!({"social_task_id": "task_3f9c6d2e"}));
}

#[test]
fn tie_breaker_and_post_award_inputs_add_the_winners() {
    let f = fixture();
    let tied = vec!["agent-translator-01".to_owned(), "agent-translator-02".to_owned()];
    let base = HookInput::evaluation(&f.task, &f.spec, &f.eval, &f.votes, None);
    let direct = HookInput::evaluation(&f.task, &f.spec, &f.eval, &f.votes, Some(&tied));
    for input in [base.with_winners(&tied), direct] {
        let v = serde_json::to_value(&input).unwrap();
        assert_eq!(keys(&v), ["user_input", "addons"]);
        assert_eq!(keys(&v["user_input"]), ["task", "subject_spec", "evaluation_spec", "votes", "winners"]);
        assert_eq!(v["user_input"]["winners"], json!(["agent-translator-01", "agent-translator-02"]));
        assert_same_doc(&v["addons"], &json!({"social_task_id": "task_3f9c6d2e"}));
    }
    // with_winners leaves the original untouched
    let v = serde_json::to_value(&base).unwrap();
    assert!(v["user_input"].get("winners").is_none());

    let none: Vec<String> = vec![];
    let v = serde_json::to_value(base.with_winners(&none)).unwrap();
    assert_eq!(v["user_input"]["winners"], json!([]), "an empty list is still sent");
}

#[test]
fn hook_output_keys_match_the_report() {
    assert_eq!(Hook::ChoiceEvaluation.output_key(), "choice_evaluation_dsl");
    assert_eq!(Hook::TieBreaker.output_key(), "tie_breaker_dsl");
    assert_eq!(Hook::PostAward.output_key(), "post_awarding_dsl");
    assert_eq!(Hook::Pqt.output_key(), "voting_pqt_dsl");
}
