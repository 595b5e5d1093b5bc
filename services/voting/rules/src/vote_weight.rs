//! The weight of each vote, as the choice rules read it: the vote document's `weight` (stored
//! with the vote when the task has `weights`), absent = 1.
//!
//! Rules do not trust the stored value: a weight that is not a number within `1e-9 ..= 1e9`
//! (zero, negative, NaN, infinite, or too large or too small to count exactly) is an error,
//! [`RuleError::BadWeight`], naming the vote and the field, rather than a silent default. A task
//! whose votes carry no weight takes the unweighted path, byte for byte as before weights
//! existed.

use crate::params::RuleError;
use crate::weighted::Weight;
use crate::Vote;

/// Every vote's weight, in order; `None` when no vote carries one (the unweighted path).
pub(crate) fn weights(votes: &[Vote]) -> Result<Option<Vec<Weight>>, RuleError> {
    if votes.iter().all(|v| v.weight.is_none()) {
        return Ok(None);
    }
    votes.iter().map(weight).collect::<Result<Vec<_>, _>>().map(Some)
}

/// One vote's weight.
fn weight(vote: &Vote) -> Result<Weight, RuleError> {
    match vote.weight {
        None => Ok(Weight::ONE),
        Some(w) => Weight::new(w).ok_or_else(|| RuleError::BadWeight { vote_id: vote.vote_id.clone(), got: w.to_string() }),
    }
}
