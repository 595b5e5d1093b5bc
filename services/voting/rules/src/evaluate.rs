//! The choice-evaluation builtins' JSON layer: qualified votes → typed profile → count → output
//! `{"winners": [...sorted keys...], <evidence>, "ignored": n}`.

use crate::ballot::{self, APPROVED, RANKING};
use crate::condorcet::{self, Pairwise, MAX_OPTIONS};
use crate::json::{exact_number, OptionLookup};
use crate::params::{Params, RuleError};
use crate::profile::{ApprovalProfile, OptionIndex, RankingProfile, ScoreProfile, ScoreRange};
use crate::{approval as approval_rule, borda as borda_rule, irv, plurality as plurality_rule};
use crate::{score as score_rule, Vote};
use serde_json::{Map, Value};

fn output(winners: Vec<Value>, evidence: Vec<(&str, Value)>, ignored: u64) -> Value {
    let mut out = Map::new();
    out.insert("winners".into(), Value::Array(winners));
    for (k, v) in evidence {
        out.insert(k.into(), v);
    }
    out.insert("ignored".into(), Value::from(ignored));
    Value::Object(out)
}

/// §4.4's reference plurality: `{"winners", "tally", "ignored"}`; ballots whose
/// `selected_option` is not on the ballot are ignored.
pub(crate) fn plurality(options: &Map<String, Value>, votes: &[Vote]) -> Value {
    let lookup = OptionLookup::new(options);
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

/// Weighted plurality: `{"winners", "tally", "ignored"}`.
pub(crate) fn weighted_plurality(options: &Map<String, Value>, votes: &[Vote]) -> Value {
    let lookup = OptionLookup::new(options);
    let mut ballots = Vec::with_capacity(votes.len());
    let mut ignored = 0u64;
    for v in votes {
        match ballot::selected(&v.vote_data, &lookup).and_then(|o| ballot::weight(&v.vote_data).map(|w| (o, w))) {
            Ok(b) => ballots.push(b),
            Err(_) => ignored += 1,
        }
    }
    let c = plurality_rule::count_weighted(lookup.len(), &ballots);
    output(
        lookup.sorted_keys(&c.winners),
        vec![("tally", lookup.object_of(c.first_seen.iter().copied(), |i| exact_number(c.totals[i as usize])))],
        ignored + c.ignored,
    )
}

/// Approval: `{"winners", "tally" (every option), "ignored"}`.
pub(crate) fn approval(options: &Map<String, Value>, votes: &[Vote]) -> Value {
    let lookup = OptionLookup::new(options);
    let mut profile = ApprovalProfile::new(lookup.len());
    let mut scratch = Vec::new();
    let mut ignored = 0u64;
    for v in votes {
        scratch.clear();
        let ok = ballot::option_list(&v.vote_data, APPROVED, &lookup, &mut scratch).is_ok() && profile.push(&scratch);
        ignored += u64::from(!ok);
    }
    let c = approval_rule::count(&profile);
    output(lookup.sorted_keys(&c.winners), vec![("tally", lookup.object_all(|i| c.tally[i as usize]))], ignored)
}

/// Reads every vote's `ranking` into a profile; returns it and the number of ballots ignored.
pub(crate) fn rankings(lookup: &OptionLookup<'_>, votes: &[Vote]) -> (RankingProfile, u64) {
    let mut profile = RankingProfile::with_capacity(lookup.len(), votes.len());
    let mut scratch = Vec::new();
    let mut ignored = 0u64;
    for v in votes {
        scratch.clear();
        let ok = ballot::option_list(&v.vote_data, RANKING, lookup, &mut scratch).is_ok() && profile.push(&scratch);
        ignored += u64::from(!ok);
    }
    (profile, ignored)
}

/// Borda: `{"winners", "scores" (every option), "ignored"}`.
pub(crate) fn borda(options: &Map<String, Value>, votes: &[Vote]) -> Value {
    let lookup = OptionLookup::new(options);
    let (profile, ignored) = rankings(&lookup, votes);
    let c = borda_rule::count(&profile);
    output(lookup.sorted_keys(&c.winners), vec![("scores", lookup.object_all(|i| c.scores[i as usize]))], ignored)
}

/// Instant runoff: `{"winners", "rounds": [{"counts", "eliminated", "exhausted"}], "ignored"}`.
pub(crate) fn instant_runoff(options: &Map<String, Value>, votes: &[Vote]) -> Value {
    let lookup = OptionLookup::new(options);
    let (profile, ignored) = rankings(&lookup, votes);
    let c = irv::count(&profile);
    let rounds = c
        .rounds
        .iter()
        .map(|r| {
            let mut round = Map::new();
            round.insert(
                "counts".into(),
                Value::Object(r.counts.iter().map(|&(o, n)| (lookup.key(o).to_owned(), Value::from(n))).collect()),
            );
            round.insert("eliminated".into(), Value::Array(lookup.sorted_keys(&r.eliminated)));
            round.insert("exhausted".into(), Value::from(r.exhausted));
            Value::Object(round)
        })
        .collect();
    output(lookup.sorted_keys(&c.winners), vec![("rounds", Value::Array(rounds))], ignored)
}

fn pairwise_profile<'a>(
    options: &'a Map<String, Value>,
    votes: &[Vote],
    rule: &'static str,
) -> Result<(OptionLookup<'a>, Pairwise, u64), RuleError> {
    let lookup = OptionLookup::new(options);
    if lookup.len() > MAX_OPTIONS {
        return Err(RuleError::TooManyOptions { rule, n: lookup.len(), max: MAX_OPTIONS });
    }
    let (profile, ignored) = rankings(&lookup, votes);
    Ok((lookup, Pairwise::count(&profile), ignored))
}

/// `{a: {b: value(a, b)}}` for every ordered pair of distinct options.
fn matrix(lookup: &OptionLookup<'_>, value: impl Fn(usize, usize) -> Value) -> Value {
    let n = lookup.len();
    lookup.object_all(|a| {
        Value::Object(
            (0..n).filter(|&b| b != a as usize).map(|b| (lookup.key(b as OptionIndex).to_owned(), value(a as usize, b))).collect(),
        )
    })
}

/// Copeland: `{"winners", "scores", "pairwise", "ignored"}`.
pub(crate) fn copeland(options: &Map<String, Value>, votes: &[Vote]) -> Result<Value, RuleError> {
    let (lookup, pairwise, ignored) = pairwise_profile(options, votes, "copeland")?;
    let c = condorcet::copeland_from(pairwise);
    let pairwise = matrix(&lookup, |a, b| c.pairwise.support(a, b).into());
    Ok(output(
        lookup.sorted_keys(&c.winners),
        vec![("scores", lookup.object_all(|i| c.scores[i as usize])), ("pairwise", pairwise)],
        ignored,
    ))
}

/// Schulze: `{"winners", "pairwise", "strongest_paths", "ignored"}`.
pub(crate) fn schulze(options: &Map<String, Value>, votes: &[Vote]) -> Result<Value, RuleError> {
    let (lookup, pairwise, ignored) = pairwise_profile(options, votes, "schulze")?;
    let c = condorcet::schulze_from(pairwise);
    let pairwise = matrix(&lookup, |a, b| c.pairwise.support(a, b).into());
    let paths = matrix(&lookup, |a, b| c.strength(a, b).into());
    Ok(output(lookup.sorted_keys(&c.winners), vec![("pairwise", pairwise), ("strongest_paths", paths)], ignored))
}

/// The score range of `parameters.min` / `parameters.max` (default 0 ..= 10).
pub(crate) fn score_range(params: &Params<'_>) -> Result<ScoreRange, RuleError> {
    let min = params.number("min")?.unwrap_or(ScoreRange::DEFAULT.min);
    let max = params.number("max")?.unwrap_or(ScoreRange::DEFAULT.max);
    ScoreRange::new(min, max).map_err(RuleError::BadParameters)
}

/// Score: `{"winners", "scores" (every option), "ignored"}`.
pub(crate) fn score(options: &Map<String, Value>, votes: &[Vote], params: &Params<'_>) -> Result<Value, RuleError> {
    let range = score_range(params)?;
    let lookup = OptionLookup::new(options);
    let mut profile = ScoreProfile::new(lookup.len(), range);
    let mut scratch = Vec::new();
    let mut ignored = 0u64;
    for v in votes {
        scratch.clear();
        let ok = ballot::scores(&v.vote_data, &lookup, range, &mut scratch).is_ok() && profile.push(&scratch);
        ignored += u64::from(!ok);
    }
    let c = score_rule::count(&profile);
    Ok(output(lookup.sorted_keys(&c.winners), vec![("scores", lookup.object_all(|i| exact_number(c.totals[i as usize])))], ignored))
}
