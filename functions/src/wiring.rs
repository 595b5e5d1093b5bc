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
//! | hooks | see `agora_hooks::HooksConfig` | |

use agora_core::{Ports, Settings, StartScheduler, SweepOnly, SystemClock, Voting};
use agora_runtime::{env, open_publisher, open_store, BoxError, PublisherKind, StoreKind};
use std::path::PathBuf;
use std::sync::Arc;

/// JSON logs, level from `RUST_LOG` (default `info`).
pub fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let _ = tracing_subscriber::fmt().json().with_env_filter(filter).with_current_span(false).without_time().try_init();
}

/// The voting service wired from the environment.
pub async fn voting_from_env() -> Result<Arc<Voting>, BoxError> {
    let store_kind: StoreKind = env("AGORA_STORE").as_deref().unwrap_or("mongodb").parse()?;
    let publisher_kind: PublisherKind = env("AGORA_PUBLISHER").as_deref().unwrap_or("eventbridge").parse()?;
    let embedded = PathBuf::from(env("AGORA_EMBEDDED_PATH").unwrap_or_else(|| "/tmp/agora.sqlite".into()));
    let sdk = agora_aws::config::load().await;
    let scheduler: Arc<dyn StartScheduler> = match agora_aws::OneShotScheduler::from_env(&sdk) {
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
        queue: Arc::new(agora_aws::SqsEvaluationQueue::from_env(&sdk)?),
        clock: Arc::new(SystemClock),
        changes: Arc::new(agora_core::NoChangeListener),
        scheduler,
    };
    Ok(Arc::new(Voting::new(ports, Settings::default())))
}
