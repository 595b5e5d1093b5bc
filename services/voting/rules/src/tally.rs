//! What a count adds up: [`Tally`], implemented by `u64` (unweighted ballots, the fast path) and
//! [`Exact`] (weighted ballots: weights and products summed exactly to 2⁻³²). The ranked rules
//! are written once over `Tally`, so a weighted count is the same code as an unweighted one.

use crate::profile::Exact;
use std::fmt::Debug;
use std::hash::Hash;
use std::ops::{Add, AddAssign, Sub};

/// A number of ballots or a total weight. `Default` is zero.
pub trait Tally: Copy + Default + Ord + Debug + Hash + Add<Output = Self> + AddAssign + Sub<Output = Self> {
    /// A difference of two tallies (a pairwise margin).
    type Signed: Copy + Default + Ord + Debug + Hash;
    /// `self × k` (Borda points times a ballot's weight).
    fn times(self, k: u64) -> Self;
    /// `2 × self` (the strict-majority test), saturating for `u64`.
    fn twice(self) -> Self;
    /// `self - other`, signed.
    fn margin(self, other: Self) -> Self::Signed;
}

impl Tally for u64 {
    type Signed = i64;
    #[inline]
    fn times(self, k: u64) -> u64 {
        self.wrapping_mul(k)
    }
    #[inline]
    fn twice(self) -> u64 {
        self.saturating_mul(2)
    }
    #[inline]
    fn margin(self, other: u64) -> i64 {
        self as i64 - other as i64
    }
}

impl Tally for Exact {
    type Signed = Exact;
    #[inline]
    fn times(self, k: u64) -> Exact {
        Exact::times(self, k)
    }
    #[inline]
    fn twice(self) -> Exact {
        self + self
    }
    #[inline]
    fn margin(self, other: Exact) -> Exact {
        self - other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_tallies_agree_on_whole_numbers() {
        let e = |x: f64| Exact::from_f64(x).unwrap();
        assert_eq!(3u64.times(4), 12);
        assert_eq!(e(3.0).times(4), e(12.0));
        assert_eq!(e(2.5).times(3), e(7.5));
        assert_eq!(7u64.twice(), 14);
        assert_eq!(u64::MAX.twice(), u64::MAX);
        assert_eq!(e(7.0).twice(), e(14.0));
        assert_eq!(2u64.margin(5), -3);
        assert_eq!(e(2.0).margin(e(5.0)), e(-3.0));
        assert!(e(0.5).margin(e(0.25)) > Exact::ZERO);
    }
}
