//! Timers: work due at a given time (voting's start of a task at its `scheduled_time`, Orcade's
//! close of an open job at its `bid_job_closes_at`, Xchange's bidding deadline), done within a
//! second or two of that time, and at once when the time has come already.
//!
//! EventBridge Scheduler alone cannot do it: a one-shot schedule fires within the minute of its
//! `at(...)` time (60-second precision), and makes no sense for a time that has passed. SQS can,
//! for up to 15 minutes ahead: a message sent with `DelaySeconds` is delivered that many seconds
//! later, to a Lambda function polling the queue. So each service has a **timer queue** (SQS,
//! with a dead-letter queue), an event source of the function that does the work
//! (`voting-start-tasks`, `orcade-close-due`, `xchange-deadline`), and [`Timers`] (the
//! [`OneShotSchedules`] of the function that creates the work) plans each time:
//!
//! | When the work is due | What [`Timers::schedule`] does |
//! |---|---|
//! | now or in the past | the timer goes to the timer queue with no delay: the work is done within a second or two |
//! | at most 15 minutes ahead | the timer goes to the timer queue with `DelaySeconds` = the wait, rounded **up** to a whole second (never early, at most a second late) |
//! | later | a one-shot Scheduler schedule (same name as before) at the whole minute a minute or more before the time (`floor(at) - 1 min`): fired within that minute, hence before the time, and at most two minutes before it |
//!
//! A **timer** is the work's body in an envelope that says when it is due:
//! `{"timer": {"name": "start-task_…", "due": "2026-10-22T10:00:00.250Z"}, "body": {...}}`.
//! The target function hands every event to [`Timers::arrive`]: a timer that is due gives its
//! body, and the function does the work as before; a timer that is not due yet (a schedule
//! fired early, as planned; or a delay SQS cut short) goes back to the timer queue for the rest
//! of its wait, at most 15 minutes at a time, and the function does nothing now. Anything else
//! (the `rate(1 minute)` sweep's scheduled event, the plain body of a schedule made before
//! timers) is given back as it is. [`TimerQueueWork`] is the timer queue's consumer over the
//! same rule, with partial batch failures (a timer that could not be sent back is retried).
//!
//! The service's flow still decides whether the work is due (a task not `scheduled`, a job no
//! longer open: nothing to do), so a timer delivered twice changes nothing, and the sweeps stay
//! as the backstop: work whose timer was lost (a failed send, a dead-lettered message) is done
//! at the next sweep, as before.
//!
//! Without a timer queue (its variable unset) the function falls back to the schedules alone, at
//! the time rounded up to a whole minute ([`crate::scheduler`]), and the sweep for work due now;
//! without either, to the sweeps alone. Without a scheduler, a time more than 15 minutes ahead
//! goes through the queue in 15-minute hops.

use crate::config::env_var;
use crate::scheduler::{OneShotScheduler, ScheduleTarget, DEFAULT_GROUP, ROLE_ENV};
use crate::sqs::{SqsQueue, MAX_DELAY};
use crate::warm::{Warm, Warmup};
use agora_ports::{Clock, OneShotSchedules, ScheduleError, SystemClock, WorkHandler, WorkOutcome, WorkQueue};
use async_trait::async_trait;
use aws_config::SdkConfig;
use chrono::{DateTime, DurationRound, SecondsFormat, Utc};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The environment variables that configure one service's timers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimerEnv {
    /// The timer queue's URL (voting's `AGORA_START_TIMER_QUEUE_URL`).
    pub queue_url: &'static str,
    /// The ARN of the function the one-shot schedules invoke (voting's `AGORA_START_FUNCTION_ARN`);
    /// with `AGORA_SCHEDULER_ROLE_ARN`, times more than 15 minutes ahead get a schedule.
    pub function_arn: &'static str,
    /// The schedule group (default `default`).
    pub schedule_group: &'static str,
}

/// How [`Timers`] plans a time (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Onto the timer queue, delivered after this wait: whole seconds, from 0 to 900.
    Queue(Duration),
    /// A one-shot schedule at this whole minute, a minute or more before the time.
    Schedule(DateTime<Utc>),
}

/// The plan for work due `at`, `now`.
pub fn plan(now: DateTime<Utc>, at: DateTime<Utc>) -> Plan {
    let wait = wait_until(now, at);
    if wait <= MAX_DELAY {
        return Plan::Queue(wait);
    }
    let minute = at.duration_trunc(chrono::Duration::minutes(1)).unwrap_or(at);
    Plan::Schedule(minute - chrono::Duration::minutes(1))
}

/// The wait from `now` until `at`, rounded up to a whole second (zero when `at` has come).
pub fn wait_until(now: DateTime<Utc>, at: DateTime<Utc>) -> Duration {
    match (at - now).to_std() {
        Ok(wait) => Duration::from_secs(wait.as_secs() + u64::from(wait.subsec_nanos() > 0)),
        Err(_) => Duration::ZERO,
    }
}

/// A timer: the work's body, its name, and when it is due.
#[derive(Debug, Clone, PartialEq)]
pub struct Timer {
    pub name: String,
    pub due: DateTime<Utc>,
    pub body: Value,
}

impl Timer {
    /// The timer's envelope (see the module docs); the time exact to the nanosecond.
    pub fn to_value(&self) -> Value {
        json!({"timer": {"name": self.name, "due": self.due.to_rfc3339_opts(SecondsFormat::AutoSi, true)}, "body": self.body})
    }

    /// The timer `event` is, if it is one.
    pub fn parse(event: &Value) -> Option<Timer> {
        let timer = event.get("timer")?;
        let name = timer.get("name")?.as_str()?.to_owned();
        let due = DateTime::parse_from_rfc3339(timer.get("due")?.as_str()?).ok()?.to_utc();
        Some(Timer { name, due, body: event.get("body")?.clone() })
    }
}

/// What to do with an event of a timer's target function ([`Timers::arrive`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Arrival {
    /// Do the work now: the body of a timer that is due, or the event itself when it is no
    /// timer (a sweep's scheduled event, a plain body).
    Due(Value),
    /// A timer not due yet, sent back to the timer queue: nothing to do now.
    Deferred { name: String, due: DateTime<Utc> },
    /// A timer not due yet that could not be sent back: retry the event (else the sweep does the
    /// work when it is due).
    Failed(String),
}

/// A service's timers: the timer queue and the one-shot schedules (see the module docs). The
/// creating function schedules with it; the target function reads its events with it.
#[derive(Clone)]
pub struct Timers {
    queue: Option<Arc<dyn WorkQueue>>,
    scheduler: Option<Arc<dyn OneShotSchedules>>,
    clock: Arc<dyn Clock>,
    /// The clients behind `queue` and `scheduler` when [`Timers::from_env`] built them.
    warm: Vec<Arc<dyn Warm>>,
}

impl Timers {
    /// Timers over `queue` (the timer queue) and `scheduler` (whose schedules invoke the target
    /// function), either of which may be missing.
    pub fn new(queue: Option<Arc<dyn WorkQueue>>, scheduler: Option<Arc<dyn OneShotSchedules>>, clock: Arc<dyn Clock>) -> Self {
        Self { queue, scheduler, clock, warm: Vec::new() }
    }

    /// The timers of `env`: the timer queue when its URL is set; the scheduler when the target's
    /// ARN and `AGORA_SCHEDULER_ROLE_ARN` are (a target function, which only sends timers back
    /// to its queue, is given neither).
    pub fn from_env(sdk: &SdkConfig, env: &TimerEnv) -> Self {
        let mut warm: Vec<Arc<dyn Warm>> = Vec::new();
        let queue = SqsQueue::optional_from_env(sdk, env.queue_url).map(|q| {
            warm.push(Arc::new(q.clone()));
            Arc::new(q) as Arc<dyn WorkQueue>
        });
        let scheduler = match (env_var(env.function_arn), env_var(ROLE_ENV)) {
            (Some(function_arn), Some(role_arn)) => {
                let group = env_var(env.schedule_group).unwrap_or_else(|| DEFAULT_GROUP.to_owned());
                let target = ScheduleTarget { group, function_arn, role_arn };
                let scheduler = OneShotScheduler::new(aws_sdk_scheduler::Client::new(sdk), target);
                warm.push(Arc::new(scheduler.clone()));
                Some(Arc::new(scheduler) as Arc<dyn OneShotSchedules>)
            }
            _ => None,
        };
        match (&queue, &scheduler) {
            (None, None) => {
                tracing::info!(queue = env.queue_url, "no timer queue and no one-shot schedules: the sweep alone does due work")
            }
            (None, Some(_)) => tracing::info!(queue = env.queue_url, "no timer queue: one-shot schedules alone, a minute late at most"),
            _ => {}
        }
        Self { warm, ..Self::new(queue, scheduler, Arc::new(SystemClock)) }
    }

    /// The clients to warm during init ([`crate::warm`]): the timer queue's and the
    /// scheduler's, when [`Timers::from_env`] built them.
    pub fn warm_into(&self, warmup: &mut Warmup) {
        for client in &self.warm {
            warmup.add_arc(client.clone());
        }
    }

    /// Reads an event of the target function: see [`Arrival`].
    pub async fn arrive(&self, event: &Value) -> Arrival {
        let Some(timer) = Timer::parse(event) else { return Arrival::Due(event.clone()) };
        let now = self.clock.now();
        if timer.due <= now {
            return Arrival::Due(timer.body);
        }
        let Some(queue) = &self.queue else {
            tracing::warn!(timer = %timer.name, due = %timer.due, "timer early and no timer queue to wait on: the sweep does the work when it is due");
            return Arrival::Due(timer.body);
        };
        let wait = wait_until(now, timer.due).min(MAX_DELAY);
        match queue.send(&timer.name, &timer.to_value().to_string(), wait).await {
            Ok(()) => {
                tracing::info!(timer = %timer.name, due = %timer.due, wait_s = wait.as_secs(), "timer not due yet: back on the timer queue");
                Arrival::Deferred { name: timer.name, due: timer.due }
            }
            Err(e) => Arrival::Failed(e.to_string()),
        }
    }
}

#[async_trait]
impl OneShotSchedules for Timers {
    /// Plans `at` (see the module docs) and sends the timer `{name, at, body}` accordingly.
    async fn schedule(&self, name: &str, at: DateTime<Utc>, body: &Value) -> Result<(), ScheduleError> {
        let timer = Timer { name: name.to_owned(), due: at, body: body.clone() }.to_value();
        let send = |queue: &Arc<dyn WorkQueue>, wait: Duration| {
            let (queue, timer) = (queue.clone(), timer.to_string());
            async move {
                queue.send(name, &timer, wait).await.map_err(|e| ScheduleError { name: name.to_owned(), reason: e.reason })?;
                tracing::info!(timer = name, %at, wait_s = wait.as_secs(), "timer on the timer queue");
                Ok(())
            }
        };
        match (plan(self.clock.now(), at), &self.queue, &self.scheduler) {
            (Plan::Queue(wait), Some(queue), _) => send(queue, wait).await,
            (Plan::Schedule(early), Some(_), Some(scheduler)) => scheduler.schedule(name, early, &timer).await,
            (Plan::Schedule(_), Some(queue), None) => send(queue, MAX_DELAY).await,
            (_, None, Some(scheduler)) => scheduler.schedule(name, at, &timer).await,
            (_, None, None) => Ok(()),
        }
    }
}

/// Does the work of a timer that is due.
#[async_trait]
pub trait TimerTarget: Send + Sync + 'static {
    /// Does the work of `body` (a timer's body, or a plain body on the timer queue).
    async fn due(&self, body: &Value) -> WorkOutcome;
}

/// The timer queue's consumer: each message is a timer; one not due yet goes back to the queue
/// for the rest of its wait ([`Timers::arrive`]), a due one is the target's.
pub struct TimerQueueWork<T> {
    timers: Timers,
    target: T,
}

impl<T: TimerTarget> TimerQueueWork<T> {
    pub fn new(timers: Timers, target: T) -> Self {
        Self { timers, target }
    }
}

#[async_trait]
impl<T: TimerTarget> WorkHandler for TimerQueueWork<T> {
    async fn handle(&self, body: &str) -> WorkOutcome {
        let event: Value = match serde_json::from_str(body) {
            Ok(event) => event,
            Err(e) => {
                tracing::error!(error = %e, body = %crate::config::truncate(body, 500), "timer message is not JSON: dropped");
                return WorkOutcome::Done;
            }
        };
        match self.timers.arrive(&event).await {
            Arrival::Due(body) => self.target.due(&body).await,
            Arrival::Deferred { .. } => WorkOutcome::Done,
            Arrival::Failed(reason) => WorkOutcome::Retry(reason),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agora_ports::fakes::{ManualClock, RecordingQueue, RecordingSchedules};
    use chrono::TimeZone;

    fn at(h: u32, m: u32, s: u32, ms: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 10, 22, h, m, s).single().expect("date") + chrono::Duration::milliseconds(ms)
    }

    struct Fakes {
        queue: Arc<RecordingQueue>,
        schedules: Arc<RecordingSchedules>,
        clock: Arc<ManualClock>,
    }

    fn fakes(queue: bool, scheduler: bool) -> (Timers, Fakes) {
        let f = Fakes {
            queue: Arc::new(RecordingQueue::default()),
            schedules: Arc::new(RecordingSchedules::default()),
            clock: Arc::new(ManualClock::new(at(10, 0, 0, 250))),
        };
        let timers = Timers::new(
            queue.then(|| f.queue.clone() as Arc<dyn WorkQueue>),
            scheduler.then(|| f.schedules.clone() as Arc<dyn OneShotSchedules>),
            f.clock.clone(),
        );
        (timers, f)
    }

    fn timer(name: &str, due: DateTime<Utc>) -> Value {
        Timer { name: name.into(), due, body: json!({"social_task_id": "task_1"}) }.to_value()
    }

    #[test]
    fn plans() {
        let now = at(10, 0, 0, 250);
        assert_eq!(plan(now, now), Plan::Queue(Duration::ZERO));
        assert_eq!(plan(now, at(9, 0, 0, 0)), Plan::Queue(Duration::ZERO), "in the past: now");
        assert_eq!(plan(now, now + chrono::Duration::milliseconds(1)), Plan::Queue(Duration::from_secs(1)), "rounded up");
        assert_eq!(plan(now, at(10, 0, 3, 250)), Plan::Queue(Duration::from_secs(3)));
        assert_eq!(plan(now, at(10, 0, 3, 251)), Plan::Queue(Duration::from_secs(4)));
        assert_eq!(plan(now, at(10, 15, 0, 250)), Plan::Queue(Duration::from_secs(900)), "SQS's longest delay");
        assert_eq!(plan(now, at(10, 15, 0, 251)), Plan::Schedule(at(10, 14, 0, 0)), "a minute or more early, rounded down");
        assert_eq!(plan(now, at(11, 0, 0, 0)), Plan::Schedule(at(10, 59, 0, 0)));
        assert_eq!(plan(now, at(11, 0, 59, 999)), Plan::Schedule(at(10, 59, 0, 0)));
    }

    #[test]
    fn envelopes() {
        let due = at(10, 0, 0, 0) + chrono::Duration::nanoseconds(123_456_789);
        let t = Timer { name: "close-job-1".into(), due, body: json!({"bid_job_id": "job-1"}) };
        let v = t.to_value();
        assert_eq!(v, json!({"timer": {"name": "close-job-1", "due": "2026-10-22T10:00:00.123456789Z"}, "body": {"bid_job_id": "job-1"}}));
        assert_eq!(Timer::parse(&v), Some(t), "the time exact");
        for not_a_timer in [
            json!({"social_task_id": "task_1"}),
            json!({"detail-type": "Scheduled Event", "source": "aws.events"}),
            json!({"timer": {"name": "x", "due": "yesterday"}, "body": {}}),
            json!({"timer": {"name": "x", "due": "2026-10-22T10:00:00Z"}}),
            json!({"timer": "x", "body": {}}),
            json!(null),
        ] {
            assert_eq!(Timer::parse(&not_a_timer), None, "{not_a_timer}");
        }
    }

    #[tokio::test]
    async fn work_due_now_or_soon_goes_to_the_timer_queue_and_later_work_to_a_schedule_a_minute_early() {
        let (timers, f) = fakes(true, true);
        let now = f.clock.now();
        let body = json!({"social_task_id": "task_1"});
        timers.schedule("start-task_1", now - chrono::Duration::seconds(5), &body).await.expect("now");
        timers.schedule("start-task_2", now + chrono::Duration::milliseconds(2500), &body).await.expect("soon");
        timers.schedule("start-task_3", at(12, 30, 10, 0), &body).await.expect("later");
        let sent = f.queue.take();
        assert_eq!(sent.len(), 2);
        assert_eq!((sent[0].key.as_str(), sent[0].delay), ("start-task_1", Duration::ZERO));
        assert_eq!((sent[1].key.as_str(), sent[1].delay), ("start-task_2", Duration::from_secs(3)));
        let first: Value = serde_json::from_str(&sent[0].body).expect("JSON");
        assert_eq!(first, timer("start-task_1", now - chrono::Duration::seconds(5)));
        assert_eq!(f.schedules.made(), vec![("start-task_3".to_owned(), at(12, 29, 0, 0), timer("start-task_3", at(12, 30, 10, 0)))]);
    }

    #[tokio::test]
    async fn without_a_scheduler_far_work_hops_through_the_queue_and_without_a_queue_the_schedule_is_at_the_time() {
        let (timers, f) = fakes(true, false);
        timers.schedule("start-task_3", at(12, 30, 10, 0), &json!({})).await.expect("later");
        assert_eq!(f.queue.take().iter().map(|s| s.delay).collect::<Vec<_>>(), [MAX_DELAY]);

        let (timers, f) = fakes(false, true);
        timers.schedule("start-task_4", at(10, 0, 5, 0), &json!({})).await.expect("soon");
        assert_eq!(
            f.schedules.made().iter().map(|(n, at, _)| (n.clone(), *at)).collect::<Vec<_>>(),
            [("start-task_4".to_owned(), at(10, 0, 5, 0))]
        );

        let (timers, f) = fakes(false, false);
        timers.schedule("start-task_5", at(10, 0, 5, 0), &json!({})).await.expect("the sweep alone");
        assert!(f.queue.take().is_empty() && f.schedules.made().is_empty());
    }

    #[tokio::test]
    async fn an_early_timer_goes_back_on_the_queue_for_the_rest_of_its_wait_and_a_due_one_is_done() {
        let (timers, f) = fakes(true, false);
        let now = f.clock.now();
        // A schedule fired two minutes early (at most 15 minutes at a time).
        let due = now + chrono::Duration::milliseconds(119_500);
        let arrival = timers.arrive(&timer("start-task_1", due)).await;
        assert_eq!(arrival, Arrival::Deferred { name: "start-task_1".into(), due });
        let sent = f.queue.take();
        assert_eq!((sent.len(), sent[0].delay), (1, Duration::from_secs(120)));
        assert_eq!(serde_json::from_str::<Value>(&sent[0].body).expect("JSON"), timer("start-task_1", due), "the same timer");
        let far = now + chrono::Duration::hours(2);
        assert!(matches!(timers.arrive(&timer("start-task_2", far)).await, Arrival::Deferred { .. }));
        assert_eq!(f.queue.take()[0].delay, MAX_DELAY);

        f.clock.set(due);
        assert_eq!(timers.arrive(&timer("start-task_1", due)).await, Arrival::Due(json!({"social_task_id": "task_1"})));
        let sweep = json!({"detail-type": "Scheduled Event", "source": "aws.events"});
        assert_eq!(timers.arrive(&sweep).await, Arrival::Due(sweep.clone()), "not a timer: as it is");
        assert!(f.queue.take().is_empty());

        // No queue to wait on: the work is handed over (the flow finds it not due; the sweep does it).
        let (timers, _) = fakes(false, true);
        assert_eq!(timers.arrive(&timer("start-task_1", far)).await, Arrival::Due(json!({"social_task_id": "task_1"})));
    }

    struct Recording(std::sync::Mutex<Vec<Value>>);

    #[async_trait]
    impl TimerTarget for Recording {
        async fn due(&self, body: &Value) -> WorkOutcome {
            self.0.lock().expect("lock").push(body.clone());
            WorkOutcome::Done
        }
    }

    #[tokio::test]
    async fn the_timer_queue_consumer() {
        let (timers, f) = fakes(true, false);
        let now = f.clock.now();
        let work = TimerQueueWork::new(timers, Recording(Default::default()));
        assert_eq!(work.handle(&timer("start-task_1", now).to_string()).await, WorkOutcome::Done);
        assert_eq!(work.handle(&timer("start-task_2", now + chrono::Duration::seconds(2)).to_string()).await, WorkOutcome::Done);
        assert_eq!(work.handle(r#"{"social_task_id": "task_9"}"#).await, WorkOutcome::Done);
        assert_eq!(work.handle("not JSON").await, WorkOutcome::Done);
        assert_eq!(*work.target.0.lock().expect("lock"), [json!({"social_task_id": "task_1"}), json!({"social_task_id": "task_9"})]);
        assert_eq!(
            f.queue.take().iter().map(|s| (s.key.clone(), s.delay)).collect::<Vec<_>>(),
            [("start-task_2".to_owned(), Duration::from_secs(2))]
        );
    }
}
