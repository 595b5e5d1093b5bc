//! `agora voting watch ID`: follows a task until it is complete, with a progress bar toward its
//! evaluation trigger (voting-1-3-5.md §1.3: a private task's members of `org_ids` with a
//! qualified vote; a public task's qualified votes toward `duration`), then prints its winners.
//!
//! A task that streams live (`GET /is-live-streaming-enabled/{id}`) is followed on the live
//! stream (§3.5, `ws(s)://<host>/live-stream`): full updates carry the task bundle, compact ones
//! the task and the votes since the last update with counts (`agora_voting_core::live::protocol`).
//! Any other task, or one whose stream breaks off, is polled: `GET /get-status/{id}` and
//! `POST /generic-query/...` for the task and its votes.

use crate::cli::WatchArgs;
use crate::error::CliError;
use crate::http::{Api, ApiError, Shape};
use crate::output::{self, Output};
use crate::voting::{report_table, winners, TASKS, VOTES};
use futures::{SinkExt, StreamExt};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::Message;

/// The status of a task that is evaluated.
const COMPLETE: &str = "complete";
/// Public tasks' trigger when `duration` is absent (§2.1).
const DEFAULT_DURATION: u64 = 5;
/// The live stream's shortest refresh interval (`protocol::REFRESH_RANGE`).
const MIN_INTERVAL: f64 = 0.05;

pub async fn run(api: &Api, out: &Output, args: &WatchArgs) -> Result<(), CliError> {
    let interval = args.interval.clamp(MIN_INTERVAL, 3600.0);
    let bar = ProgressBar::new_spinner();
    bar.enable_steady_tick(Duration::from_millis(200));
    let follow = follow(api, &args.id, interval, &bar);
    let followed = match args.timeout {
        Some(secs) => tokio::time::timeout(Duration::from_secs_f64(secs.max(0.0)), follow)
            .await
            .map_err(|_| CliError::Timeout(format!("task {} was not complete after {secs} s", args.id)))?,
        None => follow.await,
    };
    bar.finish_and_clear();
    followed?;
    let answer = api.get(Shape::Plain, &["get-report", &args.id], &[]).await?;
    out.answer(&answer, || format!("winners: {}\n{}", winners(&answer.json).join(", "), report_table(&answer.json)))
}

/// Follows the task until it is complete: on its live stream while it has one, else polling.
async fn follow(api: &Api, id: &str, interval: f64, bar: &ProgressBar) -> Result<(), CliError> {
    let mut progress = Progress::default();
    let enabled = api.get(Shape::Plain, &["is-live-streaming-enabled", id], &[]).await?;
    if enabled.json.get("enabled") == Some(&Value::Bool(true)) {
        bar.set_message("connecting to the live stream");
        match stream(api, id, interval, &mut progress, bar).await {
            Ok(StreamEnd::Complete) => return Ok(()),
            Ok(StreamEnd::Closed) => bar.println("the live stream closed before the task was complete: polling"),
            Err(StreamBroken(cause)) => bar.println(format!("the live stream broke off ({cause}): polling")),
        }
    }
    poll(api, id, interval, &mut progress, bar).await
}

/// How a live stream ended without an error.
enum StreamEnd {
    Complete,
    Closed,
}

/// A stream that failed in a way polling makes up for (connection, transport).
struct StreamBroken(String);

async fn stream(api: &Api, id: &str, interval: f64, progress: &mut Progress, bar: &ProgressBar) -> Result<StreamEnd, StreamBroken> {
    let url = live_stream_url(api).map_err(|e| StreamBroken(e.to_string()))?;
    let mut request = url.as_str().into_client_request().map_err(|e| StreamBroken(e.to_string()))?;
    if let Some(token) = api.token() {
        let value = format!("Bearer {token}").parse().map_err(|_| StreamBroken("the token is not a valid header value".into()))?;
        request.headers_mut().insert("authorization", value);
    }
    let (mut socket, _) = tokio_tungstenite::connect_async(request).await.map_err(|e| StreamBroken(e.to_string()))?;
    let hello = json!({"social_task_id": id, "refresh_interval": interval});
    socket.send(Message::Text(hello.to_string().into())).await.map_err(|e| StreamBroken(e.to_string()))?;
    while let Some(message) = socket.next().await {
        let text = match message.map_err(|e| StreamBroken(e.to_string()))? {
            Message::Text(text) => text,
            Message::Close(_) => break,
            _ => continue,
        };
        let message: Value = serde_json::from_str(text.as_str()).map_err(|e| StreamBroken(format!("a message that is not JSON: {e}")))?;
        if let Some(error) = message.get("error") {
            // Not streaming after all (a race with the check above): polling still works.
            return Err(StreamBroken(output::cell(Some(error))));
        }
        progress.apply_update(&message);
        progress.show(bar);
        if progress.complete() {
            let _ = socket.close(None).await;
            return Ok(StreamEnd::Complete);
        }
    }
    Ok(StreamEnd::Closed)
}

/// `ws(s)://<host>/<base path>/live-stream` of the API's base URL.
fn live_stream_url(api: &Api) -> Result<reqwest::Url, ApiError> {
    let mut url = api.url(&["live-stream"], &[])?;
    let scheme = if url.scheme() == "https" { "wss" } else { "ws" };
    url.set_scheme(scheme).map_err(|_| ApiError::BadUrl(url.to_string(), "cannot be a WebSocket URL".into()))?;
    Ok(url)
}

async fn poll(api: &Api, id: &str, interval: f64, progress: &mut Progress, bar: &ProgressBar) -> Result<(), CliError> {
    let by_task = json!({"social_task_id": id});
    loop {
        let status = api.get(Shape::Plain, &["get-status", id], &[]).await?;
        let tasks = api.post(Shape::Plain, &["generic-query", TASKS], &by_task).await?;
        if let Some(task) = tasks.json.as_array().and_then(|t| t.first()) {
            progress.task = task.clone();
        }
        progress.task["status"] = status.json.get("status").cloned().unwrap_or(Value::Null);
        let votes = api.post(Shape::Plain, &["generic-query", VOTES], &by_task).await?;
        progress.add_votes(votes.json.as_array().map(Vec::as_slice).unwrap_or_default());
        progress.show(bar);
        if progress.complete() {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_secs_f64(interval)).await;
    }
}

/// What is known of the task: its document, its votes by id, and the latest count of qualified
/// votes a compact update gave.
#[derive(Debug, Default)]
struct Progress {
    task: Value,
    votes: HashMap<String, Value>,
    qualified_count: Option<u64>,
}

impl Progress {
    /// Takes in a live-stream update, full or compact.
    fn apply_update(&mut self, message: &Value) {
        let Some(data) = message.get("data") else { return };
        if let Some(task) = data.get("task").filter(|t| t.is_object()) {
            // A compact update may leave the task's largest fields out: keep what is known.
            match (self.task.as_object_mut(), task.as_object()) {
                (Some(known), Some(fresh)) => known.extend(fresh.iter().map(|(k, v)| (k.clone(), v.clone()))),
                _ => self.task = task.clone(),
            }
        }
        self.add_votes(data.get("votes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default());
        self.qualified_count = output::field(message, "compact.qualified_vote_count").and_then(Value::as_u64);
    }

    fn add_votes(&mut self, votes: &[Value]) {
        for vote in votes {
            if let Some(id) = vote.get("vote_id").and_then(Value::as_str) {
                self.votes.insert(id.to_owned(), vote.clone());
            }
        }
    }

    fn status(&self) -> &str {
        self.task.get("status").and_then(Value::as_str).unwrap_or("?")
    }

    fn complete(&self) -> bool {
        self.status() == COMPLETE
    }

    fn qualified(&self) -> impl Iterator<Item = &Value> {
        self.votes.values().filter(|v| v.get("qualified") == Some(&Value::Bool(true)))
    }

    /// Progress toward the trigger: (done, needed, what is counted); `None` for an access type
    /// that never triggers (§1.3).
    fn toward_trigger(&self) -> Option<(u64, u64, &'static str)> {
        match self.task.get("social_task_access_type").and_then(Value::as_str) {
            Some("private") => {
                let members: Vec<&str> = self.task.get("org_ids")?.as_array()?.iter().filter_map(Value::as_str).collect();
                let voted = members
                    .iter()
                    .filter(|m| self.qualified().any(|v| v.get("submitter_subject_id").and_then(Value::as_str) == Some(**m)))
                    .count();
                Some((voted as u64, members.len() as u64, "members with a qualified vote"))
            }
            Some("public") => {
                let needed = self.task.get("duration").and_then(Value::as_u64).unwrap_or(DEFAULT_DURATION);
                let counted = (self.qualified().count() as u64).max(self.qualified_count.unwrap_or(0));
                Some((counted.min(needed), needed, "qualified votes"))
            }
            _ => None,
        }
    }

    fn show(&self, bar: &ProgressBar) {
        match self.toward_trigger() {
            Some((done, needed, what)) => {
                if bar.length() != Some(needed) {
                    bar.set_length(needed);
                    bar.set_style(
                        ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {msg}")
                            .expect("a valid template")
                            .progress_chars("=> "),
                    );
                }
                bar.set_position(done);
                bar.set_message(format!("{what} (task {})", self.status()));
            }
            None => bar.set_message(format!("{} votes (task {}; its access type has no trigger)", self.votes.len(), self.status())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vote(id: &str, who: &str, qualified: bool) -> Value {
        json!({"vote_id": id, "submitter_subject_id": who, "qualified": qualified})
    }

    #[test]
    fn a_private_task_counts_its_members_with_a_qualified_vote() {
        let mut p = Progress::default();
        let task = json!({"status": "started", "social_task_access_type": "private", "org_ids": ["a", "b", "c"]});
        p.apply_update(&json!({"type": "update", "data": {"task": task, "votes": [vote("1", "a", true), vote("2", "b", false), vote("3", "x", true)]}}));
        assert_eq!(p.toward_trigger(), Some((1, 3, "members with a qualified vote")));
        assert!(!p.complete());
        // A compact update: the task without org_ids (left out), the votes since.
        p.apply_update(&json!({"type": "update", "data": {"task": {"status": "complete"}, "votes": [vote("4", "c", true)]}, "compact": {"qualified_vote_count": 3}}));
        assert_eq!(p.toward_trigger().map(|t| (t.0, t.1)), Some((2, 3)));
        assert!(p.complete());
    }

    #[test]
    fn a_public_task_counts_qualified_votes_toward_its_duration() {
        let mut p = Progress { task: json!({"social_task_access_type": "public", "duration": 4}), ..Progress::default() };
        p.add_votes(&[vote("1", "a", true), vote("1", "a", true), vote("2", "b", false)]);
        assert_eq!(p.toward_trigger().map(|t| (t.0, t.1)), Some((1, 4)));
        p.qualified_count = Some(9);
        assert_eq!(p.toward_trigger().map(|t| (t.0, t.1)), Some((4, 4)), "capped at the trigger");
        p.task = json!({"social_task_access_type": "public"});
        assert_eq!(p.toward_trigger().map(|t| t.1), Some(DEFAULT_DURATION));
        p.task = json!({"social_task_access_type": "committee"});
        assert_eq!(p.toward_trigger(), None);
    }

    #[test]
    fn the_stream_url_follows_the_api_scheme_and_path() {
        assert_eq!(live_stream_url(&Api::new("http://h:8080", None).unwrap()).unwrap().as_str(), "ws://h:8080/live-stream");
        assert_eq!(live_stream_url(&Api::new("https://h/prod/", None).unwrap()).unwrap().as_str(), "wss://h/prod/live-stream");
    }
}
