//! `agora orcade ...`: Orcade's routes of orcade-1-3-5.md §3 (`{"ok", "data" | "error"}`).

use crate::cli::OrcadeCommand;
use crate::error::CliError;
use crate::http::{Api, Shape};
use crate::input::json_object_arg;
use crate::output::{self, Output};
use serde_json::{json, Value};

/// The columns of a job listing.
const JOB_COLUMNS: &[&str] = &["bid_job_id", "bid_job_status", "bid_job_mode", "bid_job_creator_id", "bid_job_tags", "bid_job_subject_ids"];
/// The columns of a bid listing.
const BID_COLUMNS: &[&str] = &["bid_id", "bid_subject_id", "is_winner", "bid_data", "submission_time"];

pub async fn run(api: &Api, out: &Output, command: OrcadeCommand) -> Result<(), CliError> {
    let shape = Shape::Envelope;
    match command {
        OrcadeCommand::Jobs { tags, match_, filter } => {
            let answer = if tags.is_empty() {
                let filter = filter.as_deref().map(|f| json_object_arg(f, "--filter")).transpose()?.unwrap_or_else(|| json!({}));
                api.post(shape, &["bid-jobs", "query"], &filter).await?
            } else {
                let tags = tags.join(",");
                api.get(shape, &["bid-jobs", "by-tags"], &[("tags", &tags), ("match", match_.as_str())]).await?
            };
            out.answer(&answer, || output::rows(list(answer.data(shape)), JOB_COLUMNS))
        }
        OrcadeCommand::Job { id } => {
            let answer = api.get(shape, &["bid-jobs", &id], &[]).await?;
            if !out.is_table() {
                return out.answer(&answer, String::new);
            }
            // The table also shows the bids, and so the winner.
            let bids = api.get(shape, &["bid-jobs", &id, "bids"], &[]).await?;
            let bids = list(bids.data(shape));
            let winner = bids.iter().find(|b| b["is_winner"] == json!(true)).map(|b| output::cell(b.get("bid_subject_id")));
            let text = format!(
                "{}\nwinner: {}\n{}",
                output::fields(answer.data(shape)),
                winner.unwrap_or_else(|| "(none yet)".into()),
                output::rows(bids, BID_COLUMNS)
            );
            out.answer(&answer, || text)
        }
        OrcadeCommand::Bids { id } => {
            let answer = api.get(shape, &["bid-jobs", &id, "bids"], &[]).await?;
            out.answer(&answer, || output::rows(list(answer.data(shape)), BID_COLUMNS))
        }
        OrcadeCommand::Bid { job, subject, data } => {
            let bid_data = json_object_arg(&data, "--data")?;
            let body = json!({"bid_subject_id": subject, "bid_data": bid_data});
            let answer = api.post(shape, &["bid-jobs", &job, "bids"], &body).await?;
            out.answer(&answer, || output::fields(answer.data(shape)))
        }
        OrcadeCommand::Close { job } => {
            let answer = api.post(shape, &["bid-jobs", &job, "close"], &json!({})).await?;
            out.answer(&answer, || output::fields(answer.data(shape)))
        }
    }
}

/// The documents of a listing (`[]` when the data is no array).
pub fn list(data: &Value) -> &[Value] {
    data.as_array().map(Vec::as_slice).unwrap_or_default()
}
