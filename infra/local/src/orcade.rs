//! Orcade on the local server: its store (database `assets`), its flows over the local
//! platform, its routes (§3), the durable evaluation and delivery queues and their workers, each
//! open job's close timer ([`crate::timers`]), and the sweep that closes due open jobs whose
//! timer did not and requests stalled evaluations again. Delegate calls go
//! to `DELEGATE_API_URL` (`--delegate-api-url`) when it is set, else to the local delegate ([`crate::delegate`]), which
//! records them in the inbox.

use crate::delegate::LocalDelegate;
use crate::queue::{self, DurableQueue};
use crate::timers::{LocalTimers, TimerWork};
use crate::{Config, Platform};
use agora_delegate::{DelegateConfig, HttpDelegate};
use agora_orcade_core::{orcade_hooks, Orcade, Ports, Settings, ORCADE_DB};
use agora_ports::{Delegate, WorkOutcome};
use axum::Router;
use std::sync::Arc;
use std::time::Duration;

/// Orcade, wired: the service, its routes (without fallbacks) and its background tasks.
pub struct Wired {
    pub orcade: Arc<Orcade>,
    /// The delegate system Orcade's round trips go to (Xchange's go there too).
    pub delegate: Arc<dyn Delegate>,
    pub routes: Router,
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// Orcade, with its resolution events sent to `resolutions` (Xchange's bidding-outcome queue).
pub async fn wire(platform: &Platform, config: &Config, resolutions: DurableQueue) -> Result<Wired, crate::BoxError> {
    let store = platform.open_database(ORCADE_DB, config.store_namespace.as_deref()).await?;
    let (evaluations, pending_evaluations) = platform.queue("orcade-evaluation").await?;
    let (deliveries, pending_deliveries) = platform.queue("orcade-delivery").await?;
    let (close_timers, due_closes) = platform.queue("orcade-close").await?;
    // The delegate crate's own checks: a blank URL is unset, a bad URL, time limit or signing
    // secret stops the start-up naming its setting. Calls are signed with the hooks' secret.
    let settings = DelegateConfig::from_values(config.delegate_api_url.as_deref(), Some(&config.delegate_timeout_ms.to_string()))?
        .with_signing_secret(config.hooks.signing_secret.as_deref())?;
    let http = HttpDelegate::from_config(&settings)?;
    let delegate: Arc<dyn Delegate> = if http.is_configured() {
        tracing::info!(endpoint = http.endpoint(), "Orcade's delegate calls go to the delegate system");
        Arc::new(http)
    } else {
        Arc::new(LocalDelegate::new(platform.inbox.clone()))
    };
    let mut ports = Ports::new(store, orcade_hooks(platform.remote.clone()), Arc::new(evaluations), Arc::new(deliveries), delegate.clone());
    ports.resolutions = Arc::new(resolutions);
    ports.scheduler = Arc::new(LocalTimers::new(close_timers));
    let leases = Settings::with_leases(chrono::Duration::milliseconds(config.claim_lease_ms.max(1) as i64), settings.timeout);
    let orcade = Arc::new(Orcade::new(ports, leases));
    let routes = match config.orcade_spec_routes_only {
        true => agora_orcade_api::spec_routes(orcade.clone()),
        false => agora_orcade_api::routes(orcade.clone()),
    };

    let retry_delay = Duration::from_millis(config.retry_delay_ms);
    let tasks = vec![
        tokio::spawn(queue::run_worker(Arc::new(orcade.evaluation_work()), pending_evaluations, retry_delay)),
        tokio::spawn(queue::run_worker(Arc::new(orcade.delivery_work()), pending_deliveries, retry_delay)),
        tokio::spawn(queue::run_worker(Arc::new(close_work(orcade.clone())), due_closes, retry_delay)),
        tokio::spawn(run_sweep(orcade.clone(), Duration::from_millis(config.sweep_interval_ms.max(1)))),
    ];
    Ok(Wired { orcade, delegate, routes, tasks })
}

/// Closes the job a due close timer names, if it is still open and due; a store error is retried.
fn close_work(orcade: Arc<Orcade>) -> TimerWork {
    TimerWork::new("bid_job_id", move |id| {
        let orcade = orcade.clone();
        async move {
            match orcade.closer().close_job_if_due(&id).await {
                Ok(_) => WorkOutcome::Done,
                Err(e) => WorkOutcome::Retry(e.to_string()),
            }
        }
    })
}

/// The backstop: closes due open jobs whose timer did not, then requests again every stalled
/// evaluation, every `every`.
async fn run_sweep(orcade: Arc<Orcade>, every: Duration) {
    crate::run_every(every, || async {
        if let Err(e) = orcade.sweep().await {
            tracing::error!(error = %e, "Orcade sweep failed");
        }
    })
    .await
}
