//! The local server: every service's handlers (the same as the Lambda functions') behind one
//! HTTP server, plus the platform's parts in process: the work queues, the sweeps, the message
//! inbox, the local delegate system, and a function registry and workflow API for local hooks.
//! One module per service wires it ([`voting`], [`orcade`], [`xchange`]); this one mounts their routes, each
//! with its own limits, and answers a path no route serves in the error shape of the service
//! whose paths it looks like. It serves the services' OpenAPI document at `GET /openapi.json`
//! ([`openapi`]).

pub mod admin;
pub mod auth;
pub mod config;
pub mod console;
pub mod dead_letters;
pub mod delegate;
pub mod error;
pub mod health;
pub mod inbox;
pub mod openapi;
pub mod orcade;
pub mod queue;
pub mod recovery;
pub mod registry;
pub mod serve;
pub mod timers;
pub mod voting;
pub mod xchange;

pub use config::Config;

use agora_hooks::Remote;
use agora_hooks_remote::RemoteHooks;
use agora_http::shell::{Mounted, Services};
use agora_orcade_core::Orcade;
use agora_voting_core::Voting;
use agora_xchange_core::Xchange;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use inbox::LocalInbox;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

/// The allocator of every program that runs the local server (`agora-local`, and the end-to-end
/// tests and benchmarks that start it in process, so that they measure what runs): mimalloc,
/// whose per-thread heaps serve a request's many small allocations without the locks and
/// consolidation of glibc's malloc, which took about a tenth of the server's CPU (its figures
/// beside glibc's: docs/benchmarks.md). Built without transparent huge pages (see the
/// workspace's `Cargo.toml`).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A running local server.
pub struct Running {
    pub addr: SocketAddr,
    pub voting: Arc<Voting>,
    pub orcade: Arc<Orcade>,
    pub xchange: Arc<Xchange>,
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

/// Errors of start-up.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The `agora-local` program: options from the command line and the environment, logs to
/// stderr, `agora-local listening on http://<addr>` on stdout once it serves, then serves until
/// the process ends. (The end-to-end crash tests run it as a child process and kill it.)
pub async fn run_from_command_line() -> Result<(), BoxError> {
    use clap::Parser;
    let config = Config::parse();
    init_logs(agora_runtime::env(LOG_FORMAT_ENV).as_deref())?;
    let running = start(&config).await?;
    println!("agora-local listening on http://{}", running.addr);
    running.wait().await;
    Ok(())
}

/// Environment variable: `json` for one JSON object per log line, with the fields of every span
/// it is in (`trace_id`, the flow's ids), as the Lambda functions log; `text` (the default) for
/// lines to read.
pub const LOG_FORMAT_ENV: &str = "AGORA_LOG_FORMAT";

/// Logs to stderr in `format` ([`LOG_FORMAT_ENV`]), level from `RUST_LOG` (default `info`).
fn init_logs(format: Option<&str>) -> Result<(), BoxError> {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into());
    let logs = tracing_subscriber::fmt().with_writer(std::io::stderr).with_env_filter(filter);
    match format {
        None | Some("text") => logs.init(),
        Some("json") => logs.json().with_current_span(false).with_span_list(true).init(),
        Some(other) => return Err(format!("{LOG_FORMAT_ENV} must be \"json\" or \"text\", got {other:?}").into()),
    }
    Ok(())
}

/// What every service shares on the local server: the message inbox and the remote hook modes
/// (with this server's own function registry and workflow API when it serves them).
pub struct Platform {
    pub inbox: LocalInbox,
    pub remote: Arc<dyn Remote>,
    /// The local server's own database ([`queue::WORK_DB`]): the durable work queues.
    pub work: Arc<dyn agora_store::DocumentStore>,
    /// The store every service's database opens on (one connection for all of them).
    pub backend: agora_runtime::StoreBackend,
    /// Every work queue of the server by name (where the dead letters go back to).
    pub queues: queue::Queues,
    /// The recovery from the previous run, done on each service's database as it opens.
    recovery: recovery::Recovery,
}

impl Platform {
    /// Opens the service database `db` (named `namespace` instead, when given) on the backend,
    /// with the leases the previous run held in it ended ([`recovery`]): a service opens its
    /// database before its queues, so that the work they replay takes its claims over at once.
    pub async fn open_database(
        &self,
        db: agora_store::DatabaseSpec,
        namespace: Option<&str>,
    ) -> Result<Arc<dyn agora_store::DocumentStore>, BoxError> {
        let name = namespace.unwrap_or(db.name()).to_owned();
        let store = self.backend.open(db, namespace).await?;
        self.recovery.release_claims(&name, store.clone()).await;
        Ok(store)
    }

    /// Opens the durable queue `name` on the server's own database ([`queue::DurableQueue::open`]:
    /// its work left over is replayed) and adds it to [`Platform::queues`].
    pub async fn queue(&self, name: &'static str) -> Result<(queue::DurableQueue, queue::Pending), BoxError> {
        let (queue, pending) = queue::DurableQueue::open(name, self.work.clone()).await?;
        self.queues.add(queue.clone());
        Ok((queue, pending))
    }
}

/// Wires the platform and every service, and starts the HTTP server and the services'
/// background work in the current tokio runtime.
pub async fn start(config: &Config) -> Result<Running, BoxError> {
    std::fs::create_dir_all(&config.data_dir)?;
    agora_http::body::body_limit_from_env()?;
    let verifier = auth::verifier(config).await?;
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
    let remote = RemoteHooks::new(&hooks_config)?;
    // The spec's default MongoDB (`mongodb://localhost:27017`) when neither MONGODB_URI nor MONGO_URL is set.
    let backend = agora_runtime::StoreBackend::connect(config.store, &config.data_dir, Some(agora_runtime::DEFAULT_MONGO_URL)).await?;
    // On MongoDB, a predecessor killed inside a transaction (a bid's, a vote's) left it open,
    // holding its counter until the server's transaction lifetime (60 s by default) ends it:
    // end it now, before this server's own work starts (the kill would abort that too). Only
    // here, and only when asked (`--end-abandoned-transactions`, on by default): the Lambda
    // functions share their user's sessions with their other live instances.
    if let (agora_runtime::StoreBackend::MongoDb(deployment), true) = (&backend, config.end_abandoned_transactions) {
        if let Err(e) = deployment.end_abandoned_transactions().await {
            tracing::warn!(error = %e, "could not end the transactions a previous run left open; they end with the server's transaction lifetime");
        }
    }
    let work = backend.open(queue::WORK_DB, config.store_namespace.as_deref()).await?;
    let recovery = recovery::Recovery::begin(work.clone()).await?;
    let platform = Platform {
        inbox: LocalInbox::default(),
        remote: Arc::new(remote.clone()),
        work,
        backend,
        queues: queue::Queues::default(),
        recovery,
    };

    let voting = voting::wire(&platform, config).await?;
    let (resolutions, outcomes) = xchange::outcome_queue(&platform).await?;
    let orcade = orcade::wire(&platform, config, resolutions).await?;
    let xchange = xchange::wire(&platform, config, &orcade.orcade, orcade.delegate.clone(), outcomes).await?;

    // The services, each answering its own paths' refusals in its own shape; voting's, the
    // first, answers every other path. A service more is a line more here.
    let services = Services::new([
        Mounted::new(&agora_voting_api::SHELL, voting.routes),
        Mounted::new(&agora_orcade_api::SHELL, orcade.routes),
        Mounted::new(&agora_xchange_api::SHELL, xchange.routes),
    ]);
    let mut own = inbox::router(platform.inbox.clone())
        .merge(admin::router(platform.work.clone(), platform.queues.clone()))
        .merge(health::router(platform.work.clone()))
        .merge(openapi::router())
        .merge(console::router(config));
    // Every service's database is open, and the previous run's leases in it ended.
    platform.recovery.finish().await;
    if local_registry {
        own = own.merge(registry::router(config.functions_dir.clone(), remote.policy_runner()));
    }
    let metrics = agora_telemetry::prometheus::install()?;
    let own = own.route("/metrics", get(move || render_metrics(metrics.clone())));
    // Each request in its trace and span, outside the caller's identification (which logs).
    let app = services.into_router(own).layer(axum::middleware::from_fn(agora_http::trace::trace_requests));
    let app = auth::Identify::new(app, verifier);
    tracing::info!(
        %addr,
        data_dir = %config.data_dir.display(),
        functions_dir = local_registry.then(|| config.functions_dir.display().to_string()),
        "agora-local listening"
    );
    let limits = serve::ReadLimits {
        header: Duration::from_millis(config.header_read_timeout_ms.max(1)),
        body: Duration::from_millis(config.body_read_timeout_ms.max(1)),
    };
    let server = tokio::spawn(serve::serve(listener, app, limits));
    let mut tasks = voting.tasks;
    tasks.extend(orcade.tasks);
    tasks.extend(xchange.tasks);
    tasks.push(server);
    Ok(Running { addr, voting: voting.voting, orcade: orcade.orcade, xchange: xchange.xchange, inbox: platform.inbox, tasks })
}

/// `GET /metrics`: every metric of the process as Prometheus text (`agora_telemetry::names`).
async fn render_metrics(metrics: agora_telemetry::prometheus::PrometheusHandle) -> Response {
    ([(axum::http::header::CONTENT_TYPE, agora_telemetry::prometheus::CONTENT_TYPE)], metrics.render()).into_response()
}

/// Runs `work` every `interval` for ever (a tick missed while it ran waits for the next).
pub(crate) async fn run_every<F: std::future::Future<Output = ()>>(interval: Duration, mut work: impl FnMut() -> F) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        work().await;
    }
}
