//! The AWS shape, end to end on one machine: the real Lambda handlers in process, against
//! moto's SQS, EventBridge and EventBridge Scheduler and a MongoDB-protocol server. A task is
//! created through the create-task function, its start timer arrives on the start timer queue at
//! its time and start-tasks starts it (a task further ahead gets a one-shot schedule a minute
//! early, which start-tasks sends back to the timer queue), votes arrive through submit-vote, the evaluation message is consumed by
//! evaluate-task (delivered twice, and by two invocations at once), and the report is stored.
//!
//! Needs the servers `./tests/run.sh` starts: `MONGODB_URI` and `AGORA_AWS_ENDPOINT`.

use agora_e2e::{example_request, vote_body, HookServer, REVIEWERS};
use agora_voting_api::{flow_router, Flow};
use agora_voting_core::EvaluationWork;
use agora_voting_core::{Ports, Settings, SystemClock, Voting, VOTING_DB};
use agora_voting_functions::start;
use agora_voting_functions::start::DueStart;
use aws_lambda_events::event::sqs::SqsEvent;
use lambda_http::request::LambdaRequest;
use lambda_http::{Adapter, Context, LambdaEvent, Service};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

fn required_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set: run ./tests/run.sh, which starts the servers this test needs"))
}

fn apigw_event(method: &str, path: &str, body: Option<String>) -> LambdaRequest {
    serde_json::from_value(json!({
        "version": "2.0", "routeKey": "$default", "rawPath": path, "rawQueryString": "",
        "headers": {"content-type": "application/json"},
        "requestContext": {"accountId": "123456789012", "apiId": "api", "domainName": "api.example.com", "domainPrefix": "api",
            "http": {"method": method, "path": path, "protocol": "HTTP/1.1", "sourceIp": "127.0.0.1", "userAgent": "test"},
            "requestId": "req", "routeKey": "$default", "stage": "$default", "time": "03/Dec/2026:10:00:00 +0000", "timeEpoch": 0},
        "body": body, "isBase64Encoded": false
    }))
    .expect("API Gateway event")
}

/// Calls one HTTP function the way API Gateway does; returns the status and JSON body.
async fn call_http(voting: &Arc<Voting>, flow: Flow, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let mut adapter = Adapter::from(flow_router(voting.clone(), flow));
    let event = apigw_event(method, path, body.map(|b| b.to_string()));
    let response = adapter.call(LambdaEvent::new(event, Context::default())).await.expect("function answers");
    let v = serde_json::to_value(&response).expect("response");
    let body = v["body"].as_str().and_then(|b| serde_json::from_str(b).ok()).unwrap_or(Value::Null);
    (v["statusCode"].as_u64().unwrap_or(0) as u16, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_task_runs_through_the_lambda_handlers_on_moto_and_mongodb() {
    let mongo_uri = required_env("MONGODB_URI");
    required_env("AGORA_AWS_ENDPOINT");
    let suffix = uuid::Uuid::new_v4().simple().to_string()[..10].to_owned();
    let sdk = agora_aws::config::load().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let events = aws_sdk_eventbridge::Client::new(&sdk);
    let scheduler = aws_sdk_scheduler::Client::new(&sdk);

    // The stack's resources, as the template declares them.
    let queue_url = sqs.create_queue().queue_name(format!("evaluations-{suffix}")).send().await.expect("queue").queue_url.expect("url");
    let bus = format!("voting-{suffix}");
    events.create_event_bus().name(&bus).send().await.expect("bus");
    let results_url = sqs.create_queue().queue_name(format!("results-{suffix}")).send().await.expect("queue").queue_url.expect("url");
    let results_arn = sqs
        .get_queue_attributes()
        .queue_url(&results_url)
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::QueueArn)
        .send()
        .await
        .expect("attributes")
        .attributes
        .and_then(|a| a.get(&aws_sdk_sqs::types::QueueAttributeName::QueueArn).cloned())
        .expect("queue arn");
    events
        .put_rule()
        .name(format!("results-{suffix}"))
        .event_bus_name(&bus)
        .event_pattern(json!({"detail-type": ["voting_result"]}).to_string())
        .send()
        .await
        .expect("rule");
    events
        .put_targets()
        .rule(format!("results-{suffix}"))
        .event_bus_name(&bus)
        .targets(aws_sdk_eventbridge::types::Target::builder().id("results").arn(&results_arn).build().expect("target"))
        .send()
        .await
        .expect("targets");
    let group = format!("starts-{suffix}");
    scheduler.create_schedule_group().name(&group).send().await.expect("schedule group");
    let timer_url = sqs.create_queue().queue_name(format!("start-timers-{suffix}")).send().await.expect("queue").queue_url.expect("url");
    let post_award = HookServer::start(Duration::from_millis(200), |input| {
        (200, json!({"assigned_to": input["user_input"]["winners"][0], "decision": "assigned"}).to_string())
    })
    .await;

    let store = agora_store_mongodb::MongoStore::connect(&mongo_uri, VOTING_DB.named(format!("voting_{suffix}"))).await.expect("mongodb");
    let ports = Ports {
        store: Arc::new(store),
        hooks: agora_voting_core::voting_hooks(Arc::new(agora_hooks_remote::RemoteHooks::default()), None),
        publisher: Arc::new(agora_aws::EventBridgePublisher::new(events.clone(), &bus, "agora.voting")),
        queue: Arc::new(agora_aws::SqsQueue::new(sqs.clone(), &queue_url)),
        clock: Arc::new(SystemClock),
        changes: Arc::new(agora_voting_core::NoChangeListener),
        scheduler: Arc::new(agora_aws::Timers::new(
            Some(Arc::new(agora_aws::SqsQueue::new(sqs.clone(), &timer_url))),
            Some(Arc::new(agora_aws::OneShotScheduler::new(
                scheduler.clone(),
                agora_aws::ScheduleTarget {
                    group: group.clone(),
                    function_arn: "arn:aws:lambda:us-east-1:123456789012:function:agora-start-tasks".into(),
                    role_arn: "arn:aws:iam::123456789012:role/agora-scheduler".into(),
                },
            ))),
            Arc::new(SystemClock),
        )),
    };
    let voting = Arc::new(Voting::new(ports, Settings::default()));
    // start-tasks' timers: the timer queue alone.
    let timers = agora_aws::Timers::new(Some(Arc::new(agora_aws::SqsQueue::new(sqs.clone(), &timer_url))), None, Arc::new(SystemClock));
    let due_starts = agora_aws::TimerQueueWork::new(timers.clone(), DueStart(voting.starter().clone()));

    // create-task: a private task due in two seconds, with an HTTP post-award hook.
    let mut request = example_request();
    let due = chrono::Utc::now() + chrono::Duration::seconds(2);
    request["social_task"]["scheduled_time"] = json!(due.to_rfc3339());
    request["evaluation_spec"]["post_award"] = json!({"mode": "http", "url": post_award.url});
    let (status, created) = call_http(&voting, Flow::CreateTask, "POST", "/submit-social-choice-task", Some(request)).await;
    assert_eq!(status, 201, "{created}");
    let id = created["social_task_id"].as_str().expect("id").to_owned();

    // Its start timer is on the timer queue, delayed until its time: start-tasks, fed by the
    // queue, starts it then (within a second or two of it).
    let receive_timers = |wait: i32| {
        let (sqs, url) = (sqs.clone(), timer_url.clone());
        async move {
            let got =
                sqs.receive_message().queue_url(&url).max_number_of_messages(10).wait_time_seconds(wait).send().await.expect("receive");
            got.messages.unwrap_or_default()
        }
    };
    assert!(receive_timers(0).await.is_empty(), "not delivered before its time");
    let mut timer_messages = Vec::new();
    while timer_messages.is_empty() && chrono::Utc::now() < due + chrono::Duration::seconds(5) {
        timer_messages = receive_timers(1).await;
    }
    assert!(chrono::Utc::now() >= due - chrono::Duration::milliseconds(50), "delivered at its time");
    assert_eq!(timer_messages.len(), 1, "one start timer");
    let timer: Value = serde_json::from_str(timer_messages[0].body.as_deref().expect("body")).expect("timer JSON");
    assert_eq!(timer["body"], json!({"social_task_id": id}));
    assert_eq!(timer["timer"]["name"], json!(agora_voting_core::messages::start_schedule_name(&id)));
    let batch: SqsEvent = serde_json::from_value(json!({"Records": [sqs_record(&timer_messages[0], "start-timers")]})).expect("SQS event");
    assert!(agora_runtime::lambda::handle_batch(&due_starts, batch).await.batch_item_failures.is_empty());
    assert_eq!(call_http(&voting, Flow::Queries, "GET", &format!("/get-status/{id}"), None).await.1, json!({"status": "started"}));
    // A sweep right after starts nothing more.
    let swept =
        start::handle(voting.starter(), voting.repairer(), &timers, &json!({"detail-type": "Scheduled Event", "source": "aws.events"}))
            .await
            .expect("sweep");
    assert!(!swept.to_string().contains(&id), "{swept}");
    a_start_an_hour_ahead_gets_a_schedule_a_minute_early(&voting, &timers, &scheduler, &group, &sqs, &timer_url).await;

    // submit-vote: every reviewer votes; the last vote queues one evaluation request.
    for (reviewer, option) in REVIEWERS.iter().zip(["agent-translator-02", "agent-translator-02", "agent-translator-01"]) {
        let body = vote_body(&id, reviewer, json!({"selected_option": option}));
        assert_eq!(
            call_http(&voting, Flow::SubmitVote, "POST", "/submit-vote", Some(body)).await,
            (200, json!({"status": "accepted", "qualified": true}))
        );
    }
    let received =
        sqs.receive_message().queue_url(&queue_url).max_number_of_messages(10).wait_time_seconds(2).send().await.expect("receive");
    let messages = received.messages.unwrap_or_default();
    assert_eq!(messages.len(), 1, "one evaluation request");
    let record = sqs_record(&messages[0], "evaluations");
    // evaluate-task: the message delivered twice in one batch, and two invocations at once.
    let batch: SqsEvent = serde_json::from_value(json!({"Records": [record.clone(), record]})).expect("SQS event");
    let work = EvaluationWork::new(voting.evaluator().clone());
    let (a, b) = tokio::join!(agora_runtime::lambda::handle_batch(&work, batch.clone()), agora_runtime::lambda::handle_batch(&work, batch));
    assert!(a.batch_item_failures.is_empty() && b.batch_item_failures.is_empty(), "nothing to redeliver");
    assert_eq!(post_award.calls(), 1, "post-award ran once");

    // queries: the report is stored.
    let (status, report) = call_http(&voting, Flow::Queries, "GET", &format!("/get-report/{id}"), None).await;
    assert_eq!(status, 200);
    assert_eq!(report["winners"], json!(["agent-translator-02"]));
    assert_eq!(report["votes"].as_array().map(Vec::len), Some(3));
    assert_eq!(report["post_award_payload"], json!({"assigned_to": "agent-translator-02", "decision": "assigned"}));
    assert_eq!(call_http(&voting, Flow::Queries, "GET", &format!("/get-status/{id}"), None).await.1, json!({"status": "complete"}));

    // The winner's voting_result went out on the bus, once.
    let got = sqs.receive_message().queue_url(&results_url).max_number_of_messages(10).wait_time_seconds(2).send().await.expect("receive");
    let results: Vec<Value> =
        got.messages.unwrap_or_default().iter().filter_map(|m| serde_json::from_str(m.body.as_deref()?).ok()).collect();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0]["detail-type"], "voting_result");
    assert_eq!(results[0]["detail"]["recipient"], "agent-translator-02");
    assert_eq!(results[0]["detail"]["message"]["event_data"]["winners"], json!(["agent-translator-02"]));
}

/// The SQS event source's record of `message`, from the queue `queue`.
fn sqs_record(message: &aws_sdk_sqs::types::Message, queue: &str) -> Value {
    json!({
        "messageId": message.message_id, "receiptHandle": message.receipt_handle, "body": message.body,
        "attributes": {}, "messageAttributes": {}, "eventSource": "aws:sqs", "awsRegion": "us-east-1",
        "eventSourceARN": format!("arn:aws:sqs:us-east-1:123456789012:{queue}")
    })
}

/// A task due in an hour: beyond SQS's 15-minute delays, its start is a one-shot schedule at the
/// whole minute a minute or more before its time, whose input is the start timer. When the
/// schedule fires (early, as planned), start-tasks sends the timer back to the timer queue for
/// the rest of its wait (at most 15 minutes at a time) and starts nothing.
async fn a_start_an_hour_ahead_gets_a_schedule_a_minute_early(
    voting: &Arc<Voting>,
    timers: &agora_aws::Timers,
    scheduler: &aws_sdk_scheduler::Client,
    group: &str,
    sqs: &aws_sdk_sqs::Client,
    timer_url: &str,
) {
    let mut request = example_request();
    let due = chrono::Utc::now() + chrono::Duration::hours(1);
    request["social_task"]["scheduled_time"] = json!(due.to_rfc3339());
    let (status, created) = call_http(voting, Flow::CreateTask, "POST", "/submit-social-choice-task", Some(request)).await;
    assert_eq!(status, 201, "{created}");
    let id = created["social_task_id"].as_str().expect("id").to_owned();
    let name = agora_voting_core::messages::start_schedule_name(&id);
    let schedule = scheduler.get_schedule().group_name(group).name(&name).send().await.expect("schedule");
    let early = agora_aws::timers::plan(chrono::Utc::now(), due);
    let agora_aws::timers::Plan::Schedule(at) = early else { panic!("{early:?}") };
    assert!(at <= due - chrono::Duration::minutes(1) && at > due - chrono::Duration::minutes(2), "{at} for {due}");
    assert_eq!(schedule.schedule_expression.as_deref(), Some(agora_aws::scheduler::at_expression(at).as_str()));
    let input: Value = serde_json::from_str(schedule.target.expect("target").input.as_deref().expect("input")).expect("input JSON");
    assert_eq!((&input["timer"]["name"], &input["body"]), (&json!(name), &json!({"social_task_id": id})));
    let fired = start::handle(voting.starter(), voting.repairer(), timers, &input).await.expect("start-tasks");
    assert_eq!(fired["deferred"], json!(name), "{fired}");
    let attributes = sqs
        .get_queue_attributes()
        .queue_url(timer_url)
        .attribute_names(aws_sdk_sqs::types::QueueAttributeName::ApproximateNumberOfMessagesDelayed)
        .send()
        .await
        .expect("attributes");
    let delayed =
        attributes.attributes.and_then(|a| a.get(&aws_sdk_sqs::types::QueueAttributeName::ApproximateNumberOfMessagesDelayed).cloned());
    assert_eq!(delayed.as_deref(), Some("1"), "the timer waits on the queue");
    assert_eq!(call_http(voting, Flow::Queries, "GET", &format!("/get-status/{id}"), None).await.1, json!({"status": "scheduled"}));
}

/// A `WorkQueue` that never answers while `dead` is set: a function stopped between taking the
/// trigger's claim and sending the queue message (its invocation timed out, or the machine
/// died). Otherwise it sends to SQS.
struct StoppedBeforeTheSend {
    sqs: agora_aws::SqsQueue,
    dead: std::sync::atomic::AtomicBool,
}

#[async_trait::async_trait]
impl agora_voting_core::WorkQueue for StoppedBeforeTheSend {
    async fn send(&self, key: &str, body: &str, delay: Duration) -> Result<(), agora_voting_core::QueueError> {
        if self.dead.load(std::sync::atomic::Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
        self.sqs.send(key, body, delay).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_claim_taken_by_a_function_stopped_before_the_queue_send_is_repaired_by_the_start_tasks_sweep() {
    let mongo_uri = required_env("MONGODB_URI");
    required_env("AGORA_AWS_ENDPOINT");
    let suffix = uuid::Uuid::new_v4().simple().to_string()[..10].to_owned();
    let sdk = agora_aws::config::load().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let queue_url = sqs.create_queue().queue_name(format!("evaluations-{suffix}")).send().await.expect("queue").queue_url.expect("url");
    let post_award = HookServer::start(Duration::ZERO, |input| {
        (200, json!({"assigned_to": input["user_input"]["winners"][0], "decision": "assigned"}).to_string())
    })
    .await;
    let store = agora_store_mongodb::MongoStore::connect(&mongo_uri, VOTING_DB.named(format!("voting_{suffix}"))).await.expect("mongodb");
    let queue = Arc::new(StoppedBeforeTheSend { sqs: agora_aws::SqsQueue::new(sqs.clone(), &queue_url), dead: true.into() });
    let clock = Arc::new(agora_ports::fakes::ManualClock::new(chrono::Utc::now()));
    let mut ports = Ports::new(
        Arc::new(store),
        agora_voting_core::voting_hooks(Arc::new(agora_hooks_remote::RemoteHooks::default()), None),
        Arc::new(agora_runtime::LogPublisher),
        queue.clone(),
    );
    ports.clock = clock.clone();
    let voting = Arc::new(Voting::new(ports, Settings::default()));

    let mut request = example_request();
    request["evaluation_spec"]["post_award"] = json!({"mode": "http", "url": post_award.url});
    let (status, created) = call_http(&voting, Flow::CreateTask, "POST", "/submit-social-choice-task", Some(request)).await;
    assert_eq!(status, 201, "{created}");
    let id = created["social_task_id"].as_str().expect("id").to_owned();
    let sweep = json!({"detail-type": "Scheduled Event", "source": "aws.events"});
    let timers = agora_aws::Timers::new(None, None, clock.clone());
    start::handle(voting.starter(), voting.repairer(), &timers, &sweep).await.expect("sweep starts it");

    // Every reviewer votes; the function serving the last vote stores it and stops before it
    // sends the evaluation request (API Gateway gives up on it). The client retries the vote; the
    // function serving the retry takes the trigger's claim and stops before the send too.
    let last = vote_body(&id, REVIEWERS[2], json!({"selected_option": "agent-translator-02"}));
    for reviewer in &REVIEWERS[..2] {
        let body = vote_body(&id, reviewer, json!({"selected_option": "agent-translator-02"}));
        assert_eq!(call_http(&voting, Flow::SubmitVote, "POST", "/submit-vote", Some(body)).await.0, 200);
    }
    for attempt in ["the vote", "its retry"] {
        let call = call_http(&voting, Flow::SubmitVote, "POST", "/submit-vote", Some(last.clone()));
        assert!(tokio::time::timeout(Duration::from_secs(2), call).await.is_err(), "the function serving {attempt} never answers");
    }
    queue.dead.store(false, std::sync::atomic::Ordering::SeqCst);
    let receive = || async {
        let got =
            sqs.receive_message().queue_url(&queue_url).max_number_of_messages(10).wait_time_seconds(1).send().await.expect("receive");
        got.messages.unwrap_or_default()
    };
    assert!(receive().await.is_empty(), "no request was sent");

    // Within the claim's lease the sweep leaves it; past it, the sweep requests it, once.
    let swept = start::handle(voting.starter(), voting.repairer(), &timers, &sweep).await.expect("sweep");
    assert_eq!(swept["repaired"], json!([]));
    clock.advance(Settings::default().trigger_lease + chrono::Duration::seconds(1));
    let swept = start::handle(voting.starter(), voting.repairer(), &timers, &sweep).await.expect("sweep");
    assert_eq!(swept["repaired"], json!([{"social_task_id": id, "stall": "RequestLost"}]));
    let swept = start::handle(voting.starter(), voting.repairer(), &timers, &sweep).await.expect("sweep");
    assert_eq!(swept["repaired"], json!([]), "requested once");
    let messages = receive().await;
    assert_eq!(messages.len(), 1, "one evaluation request");

    // evaluate-task consumes it: the task completes once.
    let record = json!({
        "messageId": messages[0].message_id, "receiptHandle": messages[0].receipt_handle, "body": messages[0].body,
        "attributes": {}, "messageAttributes": {}, "eventSource": "aws:sqs", "awsRegion": "us-east-1",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:evaluations"
    });
    let batch: SqsEvent = serde_json::from_value(json!({"Records": [record]})).expect("SQS event");
    let work = EvaluationWork::new(voting.evaluator().clone());
    assert!(agora_runtime::lambda::handle_batch(&work, batch).await.batch_item_failures.is_empty());
    assert_eq!(call_http(&voting, Flow::Queries, "GET", &format!("/get-status/{id}"), None).await.1, json!({"status": "complete"}));
    assert_eq!(post_award.calls(), 1);
    clock.advance(chrono::Duration::hours(1));
    let swept = start::handle(voting.starter(), voting.repairer(), &timers, &sweep).await.expect("sweep");
    assert_eq!(swept["repaired"], json!([]));
    assert!(receive().await.is_empty());
    assert_eq!(post_award.calls(), 1, "post-award ran once");
}
