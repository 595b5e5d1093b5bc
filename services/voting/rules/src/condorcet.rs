//! Pairwise (Condorcet) rules on ranked ballots: Copeland and Schulze.
//!
//! **Pairwise support**: `support(a, b)` is the number of ballots that rank `a` above `b`. A
//! truncated ranking puts every ranked option above every unranked one and leaves unranked
//! options tied (no preference between them); this is pref_voting's *extended strict preference*.
//! The margin of `a` over `b` is `support(a, b) - support(b, a)`; `a` beats `b` when it is
//! positive.
//!
//! **Copeland**: an option's score is the number of options it beats minus the number that beat
//! it (pref_voting's `copeland`, scores `(1, 0, -1)`; the same winners as "1 per win, ½ per
//! tie"). The winners are every option with the highest score.
//!
//! **Schulze** (beat path): the strength of a path `a = x₁ → … → xₖ = b` where each step beats
//! the next is its smallest margin; `p(a, b)` is the strength of the strongest path (0 when there
//! is none). The winners are every option `a` with `p(a, b) ≥ p(b, a)` for all `b`
//! (pref_voting's `beat_path`, which Schulze is, on margins).
//!
//! Both: a Condorcet winner (beats every other option) is the only winner. No ballot: no winner.
//!
//! Weighted ballots ([`WeightedRankings`](crate::weighted::WeightedRankings)): `support(a, b)` is
//! the total weight of the ballots ranking `a` above `b` (an [`Exact`](crate::profile::Exact)
//! sum), margins and path strengths are differences of weights; the definitions are otherwise the
//! same.

use crate::profile::{top_options, OptionIndex, RankedBallots, RankedProfile};
use crate::tally::Tally;
use std::cmp::Ordering;

/// Most options the pairwise rules accept (their matrices are `n × n`, Schulze is `O(n³)`).
pub const MAX_OPTIONS: usize = 1000;

/// The pairwise support matrix of a ranked profile (`C`: `u64` ballots, or exact weights).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairwise<C: Tally = u64> {
    n: usize,
    ballots: C,
    support: Vec<C>,
}

impl<C: Tally> Pairwise<C> {
    /// Counts a ranked profile (grouping identical ballots first when that pays). Callers keep
    /// `profile.n_options()` within [`MAX_OPTIONS`].
    pub fn count<P: RankedProfile<Count = C>>(profile: &P) -> Pairwise<C> {
        match profile.grouped_ballots() {
            Some(g) => Self::count_ballots(&g),
            None => Self::count_ballots(profile),
        }
    }

    pub fn count_ballots<B: RankedBallots<Count = C>>(ballots: &B) -> Pairwise<C> {
        let n = ballots.n_options();
        let zero = C::default();
        // above[a*n + b]: ballots ranking both, a above b. ranked[a]: ballots ranking a.
        let mut above = vec![zero; n * n];
        let mut ranked = vec![zero; n];
        for i in 0..ballots.entries() {
            let w = ballots.weight(i);
            let ranking = ballots.ranking(i);
            for (j, &a) in ranking.iter().enumerate() {
                let a = a as usize;
                let (Some(r), Some(row)) = (ranked.get_mut(a), above.get_mut(a * n..a * n + n)) else {
                    continue;
                };
                *r += w;
                for &b in &ranking[j + 1..] {
                    if let Some(x) = row.get_mut(b as usize) {
                        *x += w;
                    }
                }
            }
        }
        // a above b = both ranked with a above b, plus a ranked and b not:
        // above(a,b) + (ranked(a) - above(a,b) - above(b,a)) = ranked(a) - above(b,a).
        let mut support = vec![zero; n * n];
        for a in 0..n {
            for b in 0..n {
                if a != b {
                    support[a * n + b] = ranked[a] - above[b * n + a];
                }
            }
        }
        Pairwise { n, ballots: ballots.total(), support }
    }

    pub fn n_options(&self) -> usize {
        self.n
    }

    /// Ballots (or weight) counted.
    pub fn ballots(&self) -> C {
        self.ballots
    }

    /// Ballots (or weight) ranking `a` above `b`.
    pub fn support(&self, a: usize, b: usize) -> C {
        self.support[a * self.n + b]
    }

    /// `support(a, b) - support(b, a)`.
    pub fn margin(&self, a: usize, b: usize) -> C::Signed {
        self.support(a, b).margin(self.support(b, a))
    }

    /// The option that beats every other one, if any.
    pub fn condorcet_winner(&self) -> Option<OptionIndex> {
        let zero = C::Signed::default();
        (0..self.n).find(|&a| (0..self.n).all(|b| a == b || self.margin(a, b) > zero)).map(|a| a as OptionIndex)
    }
}

/// The count of a Copeland election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopelandCount<C: Tally = u64> {
    pub pairwise: Pairwise<C>,
    /// Wins minus losses, by option index.
    pub scores: Vec<i64>,
    /// Every option with the highest score, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
}

pub fn copeland<P: RankedProfile>(profile: &P) -> CopelandCount<P::Count> {
    copeland_from(Pairwise::count(profile))
}

pub fn copeland_from<C: Tally>(pairwise: Pairwise<C>) -> CopelandCount<C> {
    let n = pairwise.n;
    let zero = C::Signed::default();
    let sign = |m: C::Signed| match m.cmp(&zero) {
        Ordering::Greater => 1,
        Ordering::Less => -1,
        Ordering::Equal => 0,
    };
    let scores: Vec<i64> = (0..n).map(|a| (0..n).filter(|&b| b != a).map(|b| sign(pairwise.margin(a, b))).sum()).collect();
    let winners = if pairwise.ballots == C::default() { Vec::new() } else { top_options(&scores, |_| true) };
    CopelandCount { pairwise, scores, winners }
}

/// The count of a Schulze election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchulzeCount<C: Tally = u64> {
    pub pairwise: Pairwise<C>,
    /// `p(a, b)` at `a * n + b`: strength (in margins) of the strongest path from `a` to `b`; 0
    /// when there is none and on the diagonal.
    pub strongest_paths: Vec<C::Signed>,
    /// Every undefeated option, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
}

impl<C: Tally> SchulzeCount<C> {
    pub fn strength(&self, a: usize, b: usize) -> C::Signed {
        self.strongest_paths[a * self.pairwise.n + b]
    }
}

pub fn schulze<P: RankedProfile>(profile: &P) -> SchulzeCount<P::Count> {
    schulze_from(Pairwise::count(profile))
}

pub fn schulze_from<C: Tally>(pairwise: Pairwise<C>) -> SchulzeCount<C> {
    let n = pairwise.n;
    let zero = C::Signed::default();
    let mut p = vec![zero; n * n];
    for a in 0..n {
        for b in 0..n {
            if a != b {
                p[a * n + b] = pairwise.margin(a, b).max(zero);
            }
        }
    }
    // Widest paths (Floyd–Warshall with min/max).
    for k in 0..n {
        for a in 0..n {
            if a == k {
                continue;
            }
            let ak = p[a * n + k];
            if ak == zero {
                continue;
            }
            for b in 0..n {
                if b != a && b != k {
                    let via = ak.min(p[k * n + b]);
                    if via > p[a * n + b] {
                        p[a * n + b] = via;
                    }
                }
            }
        }
    }
    let winners = if pairwise.ballots == C::default() {
        Vec::new()
    } else {
        (0..n).filter(|&a| (0..n).all(|b| p[a * n + b] >= p[b * n + a])).map(|a| a as OptionIndex).collect()
    };
    SchulzeCount { pairwise, strongest_paths: p, winners }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::{Exact, RankingProfile};
    use crate::weighted::{Weight, WeightedRankings};

    fn profile(n: usize, ballots: &[(&[u32], usize)]) -> RankingProfile {
        let mut p = RankingProfile::new(n);
        for (b, k) in ballots {
            for _ in 0..*k {
                assert!(p.push(b));
            }
        }
        p
    }

    #[test]
    fn truncation_puts_ranked_above_unranked() {
        let p = profile(3, &[(&[0], 1), (&[1, 2], 1)]);
        let w = Pairwise::count(&p);
        assert_eq!(w.support(0, 1), 1);
        assert_eq!(w.support(0, 2), 1);
        assert_eq!(w.support(1, 0), 1);
        assert_eq!(w.support(1, 2), 1);
        assert_eq!(w.support(2, 0), 1);
        assert_eq!(w.support(2, 1), 0);
    }

    #[test]
    fn cycle_is_a_three_way_tie() {
        let p = profile(3, &[(&[0, 1, 2], 1), (&[1, 2, 0], 1), (&[2, 0, 1], 1)]);
        assert_eq!(copeland(&p).winners, vec![0, 1, 2]);
        assert_eq!(schulze(&p).winners, vec![0, 1, 2]);
        assert_eq!(Pairwise::count(&p).condorcet_winner(), None);
    }

    #[test]
    fn condorcet_winner_wins() {
        let p = profile(3, &[(&[0, 1, 2], 3), (&[1, 2, 0], 1), (&[2, 0, 1], 1)]);
        assert_eq!(Pairwise::count(&p).condorcet_winner(), Some(0));
        assert_eq!(copeland(&p).winners, vec![0]);
        assert_eq!(schulze(&p).winners, vec![0]);
    }

    #[test]
    fn grouped_and_ungrouped_agree() {
        let mut p = RankingProfile::new(4);
        for i in 0..200u32 {
            let r = [[0, 1, 2, 3], [3, 1, 0, 2], [2, 1, 3, 0]][(i * 5 % 3) as usize];
            assert!(p.push(&r[..1 + (i % 4) as usize]));
        }
        let g = p.grouped().expect("grouped");
        assert_eq!(Pairwise::count_ballots(&g), Pairwise::count_ballots(&p));
    }

    #[test]
    fn empty() {
        let p = RankingProfile::new(3);
        assert!(copeland(&p).winners.is_empty());
        assert!(schulze(&p).winners.is_empty());
        let p = RankingProfile::new(0);
        assert!(schulze(&p).winners.is_empty());
    }

    #[test]
    fn weighted_pairwise_counts() {
        // [0, 1, 2] × 1.5, [1, 2, 0] × 1, [2, 0] × 0.75 (1 unranked: below 2 and 0).
        // support(0,1) = 1.5 + 0.75 = 2.25, support(1,0) = 1; support(1,2) = 2.5,
        // support(2,1) = 0.75; support(0,2) = 1.5, support(2,0) = 1.75.
        // Margins: 0 > 1 by 1.25, 1 > 2 by 1.75, 2 > 0 by 0.25: a cycle.
        // Copeland: every option 1 − 1 = 0, a three-way tie.
        // Schulze: p(0,2) = min(1.25, 1.75) = 1.25 > p(2,0) = 0.25, p(1,0) = min(1.75, 0.25)
        // = 0.25 < 1.25, p(2,1) = min(0.25, 1.25) = 0.25 < 1.75: 0 is the only winner.
        let mut p = WeightedRankings::new(3);
        for (r, w) in [(&[0, 1, 2][..], 1.5), (&[1, 2, 0], 1.0), (&[2, 0], 0.75)] {
            assert!(p.push(r, Weight::new(w).unwrap()));
        }
        let e = |x: f64| Exact::from_f64(x).unwrap();
        let w = Pairwise::count(&p);
        assert_eq!((w.support(0, 1), w.support(1, 0)), (e(2.25), e(1.0)));
        assert_eq!((w.support(1, 2), w.support(2, 1)), (e(2.5), e(0.75)));
        assert_eq!((w.support(0, 2), w.support(2, 0)), (e(1.5), e(1.75)));
        assert_eq!(w.condorcet_winner(), None);
        let c = copeland(&p);
        assert_eq!(c.scores, vec![0, 0, 0]);
        assert_eq!(c.winners, vec![0, 1, 2]);
        let s = schulze(&p);
        assert_eq!((s.strength(0, 2), s.strength(2, 0)), (e(1.25), e(0.25)));
        assert_eq!((s.strength(1, 0), s.strength(0, 1)), (e(0.25), e(1.25)));
        assert_eq!(s.winners, vec![0]);
        // The same ballots unweighted: 0 > 1 (2 to 1), 1 > 2 (2 to 1), 2 > 0 (2 to 1): a
        // symmetric cycle, everybody wins Schulze.
        let mut u = RankingProfile::new(3);
        for r in [&[0, 1, 2][..], &[1, 2, 0], &[2, 0]] {
            assert!(u.push(r));
        }
        assert_eq!(schulze(&u).winners, vec![0, 1, 2]);
    }
}
