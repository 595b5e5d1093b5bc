//! Configuration from the environment, and the clients each function builds once per
//! container, before its first event. Each function builds only its flows, and each flow holds
//! only the ports it uses: `xchange-queries` opens the store alone, `xchange-assign` the store,
//! the hooks, the delegate system, Orcade and the queues it feeds. Each builds its AWS clients
//! from one SDK configuration and, before its first event, warms them and its store
//! ([`agora_aws::warm`]), so that the first request opens no connection.
//!
//! | Variable | Meaning | Read by |
//! |---|---|---|
//! | `AGORA_STORE`, `MONGODB_URI`, `AGORA_DYNAMODB_TABLE` | the store (`agora_runtime::store_from_env`) | all |
//! | `EXCHANGE_ID` | the exchange: database `exchange_{EXCHANGE_ID}` (default `default`), and the mark of the bid jobs it opens (`bid_job_metadata.xchange`) | all |
//! | `AGORA_ASSIGNMENT_QUEUE_URL` | the SQS queue of assignments and bidding polls | submit-task, assign |
//! | `DELEGATE_API_URL`, `AGORA_DELEGATE_TIMEOUT_MS`, `AGORA_HOOK_SIGNING_SECRET` (signs each call) | the delegate system (`agora_delegate::DelegateConfig`); unset, every round trip fails the task saying so | assign |
//! | `AGORA_BIDDING_TIMEOUT_MS` | bidding's time limit (24 h) | assign, bidding-outcome, deadline |
//! | `AGORA_DEADLINE_TIMER_QUEUE_URL` | the deadline timer queue (`agora_aws::timers`): a deadline within 15 minutes goes there with its delay, and deadline sends back one that came early; without it, a deadline waits for its schedule or the polls | assign, deadline |
//! | `AGORA_DEADLINE_FUNCTION_ARN`, `AGORA_DEADLINE_SCHEDULE_GROUP`, `AGORA_SCHEDULER_ROLE_ARN` | one-shot schedules of deadlines more than 15 minutes ahead; without the first and last, those go through the timer queue in 15-minute hops | assign |
//! | `ORCADE_URL` | an Orcade elsewhere, over HTTP; unset, Orcade's flows in this stack | assign, bidding-outcome, deadline |
//! | Orcade's variables (`functions/orcade/src/wiring.rs`: its delivery queue, close timers, hooks) | Orcade in this stack: the job creator | assign |
//! | `AGORA_WARM_TIMEOUT_MS` | how long each warm-up call of init may take (`agora_aws::warm`); `0`: no warm-up | all |
//! | hooks | see `agora_hooks_remote::HooksConfig`: selectors, acceptance functions (on AWS: `AGORA_POLICY_RUNNER_LAMBDA`, the policy-runner function of DSL modules; `AGORA_HOOK_LAMBDA_ARNS`, the functions Lambda hooks may name) | submit-task, subjects, assign |
//! | `AGORA_AUTH`, `AGORA_AUTH_SUBJECT_CLAIM`, `AGORA_AUTH_ADMIN_SCOPE` | who is calling: `jwt-authorizer` reads the JWT authorizer's claims (`agora_runtime::lambda::http_app`) | the HTTP functions |

use agora_aws::Warmup;
use agora_delegate::HttpDelegate;
use agora_hooks_remote::{HooksConfig, RemoteHooks};
use agora_runtime::{BoxError, StoreBackend};
use agora_xchange_bidding::{HttpOrcade, InProcessOrcade, ORCADE_URL_ENV};
use agora_xchange_core::ports::{Clock, NoSchedules, OneShotSchedules, SystemClock, WorkQueue};
use agora_xchange_core::{
    xchange_hooks, Assigner, Bidder, Bidding, BiddingLimits, Queries, Repo, Settings, Subjects, TaskIntake, XchangeHooks,
};
use agora_xchange_schema::{check_exchange_id, exchange_db, DEFAULT_EXCHANGE_ID};
use aws_config::SdkConfig;
use std::sync::Arc;
use std::time::Duration;

/// Environment variable: the exchange this deployment is.
pub const EXCHANGE_ID_ENV: &str = "EXCHANGE_ID";
/// Environment variable: the assignment queue's URL.
pub const ASSIGNMENT_QUEUE_URL_ENV: &str = "AGORA_ASSIGNMENT_QUEUE_URL";
/// Environment variable: bidding's time limit in milliseconds.
pub const BIDDING_TIMEOUT_ENV: &str = "AGORA_BIDDING_TIMEOUT_MS";
/// Environment variable: the ARN of `xchange-deadline`, the one-shot deadlines' target.
pub const DEADLINE_FUNCTION_ENV: &str = "AGORA_DEADLINE_FUNCTION_ARN";
/// Environment variable: the schedule group of the deadlines.
pub const DEADLINE_GROUP_ENV: &str = "AGORA_DEADLINE_SCHEDULE_GROUP";
/// Environment variable: the deadline timer queue's URL.
pub const DEADLINE_TIMER_QUEUE_URL_ENV: &str = "AGORA_DEADLINE_TIMER_QUEUE_URL";
/// The variables of the deadline timers.
pub const DEADLINE_TIMERS: agora_aws::TimerEnv = agora_aws::TimerEnv {
    queue_url: DEADLINE_TIMER_QUEUE_URL_ENV,
    function_arn: DEADLINE_FUNCTION_ENV,
    schedule_group: DEADLINE_GROUP_ENV,
};
/// How long one call to an Orcade elsewhere may take.
const ORCADE_CALL_TIMEOUT: Duration = Duration::from_secs(20);

/// The exchange's id: `EXCHANGE_ID`, default `default`, checked.
pub fn exchange_id_from_env() -> Result<String, BoxError> {
    let id = agora_support::env::var(EXCHANGE_ID_ENV).unwrap_or_else(|| DEFAULT_EXCHANGE_ID.to_owned());
    Ok(check_exchange_id(&id)?.to_owned())
}

/// Bidding's limits: `AGORA_BIDDING_TIMEOUT_MS` (a positive whole number of milliseconds;
/// unset, 24 h).
pub fn bidding_limits_from_env() -> Result<BiddingLimits, BoxError> {
    let defaults = BiddingLimits::default();
    let Some(text) = agora_support::env::var(BIDDING_TIMEOUT_ENV) else { return Ok(defaults) };
    match text.parse::<u64>() {
        Ok(ms) if ms > 0 => Ok(BiddingLimits { timeout: Duration::from_millis(ms), ..defaults }),
        _ => Err(format!("{BIDDING_TIMEOUT_ENV} must be a positive whole number of milliseconds, got {text:?}").into()),
    }
}

/// The exchange's database on the store of the environment.
pub async fn repo_from_env() -> Result<Repo, BoxError> {
    repo_on(&StoreBackend::from_env().await?).await
}

/// The exchange's database on `backend`.
async fn repo_on(backend: &StoreBackend) -> Result<Repo, BoxError> {
    Ok(Repo::new(backend.open(exchange_db(&exchange_id_from_env()?), None).await?))
}

/// The exchange's database on `backend`, its store warmed with the function's other clients
/// (one warm-up covers every database on the backend: they share its connection).
async fn warm_repo_on(backend: &StoreBackend, warm: &mut Warmup) -> Result<Repo, BoxError> {
    let store = backend.open(exchange_db(&exchange_id_from_env()?), None).await?;
    warm.add(backend.warm(&store));
    Ok(Repo::new(store))
}

/// Xchange's hooks from the environment (`HooksConfig::from_env`).
pub fn hooks_from_env() -> Result<XchangeHooks, BoxError> {
    Ok(xchange_hooks(Arc::new(RemoteHooks::new(&HooksConfig::from_env())?)))
}

fn assignments_from_env(sdk: &SdkConfig, warm: &mut Warmup) -> Result<Arc<dyn WorkQueue>, BoxError> {
    let queue = agora_aws::SqsQueue::from_env(sdk, ASSIGNMENT_QUEUE_URL_ENV)?;
    warm.add(queue.clone());
    Ok(Arc::new(queue))
}

fn clock() -> Arc<dyn Clock> {
    Arc::new(SystemClock)
}

/// `xchange-submit-task`: the store, the selector hooks, the assignment queue.
pub async fn intake_from_env() -> Result<TaskIntake, BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let repo = warm_repo_on(&StoreBackend::from_env().await?, &mut warm).await?;
    let intake = TaskIntake::new(repo, hooks_from_env()?, assignments_from_env(&sdk, &mut warm)?, clock());
    warm.run().await;
    Ok(intake)
}

/// `xchange-subjects`: the store and the hooks (a subject's `task_evaluation_function` is checked).
pub async fn subjects_from_env() -> Result<Subjects, BoxError> {
    let mut warm = Warmup::new();
    let subjects = Subjects::new(warm_repo_on(&StoreBackend::from_env().await?, &mut warm).await?, hooks_from_env()?);
    warm.run().await;
    Ok(subjects)
}

/// `xchange-queries`: the store alone.
pub async fn queries_from_env() -> Result<Queries, BoxError> {
    let mut warm = Warmup::new();
    let queries = Queries::new(warm_repo_on(&StoreBackend::from_env().await?, &mut warm).await?);
    warm.run().await;
    Ok(queries)
}

/// Orcade for bidding mode: at `ORCADE_URL` when set, else Orcade's flows in this stack (its
/// database opened on `backend`). Only `xchange-assign` creates jobs (`creates`); the other
/// functions read outcomes, which needs Orcade's store alone.
async fn bidding_from_env(creates: bool, backend: &StoreBackend, sdk: &SdkConfig, warm: &mut Warmup) -> Result<Arc<dyn Bidding>, BoxError> {
    if let Some(url) = agora_support::env::var(ORCADE_URL_ENV) {
        let http = HttpOrcade::new(&url, ORCADE_CALL_TIMEOUT)?;
        tracing::info!(orcade = http.base(), "bidding mode uses the Orcade at ORCADE_URL");
        return Ok(Arc::new(http));
    }
    let repo = agora_orcade_functions::wiring::repo_on(backend).await?;
    let queries = agora_orcade_core::Queries::new(repo.clone());
    Ok(Arc::new(match creates {
        true => InProcessOrcade::new(agora_orcade_functions::wiring::creator(&repo, sdk, warm)?, queries),
        false => InProcessOrcade::reader(queries),
    }))
}

/// A bidding task's deadline timers ([`DEADLINE_TIMERS`]): `xchange-assign` sets them,
/// `xchange-deadline` sends back one that came early.
pub fn deadline_timers_from_env(sdk: &SdkConfig) -> agora_aws::Timers {
    agora_aws::Timers::from_env(sdk, &DEADLINE_TIMERS)
}

/// The exchange's store and Orcade's, two databases on one connection to the backend (a cold
/// start's cost is the connection, then one read per database: see `agora_store_mongodb`), and
/// the bidding flow over them: the assignment queue (its polls) and, when it creates jobs, the
/// deadlines.
async fn bidder(creates: bool, sdk: &SdkConfig, warm: &mut Warmup) -> Result<(Repo, Bidder), BoxError> {
    let backend = StoreBackend::from_env().await?;
    let repo = warm_repo_on(&backend, warm).await?;
    let bidding = bidding_from_env(creates, &backend, sdk, warm).await?;
    let deadlines: Arc<dyn OneShotSchedules> = match creates {
        true => {
            let timers = deadline_timers_from_env(sdk);
            timers.warm_into(warm);
            Arc::new(timers)
        }
        false => Arc::new(NoSchedules),
    };
    // The exchange's id goes into the mark of each job it opens, which Orcade announces.
    let limits = bidding_limits_from_env()?;
    let assignments = assignments_from_env(sdk, warm)?;
    let bidder = Bidder::new(repo.clone(), bidding, assignments, deadlines, clock(), limits, &exchange_id_from_env()?);
    Ok((repo, bidder))
}

/// `xchange-assign`: the assigner (the store, the hooks, the delegate system) and the bidder
/// (Orcade, the assignment queue for its polls, the deadlines).
pub async fn assignment_from_env() -> Result<(Assigner, Bidder), BoxError> {
    let sdk = agora_aws::config::load().await;
    let delegate = HttpDelegate::from_env()?;
    match delegate.endpoint() {
        Some(endpoint) => tracing::info!(endpoint, "delegate round trips go to the delegate system"),
        None => tracing::warn!("DELEGATE_API_URL is not set: every delegate round trip fails its task saying so"),
    }
    let settings = Settings::new(delegate.timeout(), bidding_limits_from_env()?);
    let mut warm = Warmup::new();
    let (repo, bidder) = bidder(true, &sdk, &mut warm).await?;
    let assigner = Assigner::new(
        repo,
        hooks_from_env()?,
        Arc::new(delegate),
        bidder.clone(),
        clock(),
        settings.assignment_lease,
        settings.delegate_timeout,
    );
    warm.run().await;
    Ok((assigner, bidder))
}

/// `xchange-bidding-outcome` and `xchange-deadline`: the bidder, reading outcomes (the store,
/// Orcade's store or `ORCADE_URL`, the assignment queue).
pub async fn outcome_reader_from_env() -> Result<Bidder, BoxError> {
    let sdk = agora_aws::config::load().await;
    outcome_reader_on(&sdk, Warmup::new()).await
}

/// [`outcome_reader_from_env`] on `sdk`, its clients warmed with those in `warm`.
async fn outcome_reader_on(sdk: &SdkConfig, mut warm: Warmup) -> Result<Bidder, BoxError> {
    let (_, bidder) = bidder(false, sdk, &mut warm).await?;
    warm.run().await;
    Ok(bidder)
}

/// `xchange-deadline`: the outcome reader and the deadline timers, on one SDK configuration,
/// their clients warmed together.
pub async fn deadline_from_env() -> Result<(Bidder, agora_aws::Timers), BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let timers = deadline_timers_from_env(&sdk);
    timers.warm_into(&mut warm);
    Ok((outcome_reader_on(&sdk, warm).await?, timers))
}
