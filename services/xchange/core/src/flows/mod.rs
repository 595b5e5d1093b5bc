//! The flows of §3 and §4, one module each.

pub mod assign;
pub mod bidding;
pub mod intake;
pub mod query;
pub mod subjects;

use crate::error::XchangeError;
use crate::hooks::{Hook, XchangeHooks};
use agora_xchange_schema::FunctionSpec;

/// Refuses a function id this deployment cannot run (a mode whose setting is missing, an
/// unknown builtin), naming the field.
pub(crate) fn check_function(hooks: &XchangeHooks, hook: Hook, function_id: &str) -> Result<(), XchangeError> {
    hooks
        .check(hook, &FunctionSpec::from_id(function_id))
        .map_err(|why| XchangeError::UnavailableFunction(format!("{} {why}", hook.field())))
}
