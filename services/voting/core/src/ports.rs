//! The small traits the flows run over. Each real part (store, hooks, messaging, queue, clock,
//! live stream) has its own adapter; the flows see only these.

use agora_voting_schema::{FunctionSpec, Hook, HookInput};
use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;
use std::time::Duration;

/// Why a hook produced no usable output. Every variant keeps the detail for the log.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HookError {
    /// The spec is `{}` where a hook is required.
    #[error("hook is not configured")]
    NotConfigured,
    /// The spec names a mode or rule this deployment cannot run.
    #[error("{0}")]
    Unavailable(String),
    /// The hook could not be reached (connection refused, DNS, TLS).
    #[error("hook unreachable: {0}")]
    Unreachable(String),
    /// The hook did not answer within its time limit.
    #[error("hook timed out after {0:?}")]
    Timeout(Duration),
    /// The hook answered with a non-2xx status.
    #[error("hook answered HTTP {status}: {body}")]
    Status { status: u16, body: String },
    /// The hook answered, but not with the output its contract requires.
    #[error("hook output is malformed: {0}")]
    Malformed(String),
    /// A builtin rule refused its input.
    #[error("hook rule failed: {0}")]
    Rule(String),
}

impl HookError {
    /// Whether running the same hook again may succeed (a timeout or an unreachable service may;
    /// a malformed output or an unknown rule will not).
    pub fn is_transient(&self) -> bool {
        match self {
            HookError::Unreachable(_) | HookError::Timeout(_) => true,
            HookError::Status { status, .. } => *status >= 500 || *status == 429,
            _ => false,
        }
    }
}

/// Runs hooks, whatever mode their spec names.
#[async_trait]
pub trait HookRunner: Send + Sync + 'static {
    /// Whether this deployment can run `spec` for `hook`; called at task creation so that a spec
    /// naming an unavailable mode or rule is refused then, not when it runs. `spec` is non-empty.
    fn check(&self, hook: Hook, spec: &FunctionSpec) -> Result<(), String>;

    /// Runs the hook and returns its output object.
    async fn run(&self, hook: Hook, spec: &FunctionSpec, input: &HookInput<'_>) -> Result<Value, HookError>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("publish to {address} failed: {reason}")]
pub struct PublishError {
    pub address: String,
    pub reason: String,
}

/// Sends a message (§5) to a subject.
#[async_trait]
pub trait Publisher: Send + Sync + 'static {
    async fn publish(&self, address: &str, message: &Value) -> Result<(), PublishError>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("evaluation request for {social_task_id} could not be queued: {reason}")]
pub struct QueueError {
    pub social_task_id: String,
    pub reason: String,
}

/// Where evaluation requests go (SQS in AWS, an in-process queue locally).
#[async_trait]
pub trait EvaluationQueue: Send + Sync + 'static {
    async fn request_evaluation(&self, social_task_id: &str) -> Result<(), QueueError>;
}

/// The time. A trait so tests can move it.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        agora_voting_schema::time::truncate_micros(Utc::now())
    }
}

/// Told when a task that streams live (`enable_live_streaming`) changes: a vote stored, its
/// status changed. Drives the live stream's pushes (an in-process fan-out locally, a message on
/// the live queue in AWS). A listener must not fail the flow: it logs what it could not do.
#[async_trait]
pub trait ChangeListener: Send + Sync + 'static {
    async fn task_changed(&self, social_task_id: &str);
}

/// A listener that ignores changes.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoChangeListener;

#[async_trait]
impl ChangeListener for NoChangeListener {
    async fn task_changed(&self, _social_task_id: &str) {}
}

/// Why a message could not be handed to a live-stream connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GatewayError {
    /// The client has left (API Gateway answers 410 Gone): forget its subscription.
    #[error("connection {0} is gone")]
    Gone(String),
    /// Anything else; the message is for the log.
    #[error("connection {connection_id}: {reason}")]
    Failed { connection_id: String, reason: String },
}

/// The connections of the live stream's WebSocket API, as a server that did not accept them
/// sees them (API Gateway's `@connections` management API in AWS).
#[async_trait]
pub trait ConnectionGateway: Send + Sync + 'static {
    /// Sends one text message to the client.
    async fn send(&self, connection_id: &str, message: &str) -> Result<(), GatewayError>;
    /// Closes the connection.
    async fn close(&self, connection_id: &str) -> Result<(), GatewayError>;
}

/// Carries the live stream's work between invocations (an SQS queue in AWS): refreshes due
/// later, and changes to push now.
#[async_trait]
pub trait LiveQueue: Send + Sync + 'static {
    /// Delivers `message` once `after` has passed (rounded as the queue can).
    async fn send_later(&self, message: &crate::live::LiveMessage, after: Duration) -> Result<(), LiveQueueError>;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("live-stream message could not be queued: {0}")]
pub struct LiveQueueError(pub String);

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("start of {social_task_id} could not be scheduled: {reason}")]
pub struct ScheduleError {
    pub social_task_id: String,
    pub reason: String,
}

/// Arranges for a task to be started at its `scheduled_time` (a one-shot EventBridge Scheduler
/// schedule in AWS). Optional: the periodic sweep starts every due task anyway, so a failure
/// here only delays the start until the next sweep.
#[async_trait]
pub trait StartScheduler: Send + Sync + 'static {
    async fn schedule_start(&self, social_task_id: &str, at: DateTime<Utc>) -> Result<(), ScheduleError>;
}

/// No one-shot schedules: the sweep alone starts tasks (the local server sweeps every second).
#[derive(Debug, Clone, Copy, Default)]
pub struct SweepOnly;

#[async_trait]
impl StartScheduler for SweepOnly {
    async fn schedule_start(&self, _social_task_id: &str, _at: DateTime<Utc>) -> Result<(), ScheduleError> {
        Ok(())
    }
}
