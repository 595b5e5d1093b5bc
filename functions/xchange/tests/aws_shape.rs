//! Xchange's AWS shape, end to end on one machine: the functions' own wiring (built from the
//! environment, as each `main` builds it) and handlers in process, with Orcade's functions of
//! the same stack, against moto's SQS and EventBridge Scheduler, a MongoDB-protocol server and a
//! real HTTP delegate system.
//!
//! * A direct task: `xchange-submit-task` stores it and queues its assignment; the message,
//!   handed to `xchange-assign` twice, makes one delegate round trip; the task is `completed`
//!   with the delegate's whole reply.
//! * A bidding task whose roster comes from topics: `xchange-assign` creates the Orcade job (one
//!   job, though handed the message twice), the task is `bidding` and its deadline timer waits
//!   on the deadline timer queue; the `bid_request`s go through `orcade-deliver`, the bids through
//!   `orcade-submit-bid`, the evaluation through `orcade-evaluate`, the `bid_winner` through
//!   `orcade-deliver`, whose resolution event lands on the bidding-outcome queue; handed to
//!   `xchange-bidding-outcome` (twice), it completes the task with the `bid_winner` result.
//! * A bidding task nobody bids on: its deadline timer, delivered by the deadline timer queue to
//!   `xchange-deadline` once the time limit has passed, fails it naming `AGORA_BIDDING_TIMEOUT_MS`.
//! * Bad requests get the envelope of §3 from the functions as from the local server.
//!
//! Needs the servers `./tests/run.sh` starts: `MONGODB_URI` and `AGORA_AWS_ENDPOINT`.

use agora_e2e::lambda::{self, handle_redelivered, required_env, take_batch, SqsEvent};
use agora_e2e::StubServer;
use agora_orcade_core::{DeliveryWork, EvaluationWork};
use agora_xchange_core::{deadline_schedule_name, AssignmentWork, BiddingOutcomeWork};
use agora_xchange_functions::deadline::DueDeadline;
use agora_xchange_functions::{deadline, wiring, HttpFunction};
use aws_sdk_sqs::Client as Sqs;
use serde_json::{json, Value};
use std::time::Duration;

/// Xchange's three HTTP functions and Orcade's bid intake, each built from the environment as
/// its Lambda builds it.
struct Functions {
    submit_task: axum::Router,
    subjects: axum::Router,
    queries: axum::Router,
    submit_bid: axum::Router,
}

impl Functions {
    async fn from_env() -> Functions {
        Functions {
            submit_task: HttpFunction::SubmitTask.router().await.expect("xchange-submit-task"),
            subjects: HttpFunction::Subjects.router().await.expect("xchange-subjects"),
            queries: HttpFunction::Queries.router().await.expect("xchange-queries"),
            submit_bid: agora_orcade_functions::HttpFunction::SubmitBid.router().await.expect("orcade-submit-bid"),
        }
    }

    /// Calls the Xchange function API Gateway routes the request to.
    async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let router = match HttpFunction::of(method, path) {
            HttpFunction::SubmitTask => &self.submit_task,
            HttpFunction::Subjects => &self.subjects,
            HttpFunction::Queries => &self.queries,
        };
        lambda::call(router, method, path, body).await
    }

    /// `data` of a 200 or 201 answer.
    async fn ok(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let (status, answer) = self.call(method, path, body).await;
        assert!(matches!(status, 200 | 201) && answer["ok"] == json!(true), "{method} {path}: {status} {answer}");
        answer["data"].clone()
    }

    async fn task(&self, id: &str) -> Value {
        self.ok("GET", &format!("/tasks/{id}"), None).await
    }

    async fn bid(&self, job: &str, subject: &str, price: f64) -> (u16, Value) {
        let body = json!({"bid_subject_id": subject, "bid_data": {"price_usd": price}});
        lambda::call(&self.submit_bid, "POST", &format!("/bid-jobs/{job}/bids"), Some(body)).await
    }
}

/// The queues and schedule groups of the stack, as the template declares them.
struct Stack {
    sqs: Sqs,
    scheduler: aws_sdk_scheduler::Client,
    assignments: String,
    outcomes: String,
    evaluations: String,
    deliveries: String,
    deadlines: String,
    deadline_timers: String,
}

impl Stack {
    async fn create(suffix: &str) -> Stack {
        let sdk = agora_aws::config::load().await;
        let sqs = Sqs::new(&sdk);
        let scheduler = aws_sdk_scheduler::Client::new(&sdk);
        let mut urls = Vec::new();
        for name in ["xchange-assignments", "xchange-outcomes", "orcade-evaluations", "orcade-deliveries", "xchange-deadline-timers"] {
            let url = sqs.create_queue().queue_name(format!("{name}-{suffix}")).send().await.expect("queue").queue_url;
            urls.push(url.expect("url"));
        }
        let deadlines = format!("xchange-deadlines-{suffix}");
        let closes = format!("orcade-closes-{suffix}");
        for group in [&deadlines, &closes] {
            scheduler.create_schedule_group().name(group).send().await.expect("schedule group");
        }
        let [assignments, outcomes, evaluations, deliveries, deadline_timers] = <[String; 5]>::try_from(urls).expect("five queues");
        let arn = |name: &str| format!("arn:aws:lambda:us-east-1:123456789012:function:agora-{name}");
        for (name, value) in [
            ("AGORA_STORE", "mongodb".to_owned()),
            ("EXCHANGE_ID", format!("aws-{suffix}")),
            ("AGORA_ASSIGNMENT_QUEUE_URL", assignments.clone()),
            ("AGORA_BIDDING_TIMEOUT_MS", "120000".to_owned()),
            ("AGORA_DEADLINE_TIMER_QUEUE_URL", deadline_timers.clone()),
            ("AGORA_DEADLINE_SCHEDULE_GROUP", deadlines.clone()),
            ("AGORA_DEADLINE_FUNCTION_ARN", arn("xchange-deadline")),
            ("AGORA_SCHEDULER_ROLE_ARN", "arn:aws:iam::123456789012:role/agora-scheduler".to_owned()),
            ("AGORA_RESOLUTION_QUEUE_URL", outcomes.clone()),
            ("AGORA_EVALUATION_QUEUE_URL", evaluations.clone()),
            ("AGORA_DELIVERY_QUEUE_URL", deliveries.clone()),
            ("AGORA_SCHEDULE_GROUP", closes),
            ("AGORA_CLOSE_FUNCTION_ARN", arn("orcade-close-due")),
            ("AGORA_DELEGATE_TIMEOUT_MS", "5000".to_owned()),
        ] {
            std::env::set_var(name, value);
        }
        std::env::remove_var("ORCADE_URL");
        Stack { sqs, scheduler, assignments, outcomes, evaluations, deliveries, deadlines, deadline_timers }
    }

    /// How many messages wait on `url`, delayed.
    async fn delayed(&self, url: &str) -> usize {
        use aws_sdk_sqs::types::QueueAttributeName::ApproximateNumberOfMessagesDelayed as Delayed;
        let got = self.sqs.get_queue_attributes().queue_url(url).attribute_names(Delayed).send().await.expect("attributes");
        got.attributes.and_then(|a| a.get(&Delayed).and_then(|n| n.parse().ok())).unwrap_or(0)
    }

    /// Waits for the next batch on `url` (a delayed message shows up within `within`).
    async fn next_batch(&self, url: &str, within: Duration) -> SqsEvent {
        let started = std::time::Instant::now();
        loop {
            let batch = take_batch(&self.sqs, url).await;
            if !batch.records.is_empty() || started.elapsed() > within {
                return batch;
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tasks_run_through_the_lambda_functions_on_moto_and_mongodb() {
    required_env("MONGODB_URI");
    required_env("AGORA_AWS_ENDPOINT");
    let suffix = uuid::Uuid::new_v4().simple().to_string()[..10].to_owned();
    let stack = Stack::create(&suffix).await;
    let delegate = StubServer::json(|request| {
        (200, json!({"success": true, "ack": {"for": request.json["subject_id"], "task": request.json["task_id"]}, "output": {"n": 7}}))
    })
    .await;
    std::env::set_var("DELEGATE_API_URL", &delegate.url);

    let functions = Functions::from_env().await;
    let (assigner, bidder) = wiring::assignment_from_env().await.expect("xchange-assign");
    let assign = AssignmentWork::new(assigner, bidder);
    let outcomes = BiddingOutcomeWork::new(wiring::outcome_reader_from_env().await.expect("xchange-bidding-outcome"));
    let deadlines = wiring::outcome_reader_from_env().await.expect("xchange-deadline");
    let timers = wiring::deadline_timers_from_env(&agora_aws::config::load().await);
    let deliver = DeliveryWork::new(agora_orcade_functions::wiring::deliverer_from_env().await.expect("orcade-deliver"));
    let evaluate = EvaluationWork::new(agora_orcade_functions::wiring::evaluator_from_env().await.expect("orcade-evaluate"));

    // xchange-subjects: three agents, two of them translators.
    for (id, topics) in [("summarizer", json!(["summarization"])), ("t1", json!(["translation"])), ("t2", json!(["translation", "fr"]))] {
        functions.ok("POST", "/subjects", Some(json!({"subject_id": id, "topics": topics}))).await;
    }

    // A direct task: stored pending, assigned from the queue once though delivered twice.
    let direct = json!({"task_id": "direct-1", "task_assignment_type": "direct", "task_data": {"doc": "minutes.txt"},
        "task_metadata": {"task_assignment": {"subject_id": "summarizer"}}});
    let created = functions.ok("POST", "/tasks", Some(direct)).await;
    assert_eq!(created["task_assignment_status"], json!("pending"), "{created}");
    let batch = stack.next_batch(&stack.assignments, Duration::from_secs(5)).await;
    assert_eq!(batch.records.len(), 1, "one assignment");
    handle_redelivered(&assign, batch).await;
    let calls = delegate.received("/");
    assert_eq!(calls.len(), 1, "one round trip: {calls:?}");
    assert_eq!((&calls[0].json["subject_id"], &calls[0].json["task_id"]), (&json!("summarizer"), &json!("direct-1")));
    assert_eq!(calls[0].json["task_data"], json!({"doc": "minutes.txt"}));
    let output = functions.ok("GET", "/tasks/direct-1/output", None).await;
    assert_eq!(
        output,
        json!({"task_assignment_status": "completed",
               "task_output": {"success": true, "ack": {"for": "summarizer", "task": "direct-1"}, "output": {"n": 7}}})
    );

    // A bidding task whose roster comes from topics: one Orcade job, the task bidding.
    let bidding = json!({"task_id": "translate-1", "task_assignment_type": "bidding", "task_data": {"secret": "q3.pdf"},
        "task_metadata": {"task_assignment": {"bid_job_evaluator_id": "builtin:lowest-price",
            "bid_job_description": {"task_type": "translate_document"}, "topics": ["translation"]}}});
    functions.ok("POST", "/tasks", Some(bidding)).await;
    let batch = stack.next_batch(&stack.assignments, Duration::from_secs(5)).await;
    assert_eq!(batch.records.len(), 1, "one assignment");
    handle_redelivered(&assign, batch).await;
    let task = functions.task("translate-1").await;
    assert_eq!(task["task_assignment_status"], json!("bidding"), "{task}");
    let job = task["task_metadata"]["bid_job_id"].as_str().expect("bid_job_id").to_owned();

    // Its deadline (two minutes ahead) is a timer waiting on the deadline timer queue; no
    // one-shot schedule (that is for deadlines more than 15 minutes ahead).
    assert_eq!(stack.delayed(&stack.deadline_timers).await, 1, "the deadline timer waits on its queue");
    let schedule = stack.scheduler.get_schedule().group_name(&stack.deadlines).name(deadline_schedule_name("translate-1")).send().await;
    assert!(schedule.is_err(), "no schedule");
    // A plain deadline (a schedule made before timers) before the limit: the task is waiting.
    let deadline_input = json!({"task_id": "translate-1"});
    assert_eq!(deadline::handle(&deadlines, &timers, &deadline_input).await.expect("deadline")["outcome"], json!("waiting"), "not due yet");

    // orcade-deliver: the job's bid_request fan-out (one item) queues a bid_request for each
    // translator, never the task_data.
    let fan_out = stack.next_batch(&stack.deliveries, Duration::from_secs(5)).await;
    assert_eq!(fan_out.records.len(), 1, "the fan-out is one item");
    assert!(agora_runtime::lambda::handle_batch(&deliver, fan_out).await.batch_item_failures.is_empty());
    let batch = stack.next_batch(&stack.deliveries, Duration::from_secs(5)).await;
    assert_eq!(batch.records.len(), 2, "one bid_request per translator");
    handle_redelivered(&deliver, batch).await;
    let mut asked: Vec<String> = delegate
        .received("/")
        .iter()
        .filter(|c| c.json["task_data"]["event_type"] == json!("bid_request"))
        .map(|c| c.json["subject_id"].as_str().unwrap_or_default().to_owned())
        .collect();
    asked.sort();
    assert_eq!(asked, ["t1", "t2"]);
    assert!(delegate.received("/").iter().all(|c| !c.json.to_string().contains("q3.pdf")), "task_data stays with Xchange");

    // orcade-submit-bid, orcade-evaluate, then the winner's bid_winner through orcade-deliver.
    assert_eq!(functions.bid(&job, "t1", 120.0).await.0, 201);
    assert_eq!(functions.bid(&job, "t2", 95.0).await.0, 201);
    let batch = stack.next_batch(&stack.evaluations, Duration::from_secs(5)).await;
    assert_eq!(batch.records.len(), 1, "one evaluation");
    handle_redelivered(&evaluate, batch).await;
    let batch = stack.next_batch(&stack.deliveries, Duration::from_secs(5)).await;
    assert_eq!(batch.records.len(), 1, "one bid_winner");
    handle_redelivered(&deliver, batch).await;
    assert_eq!(functions.task("translate-1").await["task_assignment_status"], json!("bidding"), "until the outcome is read");

    // The resolution event on the bidding-outcome queue (sent again by the redelivered
    // bid_winner, which found it delivered: events are at least once) completes the task once.
    let batch = stack.next_batch(&stack.outcomes, Duration::from_secs(5)).await;
    assert!(!batch.records.is_empty(), "a resolution event");
    for record in &batch.records {
        let event: Value = serde_json::from_str(record.body.as_deref().unwrap_or_default()).expect("event JSON");
        assert_eq!(event, json!({"event_type": "bid_job_resolved", "bid_job_id": job}));
    }
    handle_redelivered(&outcomes, batch).await;
    let output = functions.ok("GET", "/tasks/translate-1/output", None).await;
    assert_eq!(output["task_assignment_status"], json!("completed"), "{output}");
    let winner = &output["task_output"];
    assert_eq!((&winner["task_type"], &winner["bid_subject_id"]), (&json!("bid_winner"), &json!("t2")), "{winner}");
    assert_eq!(winner["evaluator_output"]["winner_subject_id"], json!("t2"));
    assert_eq!((&winner["task_result"]["success"], &winner["task_result"]["ack"]["for"]), (&json!(true), &json!("t2")), "{winner}");

    // The bidding poll queued at the start finds the task settled; so does the deadline.
    let polls = stack.next_batch(&stack.assignments, Duration::from_secs(5)).await;
    assert!(!polls.records.is_empty(), "the first poll of the bidding task");
    assert!(agora_runtime::lambda::handle_batch(&assign, polls).await.batch_item_failures.is_empty());
    assert_eq!(deadline::handle(&deadlines, &timers, &deadline_input).await.expect("deadline")["outcome"], json!("not_bidding"));
    assert_eq!(functions.ok("GET", "/tasks/translate-1/output", None).await, output, "settled once");

    nobody_bids_and_the_deadline_fails_the_task(&functions, &stack).await;
    bad_requests_are_refused_in_the_envelope(&functions).await;
}

/// A bidding task whose roster never bids: its deadline timer comes off the deadline timer queue
/// at its limit, and `xchange-deadline` fails it naming the limit. The limit is 1 s here:
/// `xchange-assign` wired again with `AGORA_BIDDING_TIMEOUT_MS=1000`.
async fn nobody_bids_and_the_deadline_fails_the_task(functions: &Functions, stack: &Stack) {
    std::env::set_var("AGORA_BIDDING_TIMEOUT_MS", "1000");
    let (assigner, bidder) = wiring::assignment_from_env().await.expect("xchange-assign");
    let assign = AssignmentWork::new(assigner, bidder);
    let timers = wiring::deadline_timers_from_env(&agora_aws::config::load().await);
    let deadlines = agora_aws::TimerQueueWork::new(timers, DueDeadline(wiring::outcome_reader_from_env().await.expect("xchange-deadline")));
    let request = json!({"task_id": "silent-1", "task_assignment_type": "bidding", "task_data": {},
        "task_metadata": {"task_assignment": {"bid_job_evaluator_id": "builtin:lowest-price", "bid_job_subject_ids": ["t1"]}}});
    functions.ok("POST", "/tasks", Some(request)).await;
    let batch = stack.next_batch(&stack.assignments, Duration::from_secs(5)).await;
    assert_eq!(batch.records.len(), 1, "one assignment");
    handle_redelivered(&assign, batch).await;
    assert_eq!(functions.task("silent-1").await["task_assignment_status"], json!("bidding"));
    let batch = stack.next_batch(&stack.deadline_timers, Duration::from_secs(5)).await;
    assert_eq!(batch.records.len(), 1, "the deadline timer, at the limit");
    let timer: Value = serde_json::from_str(batch.records[0].body.as_deref().unwrap_or_default()).expect("timer JSON");
    assert_eq!((&timer["timer"]["name"], &timer["body"]), (&json!(deadline_schedule_name("silent-1")), &json!({"task_id": "silent-1"})));
    handle_redelivered(&deadlines, batch).await;
    let output = functions.ok("GET", "/tasks/silent-1/output", None).await;
    assert_eq!(output["task_assignment_status"], json!("failed"), "{output}");
    let error = output["task_output"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("AGORA_BIDDING_TIMEOUT_MS") && error.contains("1000"), "{error}");
    // Drain what the silent task left: its bid_request and its polls.
    take_batch(&stack.sqs, &stack.deliveries).await;
    take_batch(&stack.sqs, &stack.assignments).await;
}

/// Bad requests through the functions: each refused in the envelope, naming what is wrong.
async fn bad_requests_are_refused_in_the_envelope(functions: &Functions) {
    let cases = [
        ("POST", "/tasks", Some(json!({"task_assignment_type": "direct"})), 400, "task_data is required"),
        ("POST", "/tasks", Some(json!({"task_assignment_type": "lottery", "task_data": {}})), 400, "lottery"),
        ("POST", "/tasks", Some(json!({"task_assignment_type": "function", "task_data": {}})), 400, "function_id"),
        ("POST", "/tasks", Some(json!({"task_id": "direct-1", "task_assignment_type": "open", "task_data": {}})), 409, "direct-1"),
        ("POST", "/tasks", Some(json!([1, 2])), 400, "object"),
        ("GET", "/tasks/no-such-task", None, 404, "Task not found"),
        ("GET", "/tasks/no-such-task/output", None, 404, "Task not found"),
        ("POST", "/tasks/query", Some(json!({"$where": "1"})), 400, "$where"),
        ("POST", "/subjects", Some(json!({"subject_id": "t1"})), 409, "t1"),
        ("POST", "/subjects", Some(json!({"topics": "translation"})), 400, "topics"),
        ("GET", "/subjects/no-such-subject", None, 404, "Subject not found"),
        ("PATCH", "/subjects/no-such-subject", Some(json!({"topics": ["x"]})), 404, "Subject not found"),
        ("DELETE", "/subjects/no-such-subject", None, 404, "Subject not found"),
        ("POST", "/subjects/query", Some(json!({"topics": {"$regex": "t"}})), 400, "$regex"),
        ("PUT", "/tasks/direct-1", None, 405, "PUT"),
        ("GET", "/no-such-route", None, 404, ""),
    ];
    for (method, path, body, status, names) in cases {
        let (got, answer) = functions.call(method, path, body).await;
        assert_eq!(got, status, "{method} {path}: {answer}");
        assert_eq!(answer["ok"], json!(false), "{method} {path}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default().to_lowercase();
        assert!(error.contains(&names.to_lowercase()), "{method} {path}: {error:?} should name {names:?}");
    }
    // Nothing those requests touched changed.
    assert_eq!(functions.task("direct-1").await["task_assignment_status"], json!("completed"));
    assert_eq!(functions.ok("GET", "/subjects/t1", None).await["topics"], json!(["translation"]));
}
