//! Configuration from the environment, and the clients each function builds once per
//! container, before its first event. Each function builds only its flows, and each flow holds
//! only the ports it uses: `orcade-queries` opens the store alone, `orcade-deliver` the store
//! and the delegate system. Each builds its AWS clients from one SDK configuration and, before
//! its first event, warms them and its store ([`agora_aws::warm`]), so that the first request
//! opens no connection.
//!
//! | Variable | Meaning | Read by |
//! |---|---|---|
//! | `AGORA_STORE`, `MONGODB_URI`, `AGORA_DYNAMODB_TABLE` | the store (`agora_runtime::store_from_env`); database `assets` | all |
//! | `AGORA_EVALUATION_QUEUE_URL` | the SQS queue of evaluation requests | jobs, submit-bid, close-due, evaluate |
//! | `AGORA_DELIVERY_QUEUE_URL` | the SQS queue of delegate round trips (deliver sends a job's `bid_request` fan-out items' deliveries back to it) | jobs, evaluate, deliver |
//! | `AGORA_CLOSE_TIMER_QUEUE_URL` | the close timer queue (`agora_aws::timers`): a job closing within 15 minutes goes there with its delay, and close-due sends back one that came early; without it, closes wait for the schedules or the sweep | jobs, close-due |
//! | `AGORA_CLOSE_FUNCTION_ARN`, `AGORA_SCHEDULER_ROLE_ARN`, `AGORA_SCHEDULE_GROUP` | one-shot schedules of closes more than 15 minutes ahead; without the first two, those go through the timer queue in 15-minute hops | jobs |
//! | `DELEGATE_API_URL`, `AGORA_DELEGATE_TIMEOUT_MS`, `AGORA_HOOK_SIGNING_SECRET` (signs each call) | the delegate system (`agora_delegate::DelegateConfig`); unset, every round trip is stored as a failure saying so | deliver |
//! | `AGORA_RESOLUTION_QUEUE_URL` | where a job's resolution event goes (`{"event_type": "bid_job_resolved", "bid_job_id"}`): Xchange's bidding-outcome queue, for the jobs Xchange opened (marked `bid_job_metadata.xchange`) alone; unset, no event is sent | evaluate, deliver |
//! | `AGORA_WARM_TIMEOUT_MS` | how long each warm-up call of init may take (`agora_aws::warm`); `0`: no warm-up | all |
//! | hooks | see `agora_hooks_remote::HooksConfig` (on AWS: `AGORA_POLICY_RUNNER_LAMBDA`, the policy-runner function of DSL modules; `AGORA_HOOK_LAMBDA_ARNS`, the functions Lambda hooks may name) | jobs, submit-bid, evaluate |
//! | `AGORA_AUTH`, `AGORA_AUTH_SUBJECT_CLAIM`, `AGORA_AUTH_ADMIN_SCOPE` | who is calling: `jwt-authorizer` reads the JWT authorizer's claims (`agora_runtime::lambda::http_app`) | the HTTP functions |

use agora_aws::Warmup;
use agora_delegate::HttpDelegate;
use agora_hooks_remote::{HooksConfig, RemoteHooks};
use agora_orcade_core::closing::Closing;
use agora_orcade_core::ports::{NoListener, SystemClock, WorkQueue};
use agora_orcade_core::{
    orcade_hooks, BidIntake, Closer, Deliverer, Edits, Evaluator, JobCreator, OrcadeHooks, Queries, Repairer, Repo, Settings, ORCADE_DB,
};
use agora_runtime::BoxError;
use aws_config::SdkConfig;
use std::sync::Arc;

/// Environment variable: the evaluation queue's URL.
pub const EVALUATION_QUEUE_URL_ENV: &str = "AGORA_EVALUATION_QUEUE_URL";
/// Environment variable: the delivery queue's URL.
pub const DELIVERY_QUEUE_URL_ENV: &str = "AGORA_DELIVERY_QUEUE_URL";
/// Environment variable: the ARN of `orcade-close-due`, the one-shot close schedules' target.
pub const CLOSE_FUNCTION_ENV: &str = "AGORA_CLOSE_FUNCTION_ARN";
/// Environment variable: the close timer queue's URL.
pub const CLOSE_TIMER_QUEUE_URL_ENV: &str = "AGORA_CLOSE_TIMER_QUEUE_URL";
/// The variables of the close timers.
pub const CLOSE_TIMERS: agora_aws::TimerEnv = agora_aws::TimerEnv {
    queue_url: CLOSE_TIMER_QUEUE_URL_ENV,
    function_arn: CLOSE_FUNCTION_ENV,
    schedule_group: agora_aws::scheduler::GROUP_ENV,
};
/// Environment variable: the SQS queue of resolution events (Xchange's bidding outcomes).
pub const RESOLUTION_QUEUE_URL_ENV: &str = "AGORA_RESOLUTION_QUEUE_URL";

/// Orcade's hooks from the environment (`HooksConfig::from_env`).
pub fn hooks_from_env() -> Result<OrcadeHooks, BoxError> {
    Ok(orcade_hooks(Arc::new(RemoteHooks::new(&HooksConfig::from_env())?)))
}

/// The store's database `assets`.
pub async fn repo_from_env() -> Result<Repo, BoxError> {
    Ok(Repo::new(agora_runtime::store_from_env(ORCADE_DB).await?))
}

/// [`repo_from_env`], its store warmed with the function's other clients.
async fn warm_repo(warm: &mut Warmup) -> Result<Repo, BoxError> {
    Ok(Repo::new(agora_runtime::warm_store_from_env(ORCADE_DB, warm).await?))
}

/// Orcade's database on a backend another service's function opened (one connection for both).
pub async fn repo_on(backend: &agora_runtime::StoreBackend) -> Result<Repo, BoxError> {
    Ok(Repo::new(backend.open(ORCADE_DB, None).await?))
}

/// A queue the function sends to, added to `warm`.
fn queue_from_env(sdk: &SdkConfig, url_env: &str, warm: &mut Warmup) -> Result<Arc<dyn WorkQueue>, BoxError> {
    let queue = agora_aws::SqsQueue::from_env(sdk, url_env)?;
    warm.add(queue.clone());
    Ok(Arc::new(queue))
}

/// Closing jobs: the store and the evaluation queue.
fn closing(repo: &Repo, evaluations: Arc<dyn WorkQueue>) -> Closing {
    Closing::new(repo.clone(), evaluations, Arc::new(SystemClock), Settings::default().request_leases())
}

/// The job creator over `repo`: the hooks, the delivery queue (`bid_request`s) and the close
/// timers ([`CLOSE_TIMERS`]), their clients added to `warm`. `orcade-jobs` builds it, and so
/// does Xchange's assignment function when Orcade runs in the same stack.
pub fn creator(repo: &Repo, sdk: &SdkConfig, warm: &mut Warmup) -> Result<JobCreator, BoxError> {
    let timers = agora_aws::Timers::from_env(sdk, &CLOSE_TIMERS);
    timers.warm_into(warm);
    let deliveries = queue_from_env(sdk, DELIVERY_QUEUE_URL_ENV, warm)?;
    Ok(JobCreator::new(repo.clone(), hooks_from_env()?, deliveries, Arc::new(timers), Arc::new(SystemClock)))
}

/// `orcade-close-due`'s timers: the close timer queue, where a close that came early goes back.
pub async fn close_timers_from_env() -> agora_aws::Timers {
    agora_aws::Timers::from_env(&agora_aws::config::load().await, &CLOSE_TIMERS)
}

/// `orcade-jobs`: the creator, the closer (the evaluation queue) and the edits (the delivery
/// queue too: a replaced roster's new members get a `bid_request`).
pub async fn jobs_from_env() -> Result<(JobCreator, Closer, Edits), BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let repo = warm_repo(&mut warm).await?;
    let closing = closing(&repo, queue_from_env(&sdk, EVALUATION_QUEUE_URL_ENV, &mut warm)?);
    // The same queue as the creator's, on the same pool: warmed once, by the creator.
    let deliveries = Arc::new(agora_aws::SqsQueue::from_env(&sdk, DELIVERY_QUEUE_URL_ENV)?);
    let edits = Edits::new(repo.clone(), hooks_from_env()?, deliveries, closing.clone());
    let creator = creator(&repo, &sdk, &mut warm)?;
    warm.run().await;
    Ok((creator, Closer::new(repo, Arc::new(SystemClock), closing), edits))
}

/// Where resolution events go: the queue at `AGORA_RESOLUTION_QUEUE_URL`, else nowhere.
fn resolutions_from_env(sdk: &SdkConfig, warm: &mut Warmup) -> Arc<dyn WorkQueue> {
    match agora_aws::SqsQueue::optional_from_env(sdk, RESOLUTION_QUEUE_URL_ENV) {
        Some(queue) => {
            warm.add(queue.clone());
            Arc::new(queue)
        }
        None => Arc::new(NoListener),
    }
}

/// `orcade-submit-bid`: the store, the PQT, the evaluation queue.
pub async fn intake_from_env() -> Result<BidIntake, BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let repo = warm_repo(&mut warm).await?;
    let closing = closing(&repo, queue_from_env(&sdk, EVALUATION_QUEUE_URL_ENV, &mut warm)?);
    let intake = BidIntake::new(repo, hooks_from_env()?, Arc::new(SystemClock), closing);
    warm.run().await;
    Ok(intake)
}

/// `orcade-queries`: the store alone.
pub async fn queries_from_env() -> Result<Queries, BoxError> {
    let mut warm = Warmup::new();
    let queries = Queries::new(warm_repo(&mut warm).await?);
    warm.run().await;
    Ok(queries)
}

/// `orcade-close-due`: the closer and the repair sweep (the store, the evaluation queue).
pub async fn sweeps_from_env() -> Result<(Closer, Repairer), BoxError> {
    let (closer, repairer, _) = close_due_from_env().await?;
    Ok((closer, repairer))
}

/// `orcade-close-due`: [`sweeps_from_env`] and the close timers, on one SDK configuration, their
/// clients warmed together.
pub async fn close_due_from_env() -> Result<(Closer, Repairer, agora_aws::Timers), BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let repo = warm_repo(&mut warm).await?;
    let closing = closing(&repo, queue_from_env(&sdk, EVALUATION_QUEUE_URL_ENV, &mut warm)?);
    let timers = agora_aws::Timers::from_env(&sdk, &CLOSE_TIMERS);
    timers.warm_into(&mut warm);
    warm.run().await;
    Ok((Closer::new(repo.clone(), Arc::new(SystemClock), closing.clone()), Repairer::new(repo, Arc::new(SystemClock), closing), timers))
}

/// `orcade-evaluate`: the store, the evaluator hooks, the delivery queue (the `bid_winner`), the
/// evaluation queue (a repaired request).
pub async fn evaluator_from_env() -> Result<Evaluator, BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let repo = warm_repo(&mut warm).await?;
    let closing = closing(&repo, queue_from_env(&sdk, EVALUATION_QUEUE_URL_ENV, &mut warm)?);
    let deliveries = queue_from_env(&sdk, DELIVERY_QUEUE_URL_ENV, &mut warm)?;
    let evaluator =
        Evaluator::new(repo, hooks_from_env()?, deliveries, Arc::new(SystemClock), closing, Settings::default().evaluation_lease)
            .with_resolutions(resolutions_from_env(&sdk, &mut warm));
    warm.run().await;
    Ok(evaluator)
}

/// `orcade-deliver`: the store and the delegate system (`DELEGATE_API_URL`).
pub async fn deliverer_from_env() -> Result<Deliverer, BoxError> {
    let delegate = HttpDelegate::from_env()?;
    match delegate.endpoint() {
        Some(endpoint) => tracing::info!(endpoint, "delegate round trips go to the delegate system"),
        None => tracing::warn!("DELEGATE_API_URL is not set: every delegate round trip is stored as a failure saying so"),
    }
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let deliverer =
        Deliverer::new(warm_repo(&mut warm).await?, Arc::new(delegate), Arc::new(SystemClock), Settings::default().delivery_lease)
            .with_resolutions(resolutions_from_env(&sdk, &mut warm))
            .with_deliveries(queue_from_env(&sdk, DELIVERY_QUEUE_URL_ENV, &mut warm)?);
    warm.run().await;
    Ok(deliverer)
}
