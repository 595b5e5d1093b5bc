//! Which builtins exist, for which hook, and the check a job's function ids go through at
//! creation ([`Catalogue`], the schema's `BuiltinCheck`).

use crate::error::RuleError;
use crate::params;
use agora_orcade_schema::{BuiltinCheck, FieldError, Hook};
use serde_json::{Map, Value};

/// Every builtin function of §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// PQT: every `parameters.fields` is present in `bid_data`.
    RequiredFields,
    /// PQT: `bid_data.confidence >= parameters.min`.
    MinConfidence,
    /// Evaluator: the lowest `bid_data.price_usd`, ties to the earliest bid.
    LowestPrice,
    /// Evaluator: the highest `bid_data.score`, ties to the earliest bid.
    HighestScore,
    /// Evaluator: the earliest bid.
    EarliestBid,
}

impl Builtin {
    pub const ALL: [Builtin; 5] =
        [Builtin::RequiredFields, Builtin::MinConfidence, Builtin::LowestPrice, Builtin::HighestScore, Builtin::EarliestBid];

    /// The name after `builtin:`.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::RequiredFields => "required-fields",
            Builtin::MinConfidence => "min-confidence",
            Builtin::LowestPrice => "lowest-price",
            Builtin::HighestScore => "highest-score",
            Builtin::EarliestBid => "earliest-bid",
        }
    }

    /// The hook it is written for.
    pub fn hook(self) -> Hook {
        match self {
            Builtin::RequiredFields | Builtin::MinConfidence => Hook::Pqt,
            Builtin::LowestPrice | Builtin::HighestScore | Builtin::EarliestBid => Hook::Evaluator,
        }
    }

    /// Checks that the builtin can run with `parameters` (the job's `bid_job_metadata.parameters`).
    pub fn check_parameters(self, parameters: &Map<String, Value>) -> Result<(), RuleError> {
        match self {
            Builtin::RequiredFields => params::required_fields(parameters).map(drop),
            Builtin::MinConfidence => params::min_confidence(parameters).map(drop),
            Builtin::LowestPrice | Builtin::HighestScore | Builtin::EarliestBid => Ok(()),
        }
    }
}

/// The builtin called `name` (after `builtin:`), whatever its hook.
pub fn builtin(name: &str) -> Option<Builtin> {
    Builtin::ALL.into_iter().find(|b| b.name() == name)
}

/// The names of `hook`'s builtins, as function ids (`builtin:lowest-price`).
pub fn names(hook: Hook) -> Vec<String> {
    Builtin::ALL.into_iter().filter(|b| b.hook() == hook).map(|b| format!("builtin:{}", b.name())).collect()
}

/// The builtin `name` for `hook`, or why there is none.
pub fn find(hook: Hook, name: &str) -> Result<Builtin, RuleError> {
    let available = || names(hook).join(", ");
    match builtin(name) {
        Some(b) if b.hook() == hook => Ok(b),
        Some(b) => Err(RuleError::WrongHook { hook, name: name.to_owned(), is_for: b.hook(), available: available() }),
        None => Err(RuleError::Unknown { hook, name: name.to_owned(), available: available() }),
    }
}

/// The catalogue as the schema's parsers ask it: an unknown name or a bad parameter is a field
/// error of the create (or PATCH) refusal.
#[derive(Debug, Clone, Copy, Default)]
pub struct Catalogue;

impl BuiltinCheck for Catalogue {
    fn check(&self, hook: Hook, name: &str, parameters: &Map<String, Value>) -> Vec<FieldError> {
        match find(hook, name).and_then(|b| b.check_parameters(parameters)) {
            Ok(()) => Vec::new(),
            Err(e) => vec![e.field_error(hook)],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_name_is_found_for_its_own_hook_only() {
        for b in Builtin::ALL {
            assert_eq!(builtin(b.name()), Some(b));
            assert_eq!(find(b.hook(), b.name()), Ok(b));
            let other = if b.hook() == Hook::Pqt { Hook::Evaluator } else { Hook::Pqt };
            assert!(matches!(find(other, b.name()), Err(RuleError::WrongHook { .. })), "{b:?}");
        }
        assert_eq!(builtin("lowest_price"), None);
        assert_eq!(builtin("Lowest-Price"), None);
        assert_eq!(names(Hook::Pqt), ["builtin:required-fields", "builtin:min-confidence"]);
        assert_eq!(names(Hook::Evaluator), ["builtin:lowest-price", "builtin:highest-score", "builtin:earliest-bid"]);
    }

    #[test]
    fn refusals_name_the_field_and_the_choices() {
        let none = Map::new();
        let e = Catalogue.check(Hook::Pqt, "telepathy", &none);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].path, "bid_job_pqt_id");
        assert_eq!(e[0].message, "names no builtin \"telepathy\": the PQT builtins are builtin:required-fields, builtin:min-confidence");
        let e = Catalogue.check(Hook::Pqt, "lowest-price", &none);
        assert_eq!(
            e[0].to_string(),
            "bid_job_pqt_id names builtin:lowest-price, which is for the evaluator, not the PQT: the PQT builtins are builtin:required-fields, builtin:min-confidence"
        );
        let e = Catalogue.check(Hook::Evaluator, "min-confidence", &none);
        assert_eq!(e[0].path, "bid_job_evaluator_id");
        let e = Catalogue.check(Hook::Pqt, "min-confidence", &none);
        assert_eq!(e[0].path, "bid_job_metadata.parameters.min");
        assert!(e[0].message.starts_with("is required by builtin:min-confidence"), "{}", e[0].message);
        let params = json!({"min": 0.8});
        assert!(Catalogue.check(Hook::Pqt, "min-confidence", params.as_object().unwrap()).is_empty());
        assert!(Catalogue.check(Hook::Evaluator, "earliest-bid", &none).is_empty());
    }
}
