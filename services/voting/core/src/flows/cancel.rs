//! Cancelling a task: a `scheduled` or `started` task becomes `cancelled`, takes no
//! more votes and is never evaluated.
//!
//! The cancel and the evaluator exclude each other with the evaluator's own claim
//! (`evaluate:<id>`, [`crate::trigger::evaluate_claim`]): an evaluation under way holds it, so the
//! cancel answers [`VotingError::EvaluationUnderWay`] and the evaluation finishes; a cancel
//! holding it makes a concurrent evaluator answer `InProgress`, and any later one finds the task
//! `cancelled` (not `started`) and does nothing. The status changes by a conditional write
//! (`scheduled` or `started` → `cancelled`), so a task ends either cancelled with no report or
//! complete, never both. A start or deadline timer that fires later finds the task not due and
//! does nothing.

use crate::error::VotingError;
use crate::ports::{ChangeListener, Clock};
use crate::repo::Repo;
use crate::tasks::StartedTasks;
use agora_store::claims::Claims;
use agora_store::DocumentStore;
use agora_voting_schema::{SocialTaskCoreData, TaskStatus};
use std::sync::Arc;

/// The cancel flow: the store and its claims, the clock, the change listener (subscribers of the
/// live stream get a final update), and the vote path's started tasks, which forget the task.
#[derive(Clone)]
pub struct Canceller {
    repo: Repo,
    claims: Claims,
    clock: Arc<dyn Clock>,
    changes: Arc<dyn ChangeListener>,
    tasks: Option<StartedTasks>,
    /// How long the cancel may hold the evaluator's claim.
    lease: chrono::Duration,
}

impl Canceller {
    pub fn new(store: Arc<dyn DocumentStore>, clock: Arc<dyn Clock>, changes: Arc<dyn ChangeListener>, lease: chrono::Duration) -> Self {
        Self { repo: Repo::new(store.clone()), claims: Claims::new(store), clock, changes, tasks: None, lease }
    }

    /// This canceller, making the vote path of the same process (`tasks`) forget a task it
    /// cancels, so that the next vote reads it `cancelled`.
    pub fn with_started_tasks(mut self, tasks: StartedTasks) -> Self {
        self.tasks = Some(tasks);
        self
    }

    /// Who created the task (who may cancel it, beside an operator).
    pub async fn creator_of(&self, social_task_id: &str) -> Result<String, VotingError> {
        let task = self.repo.task(social_task_id).await?.ok_or(VotingError::UnknownTask)?;
        Ok(task.created_by_subject_id)
    }

    /// Cancels the task. Err: no such task, it is complete or cancelled already, it never starts
    /// (another status), or its evaluation is under way.
    #[tracing::instrument(skip_all, fields(social_task_id = social_task_id))]
    pub async fn cancel_task(&self, social_task_id: &str) -> Result<(), VotingError> {
        let task = self.repo.task(social_task_id).await?.ok_or(VotingError::UnknownTask)?;
        cancellable(&task)?;
        let claim_key = crate::trigger::evaluate_claim(social_task_id);
        let Some(_held) = self.claims.take(&claim_key, self.clock.now(), Some(self.lease)).await? else {
            tracing::info!("cancel refused: the evaluation is under way");
            return Err(VotingError::EvaluationUnderWay);
        };
        let cancelled = self.repo.cancel(social_task_id).await;
        // Given back either way: an evaluator that takes it now finds the task not `started`.
        self.claims.release(&claim_key).await?;
        if !cancelled? {
            // The status changed since it was read: say what it is now.
            let now = self.repo.task(social_task_id).await?.ok_or(VotingError::UnknownTask)?;
            cancellable(&now)?;
            return Err(VotingError::internal("the task is cancellable yet its cancel did not apply"));
        }
        if let Some(tasks) = &self.tasks {
            tasks.forget(social_task_id);
        }
        tracing::info!(was = ?task.status().map(TaskStatus::as_str), "task cancelled");
        if task.enable_live_streaming {
            self.changes.task_changed(social_task_id).await;
        }
        Ok(())
    }
}

/// A task may be cancelled while `scheduled` or `started`.
fn cancellable(task: &SocialTaskCoreData) -> Result<(), VotingError> {
    match task.status() {
        Some(TaskStatus::Scheduled | TaskStatus::Started) => Ok(()),
        Some(TaskStatus::Complete) => Err(VotingError::TaskComplete),
        Some(TaskStatus::Cancelled) => Err(VotingError::TaskCancelled),
        _ => Err(VotingError::TaskNotActive),
    }
}
