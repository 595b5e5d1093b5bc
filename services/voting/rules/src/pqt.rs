//! The PQT builtins (§4.3): `{"qualified": true}`, or `{"qualified": false, "reason": ...}`.
//!
//! | Name | Accepts `vote_data` when |
//! |---|---|
//! | `option-on-ballot` | `selected_option` is a key of `voting_options_map` (§4.3's reference, same reason text) |
//! | `valid-ranking` | `ranking` is an array of distinct option keys, at least one |
//! | `valid-approval` | `approved` is an array of distinct option keys (may be empty) |
//! | `valid-scores` | `scores` is an object of option key → number within `parameters.min ..= parameters.max` (default 0 ..= 10; may be empty) |
//!
//! Each accepts exactly the ballots the matching choice rule counts.

use crate::ballot::{self, Defect, APPROVED, RANKING};
use crate::evaluate::score_range;
use crate::json::OptionLookup;
use crate::params::{Params, RuleError};
use crate::profile::SeenSet;
use serde_json::{json, Map, Value};

fn verdict(result: Result<(), Defect<'_>>) -> Value {
    match result {
        Ok(()) => json!({"qualified": true}),
        Err(d) => json!({"qualified": false, "reason": d.reason()}),
    }
}

pub(crate) fn option_on_ballot(options: &Map<String, Value>, vote_data: &Value) -> Value {
    let lookup = OptionLookup::new(options);
    verdict(ballot::selected(vote_data, &lookup).map(|_| ()))
}

fn valid_list(options: &Map<String, Value>, vote_data: &Value, name: &'static str, non_empty: bool) -> Value {
    let lookup = OptionLookup::new(options);
    let mut list = Vec::new();
    let mut seen = SeenSet::new(lookup.len());
    verdict(
        ballot::option_list(vote_data, name, &lookup, &mut list)
            .and_then(|()| ballot::distinct(&list, name, non_empty, &lookup, &mut seen)),
    )
}

pub(crate) fn valid_ranking(options: &Map<String, Value>, vote_data: &Value) -> Value {
    valid_list(options, vote_data, RANKING, true)
}

pub(crate) fn valid_approval(options: &Map<String, Value>, vote_data: &Value) -> Value {
    valid_list(options, vote_data, APPROVED, false)
}

pub(crate) fn valid_scores(options: &Map<String, Value>, vote_data: &Value, params: &Params<'_>) -> Result<Value, RuleError> {
    let range = score_range(params)?;
    let lookup = OptionLookup::new(options);
    let mut out = Vec::new();
    Ok(verdict(ballot::scores(vote_data, &lookup, range, &mut out).map(|_| ())))
}
