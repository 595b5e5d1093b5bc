//! Create and parse a task (§3.1, §3.2).

use crate::error::VotingError;
use crate::service::Voting;
use agora_store::StoreError;
use agora_voting_schema::{new_task_id, parse_create_request, FunctionSpec, Hook, TaskBundle};
use serde_json::Value;

/// Attempts at a fresh id when a generated one collides (one in four billion).
const ID_ATTEMPTS: usize = 4;

impl Voting {
    /// Validates a create request and stores the task's three documents together.
    /// Returns the new `social_task_id`.
    pub async fn create_task(&self, body: &Value) -> Result<String, VotingError> {
        for _ in 0..ID_ATTEMPTS {
            let bundle = self.parse_task(body)?;
            match self.repo.insert_bundle(&bundle).await {
                Ok(()) => {
                    tracing::info!(social_task_id = %bundle.task.social_task_id, access = %bundle.task.social_task_access_type, "task created");
                    self.schedule_start(&bundle).await;
                    return Ok(bundle.task.social_task_id);
                }
                Err(StoreError::Duplicate { .. }) => continue,
                Err(e) => return Err(e.into()),
            }
        }
        Err(VotingError::Internal("could not generate an unused social_task_id".into()))
    }

    /// Asks for a one-shot start at `scheduled_time`. A failure is logged, not returned: the
    /// sweep starts the task anyway.
    async fn schedule_start(&self, b: &TaskBundle) {
        let task = &b.task;
        let (Some(at), Some(agora_voting_schema::status::SCHEDULED)) = (task.scheduled_time, task.status()) else { return };
        if let Err(e) = self.ports.scheduler.schedule_start(&task.social_task_id, at).await {
            tracing::warn!(social_task_id = %task.social_task_id, error = %e, "one-shot start not scheduled; the sweep will start the task");
        }
    }

    /// Validates a create request without storing it: the documents as they would be stored.
    pub fn parse_task(&self, body: &Value) -> Result<TaskBundle, VotingError> {
        let bundle = parse_create_request(body, &new_task_id()).map_err(|e| VotingError::Invalid(e.to_string()))?;
        self.check_hooks(&bundle)?;
        Ok(bundle)
    }

    /// Refuses, at creation, a spec naming a mode or rule this deployment cannot run.
    fn check_hooks(&self, b: &TaskBundle) -> Result<(), VotingError> {
        let specs: [(&str, Hook, &FunctionSpec); 5] = [
            ("subject_spec.voting_request", Hook::Invitation, &b.subject_spec.voting_message_request_creator),
            ("evaluation_spec.voting_pqt", Hook::Pqt, &b.evaluation_input.voting_pqt),
            ("evaluation_spec.evaluation", Hook::ChoiceEvaluation, &b.evaluation_input.choice_evaluation),
            ("evaluation_spec.tie_breaker", Hook::TieBreaker, &b.evaluation_input.tie_breaker),
            ("evaluation_spec.post_award", Hook::PostAward, &b.evaluation_input.post_awarding),
        ];
        let problems: Vec<String> = specs
            .iter()
            .filter(|(_, _, spec)| !spec.is_empty())
            .filter_map(|(path, hook, spec)| self.ports.hooks.check(*hook, spec).err().map(|e| format!("{path}: {e}")))
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(VotingError::Invalid(problems.join("; ")))
        }
    }
}
