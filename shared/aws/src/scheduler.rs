//! One-shot schedules on Amazon EventBridge Scheduler: a schedule fires its target Lambda once
//! at the given time with the given body as input, then deletes itself (voting: the schedule
//! `start-<social_task_id>` fires `voting-start-tasks`). Every use is backed by a
//! `rate(1 minute)` sweep that finds due work anyway.
//!
//! A schedule fires within the minute of its time (60-second precision), so on its own it
//! cannot do work on time: the services use it through [`crate::timers::Timers`], for times more
//! than 15 minutes ahead only, and ask for a whole minute a minute or more before the time (the
//! target then waits out the rest on its SQS timer queue). Used alone (no timer queue), a time
//! that is not in the future gets no schedule (the sweep finds the work), and a future time is
//! rounded up to a whole minute (see [`at_expression`]), so that the work is never found early.

use crate::config::{env_var, required_env, truncate, ConfigError};
use agora_ports::{OneShotSchedules, ScheduleError};
use async_trait::async_trait;
use aws_config::SdkConfig;
use aws_sdk_scheduler::error::DisplayErrorContext;
use aws_sdk_scheduler::types::{ActionAfterCompletion, FlexibleTimeWindow, FlexibleTimeWindowMode, Target};
use chrono::{DateTime, Utc};
use serde_json::Value;

/// Environment variable: the schedule group (default [`DEFAULT_GROUP`]).
pub const GROUP_ENV: &str = "AGORA_SCHEDULE_GROUP";
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
    /// ARN of the Lambda the schedules invoke.
    pub function_arn: String,
    /// ARN of the role the scheduler assumes to invoke it.
    pub role_arn: String,
}

impl ScheduleTarget {
    /// From `AGORA_SCHEDULE_GROUP` (default `default`), the variable `function_env` (the
    /// target's ARN, named by the service: voting's is `AGORA_START_FUNCTION_ARN`) and
    /// `AGORA_SCHEDULER_ROLE_ARN` (both required).
    pub fn from_env(function_env: &str) -> Result<Self, ConfigError> {
        Ok(Self {
            group: env_var(GROUP_ENV).unwrap_or_else(|| DEFAULT_GROUP.to_owned()),
            function_arn: required_env(function_env)?,
            role_arn: required_env(ROLE_ENV)?,
        })
    }
}

/// Creates one-shot EventBridge Scheduler schedules.
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
    pub fn from_env(sdk: &SdkConfig, function_env: &str) -> Result<Self, ConfigError> {
        Ok(Self::new(aws_sdk_scheduler::Client::new(sdk), ScheduleTarget::from_env(function_env)?))
    }

    pub fn target(&self) -> &ScheduleTarget {
        &self.target
    }
}

#[async_trait]
impl crate::warm::Warm for OneShotScheduler {
    fn target(&self) -> String {
        format!("scheduler group {}", self.target.group)
    }

    /// `GetScheduleGroup` of the group the schedules go to.
    async fn warm(&self) -> Result<(), String> {
        self.client
            .get_schedule_group()
            .name(&self.target.group)
            .send()
            .await
            .map(drop)
            .map_err(|e| truncate(&format!("GetScheduleGroup: {}", DisplayErrorContext(&e)), 500))
    }
}

/// The schedule expression firing once at `at` (UTC), rounded up to a whole minute:
/// `at(YYYY-MM-DDThh:mm:00)`. EventBridge Scheduler fires with 60-second precision (a schedule
/// at 10:00 fires between 10:00:00 and 10:00:59), so a start rounded up to the minute never
/// fires before the task is due, which would find it not due and leave it to the sweep.
pub fn at_expression(at: DateTime<Utc>) -> String {
    format!("at({})", round_up_to_minute(at).format("%Y-%m-%dT%H:%M:%S"))
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
impl OneShotSchedules for OneShotScheduler {
    /// Creates `name` firing at `at` with `body`. A schedule that exists already (the same work
    /// scheduled twice) is success; a time not in the future creates nothing (the sweep finds
    /// the work).
    async fn schedule(&self, name: &str, at: DateTime<Utc>, body: &Value) -> Result<(), ScheduleError> {
        let error = |reason: String| ScheduleError { name: name.to_owned(), reason };
        if !valid_name(name) {
            return Err(error(format!("{name:?} is not a valid schedule name (1-64 of letters, digits, '-', '_', '.')")));
        }
        if at <= Utc::now() {
            tracing::debug!(schedule = name, %at, "time is not in the future; no one-shot schedule, the sweep finds the work");
            return Ok(());
        }
        let expression = at_expression(at);
        let target = Target::builder()
            .arn(&self.target.function_arn)
            .role_arn(&self.target.role_arn)
            .input(body.to_string())
            .build()
            .map_err(|e| error(format!("schedule target: {e}")))?;
        let window =
            FlexibleTimeWindow::builder().mode(FlexibleTimeWindowMode::Off).build().map_err(|e| error(format!("time window: {e}")))?;
        let created = self
            .client
            .create_schedule()
            .name(name)
            .group_name(&self.target.group)
            .description(format!("One-shot {name}"))
            .schedule_expression(&expression)
            .schedule_expression_timezone("UTC")
            .flexible_time_window(window)
            .target(target)
            .action_after_completion(ActionAfterCompletion::Delete)
            .send()
            .await;
        match created {
            Ok(out) => {
                tracing::info!(schedule = %name, group = %self.target.group, %expression, arn = out.schedule_arn(), "one-shot schedule made");
                Ok(())
            }
            Err(e) if e.as_service_error().is_some_and(|s| s.is_conflict_exception()) => {
                tracing::debug!(schedule = %name, group = %self.target.group, "one-shot schedule exists already");
                Ok(())
            }
            Err(e) => Err(error(truncate(
                &format!("CreateSchedule {name} in group {} failed: {}", self.target.group, DisplayErrorContext(&e)),
                2000,
            ))),
        }
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
        assert!(valid_name("start-task_0a1b2c3d"));
        assert!(!valid_name("start-task with space"));
        assert!(!valid_name(&format!("start-{}", "x".repeat(60))));
    }
}
