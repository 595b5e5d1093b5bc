//! Borda count (`ranking`), exactly as §4.4's reference.
//!
//! With `n` options on the ballot (every key of `voting_options_map`, ranked by anyone or not), the
//! option at position `p` of a ranking (0 = best) gets `n - 1 - p` points; options a truncated
//! ranking leaves out get nothing. This equals "number of options ranked strictly below", with
//! unranked options tied at the bottom (pref_voting's `domination_borda_scores`). The winners are
//! every option with the highest score. No ballot: no winner (the reference would return every
//! option, all at 0; an empty list is what post-award reads as "no qualified votes").
//!
//! Weighted ballots ([`WeightedRankings`](crate::weighted::WeightedRankings)): each ballot's
//! points are multiplied by its weight, so the scores are [`Exact`](crate::profile::Exact)
//! sums.

use crate::profile::{top_options, OptionIndex, RankedBallots, RankedProfile};
use crate::tally::Tally;

/// The count of a Borda election (`C`: `u64` points, or exact weighted points).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BordaCount<C: Tally = u64> {
    /// Points per option, by option index.
    pub scores: Vec<C>,
    /// Every option with the most points, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
}

/// Counts a profile (grouping identical ballots first when that pays).
pub fn count<P: RankedProfile>(profile: &P) -> BordaCount<P::Count> {
    match profile.grouped_ballots() {
        Some(g) => count_ballots(&g),
        None => count_ballots(profile),
    }
}

pub fn count_ballots<B: RankedBallots>(ballots: &B) -> BordaCount<B::Count> {
    let n = ballots.n_options();
    let zero = B::Count::default();
    let mut scores = vec![zero; n];
    for i in 0..ballots.entries() {
        let w = ballots.weight(i);
        // A ballot holds at most `n` distinct options in range, so `n - 1 - p` never underflows.
        for (p, &o) in ballots.ranking(i).iter().enumerate() {
            if let Some(s) = scores.get_mut(o as usize) {
                *s += w.times((n - 1 - p) as u64);
            }
        }
    }
    let winners = if ballots.total() == zero { Vec::new() } else { top_options(&scores, |_| true) };
    BordaCount { scores, winners }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Exact, RankingProfile};
    use crate::weighted::{Weight, WeightedRankings};

    #[test]
    fn reference_points() {
        let mut p = RankingProfile::new(4);
        assert!(p.push(&[1, 0, 2, 3]));
        assert!(p.push(&[0, 1]));
        let c = count(&p);
        assert_eq!(c.scores, vec![3 + 2, 2 + 3, 1, 0]);
        assert_eq!(c.winners, vec![0, 1]);
    }

    #[test]
    fn weighted_points() {
        // 3 options: a ballot gives 2, 1, 0 points, times its weight.
        // [0, 1, 2] × 1.5 → 0: 3, 1: 1.5; [2, 1] × 2 → 2: 4, 1: 2; [1] × 0.25 → 1: 0.5.
        let mut p = WeightedRankings::new(3);
        assert!(p.push(&[0, 1, 2], Weight::new(1.5).unwrap()));
        assert!(p.push(&[2, 1], Weight::new(2.0).unwrap()));
        assert!(p.push(&[1], Weight::new(0.25).unwrap()));
        let c = count(&p);
        let e = |x: f64| Exact::from_f64(x).unwrap();
        assert_eq!(c.scores, vec![e(3.0), e(4.0), e(4.0)]);
        assert_eq!(c.winners, vec![1, 2]);
    }
}
