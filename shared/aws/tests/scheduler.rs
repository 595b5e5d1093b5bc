//! One-shot starts on EventBridge Scheduler against moto, and reading start-tasks events.

mod common;

use agora_aws::scheduler::{self, OneShotScheduler, ScheduleTarget};
use agora_aws::{parse_start_event, StartRequest};
use agora_voting_core::StartScheduler;
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
    starts.schedule_start("task_0a1b2c3d", at).await.expect("scheduled");

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
    assert_eq!(parse_start_event(&input), StartRequest::Task("task_0a1b2c3d".into()));
}

#[tokio::test]
async fn scheduling_the_same_task_twice_is_fine() {
    let sdk = common::sdk().await;
    let (starts, client) = scheduler(&sdk).await;
    let at = Utc::now() + Duration::hours(1);
    starts.schedule_start("task_00000042", at).await.expect("scheduled");
    starts.schedule_start("task_00000042", at).await.expect("scheduled again");
    let listed = client.list_schedules().group_name(&starts.target().group).send().await.expect("list");
    assert_eq!(listed.schedules().len(), 1);
}

#[tokio::test]
async fn a_due_task_gets_no_schedule() {
    let sdk = common::sdk().await;
    let (starts, client) = scheduler(&sdk).await;
    starts.schedule_start("task_00000043", Utc::now() - Duration::minutes(5)).await.expect("nothing to schedule");
    starts.schedule_start("task_00000044", Utc::now()).await.expect("nothing to schedule");
    let listed = client.list_schedules().group_name(&starts.target().group).send().await.expect("list");
    assert!(listed.schedules().is_empty(), "{:?}", listed.schedules());
}

#[tokio::test]
async fn a_time_seconds_away_is_scheduled_for_the_next_whole_minute() {
    let sdk = common::sdk().await;
    let (starts, client) = scheduler(&sdk).await;
    let at = Utc::now() + Duration::seconds(2);
    starts.schedule_start("task_00000046", at).await.expect("scheduled");
    let got = client.get_schedule().group_name(&starts.target().group).name("start-task_00000046").send().await.expect("schedule exists");
    assert_eq!(got.schedule_expression(), Some(scheduler::at_expression(at).as_str()));
    assert!(got.schedule_expression().is_some_and(|e| e.ends_with(":00)")), "{:?}", got.schedule_expression());
}

#[tokio::test]
async fn an_id_that_makes_no_schedule_name_is_an_error() {
    let sdk = common::sdk().await;
    let (starts, _) = scheduler(&sdk).await;
    let err = starts.schedule_start("task 1", Utc::now() + Duration::hours(1)).await.expect_err("bad name");
    assert_eq!(err.social_task_id, "task 1");
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
        .schedule_start("task_00000045", Utc::now() + Duration::hours(1))
        .await
        .expect_err("unknown group");
    assert!(err.reason.contains("CreateSchedule start-task_00000045"), "{err}");
}

#[test]
fn start_events() {
    let cases = [
        (json!({"social_task_id": "task_0a1b2c3d"}), StartRequest::Task("task_0a1b2c3d".into())),
        (json!({"social_task_id": " task_0a1b2c3d "}), StartRequest::Task("task_0a1b2c3d".into())),
        // The EventBridge rule of the `rate(1 minute)` sweep.
        (
            json!({
                "version": "0", "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa", "detail-type": "Scheduled Event",
                "source": "aws.events", "account": "123456789012", "time": "2026-10-22T10:00:00Z", "region": "us-east-1",
                "resources": ["arn:aws:events:us-east-1:123456789012:rule/agora-start-sweep"], "detail": {}
            }),
            StartRequest::Sweep,
        ),
        (json!({"detail-type": "Scheduled Event", "social_task_id": "task_0a1b2c3d"}), StartRequest::Sweep),
        (json!({}), StartRequest::Sweep),
        (json!(null), StartRequest::Sweep),
        (json!("task_0a1b2c3d"), StartRequest::Sweep),
        (json!({"social_task_id": ""}), StartRequest::Sweep),
        (json!({"social_task_id": 7}), StartRequest::Sweep),
        (json!([1, 2]), StartRequest::Sweep),
    ];
    for (event, want) in cases {
        assert_eq!(parse_start_event(&event), want, "{event}");
    }
}

#[test]
fn names_expressions_and_input() {
    assert_eq!(scheduler::schedule_name("task_0a1b2c3d"), "start-task_0a1b2c3d");
    let at = Utc.with_ymd_and_hms(2026, 10, 22, 10, 0, 0).single().expect("date");
    assert_eq!(scheduler::at_expression(at), "at(2026-10-22T10:00:00)");
    assert_eq!(scheduler::start_input("task_1"), json!({"social_task_id": "task_1"}));
}
