//! The ranked choice-evaluation builtins' JSON layer (Borda, instant runoff, Copeland, Schulze):
//! every vote's `ranking` → a ranked profile, unweighted ([`RankingProfile`], `u64` counts) or,
//! when the votes carry weights, weighted ([`WeightedRankings`], exact counts) → the rule's count
//! → its output. One generic writer serves both profiles, so the two paths write the same
//! shapes; a weighted count that is whole is written as the same integer.

use crate::ballot::{self, RANKING};
use crate::condorcet::{self, Pairwise, MAX_OPTIONS};
use crate::evaluate::{output, weight_of};
use crate::json::{OptionLookup, ToJson};
use crate::params::RuleError;
use crate::profile::{OptionIndex, RankedProfile, RankingProfile};
use crate::tally::Tally;
use crate::weighted::{Weight, WeightedRankings};
use crate::{borda as borda_rule, irv, Vote};
use serde_json::{Map, Value};

/// The ranked rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ranked {
    Borda,
    InstantRunoff,
    Copeland,
    Schulze,
}

impl Ranked {
    fn name(self) -> &'static str {
        match self {
            Ranked::Borda => "borda",
            Ranked::InstantRunoff => "instant-runoff",
            Ranked::Copeland => "copeland",
            Ranked::Schulze => "schulze",
        }
    }
}

/// Runs a ranked rule: `votes` with their `weights` (`None`: unweighted).
pub(crate) fn run(rule: Ranked, options: &Map<String, Value>, votes: &[Vote], weights: Option<&[Weight]>) -> Result<Value, RuleError> {
    let lookup = OptionLookup::new(options);
    if matches!(rule, Ranked::Copeland | Ranked::Schulze) && lookup.len() > MAX_OPTIONS {
        return Err(RuleError::TooManyOptions { rule: rule.name(), n: lookup.len(), max: MAX_OPTIONS });
    }
    let mut scratch = Vec::new();
    let mut ignored = 0u64;
    match weights {
        None => {
            let mut profile = RankingProfile::with_capacity(lookup.len(), votes.len());
            for v in votes {
                scratch.clear();
                let ok = ballot::option_list(&v.vote_data, RANKING, &lookup, &mut scratch).is_ok() && profile.push(&scratch);
                ignored += u64::from(!ok);
            }
            Ok(write(rule, &lookup, &profile, ignored))
        }
        Some(_) => {
            let mut profile = WeightedRankings::with_capacity(lookup.len(), votes.len());
            for (i, v) in votes.iter().enumerate() {
                scratch.clear();
                let ok = ballot::option_list(&v.vote_data, RANKING, &lookup, &mut scratch).is_ok()
                    && profile.push(&scratch, weight_of(weights, i));
                ignored += u64::from(!ok);
            }
            Ok(write(rule, &lookup, &profile, ignored))
        }
    }
}

/// Counts `profile` with `rule` and writes the output:
/// - Borda: `{"winners", "scores" (every option), "ignored"}`;
/// - instant runoff: `{"winners", "rounds": [{"counts", "eliminated", "exhausted"}], "ignored"}`;
/// - Copeland: `{"winners", "scores", "pairwise", "ignored"}`;
/// - Schulze: `{"winners", "pairwise", "strongest_paths", "ignored"}`.
fn write<P>(rule: Ranked, lookup: &OptionLookup<'_>, profile: &P, ignored: u64) -> Value
where
    P: RankedProfile,
    P::Count: ToJson,
    <P::Count as Tally>::Signed: ToJson,
{
    match rule {
        Ranked::Borda => {
            let c = borda_rule::count(profile);
            output(lookup.sorted_keys(&c.winners), vec![("scores", lookup.object_all(|i| c.scores[i as usize].to_json()))], ignored)
        }
        Ranked::InstantRunoff => {
            let c = irv::count(profile);
            let rounds = c
                .rounds
                .iter()
                .map(|r| {
                    let mut round = Map::new();
                    round.insert(
                        "counts".into(),
                        Value::Object(r.counts.iter().map(|&(o, n)| (lookup.key(o).to_owned(), n.to_json())).collect()),
                    );
                    round.insert("eliminated".into(), Value::Array(lookup.sorted_keys(&r.eliminated)));
                    round.insert("exhausted".into(), r.exhausted.to_json());
                    Value::Object(round)
                })
                .collect();
            output(lookup.sorted_keys(&c.winners), vec![("rounds", Value::Array(rounds))], ignored)
        }
        Ranked::Copeland => {
            let c = condorcet::copeland_from(Pairwise::count(profile));
            let pairwise = matrix(lookup, |a, b| c.pairwise.support(a, b).to_json());
            output(
                lookup.sorted_keys(&c.winners),
                vec![("scores", lookup.object_all(|i| c.scores[i as usize])), ("pairwise", pairwise)],
                ignored,
            )
        }
        Ranked::Schulze => {
            let c = condorcet::schulze_from(Pairwise::count(profile));
            let pairwise = matrix(lookup, |a, b| c.pairwise.support(a, b).to_json());
            let paths = matrix(lookup, |a, b| c.strength(a, b).to_json());
            output(lookup.sorted_keys(&c.winners), vec![("pairwise", pairwise), ("strongest_paths", paths)], ignored)
        }
    }
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
