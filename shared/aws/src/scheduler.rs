//! One-shot starts on Amazon EventBridge Scheduler: at task creation, a schedule
//! `start-<social_task_id>` fires the `start-tasks` Lambda once at `scheduled_time` with
//! `{"social_task_id": "..."}`, then deletes itself. The `rate(1 minute)` sweep starts every
//! due task anyway; [`parse_start_event`] tells the two invocations apart.
//!
//! A `scheduled_time` that is not in the future gets no schedule: the task is due already, and
//! the next sweep (at most a minute away, the same delay a schedule "a minute from now" would
//! give) starts it. A future time is rounded up to a whole minute (see [`at_expression`]).

use crate::config::{env_var, required_env, truncate, ConfigError};
use agora_voting_core::{ScheduleError, StartScheduler};
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_scheduler::error::DisplayErrorContext;
use aws_sdk_scheduler::types::{ActionAfterCompletion, FlexibleTimeWindow, FlexibleTimeWindowMode, Target};
use chrono::{DateTime, Utc};
use serde_json::{json, Value};

/// Environment variable: the schedule group (default [`DEFAULT_GROUP`]).
pub const GROUP_ENV: &str = "AGORA_SCHEDULE_GROUP";
/// Environment variable: the ARN of the `start-tasks` Lambda, the schedules' target.
pub const START_FUNCTION_ENV: &str = "AGORA_START_FUNCTION_ARN";
/// Environment variable: the role EventBridge Scheduler assumes to invoke the target.
pub const ROLE_ENV: &str = "AGORA_SCHEDULER_ROLE_ARN";
/// The account's default schedule group.
pub const DEFAULT_GROUP: &str = "default";
/// EventBridge Scheduler's limit on a schedule name's length.
const MAX_NAME_LEN: usize = 64;

/// Where the one-shot schedules go and what they invoke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleTarget {
    /// Schedule group name.
    pub group: String,
    /// ARN of the `start-tasks` Lambda.
    pub function_arn: String,
    /// ARN of the role the scheduler assumes to invoke it.
    pub role_arn: String,
}

impl ScheduleTarget {
    /// From `AGORA_SCHEDULE_GROUP` (default `default`), `AGORA_START_FUNCTION_ARN` and
    /// `AGORA_SCHEDULER_ROLE_ARN` (both required).
    pub fn from_env() -> Result<Self, ConfigError> {
        Ok(Self {
            group: env_var(GROUP_ENV).unwrap_or_else(|| DEFAULT_GROUP.to_owned()),
            function_arn: required_env(START_FUNCTION_ENV)?,
            role_arn: required_env(ROLE_ENV)?,
        })
    }
}

/// Creates one-shot EventBridge Scheduler schedules that start a task at its `scheduled_time`.
#[derive(Clone, Debug)]
pub struct OneShotScheduler {
    client: aws_sdk_scheduler::Client,
    target: ScheduleTarget,
}

impl OneShotScheduler {
    pub fn new(client: aws_sdk_scheduler::Client, target: ScheduleTarget) -> Self {
        Self { client, target }
    }

    /// A scheduler configured by [`ScheduleTarget::from_env`].
    pub fn from_env(sdk: &SdkConfig) -> Result<Self, ConfigError> {
        Ok(Self::new(aws_sdk_scheduler::Client::new(sdk), ScheduleTarget::from_env()?))
    }

    pub fn target(&self) -> &ScheduleTarget {
        &self.target
    }
}

/// The name of the one-shot schedule of a task: `start-<social_task_id>`.
pub fn schedule_name(social_task_id: &str) -> String {
    format!("start-{social_task_id}")
}

/// The schedule expression firing once at `at` (UTC), rounded up to a whole minute:
/// `at(YYYY-MM-DDThh:mm:00)`. EventBridge Scheduler fires with 60-second precision (a schedule
/// at 10:00 fires between 10:00:00 and 10:00:59), so a start rounded up to the minute never
/// fires before the task is due, which would find it not due and leave it to the sweep.
pub fn at_expression(at: DateTime<Utc>) -> String {
    format!("at({})", round_up_to_minute(at).format("%Y-%m-%dT%H:%M:%S"))
}

/// The input the schedule passes to the `start-tasks` Lambda.
pub fn start_input(social_task_id: &str) -> Value {
    json!({"social_task_id": social_task_id})
}

fn round_up_to_minute(at: DateTime<Utc>) -> DateTime<Utc> {
    let whole = DateTime::from_timestamp(at.timestamp().div_euclid(60) * 60, 0).unwrap_or(at);
    if whole < at {
        whole + chrono::Duration::minutes(1)
    } else {
        whole
    }
}

/// Whether `name` is a valid schedule name: 1–64 of letters, digits, `-`, `_`, `.`.
fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.len() <= MAX_NAME_LEN && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

#[async_trait]
impl StartScheduler for OneShotScheduler {
    /// Creates `start-<id>` firing at `at`. A schedule that exists already (the same task
    /// scheduled twice) is success; a time not in the future creates nothing (the sweep starts
    /// the task).
    async fn schedule_start(&self, social_task_id: &str, at: DateTime<Utc>) -> Result<(), ScheduleError> {
        let error = |reason: String| ScheduleError { social_task_id: social_task_id.to_owned(), reason };
        let name = schedule_name(social_task_id);
        if !valid_name(&name) {
            return Err(error(format!("{name:?} is not a valid schedule name (1-64 of letters, digits, '-', '_', '.')")));
        }
        if at <= Utc::now() {
            tracing::debug!(social_task_id, %at, "start time is not in the future; no one-shot schedule, the sweep starts the task");
            return Ok(());
        }
        let expression = at_expression(at);
        let target = Target::builder()
            .arn(&self.target.function_arn)
            .role_arn(&self.target.role_arn)
            .input(start_input(social_task_id).to_string())
            .build()
            .map_err(|e| error(format!("schedule target: {e}")))?;
        let window =
            FlexibleTimeWindow::builder().mode(FlexibleTimeWindowMode::Off).build().map_err(|e| error(format!("time window: {e}")))?;
        let created = self
            .client
            .create_schedule()
            .name(&name)
            .group_name(&self.target.group)
            .description(format!("Start of task {social_task_id}"))
            .schedule_expression(&expression)
            .schedule_expression_timezone("UTC")
            .flexible_time_window(window)
            .target(target)
            .action_after_completion(ActionAfterCompletion::Delete)
            .send()
            .await;
        match created {
            Ok(out) => {
                tracing::info!(social_task_id, schedule = %name, group = %self.target.group, %expression, arn = out.schedule_arn(), "one-shot start scheduled");
                Ok(())
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_conflict_exception()) => {
                tracing::debug!(social_task_id, schedule = %name, group = %self.target.group, "one-shot start already scheduled");
                Ok(())
            }
            Err(e) => Err(error(truncate(
                &format!("CreateSchedule {name} in group {} failed: {}", self.target.group, DisplayErrorContext(&e)),
                2000,
            ))),
        }
    }
}

/// What an invocation of the `start-tasks` Lambda asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartRequest {
    /// Start this task (the one-shot schedule's input).
    Task(String),
    /// Start every due task (the periodic sweep, or any other event).
    Sweep,
}

/// Reads a `start-tasks` invocation event: `{"social_task_id": "..."}` (a one-shot schedule's
/// input) is [`StartRequest::Task`]; an EventBridge scheduled event (`"detail-type":
/// "Scheduled Event"`) or anything else is [`StartRequest::Sweep`].
pub fn parse_start_event(v: &Value) -> StartRequest {
    if v.get("detail-type").and_then(Value::as_str) == Some("Scheduled Event") {
        return StartRequest::Sweep;
    }
    match v.get("social_task_id").and_then(Value::as_str).map(str::trim) {
        Some(id) if !id.is_empty() => StartRequest::Task(id.to_owned()),
        _ => StartRequest::Sweep,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn expression_is_utc_rounded_up_to_the_minute() {
        let at = Utc.with_ymd_and_hms(2026, 10, 22, 10, 0, 0).single().expect("date");
        assert_eq!(at_expression(at), "at(2026-10-22T10:00:00)");
        assert_eq!(at_expression(at + chrono::Duration::microseconds(1)), "at(2026-10-22T10:01:00)");
        assert_eq!(at_expression(at + chrono::Duration::seconds(59)), "at(2026-10-22T10:01:00)");
        assert_eq!(at_expression(at + chrono::Duration::seconds(60)), "at(2026-10-22T10:01:00)");
        let end_of_year = Utc.with_ymd_and_hms(2026, 12, 31, 23, 59, 59).single().expect("date") + chrono::Duration::milliseconds(1);
        assert_eq!(at_expression(end_of_year), "at(2027-01-01T00:00:00)");
        let before_epoch = Utc.with_ymd_and_hms(1969, 12, 31, 23, 59, 30).single().expect("date");
        assert_eq!(at_expression(before_epoch), "at(1970-01-01T00:00:00)");
    }

    #[test]
    fn names() {
        assert_eq!(schedule_name("task_0a1b2c3d"), "start-task_0a1b2c3d");
        assert!(valid_name(&schedule_name("task_0a1b2c3d")));
        assert!(!valid_name(&schedule_name("task with space")));
        assert!(!valid_name(&schedule_name(&"x".repeat(60))));
    }
}
