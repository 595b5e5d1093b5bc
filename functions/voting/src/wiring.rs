//! Configuration from the environment and the clients every function builds once per
//! container, before its first event.
//!
//! | Variable | Meaning | Default |
//! |---|---|---|
//! | `AGORA_STORE` | `mongodb`, `dynamodb`, or `embedded` in builds with the `embedded` feature (see `agora_runtime`) | `mongodb` |
//! | `AGORA_EMBEDDED_PATH` | the SQLite file of the `embedded` store (local runs of the functions) | `/tmp/agora.sqlite` |
//! | `AGORA_PUBLISHER` | `eventbridge`, `nats` or `log` | `eventbridge` |
//! | `AGORA_EVALUATION_QUEUE_URL` | the SQS queue of evaluation requests | required |
//! | `AGORA_START_FUNCTION_ARN`, `AGORA_SCHEDULER_ROLE_ARN`, `AGORA_SCHEDULE_GROUP` | one-shot starts; without the first two, the sweep alone starts tasks | |
//! | `AGORA_LIVE_QUEUE_URL` | the live stream's SQS queue; without it, changes of tasks are not pushed to live streams | |
//! | `AGORA_LIVE_ENDPOINT` | the WebSocket API's `@connections` endpoint (`live-stream`, `live-push`) | required there |
//! | hooks | see `agora_hooks::HooksConfig` | |

use agora_runtime::{env, open_publisher, open_store, BoxError, PublisherKind, StoreKind};
use agora_voting_core::live::LiveStreams;
use agora_voting_core::{Ports, Settings, StartScheduler, SweepOnly, SystemClock, Voting};
use aws_config::SdkConfig;
use std::path::PathBuf;
use std::sync::Arc;

/// JSON logs, level from `RUST_LOG` (default `info`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt().json().with_env_filter(filter).with_current_span(false).without_time().try_init();
}

/// The voting service wired from the environment.
pub async fn voting_from_env() -> Result<Arc<Voting>, BoxError> {
    voting_with_sdk(&agora_aws::config::load().await).await
}

/// The live stream (`live-stream`, `live-push`) wired from the environment.
pub async fn live_streams_from_env() -> Result<LiveStreams, BoxError> {
    let sdk = agora_aws::config::load().await;
    let voting = voting_with_sdk(&sdk).await?;
    let gateway = agora_aws::ApiGatewayConnections::from_env(&sdk)?;
    let queue = agora_aws::SqsLiveQueue::from_env(&sdk)?;
    Ok(LiveStreams::new(voting, Arc::new(gateway), Arc::new(queue)))
}

/// The voting service wired from the environment, its AWS clients made from `sdk`.
pub async fn voting_with_sdk(sdk: &SdkConfig) -> Result<Arc<Voting>, BoxError> {
    let store_kind: StoreKind = env("AGORA_STORE").as_deref().unwrap_or("mongodb").parse()?;
    let publisher_kind: PublisherKind = env("AGORA_PUBLISHER").as_deref().unwrap_or("eventbridge").parse()?;
    let embedded = PathBuf::from(env("AGORA_EMBEDDED_PATH").unwrap_or_else(|| "/tmp/agora.sqlite".into()));
    let scheduler: Arc<dyn StartScheduler> = match agora_aws::OneShotScheduler::from_env(sdk) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            tracing::info!(reason = %e, "no one-shot start schedules; the sweep starts tasks");
            Arc::new(SweepOnly)
        }
    };
    let ports = Ports {
        store: open_store(store_kind, embedded, None).await?,
        hooks: Arc::new(agora_hooks::HookDispatcher::new(&agora_hooks::HooksConfig::from_env())?),
        publisher: open_publisher(publisher_kind).await?,
        queue: Arc::new(agora_aws::SqsEvaluationQueue::from_env(sdk)?),
        clock: Arc::new(SystemClock),
        changes: match agora_aws::SqsLiveQueue::optional_from_env(sdk) {
            Some(queue) => Arc::new(queue),
            None => Arc::new(agora_voting_core::NoChangeListener),
        },
        scheduler,
    };
    Ok(Arc::new(Voting::new(ports, Settings::default())))
}
