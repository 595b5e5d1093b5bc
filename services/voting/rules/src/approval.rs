//! Approval voting (`approved`: a set of option keys).
//!
//! Each ballot gives one point to every option it approves; the winners are every option with the
//! most approvals. An empty approval set is a valid ballot (it approves nothing). No ballot: no
//! winner.
//!
//! Weighted ballots ([`WeightedApprovals`]): each approved option gets the ballot's weight; the
//! tally is an [`Exact`] sum.

use crate::profile::{top_options, ApprovalProfile, Exact, OptionIndex};
use crate::tally::Tally;
use crate::weighted::WeightedApprovals;

/// The count of an approval election (`C`: `u64` approvals, or exact weights).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalCount<C: Tally = u64> {
    /// Approvals (or approving weight) per option, by option index.
    pub tally: Vec<C>,
    /// Every option with the most approvals, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
}

pub fn count(profile: &ApprovalProfile) -> ApprovalCount {
    tally(profile.n_options(), profile.approvals().iter().map(|&o| (o, 1u64)), profile.is_empty())
}

pub fn count_weighted(profile: &WeightedApprovals) -> ApprovalCount<Exact> {
    let p = profile.profile();
    tally(p.n_options(), profile.approvals(), p.is_empty())
}

fn tally<C: Tally>(n_options: usize, approvals: impl Iterator<Item = (OptionIndex, C)>, no_ballot: bool) -> ApprovalCount<C> {
    let mut tally = vec![C::default(); n_options];
    for (o, w) in approvals {
        // Profiles only hold options in range.
        if let Some(t) = tally.get_mut(o as usize) {
            *t += w;
        }
    }
    let winners = if no_ballot { Vec::new() } else { top_options(&tally, |_| true) };
    ApprovalCount { tally, winners }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        let mut p = ApprovalProfile::new(3);
        assert!(p.push(&[0, 2]));
        assert!(p.push(&[2]));
        assert!(p.push(&[]));
        let c = count(&p);
        assert_eq!(c.tally, vec![1, 0, 2]);
        assert_eq!(c.winners, vec![2]);
        assert!(count(&ApprovalProfile::new(3)).winners.is_empty());
    }

    #[test]
    fn weighted_counts() {
        // [0, 2] × 0.5, [1] × 1, [2] × 0.25: 0: 0.5, 1: 1, 2: 0.75.
        use crate::weighted::Weight;
        let mut p = WeightedApprovals::new(3);
        for (a, w) in [(&[0, 2][..], 0.5), (&[1], 1.0), (&[2], 0.25), (&[], 7.0)] {
            assert!(p.push(a, Weight::new(w).unwrap()));
        }
        let c = count_weighted(&p);
        let e = |x: f64| Exact::from_f64(x).unwrap();
        assert_eq!(c.tally, vec![e(0.5), e(1.0), e(0.75)]);
        assert_eq!(c.winners, vec![1]);
        assert!(count_weighted(&WeightedApprovals::new(3)).winners.is_empty());
    }
}
