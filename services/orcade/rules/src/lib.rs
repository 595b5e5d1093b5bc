//! Orcade's builtin functions (orcade-1-3-5.md §4), run for a `builtin:<name>` function id:
//! pure functions over the schema's types. No I/O, no async, no panic on any input.
//!
//! | Hook | Builtin | Reads | Output |
//! |---|---|---|---|
//! | PQT | `required-fields` | `parameters.fields` in `bid_data` | `{"accepted": bool, "reason": "..."}` |
//! | PQT | `min-confidence` | `bid_data.confidence >= parameters.min` | `{"accepted": bool, "reason": "..."}` |
//! | evaluator | `lowest-price` | `bid_data.price_usd`, ties to the earliest bid | `{"winner_subject_id", "status": "resolved", "result_data"}` |
//! | evaluator | `highest-score` | `bid_data.score`, ties to the earliest bid | as above |
//! | evaluator | `earliest-bid` | `submission_time` | as above; `{"status": "no_valid_bids", ...}` when no bid qualifies |
//!
//! Parameters come from the job's `bid_job_metadata.parameters` (an object; absent or `null` =
//! `{}`), e.g. `{"parameters": {"fields": ["price_usd", "eta_hours"], "min": 0.8}}`.
//! [`builtin`] says which names exist, [`find`] which exist for a hook, and [`Catalogue`] is
//! the schema's `BuiltinCheck`: an unknown name or a bad parameter refuses the job at
//! creation (400), naming the field.
//!
//! # Choices where the spec is silent
//!
//! * Both PQTs' parameters are required (`min` has no default, `fields` must be listed): a job
//!   that names the builtin without them is refused at creation, and a bid screened by such a
//!   job (its metadata changed since) fails with [`RuleError::BadParameter`], which refuses the
//!   bid (§4: an error refuses the bid). Keys a builtin does not read are ignored.
//! * `required-fields`: a field whose value is `null` is missing; an entry with dots walks
//!   nested objects (`plan.steps`); `[]` requires nothing.
//! * `min-confidence`: the confidence must be a JSON number (a string `"0.9"` is refused).
//! * Every verdict carries a reason, an accepted one too.
//! * Evaluators: "earliest" is the smallest `submission_time`, then the order of the input;
//!   a negative price is not a price; bids the PQT refused, and bids without a usable value,
//!   never win and are listed in `result_data.bids_ignored` with why; `result_data` names the
//!   winning bid (`winning_bid_id`) and its winning value. With no bid that qualifies, the
//!   output is `no_valid_bids` with a `reason` (`"no bids"` for an empty list).

mod catalogue;
mod error;
pub mod evaluate;
mod params;
pub mod pqt;
#[cfg(test)]
mod test_support;

pub use catalogue::{builtin, find, names, Builtin, Catalogue};
pub use error::RuleError;

use agora_orcade_schema::{Bid, BidJob, Evaluation, EvaluatorInput, Hook, PqtInput, PqtVerdict};

impl Builtin {
    /// Runs a PQT builtin on one bid. `None` when this builtin is an evaluator.
    pub fn screen(self, job: &BidJob, bid: &Bid) -> Option<Result<PqtVerdict, RuleError>> {
        match self {
            Builtin::RequiredFields => Some(pqt::required_fields(job, bid)),
            Builtin::MinConfidence => Some(pqt::min_confidence(job, bid)),
            Builtin::LowestPrice | Builtin::HighestScore | Builtin::EarliestBid => None,
        }
    }

    /// Runs an evaluator builtin on the accepted bids. `None` when this builtin is a PQT.
    pub fn evaluate(self, bids: &[Bid]) -> Option<Evaluation> {
        match self {
            Builtin::LowestPrice => Some(evaluate::lowest_price(bids)),
            Builtin::HighestScore => Some(evaluate::highest_score(bids)),
            Builtin::EarliestBid => Some(evaluate::earliest_bid(bids)),
            Builtin::RequiredFields | Builtin::MinConfidence => None,
        }
    }
}

/// Runs the PQT builtin `name` on §4's PQT input.
pub fn run_pqt(name: &str, input: &PqtInput<'_>) -> Result<PqtVerdict, RuleError> {
    let b = find(Hook::Pqt, name)?;
    b.screen(input.bid_job, input.bid).unwrap_or_else(|| Err(wrong_hook(b, Hook::Pqt)))
}

/// Runs the evaluator builtin `name` on §4's evaluator input. Checks the job's parameters
/// first, as every builtin of the job does.
pub fn run_evaluator(name: &str, input: &EvaluatorInput<'_>) -> Result<Evaluation, RuleError> {
    let b = find(Hook::Evaluator, name)?;
    b.check_parameters(params::of(input.bid_job)?)?;
    b.evaluate(input.bids).ok_or_else(|| wrong_hook(b, Hook::Evaluator))
}

fn wrong_hook(b: Builtin, hook: Hook) -> RuleError {
    RuleError::WrongHook { hook, name: b.name().into(), is_for: b.hook(), available: names(hook).join(", ") }
}
