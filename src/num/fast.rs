//! `f64` interval backend on [`Interval`] (src/num/interval.rs), portable: no `-Ctarget-cpu`
//! and no FPU rounding-mode switches. Its `+ − × ÷ √` are sound because IEEE 754 rounds them
//! correctly — a round-to-nearest result lies within ½ ulp of the exact value, so the exact value
//! lies strictly between the result's neighbours `next_down`/`next_up`; each endpoint is taken
//! there (or, where an error-free transformation gives the sign of the error, at the exact
//! directed rounding). `exp` is `interval::exp_point` (this arithmetic, a table and an enclosed
//! Taylor remainder; MPFR beyond |x| > 700); `ln` goes through MPFR at 53 bits with directed
//! rounding.
//!
//! `expm1` is MPFR's directed rounding at 53 bits, bit for bit (`interval::expm1_directed`,
//! MPFR itself where that declines), `ln1p` by
//! `interval::ln1p_point` (MPFR where that declines), and Φ by
//! [`super::normal::phi_enclosure`]. `conformance/` measures the widths against inari and
//! MPFR: `expm1` and `from_rational` are the tightest `f64` enclosures; `pow` (= exp(y·ln x))
//! lies within 4·|y·ln x| + 2 steps of the tightest per endpoint.
use super::interval::{interval_or_entire, Interval};
use super::{normal, Arithmetic, Real};
use rug::float::Round;
use rug::{Float, Rational};

/// An `f64` interval.
#[derive(Clone, Copy, Debug)]
pub struct F64Interval(pub Interval);

impl Real for F64Interval {
    fn from_rational(r: &Rational, _prec: u32) -> F64Interval {
        let lo = Float::with_val_round(53, r, Round::Down)
            .0
            .to_f64_round(Round::Down);
        let hi = Float::with_val_round(53, r, Round::Up)
            .0
            .to_f64_round(Round::Up);
        F64Interval(interval_or_entire(lo, hi))
    }
    /// Exact for |v| ≤ 2⁵³ without MPFR (the hot loops of `mills` call it per level).
    fn from_int(v: i64, prec: u32) -> F64Interval {
        if v.unsigned_abs() <= 1 << 53 {
            return F64Interval(interval_or_entire(v as f64, v as f64));
        }
        F64Interval::from_rational(&Rational::from(v), prec)
    }
    fn add(&self, o: &F64Interval) -> F64Interval {
        F64Interval(self.0 + o.0)
    }
    fn sub(&self, o: &F64Interval) -> F64Interval {
        F64Interval(self.0 - o.0)
    }
    fn mul(&self, o: &F64Interval) -> F64Interval {
        F64Interval(self.0 * o.0)
    }
    fn div(&self, o: &F64Interval) -> F64Interval {
        F64Interval(self.0 / o.0)
    }
    fn neg(&self) -> F64Interval {
        F64Interval(-self.0)
    }
    fn sqr(&self) -> F64Interval {
        F64Interval(self.0.sqr())
    }
    fn sqrt(&self) -> F64Interval {
        F64Interval(self.0.sqrt())
    }
    fn exp(&self) -> F64Interval {
        F64Interval(self.0.exp())
    }
    fn expm1(&self) -> F64Interval {
        F64Interval(self.0.expm1())
    }
    fn ln(&self) -> F64Interval {
        F64Interval(self.0.ln())
    }
    fn ln1p(&self) -> F64Interval {
        F64Interval(self.0.ln1p())
    }
    fn normal_cdf(&self) -> F64Interval {
        if self.0.is_empty() {
            return *self;
        }
        let lo = normal::phi_enclosure(self.0.inf()).inf();
        let hi = normal::phi_enclosure(self.0.sup()).sup();
        F64Interval(interval_or_entire(lo, hi))
    }
    fn max0(&self) -> F64Interval {
        if self.0.is_empty() {
            return *self;
        }
        F64Interval(interval_or_entire(
            self.0.inf().max(0.0),
            self.0.sup().max(0.0),
        ))
    }
    fn min(&self, o: &F64Interval) -> F64Interval {
        F64Interval(self.0.min(o.0))
    }
    fn hull(&self, o: &F64Interval) -> F64Interval {
        F64Interval(self.0.convex_hull(o.0))
    }
    fn intersect(&self, o: &F64Interval) -> F64Interval {
        F64Interval(self.0.intersection(o.0))
    }
    fn span(&self, o: &F64Interval) -> F64Interval {
        if self.0.is_empty() || o.0.is_empty() {
            return F64Interval(Interval::EMPTY);
        }
        F64Interval(interval_or_entire(self.0.inf(), o.0.sup()))
    }
    fn endpoints(&self) -> Option<(Float, Float)> {
        let (a, b) = (self.0.inf(), self.0.sup());
        if self.0.is_empty() || a.is_nan() || b.is_nan() {
            return None;
        }
        Some((Float::with_val(53, a), Float::with_val(53, b)))
    }
    fn arithmetic(&self) -> Arithmetic {
        Arithmetic::F64Interval
    }
}
