//! `agora xchange ...`: Xchange's routes of xchange-1-3-5.md §3 (`{"ok", "data" | "error"}`).
//!
//! There is no command to take (accept) an open task: Xchange has no route for it; open mode
//! asks each subject's `task_evaluation_function` instead (§4).

use crate::cli::XchangeCommand;
use crate::error::CliError;
use crate::http::{Api, Shape};
use crate::input::{body_from_file, json_object_arg};
use crate::orcade::list;
use crate::output::{self, Output};
use serde_json::json;

const TASK_COLUMNS: &[&str] =
    &["task_id", "task_assignment_type", "task_assignment_status", "taski_creation_time", "task_metadata.task_assignment"];
const SUBJECT_COLUMNS: &[&str] = &["subject_id", "subject_name", "topics", "subject_capabilities"];

pub async fn run(api: &Api, out: &Output, command: XchangeCommand) -> Result<(), CliError> {
    let shape = Shape::Envelope;
    match command {
        XchangeCommand::Tasks { filter } => {
            let filter = filter.as_deref().map(|f| json_object_arg(f, "--filter")).transpose()?.unwrap_or_else(|| json!({}));
            let answer = api.post(shape, &["tasks", "query"], &filter).await?;
            out.answer(&answer, || output::rows(list(answer.data(shape)), TASK_COLUMNS))
        }
        XchangeCommand::Task { id } => {
            let answer = api.get(shape, &["tasks", &id], &[]).await?;
            out.answer(&answer, || output::fields(answer.data(shape)))
        }
        XchangeCommand::Submit { file } => {
            let body = body_from_file(&file)?;
            let answer = api.post(shape, &["tasks"], &body).await?;
            out.answer(&answer, || output::fields(answer.data(shape)))
        }
        XchangeCommand::Subjects { filter } => {
            let filter = filter.as_deref().map(|f| json_object_arg(f, "--filter")).transpose()?.unwrap_or_else(|| json!({}));
            let answer = api.post(shape, &["subjects", "query"], &filter).await?;
            out.answer(&answer, || output::rows(list(answer.data(shape)), SUBJECT_COLUMNS))
        }
        XchangeCommand::AddSubject { file } => {
            let body = body_from_file(&file)?;
            let answer = api.post(shape, &["subjects"], &body).await?;
            out.answer(&answer, || output::fields(answer.data(shape)))
        }
    }
}
