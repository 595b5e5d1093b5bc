//! The local server: every service's handlers (the same as the Lambda functions') behind one
//! HTTP server, plus the platform's parts in process: the work queues, the sweeps, the message
//! inbox, the local delegate system, and a function registry and workflow API for local hooks.
//! One module per service wires it ([`voting`], [`orcade`], [`xchange`]); this one mounts their routes, each
//! with its own limits, and answers a path no route serves in the error shape of the service
//! whose paths it looks like.

pub mod auth;
pub mod config;
pub mod delegate;
pub mod inbox;
pub mod orcade;
pub mod queue;
pub mod registry;
pub mod serve;
pub mod timers;
pub mod voting;
pub mod xchange;

pub use config::Config;

use agora_hooks::Remote;
use agora_hooks_remote::RemoteHooks;
use agora_http::access::{Access, Identity};
use agora_orcade_core::Orcade;
use agora_voting_core::Voting;
use agora_xchange_core::Xchange;
use axum::extract::{Path, Request, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
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
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .init();
    let running = start(&config).await?;
    println!("agora-local listening on http://{}", running.addr);
    running.wait().await;
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
    let platform = Platform { inbox: LocalInbox::default(), remote: Arc::new(remote.clone()), work, backend };

    let voting = voting::wire(&platform, config).await?;
    let (resolutions, outcomes) = xchange::outcome_queue(&platform).await?;
    let orcade = orcade::wire(&platform, config, resolutions).await?;
    let xchange = xchange::wire(&platform, config, &orcade.orcade, orcade.delegate.clone(), outcomes).await?;

    let mut app = agora_voting_api::with_limits(voting.routes)
        .merge(orcade.routes)
        .merge(xchange.routes)
        .merge(Router::new().route("/local/inbox/{subject}", get(read_inbox)).with_state(platform.inbox.clone()));
    if local_registry {
        app = app.merge(registry::router(config.functions_dir.clone(), remote.policy_runner()));
    }
    let app = auth::Identify::new(app.fallback(no_route).method_not_allowed_fallback(wrong_method), verifier);
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

/// A subject's messages: with authentication on, for that subject or an operator only (the
/// services' rule, [`Access::act_as`]), refused in voting's error shape.
async fn read_inbox(State(inbox): State<LocalInbox>, identity: Option<axum::Extension<Identity>>, Path(subject): Path<String>) -> Response {
    let refuse = |(status, message): agora_http::body::Refusal| (status, Json(serde_json::json!({ "error": message }))).into_response();
    let access = match identity {
        Some(axum::Extension(Identity::Refused(error))) => {
            return agora_http::access::with_challenge(refuse(agora_http::access::unauthorized(&error)), &error)
        }
        Some(axum::Extension(Identity::Caller(caller))) => Access::of(caller),
        None => Access::trusted(),
    };
    match access.act_as("inbox", &subject) {
        Ok(()) => Json(inbox.messages(&subject)).into_response(),
        Err(refusal) => refuse(refusal),
    }
}

/// The service whose error shape answers a path: Orcade's and Xchange's have theirs, every
/// other path gets voting's.
#[derive(Clone, Copy)]
enum Shape {
    Voting,
    Orcade,
    Xchange,
}

fn shape_of(path: &str) -> Shape {
    if orcade::serves(path) {
        Shape::Orcade
    } else if agora_xchange_api::serves(path) {
        Shape::Xchange
    } else {
        Shape::Voting
    }
}

/// A path no route serves: a head over the limits is refused as such, else a 404 in the error
/// shape of the service the path belongs to (voting's for the others).
async fn no_route(request: Request) -> Response {
    let shape = shape_of(request.uri().path());
    let Some((status, message)) = agora_http::limits::head_problem(&request) else {
        let (method, uri) = (request.method().clone(), request.uri().clone());
        return match shape {
            Shape::Orcade => agora_orcade_api::no_route(method, uri).await,
            Shape::Xchange => agora_xchange_api::no_route(method, uri).await,
            Shape::Voting => agora_voting_api::no_route(method, uri).await,
        };
    };
    match shape {
        Shape::Orcade => agora_orcade_api::ApiError::with_status(status, message).into_response(),
        Shape::Xchange => agora_xchange_api::ApiError::with_status(status, message).into_response(),
        Shape::Voting => agora_voting_api::ApiError::with_status(status, message).into_response(),
    }
}

/// A method the path does not take: a 405 in the error shape of the path's service.
async fn wrong_method(method: Method, uri: axum::http::Uri) -> Response {
    match shape_of(uri.path()) {
        Shape::Orcade => agora_orcade_api::wrong_method(method, uri).await,
        Shape::Xchange => agora_xchange_api::wrong_method(method, uri).await,
        Shape::Voting => agora_voting_api::wrong_method(method, uri).await,
    }
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
