//! Orcade's hooks on the platform's runner: the builtins of `agora-orcade-rules`, and the output
//! contract of each hook (§4): a PQT's output holds a boolean `accepted`; an evaluator's holds
//! `status` `"resolved"` with a `winner_subject_id`, or `"no_valid_bids"`.
//!
//! §4 lets a function answer `{"data": {...}}`, read as its `data`. The runner's `http` mode
//! unwraps `data` already; the registry and Lambda modes hand over what the function answered.
//! So the contract is checked, and the flows read the output, through [`output_of`]: an object
//! whose `data` is an object and that lacks the hook's own key (`accepted`, `status`) is read as
//! its `data`.

use agora_hooks::{Builtins, Hooks, Remote};
use agora_orcade_schema::{Evaluation, EvaluatorInput, Hook, PqtInput, PqtVerdict};
use serde::Serialize;
use serde_json::Value;
use std::sync::Arc;

/// The hook runner of the Orcade flows.
pub type OrcadeHooks = Hooks<OrcadeBuiltins>;

/// What a hook receives: §4's input of that hook, serialized as it is (no wrapper).
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(untagged)]
pub enum OrcadeInput<'a> {
    Pqt(PqtInput<'a>),
    Evaluator(EvaluatorInput<'a>),
}

/// Orcade's builtin catalogue and hook contracts.
#[derive(Debug, Clone, Copy, Default)]
pub struct OrcadeBuiltins;

/// The key §4's output of `hook` must hold.
fn contract_key(hook: Hook) -> &'static str {
    match hook {
        Hook::Pqt => "accepted",
        Hook::Evaluator => "status",
    }
}

/// The output of `hook` as the flows read it: `out`, or its `data` when `out` is the
/// `{"data": {...}}` envelope (see the module docs).
pub fn output_of(hook: Hook, out: &Value) -> &Value {
    match out.get("data") {
        Some(data @ Value::Object(_)) if out.get(contract_key(hook)).is_none() => data,
        _ => out,
    }
}

impl Builtins for OrcadeBuiltins {
    type Hook = Hook;
    type Input<'a> = OrcadeInput<'a>;

    fn hook_name(&self, hook: Hook) -> &'static str {
        match hook {
            Hook::Pqt => "bid_job_pqt",
            Hook::Evaluator => "bid_job_evaluator",
        }
    }

    fn check(&self, hook: Hook, name: &str) -> Result<(), String> {
        agora_orcade_rules::find(hook, name).map(drop).map_err(|e| e.to_string())
    }

    fn run(&self, hook: Hook, name: &str, _parameters: &Value, input: &OrcadeInput<'_>) -> Result<Value, String> {
        // Orcade's builtins read their parameters from the job (`bid_job_metadata.parameters`).
        match (hook, input) {
            (Hook::Pqt, OrcadeInput::Pqt(input)) => {
                agora_orcade_rules::run_pqt(name, input).map(|v| v.to_output()).map_err(|e| e.to_string())
            }
            (Hook::Evaluator, OrcadeInput::Evaluator(input)) => {
                agora_orcade_rules::run_evaluator(name, input).map(|e| e.to_output()).map_err(|e| e.to_string())
            }
            _ => Err(format!("the {} hook was given another hook's input", hook.name())),
        }
    }

    fn check_output(&self, hook: Hook, output: &Value) -> Result<(), String> {
        let out = output_of(hook, output);
        match hook {
            Hook::Pqt => PqtVerdict::from_output(out).map(drop),
            Hook::Evaluator => Evaluation::from_output(out).map(drop),
        }
        .map_err(|e| e.to_string())
    }
}

/// Orcade's hooks over `remote` (stateful registry deployments are named after the job).
pub fn orcade_hooks(remote: Arc<dyn Remote>) -> OrcadeHooks {
    Hooks::new(OrcadeBuiltins, remote)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_data_envelope_is_opened_once() {
        let wrapped = json!({"data": {"accepted": true, "reason": "ok"}});
        assert_eq!(output_of(Hook::Pqt, &wrapped), &json!({"accepted": true, "reason": "ok"}));
        assert!(OrcadeBuiltins.check_output(Hook::Pqt, &wrapped).is_ok());
        // A PQT that answers `accepted` and carries its own `data` is read as it is.
        let own = json!({"accepted": false, "data": {"accepted": true}});
        assert_eq!(output_of(Hook::Pqt, &own), &own);
        let eval = json!({"data": {"status": "no_valid_bids"}});
        assert!(OrcadeBuiltins.check_output(Hook::Evaluator, &eval).is_ok());
    }

    #[test]
    fn contracts_refuse_what_section_4_does_not_allow() {
        let e = OrcadeBuiltins.check_output(Hook::Pqt, &json!({"qualified": true})).unwrap_err();
        assert!(e.contains("accepted is missing"), "{e}");
        let e = OrcadeBuiltins.check_output(Hook::Evaluator, &json!({"status": "resolved"})).unwrap_err();
        assert!(e.contains("winner_subject_id is missing"), "{e}");
        assert!(OrcadeBuiltins.check(Hook::Pqt, "lowest-price").is_err());
        assert!(OrcadeBuiltins.check(Hook::Evaluator, "lowest-price").is_ok());
    }
}
