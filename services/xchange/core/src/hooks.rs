//! Xchange's hooks on the platform's runner: function mode's selector and open mode's
//! acceptance function (a subject's `task_evaluation_function`), with §4's inputs as they are
//! (no wrapper). The builtin selectors are `agora-xchange-rules`'; `builtin:round-robin` keeps
//! its position in the store, so the intake flow runs it itself ([`crate::flows::intake`]).
//! There are no builtin acceptance functions.

use agora_hooks::{Builtins, Hooks, Remote};
use agora_xchange_rules::Selector;
use agora_xchange_schema::{OpenInput, SelectorInput, SelectorOutput};
use serde::Serialize;
use serde_json::{Map, Value};
use std::sync::Arc;

/// The hook runner of the Xchange flows.
pub type XchangeHooks = Hooks<XchangeBuiltins>;

/// Xchange's two hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    /// Function mode: `task_metadata.task_assignment.function_id`.
    Selector,
    /// Open mode: a subject's `task_evaluation_function`.
    Acceptance,
}

impl Hook {
    /// The field that names the hook's function.
    pub fn field(self) -> &'static str {
        match self {
            Hook::Selector => "task_metadata.task_assignment.function_id",
            Hook::Acceptance => "task_evaluation_function",
        }
    }
}

/// What a hook receives (§4).
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum XchangeInput<'a> {
    Selector(SelectorInput<'a>),
    Acceptance(OpenInput<'a>),
}

/// Xchange's builtin catalogue and hook contracts.
#[derive(Debug, Clone, Copy, Default)]
pub struct XchangeBuiltins;

fn known_selectors() -> String {
    Selector::ALL.iter().map(|s| format!("builtin:{}", s.name())).collect::<Vec<_>>().join(", ")
}

impl Builtins for XchangeBuiltins {
    type Hook = Hook;
    type Input<'a> = XchangeInput<'a>;

    fn hook_name(&self, hook: Hook) -> &'static str {
        match hook {
            Hook::Selector => "selector",
            Hook::Acceptance => "task_evaluation_function",
        }
    }

    fn check(&self, hook: Hook, name: &str) -> Result<(), String> {
        match hook {
            Hook::Selector if Selector::find(name).is_some() => Ok(()),
            Hook::Selector => Err(format!("unknown builtin selector {name:?} (known: {})", known_selectors())),
            Hook::Acceptance => {
                Err(format!("there are no builtin acceptance functions (got builtin:{name}); name an HTTP, Lambda or registry function"))
            }
        }
    }

    fn run(&self, hook: Hook, name: &str, parameters: &Value, input: &XchangeInput<'_>) -> Result<Value, String> {
        match (hook, input, Selector::find(name)) {
            (Hook::Selector, _, Some(Selector::RoundRobin)) => {
                Err("builtin:round-robin keeps its position in the store: the intake flow runs it".into())
            }
            (Hook::Selector, XchangeInput::Selector(input), Some(selector)) => {
                selector.select(input.subjects, parameters.as_object().unwrap_or(&Map::new()), None)
            }
            _ => Err(format!("no builtin {name:?} for the {} hook", self.hook_name(hook))),
        }
    }

    fn check_output(&self, hook: Hook, output: &Value) -> Result<(), String> {
        match hook {
            Hook::Selector => SelectorOutput::from_output(output).map(drop),
            // Anything but an acceptance declines (§4).
            Hook::Acceptance => Ok(()),
        }
    }
}

/// Xchange's hooks over `remote`.
pub fn xchange_hooks(remote: Arc<dyn Remote>) -> XchangeHooks {
    Hooks::new(XchangeBuiltins, remote)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_catalogue_and_contracts() {
        assert!(XchangeBuiltins.check(Hook::Selector, "first-subject").is_ok());
        assert!(XchangeBuiltins.check(Hook::Selector, "random").unwrap_err().contains("builtin:round-robin"));
        assert!(XchangeBuiltins.check(Hook::Acceptance, "yes").is_err());
        assert!(XchangeBuiltins.check_output(Hook::Selector, &json!({"reason": "none"})).is_err());
        assert!(XchangeBuiltins.check_output(Hook::Selector, &json!({"data": {"selected_subject_id": "s"}})).is_ok());
        assert!(XchangeBuiltins.check_output(Hook::Acceptance, &json!({})).is_ok());
    }
}
