//! `agora voting ...`: the voting routes of voting-1-3-5.md §3 (errors `{"error": "..."}`).

use crate::cli::VotingCommand;
use crate::error::CliError;
use crate::http::{Api, Shape};
use crate::input::{body_from_file, json_object_arg};
use crate::output::{self, Output};
use crate::watch;
use serde_json::{json, Value};

/// The store's collection of tasks (`POST /generic-query/{collection}`).
pub const TASKS: &str = "social_task_core_data";
/// The store's collection of votes.
pub const VOTES: &str = "votes";

pub async fn run(api: &Api, out: &Output, command: VotingCommand) -> Result<(), CliError> {
    match command {
        VotingCommand::Create { file } => {
            let body = body_from_file(&file)?;
            let answer = api.post(Shape::Plain, &["submit-social-choice-task"], &body).await?;
            out.answer(&answer, || output::cell(answer.json.get("social_task_id")))
        }
        VotingCommand::Vote { task, subject, data, vote_id } => {
            let vote_data = json_object_arg(&data, "--data")?;
            let body = vote_body(&task, &subject, vote_data, vote_id);
            let answer = api.post(Shape::Plain, &["submit-vote"], &body).await?;
            out.answer(&answer, || output::fields(&answer.json))
        }
        VotingCommand::Status { id } => {
            let answer = api.get(Shape::Plain, &["get-status", &id], &[]).await?;
            out.answer(&answer, || output::cell(answer.json.get("status")))
        }
        VotingCommand::Report { id } => {
            let answer = api.get(Shape::Plain, &["get-report", &id], &[]).await?;
            out.answer(&answer, || report_table(&answer.json))
        }
        VotingCommand::Watch(args) => watch::run(api, out, &args).await,
    }
}

/// A `POST /submit-vote` body with its six keys: a new UUID unless `vote_id` is given, the
/// time now (the server sets its own), and `qualified` true (the PQT decides).
pub fn vote_body(task: &str, subject: &str, vote_data: Value, vote_id: Option<String>) -> Value {
    json!({
        "vote_id": vote_id.unwrap_or_else(|| uuid::Uuid::new_v4().to_string()),
        "social_task_id": task,
        "submitter_subject_id": subject,
        "vote_data": vote_data,
        "submission_time": chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.6f").to_string(),
        "qualified": true,
    })
}

/// The winners of a report (`report_json.winners`), empty before completion.
pub fn winners(report: &Value) -> Vec<String> {
    report.get("winners").and_then(Value::as_array).map(|w| w.iter().map(|v| output::cell(Some(v))).collect()).unwrap_or_default()
}

/// A report as a table: its winners, when it was evaluated, the votes it counted, and the
/// evaluation's output.
pub fn report_table(report: &Value) -> String {
    if report.as_object().is_none_or(|r| r.is_empty()) {
        return "(no report yet: the task is not complete)".to_owned();
    }
    let votes = report.get("votes").and_then(Value::as_array).map_or(0, Vec::len);
    output::pairs(&[
        ("task", output::cell(output::field(report, "task.social_task_id"))),
        ("winners", winners(report).join(", ")),
        ("evaluated_at", output::cell(report.get("evaluated_at"))),
        ("votes counted", votes.to_string()),
        ("evaluation", output::cell(output::field(report, "dsl_outputs.choice_evaluation_dsl"))),
        ("post_award", output::cell(report.get("post_award_payload"))),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vote_has_its_six_keys() {
        let body = vote_body("task_1", "agent-1", json!({"selected_option": "x"}), None);
        let keys: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["vote_id", "social_task_id", "submitter_subject_id", "vote_data", "submission_time", "qualified"]);
        assert!(uuid::Uuid::parse_str(body["vote_id"].as_str().unwrap()).is_ok());
        assert_eq!(vote_body("t", "s", json!({}), Some("v-1".into()))["vote_id"], "v-1");
    }

    #[test]
    fn winners_come_from_the_report() {
        assert_eq!(winners(&json!({"winners": ["a", "b"]})), ["a", "b"]);
        assert!(winners(&json!({})).is_empty());
        assert!(report_table(&json!({})).contains("not complete"));
    }
}
