//! Weighted profiles: each ballot with the weight of its vote (the vote document's `weight`,
//! absent = 1). A weighted profile is the unweighted profile of [`crate::profile`] plus a
//! parallel vector of weights, so a ballot is validated exactly as an unweighted one and the
//! rules count it with the same code, over [`Exact`] instead of `u64` (see [`crate::tally`]).
//!
//! A [`Weight`] is a number within [`MIN_WEIGHT`] ..= [`MAX_MAGNITUDE`] (`1e-9 ..= 1e9`),
//! counted to 2⁻³² like every weight and score (the lower bound keeps every weight above zero
//! at that resolution). A weight of `k` (a whole number) counts exactly as `k` copies of the
//! ballot.

use crate::profile::{
    ApprovalProfile, Exact, GroupedRankings, OptionIndex, RankedBallots, RankedProfile, RankingProfile, ScoreProfile, ScoreRange,
    MAX_MAGNITUDE,
};

/// Smallest weight a vote may carry: the bound the create request checks too.
pub use agora_voting_schema::options::MIN_WEIGHT;

/// A vote's weight: a number within `MIN_WEIGHT ..= MAX_MAGNITUDE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Weight(Exact);

impl Weight {
    /// The weight of a vote that carries none.
    pub const ONE: Weight = Weight(Exact::ONE);

    /// `None` unless `w` is a number within `1e-9 ..= 1e9` (so not NaN, infinite, zero or
    /// negative).
    pub fn new(w: f64) -> Option<Weight> {
        if (MIN_WEIGHT..=MAX_MAGNITUDE).contains(&w) {
            Exact::from_f64(w).map(Weight)
        } else {
            None
        }
    }

    /// A whole-number weight (`1 ..= 1e9`).
    pub fn whole(k: u32) -> Option<Weight> {
        Weight::new(f64::from(k))
    }

    pub fn exact(self) -> Exact {
        self.0
    }
}

/// Ranked ballots with a weight each.
#[derive(Debug, Clone)]
pub struct WeightedRankings {
    profile: RankingProfile,
    weights: Vec<Exact>,
    total: Exact,
}

impl WeightedRankings {
    pub fn new(n_options: usize) -> Self {
        Self::with_capacity(n_options, 0)
    }

    pub fn with_capacity(n_options: usize, ballots: usize) -> Self {
        Self { profile: RankingProfile::with_capacity(n_options, ballots), weights: Vec::with_capacity(ballots), total: Exact::ZERO }
    }

    /// Adds a ranking with its weight; `false` (nothing added) as [`RankingProfile::push`].
    pub fn push(&mut self, ranking: &[OptionIndex], weight: Weight) -> bool {
        let ok = self.profile.push(ranking);
        if ok {
            self.weights.push(weight.0);
            self.total += weight.0;
        }
        ok
    }

    /// The ballots without their weights.
    pub fn profile(&self) -> &RankingProfile {
        &self.profile
    }
}

impl RankedBallots for WeightedRankings {
    type Count = Exact;
    fn n_options(&self) -> usize {
        self.profile.n_options()
    }
    fn entries(&self) -> usize {
        self.profile.len()
    }
    #[inline]
    fn ranking(&self, i: usize) -> &[OptionIndex] {
        self.profile.ballot(i)
    }
    #[inline]
    fn weight(&self, i: usize) -> Exact {
        self.weights[i]
    }
    fn total(&self) -> Exact {
        self.total
    }
}

impl RankedProfile for WeightedRankings {
    fn grouped_ballots(&self) -> Option<GroupedRankings<Exact>> {
        self.profile.grouped_by(|i| self.weights[i])
    }
}

/// Approval ballots with a weight each.
#[derive(Debug, Clone)]
pub struct WeightedApprovals {
    profile: ApprovalProfile,
    /// The weight of the ballot of each approval, parallel to `profile.approvals()`.
    weights: Vec<Exact>,
}

impl WeightedApprovals {
    pub fn new(n_options: usize) -> Self {
        Self { profile: ApprovalProfile::new(n_options), weights: Vec::new() }
    }

    /// Adds an approval set with its weight; `false` (nothing added) as [`ApprovalProfile::push`].
    pub fn push(&mut self, approved: &[OptionIndex], weight: Weight) -> bool {
        let ok = self.profile.push(approved);
        if ok {
            self.weights.resize(self.weights.len() + approved.len(), weight.0);
        }
        ok
    }

    pub fn profile(&self) -> &ApprovalProfile {
        &self.profile
    }

    /// Every approval of every ballot with the ballot's weight.
    pub fn approvals(&self) -> impl Iterator<Item = (OptionIndex, Exact)> + '_ {
        self.profile.approvals().iter().copied().zip(self.weights.iter().copied())
    }
}

/// Score ballots with a weight each.
#[derive(Debug, Clone)]
pub struct WeightedScores {
    profile: ScoreProfile,
    /// The weight of the ballot of each (option, score) pair, parallel to `profile.scores()`.
    weights: Vec<Exact>,
}

impl WeightedScores {
    pub fn new(n_options: usize, range: ScoreRange) -> Self {
        Self { profile: ScoreProfile::new(n_options, range), weights: Vec::new() }
    }

    /// Adds a score ballot with its weight; `false` (nothing added) as [`ScoreProfile::push`].
    pub fn push(&mut self, scores: &[(OptionIndex, f64)], weight: Weight) -> bool {
        let ok = self.profile.push(scores);
        if ok {
            self.weights.resize(self.weights.len() + scores.len(), weight.0);
        }
        ok
    }

    pub fn profile(&self) -> &ScoreProfile {
        &self.profile
    }

    /// Every (option, score × weight) pair of every ballot.
    pub fn weighted_scores(&self) -> impl Iterator<Item = (OptionIndex, Exact)> + '_ {
        self.profile.scores().zip(self.weights.iter().copied()).map(|((o, s), w)| (o, s.scaled(w)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_validated() {
        assert_eq!(Weight::new(1.0), Some(Weight::ONE));
        assert!(Weight::new(1e-9).is_some());
        assert!(Weight::new(1e9).is_some());
        for bad in [0.0, -1.0, 5e-10, 1.5e9, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(Weight::new(bad), None, "{bad}");
        }
        assert!(Weight::new(1e-9).unwrap().exact() > Exact::ZERO);
    }

    #[test]
    fn weighted_profiles_refuse_what_unweighted_ones_refuse() {
        let w = Weight::new(2.5).unwrap();
        let mut r = WeightedRankings::new(3);
        assert!(r.push(&[2, 0], w));
        assert!(!r.push(&[0, 0], w));
        assert!(!r.push(&[], w));
        assert_eq!((r.entries(), r.total(), r.weight(0)), (1, w.exact(), w.exact()));
        let mut a = WeightedApprovals::new(2);
        assert!(a.push(&[0, 1], w));
        assert!(!a.push(&[1, 1], w));
        assert_eq!(a.approvals().count(), 2);
        let mut s = WeightedScores::new(2, ScoreRange::DEFAULT);
        assert!(s.push(&[(0, 4.0)], w));
        assert!(!s.push(&[(0, 11.0)], w));
        assert_eq!(s.weighted_scores().collect::<Vec<_>>(), vec![(0, Exact::from_f64(10.0).unwrap())]);
    }

    #[test]
    fn weighted_grouping_sums_weights() {
        let mut r = WeightedRankings::new(2);
        for i in 0..40u32 {
            let ranking: &[u32] = if i % 2 == 0 { &[0, 1] } else { &[1] };
            assert!(r.push(ranking, Weight::whole(i % 3 + 1).unwrap()));
        }
        let g = r.grouped_ballots().expect("2 options, 40 ballots: grouped");
        assert_eq!(g.total(), r.total());
        let mut types: Vec<(Vec<u32>, Exact)> = (0..g.entries()).map(|i| (g.ranking(i).to_vec(), g.weight(i))).collect();
        types.sort();
        let sum = |parity: u32| (0..40u32).filter(|i| i % 2 == parity).map(|i| u64::from(i % 3 + 1)).sum::<u64>();
        assert_eq!(types, vec![(vec![0, 1], Exact::ONE.times(sum(0))), (vec![1], Exact::ONE.times(sum(1)))]);
    }
}
