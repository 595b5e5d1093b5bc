//! Configuration from the environment, and the clients each function builds once per
//! container, before its first event. Each function builds its own flow, and a flow holds only
//! the ports it uses: `voting-parse-task` opens no store, `voting-queries` nothing but the store.
//! Each builds its AWS clients from one SDK configuration and, before its first event, warms
//! them and its store ([`agora_aws::warm`]: one cheap call each, at once, so that the first
//! request opens no connection).
//!
//! | Variable | Meaning | Read by |
//! |---|---|---|
//! | `AGORA_STORE` | `mongodb`, `dynamodb`, or `embedded` in builds with the `embedded` feature (see `agora_runtime`); default `mongodb` | all but parse-task |
//! | `AGORA_EMBEDDED_DIR` | the folder of the `embedded` store's files (local runs of the functions); default `/tmp/agora` | as `AGORA_STORE` |
//! | `AGORA_PUBLISHER` | `eventbridge`, `nats` or `log`; default `eventbridge` | start-tasks, evaluate-task |
//! | `AGORA_EVALUATION_QUEUE_URL` | the SQS queue of evaluation requests | submit-vote |
//! | `AGORA_START_TIMER_QUEUE_URL` | the start timer queue (`agora_aws::timers`): a task due within 15 minutes goes there with its delay, and start-tasks sends back one that came early; without it, starts wait for the schedules or the sweep | create-task, start-tasks |
//! | `AGORA_START_FUNCTION_ARN`, `AGORA_SCHEDULER_ROLE_ARN`, `AGORA_SCHEDULE_GROUP` | one-shot schedules of starts more than 15 minutes ahead; without the first two, those go through the timer queue in 15-minute hops | create-task |
//! | `AGORA_LIVE_QUEUE_URL` | the live stream's SQS queue; without it, changes of tasks are not pushed to live streams | submit-vote, start-tasks, evaluate-task, live-stream, live-push |
//! | `AGORA_LIVE_ENDPOINT` | the WebSocket API's `@connections` endpoint | live-stream, live-push |
//! | `AGORA_AUTH`, `AGORA_AUTH_SUBJECT_CLAIM`, `AGORA_AUTH_ADMIN_SCOPE` | who is calling: `jwt-authorizer` reads the JWT authorizer's claims (`agora_runtime::lambda::http_app`) | the HTTP functions, live-stream |
//! | `AGORA_AUTH_JWKS_URL`, `AGORA_AUTH_ISSUER`, `AGORA_AUTH_AUDIENCE` | with `AGORA_AUTH` on, the keys and claims `$connect` tokens are verified against | live-stream |
//! | `SOCIAL_CHOICE_ID` | names stateful registry deployments `<function_name>-<SOCIAL_CHOICE_ID>` (voting §4); unset: after the task | functions that run hooks |
//! | `AGORA_WARM_TIMEOUT_MS` | how long each warm-up call of init may take (`agora_aws::warm`); `0`: no warm-up | all but parse-task |
//! | hooks | see `agora_hooks_remote::HooksConfig` (on AWS: `AGORA_POLICY_RUNNER_LAMBDA`, the policy-runner function of DSL modules; `AGORA_HOOK_LAMBDA_ARNS`, the functions Lambda hooks may name) | create-task, parse-task, submit-vote, start-tasks, evaluate-task |

use agora_aws::Warmup;
use agora_hooks_remote::{HooksConfig, RemoteHooks};
use agora_runtime::{env, open_publisher_on, BoxError, PublisherKind};
use agora_store::DocumentStore;
use agora_voting_core::live::{LiveStreams, QueuedChanges};
use agora_voting_core::repo::Repo;
use agora_voting_core::{
    voting_hooks, Canceller, ChangeListener, Evaluator, NoChangeListener, Publisher, Queries, Repairer, Settings, Starter, SystemClock,
    TaskCreator, TaskParser, VoteIntake, VotingHooks, VOTING_DB,
};
use aws_config::SdkConfig;
use std::sync::Arc;

/// Environment variable: the evaluation queue's URL.
pub const EVALUATION_QUEUE_URL_ENV: &str = "AGORA_EVALUATION_QUEUE_URL";
/// Environment variable: the live queue's URL.
pub const LIVE_QUEUE_URL_ENV: &str = "AGORA_LIVE_QUEUE_URL";
/// Environment variable: the ARN of `voting-start-tasks`, the one-shot start schedules' target.
pub const START_FUNCTION_ENV: &str = "AGORA_START_FUNCTION_ARN";
/// Environment variable: the start timer queue's URL.
pub const START_TIMER_QUEUE_URL_ENV: &str = "AGORA_START_TIMER_QUEUE_URL";
/// The variables of the start timers.
pub const START_TIMERS: agora_aws::TimerEnv = agora_aws::TimerEnv {
    queue_url: START_TIMER_QUEUE_URL_ENV,
    function_arn: START_FUNCTION_ENV,
    schedule_group: agora_aws::scheduler::GROUP_ENV,
};
/// The EventBridge `source` of voting's messages, unless `AGORA_EVENT_SOURCE` says otherwise.
pub const EVENT_SOURCE: &str = "agora.voting";

/// Voting's hooks from the environment (`HooksConfig::from_env`, `SOCIAL_CHOICE_ID`).
pub fn hooks_from_env() -> Result<VotingHooks, BoxError> {
    let remote = RemoteHooks::new(&HooksConfig::from_env())?;
    Ok(voting_hooks(Arc::new(remote), env("SOCIAL_CHOICE_ID")))
}

/// The store of `AGORA_STORE` (`AGORA_EMBEDDED_DIR` for the embedded one).
pub async fn store_from_env() -> Result<Arc<dyn DocumentStore>, BoxError> {
    agora_runtime::store_from_env(VOTING_DB).await
}

/// [`store_from_env`], warmed with the function's other clients.
async fn warm_store(warm: &mut Warmup) -> Result<Arc<dyn DocumentStore>, BoxError> {
    agora_runtime::warm_store_from_env(VOTING_DB, warm).await
}

/// The publisher of `AGORA_PUBLISHER`.
async fn publisher_from_env(sdk: &SdkConfig, warm: &mut Warmup) -> Result<Arc<dyn Publisher>, BoxError> {
    let kind: PublisherKind = env("AGORA_PUBLISHER").as_deref().unwrap_or("eventbridge").parse()?;
    open_publisher_on(kind, EVENT_SOURCE, sdk, warm).await
}

/// A queue the function sends to, warmed.
fn queue(sdk: &SdkConfig, url_env: &str, warm: &mut Warmup) -> Result<Arc<agora_aws::SqsQueue>, BoxError> {
    let queue = agora_aws::SqsQueue::from_env(sdk, url_env)?;
    warm.add(queue.clone());
    Ok(Arc::new(queue))
}

/// Changes of tasks that stream live, as messages on the live queue when `AGORA_LIVE_QUEUE_URL`
/// is set.
fn changes_from_env(sdk: &SdkConfig, warm: &mut Warmup) -> Arc<dyn ChangeListener> {
    match agora_aws::SqsQueue::optional_from_env(sdk, LIVE_QUEUE_URL_ENV) {
        Some(queue) => {
            warm.add(queue.clone());
            Arc::new(QueuedChanges::new(Arc::new(queue)))
        }
        None => Arc::new(NoChangeListener),
    }
}

/// `voting-parse-task`: the hooks alone, no store.
pub fn parser_from_env() -> Result<TaskParser, BoxError> {
    Ok(TaskParser::new(hooks_from_env()?))
}

/// `voting-create-task`: the parser, the store, the start timers ([`START_TIMERS`]).
pub async fn creator_from_env() -> Result<TaskCreator, BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let timers = agora_aws::Timers::from_env(&sdk, &START_TIMERS);
    timers.warm_into(&mut warm);
    let creator = TaskCreator::new(parser_from_env()?, Repo::new(warm_store(&mut warm).await?), Arc::new(timers));
    warm.run().await;
    Ok(creator)
}

/// `voting-start-tasks`' timers: the start timer queue, where a start that came early goes back.
pub async fn start_timers_from_env() -> agora_aws::Timers {
    agora_aws::Timers::from_env(&agora_aws::config::load().await, &START_TIMERS)
}

/// `voting-submit-vote`: the store, the PQT, the evaluation queue, the live queue's changes.
pub async fn intake_from_env() -> Result<VoteIntake, BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let evaluations = queue(&sdk, EVALUATION_QUEUE_URL_ENV, &mut warm)?;
    let changes = changes_from_env(&sdk, &mut warm);
    let lease = Settings::default().trigger_leases();
    let intake = VoteIntake::new(warm_store(&mut warm).await?, hooks_from_env()?, evaluations, Arc::new(SystemClock), changes, lease);
    warm.run().await;
    Ok(intake)
}

/// `voting-cancel-task`: the store, the live queue's changes.
pub async fn canceller_from_env() -> Result<Canceller, BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let lease = Settings::default().evaluation_lease;
    let canceller = Canceller::new(warm_store(&mut warm).await?, Arc::new(SystemClock), changes_from_env(&sdk, &mut warm), lease);
    warm.run().await;
    Ok(canceller)
}

/// `voting-queries`: the store alone.
pub async fn queries_from_env() -> Result<Queries, BoxError> {
    let mut warm = Warmup::new();
    let queries = Queries::new(Repo::new(warm_store(&mut warm).await?));
    warm.run().await;
    Ok(queries)
}

/// `voting-start-tasks`: the starter (the store, the invitation creator, the publisher, the live
/// queue's changes) and the repair sweep (the store and the evaluation queue).
pub async fn sweeps_from_env() -> Result<(Starter, Repairer), BoxError> {
    let (starter, repairer, _) = start_tasks_from_env().await?;
    Ok((starter, repairer))
}

/// `voting-start-tasks`: [`sweeps_from_env`] and the start timers (which also carry each started
/// task's deadline timer), on one SDK configuration,
/// their clients warmed together.
pub async fn start_tasks_from_env() -> Result<(Starter, Repairer, agora_aws::Timers), BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let settings = Settings::default();
    let store = warm_store(&mut warm).await?;
    let timers = agora_aws::Timers::from_env(&sdk, &START_TIMERS);
    timers.warm_into(&mut warm);
    // A started task's deadline timer rides the start timers: its schedule and queue
    // deliver to this function, which closes the task at its deadline.
    let starter = Starter::new(
        store.clone(),
        hooks_from_env()?,
        publisher_from_env(&sdk, &mut warm).await?,
        Arc::new(SystemClock),
        changes_from_env(&sdk, &mut warm),
        settings.start_lease,
    )
    .with_deadlines(Arc::new(timers.clone()));
    let evaluations = queue(&sdk, EVALUATION_QUEUE_URL_ENV, &mut warm)?;
    let repairer = Repairer::new(store, evaluations, Arc::new(SystemClock), settings.trigger_leases());
    warm.run().await;
    Ok((starter, repairer, timers))
}

/// `voting-evaluate-task`: the store, the hooks, the publisher, the live queue's changes.
pub async fn evaluator_from_env() -> Result<Evaluator, BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let lease = Settings::default().evaluation_lease;
    let evaluator = Evaluator::new(
        warm_store(&mut warm).await?,
        hooks_from_env()?,
        publisher_from_env(&sdk, &mut warm).await?,
        Arc::new(SystemClock),
        changes_from_env(&sdk, &mut warm),
        lease,
    );
    warm.run().await;
    Ok(evaluator)
}

/// `voting-live-stream`'s token verifier: with `AGORA_AUTH` on (`jwt-authorizer`), the verifier
/// of `AGORA_AUTH_JWKS_URL` (or `AGORA_AUTH_PUBLIC_KEY_FILE`), `AGORA_AUTH_ISSUER` and
/// `AGORA_AUTH_AUDIENCE`, which must then be set (API Gateway's WebSocket APIs have no JWT
/// authorizer); off, none.
pub async fn live_verifier_from_env() -> Result<Option<agora_auth::verify::Verifier>, BoxError> {
    if agora_runtime::lambda::auth_from_env()?.is_none() {
        return Ok(None);
    }
    let config = agora_auth::verify::VerifierConfig::from_env()?
        .ok_or("AGORA_AUTH is on: the live stream needs AGORA_AUTH_JWKS_URL (or AGORA_AUTH_PUBLIC_KEY_FILE) to verify tokens")?;
    Ok(Some(agora_auth::verify::Verifier::new(config).await?))
}

/// `voting-live-stream` and `voting-live-push`: the store, the WebSocket connections, the live queue.
pub async fn live_streams_from_env() -> Result<LiveStreams, BoxError> {
    let (sdk, mut warm) = (agora_aws::config::load().await, Warmup::new());
    let gateway = agora_aws::ApiGatewayConnections::from_env(&sdk)?;
    warm.add(gateway.clone());
    let queue = queue(&sdk, LIVE_QUEUE_URL_ENV, &mut warm)?;
    let streams = LiveStreams::new(warm_store(&mut warm).await?, Arc::new(SystemClock), Arc::new(gateway), queue);
    warm.run().await;
    Ok(streams)
}
