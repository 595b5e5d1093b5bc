//! The ports the voting flows run over: the platform's (clock, publisher, work queue, one-shot
//! schedules, connection gateway; the hook runner of `agora-hooks`), and voting's own change
//! listener, which drives the live stream.

use async_trait::async_trait;

pub use agora_hooks::HookError;
pub use agora_ports::{
    Clock, ConnectionGateway, GatewayError, NoSchedules, OneShotSchedules, PublishError, Publisher, QueueError, ScheduleError, SystemClock,
    WorkHandler, WorkOutcome, WorkQueue,
};

/// Told when a task that streams live (`enable_live_streaming`) changes: a vote stored, its
/// status changed. Drives the live stream's pushes (an in-process fan-out locally, a message on
/// the live queue in AWS: [`crate::live::QueuedChanges`]). A listener must not fail the flow: it
/// logs what it could not do.
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
