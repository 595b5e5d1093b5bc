//! What every rule shares: the spec's `parameters` as a rule reads them, and why a rule could
//! not produce an output. The rules use these; the catalogue ([`crate::builtin`]) uses the rules.

use serde_json::{Map, Value};

/// Why a builtin could not produce an output.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RuleError {
    /// The name is not a builtin for this hook (the message lists those that are).
    #[error("{0}")]
    UnknownRule(String),
    /// A parameter is missing or malformed; the message names it (`parameters.seed must be ...`).
    #[error("{0}")]
    BadParameters(String),
    /// The hook input lacks a key this rule reads.
    #[error("user_input.{0} is missing (the {1} rule reads it)")]
    MissingInput(&'static str, &'static str),
    /// A tie-breaker was given no tied winners.
    #[error("user_input.winners is empty: there is no tie to break")]
    NoTiedWinners,
    /// The earliest-vote tie-breaker found no vote naming any tied option (§4.5's reference raises
    /// `IndexError` here).
    #[error("no vote names any of the tied options ({0}): the earliest-vote tie-breaker has no ballot to go by")]
    NoBallotForTie(String),
    /// A vote's `weight` is not a number within `1e-9 ..= 1e9` (see [`crate::weighted`]).
    #[error("vote {vote_id:?}: weight must be a number between 1e-9 and 1e9 (absent: 1), got {got}")]
    BadWeight { vote_id: String, got: String },
    /// A pairwise rule was given more options than it accepts.
    #[error("the {rule} rule accepts at most {max} options; this task has {n}")]
    TooManyOptions { rule: &'static str, n: usize, max: usize },
}

/// The spec's `parameters`: an object (`null` reads as `{}`).
pub(crate) struct Params<'a>(Option<&'a Map<String, Value>>);

impl<'a> Params<'a> {
    pub(crate) fn new(parameters: &'a Value) -> Result<Self, RuleError> {
        match parameters {
            Value::Object(m) => Ok(Params(Some(m))),
            Value::Null => Ok(Params(None)),
            _ => Err(RuleError::BadParameters("parameters must be an object".into())),
        }
    }

    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.0.and_then(|m| m.get(key))
    }

    /// An optional number parameter.
    pub(crate) fn number(&self, key: &str) -> Result<Option<f64>, RuleError> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v.as_f64().map(Some).ok_or_else(|| RuleError::BadParameters(format!("parameters.{key} must be a number, got {v}"))),
        }
    }
}
