//! The flows of §1 and §3, one module each.

pub mod bid;
pub mod close;
pub mod create;
pub mod deliver;
pub mod edit;
pub mod evaluate;
pub mod query;
pub mod repair;

use crate::error::OrcadeError;
use crate::hooks::OrcadeHooks;
use agora_orcade_schema::{BidJob, Hook};

/// Refuses function ids this deployment cannot run (a mode whose setting is missing), naming
/// the field. Builtins and their parameters are judged by the parsers, with the catalogue.
pub(crate) fn check_hooks(hooks: &OrcadeHooks, job: &BidJob) -> Result<(), OrcadeError> {
    let mut problems = Vec::new();
    for (hook, spec) in [(Hook::Pqt, job.pqt()), (Hook::Evaluator, job.evaluator())] {
        if let Err(why) = hooks.check(hook, &spec) {
            problems.push(format!("{}: {why}", hook.field()));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(OrcadeError::UnavailableHooks(problems))
    }
}
