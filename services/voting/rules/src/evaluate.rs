//! The choice-evaluation builtins' JSON layer for single-choice, approval and score ballots:
//! qualified votes → typed profile → count → output
//! `{"winners": [...sorted keys...], <evidence>, "ignored": n}`. The ranked rules are in
//! [`crate::evaluate_ranked`].
//!
//! Each rule takes the votes' weights ([`crate::vote_weight`]): `None` (no vote carries one)
//! counts exactly as before weights existed; `Some` counts weighted profiles
//! ([`crate::weighted`]). Counts are written by [`ToJson`]: integers stay integers, a weighted
//! sum is an integer when whole and a float otherwise.

use crate::ballot::{self, APPROVED};
use crate::json::{exact_number, OptionLookup, ToJson};
use crate::params::{Params, RuleError};
use crate::profile::{ApprovalProfile, Exact, ScoreProfile, ScoreRange};
use crate::weighted::{Weight, WeightedApprovals, WeightedScores};
use crate::{approval as approval_rule, plurality as plurality_rule, score as score_rule, Vote};
use serde_json::{Map, Value};

pub(crate) fn output(winners: Vec<Value>, evidence: Vec<(&str, Value)>, ignored: u64) -> Value {
    let mut out = Map::new();
    out.insert("winners".into(), Value::Array(winners));
    for (k, v) in evidence {
        out.insert(k.into(), v);
    }
    out.insert("ignored".into(), Value::from(ignored));
    Value::Object(out)
}

/// The weight of vote `i` (1 on the unweighted path).
#[inline]
pub(crate) fn weight_of(weights: Option<&[Weight]>, i: usize) -> Weight {
    weights.and_then(|w| w.get(i).copied()).unwrap_or(Weight::ONE)
}

/// §4.4's reference plurality: `{"winners", "tally", "ignored"}`; ballots whose
/// `selected_option` is not on the ballot are ignored. Weighted: the tally sums weights.
pub(crate) fn plurality(options: &Map<String, Value>, votes: &[Vote], weights: Option<&[Weight]>) -> Value {
    let lookup = OptionLookup::new(options);
    if weights.is_some() {
        return tally_output(&lookup, votes, |i, vote_data| Ok((ballot::selected(vote_data, &lookup)?, weight_of(weights, i).exact())));
    }
    let mut choices = Vec::with_capacity(votes.len());
    let mut ignored = 0u64;
    for v in votes {
        match ballot::selected(&v.vote_data, &lookup) {
            Ok(o) => choices.push(o),
            Err(_) => ignored += 1,
        }
    }
    let c = plurality_rule::count(lookup.len(), &choices);
    output(
        lookup.sorted_keys(&c.winners),
        vec![("tally", lookup.object_of(c.first_seen.iter().copied(), |i| c.counts[i as usize]))],
        ignored + c.ignored,
    )
}

/// Weighted plurality: `{"winners", "tally", "ignored"}`; each ballot counts its
/// `vote_data.weight` times its vote's weight.
pub(crate) fn weighted_plurality(options: &Map<String, Value>, votes: &[Vote], weights: Option<&[Weight]>) -> Value {
    let lookup = OptionLookup::new(options);
    tally_output(&lookup, votes, |i, vote_data| {
        let o = ballot::selected(vote_data, &lookup)?;
        // `ballot::weight` keeps weights within 0 ..= 1e9, which `Exact` holds.
        let w = Exact::from_f64(ballot::weight(vote_data)?).unwrap_or(Exact::ZERO);
        Ok((o, if weights.is_some() { w.scaled(weight_of(weights, i).exact()) } else { w }))
    })
}

/// `{"winners", "tally", "ignored"}` of the (option, weight) ballots `ballot(i, vote_data)`
/// reads (an `Err` is an ignored ballot).
fn tally_output<'v>(
    lookup: &OptionLookup<'_>,
    votes: &'v [Vote],
    ballot: impl Fn(usize, &'v Value) -> Result<(u32, Exact), ballot::Defect<'v>>,
) -> Value {
    let mut ballots = Vec::with_capacity(votes.len());
    let mut ignored = 0u64;
    for (i, v) in votes.iter().enumerate() {
        match ballot(i, &v.vote_data) {
            Ok(b) => ballots.push(b),
            Err(_) => ignored += 1,
        }
    }
    let c = plurality_rule::count_exact(lookup.len(), &ballots);
    output(
        lookup.sorted_keys(&c.winners),
        vec![("tally", lookup.object_of(c.first_seen.iter().copied(), |i| exact_number(c.totals[i as usize])))],
        ignored + c.ignored,
    )
}

/// Approval: `{"winners", "tally" (every option), "ignored"}`.
pub(crate) fn approval(options: &Map<String, Value>, votes: &[Vote], weights: Option<&[Weight]>) -> Value {
    let lookup = OptionLookup::new(options);
    let mut profile = ApprovalProfile::new(lookup.len());
    let mut weighted = WeightedApprovals::new(lookup.len());
    let mut scratch = Vec::new();
    let mut ignored = 0u64;
    for (i, v) in votes.iter().enumerate() {
        scratch.clear();
        let ok = ballot::option_list(&v.vote_data, APPROVED, &lookup, &mut scratch).is_ok()
            && match weights {
                None => profile.push(&scratch),
                Some(_) => weighted.push(&scratch, weight_of(weights, i)),
            };
        ignored += u64::from(!ok);
    }
    let (winners, tally) = match weights {
        None => {
            let c = approval_rule::count(&profile);
            (c.winners, lookup.object_all(|i| c.tally[i as usize].to_json()))
        }
        Some(_) => {
            let c = approval_rule::count_weighted(&weighted);
            (c.winners, lookup.object_all(|i| c.tally[i as usize].to_json()))
        }
    };
    output(lookup.sorted_keys(&winners), vec![("tally", tally)], ignored)
}

/// The score range of `parameters.min` / `parameters.max` (default 0 ..= 10).
pub(crate) fn score_range(params: &Params<'_>) -> Result<ScoreRange, RuleError> {
    let min = params.number("min")?.unwrap_or(ScoreRange::DEFAULT.min);
    let max = params.number("max")?.unwrap_or(ScoreRange::DEFAULT.max);
    ScoreRange::new(min, max).map_err(RuleError::BadParameters)
}

/// Score: `{"winners", "scores" (every option), "ignored"}`; weighted, each score times its
/// vote's weight.
pub(crate) fn score(
    options: &Map<String, Value>,
    votes: &[Vote],
    params: &Params<'_>,
    weights: Option<&[Weight]>,
) -> Result<Value, RuleError> {
    let range = score_range(params)?;
    let lookup = OptionLookup::new(options);
    let mut profile = ScoreProfile::new(lookup.len(), range);
    let mut weighted = WeightedScores::new(lookup.len(), range);
    let mut scratch = Vec::new();
    let mut ignored = 0u64;
    for (i, v) in votes.iter().enumerate() {
        scratch.clear();
        let ok = ballot::scores(&v.vote_data, &lookup, range, &mut scratch).is_ok()
            && match weights {
                None => profile.push(&scratch),
                Some(_) => weighted.push(&scratch, weight_of(weights, i)),
            };
        ignored += u64::from(!ok);
    }
    let c = match weights {
        None => score_rule::count(&profile),
        Some(_) => score_rule::count_weighted(&weighted),
    };
    Ok(output(lookup.sorted_keys(&c.winners), vec![("scores", lookup.object_all(|i| exact_number(c.totals[i as usize])))], ignored))
}
