//! Plurality and weighted plurality (single-choice ballots, `selected_option`).
//!
//! **Plurality** (§4.4's reference): each ballot gives one point to its option; the tally lists the
//! options that got at least one ballot, in order of their first ballot (Python's `Counter`
//! order); the winners are every option with the largest count. No ballot: no winner, empty tally.
//!
//! **Weighted plurality**: the same with each ballot worth its `weight` (a finite number in
//! `0 ..= 1e9`, default 1). Weights are summed exactly (see [`Exact`]) so that the order of the
//! ballots never matters; a ballot whose weight is invalid is ignored. The tally lists every option
//! named by a counted ballot, even with a total of 0.
//!
//! **Weighted votes** (the vote document's `weight`, see [`crate::weighted`]): plurality sums the
//! votes' weights per option; weighted plurality sums `vote weight × vote_data.weight` (the
//! product truncated to 2⁻³², exact when either is whole). Both count through [`count_exact`].

use crate::profile::{top_options, Exact, OptionIndex};

/// The count of a plurality election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluralityCount {
    /// Ballots per option, by option index.
    pub counts: Vec<u64>,
    /// Options with at least one ballot, in the order of their first ballot.
    pub first_seen: Vec<OptionIndex>,
    /// Every option with the largest count, in index order; empty without ballots.
    pub winners: Vec<OptionIndex>,
    /// Ballots naming an option out of range.
    pub ignored: u64,
}

/// Counts single-choice ballots over `n_options` options.
pub fn count(n_options: usize, choices: &[OptionIndex]) -> PluralityCount {
    let counts = if n_options <= COMPARE_MAX { count_by_compare(n_options, choices) } else { count_by_lanes(n_options, choices) };
    let counted: u64 = counts.iter().sum();
    let ignored = choices.len() as u64 - counted;
    let first_seen = first_seen(&counts, choices);
    let winners = top_options(&counts, |i| counts[i] > 0);
    PluralityCount { counts, first_seen, winners, ignored }
}

/// Up to this many options, one vectorizable compare-and-add pass per option beats scattered
/// increments.
const COMPARE_MAX: usize = 8;

fn count_by_compare(n_options: usize, choices: &[OptionIndex]) -> Vec<u64> {
    let mut counts = vec![0u64; n_options];
    // Blocks small enough to stay in cache, and to keep the per-block u32 sums from overflowing.
    for block in choices.chunks(1 << 15) {
        for (o, c) in counts.iter_mut().enumerate() {
            let o = o as OptionIndex;
            *c += u64::from(block.iter().map(|&x| u32::from(x == o)).sum::<u32>());
        }
    }
    counts
}

fn count_by_lanes(n_options: usize, choices: &[OptionIndex]) -> Vec<u64> {
    // Four interleaved tallies break the store-to-load dependency when consecutive ballots name
    // the same option.
    let mut lanes = vec![[0u64; 4]; n_options];
    let mut chunks = choices.chunks_exact(4);
    for c in &mut chunks {
        for (lane, &o) in c.iter().enumerate() {
            if let Some(t) = lanes.get_mut(o as usize) {
                t[lane] += 1;
            }
        }
    }
    for &o in chunks.remainder() {
        if let Some(t) = lanes.get_mut(o as usize) {
            t[0] += 1;
        }
    }
    lanes.iter().map(|t| t.iter().sum()).collect()
}

/// The options with a positive count, in the order of their first ballot. Stops scanning as soon
/// as every such option has been seen.
fn first_seen(counts: &[u64], choices: &[OptionIndex]) -> Vec<OptionIndex> {
    let wanted = counts.iter().filter(|&&c| c > 0).count();
    let mut seen = vec![false; counts.len()];
    let mut order = Vec::with_capacity(wanted);
    for &o in choices {
        if order.len() == wanted {
            break;
        }
        if let Some(s) = seen.get_mut(o as usize) {
            if !*s {
                *s = true;
                order.push(o);
            }
        }
    }
    order
}

/// The count of a weighted plurality election.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WeightedCount {
    /// Total weight per option, by option index.
    pub totals: Vec<Exact>,
    /// Options named by at least one counted ballot, in the order of their first ballot.
    pub first_seen: Vec<OptionIndex>,
    /// Every option in `first_seen` with the largest total, in index order.
    pub winners: Vec<OptionIndex>,
    /// Ballots naming an option out of range or carrying an invalid weight.
    pub ignored: u64,
}

/// Counts `(option, weight)` ballots over `n_options` options; a weight that is not a number
/// in `0 ..= 1e9` is ignored.
pub fn count_weighted(n_options: usize, ballots: &[(OptionIndex, f64)]) -> WeightedCount {
    count_exact_or_not(n_options, ballots.iter().map(|&(o, w)| (o, if w >= 0.0 { Exact::from_f64(w) } else { None })))
}

/// Counts `(option, weight)` ballots whose weights are already exact (and not negative).
pub fn count_exact(n_options: usize, ballots: &[(OptionIndex, Exact)]) -> WeightedCount {
    count_exact_or_not(n_options, ballots.iter().map(|&(o, w)| (o, Some(w))))
}

/// Counts ballots; `None` weights are ignored.
fn count_exact_or_not(n_options: usize, ballots: impl Iterator<Item = (OptionIndex, Option<Exact>)>) -> WeightedCount {
    let mut totals = vec![Exact::ZERO; n_options];
    let mut named = vec![false; n_options];
    let mut first_seen = Vec::new();
    let mut ignored = 0u64;
    for (o, weight) in ballots {
        match (totals.get_mut(o as usize), weight) {
            (Some(t), Some(w)) => {
                *t += w;
                let named = &mut named[o as usize];
                if !*named {
                    *named = true;
                    first_seen.push(o);
                }
            }
            _ => ignored += 1,
        }
    }
    let winners = top_options(&totals, |i| named[i]);
    WeightedCount { totals, first_seen, winners, ignored }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_ties() {
        let c = count(3, &[1, 0, 1, 0, 5]);
        assert_eq!(c.counts, vec![2, 2, 0]);
        assert_eq!(c.first_seen, vec![1, 0]);
        assert_eq!(c.winners, vec![0, 1]);
        assert_eq!(c.ignored, 1);
    }

    #[test]
    fn both_counting_paths_agree() {
        let choices: Vec<u32> = (0..100_003u32).map(|i| (i * 7919) % 13).collect();
        for n in [1, 5, 8, 9, 13] {
            assert_eq!(count_by_compare(n, &choices), count_by_lanes(n, &choices), "{n}");
        }
    }

    #[test]
    fn no_ballots_no_winner() {
        let c = count(3, &[]);
        assert!(c.winners.is_empty());
        assert!(c.first_seen.is_empty());
        let c = count(0, &[0, 1]);
        assert!(c.winners.is_empty());
        assert_eq!(c.ignored, 2);
    }

    #[test]
    fn weighted() {
        let c = count_weighted(3, &[(0, 2.5), (1, 1.0), (1, 1.0), (2, -1.0), (2, f64::NAN)]);
        assert_eq!(c.winners, vec![0]);
        assert_eq!(c.first_seen, vec![0, 1]);
        assert_eq!(c.ignored, 2);
        let c = count_weighted(2, &[(1, 0.0)]);
        assert_eq!(c.winners, vec![1]);
    }

    #[test]
    fn exact_weights() {
        // 0 × 1.5, 1 × 2, 0 × 1, 7 (out of range) × 1: 0: 2.5, 1: 2.
        let e = |x: f64| Exact::from_f64(x).unwrap();
        let c = count_exact(2, &[(0, e(1.5)), (1, e(2.0)), (0, e(1.0)), (7, e(1.0))]);
        assert_eq!(c.totals, vec![e(2.5), e(2.0)]);
        assert_eq!(c.first_seen, vec![0, 1]);
        assert_eq!(c.winners, vec![0]);
        assert_eq!(c.ignored, 1);
    }
}
