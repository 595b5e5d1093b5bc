//! Score (range) voting (`scores`: option key → number within `parameters.min ..= parameters.max`,
//! default 0 ..= 10).
//!
//! Each option's score is the sum of the scores ballots give it; an option a ballot leaves out gets
//! nothing from that ballot. Sums are exact (see [`Exact`]), so ballot order never matters. The
//! winners are every option with the highest sum. No ballot: no winner.

use crate::profile::{top_options, Exact, OptionIndex, ScoreProfile};

/// The count of a score election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreCount {
    /// Sum of scores per option, by option index.
    pub totals: Vec<Exact>,
    /// Every option with the highest sum, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
}

pub fn count(profile: &ScoreProfile) -> ScoreCount {
    let mut totals = vec![Exact::ZERO; profile.n_options()];
    for (o, s) in profile.scores() {
        // `ScoreProfile` only holds options in range.
        if let Some(t) = totals.get_mut(o as usize) {
            *t += s;
        }
    }
    let winners = if profile.is_empty() { Vec::new() } else { top_options(&totals, |_| true) };
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
}
