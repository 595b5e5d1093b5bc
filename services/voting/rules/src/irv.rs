//! Instant runoff (`ranking`; also known as ranked choice, Hare, alternative vote).
//!
//! Each round counts every ballot for its highest-ranked option still in the race; a ballot whose
//! ranked options are all out is *exhausted* and counts for nobody.
//!
//! 1. If an option has a strict majority of the ballots counted this round (more than half of
//!    the non-exhausted ballots), it is the only winner.
//! 2. Otherwise, if every option still in the race has the same count, they all win (tie).
//! 3. Otherwise **every** option with the fewest votes this round is eliminated at once
//!    (simultaneous elimination: no ballot order, option order or coin decides a tie at the
//!    bottom), and the next round starts.
//!
//! Options nobody ranks first are eliminated together in the first round. This is
//! pref_voting's `instant_runoff` (no `tie_breaker`): same winners on complete and truncated
//! ballots. The outcome does not depend on the order of the ballots. No ballot: no winner, no
//! round.
//!
//! Weighted ballots ([`WeightedRankings`](crate::weighted::WeightedRankings)): every count is a
//! sum of weights: first preferences, transfers (a transferred ballot carries its whole weight)
//! and the exhausted weight; the majority is more than half the weight of the non-exhausted
//! ballots.

use crate::profile::{OptionIndex, RankedBallots, RankedProfile};
use crate::tally::Tally;

/// One round of the count (`C`: `u64` ballots, or exact weights).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round<C: Tally = u64> {
    /// Votes of every option still in the race this round, in index order.
    pub counts: Vec<(OptionIndex, C)>,
    /// Options eliminated at the end of this round, in index order (empty in the last round).
    pub eliminated: Vec<OptionIndex>,
    /// Ballots (or weight) exhausted so far (all their ranked options eliminated).
    pub exhausted: C,
}

/// The count of an instant-runoff election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrvCount<C: Tally = u64> {
    pub rounds: Vec<Round<C>>,
    /// The majority winner, or every option tied in the last round, in index order; empty
    /// without ballots.
    pub winners: Vec<OptionIndex>,
}

const EXHAUSTED: OptionIndex = OptionIndex::MAX;

/// Counts a profile (grouping identical ballots first when that pays).
pub fn count<P: RankedProfile>(profile: &P) -> IrvCount<P::Count> {
    match profile.grouped_ballots() {
        Some(g) => count_ballots(&g),
        None => count_ballots(profile),
    }
}

pub fn count_ballots<B: RankedBallots>(ballots: &B) -> IrvCount<B::Count> {
    let n = ballots.n_options();
    let total = ballots.total();
    let zero = B::Count::default();
    if total == zero || n == 0 {
        return IrvCount { rounds: Vec::new(), winners: Vec::new() };
    }
    let entries = ballots.entries();
    // Every entry's current choice and its position in the ranking.
    let mut top: Vec<OptionIndex> = Vec::with_capacity(entries);
    let mut pos: Vec<u32> = vec![0; entries];
    let mut counts = vec![zero; n];
    for i in 0..entries {
        let o = ballots.ranking(i).first().copied().unwrap_or(EXHAUSTED);
        top.push(o);
        if let Some(c) = counts.get_mut(o as usize) {
            *c += ballots.weight(i);
        }
    }
    let mut in_race = vec![true; n];
    let mut exhausted = zero;
    let mut rounds = Vec::new();

    loop {
        let counted = total - exhausted;
        let round_counts: Vec<(OptionIndex, B::Count)> = (0..n).filter(|&o| in_race[o]).map(|o| (o as OptionIndex, counts[o])).collect();
        let (leader, most) = round_counts.iter().copied().max_by_key(|&(o, c)| (c, std::cmp::Reverse(o))).unwrap_or((0, zero));
        let fewest = round_counts.iter().map(|&(_, c)| c).min().unwrap_or(zero);
        let winners = if most.twice() > counted {
            Some(vec![leader])
        } else if fewest == most {
            Some(round_counts.iter().map(|&(o, _)| o).collect())
        } else {
            None
        };
        if let Some(winners) = winners {
            rounds.push(Round { counts: round_counts, eliminated: Vec::new(), exhausted });
            return IrvCount { rounds, winners };
        }
        let eliminated: Vec<OptionIndex> = round_counts.iter().filter(|&&(_, c)| c == fewest).map(|&(o, _)| o).collect();
        rounds.push(Round { counts: round_counts, eliminated: eliminated.clone(), exhausted });
        for &o in &eliminated {
            in_race[o as usize] = false;
            counts[o as usize] = zero;
        }

        // Transfer the ballots of the eliminated options.
        for (i, t) in top.iter_mut().enumerate() {
            if *t == EXHAUSTED || in_race[*t as usize] {
                continue;
            }
            let ranking = ballots.ranking(i);
            let mut p = pos[i] as usize + 1;
            while p < ranking.len() && !in_race[ranking[p] as usize] {
                p += 1;
            }
            let w = ballots.weight(i);
            if p < ranking.len() {
                *t = ranking[p];
                pos[i] = p as u32;
                counts[ranking[p] as usize] += w;
            } else {
                *t = EXHAUSTED;
                exhausted += w;
            }
        }
    }
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
    fn tennessee() {
        // Memphis 0, Nashville 1, Chattanooga 2, Knoxville 3.
        let p = profile(4, &[(&[0, 1, 2, 3], 42), (&[1, 2, 3, 0], 26), (&[2, 3, 1, 0], 15), (&[3, 2, 1, 0], 17)]);
        let c = count(&p);
        assert_eq!(c.winners, vec![3]);
        assert_eq!(c.rounds.len(), 3);
        assert_eq!(c.rounds[0].eliminated, vec![2]);
        assert_eq!(c.rounds[1].eliminated, vec![1]);
        assert_eq!(c.rounds[2].counts, vec![(0, 42), (3, 58)]);
    }

    #[test]
    fn simultaneous_elimination_and_exhaustion() {
        let p = profile(4, &[(&[0], 3), (&[1, 0], 2), (&[2, 1], 2), (&[3], 1)]);
        let c = count(&p);
        // Round 1: 0:3 1:2 2:2 3:1 -> eliminate 3 (exhausts its ballot).
        // Round 2: 0:3 1:2 2:2 of 7 -> eliminate 1 and 2 together -> 0 gets 2, 2's ballots go to 1 (out) and exhaust.
        assert_eq!(c.rounds[0].eliminated, vec![3]);
        assert_eq!(c.rounds[1].eliminated, vec![1, 2]);
        assert_eq!(c.rounds[2].counts, vec![(0, 5)]);
        assert_eq!(c.rounds[2].exhausted, 3);
        assert_eq!(c.winners, vec![0]);
    }

    #[test]
    fn grouped_and_ungrouped_agree() {
        let mut p = RankingProfile::new(3);
        for i in 0..40u32 {
            let r = [[0, 1, 2], [1, 0, 2], [2, 1, 0], [2, 0, 1]][(i * 7 % 4) as usize];
            assert!(p.push(&r[..1 + (i % 3) as usize]));
        }
        let g = p.grouped().expect("grouped");
        assert_eq!(count_ballots(&g), count_ballots(&p));
    }

    #[test]
    fn full_tie() {
        let p = profile(3, &[(&[0, 1, 2], 1), (&[1, 2, 0], 1), (&[2, 0, 1], 1)]);
        let c = count(&p);
        assert_eq!(c.winners, vec![0, 1, 2]);
        assert_eq!(c.rounds.len(), 1);
    }

    #[test]
    fn weighted_rounds() {
        // [0] × 3.5, [1, 2] × 2, [2, 1] × 1.5, [3, 1] × 1: total 8, majority needs more than 4.
        // Round 1: 0: 3.5, 1: 2, 2: 1.5, 3: 1 → eliminate 3, its 1 goes to 1.
        // Round 2: 0: 3.5, 1: 3, 2: 1.5 → eliminate 2, its 1.5 goes to 1.
        // Round 3: 0: 3.5, 1: 4.5 of 8 → 1 wins with a majority (weighted plurality would
        // elect 0).
        let mut p = WeightedRankings::new(4);
        for (r, w) in [(&[0][..], 3.5), (&[1, 2], 2.0), (&[2, 1], 1.5), (&[3, 1], 1.0)] {
            assert!(p.push(r, Weight::new(w).unwrap()));
        }
        let c = count(&p);
        let e = |x: f64| Exact::from_f64(x).unwrap();
        assert_eq!(c.rounds.len(), 3);
        assert_eq!(c.rounds[0].counts, vec![(0, e(3.5)), (1, e(2.0)), (2, e(1.5)), (3, e(1.0))]);
        assert_eq!(c.rounds[0].eliminated, vec![3]);
        assert_eq!(c.rounds[1].counts, vec![(0, e(3.5)), (1, e(3.0)), (2, e(1.5))]);
        assert_eq!(c.rounds[1].eliminated, vec![2]);
        assert_eq!(c.rounds[2].counts, vec![(0, e(3.5)), (1, e(4.5))]);
        assert_eq!(c.winners, vec![1]);

        // Exhausted weight: [0] × 2, [1] × 1.25, [2] × 1.25 → 1 and 2 tie last and go together,
        // exhausting 2.5; 0 wins alone with 2 of 2.
        let mut p = WeightedRankings::new(3);
        for (r, w) in [(&[0][..], 2.0), (&[1], 1.25), (&[2], 1.25)] {
            assert!(p.push(r, Weight::new(w).unwrap()));
        }
        let c = count(&p);
        assert_eq!(c.rounds[0].eliminated, vec![1, 2]);
        assert_eq!(c.rounds[1].exhausted, e(2.5));
        assert_eq!(c.winners, vec![0]);
    }
}
