//! Typed ballot profiles over option indices.
//!
//! An option is named by its index in `voting_options_map` (creation order). Profiles keep their
//! ballots in flat arrays (one array of items, one of ballot ends) so that a million ballots are
//! two allocations, and every `push` validates the ballot so that a rule never sees a malformed
//! one: a ballot that does not fit is refused (`push` returns `false`) and the caller counts it as
//! ignored. Weighted profiles (a weight per ballot) wrap these in [`crate::weighted`].

use crate::tally::Tally;

/// The index of an option in `voting_options_map`.
pub type OptionIndex = u32;

/// Largest magnitude accepted for a weight or a score (and for the score range bounds).
pub const MAX_MAGNITUDE: f64 = 1e9;

/// Per-ballot duplicate detection without clearing: an option is "seen" when its stamp equals
/// the current generation.
#[derive(Debug, Clone, Default)]
pub(crate) struct SeenSet {
    stamps: Vec<u32>,
    generation: u32,
}

impl SeenSet {
    pub(crate) fn new(n: usize) -> Self {
        Self { stamps: vec![0; n], generation: 0 }
    }

    /// Starts a new ballot.
    pub(crate) fn reset(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamps.fill(0);
            self.generation = 1;
        }
    }

    /// Marks `i` seen; `false` if it already was (or is out of range).
    pub(crate) fn insert(&mut self, i: usize) -> bool {
        match self.stamps.get_mut(i) {
            Some(s) if *s != self.generation => {
                *s = self.generation;
                true
            }
            _ => false,
        }
    }
}

/// Checks that every option is below `n` and appears once.
fn distinct_in_range(seen: &mut SeenSet, n: usize, options: &[OptionIndex]) -> bool {
    seen.reset();
    options.iter().all(|&o| (o as usize) < n && seen.insert(o as usize))
}

/// Ranked ballots: each a list of distinct options, best first, at least one, possibly truncated
/// (options left out are ranked below every ranked option and tied among themselves).
#[derive(Debug, Clone)]
pub struct RankingProfile {
    n_options: usize,
    items: Vec<OptionIndex>,
    /// End of each ballot in `items` (32 bits: half the memory traffic of `usize`).
    ends: Vec<u32>,
    seen: SeenSet,
}

impl RankingProfile {
    pub fn new(n_options: usize) -> Self {
        Self::with_capacity(n_options, 0)
    }

    /// Room for `ballots` complete rankings.
    pub fn with_capacity(n_options: usize, ballots: usize) -> Self {
        Self {
            n_options,
            items: Vec::with_capacity(ballots.saturating_mul(n_options.min(16))),
            ends: Vec::with_capacity(ballots),
            seen: SeenSet::new(n_options),
        }
    }

    /// Adds a ranking. Returns `false` and adds nothing when it is empty, names an option out of
    /// range or names an option twice (or the profile already holds 2³² − 1 ranked items).
    pub fn push(&mut self, ranking: &[OptionIndex]) -> bool {
        if ranking.is_empty() || !distinct_in_range(&mut self.seen, self.n_options, ranking) {
            return false;
        }
        let Ok(end) = u32::try_from(self.items.len() + ranking.len()) else {
            return false;
        };
        self.items.extend_from_slice(ranking);
        self.ends.push(end);
        true
    }

    pub fn n_options(&self) -> usize {
        self.n_options
    }

    /// Number of ballots held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Ballot `i`, best first (`i < len()`).
    pub fn ballot(&self, i: usize) -> &[OptionIndex] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.items[start..self.ends[i] as usize]
    }

    /// Every ballot, in order.
    pub fn ballots(&self) -> impl Iterator<Item = &[OptionIndex]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(self.ends.iter().copied()).map(move |(s, e)| &self.items[s as usize..e as usize])
    }
}

/// Ranked ballots with multiplicities: what the ranked rules (Borda, instant runoff, Copeland,
/// Schulze) count. Implemented by [`RankingProfile`] (every ballot once, counts `u64`),
/// [`WeightedRankings`](crate::weighted::WeightedRankings) (every ballot once with its weight,
/// counts [`Exact`]) and [`GroupedRankings`] (each distinct ranking once, with its number of
/// ballots or its total weight).
pub trait RankedBallots {
    /// What a count adds up: `u64` ballots, or [`Exact`] weights.
    type Count: Tally;
    fn n_options(&self) -> usize;
    /// Number of entries.
    fn entries(&self) -> usize;
    /// Entry `i`, best first (`i < entries()`).
    fn ranking(&self, i: usize) -> &[OptionIndex];
    /// Ballots (or weight) entry `i` stands for; always positive.
    fn weight(&self, i: usize) -> Self::Count;
    /// Ballots (or weight) in all; zero exactly when there is no entry.
    fn total(&self) -> Self::Count;
}

/// A ranked profile a rule counts: its ballots, and the same grouped when that pays.
pub trait RankedProfile: RankedBallots {
    /// Identical rankings grouped (see [`RankingProfile::grouped`]), or `None` when grouping
    /// would not pay.
    fn grouped_ballots(&self) -> Option<GroupedRankings<Self::Count>>;
}

impl RankedProfile for RankingProfile {
    fn grouped_ballots(&self) -> Option<GroupedRankings<u64>> {
        self.grouped()
    }
}

impl RankedBallots for RankingProfile {
    type Count = u64;
    fn n_options(&self) -> usize {
        self.n_options
    }
    fn entries(&self) -> usize {
        self.ends.len()
    }
    #[inline]
    fn ranking(&self, i: usize) -> &[OptionIndex] {
        self.ballot(i)
    }
    #[inline]
    fn weight(&self, _: usize) -> u64 {
        1
    }
    fn total(&self) -> u64 {
        self.ends.len() as u64
    }
}

/// Most options for which [`RankingProfile::grouped`] groups ballots (its table has
/// `(n+1)^n` entries: 117,649 for 6 options).
pub const GROUP_MAX_OPTIONS: usize = 6;

/// Identical rankings grouped: each distinct ranking once, with its number of ballots (an
/// *anonymous profile*) or, for weighted ballots, their total weight. Counting it gives the same
/// result as counting every ballot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupedRankings<C: Tally = u64> {
    n_options: usize,
    items: Vec<OptionIndex>,
    ends: Vec<usize>,
    counts: Vec<C>,
    total: C,
}

impl<C: Tally> RankedBallots for GroupedRankings<C> {
    type Count = C;
    fn n_options(&self) -> usize {
        self.n_options
    }
    fn entries(&self) -> usize {
        self.ends.len()
    }
    #[inline]
    fn ranking(&self, i: usize) -> &[OptionIndex] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.items[start..self.ends[i]]
    }
    #[inline]
    fn weight(&self, i: usize) -> C {
        self.counts[i]
    }
    fn total(&self) -> C {
        self.total
    }
}

impl RankingProfile {
    /// Groups identical ballots, when that is cheaper than reading every ballot in each round of
    /// a count: at most [`GROUP_MAX_OPTIONS`] options and at least `(n+1)^n / 4` ballots. One pass
    /// maps each ballot to its index in a dense table of all possible rankings (base `n+1`
    /// digits, best option lowest). `None` when grouping would not pay.
    pub fn grouped(&self) -> Option<GroupedRankings> {
        self.grouped_by(|_| 1u64)
    }

    /// [`grouped`](Self::grouped), each ballot `i` counting `weight(i)` (positive).
    pub(crate) fn grouped_by<C: Tally>(&self, weight: impl Fn(usize) -> C) -> Option<GroupedRankings<C>> {
        let n = self.n_options;
        if n == 0 || n > GROUP_MAX_OPTIONS {
            return None;
        }
        let base = n + 1;
        let size = base.pow(n as u32);
        if self.ends.len() < size / 4 {
            return None;
        }
        // Digit weights base^p: independent multiplies instead of a Horner chain.
        let mut pow = [0usize; GROUP_MAX_OPTIONS];
        let mut w = 1;
        for p in pow.iter_mut().take(n) {
            *p = w;
            w *= base;
        }
        let zero = C::default();
        let mut table = vec![zero; size];
        let mut total = zero;
        let mut start = 0;
        for (i, &end) in self.ends.iter().enumerate() {
            let end = end as usize;
            let ballot = &self.items[start..end];
            let key: usize = ballot.iter().zip(&pow).map(|(&o, &w)| (o as usize + 1) * w).sum();
            // A ballot has at most n digits, each 1..=n: key < (n+1)^n.
            if let Some(c) = table.get_mut(key) {
                let w = weight(i);
                *c += w;
                total += w;
            }
            start = end;
        }
        let mut grouped = GroupedRankings { n_options: n, items: Vec::new(), ends: Vec::new(), counts: Vec::new(), total };
        for (key, &count) in table.iter().enumerate() {
            // Weights are positive: a ranking with no ballot is exactly a zero entry.
            if count == zero {
                continue;
            }
            let mut k = key;
            while k > 0 {
                grouped.items.push((k % base - 1) as OptionIndex);
                k /= base;
            }
            grouped.ends.push(grouped.items.len());
            grouped.counts.push(count);
        }
        Some(grouped)
    }
}

/// Approval ballots: each a set of distinct options (possibly empty).
#[derive(Debug, Clone)]
pub struct ApprovalProfile {
    n_options: usize,
    items: Vec<OptionIndex>,
    ballots: usize,
    seen: SeenSet,
}

impl ApprovalProfile {
    pub fn new(n_options: usize) -> Self {
        Self { n_options, items: Vec::new(), ballots: 0, seen: SeenSet::new(n_options) }
    }

    /// Adds an approval set. Returns `false` and adds nothing when it names an option out of range
    /// or names an option twice.
    pub fn push(&mut self, approved: &[OptionIndex]) -> bool {
        if !distinct_in_range(&mut self.seen, self.n_options, approved) {
            return false;
        }
        self.items.extend_from_slice(approved);
        self.ballots += 1;
        true
    }

    pub fn n_options(&self) -> usize {
        self.n_options
    }

    pub fn len(&self) -> usize {
        self.ballots
    }

    pub fn is_empty(&self) -> bool {
        self.ballots == 0
    }

    /// Every approval of every ballot (ballot boundaries do not matter to the count).
    pub fn approvals(&self) -> &[OptionIndex] {
        &self.items
    }
}

/// The inclusive range of valid scores (`parameters.min` ..= `parameters.max`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreRange {
    pub min: f64,
    pub max: f64,
}

impl ScoreRange {
    /// The default range, 0 ..= 10.
    pub const DEFAULT: ScoreRange = ScoreRange { min: 0.0, max: 10.0 };

    /// A range whose bounds are finite, within ±[`MAX_MAGNITUDE`], and `min <= max`.
    pub fn new(min: f64, max: f64) -> Result<Self, String> {
        for (name, v) in [("min", min), ("max", max)] {
            if !v.is_finite() || v.abs() > MAX_MAGNITUDE {
                return Err(format!("parameters.{name} must be a number between -1e9 and 1e9"));
            }
        }
        if min > max {
            return Err(format!("parameters.min ({min}) must not be greater than parameters.max ({max})"));
        }
        Ok(Self { min, max })
    }

    pub fn contains(&self, x: f64) -> bool {
        x >= self.min && x <= self.max
    }
}

impl Default for ScoreRange {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// Score ballots: each a set of (option, score) pairs with distinct options and scores in range
/// (possibly empty; options a ballot leaves out get nothing from it). Scores are kept as
/// [`Exact`] values.
#[derive(Debug, Clone)]
pub struct ScoreProfile {
    n_options: usize,
    range: ScoreRange,
    options: Vec<OptionIndex>,
    /// Scores in units of 2⁻³² (see [`Exact`]).
    units: Vec<i64>,
    ballots: usize,
    seen: SeenSet,
}

impl ScoreProfile {
    pub fn new(n_options: usize, range: ScoreRange) -> Self {
        Self { n_options, range, options: Vec::new(), units: Vec::new(), ballots: 0, seen: SeenSet::new(n_options) }
    }

    /// Adds a score ballot. Returns `false` and adds nothing when it names an option out of range
    /// or twice, or a score is not a finite number within the range.
    pub fn push(&mut self, scores: &[(OptionIndex, f64)]) -> bool {
        self.seen.reset();
        let ok = scores.iter().all(|&(o, s)| (o as usize) < self.n_options && self.range.contains(s) && self.seen.insert(o as usize));
        if !ok {
            return false;
        }
        for &(o, s) in scores {
            // In range, so within ±MAX_MAGNITUDE.
            self.options.push(o);
            self.units.push(Exact::units_of(s).unwrap_or(0));
        }
        self.ballots += 1;
        true
    }

    pub fn n_options(&self) -> usize {
        self.n_options
    }

    pub fn range(&self) -> ScoreRange {
        self.range
    }

    pub fn len(&self) -> usize {
        self.ballots
    }

    pub fn is_empty(&self) -> bool {
        self.ballots == 0
    }

    /// Every (option, score) pair of every ballot.
    pub fn scores(&self) -> impl Iterator<Item = (OptionIndex, Exact)> + '_ {
        self.options.iter().zip(&self.units).map(|(&o, &u)| (o, Exact::from_units(u)))
    }
}

/// An exact sum of weights or scores: each value is truncated (toward zero) to a multiple of
/// 2⁻³² and values are summed as integers, so a total never depends on the order of the ballots
/// (floating-point sums do). Values are within ±[`MAX_MAGNITUDE`], so one fits in 63 bits and a
/// sum of 2⁶⁴ of them in the 128-bit total. Weighted terms ([`Exact::scaled`]: a score or a
/// ballot weight times a vote weight, at most 1e18; [`Exact::times`]: a weight times Borda
/// points) stay below 2⁹⁵, so sums of up to 2³¹ of them are exact too, far more ballots than
/// a task holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Exact(i128);

const EXACT_SCALE: f64 = 4_294_967_296.0; // 2^32

impl Exact {
    pub const ZERO: Exact = Exact(0);
    pub const ONE: Exact = Exact(1 << 32);

    /// `None` unless `x` is finite and within ±[`MAX_MAGNITUDE`].
    #[inline]
    pub fn from_f64(x: f64) -> Option<Exact> {
        Self::units_of(x).map(Self::from_units)
    }

    /// `x` in units of 2⁻³², truncated toward zero; `None` unless finite and within
    /// ±[`MAX_MAGNITUDE`].
    #[inline]
    pub(crate) fn units_of(x: f64) -> Option<i64> {
        if x.abs() <= MAX_MAGNITUDE {
            // |x · 2³²| ≤ 4.3·10¹⁸ < 2⁶³: the cast cannot saturate.
            Some((x * EXACT_SCALE) as i64)
        } else {
            None // NaN fails the comparison too
        }
    }

    #[inline]
    pub(crate) fn from_units(units: i64) -> Exact {
        Exact(i128::from(units))
    }

    pub fn to_f64(self) -> f64 {
        self.0 as f64 / EXACT_SCALE
    }

    /// The integer value, when the sum is a whole number that fits in an `i64`.
    pub fn as_integer(self) -> Option<i64> {
        let scale = 1i128 << 32;
        if self.0 % scale == 0 {
            i64::try_from(self.0 / scale).ok()
        } else {
            None
        }
    }
}

// A value is below 2⁶³ in magnitude, so 2⁶⁴ of them sum below 2¹²⁷: no sum of the values of a
// profile can overflow, and `wrapping_add` (no overflow check) is exact.
impl std::ops::Add for Exact {
    type Output = Exact;
    #[inline]
    fn add(self, rhs: Exact) -> Exact {
        Exact(self.0.wrapping_add(rhs.0))
    }
}

impl std::ops::AddAssign for Exact {
    #[inline]
    fn add_assign(&mut self, rhs: Exact) {
        self.0 = self.0.wrapping_add(rhs.0);
    }
}

impl std::ops::Sub for Exact {
    type Output = Exact;
    #[inline]
    fn sub(self, rhs: Exact) -> Exact {
        Exact(self.0.wrapping_sub(rhs.0))
    }
}

impl Exact {
    /// `self × k`, exact (a weight of at most 1e9 times at most 2³² Borda points is below 2⁹⁵).
    #[inline]
    pub fn times(self, k: u64) -> Exact {
        Exact(self.0.wrapping_mul(i128::from(k)))
    }

    /// `self × other` truncated (toward zero) to a multiple of 2⁻³²; exact when either is a whole
    /// number. Both are at most 1e9 in magnitude (they come from [`Exact::from_f64`]), so the
    /// product of their units is below 2¹²⁶.
    #[inline]
    pub fn scaled(self, other: Exact) -> Exact {
        Exact(self.0.wrapping_mul(other.0) / (1i128 << 32))
    }
}

/// The options whose value is the largest among those `eligible`, in index order. Empty when no
/// option is eligible.
pub fn top_options<T: PartialOrd + Copy>(values: &[T], eligible: impl Fn(usize) -> bool) -> Vec<OptionIndex> {
    let mut best: Option<T> = None;
    for (i, &v) in values.iter().enumerate() {
        if eligible(i) && best.is_none_or(|b| v > b) {
            best = Some(v);
        }
    }
    match best {
        None => Vec::new(),
        Some(b) => values.iter().enumerate().filter(|&(i, &v)| eligible(i) && v == b).map(|(i, _)| i as OptionIndex).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rankings_are_validated() {
        let mut p = RankingProfile::new(3);
        assert!(p.push(&[2, 0]));
        assert!(!p.push(&[]));
        assert!(!p.push(&[0, 0]));
        assert!(!p.push(&[3]));
        assert!(p.push(&[1, 2, 0]));
        assert_eq!(p.len(), 2);
        assert_eq!(p.ballot(0), &[2, 0]);
        assert_eq!(p.ballot(1), &[1, 2, 0]);
        let all: Vec<&[u32]> = p.ballots().collect();
        assert_eq!(all, vec![&[2, 0][..], &[1, 2, 0][..]]);
    }

    #[test]
    fn grouping_keeps_every_ballot() {
        let mut p = RankingProfile::new(3);
        for _ in 0..10 {
            assert!(p.push(&[2, 0]));
            assert!(p.push(&[1, 2, 0]));
            assert!(p.push(&[0]));
        }
        assert!(p.push(&[2, 0]));
        let g = p.grouped().expect("3 options, 31 ballots: grouped");
        assert_eq!(g.total(), 31);
        let mut types: Vec<(Vec<u32>, u64)> = (0..g.entries()).map(|i| (g.ranking(i).to_vec(), g.weight(i))).collect();
        types.sort();
        assert_eq!(types, vec![(vec![0], 10), (vec![1, 2, 0], 10), (vec![2, 0], 11)]);
        assert!(RankingProfile::new(7).grouped().is_none());
        assert!(RankingProfile::new(5).grouped().is_none());
    }

    #[test]
    fn empty_option_set_refuses_everything() {
        let mut p = RankingProfile::new(0);
        assert!(!p.push(&[0]));
        let mut a = ApprovalProfile::new(0);
        assert!(a.push(&[]));
        assert!(!a.push(&[0]));
    }

    #[test]
    fn scores_are_validated() {
        let mut p = ScoreProfile::new(2, ScoreRange::DEFAULT);
        assert!(p.push(&[(0, 10.0), (1, 0.0)]));
        assert!(!p.push(&[(0, 10.5)]));
        assert!(!p.push(&[(0, f64::NAN)]));
        assert!(!p.push(&[(0, 1.0), (0, 2.0)]));
        assert!(p.push(&[]));
        assert_eq!(p.len(), 2);
    }

    #[test]
    fn exact_sums_are_order_independent() {
        let xs = [0.1, 0.2, 0.3, 1e-9, 123.456];
        let a = xs.iter().fold(Exact::ZERO, |s, &x| s + Exact::from_f64(x).unwrap());
        let b = xs.iter().rev().fold(Exact::ZERO, |s, &x| s + Exact::from_f64(x).unwrap());
        assert_eq!(a, b);
        assert_eq!(Exact::from_f64(3.0).unwrap().as_integer(), Some(3));
        assert_eq!(Exact::from_f64(2.5).unwrap().as_integer(), None);
        assert_eq!(Exact::from_f64(2.5).unwrap().to_f64(), 2.5);
        assert!(Exact::from_f64(f64::INFINITY).is_none());
        assert!(Exact::from_f64(2e9).is_none());
        assert!(Exact::from_f64(f64::NAN).is_none());
        assert_eq!(Exact::from_f64(-1e9).unwrap().as_integer(), Some(-1_000_000_000));
    }

    #[test]
    fn top_options_returns_all_ties() {
        assert_eq!(top_options(&[1, 3, 3, 0], |_| true), vec![1, 2]);
        assert_eq!(top_options(&[1, 3, 3, 0], |i| i != 1), vec![2]);
        assert!(top_options::<u64>(&[], |_| true).is_empty());
        assert!(top_options(&[1, 2], |_| false).is_empty());
    }
}
