//! The tie-breaker builtins (§4.5): `{"winner": ..., "rule": ...}`.
//!
//! - `earliest-vote` (§4.5's reference): the option of the earliest vote (by `submission_time`;
//!   equal times keep the order of `votes`, like Python's stable `sorted`) that names a tied
//!   option. A vote names the option of its `selected_option`, exactly as the reference; a vote
//!   **without** `selected_option` (absent or `null`) names its highest-ranked tied option in
//!   `ranking`, else the first tied option listed in `approved`, else its highest-scored tied option
//!   in `scores` (the first listed on equal scores). When no vote names a tied option this is an
//!   error ([`RuleError::NoBallotForTie`]; the reference raises `IndexError`).
//! - `lexicographic`: the smallest tied option key (byte order = Python's `str` order).
//! - `seeded-random`: a tied option drawn uniformly with a deterministic generator:
//!   the tied keys are de-duplicated and sorted; the seed (`parameters.seed`: an integer, used as
//!   its 64-bit two's-complement value, or a string, hashed with 64-bit FNV-1a; absent: the
//!   task's `social_task_id` as a string seed) starts a SplitMix64 sequence; draws at or above the
//!   largest multiple of the number of tied options are rejected (so every option has the same
//!   chance), and the first accepted draw modulo that number picks the winner. Same seed and
//!   same tied set → same winner, on every platform.
//!
//! None of them counts votes, so the votes' weights (see [`crate::weighted`]) change nothing:
//! `earliest-vote` goes by time whatever a vote weighs.

use crate::ballot::{APPROVED, RANKING, SCORES, SELECTED};
use crate::json::field;
use crate::params::{Params, RuleError};
use crate::Vote;
use serde_json::{json, Value};

fn tied_set(winners: &[String]) -> Result<Vec<&str>, RuleError> {
    if winners.is_empty() {
        return Err(RuleError::NoTiedWinners);
    }
    let mut tied: Vec<&str> = winners.iter().map(String::as_str).collect();
    tied.sort_unstable();
    tied.dedup();
    Ok(tied)
}

/// The tied option a vote names, if any (see the module doc).
fn named_option<'v>(vote_data: &'v Value, tied: &[&str]) -> Option<&'v str> {
    let is_tied = |v: &'v Value| v.as_str().filter(|s| tied.contains(s));
    if !vote_data.is_object() {
        return None;
    }
    match field(vote_data, SELECTED) {
        Some(Value::Null) | None => {}
        Some(v) => return is_tied(v),
    }
    if let Some(Value::Array(items)) = field(vote_data, RANKING) {
        return items.iter().find_map(is_tied);
    }
    if let Some(Value::Array(items)) = field(vote_data, APPROVED) {
        return items.iter().find_map(is_tied);
    }
    if let Some(Value::Object(scores)) = field(vote_data, SCORES) {
        let mut best: Option<(&str, f64)> = None;
        for (k, v) in scores {
            if let (true, Some(s)) = (tied.contains(&k.as_str()), v.as_f64()) {
                if best.is_none_or(|(_, b)| s > b) {
                    best = Some((k.as_str(), s));
                }
            }
        }
        return best.map(|(k, _)| k);
    }
    None
}

pub(crate) fn earliest_vote(votes: &[Vote], winners: &[String]) -> Result<Value, RuleError> {
    let tied = tied_set(winners)?;
    let mut best: Option<(&Vote, &str)> = None;
    for v in votes {
        if let Some(o) = named_option(&v.vote_data, &tied) {
            if best.is_none_or(|(b, _)| v.submission_time < b.submission_time) {
                best = Some((v, o));
            }
        }
    }
    match best {
        Some((_, o)) => Ok(json!({"winner": o, "rule": "earliest_vote"})),
        None => Err(RuleError::NoBallotForTie(tied.join(", "))),
    }
}

pub(crate) fn lexicographic(winners: &[String]) -> Result<Value, RuleError> {
    let tied = tied_set(winners)?;
    Ok(json!({"winner": tied[0], "rule": "lexicographic"}))
}

pub(crate) fn seeded_random(winners: &[String], params: &Params<'_>, social_task_id: &str) -> Result<Value, RuleError> {
    let tied = tied_set(winners)?;
    let (seed, shown) = match params.get("seed") {
        None | Some(Value::Null) => (agora_support::fnv1a(social_task_id.as_bytes()), json!(social_task_id)),
        Some(Value::String(s)) => (agora_support::fnv1a(s.as_bytes()), json!(s)),
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => {
            (n.as_u64().or(n.as_i64().map(|i| i as u64)).unwrap_or(0), Value::Number(n.clone()))
        }
        Some(other) => return Err(RuleError::BadParameters(format!("parameters.seed must be an integer or a string, got {other}"))),
    };
    let winner = tied[pick(seed, tied.len())];
    Ok(json!({"winner": winner, "rule": "seeded_random", "seed": shown}))
}

/// Index in `0..n` (n ≥ 1) drawn uniformly from the SplitMix64 sequence started at `seed`.
pub fn pick(seed: u64, n: usize) -> usize {
    let n = n.max(1) as u64;
    let limit = u64::MAX - (u64::MAX % n + 1) % n; // largest multiple of n, minus one
    let mut rng = SplitMix64(seed);
    loop {
        let x = rng.next();
        if x <= limit {
            return (x % n) as usize;
        }
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_is_in_range_and_uniform() {
        let n = 3;
        let mut counts = [0u32; 3];
        for seed in 0..30_000u64 {
            counts[pick(seed, n)] += 1;
        }
        for c in counts {
            assert!((9_500..=10_500).contains(&c), "{counts:?}");
        }
        assert_eq!(pick(7, 1), 0);
        assert_eq!(pick(7, 0), 0);
    }

    #[test]
    fn splitmix_reference_values() {
        // First outputs of SplitMix64 seeded with 0 (reference implementation).
        let mut r = SplitMix64(0);
        assert_eq!(r.next(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next(), 0x6E78_9E6A_A1B9_65F4);
    }
}
