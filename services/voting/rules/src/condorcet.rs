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

use crate::profile::{top_options, OptionIndex, RankedBallots, RankingProfile};

/// Most options the pairwise rules accept (their matrices are `n × n`, Schulze is `O(n³)`).
pub const MAX_OPTIONS: usize = 1000;

/// The pairwise support matrix of a ranked profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairwise {
    n: usize,
    ballots: u64,
    support: Vec<u64>,
}

impl Pairwise {
    /// Counts a ranked profile (grouping identical ballots first when that pays). Callers keep
    /// `profile.n_options()` within [`MAX_OPTIONS`].
    pub fn count(profile: &RankingProfile) -> Pairwise {
        match profile.grouped() {
            Some(g) => Self::count_ballots(&g),
            None => Self::count_ballots(profile),
        }
    }

    pub fn count_ballots<B: RankedBallots>(ballots: &B) -> Pairwise {
        let n = ballots.n_options();
        // above[a*n + b]: ballots ranking both, a above b. ranked[a]: ballots ranking a.
        let mut above = vec![0u64; n * n];
        let mut ranked = vec![0u64; n];
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
        let mut support = vec![0u64; n * n];
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

    /// Ballots counted.
    pub fn ballots(&self) -> u64 {
        self.ballots
    }

    /// Ballots ranking `a` above `b`.
    pub fn support(&self, a: usize, b: usize) -> u64 {
        self.support[a * self.n + b]
    }

    /// `support(a, b) - support(b, a)`.
    pub fn margin(&self, a: usize, b: usize) -> i64 {
        self.support(a, b) as i64 - self.support(b, a) as i64
    }

    /// The option that beats every other one, if any.
    pub fn condorcet_winner(&self) -> Option<OptionIndex> {
        (0..self.n).find(|&a| (0..self.n).all(|b| a == b || self.margin(a, b) > 0)).map(|a| a as OptionIndex)
    }
}

/// The count of a Copeland election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopelandCount {
    pub pairwise: Pairwise,
    /// Wins minus losses, by option index.
    pub scores: Vec<i64>,
    /// Every option with the highest score, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
}

pub fn copeland(profile: &RankingProfile) -> CopelandCount {
    copeland_from(Pairwise::count(profile))
}

pub fn copeland_from(pairwise: Pairwise) -> CopelandCount {
    let n = pairwise.n;
    let scores: Vec<i64> = (0..n).map(|a| (0..n).filter(|&b| b != a).map(|b| pairwise.margin(a, b).signum()).sum()).collect();
    let winners = if pairwise.ballots == 0 { Vec::new() } else { top_options(&scores, |_| true) };
    CopelandCount { pairwise, scores, winners }
}

/// The count of a Schulze election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchulzeCount {
    pub pairwise: Pairwise,
    /// `p(a, b)` at `a * n + b`: strength (in margins) of the strongest path from `a` to `b`; 0
    /// when there is none and on the diagonal.
    pub strongest_paths: Vec<i64>,
    /// Every undefeated option, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
}

impl SchulzeCount {
    pub fn strength(&self, a: usize, b: usize) -> i64 {
        self.strongest_paths[a * self.pairwise.n + b]
    }
}

pub fn schulze(profile: &RankingProfile) -> SchulzeCount {
    schulze_from(Pairwise::count(profile))
}

pub fn schulze_from(pairwise: Pairwise) -> SchulzeCount {
    let n = pairwise.n;
    let mut p = vec![0i64; n * n];
    for a in 0..n {
        for b in 0..n {
            if a != b {
                p[a * n + b] = pairwise.margin(a, b).max(0);
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
            if ak == 0 {
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
    let winners = if pairwise.ballots == 0 {
        Vec::new()
    } else {
        (0..n).filter(|&a| (0..n).all(|b| p[a * n + b] >= p[b * n + a])).map(|a| a as OptionIndex).collect()
    };
    SchulzeCount { pairwise, strongest_paths: p, winners }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
