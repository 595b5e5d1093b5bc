//! Xchange on the local server: its store (database `exchange_{EXCHANGE_ID}`), its flows over
//! the local platform, its routes (§3), the durable assignment queue and its worker, and the
//! bidding-outcome queue that Orcade's resolution events go to. Bidding mode uses the Orcade of
//! this server, in process, unless `ORCADE_URL` names another. Delegate calls go where
//! Orcade's go (`DELEGATE_API_URL`, else the local delegate and its inbox).

use crate::queue::{self, DurableQueue, Pending};
use crate::{Config, Platform};
use agora_orcade_core::Orcade;
use agora_ports::Delegate;
use agora_runtime::StoreKind;
use agora_xchange_bidding::{HttpOrcade, InProcessOrcade};
use agora_xchange_core::{xchange_hooks, Bidding, BiddingLimits, Ports, Settings, Xchange};
use agora_xchange_schema::{check_exchange_id, exchange_db};
use axum::Router;
use std::sync::Arc;
use std::time::Duration;

/// The queue Orcade's resolution events go to.
pub const OUTCOME_QUEUE: &str = "xchange-bidding-outcome";

/// Xchange, wired: the service, its routes (without fallbacks) and its background tasks.
pub struct Wired {
    pub xchange: Arc<Xchange>,
    pub routes: Router,
    pub tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// Opens the queue of Orcade's resolution events (Orcade is wired with its sending end).
pub async fn outcome_queue(platform: &Platform) -> Result<(DurableQueue, Pending), crate::BoxError> {
    platform.queue(OUTCOME_QUEUE).await
}

/// The exchange's database name on a store shared by several servers (a namespace): on
/// MongoDB the namespace is the database, so the exchange's gets its own beside it.
fn namespace(config: &Config, exchange_id: &str) -> Option<String> {
    let ns = config.store_namespace.as_deref()?;
    Some(match config.store {
        StoreKind::MongoDb => format!("{ns}_exchange_{exchange_id}"),
        _ => ns.to_owned(),
    })
}

pub async fn wire(
    platform: &Platform,
    config: &Config,
    orcade: &Orcade,
    delegate: Arc<dyn Delegate>,
    outcomes: Pending,
) -> Result<Wired, crate::BoxError> {
    let exchange_id = check_exchange_id(&config.exchange_id)?;
    let db = exchange_db(exchange_id);
    let store = platform.open_database(db, namespace(config, exchange_id).as_deref()).await?;
    let (assignments, pending_assignments) = platform.queue("xchange-assignment").await?;
    let bidding: Arc<dyn Bidding> = match config.orcade_url.as_deref().map(str::trim).filter(|u| !u.is_empty()) {
        Some(url) => {
            let http = HttpOrcade::new(url, Duration::from_secs(30))?;
            tracing::info!(orcade = http.base(), "Xchange's bidding mode uses the Orcade at ORCADE_URL");
            Arc::new(http)
        }
        None => Arc::new(InProcessOrcade::new(orcade.creator().clone(), orcade.queries().clone())),
    };
    let mut ports = Ports::new(store, xchange_hooks(platform.remote.clone()), Arc::new(assignments), delegate, bidding);
    ports.exchange_id = exchange_id.to_owned();
    let limits = BiddingLimits { timeout: Duration::from_millis(config.bidding_timeout_ms.max(1)), ..BiddingLimits::default() };
    let xchange = Arc::new(Xchange::new(ports, Settings::new(Duration::from_millis(config.delegate_timeout_ms), limits)));
    let routes = agora_xchange_api::routes(xchange.clone());
    let retry_delay = Duration::from_millis(config.retry_delay_ms);
    let tasks = vec![
        tokio::spawn(queue::run_worker(Arc::new(xchange.assignment_work()), pending_assignments, retry_delay)),
        tokio::spawn(queue::run_worker(Arc::new(xchange.outcome_work()), outcomes, retry_delay)),
    ];
    tracing::info!(exchange_id, "Xchange wired");
    Ok(Wired { xchange, routes, tasks })
}
