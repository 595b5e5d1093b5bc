//! Configuration from the environment, and the clients each function builds once per
//! container, before its first event. Each function builds only what its flow uses: a port the
//! flow never calls is not wired ([`Unwired`]: a call says which setting the function lacks).
//!
//! | Variable | Meaning | Read by |
//! |---|---|---|
//! | `AGORA_STORE` | `mongodb`, `dynamodb`, or `embedded` in builds with the `embedded` feature (see `agora_runtime`); default `mongodb` | all but parse-task |
//! | `AGORA_EMBEDDED_DIR` | the folder of the `embedded` store's files (local runs of the functions); default `/tmp/agora` | as `AGORA_STORE` |
//! | `AGORA_PUBLISHER` | `eventbridge`, `nats` or `log`; default `eventbridge` | start-tasks, evaluate-task |
//! | `AGORA_EVALUATION_QUEUE_URL` | the SQS queue of evaluation requests | submit-vote |
//! | `AGORA_START_FUNCTION_ARN`, `AGORA_SCHEDULER_ROLE_ARN`, `AGORA_SCHEDULE_GROUP` | one-shot starts; without the first two, the sweep alone starts tasks | create-task |
//! | `AGORA_LIVE_QUEUE_URL` | the live stream's SQS queue; without it, changes of tasks are not pushed to live streams | submit-vote, start-tasks, evaluate-task, live-stream, live-push |
//! | `AGORA_LIVE_ENDPOINT` | the WebSocket API's `@connections` endpoint | live-stream, live-push |
//! | `SOCIAL_CHOICE_ID` | names stateful registry deployments `<function_name>-<SOCIAL_CHOICE_ID>` (voting §4); unset: after the task | functions that run hooks |
//! | hooks | see `agora_hooks_remote::HooksConfig` | create-task, parse-task, submit-vote, start-tasks, evaluate-task |

use agora_hooks_remote::{HooksConfig, RemoteHooks};
use agora_runtime::{env, open_publisher, open_store, BoxError, PublisherKind, StoreKind};
use agora_store::DocumentStore;
use agora_voting_core::live::{LiveStreams, QueuedChanges};
use agora_voting_core::repo::Repo;
use agora_voting_core::{
    voting_hooks, ChangeListener, NoChangeListener, NoSchedules, OneShotSchedules, Ports, PublishError, Publisher, Queries, QueueError,
    Settings, SystemClock, TaskParser, Voting, VotingHooks, WorkQueue, VOTING_DB,
};
use async_trait::async_trait;
use aws_config::SdkConfig;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Environment variable: the evaluation queue's URL.
pub const EVALUATION_QUEUE_URL_ENV: &str = "AGORA_EVALUATION_QUEUE_URL";
/// Environment variable: the live queue's URL.
pub const LIVE_QUEUE_URL_ENV: &str = "AGORA_LIVE_QUEUE_URL";
/// Environment variable: the ARN of `voting-start-tasks`, the one-shot start schedules' target.
pub const START_FUNCTION_ENV: &str = "AGORA_START_FUNCTION_ARN";
/// The EventBridge `source` of voting's messages, unless `AGORA_EVENT_SOURCE` says otherwise.
pub const EVENT_SOURCE: &str = "agora.voting";

/// The voting functions, each one flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Function {
    CreateTask,
    SubmitVote,
    StartTasks,
    EvaluateTask,
    LiveStream,
    LivePush,
}

impl Function {
    fn name(self) -> &'static str {
        match self {
            Function::CreateTask => "voting-create-task",
            Function::SubmitVote => "voting-submit-vote",
            Function::StartTasks => "voting-start-tasks",
            Function::EvaluateTask => "voting-evaluate-task",
            Function::LiveStream => "voting-live-stream",
            Function::LivePush => "voting-live-push",
        }
    }
    fn runs_hooks(self) -> bool {
        matches!(self, Function::CreateTask | Function::SubmitVote | Function::StartTasks | Function::EvaluateTask)
    }
    fn publishes(self) -> bool {
        matches!(self, Function::StartTasks | Function::EvaluateTask)
    }
    fn reports_changes(self) -> bool {
        matches!(self, Function::SubmitVote | Function::StartTasks | Function::EvaluateTask)
    }
}

/// Voting's hooks from the environment (`HooksConfig::from_env`, `SOCIAL_CHOICE_ID`).
pub fn hooks_from_env() -> Result<VotingHooks, BoxError> {
    let remote = RemoteHooks::new(&HooksConfig::from_env())?;
    Ok(voting_hooks(Arc::new(remote), env("SOCIAL_CHOICE_ID")))
}

/// `voting-parse-task`'s flow: the hooks alone, no store.
pub fn parser_from_env() -> Result<TaskParser, BoxError> {
    Ok(TaskParser::new(hooks_from_env()?))
}

/// `voting-queries`' flow: the store alone.
pub async fn queries_from_env() -> Result<Queries, BoxError> {
    Ok(Queries::new(Repo::new(store_from_env().await?)))
}

/// The store of `AGORA_STORE` (`AGORA_EMBEDDED_DIR` for the embedded one).
async fn store_from_env() -> Result<Arc<dyn DocumentStore>, BoxError> {
    let kind: StoreKind = env("AGORA_STORE").as_deref().unwrap_or("mongodb").parse()?;
    let embedded = PathBuf::from(env("AGORA_EMBEDDED_DIR").unwrap_or_else(|| "/tmp/agora".into()));
    open_store(kind, &embedded, VOTING_DB, None).await
}

/// The voting service as `function` uses it, wired from the environment.
pub async fn voting_from_env(function: Function) -> Result<Arc<Voting>, BoxError> {
    voting_with_sdk(function, &agora_aws::config::load().await).await
}

/// The live stream (`voting-live-stream`, `voting-live-push`) wired from the environment.
pub async fn live_streams_from_env(function: Function) -> Result<LiveStreams, BoxError> {
    let sdk = agora_aws::config::load().await;
    let voting = voting_with_sdk(function, &sdk).await?;
    let gateway = agora_aws::ApiGatewayConnections::from_env(&sdk)?;
    let queue = agora_aws::SqsQueue::from_env(&sdk, LIVE_QUEUE_URL_ENV)?;
    Ok(LiveStreams::new(voting, Arc::new(gateway), Arc::new(queue)))
}

/// The voting service as `function` uses it, its AWS clients made from `sdk`.
pub async fn voting_with_sdk(function: Function, sdk: &SdkConfig) -> Result<Arc<Voting>, BoxError> {
    let name = function.name();
    let hooks = if function.runs_hooks() { hooks_from_env()? } else { voting_hooks(Arc::new(agora_hooks::NoRemote), None) };
    let publisher: Arc<dyn Publisher> = if function.publishes() {
        let kind: PublisherKind = env("AGORA_PUBLISHER").as_deref().unwrap_or("eventbridge").parse()?;
        open_publisher(kind, EVENT_SOURCE).await?
    } else {
        Arc::new(Unwired { function: name, what: "publisher" })
    };
    let queue: Arc<dyn WorkQueue> = if function == Function::SubmitVote {
        Arc::new(agora_aws::SqsQueue::from_env(sdk, EVALUATION_QUEUE_URL_ENV)?)
    } else {
        Arc::new(Unwired { function: name, what: "evaluation queue" })
    };
    let scheduler: Arc<dyn OneShotSchedules> = match function {
        Function::CreateTask => match agora_aws::OneShotScheduler::from_env(sdk, START_FUNCTION_ENV) {
            Ok(s) => Arc::new(s),
            Err(e) => {
                tracing::info!(reason = %e, "no one-shot start schedules; the sweep starts tasks");
                Arc::new(NoSchedules)
            }
        },
        _ => Arc::new(NoSchedules),
    };
    let changes: Arc<dyn ChangeListener> = match agora_aws::SqsQueue::optional_from_env(sdk, LIVE_QUEUE_URL_ENV) {
        Some(queue) if function.reports_changes() => Arc::new(QueuedChanges::new(Arc::new(queue))),
        _ => Arc::new(NoChangeListener),
    };
    let ports = Ports { store: store_from_env().await?, hooks, publisher, queue, clock: Arc::new(SystemClock), changes, scheduler };
    Ok(Arc::new(Voting::new(ports, Settings::default())))
}

/// A port this function's flow does not use. Should a call reach it all the same, it fails,
/// naming the function and the port, instead of acting.
#[derive(Debug, Clone, Copy)]
pub struct Unwired {
    function: &'static str,
    what: &'static str,
}

impl Unwired {
    fn reason(&self) -> String {
        format!("{} has no {}: its flow does not use one", self.function, self.what)
    }
}

#[async_trait]
impl Publisher for Unwired {
    async fn publish(&self, address: &str, _message: &serde_json::Value) -> Result<(), PublishError> {
        Err(PublishError { address: address.to_owned(), reason: self.reason() })
    }
}

#[async_trait]
impl WorkQueue for Unwired {
    async fn send(&self, key: &str, _body: &str, _delay: Duration) -> Result<(), QueueError> {
        Err(QueueError { key: key.to_owned(), reason: self.reason() })
    }
}
