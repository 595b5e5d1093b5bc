//! What a live-stream client sends and receives (§3.5), the same through every front door.
//!
//! A client sends `{"social_task_id": "<id>", "refresh_interval": seconds}`; a request that is
//! not that, or names a task that does not stream live, gets `{"error": ...}` and is closed.
//! Otherwise the stream sends updates: at once, at least every `refresh_interval` seconds, as
//! soon as a vote is stored or the status changes, and a final one once the task is complete,
//! after which it closes.
//!
//! # Updates
//!
//! No message is longer than [`MAX_MESSAGE_BYTES`] (120 KiB, within API Gateway's 128 KB for a
//! WebSocket message, which a larger one would not reach the client past), whatever the size of
//! the task, through every front door alike, so that one client reads both. An update is one
//! of two shapes:
//!
//! * **Full**, while the task's full bundle fits:
//!   `{"type": "update", "data": <full task bundle as GET /get-full-task-bundle/{id} answers>}`,
//!   the message of §3.5. It has no `compact` field.
//! * **Compact**, once it does not: the task and the changes since the connection's last update,
//!   with a `compact` field that counts what there is and says how to read the rest:
//!
//!   ```json
//!   {"type": "update",
//!    "data": {"task": {"social_task_id": "...", "status": "started", "...": "..."},
//!             "votes": ["... the votes stored since the last update, from position votes_from ..."]},
//!    "compact": {"vote_count": 250, "qualified_vote_count": 240,
//!                "votes_from": 200, "votes_to": 230,
//!                "left_out": ["subject_spec", "evaluation_input", "task.report_json"],
//!                "read": {"bundle": {"method": "GET", "path": "/get-full-task-bundle/<id>"},
//!                         "report": {"method": "GET", "path": "/get-report/<id>"},
//!                         "votes": {"method": "POST", "path": "/generic-query/votes?skip=230&limit=20",
//!                                   "body": {"social_task_id": "<id>"}}}}}
//!   ```
//!
//!   - `data.task` is the task document, always with `social_task_id` and `status`; a task
//!     document over [`TASK_BYTES`] has its largest fields left out (named `task.<field>` in
//!     `left_out`). `subject_spec` and `evaluation_input` are never in a compact update (they do
//!     not change): read them once from the bundle route (or `POST
//!     /generic-query/subject_specs` and `/generic-query/evaluation_inputs` with
//!     `{"social_task_id": ...}`).
//!   - Votes have positions: their order in the store, the order in which `POST
//!     /generic-query/votes` with `{"social_task_id": ...}` pages through them (`?skip=&limit=`).
//!     `data.votes` holds the votes at positions `votes_from` up to `votes_to` (exclusive), in
//!     order: those the connection had not been sent, as many as fit. A vote too large for any
//!     message is left out, its id in `votes_left_out`. `vote_count` is the number of votes
//!     stored (qualified or not), `qualified_vote_count` those that passed the PQT.
//!   - `read` says how to read what the update leaves out over the HTTP API: `bundle` always,
//!     `report` when `task.report_json` is left out, `votes` (the positions from `votes_to` to
//!     `vote_count`) when more votes are stored than the update carries; the next updates go on
//!     from `votes_to`, so a client may also just wait for them.
//!
//!   A client keeps the votes it has by `vote_id`: an update may repeat votes it sent before
//!   (two updates built at once on AWS), and a vote stored by another writer at the same moment
//!   may take a position before one already sent, so a client that must hold every vote checks
//!   its count against `vote_count` and reads the votes again when they differ.
//!
//! Once a stream has sent compact updates it may send a full one again only if the bundle
//! shrinks, which stored votes never do. The final update (the task `complete`, its report in
//! `data.task.report_json` unless left out) is followed by the close.

use crate::flows::query::BundleParts;
use agora_store::{to_json, Json};
use agora_voting_schema::TaskStatus;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::json;
use serde_json::value::RawValue;
use std::sync::OnceLock;
use std::time::Duration;

/// The longest message the stream sends, in bytes: 120 KiB, within API Gateway's 128 KB for a
/// WebSocket message (however a KB is counted). A full update longer than this is sent compact.
pub const MAX_MESSAGE_BYTES: usize = 120 * 1024;

/// The most bytes a compact update gives the task document; a longer one has its largest
/// fields left out (all but `social_task_id` and `status`), the rest of the message is votes.
pub const TASK_BYTES: usize = 48 * 1024;

/// Sent (then the connection is closed) when the task does not exist or does not stream live.
pub const NOT_ENABLED: &str = "Live streaming not enabled for this task";

/// Sent (then the connection is closed) when the request is not what §3.5 asks for.
pub const BAD_REQUEST: &str = "Invalid request format. Must be JSON with 'social_task_id' and 'refresh_interval'";

/// The shortest and longest refresh intervals served, in seconds: 0.05 to 3600. A request
/// outside is refused with [`BAD_REQUEST`].
pub const REFRESH_RANGE: (f64, f64) = (0.05, 3600.0);

/// A client's request: `{"social_task_id": "...", "refresh_interval": seconds}`.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveRequest {
    pub social_task_id: String,
    pub refresh_interval: Duration,
}

/// Reads a request. `None` when it is not JSON, lacks either field, or the interval is not a
/// number of seconds within [`REFRESH_RANGE`] (the client then gets [`BAD_REQUEST`]).
pub fn parse_request(text: &str) -> Option<LiveRequest> {
    #[derive(Deserialize)]
    struct Request {
        social_task_id: String,
        refresh_interval: f64,
    }
    let r: Request = serde_json::from_str(text).ok()?;
    let (min, max) = REFRESH_RANGE;
    let secs = Some(r.refresh_interval).filter(|s| (min..=max).contains(s))?;
    Some(LiveRequest { social_task_id: r.social_task_id, refresh_interval: Duration::from_secs_f64(secs) })
}

/// `{"error": message}`.
pub fn error_message(message: &str) -> String {
    json!({ "error": message }).to_string()
}

/// `{"type": "update", "data": <full task bundle>}`, the bundle passed through as stored.
pub fn update_message(bundle: &RawValue) -> String {
    format!(r#"{{"type":"update","data":{}}}"#, bundle.get())
}

/// One update for one connection.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveUpdate {
    /// The message, at most [`MAX_MESSAGE_BYTES`].
    pub message: String,
    /// Whether it is the last: the task is complete (the connection is closed after it).
    pub complete: bool,
    /// How many votes (by position) the connection has been sent once it has this message: the
    /// `votes_sent` of its next update.
    pub votes_sent: usize,
}

/// A task as its live streams see it at one moment: its bundle's parts, read once, from which
/// each connection's update is made ([`LiveSnapshot::update_for`]), cheaply, however many
/// connections there are.
#[derive(Debug)]
pub struct LiveSnapshot {
    social_task_id: String,
    parts: BundleParts,
    status: Option<String>,
    /// The full update, when it fits.
    full: Option<String>,
    /// The task part of compact updates, and the fields it leaves out.
    compact_task: OnceLock<(Json, Vec<String>)>,
    qualified: OnceLock<usize>,
}

impl LiveSnapshot {
    pub fn new(social_task_id: &str, parts: BundleParts) -> Self {
        #[derive(Deserialize)]
        struct Head {
            #[serde(default)]
            status: Option<String>,
        }
        let status = serde_json::from_str::<Head>(parts.task.get()).ok().and_then(|h| h.status);
        // The parts alone, without the envelope: no full update can be shorter.
        let least = parts.task.get().len()
            + parts.subject_spec.as_ref().map_or(0, |d| d.get().len())
            + parts.evaluation_input.as_ref().map_or(0, |d| d.get().len())
            + parts.votes.iter().map(|v| v.get().len()).sum::<usize>();
        let full = (least <= MAX_MESSAGE_BYTES).then(|| update_message(&parts.to_json())).filter(|m| m.len() <= MAX_MESSAGE_BYTES);
        Self { social_task_id: social_task_id.to_owned(), parts, status, full, compact_task: OnceLock::new(), qualified: OnceLock::new() }
    }

    /// Whether the task is complete (or cancelled: it changes no more): every update
    /// is then the final one.
    pub fn complete(&self) -> bool {
        let status = self.status.as_deref();
        status == Some(TaskStatus::Complete.as_str()) || status == Some(TaskStatus::Cancelled.as_str())
    }

    /// Whether the task's updates are full ones (its bundle fits in a message).
    pub fn is_full(&self) -> bool {
        self.full.is_some()
    }

    /// The update for a connection that has been sent the votes before position `votes_sent`.
    pub fn update_for(&self, votes_sent: usize) -> LiveUpdate {
        let complete = self.complete();
        match &self.full {
            Some(message) => LiveUpdate { message: message.clone(), complete, votes_sent: self.parts.votes.len() },
            None => {
                let (message, votes_sent) = self.compact(votes_sent);
                LiveUpdate { message, complete, votes_sent }
            }
        }
    }

    /// A compact update for a connection sent the votes before `votes_sent`, and the position
    /// after the last vote it covers.
    fn compact(&self, votes_sent: usize) -> (String, usize) {
        let votes = &self.parts.votes;
        let total = votes.len();
        let from = votes_sent.min(total);
        let (task, task_left_out) = self.compact_task();
        let mut left_out = vec!["subject_spec".to_owned(), "evaluation_input".to_owned()];
        left_out.extend(task_left_out.iter().map(|f| format!("task.{f}")));
        let id = &self.social_task_id;
        let path_id = path_segment(id);
        let report_left_out = task_left_out.iter().any(|f| f == "report_json");
        let qualified = *self.qualified.get_or_init(|| votes.iter().filter(|v| qualified(v)).count());
        let render = |sent: &[Json], to: usize, rest: Option<(usize, usize)>, vote_left_out: Option<&str>| {
            let message = Compact {
                r#type: "update",
                data: CompactData { task, votes: sent },
                compact: CompactInfo {
                    vote_count: total,
                    qualified_vote_count: qualified,
                    votes_from: from,
                    votes_to: to,
                    votes_left_out: vote_left_out.into_iter().collect(),
                    left_out: &left_out,
                    read: Read {
                        bundle: Route::get(format!("/get-full-task-bundle/{path_id}")),
                        report: report_left_out.then(|| Route::get(format!("/get-report/{path_id}"))),
                        votes: rest.map(|(skip, limit)| Route {
                            method: "POST",
                            path: format!("/generic-query/votes?skip={skip}&limit={limit}"),
                            body: Some(json!({ "social_task_id": id })),
                        }),
                    },
                },
            };
            serde_json::to_string(&message).expect("live updates serialize")
        };
        // Everything but the votes, its numbers as wide as they can be: what the votes may add to.
        let widest = |vote_left_out: Option<&str>| render(&[], total, Some((total, total)), vote_left_out).len();
        let mut first = from;
        let mut left_out_vote = None;
        let mut room = MAX_MESSAGE_BYTES.saturating_sub(widest(None));
        if from < total && votes[from].get().len() > room {
            // Too large for any message: named, and left for the HTTP routes.
            let vote_id = vote_id(&votes[from]);
            room = MAX_MESSAGE_BYTES.saturating_sub(widest(Some(&vote_id)));
            left_out_vote = Some(vote_id);
            first = from + 1;
        }
        let mut to = first;
        let mut used = 0;
        while to < total {
            let cost = votes[to].get().len() + usize::from(to > first);
            if used + cost > room {
                break;
            }
            used += cost;
            to += 1;
        }
        let rest = (to < total).then(|| (to, total - to));
        let message = render(&votes[first..to], to, rest, left_out_vote.as_deref());
        debug_assert!(message.len() <= MAX_MESSAGE_BYTES, "a compact update of {} bytes", message.len());
        (message, to)
    }

    /// The task document of compact updates: whole while within [`TASK_BYTES`], else without its
    /// largest fields (never `social_task_id` and `status`); and the fields left out.
    fn compact_task(&self) -> &(Json, Vec<String>) {
        self.compact_task.get_or_init(|| {
            let task = &self.parts.task;
            if task.get().len() <= TASK_BYTES {
                return (task.clone(), Vec::new());
            }
            let Ok(mut fields) = serde_json::from_str::<IndexMap<String, Json>>(task.get()) else {
                let head = json!({ "social_task_id": self.social_task_id, "status": self.status });
                return (to_json(&head), vec!["*".to_owned()]);
            };
            let size = |name: &str, value: &RawValue| name.len() + value.get().len() + 4;
            let mut largest: Vec<(usize, String)> = fields
                .iter()
                .filter(|(name, _)| !matches!(name.as_str(), "social_task_id" | "status"))
                .map(|(name, value)| (size(name, value), name.clone()))
                .collect();
            largest.sort_by_key(|(bytes, _)| std::cmp::Reverse(*bytes));
            let mut length: usize = 2 + fields.iter().map(|(name, value)| size(name, value)).sum::<usize>();
            let mut left_out = Vec::new();
            for (bytes, name) in largest {
                if length <= TASK_BYTES {
                    break;
                }
                fields.shift_remove(&name);
                length -= bytes;
                left_out.push(name);
            }
            (to_json(&fields), left_out)
        })
    }
}

/// A compact update, as sent.
#[derive(Serialize)]
struct Compact<'a> {
    r#type: &'static str,
    data: CompactData<'a>,
    compact: CompactInfo<'a>,
}

#[derive(Serialize)]
struct CompactData<'a> {
    task: &'a RawValue,
    votes: &'a [Json],
}

#[derive(Serialize)]
struct CompactInfo<'a> {
    vote_count: usize,
    qualified_vote_count: usize,
    votes_from: usize,
    votes_to: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    votes_left_out: Vec<&'a str>,
    left_out: &'a [String],
    read: Read,
}

#[derive(Serialize)]
struct Read {
    bundle: Route,
    #[serde(skip_serializing_if = "Option::is_none")]
    report: Option<Route>,
    #[serde(skip_serializing_if = "Option::is_none")]
    votes: Option<Route>,
}

/// An HTTP API request that reads what an update left out (the path from the API's root).
#[derive(Serialize)]
struct Route {
    method: &'static str,
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<serde_json::Value>,
}

impl Route {
    fn get(path: String) -> Self {
        Route { method: "GET", path, body: None }
    }
}

/// Whether a stored vote is qualified.
fn qualified(vote: &RawValue) -> bool {
    #[derive(Deserialize)]
    struct Qualified {
        #[serde(default)]
        qualified: bool,
    }
    serde_json::from_str::<Qualified>(vote.get()).is_ok_and(|q| q.qualified)
}

/// A stored vote's id.
fn vote_id(vote: &RawValue) -> String {
    #[derive(Deserialize)]
    struct Id {
        #[serde(default)]
        vote_id: String,
    }
    serde_json::from_str::<Id>(vote.get()).map(|v| v.vote_id).unwrap_or_default()
}

/// `id` as one path segment: percent-encoded but for RFC 3986's unreserved characters.
fn path_segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests() {
        let r = parse_request(r#"{"social_task_id": "task_1", "refresh_interval": 5}"#).unwrap();
        assert_eq!(r, LiveRequest { social_task_id: "task_1".into(), refresh_interval: Duration::from_secs(5) });
        let r = parse_request(r#"{"social_task_id": "t", "refresh_interval": 0.05, "extra": 1}"#).unwrap();
        assert_eq!(r.refresh_interval, Duration::from_millis(50));
        let r = parse_request(r#"{"social_task_id": "t", "refresh_interval": 3600}"#).unwrap();
        assert_eq!(r.refresh_interval, Duration::from_secs(3600));
    }

    #[test]
    fn malformed_requests() {
        for bad in [
            "",
            "not json",
            "[]",
            r#"{"social_task_id": "t"}"#,
            r#"{"refresh_interval": 5}"#,
            r#"{"social_task_id": 7, "refresh_interval": 5}"#,
            r#"{"social_task_id": "t", "refresh_interval": "5"}"#,
            r#"{"social_task_id": "t", "refresh_interval": 0}"#,
            r#"{"social_task_id": "t", "refresh_interval": -1}"#,
            // Outside the range, huge and tiny: refused, never a panic.
            r#"{"social_task_id": "t", "refresh_interval": 0.049}"#,
            r#"{"social_task_id": "t", "refresh_interval": 3600.001}"#,
            r#"{"social_task_id": "t", "refresh_interval": 1e308}"#,
            r#"{"social_task_id": "t", "refresh_interval": -1e308}"#,
            r#"{"social_task_id": "t", "refresh_interval": 1e-308}"#,
            r#"{"social_task_id": "t", "refresh_interval": -0.0}"#,
            r#"{"social_task_id": "t", "refresh_interval": 1e400}"#,
            r#"{"social_task_id": "t", "refresh_interval": 18446744073709551616}"#,
        ] {
            assert_eq!(parse_request(bad), None, "{bad}");
        }
    }

    fn raw(v: serde_json::Value) -> Json {
        to_json(&v)
    }

    fn vote(i: usize, data_bytes: usize) -> Json {
        raw(json!({"vote_id": format!("vote_{i:05}"), "social_task_id": "task_1", "submitter_subject_id": format!("agent-{i}"),
                   "vote_data": {"selected_option": "a", "note": "n".repeat(data_bytes)}, "qualified": !i.is_multiple_of(3)}))
    }

    fn parts(description_bytes: usize, votes: Vec<Json>) -> BundleParts {
        BundleParts {
            task: raw(json!({"social_task_id": "task_1", "status": "started", "report_json": {}, "enable_live_streaming": true})),
            subject_spec: Some(raw(json!({"social_task_id": "task_1", "description": "d".repeat(description_bytes)}))),
            evaluation_input: Some(raw(json!({"social_task_id": "task_1"}))),
            votes,
        }
    }

    fn parsed(update: &LiveUpdate) -> serde_json::Value {
        assert!(update.message.len() <= MAX_MESSAGE_BYTES, "{} bytes", update.message.len());
        serde_json::from_str(&update.message).expect("JSON")
    }

    #[test]
    fn a_bundle_that_fits_is_sent_whole_as_section_3_5_says() {
        let p = parts(100, (0..3).map(|i| vote(i, 10)).collect());
        let bundle = p.to_json();
        let snapshot = LiveSnapshot::new("task_1", p);
        assert!(snapshot.is_full() && !snapshot.complete());
        for sent in [0, 2, 7] {
            let update = snapshot.update_for(sent);
            assert_eq!(update, LiveUpdate { message: update_message(&bundle), complete: false, votes_sent: 3 });
        }
    }

    #[test]
    fn a_bundle_over_the_limit_is_sent_compact_with_the_changes_since_the_last_update() {
        let snapshot = LiveSnapshot::new("task_1", parts(160 * 1024, (0..5).map(|i| vote(i, 10)).collect()));
        assert!(!snapshot.is_full());
        let first = snapshot.update_for(0);
        assert_eq!((first.votes_sent, first.complete), (5, false));
        let m = parsed(&first);
        assert_eq!(m["type"], "update");
        assert_eq!(m["data"]["task"]["status"], "started");
        assert_eq!(m["data"]["task"]["social_task_id"], "task_1");
        assert_eq!(m["data"]["votes"].as_array().unwrap().len(), 5);
        assert!(m["data"].get("subject_spec").is_none());
        let c = &m["compact"];
        assert_eq!(
            (c["vote_count"].as_u64(), c["qualified_vote_count"].as_u64(), c["votes_from"].as_u64(), c["votes_to"].as_u64()),
            (Some(5), Some(3), Some(0), Some(5))
        );
        assert_eq!(c["left_out"], json!(["subject_spec", "evaluation_input"]));
        assert_eq!(c["read"], json!({"bundle": {"method": "GET", "path": "/get-full-task-bundle/task_1"}}), "every vote is in the update");
        // The next update carries the votes since: none.
        let next = parsed(&snapshot.update_for(5));
        assert_eq!(next["data"]["votes"], json!([]));
        assert_eq!((next["compact"]["votes_from"].as_u64(), next["compact"]["votes_to"].as_u64()), (Some(5), Some(5)));
        // A connection that had two gets the other three.
        let later = parsed(&snapshot.update_for(2));
        let ids: Vec<_> = later["data"]["votes"].as_array().unwrap().iter().map(|v| v["vote_id"].as_str().unwrap().to_owned()).collect();
        assert_eq!(ids, ["vote_00002", "vote_00003", "vote_00004"]);
    }

    #[test]
    fn many_votes_are_sent_in_windows_that_cover_every_vote_once_in_order() {
        let votes: Vec<Json> = (0..400).map(|i| vote(i, 1000)).collect();
        let snapshot = LiveSnapshot::new("task 1/é", parts(10, votes));
        assert!(!snapshot.is_full());
        let (mut sent, mut seen, mut updates) = (0, Vec::new(), 0);
        while sent < 400 {
            let update = snapshot.update_for(sent);
            let m = parsed(&update);
            assert!(update.message.len() > MAX_MESSAGE_BYTES - 2 * 1100 || update.votes_sent == 400, "the window is filled");
            let c = &m["compact"];
            assert_eq!(c["votes_from"].as_u64(), Some(sent as u64));
            assert_eq!(c["votes_to"].as_u64(), Some(update.votes_sent as u64));
            if update.votes_sent < 400 {
                let rest = update.votes_sent;
                assert_eq!(
                    c["read"]["votes"],
                    json!({"method": "POST", "path": format!("/generic-query/votes?skip={rest}&limit={}", 400 - rest), "body": {"social_task_id": "task 1/é"}})
                );
            } else {
                assert!(c["read"].get("votes").is_none());
            }
            assert_eq!(c["read"]["bundle"]["path"], "/get-full-task-bundle/task%201%2F%C3%A9");
            seen.extend(m["data"]["votes"].as_array().unwrap().iter().map(|v| v["vote_id"].as_str().unwrap().to_owned()));
            sent = update.votes_sent;
            updates += 1;
        }
        assert!(updates > 3, "{updates} updates");
        assert_eq!(seen, (0..400).map(|i| format!("vote_{i:05}")).collect::<Vec<_>>());
        assert_eq!(parsed(&snapshot.update_for(400))["compact"]["vote_count"], 400);
    }

    #[test]
    fn a_vote_too_large_for_any_message_is_named_and_passed_over() {
        let votes = vec![vote(0, 10), vote(1, 200 * 1024), vote(2, 10)];
        let snapshot = LiveSnapshot::new("task_1", parts(10, votes));
        let first = snapshot.update_for(0);
        assert_eq!(first.votes_sent, 1, "the window stops before the large vote");
        let second = snapshot.update_for(1);
        let m = parsed(&second);
        assert_eq!(second.votes_sent, 3);
        assert_eq!(m["compact"]["votes_left_out"], json!(["vote_00001"]));
        assert_eq!(m["compact"]["votes_from"], 1);
        assert_eq!(m["data"]["votes"].as_array().unwrap().len(), 1);
        assert_eq!(m["data"]["votes"][0]["vote_id"], "vote_00002");
    }

    #[test]
    fn a_large_task_document_has_its_largest_fields_left_out_and_the_final_update_says_complete() {
        let mut p = parts(10, vec![vote(0, 10)]);
        let report = json!({"winners": ["a"], "tally": "t".repeat(200 * 1024)});
        p.task = raw(json!({"social_task_id": "task_1", "goal_data": {"g": 1}, "status": "complete", "report_json": report,
                            "social_task_properties": {"p": "q".repeat(30 * 1024)}, "enable_live_streaming": true}));
        let snapshot = LiveSnapshot::new("task_1", p);
        assert!(snapshot.complete() && !snapshot.is_full());
        let update = snapshot.update_for(0);
        assert!(update.complete);
        let m = parsed(&update);
        assert_eq!(
            m["data"]["task"],
            json!({"social_task_id": "task_1", "goal_data": {"g": 1}, "status": "complete",
                                             "social_task_properties": {"p": "q".repeat(30 * 1024)}, "enable_live_streaming": true})
        );
        assert_eq!(m["compact"]["left_out"], json!(["subject_spec", "evaluation_input", "task.report_json"]));
        assert_eq!(m["compact"]["read"]["report"], json!({"method": "GET", "path": "/get-report/task_1"}));
        assert_eq!(m["data"]["votes"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn messages() {
        assert_eq!(error_message(NOT_ENABLED), r#"{"error":"Live streaming not enabled for this task"}"#);
        let bundle = RawValue::from_string(r#"{"task":{"status":"started"},"votes":[]}"#.into()).unwrap();
        let update: serde_json::Value = serde_json::from_str(&update_message(&bundle)).unwrap();
        assert_eq!(update, json!({"type": "update", "data": {"task": {"status": "started"}, "votes": []}}));
    }
}
