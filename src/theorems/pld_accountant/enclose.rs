//! The two ways a number enters the accountant's `f64` interval arithmetic: a float the code
//! chose (a grid heuristic, a constant) as the point interval it is, and an exact rational as
//! the tightest interval holding it.
use super::Interval;
use crate::num::{F64Interval, Real};
use rug::Rational;

/// The point interval [x, x]. A NaN gives ENTIRE: a widening, so every use stays an enclosure
/// (a mass enclosed by ENTIRE is then refused by `Ctx::fixed` on the upper side and counted as 0,
/// a sub-measure, on the lower side).
pub(super) fn point(x: f64) -> Interval {
    Interval::try_from((x, x)).unwrap_or(Interval::ENTIRE)
}

/// The tightest `f64` interval holding the exact rational `r` (its ends rounded outward).
pub(super) fn rational(r: &Rational) -> Interval {
    F64Interval::from_rational(r, 53).0
}
