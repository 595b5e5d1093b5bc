//! Voting on the local server: its store (`voting_db`), its flows over the local platform, its
//! routes (§3 and the live stream's WebSocket), each task's start timer ([`crate::timers`]), the
//! start and repair sweeps, the durable evaluation queue and its worker, and the NATS vote
//! intake when configured.

pub mod intake;
pub mod live;

use crate::queue;
use crate::timers::{LocalTimers, TimerWork};
use crate::{Config, Platform};
use agora_voting_core::{voting_hooks, EvaluationWork, Ports, Settings, StartOutcome, SystemClock, Voting, WorkOutcome, VOTING_DB};
use axum::routing::get;
use axum::Router;
use live::{ChangeHub, LiveState};
use std::sync::Arc;
use std::time::Duration;

/// Voting, wired: the service, its routes (without fallbacks) and its background tasks.
pub struct Wired {
    pub voting: Arc<Voting>,
    pub routes: Router,
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
}

pub async fn wire(platform: &Platform, config: &Config) -> Result<Wired, crate::BoxError> {
    let store = platform.open_database(VOTING_DB, config.store_namespace.as_deref()).await?;
    let hub = ChangeHub::default();
    let (evaluations, pending_evaluations) = platform.queue("evaluation").await?;
    let (start_timers, due_starts) = platform.queue("voting-start").await?;
    let ports = Ports {
        store,
        hooks: voting_hooks(platform.remote.clone(), agora_runtime::env("SOCIAL_CHOICE_ID")),
        publisher: Arc::new(platform.inbox.clone()),
        queue: Arc::new(evaluations),
        clock: Arc::new(SystemClock),
        changes: Arc::new(hub.clone()),
        scheduler: Arc::new(LocalTimers::new(start_timers)),
    };
    let voting = Arc::new(Voting::new(ports, Settings::with_leases(chrono::Duration::milliseconds(config.claim_lease_ms.max(1) as i64))));
    let routes = agora_voting_api::routes(voting.clone())
        .merge(Router::new().route("/live-stream", get(live::live_stream)).with_state(LiveState { voting: voting.clone(), hub }));

    let retry_delay = Duration::from_millis(config.retry_delay_ms);
    let mut tasks = vec![
        tokio::spawn(queue::run_worker(Arc::new(EvaluationWork::new(voting.evaluator().clone())), pending_evaluations, retry_delay)),
        tokio::spawn(queue::run_worker(Arc::new(start_work(voting.clone())), due_starts, retry_delay)),
        tokio::spawn(run_sweep(voting.clone(), Duration::from_millis(config.sweep_interval_ms.max(1)))),
    ];
    if let Some(url) = &config.nats_intake_url {
        tasks.push(intake::start(url, voting.clone()).await?);
    }
    Ok(Wired { voting, routes, tasks })
}

/// Starts the task a due start timer names, or closes it at its deadline when the timer is its
/// deadline's (a task not due to start: `close_at_deadline` does nothing before the deadline).
/// A start that fails leaves the task `scheduled`, for the sweep; a store error is retried.
fn start_work(voting: Arc<Voting>) -> TimerWork {
    TimerWork::new("social_task_id", move |id| {
        let voting = voting.clone();
        async move {
            let closed = match voting.start_task(&id).await {
                Ok(StartOutcome::Failed(reason)) => {
                    tracing::warn!(social_task_id = %id, %reason, "timed start failed; the sweep retries");
                    return WorkOutcome::Done;
                }
                Ok(StartOutcome::NotDue) => voting.close_at_deadline(&id).await.map(drop),
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            };
            match closed {
                Ok(()) => WorkOutcome::Done,
                Err(e) => WorkOutcome::Retry(e.to_string()),
            }
        }
    })
}

/// The backstop: starts due tasks whose timer did not, then requests again every stalled evaluation, every `every`.
async fn run_sweep(voting: Arc<Voting>, every: Duration) {
    crate::run_every(every, || async {
        if let Err(e) = voting.start_due_tasks().await {
            tracing::error!(error = %e, "start sweep failed");
        }
        if let Err(e) = voting.repair_stalled_tasks().await {
            tracing::error!(error = %e, "repair sweep failed");
        }
    })
    .await
}
