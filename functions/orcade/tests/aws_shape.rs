//! Orcade's AWS shape, end to end on one machine: the functions' own wiring (built from the
//! environment, as each `main` builds it) and handlers in process, against moto's SQS and
//! EventBridge Scheduler, a MongoDB-protocol server and a real HTTP delegate system. A closed job
//! is created through `orcade-jobs`; its `bid_request`s come off the delivery queue into
//! `orcade-deliver`; bids arrive through `orcade-submit-bid`; the evaluation message is consumed
//! by `orcade-evaluate` twice at once; one winner, one `bid_winner`. An open job's close timer
//! arrives on the close timer queue at its `bid_job_closes_at`, and `orcade-close-due`, fed by
//! the queue, closes the job.
//! Bad requests get the envelope of §3 from the functions as from the local server.
//!
//! Needs the servers `./tests/run.sh` starts: `MONGODB_URI` and `AGORA_AWS_ENDPOINT`.

use agora_e2e::lambda::{self, handle_redelivered as deliver_redelivered, required_env, take_batch};
use agora_e2e::StubServer;
use agora_orcade_core::messages::close_schedule_name;
use agora_orcade_core::{DeliveryWork, EvaluationWork};
use agora_orcade_functions::close_due::DueClose;
use agora_orcade_functions::{close_due, wiring, HttpFunction};
use serde_json::{json, Value};

/// The three HTTP functions, each built from the environment as its Lambda builds it.
struct Functions {
    jobs: axum::Router,
    submit_bid: axum::Router,
    queries: axum::Router,
}

impl Functions {
    async fn from_env() -> Functions {
        Functions {
            jobs: HttpFunction::Jobs.router().await.expect("orcade-jobs"),
            submit_bid: HttpFunction::SubmitBid.router().await.expect("orcade-submit-bid"),
            queries: HttpFunction::Queries.router().await.expect("orcade-queries"),
        }
    }

    /// Calls the function API Gateway routes the request to; returns the status and JSON body.
    async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let router = match HttpFunction::of(method, path.split('?').next().unwrap_or(path)) {
            HttpFunction::Jobs => &self.jobs,
            HttpFunction::SubmitBid => &self.submit_bid,
            HttpFunction::Queries => &self.queries,
        };
        lambda::call(router, method, path, body).await
    }

    /// `data` of a 200 answer.
    async fn data(&self, path: &str) -> Value {
        let (status, body) = self.call("GET", path, None).await;
        assert_eq!((status, &body["ok"]), (200, &json!(true)), "GET {path}: {body}");
        body["data"].clone()
    }
}

fn job_request(mode: &str, subjects: &[&str], max_time: Option<i64>) -> Value {
    json!({
        "bid_job_metadata": {"parameters": {"min": 0.8}},
        "bid_job_description": {"task_type": "translate_document"},
        "bid_job_name": {"en": "Translate Q4 report"},
        "bid_job_evaluator_id": "builtin:lowest-price",
        "bid_job_pqt_id": "builtin:min-confidence",
        "bid_job_creator_id": "planner",
        "bid_job_subject_ids": subjects,
        "bid_job_mode": mode,
        "bid_job_max_time": max_time,
    })
}

fn bid(subject: &str, price: f64, confidence: f64) -> Value {
    json!({"bid_subject_id": subject, "bid_data": {"price_usd": price, "confidence": confidence}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bid_jobs_run_through_the_lambda_functions_on_moto_and_mongodb() {
    required_env("MONGODB_URI");
    required_env("AGORA_AWS_ENDPOINT");
    let suffix = uuid::Uuid::new_v4().simple().to_string()[..10].to_owned();
    let sdk = agora_aws::config::load().await;
    let sqs = aws_sdk_sqs::Client::new(&sdk);
    let scheduler = aws_sdk_scheduler::Client::new(&sdk);

    // The stack's resources, as the template declares them, and a delegate system.
    let queue = |name: String| {
        let sqs = sqs.clone();
        async move { sqs.create_queue().queue_name(name).send().await.expect("queue").queue_url.expect("url") }
    };
    let evaluations = queue(format!("orcade-evaluations-{suffix}")).await;
    let deliveries = queue(format!("orcade-deliveries-{suffix}")).await;
    let close_timers = queue(format!("orcade-close-timers-{suffix}")).await;
    let group = format!("orcade-closes-{suffix}");
    scheduler.create_schedule_group().name(&group).send().await.expect("schedule group");
    let delegate = StubServer::json(|request| {
        (200, json!({"success": true, "ack": {"for": request.json["subject_id"], "event": request.json["task_data"]["event_type"]}, "output": {}}))
    })
    .await;

    // Each function's environment, as template.yaml sets it (the store is the MongoDB server's
    // database `assets`, as on Atlas).
    for (name, value) in [
        ("AGORA_STORE", "mongodb".to_owned()),
        ("AGORA_EVALUATION_QUEUE_URL", evaluations.clone()),
        ("AGORA_DELIVERY_QUEUE_URL", deliveries.clone()),
        ("AGORA_CLOSE_TIMER_QUEUE_URL", close_timers.clone()),
        ("AGORA_SCHEDULE_GROUP", group.clone()),
        ("AGORA_SCHEDULER_ROLE_ARN", "arn:aws:iam::123456789012:role/agora-scheduler".to_owned()),
        ("AGORA_CLOSE_FUNCTION_ARN", "arn:aws:lambda:us-east-1:123456789012:function:agora-orcade-close-due".to_owned()),
        ("DELEGATE_API_URL", delegate.url.clone()),
        ("AGORA_DELEGATE_TIMEOUT_MS", "5000".to_owned()),
    ] {
        std::env::set_var(name, value);
    }
    let functions = Functions::from_env().await;
    let deliver = DeliveryWork::new(wiring::deliverer_from_env().await.expect("orcade-deliver"));
    let evaluate = EvaluationWork::new(wiring::evaluator_from_env().await.expect("orcade-evaluate"));
    let (closer, repairer) = wiring::sweeps_from_env().await.expect("orcade-close-due");
    let timers = wiring::close_timers_from_env().await;
    let due_closes = agora_aws::TimerQueueWork::new(timers.clone(), DueClose(closer.clone()));

    // orcade-jobs: a closed job of three translators.
    let subjects = [format!("t1-{suffix}"), format!("t2-{suffix}"), format!("t3-{suffix}")];
    let roster: Vec<&str> = subjects.iter().map(String::as_str).collect();
    let (status, created) = functions.call("POST", "/bid-jobs", Some(job_request("closed", &roster, None))).await;
    assert_eq!(status, 201, "{created}");
    let id = created["data"]["bid_job_id"].as_str().expect("id").to_owned();

    // orcade-deliver: the job's bid_request fan-out, one item, queues a delivery per member...
    let fan_out = take_batch(&sqs, &deliveries).await;
    assert_eq!(fan_out.records.len(), 1, "the fan-out is one item");
    assert!(agora_runtime::lambda::handle_batch(&deliver, fan_out).await.batch_item_failures.is_empty());
    // ...and the three bid_requests come off the delivery queue, each delivered once although
    // the batch holds each twice.
    let batch = take_batch(&sqs, &deliveries).await;
    assert_eq!(batch.records.len(), 3, "one bid_request per roster member");
    deliver_redelivered(&deliver, batch).await;
    let calls = delegate.received("/");
    assert_eq!(calls.len(), 3, "{calls:?}");
    assert!(calls.iter().all(|c| c.json["task_data"]["event_type"] == json!("bid_request") && c.json["session_id"] == c.json["task_id"]));
    let results = functions.data(&format!("/bid-jobs/{id}/task-results")).await;
    assert_eq!(results.as_array().map(Vec::len), Some(3), "{results}");

    // orcade-submit-bid: two bids pass the PQT, one is refused and stays on file; the last one
    // completes the roster and queues one evaluation request.
    assert_eq!(functions.call("POST", &format!("/bid-jobs/{id}/bids"), Some(bid(roster[0], 100.0, 0.9))).await.0, 201);
    assert_eq!(functions.call("POST", &format!("/bid-jobs/{id}/bids"), Some(bid(roster[1], 80.0, 0.95))).await.0, 201);
    let (status, refused) = functions.call("POST", &format!("/bid-jobs/{id}/bids"), Some(bid(roster[2], 10.0, 0.5))).await;
    assert_eq!(status, 409, "{refused}");
    assert_eq!(refused["ok"], json!(false));
    assert_eq!(functions.data(&format!("/bid-jobs/{id}")).await["bid_job_status"], json!("closed"));
    let (status, late) = functions.call("POST", &format!("/bid-jobs/{id}/bids"), Some(bid("late", 1.0, 0.99))).await;
    assert_eq!(status, 403, "not on the roster: {late}");

    // orcade-evaluate: the request delivered twice in one batch, and two invocations at once.
    let batch = take_batch(&sqs, &evaluations).await;
    assert_eq!(batch.records.len(), 1, "one evaluation request");
    let mut twice = batch.clone();
    twice.records.extend(batch.records.clone());
    let (a, b) =
        tokio::join!(agora_runtime::lambda::handle_batch(&evaluate, twice.clone()), agora_runtime::lambda::handle_batch(&evaluate, twice));
    assert!(a.batch_item_failures.is_empty() && b.batch_item_failures.is_empty(), "nothing to redeliver");
    let bids = functions.data(&format!("/bid-jobs/{id}/bids")).await;
    let winners: Vec<&Value> = bids.as_array().expect("bids").iter().filter(|b| b["is_winner"] == json!(true)).collect();
    assert_eq!(winners.len(), 1, "{bids}");
    assert_eq!(winners[0]["bid_subject_id"], json!(roster[1]), "the lowest price among the accepted bids");

    // One bid_winner on the delivery queue; delivered (twice over) once, stored verbatim.
    let batch = take_batch(&sqs, &deliveries).await;
    assert_eq!(batch.records.len(), 1, "one bid_winner");
    deliver_redelivered(&deliver, batch).await;
    let wins: Vec<_> = delegate.received("/").into_iter().filter(|c| c.json["task_data"]["event_type"] == json!("bid_winner")).collect();
    assert_eq!(wins.len(), 1);
    assert_eq!(wins[0].json["subject_id"], json!(roster[1]));
    let (status, found) =
        functions.call("POST", "/bid-task-results/query", Some(json!({"bid_job_id": id, "task_type": "bid_winner"}))).await;
    assert_eq!(status, 200, "{found}");
    let found = found["data"].as_array().cloned().unwrap_or_default();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["task_result"], json!({"success": true, "ack": {"for": roster[1], "event": "bid_winner"}, "output": {}}));
    assert_eq!(found[0]["evaluator_output"]["winner_subject_id"], json!(roster[1]), "{}", found[0]);
    assert!(take_batch(&sqs, &evaluations).await.records.is_empty() && take_batch(&sqs, &deliveries).await.records.is_empty());

    // An open job with a two-second limit: its close timer waits on the close timer queue until
    // bid_job_closes_at (no schedule: that is for closes more than 15 minutes ahead), and
    // orcade-close-due, fed by the queue, closes the job then.
    let (status, open) = functions.call("POST", "/bid-jobs", Some(job_request("open", &[], Some(2)))).await;
    assert_eq!(status, 201, "{open}");
    let open_id = open["data"]["bid_job_id"].as_str().expect("id").to_owned();
    assert!(scheduler.get_schedule().group_name(&group).name(close_schedule_name(&open_id)).send().await.is_err(), "no schedule");
    assert_eq!(functions.call("POST", &format!("/bid-jobs/{open_id}/bids"), Some(bid("o1", 5.0, 0.9))).await.0, 201);
    // A plain close request (a schedule made before timers) before the time closes nothing.
    let plain = agora_orcade_core::messages::close_request(&open_id);
    assert_eq!(close_due::handle(&closer, &repairer, &timers, &plain).await.expect("close-due"), json!({"closed": []}), "not due yet");
    let closes_at = chrono::DateTime::parse_from_rfc3339(open["data"]["bid_job_closes_at"].as_str().expect("closes_at")).expect("time");
    let mut batch = take_batch(&sqs, &close_timers).await;
    while batch.records.is_empty() && chrono::Utc::now() < closes_at.to_utc() + chrono::Duration::seconds(5) {
        batch = take_batch(&sqs, &close_timers).await;
    }
    assert!(chrono::Utc::now() >= closes_at.to_utc() - chrono::Duration::milliseconds(50), "delivered at bid_job_closes_at");
    assert_eq!(batch.records.len(), 1, "one close timer");
    let timer: Value = serde_json::from_str(batch.records[0].body.as_deref().unwrap_or_default()).expect("timer JSON");
    assert_eq!((&timer["timer"]["name"], &timer["body"]), (&json!(close_schedule_name(&open_id)), &json!({"bid_job_id": open_id})));
    let mut twice = batch.clone();
    twice.records.extend(batch.records.clone());
    assert!(agora_runtime::lambda::handle_batch(&due_closes, twice).await.batch_item_failures.is_empty(), "closed once");
    assert_eq!(functions.data(&format!("/bid-jobs/{open_id}")).await["bid_job_status"], json!("closed"));
    assert_eq!(close_due::handle(&closer, &repairer, &timers, &plain).await.expect("close-due"), json!({"closed": []}), "closed already");
    let sweep = json!({"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}});
    let swept = close_due::handle(&closer, &repairer, &timers, &sweep).await.expect("sweep");
    assert!(!swept.to_string().contains(&open_id) && !swept.to_string().contains(&id), "the sweep finds nothing of ours: {swept}");
    let batch = take_batch(&sqs, &evaluations).await;
    assert_eq!(batch.records.len(), 1, "one evaluation request for the open job");
    assert!(agora_runtime::lambda::handle_batch(&evaluate, batch).await.batch_item_failures.is_empty());
    let bids = functions.data(&format!("/bid-jobs/{open_id}/bids")).await;
    assert_eq!(bids[0]["bid_subject_id"], json!("o1"));
    assert_eq!(bids[0]["is_winner"], json!(true), "{bids}");
    let batch = take_batch(&sqs, &deliveries).await;
    assert_eq!(batch.records.len(), 1, "the open job's bid_winner");
    deliver_redelivered(&deliver, batch).await;
    assert_eq!(delegate.received("/").last().map(|c| c.json["subject_id"].clone()), Some(json!("o1")));

    bad_requests_are_refused_in_the_envelope(&functions).await;
    assert!(take_batch(&sqs, &evaluations).await.records.is_empty() && take_batch(&sqs, &deliveries).await.records.is_empty());
}

/// Bad requests through the functions: each refused in the envelope, naming what is wrong.
async fn bad_requests_are_refused_in_the_envelope(functions: &Functions) {
    let cases = [
        ("POST", "/bid-jobs", Some(json!({"bid_job_creator_id": "planner"})), 400, "bid_job_evaluator_id"),
        ("POST", "/bid-jobs", Some(json!([1, 2])), 400, "object"),
        ("POST", "/bid-jobs/no-such-job/bids", Some(bid("s1", 1.0, 0.9)), 404, "not found"),
        ("POST", "/bid-jobs/no-such-job/close", None, 404, "not found"),
        ("PATCH", "/bid-jobs/no-such-job", Some(json!({"bid_job_tags": ["x"]})), 404, "not found"),
        ("DELETE", "/bids/no-such-bid", None, 404, "not found"),
        ("GET", "/bid-jobs/no-such-job", None, 404, "not found"),
        ("GET", "/bid-jobs/by-tags?tags=%20", None, 400, "tags"),
        ("POST", "/bids/query", Some(json!({"$where": "1"})), 400, "$where"),
        ("GET", "/no-such-route", None, 404, ""),
    ];
    for (method, path, body, status, names) in cases {
        let (got, answer) = functions.call(method, path, body).await;
        assert_eq!(got, status, "{method} {path}: {answer}");
        assert_eq!(answer["ok"], json!(false), "{method} {path}: {answer}");
        let error = answer["error"].as_str().unwrap_or_default().to_lowercase();
        assert!(error.contains(&names.to_lowercase()), "{method} {path}: {error:?} should name {names:?}");
    }
}
