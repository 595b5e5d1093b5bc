//! The local server: the same handlers as the Lambda functions behind one HTTP server, plus
//! the start sweep, the evaluation queue and the message inbox, in one process.

pub mod config;
pub mod inbox;
pub mod live;
pub mod queue;
pub mod registry;

pub use config::Config;

use agora_hooks::HookDispatcher;
use agora_voting_core::{Ports, Settings, SystemClock, Voting};
use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};
use inbox::LocalInbox;
use live::{ChangeHub, LiveState};
use queue::InProcessQueue;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// File name of the embedded database inside the data folder.
pub const DB_FILE: &str = "agora.sqlite";

/// A running local server.
pub struct Running {
    pub addr: SocketAddr,
    pub voting: Arc<Voting>,
    pub inbox: LocalInbox,
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Running {
    /// Waits until the server stops (it runs until the process ends).
    pub async fn wait(mut self) {
        if let Some(server) = self.tasks.pop() {
            let _ = server.await;
        }
    }

    /// Stops the server, the sweep and the worker.
    pub fn stop(&self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Opens the store, wires the ports, and starts the HTTP server, the sweep and the evaluation
/// worker in the current tokio runtime.
pub async fn start(config: &Config) -> Result<Running, Box<dyn std::error::Error + Send + Sync>> {
    std::fs::create_dir_all(&config.data_dir)?;
    let store = agora_runtime::open_store(config.store, config.data_dir.join(DB_FILE), config.store_namespace.as_deref()).await?;
    let inbox = LocalInbox::default();
    let hub = ChangeHub::default();
    let (queue, queue_rx) = InProcessQueue::new();

    // Bound first: with the local registry on, the hooks call this server's own address.
    let listener = tokio::net::TcpListener::bind((config.bind.as_str(), config.port)).await?;
    let addr = listener.local_addr()?;
    let mut hooks_config = config.hooks.clone();
    hooks_config.timeout = Duration::from_millis(config.hook_timeout_ms);
    let local_registry = registry::has_content(&config.functions_dir);
    if local_registry {
        let own =
            format!("http://{}:{}", if addr.ip().is_unspecified() { "127.0.0.1".to_owned() } else { addr.ip().to_string() }, addr.port());
        hooks_config.functions_registry_url.get_or_insert_with(|| own.clone());
        hooks_config.workflows_api_url.get_or_insert(own);
        hooks_config.executor_id.get_or_insert_with(|| "local".into());
    } else if !config.functions_dir.as_os_str().is_empty() && config.functions_dir != std::path::Path::new("infra/local") {
        tracing::warn!(dir = %config.functions_dir.display(), "functions dir has no functions/ or workflows/ folder; local registry off");
    }
    let hooks = HookDispatcher::new(&hooks_config)?;
    let ports = Ports {
        store,
        hooks: Arc::new(hooks.clone()),
        publisher: Arc::new(inbox.clone()),
        queue: Arc::new(queue),
        clock: Arc::new(SystemClock),
        changes: Arc::new(hub.clone()),
        scheduler: Arc::new(agora_voting_core::SweepOnly),
    };
    let voting = Arc::new(Voting::new(ports, Settings::default()));

    let app = agora_voting_api::router(voting.clone())
        .merge(Router::new().route("/local/inbox/{subject}", get(read_inbox)).with_state(inbox.clone()))
        .merge(Router::new().route("/live-stream", get(live::live_stream)).with_state(LiveState { voting: voting.clone(), hub }));
    let app = if local_registry { app.merge(registry::router(config.functions_dir.clone(), hooks.policy_runner())) } else { app };
    tracing::info!(
        %addr,
        data_dir = %config.data_dir.display(),
        functions_dir = local_registry.then(|| config.functions_dir.display().to_string()),
        "agora-local listening"
    );

    let worker = tokio::spawn(queue::run_worker(voting.clone(), queue_rx, Duration::from_millis(config.retry_delay_ms)));
    let sweep = tokio::spawn(run_sweep(voting.clone(), Duration::from_millis(config.sweep_interval_ms.max(1))));
    let server = tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            tracing::error!(error = %e, "HTTP server stopped");
        }
    });
    let mut tasks = vec![worker, sweep];
    if let Some(url) = &config.nats_intake_url {
        let client = agora_nats::connect(url).await?;
        tracing::info!(url = %url, subject = agora_nats::VOTE_SUBJECT, "taking votes from NATS");
        let voting = voting.clone();
        tasks.push(tokio::spawn(async move {
            if let Err(e) = agora_nats::run_vote_intake(client, voting).await {
                tracing::error!(error = %e, "NATS vote intake stopped");
            }
        }));
    }
    tasks.push(server);
    Ok(Running { addr, voting, inbox, tasks })
}

async fn read_inbox(State(inbox): State<LocalInbox>, Path(subject): Path<String>) -> Json<Vec<serde_json::Value>> {
    Json(inbox.messages(&subject))
}

/// Starts due tasks every `every`.
async fn run_sweep(voting: Arc<Voting>, every: Duration) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if let Err(e) = voting.start_due_tasks().await {
            tracing::error!(error = %e, "start sweep failed");
        }
    }
}
