//! Borda count (`ranking`), exactly as §4.4's reference.
//!
//! With `n` options on the ballot (every key of `voting_options_map`, ranked by anyone or not), the
//! option at position `p` of a ranking (0 = best) gets `n - 1 - p` points; options a truncated
//! ranking leaves out get nothing. This equals "number of options ranked strictly below", with
//! unranked options tied at the bottom (pref_voting's `domination_borda_scores`). The winners are
//! every option with the highest score. No ballot: no winner (the reference would return every
//! option, all at 0; an empty list is what post-award reads as "no qualified votes").

use crate::profile::{top_options, OptionIndex, RankedBallots, RankingProfile};

/// The count of a Borda election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BordaCount {
    /// Points per option, by option index.
    pub scores: Vec<u64>,
    /// Every option with the most points, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
}

/// Counts a profile (grouping identical ballots first when that pays).
pub fn count(profile: &RankingProfile) -> BordaCount {
    match profile.grouped() {
        Some(g) => count_ballots(&g),
        None => count_ballots(profile),
    }
}

pub fn count_ballots<B: RankedBallots>(ballots: &B) -> BordaCount {
    let n = ballots.n_options();
    let mut scores = vec![0u64; n];
    for i in 0..ballots.entries() {
        let w = ballots.weight(i);
        // A ballot holds at most `n` distinct options in range, so `n - 1 - p` never underflows.
        for (p, &o) in ballots.ranking(i).iter().enumerate() {
            if let Some(s) = scores.get_mut(o as usize) {
                *s += w * (n - 1 - p) as u64;
            }
        }
    }
    let winners = if ballots.total() == 0 { Vec::new() } else { top_options(&scores, |_| true) };
    BordaCount { scores, winners }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_points() {
        let mut p = RankingProfile::new(4);
        assert!(p.push(&[1, 0, 2, 3]));
        assert!(p.push(&[0, 1]));
        let c = count(&p);
        assert_eq!(c.scores, vec![3 + 2, 2 + 3, 1, 0]);
        assert_eq!(c.winners, vec![0, 1]);
    }
}
