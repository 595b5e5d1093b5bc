//! Voting's hooks on the platform's runner: the builtin rules of `agora-voting-rules`, and the
//! output contract of each hook (a PQT's output holds `qualified`).

use agora_hooks::{Builtins, Hooks, Remote};
use agora_voting_schema::{Hook, HookInput};
use serde_json::Value;
use std::sync::Arc;

/// The hook runner of the voting flows.
pub type VotingHooks = Hooks<VotingBuiltins>;

/// Voting's builtin catalogue and hook contracts.
#[derive(Debug, Clone, Copy, Default)]
pub struct VotingBuiltins;

impl Builtins for VotingBuiltins {
    type Hook = Hook;
    type Input<'a> = HookInput<'a>;

    fn hook_name(&self, hook: Hook) -> &'static str {
        hook.output_key()
    }

    fn check(&self, hook: Hook, name: &str) -> Result<(), String> {
        agora_voting_rules::check(hook, name)
    }

    fn run(&self, hook: Hook, name: &str, parameters: &Value, input: &HookInput<'_>) -> Result<Value, String> {
        agora_voting_rules::run(hook, name, parameters, input).map_err(|e| e.to_string())
    }

    fn check_output(&self, hook: Hook, output: &Value) -> Result<(), String> {
        if hook == Hook::Pqt && output.get("qualified").is_none() {
            return Err(format!("PQT output has no \"qualified\": {}", agora_hooks::truncate(&output.to_string())));
        }
        Ok(())
    }
}

/// Voting's hooks over `remote`. Stateful registry deployments are named after
/// `social_choice_id` (the deployment's `SOCIAL_CHOICE_ID`, voting §4) when given, else after
/// the task.
pub fn voting_hooks(remote: Arc<dyn Remote>, social_choice_id: Option<String>) -> VotingHooks {
    Hooks::new(VotingBuiltins, remote).with_deployment_id(social_choice_id)
}
