//! Parse a task (§3.2): a create request validated, and its hooks checked against what this
//! deployment can run, without storing anything. `parse-task` needs nothing else: no store, no
//! queue.

use crate::error::VotingError;
use crate::hooks::VotingHooks;
use agora_voting_schema::{new_task_id, parse_create_request, FunctionSpec, Hook, TaskBundle};
use serde_json::Value;

/// The parse flow: its only dependency is the hook runner (to check the specs).
#[derive(Clone)]
pub struct TaskParser {
    hooks: VotingHooks,
}

impl TaskParser {
    pub fn new(hooks: VotingHooks) -> Self {
        Self { hooks }
    }

    /// Validates a create request without storing it: the documents as they would be stored.
    pub fn parse_task(&self, body: &Value) -> Result<TaskBundle, VotingError> {
        let bundle = parse_create_request(body, &new_task_id()).map_err(VotingError::InvalidTask)?;
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
            .filter_map(|(path, hook, spec)| self.hooks.check(*hook, spec).err().map(|e| format!("{path}: {e}")))
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(VotingError::UnavailableHooks(problems))
        }
    }
}
