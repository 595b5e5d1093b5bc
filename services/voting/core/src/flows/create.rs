//! Create a task (§3.1): parsed by [`crate::flows::parse::TaskParser`], stored, its start scheduled.

use crate::error::VotingError;
use crate::flows::parse::TaskParser;
use crate::messages::{start_request, start_schedule_name};
use crate::ports::OneShotSchedules;
use crate::repo::Repo;
use agora_store::StoreError;
use agora_voting_schema::TaskBundle;
use agora_voting_schema::TaskStatus;
use serde_json::Value;
use std::sync::Arc;

/// Attempts at a fresh id when a generated one collides (one in four billion).
const ID_ATTEMPTS: usize = 4;

/// The create flow: the parser, the store, and one-shot start schedules.
#[derive(Clone)]
pub struct TaskCreator {
    parser: TaskParser,
    repo: Repo,
    schedules: Arc<dyn OneShotSchedules>,
}

impl TaskCreator {
    pub fn new(parser: TaskParser, repo: Repo, schedules: Arc<dyn OneShotSchedules>) -> Self {
        Self { parser, repo, schedules }
    }

    /// Validates a create request and stores the task's three documents together.
    /// Returns the new `social_task_id` (on the flow's span once the request parses).
    #[tracing::instrument(skip_all, fields(social_task_id = tracing::field::Empty))]
    pub async fn create_task(&self, body: &Value) -> Result<String, VotingError> {
        for _ in 0..ID_ATTEMPTS {
            let bundle = self.parser.parse_task(body)?;
            tracing::Span::current().record("social_task_id", bundle.task.social_task_id.as_str());
            match self.repo.insert_bundle(&bundle).await {
                Ok(()) => {
                    tracing::info!(access = %bundle.task.social_task_access_type, "task created");
                    self.schedule_start(&bundle).await;
                    return Ok(bundle.task.social_task_id);
                }
                Err(StoreError::Duplicate { .. }) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(VotingError::internal("could not generate an unused social_task_id"))
    }

    /// Asks for a one-shot start at `scheduled_time`. A failure is logged, not returned: the
    /// sweep starts the task anyway.
    async fn schedule_start(&self, b: &TaskBundle) {
        let task = &b.task;
        let (Some(at), Some(TaskStatus::Scheduled)) = (task.scheduled_time, task.status()) else { return };
        let id = &task.social_task_id;
        if let Err(e) = self.schedules.schedule(&start_schedule_name(id), at, &start_request(id)).await {
            tracing::warn!(error = %e, "one-shot start not scheduled; the sweep will start the task");
        }
    }
}
