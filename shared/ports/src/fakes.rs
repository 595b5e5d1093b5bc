//! In-memory ports for flow tests: a clock that moves when told, and a publisher, queue,
//! schedules and delegate that record what they were given.

use crate::{
    Clock, Delegate, DelegateError, DelegateRequest, OneShotSchedules, PublishError, Publisher, QueueError, ScheduleError, WorkQueue,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::sync::Mutex;
use std::time::Duration;

/// A clock that stands still until [`ManualClock::set`] or [`ManualClock::advance`].
#[derive(Debug)]
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new(now: DateTime<Utc>) -> Self {
        Self(Mutex::new(agora_schema::time::truncate_micros(now)))
    }
    pub fn set(&self, now: DateTime<Utc>) {
        *self.0.lock().expect("clock lock") = agora_schema::time::truncate_micros(now);
    }
    pub fn advance(&self, by: chrono::Duration) {
        let mut now = self.0.lock().expect("clock lock");
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().expect("clock lock")
    }
}

/// Records every message published, in order.
#[derive(Debug, Default)]
pub struct RecordingPublisher(Mutex<Vec<(String, Value)>>);

impl RecordingPublisher {
    /// The messages so far, as `(address, message)`.
    pub fn messages(&self) -> Vec<(String, Value)> {
        self.0.lock().expect("publisher lock").clone()
    }
    /// The messages sent to `address`.
    pub fn to(&self, address: &str) -> Vec<Value> {
        self.messages().into_iter().filter(|(a, _)| a == address).map(|(_, m)| m).collect()
    }
}

#[async_trait]
impl Publisher for RecordingPublisher {
    async fn publish(&self, address: &str, message: &Value) -> Result<(), PublishError> {
        self.0.lock().expect("publisher lock").push((address.to_owned(), message.clone()));
        Ok(())
    }
}

/// One piece of work a [`RecordingQueue`] was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub key: String,
    pub body: String,
    pub delay: Duration,
}

/// Records the work sent, and hands it back with [`RecordingQueue::take`].
#[derive(Debug, Default)]
pub struct RecordingQueue(Mutex<Vec<Sent>>);

impl RecordingQueue {
    /// The work sent since the last `take`, oldest first.
    pub fn take(&self) -> Vec<Sent> {
        std::mem::take(&mut *self.0.lock().expect("queue lock"))
    }
}

#[async_trait]
impl WorkQueue for RecordingQueue {
    async fn send(&self, key: &str, body: &str, delay: Duration) -> Result<(), QueueError> {
        self.0.lock().expect("queue lock").push(Sent { key: key.to_owned(), body: body.to_owned(), delay });
        Ok(())
    }
}

/// Records the schedules made, as `(name, at, body)`.
#[derive(Debug, Default)]
pub struct RecordingSchedules(Mutex<Vec<(String, DateTime<Utc>, Value)>>);

impl RecordingSchedules {
    pub fn made(&self) -> Vec<(String, DateTime<Utc>, Value)> {
        self.0.lock().expect("schedules lock").clone()
    }
}

#[async_trait]
impl OneShotSchedules for RecordingSchedules {
    async fn schedule(&self, name: &str, at: DateTime<Utc>, body: &Value) -> Result<(), ScheduleError> {
        self.0.lock().expect("schedules lock").push((name.to_owned(), at, body.clone()));
        Ok(())
    }
}

/// How a [`ScriptedDelegate`] answers a call.
type Reply = Box<dyn Fn(&DelegateRequest<'_>) -> Result<Value, DelegateError> + Send + Sync>;

/// Answers every call with the reply its function gives, and records the calls.
pub struct ScriptedDelegate {
    reply: Reply,
    calls: Mutex<Vec<(Value, bool)>>,
}

impl ScriptedDelegate {
    pub fn new(reply: impl Fn(&DelegateRequest<'_>) -> Result<Value, DelegateError> + Send + Sync + 'static) -> Self {
        Self { reply: Box::new(reply), calls: Mutex::default() }
    }
    /// The bodies of the calls so far.
    pub fn calls(&self) -> Vec<Value> {
        self.calls.lock().expect("delegate lock").iter().map(|(body, _)| body.clone()).collect()
    }
    /// Whether each call so far was marked a retry ([`DelegateRequest::retry`]), in call order.
    pub fn retries(&self) -> Vec<bool> {
        self.calls.lock().expect("delegate lock").iter().map(|(_, retry)| *retry).collect()
    }
}

#[async_trait]
impl Delegate for ScriptedDelegate {
    async fn submit_and_wait(&self, request: &DelegateRequest<'_>) -> Result<Value, DelegateError> {
        let body = serde_json::to_value(request).expect("requests serialize");
        self.calls.lock().expect("delegate lock").push((body, request.retry));
        (self.reply)(request)
    }
}

/// Never answers its first call (as if its worker died during it), and answers every later one
/// with an ack of its ids; records each call's body and retry flag.
#[derive(Default)]
pub struct StallsFirst {
    calls: Mutex<Vec<(Value, bool)>>,
}

impl StallsFirst {
    /// Each call so far: its body and whether it was marked a retry.
    pub fn calls(&self) -> Vec<(Value, bool)> {
        self.calls.lock().expect("delegate lock").clone()
    }

    /// Waits until `worker` (the task making the first call) is in that call, then kills it
    /// there, as a worker that dies during a delegate call; returns the first call's body, which
    /// was not marked a retry.
    pub async fn kill_during_first_call<T: Send + 'static>(&self, worker: tokio::task::JoinHandle<T>) -> Value {
        while self.calls.lock().expect("delegate lock").is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        worker.abort();
        assert!(worker.await.is_err_and(|e| e.is_cancelled()), "the worker was killed during its call");
        let (first, retry) = self.calls()[0].clone();
        assert!(!retry, "a first call is not a retry");
        first
    }
}

#[async_trait]
impl Delegate for StallsFirst {
    async fn submit_and_wait(&self, request: &DelegateRequest<'_>) -> Result<Value, DelegateError> {
        let first = {
            let mut calls = self.calls.lock().expect("delegate lock");
            calls.push((serde_json::to_value(request).expect("requests serialize"), request.retry));
            calls.len() == 1
        };
        if first {
            std::future::pending::<()>().await;
        }
        Ok(serde_json::json!({"success": true, "ack": {"task_id": request.task_id, "session_id": request.session_id}, "output": {}}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test]
    async fn fakes_record_what_they_get() {
        let clock = ManualClock::new(DateTime::UNIX_EPOCH);
        clock.advance(chrono::Duration::seconds(90));
        assert_eq!(clock.now().timestamp(), 90);

        let publisher = RecordingPublisher::default();
        publisher.publish("a", &json!({"n": 1})).await.unwrap();
        publisher.publish("b", &json!({"n": 2})).await.unwrap();
        assert_eq!(publisher.to("b"), [json!({"n": 2})]);

        let queue = RecordingQueue::default();
        queue.send("k", "body", Duration::ZERO).await.unwrap();
        assert_eq!(queue.take(), [Sent { key: "k".into(), body: "body".into(), delay: Duration::ZERO }]);
        assert!(queue.take().is_empty());

        let delegate = ScriptedDelegate::new(|r| Ok(json!({"success": true, "output": {"to": r.subject_id}})));
        let data = json!({"x": 1});
        let request = DelegateRequest { subject_id: "s1", session_id: "j1", task_id: "j1", task_data: &data, retry: false };
        assert_eq!(delegate.submit_and_wait(&request).await.unwrap()["output"]["to"], "s1");
        delegate.submit_and_wait(&DelegateRequest { retry: true, ..request }).await.unwrap();
        assert_eq!(delegate.calls()[0]["task_data"], json!({"x": 1}));
        // The flag is not part of the body.
        assert_eq!(delegate.calls()[0], delegate.calls()[1]);
        assert_eq!(delegate.calls()[1], json!({"subject_id": "s1", "session_id": "j1", "task_id": "j1", "task_data": {"x": 1}}));
        assert_eq!(delegate.retries(), [false, true]);
    }

    #[test]
    fn transient_delegate_errors() {
        assert!(DelegateError::Timeout(Duration::from_secs(1)).is_transient());
        assert!(DelegateError::Refused { status: 502, reply: json!({}) }.is_transient());
        assert!(!DelegateError::Refused { status: 200, reply: json!({"success": false}) }.is_transient());
        assert!(!DelegateError::Malformed("x".into()).is_transient());
    }
}
