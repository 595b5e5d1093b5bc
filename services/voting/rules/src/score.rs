//! Score (range) voting (`scores`: option key → number within `parameters.min ..= parameters.max`,
//! default 0 ..= 10).
//!
//! Each option's score is the sum of the scores ballots give it; an option a ballot leaves out gets
//! nothing from that ballot. Sums are exact (see [`Exact`]), so ballot order never matters. The
//! winners are every option with the highest sum. No ballot: no winner.
//!
//! Weighted ballots ([`WeightedScores`]): each score is multiplied by the ballot's weight (the
//! product truncated to 2⁻³², exact when the weight is whole) and the products are summed. The
//! rule sums and never averages, so there is no average to weight: an option's score is
//! `Σ weight × score` over the ballots that score it.

use crate::profile::{top_options, Exact, OptionIndex, ScoreProfile};
use crate::weighted::WeightedScores;

/// The count of a score election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreCount {
    /// Sum of scores per option, by option index.
    pub totals: Vec<Exact>,
    /// Every option with the highest sum, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
}

pub fn count(profile: &ScoreProfile) -> ScoreCount {
    sum(profile.n_options(), profile.scores(), profile.is_empty())
}

pub fn count_weighted(profile: &WeightedScores) -> ScoreCount {
    let p = profile.profile();
    sum(p.n_options(), profile.weighted_scores(), p.is_empty())
}

fn sum(n_options: usize, scores: impl Iterator<Item = (OptionIndex, Exact)>, no_ballot: bool) -> ScoreCount {
    let mut totals = vec![Exact::ZERO; n_options];
    for (o, s) in scores {
        // Profiles only hold options in range.
        if let Some(t) = totals.get_mut(o as usize) {
            *t += s;
        }
    }
    let winners = if no_ballot { Vec::new() } else { top_options(&totals, |_| true) };
    ScoreCount { totals, winners }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::ScoreRange;

    #[test]
    fn sums() {
        let mut p = ScoreProfile::new(3, ScoreRange::DEFAULT);
        assert!(p.push(&[(0, 7.5), (1, 10.0)]));
        assert!(p.push(&[(0, 2.5)]));
        let c = count(&p);
        assert_eq!(c.totals[0].to_f64(), 10.0);
        assert_eq!(c.winners, vec![0, 1]);
    }

    #[test]
    fn weighted_sums() {
        // {0: 7.5, 1: 10} × 0.5 → 3.75, 5; {0: 2.5} × 3 → 7.5; {1: -1} × 2 (range −5..10) → −2.
        // 0: 11.25, 1: 3.
        use crate::weighted::Weight;
        let mut p = WeightedScores::new(2, ScoreRange::new(-5.0, 10.0).unwrap());
        for (s, w) in [(&[(0, 7.5), (1, 10.0)][..], 0.5), (&[(0, 2.5)], 3.0), (&[(1, -1.0)], 2.0)] {
            assert!(p.push(s, Weight::new(w).unwrap()));
        }
        let c = count_weighted(&p);
        assert_eq!(c.totals[0].to_f64(), 11.25);
        assert_eq!(c.totals[1].as_integer(), Some(3));
        assert_eq!(c.winners, vec![0]);
    }
}
