//! One-shot schedules on EventBridge Scheduler against moto.

mod common;

use agora_aws::scheduler::{self, OneShotScheduler, ScheduleTarget};
use agora_ports::OneShotSchedules;
use aws_sdk_scheduler::types::{ActionAfterCompletion, FlexibleTimeWindowMode};
use chrono::{Duration, TimeZone, Utc};
use serde_json::{json, Value};

/// A scheduler on a new schedule group.
async fn scheduler(sdk: &aws_config::SdkConfig) -> (OneShotScheduler, aws_sdk_scheduler::Client) {
    let client = aws_sdk_scheduler::Client::new(sdk);
    let group = common::unique("agora-starts");
    client.create_schedule_group().name(&group).send().await.expect("create group");
    let target = ScheduleTarget {
        group,
        function_arn: "arn:aws:lambda:us-east-1:123456789012:function:start-tasks".into(),
        role_arn: "arn:aws:iam::123456789012:role/agora-scheduler".into(),
    };
    (OneShotScheduler::new(client.clone(), target), client)
}

#[tokio::test]
async fn a_one_shot_schedule_starts_the_task_at_its_time() {
    let sdk = common::sdk().await;
    let (starts, client) = scheduler(&sdk).await;
    let at = Utc.with_ymd_and_hms(2099, 10, 22, 9, 30, 0).single().expect("date") + Duration::milliseconds(250);
    starts.schedule("start-task_0a1b2c3d", at, &json!({"social_task_id": "task_0a1b2c3d"})).await.expect("scheduled");

    let got = client.get_schedule().group_name(&starts.target().group).name("start-task_0a1b2c3d").send().await.expect("schedule exists");
    assert_eq!(got.schedule_expression(), Some("at(2099-10-22T09:31:00)"));
    assert_eq!(got.schedule_expression_timezone(), Some("UTC"));
    assert_eq!(got.action_after_completion(), Some(&ActionAfterCompletion::Delete));
    assert_eq!(got.flexible_time_window().map(|w| w.mode()), Some(&FlexibleTimeWindowMode::Off));
    let target = got.target().expect("target");
    assert_eq!(target.arn(), starts.target().function_arn);
    assert_eq!(target.role_arn(), starts.target().role_arn);
    let input: Value = serde_json::from_str(target.input().expect("input")).expect("input JSON");
    assert_eq!(input, json!({"social_task_id": "task_0a1b2c3d"}));
}

#[tokio::test]
async fn scheduling_the_same_task_twice_is_fine() {
    let sdk = common::sdk().await;
    let (starts, client) = scheduler(&sdk).await;
    let at = Utc::now() + Duration::hours(1);
    starts.schedule("start-task_00000042", at, &json!({"social_task_id": "task_00000042"})).await.expect("scheduled");
    starts.schedule("start-task_00000042", at, &json!({"social_task_id": "task_00000042"})).await.expect("scheduled again");
    let listed = client.list_schedules().group_name(&starts.target().group).send().await.expect("list");
    assert_eq!(listed.schedules().len(), 1);
}

#[tokio::test]
async fn a_due_task_gets_no_schedule() {
    let sdk = common::sdk().await;
    let (starts, client) = scheduler(&sdk).await;
    starts
        .schedule("start-task_00000043", Utc::now() - Duration::minutes(5), &json!({"social_task_id": "task_00000043"}))
        .await
        .expect("nothing to schedule");
    starts.schedule("start-task_00000044", Utc::now(), &json!({"social_task_id": "task_00000044"})).await.expect("nothing to schedule");
    let listed = client.list_schedules().group_name(&starts.target().group).send().await.expect("list");
    assert!(listed.schedules().is_empty(), "{:?}", listed.schedules());
}

#[tokio::test]
async fn a_time_seconds_away_is_scheduled_for_the_next_whole_minute() {
    let sdk = common::sdk().await;
    let (starts, client) = scheduler(&sdk).await;
    let at = Utc::now() + Duration::seconds(2);
    starts.schedule("start-task_00000046", at, &json!({"social_task_id": "task_00000046"})).await.expect("scheduled");
    let got = client.get_schedule().group_name(&starts.target().group).name("start-task_00000046").send().await.expect("schedule exists");
    assert_eq!(got.schedule_expression(), Some(scheduler::at_expression(at).as_str()));
    assert!(got.schedule_expression().is_some_and(|e| e.ends_with(":00)")), "{:?}", got.schedule_expression());
}

#[tokio::test]
async fn a_name_that_is_no_schedule_name_is_an_error() {
    let sdk = common::sdk().await;
    let (starts, _) = scheduler(&sdk).await;
    let err =
        starts.schedule("start-task 1", Utc::now() + Duration::hours(1), &json!({"social_task_id": "task 1"})).await.expect_err("bad name");
    assert_eq!(err.name, "start-task 1");
    assert!(err.reason.contains("not a valid schedule name"), "{err}");
}

#[tokio::test]
async fn an_unknown_group_is_an_error() {
    let sdk = common::sdk().await;
    let (starts, _) = scheduler(&sdk).await;
    let mut target = starts.target().clone();
    target.group = common::unique("no-such-group");
    // AWS answers ResourceNotFound; moto a server error. Either way: an error, not a conflict.
    let err = OneShotScheduler::new(aws_sdk_scheduler::Client::new(&sdk), target)
        .schedule("start-task_00000045", Utc::now() + Duration::hours(1), &json!({"social_task_id": "task_00000045"}))
        .await
        .expect_err("unknown group");
    assert!(err.reason.contains("CreateSchedule start-task_00000045"), "{err}");
}

#[test]
fn expressions() {
    let at = Utc.with_ymd_and_hms(2026, 10, 22, 10, 0, 0).single().expect("date");
    assert_eq!(scheduler::at_expression(at), "at(2026-10-22T10:00:00)");
}
