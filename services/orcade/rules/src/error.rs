//! Why a builtin cannot run: its name, or its parameters.

use agora_orcade_schema::bid_job::ParametersError;
use agora_orcade_schema::{FieldError, Hook};

/// Why a builtin could not produce an output. [`RuleError::field_error`] turns it into the
/// creation refusal, naming the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    /// No builtin has this name.
    #[error("names no builtin {name:?}: the {} builtins are {available}", hook.name())]
    Unknown { hook: Hook, name: String, available: String },
    /// The builtin exists for the other hook.
    #[error("names builtin:{name}, which is for the {}, not the {}: the {} builtins are {available}", is_for.name(), hook.name(), hook.name())]
    WrongHook { hook: Hook, name: String, is_for: Hook, available: String },
    /// `bid_job_metadata.parameters` is not an object.
    #[error(transparent)]
    Parameters(#[from] ParametersError),
    /// A parameter is missing or malformed. `parameter` is its path below `parameters`
    /// (`min`, `fields[1]`).
    #[error("bid_job_metadata.parameters.{parameter} {problem}")]
    BadParameter { parameter: String, problem: String },
}

impl RuleError {
    pub(crate) fn bad(parameter: impl Into<String>, problem: impl Into<String>) -> RuleError {
        RuleError::BadParameter { parameter: parameter.into(), problem: problem.into() }
    }

    /// The error as the field error of a create or PATCH refusal: an unknown name names the
    /// hook's field (`bid_job_pqt_id`), a parameter its path.
    pub fn field_error(&self, hook: Hook) -> FieldError {
        match self {
            RuleError::Unknown { .. } | RuleError::WrongHook { .. } => FieldError { path: hook.field().into(), message: self.to_string() },
            RuleError::Parameters(e) => {
                FieldError { path: "bid_job_metadata.parameters".into(), message: format!("must be an object, got {}", e.found) }
            }
            RuleError::BadParameter { parameter, problem } => {
                FieldError { path: format!("bid_job_metadata.parameters.{parameter}"), message: problem.clone() }
            }
        }
    }
}
