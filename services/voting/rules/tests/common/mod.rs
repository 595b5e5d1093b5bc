//! Test fixtures: a task with options `o0..o{n-1}` (or given keys), votes, and shortcuts to run a
//! builtin through the public JSON entry point.
#![allow(dead_code)]

use agora_voting_rules::{run, RuleError};
use agora_voting_schema::{Entity, Hook, HookInput, SocialChoiceEvaluationInput, SocialChoiceSubjectSpecInput, SocialTaskCoreData, Vote};
use chrono::{DateTime, TimeZone, Utc};
use serde_json::{json, Value};

pub struct Fixture {
    pub task: SocialTaskCoreData,
    pub spec: SocialChoiceSubjectSpecInput,
    pub eval: SocialChoiceEvaluationInput,
}

/// Options named `o0 .. o{n-1}`.
pub fn keys(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("o{i}")).collect()
}

pub fn fixture<S: AsRef<str>>(options: &[S]) -> Fixture {
    let map: serde_json::Map<String, Value> = options.iter().map(|k| (k.as_ref().to_owned(), json!({"name": k.as_ref()}))).collect();
    let task = SocialTaskCoreData::from_dict(&json!({
        "social_task_id": "task_0000abcd",
        "created_by_subject_id": "creator",
        "created_by_subject_data": {},
        "org_ids": [],
        "social_task_access_type": "public",
        "goal_data": {"translate": "handbook"},
        "social_tasks_topics": [],
        "social_task_properties": {},
        "creation_time": "2026-10-22T09:00:00",
    }))
    .expect("task fixture");
    let spec = SocialChoiceSubjectSpecInput::from_dict(&json!({
        "social_task_id": "task_0000abcd",
        "topic_title": "Pick a translator",
        "topic_description": "",
        "voting_options_map": map,
        "voting_option_metadata_map": {},
        "supported_protocols": [],
        "voting_message_request_creator": {},
    }))
    .expect("spec fixture");
    let eval = SocialChoiceEvaluationInput::from_dict(&json!({
        "social_task_id": "task_0000abcd",
        "constraints_entry_id": "",
        "constraints_entry_id_1": "",
        "voting_pqt": {},
        "choice_evaluation": {},
        "tie_breaker": {},
        "post_awarding": {},
    }))
    .expect("evaluation fixture");
    Fixture { task, spec, eval }
}

pub fn time(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_790_000_000 + secs, 0).single().expect("valid time")
}

/// Vote number `i`, submitted `i` seconds after a fixed instant.
pub fn vote(i: usize, vote_data: Value) -> Vote {
    vote_at(i, vote_data, time(i as i64))
}

pub fn vote_at(i: usize, vote_data: Value, submission_time: DateTime<Utc>) -> Vote {
    stored_vote(i, vote_data, submission_time, None)
}

/// Vote number `i` carrying `weight` (a JSON number), as a weighted task stores it.
pub fn weighted_vote(i: usize, vote_data: Value, weight: Value) -> Vote {
    stored_vote(i, vote_data, time(i as i64), Some(weight))
}

/// Votes from `(vote_data, weight)` pairs, in order.
pub fn weighted_votes(data: impl IntoIterator<Item = (Value, Value)>) -> Vec<Vote> {
    data.into_iter().enumerate().map(|(i, (d, w))| weighted_vote(i, d, w)).collect()
}

/// The vote document as a store holds it (`weight` only when given), read as the evaluator reads
/// it.
fn stored_vote(i: usize, vote_data: Value, submission_time: DateTime<Utc>, weight: Option<Value>) -> Vote {
    let mut doc = json!({
        "vote_id": format!("v{i}"),
        "social_task_id": "task_0000abcd",
        "submitter_subject_id": format!("voter{i}"),
        "vote_data": vote_data,
        "submission_time": submission_time.format("%Y-%m-%dT%H:%M:%S").to_string(),
        "qualified": true,
    });
    if let Some(w) = weight {
        doc["weight"] = w;
    }
    serde_json::from_value(doc).expect("vote document")
}

/// Votes from a list of `vote_data`, in order.
pub fn votes(data: impl IntoIterator<Item = Value>) -> Vec<Vote> {
    data.into_iter().enumerate().map(|(i, d)| vote(i, d)).collect()
}

impl Fixture {
    pub fn try_evaluate(
        &self,
        hook: Hook,
        rule: &str,
        params: Value,
        votes: &[Vote],
        winners: Option<&[String]>,
    ) -> Result<Value, RuleError> {
        let input = HookInput::evaluation(&self.task, &self.spec, &self.eval, votes, winners);
        run(hook, rule, &params, &input)
    }

    /// Runs a choice rule and unwraps.
    pub fn evaluate(&self, rule: &str, params: Value, votes: &[Vote]) -> Value {
        self.try_evaluate(Hook::ChoiceEvaluation, rule, params, votes, None).unwrap_or_else(|e| panic!("{rule}: {e}"))
    }

    pub fn try_pqt(&self, rule: &str, params: Value, vote_data: &Value) -> Result<Value, RuleError> {
        let input = HookInput::pqt(&self.task, &self.spec, &self.eval, vote_data, "voter");
        run(Hook::Pqt, rule, &params, &input)
    }

    pub fn pqt(&self, rule: &str, params: Value, vote_data: Value) -> Value {
        self.try_pqt(rule, params, &vote_data).unwrap_or_else(|e| panic!("{rule}: {e}"))
    }

    pub fn tie_break(&self, rule: &str, params: Value, votes: &[Vote], winners: &[&str]) -> Result<Value, RuleError> {
        let winners: Vec<String> = winners.iter().map(|s| s.to_string()).collect();
        self.try_evaluate(Hook::TieBreaker, rule, params, votes, Some(&winners))
    }

    pub fn post_award(&self, rule: &str, votes: &[Vote], winners: &[&str]) -> Value {
        let winners: Vec<String> = winners.iter().map(|s| s.to_string()).collect();
        self.try_evaluate(Hook::PostAward, rule, json!({}), votes, Some(&winners)).unwrap_or_else(|e| panic!("{rule}: {e}"))
    }
}

/// The `winners` of a choice-rule output, as strings.
pub fn winners(output: &Value) -> Vec<String> {
    output["winners"].as_array().expect("winners array").iter().map(|w| w.as_str().expect("winner key").to_owned()).collect()
}

/// `vote_data` carrying every shape, all derived from one ranking (of `o<i>` keys): the first
/// choice as `selected_option` (weight = ranking length), the ranking, the ranked options as
/// `approved`, and `n - position` as scores.
pub fn all_shapes(n: usize, ranking: &[usize]) -> Value {
    let keys: Vec<String> = ranking.iter().map(|&i| format!("o{i}")).collect();
    let scores: serde_json::Map<String, Value> = keys.iter().enumerate().map(|(p, k)| (k.clone(), json!((n - p) as f64 * 0.75))).collect();
    json!({
        "selected_option": keys.first(),
        "weight": ranking.len() as f64 * 0.1,
        "ranking": keys,
        "approved": keys,
        "scores": scores,
    })
}
