//! One-shot schedules: a body delivered once at a given time to the deployment's target (on AWS,
//! a delayed message on the service's SQS timer queue, or an EventBridge Scheduler schedule for
//! times more than 15 minutes ahead: `agora_aws::timers`). Every use is backed by a sweep that finds due work
//! anyway, so a schedule that could not be made only delays the work until the next sweep.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("schedule {name} could not be made: {reason}")]
pub struct ScheduleError {
    pub name: String,
    pub reason: String,
}

/// Makes one-shot schedules.
#[async_trait]
pub trait OneShotSchedules: Send + Sync + 'static {
    /// Delivers `body` once at `at`. `name` identifies the schedule: making the same name twice
    /// is not an error (the first stands).
    async fn schedule(&self, name: &str, at: DateTime<Utc>, body: &Value) -> Result<(), ScheduleError>;
}

/// No one-shot schedules: the sweeps alone find due work (the local server sweeps every second).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSchedules;

#[async_trait]
impl OneShotSchedules for NoSchedules {
    async fn schedule(&self, _name: &str, _at: DateTime<Utc>, _body: &Value) -> Result<(), ScheduleError> {
        Ok(())
    }
}
