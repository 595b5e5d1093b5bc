//! The local message inbox: every published message goes to the log and to the addressee's
//! inbox, readable at `GET /local/inbox/{subject}` (oldest first; with authentication on, by
//! that subject or an operator only, the services' rule [`Access::act_as`]; refused as
//! `{"error": "..."}`, [`LocalError`]).
//!
//! The inbox lives in memory and is bounded twice, so a long run (jobs with thousands of
//! subjects, each message holding the job) cannot grow it without end:
//!
//! * each subject keeps its newest [`MAX_MESSAGES_PER_SUBJECT`] messages (1,000): a new message
//!   beyond that drops that subject's oldest;
//! * all subjects together keep at most [`MAX_TOTAL_BYTES`] (64 MiB) of messages, counted as
//!   their serialized JSON: a new message beyond that drops the oldest messages of the whole
//!   inbox, whoever they were for, until it fits (the newest message is always kept, however
//!   large).
//!
//! Messages are kept as serialized JSON, so the budget is about what they cost in memory. The
//! log line of each message stays whole whatever the inbox drops.

use crate::error::{Field, LocalError, Named};
use agora_http::access::{Access, Identity};
use agora_ports::{PublishError, Publisher};
use async_trait::async_trait;
use axum::extract;
use axum::routing::get;
use axum::{Extension, Json, Router};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

/// Messages kept per subject: the newest ones.
pub const MAX_MESSAGES_PER_SUBJECT: usize = 1_000;

/// Bytes of messages (serialized JSON) kept across all subjects: the oldest go first.
pub const MAX_TOTAL_BYTES: usize = 64 * 1024 * 1024;

#[derive(Clone)]
pub struct LocalInbox {
    state: Arc<Mutex<State>>,
    per_subject: usize,
    total_bytes: usize,
}

impl Default for LocalInbox {
    /// An empty inbox with the limits [`MAX_MESSAGES_PER_SUBJECT`] and [`MAX_TOTAL_BYTES`].
    fn default() -> Self {
        Self::with_limits(MAX_MESSAGES_PER_SUBJECT, MAX_TOTAL_BYTES)
    }
}

/// One kept message: its number in publication order and its JSON.
struct Kept {
    seq: u64,
    json: Box<str>,
}

#[derive(Default)]
struct State {
    by_subject: HashMap<String, VecDeque<Kept>>,
    /// Every kept message, oldest first, as `(subject, seq, bytes)`; also entries of messages
    /// their subject's cap dropped since (skipped when met, compacted when they pile up).
    order: VecDeque<(String, u64, usize)>,
    /// How many entries of `order` name a message no longer kept.
    stale: usize,
    /// Bytes of the kept messages.
    bytes: usize,
    next_seq: u64,
}

/// What a message counts against the byte budget: its JSON and its subject's name.
fn size(subject: &str, json: &str) -> usize {
    subject.len() + json.len()
}

impl State {
    fn kept(&self) -> usize {
        self.order.len() - self.stale
    }

    /// Whether the message `(subject, seq)` is still kept: a subject's messages only ever go
    /// from its front, so it is when it is at or after that front.
    fn is_kept(&self, subject: &str, seq: u64) -> bool {
        self.by_subject.get(subject).and_then(VecDeque::front).is_some_and(|front| front.seq <= seq)
    }

    fn push(&mut self, subject: &str, json: Box<str>, per_subject: usize, total_bytes: usize) {
        let (seq, bytes) = (self.next_seq, size(subject, &json));
        self.next_seq += 1;
        let messages = self.by_subject.entry(subject.to_owned()).or_default();
        messages.push_back(Kept { seq, json });
        self.order.push_back((subject.to_owned(), seq, bytes));
        self.bytes += bytes;
        // The subject's cap: its oldest go (their entries in `order` go stale).
        while messages.len() > per_subject.max(1) {
            let dropped = messages.pop_front().expect("over the cap");
            self.bytes -= size(subject, &dropped.json);
            self.stale += 1;
        }
        // The byte budget: the oldest of the whole inbox go, the newest stays.
        while self.bytes > total_bytes && self.kept() > 1 {
            let (oldest, seq, bytes) = self.order.pop_front().expect("messages are kept");
            if !self.is_kept(&oldest, seq) {
                self.stale -= 1;
                continue;
            }
            let messages = self.by_subject.get_mut(&oldest).expect("a kept message's subject");
            messages.pop_front();
            if messages.is_empty() {
                self.by_subject.remove(&oldest);
            }
            self.bytes -= bytes;
        }
        // Stale entries never outnumber the kept messages for long.
        if self.stale > 64 && self.stale > self.kept() {
            let order = std::mem::take(&mut self.order);
            self.order = order.into_iter().filter(|(s, seq, _)| self.is_kept(s, *seq)).collect();
            self.stale = 0;
        }
    }
}

impl LocalInbox {
    /// An empty inbox keeping `per_subject` messages per subject (at least 1) and
    /// `total_bytes` across all subjects.
    pub fn with_limits(per_subject: usize, total_bytes: usize) -> Self {
        Self { state: Arc::default(), per_subject, total_bytes }
    }

    /// The messages addressed to `subject` that are kept, oldest first.
    pub fn messages(&self, subject: &str) -> Vec<Value> {
        let state = self.state.lock().expect("inbox lock");
        let Some(messages) = state.by_subject.get(subject) else { return Vec::new() };
        messages.iter().map(|m| serde_json::from_str(&m.json).expect("kept messages are JSON")).collect()
    }

    /// The bytes the kept messages count against [`MAX_TOTAL_BYTES`].
    pub fn bytes(&self) -> usize {
        self.state.lock().expect("inbox lock").bytes
    }
}

/// The inbox's route, `GET /local/inbox/{subject}`.
pub fn router(inbox: LocalInbox) -> Router {
    Router::new().route("/local/inbox/{subject}", get(read)).with_state(inbox)
}

/// The path segment of the inbox's subject.
pub struct Subject;

impl Field for Subject {
    const NAME: &'static str = "subject";
}

async fn read(
    extract::State(inbox): extract::State<LocalInbox>,
    identity: Option<Extension<Identity>>,
    // Read after the caller is checked: a refused caller learns nothing of the path.
    subject: Result<Named<Subject>, LocalError>,
) -> Result<Json<Vec<Value>>, LocalError> {
    let access = match identity {
        Some(Extension(Identity::Refused(error))) => return Err(LocalError::unauthorized(&error)),
        Some(Extension(Identity::Caller(caller))) => Access::of(caller),
        None => Access::trusted(),
    };
    let subject = subject?.into_inner();
    access.act_as("inbox", &subject)?;
    Ok(Json(inbox.messages(&subject)))
}

#[async_trait]
impl Publisher for LocalInbox {
    async fn publish(&self, address: &str, message: &Value) -> Result<(), PublishError> {
        let event_type = message.get("event_type").and_then(Value::as_str).unwrap_or("message");
        tracing::info!(recipient = address, event_type, payload = %message, "message published");
        let json = message.to_string().into_boxed_str();
        self.state.lock().expect("inbox lock").push(address, json, self.per_subject, self.total_bytes);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn numbers(inbox: &LocalInbox, subject: &str) -> Vec<u64> {
        inbox.messages(subject).iter().map(|m| m["n"].as_u64().unwrap()).collect()
    }

    #[tokio::test]
    async fn each_subject_keeps_its_newest_messages_oldest_first() {
        let inbox = LocalInbox::default();
        for n in 0..(MAX_MESSAGES_PER_SUBJECT as u64 + 250) {
            inbox.publish("busy", &json!({"n": n})).await.unwrap();
        }
        inbox.publish("quiet", &json!({"n": 7})).await.unwrap();
        let kept = numbers(&inbox, "busy");
        assert_eq!(kept.len(), MAX_MESSAGES_PER_SUBJECT);
        assert_eq!(kept, (250..MAX_MESSAGES_PER_SUBJECT as u64 + 250).collect::<Vec<_>>(), "the newest, oldest first");
        assert_eq!(numbers(&inbox, "quiet"), [7], "another subject's messages are its own");
        assert!(inbox.messages("nobody").is_empty());
        let one = size("busy", &json!({"n": 1000}).to_string());
        assert!(inbox.bytes() <= (MAX_MESSAGES_PER_SUBJECT + 1) * one, "dropped messages no longer count");
    }

    #[tokio::test]
    async fn the_byte_budget_drops_the_oldest_messages_of_all_subjects_first() {
        // Messages of 1,000 bytes; a budget of ten of them.
        let message = |n: u64| json!({"n": n, "pad": "x".repeat(1000 - 20 - n.to_string().len())});
        let one = size("s0", &message(0).to_string());
        let inbox = LocalInbox::with_limits(100, 10 * one);
        for n in 0..25u64 {
            inbox.publish(&format!("s{}", n % 3), &message(n)).await.unwrap();
        }
        // The newest ten, whoever they were for: 15..25.
        assert_eq!(numbers(&inbox, "s0"), [15, 18, 21, 24]);
        assert_eq!(numbers(&inbox, "s1"), [16, 19, 22]);
        assert_eq!(numbers(&inbox, "s2"), [17, 20, 23]);
        assert!(inbox.bytes() <= 10 * one, "{} > {}", inbox.bytes(), 10 * one);
        // A subject whose every message was dropped has an empty inbox.
        let inbox = LocalInbox::with_limits(100, 10 * one);
        inbox.publish("ea", &message(0)).await.unwrap();
        for n in 1..=10u64 {
            inbox.publish("la", &message(n)).await.unwrap();
        }
        assert!(inbox.messages("ea").is_empty());
        assert_eq!(numbers(&inbox, "la"), (1..=10).collect::<Vec<_>>());
        // A message larger than the whole budget is kept alone.
        let huge = json!({"n": 99, "pad": "y".repeat(20 * one)});
        inbox.publish("huge", &huge).await.unwrap();
        assert_eq!(numbers(&inbox, "huge"), [99]);
        assert!(inbox.messages("la").is_empty());
    }

    #[tokio::test]
    async fn both_caps_together_keep_the_inbox_bounded_over_a_long_run() {
        let inbox = LocalInbox::with_limits(5, 4_000);
        for n in 0..20_000u64 {
            inbox.publish(&format!("s{}", n % 50), &json!({"n": n})).await.unwrap();
            let state = inbox.state.lock().unwrap();
            assert!(state.bytes <= 4_000 && state.by_subject.values().all(|m| m.len() <= 5));
            assert!(state.order.len() <= 2 * state.kept() + 65, "stale entries are compacted");
        }
        // The newest messages of each subject are there, oldest first.
        assert_eq!(numbers(&inbox, "s49"), [19_799, 19_849, 19_899, 19_949, 19_999]);
    }
}
