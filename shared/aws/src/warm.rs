//! Warm-up: a function opens its connections during init, not on its first request.
//!
//! A Lambda function's init (its `main` up to the runtime's first `GET /invocation/next`) runs
//! before any event, at full CPU, and is not billed against a request's latency; the first
//! request after a cold start pays whatever init left undone. Each client that reaches a
//! server over TLS (an SDK client of SQS, EventBridge, Scheduler, API Gateway's management
//! API, the store) opens its connection on its first call. So each function, once it has built
//! its clients, hands them to a [`Warmup`], which makes one cheap call through each, all at once,
//! and leaves every connection idle in its client's pool for the first request to reuse.
//!
//! The SDK clients one [`aws_config::SdkConfig`] builds share its HTTP client, hence one
//! connection pool keyed by host: SQS, EventBridge and Scheduler each keep their own
//! connection (their hosts differ on AWS; against one local endpoint they share the pool, and
//! each call at once opens a connection of its own). A function must build all its clients from
//! one `SdkConfig` (one [`crate::config::load`]) for the warmed connections to be the ones its
//! requests use. The DynamoDB store builds its own client, with a pool of its own, warmed
//! through the store.
//!
//! Warm-up never fails init and never stalls it: each call is bounded by
//! [`WARM_TIMEOUT_ENV`] (default [`DEFAULT_TIMEOUT`]) and a call that fails or runs out of time
//! is a `warn` in the log (the first request then connects, as it would have without warm-up).
//! A call the server refused (a missing permission) still opened the connection, but is logged
//! too: the template should grant it.
//!
//! | Client | Call | Permission |
//! |---|---|---|
//! | [`crate::SqsQueue`] | `GetQueueAttributes` (`QueueArn`) on its queue | `sqs:GetQueueAttributes` |
//! | [`crate::EventBridgePublisher`] | `DescribeEventBus` on its bus | `events:DescribeEventBus` |
//! | [`crate::OneShotScheduler`] | `GetScheduleGroup` on its group | `scheduler:GetScheduleGroup` |
//! | [`crate::ApiGatewayConnections`] | `GetConnection` of a connection that does not exist (410) | `execute-api:ManageConnections`, which sending needs already |
//! | [`crate::Timers`] ([`crate::Timers::warm_into`]) | its timer queue's and its scheduler's | as above |
//! | a store (`agora_runtime::StoreBackend::warm`) | counter reads, as many at once as the store's calls make (DynamoDB: a `GetItem` per index shard) | the store's read (`dynamodb:GetItem`) |

use async_trait::async_trait;
use futures::future::join_all;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Environment variable: how long one warm-up call may take, in milliseconds; `0` turns
/// warm-up off.
pub const WARM_TIMEOUT_ENV: &str = "AGORA_WARM_TIMEOUT_MS";
/// How long one warm-up call may take unless [`WARM_TIMEOUT_ENV`] says otherwise: well above a
/// TLS handshake within a region, well below Lambda's 10-second init limit.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(1500);

/// A client that can open its connection ahead of its first use, with one cheap call.
#[async_trait]
pub trait Warm: Send + Sync {
    /// What the client reaches, for the log (`sqs <queue url>`).
    fn target(&self) -> String;

    /// One cheap call that leaves the client's connection open in its pool. An error says why
    /// the call failed; a call the server answered with an error still opened the connection.
    async fn warm(&self) -> Result<(), String>;
}

/// The clients a function warms during init, all at once ([`Warmup::run`]).
#[derive(Default, Clone)]
pub struct Warmup {
    clients: Vec<Arc<dyn Warm>>,
}

impl std::fmt::Debug for Warmup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.clients.iter().map(|c| c.target())).finish()
    }
}

impl Warmup {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a client (a clone of it: the clients are cheap handles on shared pools).
    pub fn add(&mut self, client: impl Warm + 'static) -> &mut Self {
        self.clients.push(Arc::new(client));
        self
    }

    /// Adds a client held behind an `Arc`.
    pub fn add_arc(&mut self, client: Arc<dyn Warm>) -> &mut Self {
        self.clients.push(client);
        self
    }

    /// Adds a client when there is one.
    pub fn add_optional(&mut self, client: Option<impl Warm + 'static>) -> &mut Self {
        if let Some(client) = client {
            self.add(client);
        }
        self
    }

    /// How many clients there are to warm.
    pub fn len(&self) -> usize {
        self.clients.len()
    }

    pub fn is_empty(&self) -> bool {
        self.clients.is_empty()
    }

    /// Warms every client at once, each call bounded by [`WARM_TIMEOUT_ENV`]; never fails.
    pub async fn run(self) {
        let timeout = timeout_from_env();
        if timeout.is_zero() || self.clients.is_empty() {
            return;
        }
        let started = Instant::now();
        let calls = self.clients.iter().map(|client| async move {
            let target = client.target();
            match tokio::time::timeout(timeout, client.warm()).await {
                Ok(Ok(())) => {
                    tracing::debug!(target = %target, ms = started.elapsed().as_millis() as u64, "warmed");
                    true
                }
                Ok(Err(reason)) => {
                    tracing::warn!(target = %target, %reason, "warm-up call failed; the first request may connect");
                    false
                }
                Err(_) => {
                    tracing::warn!(target = %target, timeout_ms = timeout.as_millis() as u64, "warm-up call timed out; the first request may connect");
                    false
                }
            }
        });
        let warmed = join_all(calls).await.into_iter().filter(|ok| *ok).count();
        tracing::info!(warmed, of = self.clients.len(), ms = started.elapsed().as_millis() as u64, "connections warmed during init");
    }
}

/// [`WARM_TIMEOUT_ENV`], else [`DEFAULT_TIMEOUT`].
pub fn timeout_from_env() -> Duration {
    match crate::config::env_var(WARM_TIMEOUT_ENV).map(|v| v.parse::<u64>()) {
        Some(Ok(ms)) => Duration::from_millis(ms),
        Some(Err(_)) => {
            tracing::warn!(variable = WARM_TIMEOUT_ENV, "not a whole number of milliseconds; using the default");
            DEFAULT_TIMEOUT
        }
        None => DEFAULT_TIMEOUT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Slow(Duration, Arc<AtomicUsize>);

    #[async_trait]
    impl Warm for Slow {
        fn target(&self) -> String {
            format!("slow {:?}", self.0)
        }
        async fn warm(&self) -> Result<(), String> {
            tokio::time::sleep(self.0).await;
            self.1.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }
    }

    struct Failing;

    #[async_trait]
    impl Warm for Failing {
        fn target(&self) -> String {
            "failing".into()
        }
        async fn warm(&self) -> Result<(), String> {
            Err("refused".into())
        }
    }

    #[tokio::test]
    async fn warm_up_runs_at_once_and_never_waits_past_its_timeout() {
        let done = Arc::new(AtomicUsize::new(0));
        let mut warmup = Warmup::new();
        warmup.add(Slow(Duration::from_millis(50), done.clone())).add(Slow(Duration::from_millis(50), done.clone())).add(Failing);
        warmup.add(Slow(Duration::from_secs(60), done.clone()));
        let started = Instant::now();
        warmup.run().await;
        let took = started.elapsed();
        assert_eq!(done.load(Ordering::SeqCst), 2, "the two quick ones ran");
        assert!(took < DEFAULT_TIMEOUT + Duration::from_millis(500), "bounded by the timeout: {took:?}");
        assert!(took >= DEFAULT_TIMEOUT, "the slow one was waited for up to the timeout: {took:?}");
    }
}
