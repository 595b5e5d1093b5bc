//! `agora dead-letters ...`: the local server's operator routes (`infra/local/src/admin.rs`):
//! `GET /admin/dead-letters` and `POST /admin/dead-letters/redrive` (errors `{"error": "..."}`).

use crate::cli::DeadLettersCommand;
use crate::error::CliError;
use crate::http::{Api, Shape};
use crate::output::{self, Output};
use serde_json::{json, Value};

const COLUMNS: &[&str] = &["work_id", "queue", "key", "attempts", "last_error", "first_try", "last_try"];

pub async fn run(api: &Api, out: &Output, command: DeadLettersCommand) -> Result<(), CliError> {
    match command {
        DeadLettersCommand::List { queue } => {
            let query: Vec<(&str, &str)> = queue.as_deref().map(|q| ("queue", q)).into_iter().collect();
            let answer = api.get(Shape::Plain, &["admin", "dead-letters"], &query).await?;
            let letters = answer.json.get("dead_letters").and_then(Value::as_array).cloned().unwrap_or_default();
            out.answer(&answer, || output::rows(&letters, COLUMNS))
        }
        DeadLettersCommand::Redrive { all: _, queue, work_ids } => {
            let body = redrive_body(queue, work_ids);
            let answer = api.post(Shape::Plain, &["admin", "dead-letters", "redrive"], &body).await?;
            out.answer(&answer, || {
                output::pairs(&[
                    ("redriven", output::cell(answer.json.get("redriven"))),
                    ("work_ids", output::cell(answer.json.get("work_ids"))),
                ])
            })
        }
    }
}

/// The redrive request: every dead letter (`{}`) when no ids are named (`--all`), else those.
fn redrive_body(queue: Option<String>, work_ids: Vec<String>) -> Value {
    let mut body = json!({});
    if !work_ids.is_empty() {
        body["work_ids"] = json!(work_ids);
    }
    if let Some(queue) = queue {
        body["queue"] = json!(queue);
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redrive_names_its_ids_and_queue_or_asks_for_all() {
        assert_eq!(redrive_body(None, vec![]), json!({}));
        assert_eq!(redrive_body(Some("q".into()), vec!["w1".into()]), json!({"work_ids": ["w1"], "queue": "q"}));
    }
}
