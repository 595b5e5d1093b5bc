//! One-shot schedules on the local server, the counterpart of `agora_aws::timers`: a service's
//! schedule (voting's start of a task at its `scheduled_time`, Orcade's close of an open job at
//! its `bid_job_closes_at`) is a piece of work on the service's durable timer queue, due at the
//! schedule's time, whose worker does the work. So work due at a time is done within
//! milliseconds of it, a `kill -9` loses no timer (the queue replays it at the next start), and
//! the sweeps are the backstop they are on AWS (work whose timer was lost, stalled evaluations)
//! rather than the only way due work gets done: they need not read the store many times a
//! second.
//!
//! The service's flow still decides whether the work is due (a task no longer `scheduled`, a
//! job no longer open: nothing to do), so a timer delivered twice, or after the sweep did the
//! work, changes nothing.

use crate::queue::DurableQueue;
use agora_ports::{OneShotSchedules, ScheduleError, WorkHandler, WorkOutcome, WorkQueue};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

/// A service's one-shot schedules, as delayed work on its timer queue.
pub struct LocalTimers {
    queue: DurableQueue,
}

impl LocalTimers {
    pub fn new(queue: DurableQueue) -> Self {
        Self { queue }
    }
}

#[async_trait]
impl OneShotSchedules for LocalTimers {
    async fn schedule(&self, name: &str, at: DateTime<Utc>, body: &Value) -> Result<(), ScheduleError> {
        let wait = (at - Utc::now()).to_std().unwrap_or(Duration::ZERO);
        self.queue.send(name, &body.to_string(), wait).await.map_err(|e| ScheduleError { name: name.to_owned(), reason: e.reason })
    }
}

type Due = Box<dyn Fn(String) -> Pin<Box<dyn Future<Output = WorkOutcome> + Send>> + Send + Sync>;

/// A timer queue's worker: reads the id a due timer's body names under `key`, and hands it to
/// `due`. A body without one is dropped (logged): no retry can mend it.
pub struct TimerWork {
    key: &'static str,
    due: Due,
}

impl TimerWork {
    pub fn new<F, Fut>(key: &'static str, due: F) -> Self
    where
        F: Fn(String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = WorkOutcome> + Send + 'static,
    {
        Self { key, due: Box::new(move |id| Box::pin(due(id))) }
    }
}

#[async_trait]
impl WorkHandler for TimerWork {
    async fn handle(&self, body: &str) -> WorkOutcome {
        let id = serde_json::from_str::<Value>(body).ok().and_then(|v| v.get(self.key)?.as_str().map(str::trim).map(str::to_owned));
        match id.filter(|id| !id.is_empty()) {
            Some(id) => (self.due)(id).await,
            None => {
                tracing::error!(body, key = self.key, "a timer that names nothing: dropped");
                WorkOutcome::Done
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[tokio::test]
    async fn a_timer_hands_its_id_to_the_work_and_one_that_names_nothing_is_dropped() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = seen.clone();
        let work = TimerWork::new("bid_job_id", move |id| {
            let recorded = recorded.clone();
            async move {
                recorded.lock().unwrap().push(id);
                WorkOutcome::Retry("store down".into())
            }
        });
        assert_eq!(work.handle(r#"{"bid_job_id": " job_1 "}"#).await, WorkOutcome::Retry("store down".into()));
        for nothing in [r#"{"social_task_id": "t"}"#, r#"{"bid_job_id": ""}"#, r#"{"bid_job_id": 3}"#, "not json"] {
            assert_eq!(work.handle(nothing).await, WorkOutcome::Done, "{nothing}");
        }
        assert_eq!(*seen.lock().unwrap(), vec!["job_1".to_owned()]);
    }
}
