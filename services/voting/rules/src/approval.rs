//! Approval voting (`approved`: a set of option keys).
//!
//! Each ballot gives one point to every option it approves; the winners are every option with the
//! most approvals. An empty approval set is a valid ballot (it approves nothing). No ballot: no
//! winner.

use crate::profile::{top_options, ApprovalProfile};

/// The count of an approval election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalCount {
    /// Approvals per option, by option index.
    pub tally: Vec<u64>,
    /// Every option with the most approvals, in index order; empty without ballots.
    pub winners: Vec<crate::OptionIndex>,
}

pub fn count(profile: &ApprovalProfile) -> ApprovalCount {
    let mut tally = vec![0u64; profile.n_options()];
    for &o in profile.approvals() {
        // `ApprovalProfile` only holds options in range.
        if let Some(t) = tally.get_mut(o as usize) {
            *t += 1;
        }
    }
    let winners = if profile.is_empty() { Vec::new() } else { top_options(&tally, |_| true) };
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
}
