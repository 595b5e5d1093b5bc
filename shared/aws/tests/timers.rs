//! Timers against moto: the SQS timer queue for work due within 15 minutes (now included), a
//! one-shot schedule a minute or more early for later work, and an early timer sent back.

mod common;

use agora_aws::timers::{Arrival, Timer, Timers};
use agora_aws::{OneShotScheduler, ScheduleTarget, SqsQueue};
use agora_ports::{OneShotSchedules, SystemClock};
use chrono::{Duration, DurationRound, Utc};
use serde_json::{json, Value};
use std::sync::Arc;

/// Timers on a new queue and schedule group; the queue's URL and the scheduler's client.
async fn timers(sdk: &aws_config::SdkConfig) -> (Timers, String, aws_sdk_scheduler::Client, String) {
    let sqs = aws_sdk_sqs::Client::new(sdk);
    let (url, _) = common::create_queue(&sqs, &common::unique("agora-timers")).await;
    let client = aws_sdk_scheduler::Client::new(sdk);
    let group = common::unique("agora-starts");
    client.create_schedule_group().name(&group).send().await.expect("create group");
    let target = ScheduleTarget {
        group: group.clone(),
        function_arn: "arn:aws:lambda:us-east-1:123456789012:function:start-tasks".into(),
        role_arn: "arn:aws:iam::123456789012:role/agora-scheduler".into(),
    };
    let timers = Timers::new(
        Some(Arc::new(SqsQueue::new(sqs, &url))),
        Some(Arc::new(OneShotScheduler::new(client.clone(), target))),
        Arc::new(SystemClock),
    );
    (timers, url, client, group)
}

#[tokio::test]
async fn work_due_now_is_on_the_timer_queue_at_once_and_soon_work_at_its_time() {
    let sdk = common::sdk().await;
    let (timers, url, _, _) = timers(&sdk).await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let now = Utc::now();
    timers.schedule("start-task_1", now - Duration::seconds(1), &json!({"social_task_id": "task_1"})).await.expect("now");
    let started = std::time::Instant::now();
    let got = common::receive(&sqs, &url, 1, std::time::Duration::from_secs(3)).await;
    assert!(started.elapsed() < std::time::Duration::from_secs(1), "at once");
    let timer = Timer::parse(&serde_json::from_str::<Value>(&got[0]).expect("JSON")).expect("a timer");
    assert_eq!((timer.name.as_str(), timer.body), ("start-task_1", json!({"social_task_id": "task_1"})));

    let due = Utc::now() + Duration::milliseconds(1500);
    timers.schedule("start-task_2", due, &json!({"social_task_id": "task_2"})).await.expect("soon");
    let got = common::receive(&sqs, &url, 1, std::time::Duration::from_secs(5)).await;
    assert_eq!(got.len(), 1);
    assert!(Utc::now() >= due, "not before its time");
    assert!(Utc::now() < due + Duration::seconds(2), "within a second or two of it");
}

#[tokio::test]
async fn later_work_gets_a_schedule_a_minute_early_that_is_sent_back_to_the_queue_when_it_fires() {
    let sdk = common::sdk().await;
    let (timers, url, client, group) = timers(&sdk).await;
    let due = Utc::now() + Duration::hours(2);
    timers.schedule("start-task_3", due, &json!({"social_task_id": "task_3"})).await.expect("later");
    let got = client.get_schedule().group_name(&group).name("start-task_3").send().await.expect("schedule exists");
    let early = due.duration_trunc(Duration::minutes(1)).expect("minute") - Duration::minutes(1);
    assert_eq!(got.schedule_expression(), Some(agora_aws::scheduler::at_expression(early).as_str()));
    let input: Value = serde_json::from_str(got.target().and_then(|t| t.input()).expect("input")).expect("input JSON");
    assert_eq!(Timer::parse(&input).map(|t| (t.due, t.body)), Some((due, json!({"social_task_id": "task_3"}))));

    // Fired (early): back to the queue, delayed.
    assert_eq!(timers.arrive(&input).await, Arrival::Deferred { name: "start-task_3".into(), due });
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    use aws_sdk_sqs::types::QueueAttributeName::ApproximateNumberOfMessagesDelayed as Delayed;
    let attrs = sqs.get_queue_attributes().queue_url(&url).attribute_names(Delayed).send().await.expect("attributes");
    assert_eq!(attrs.attributes().and_then(|a| a.get(&Delayed)).map(String::as_str), Some("1"));
}
