//! `f64` interval backend on [`Interval`] (src/num/interval.rs), portable: no `-Ctarget-cpu`
//! and no FPU rounding-mode switches. Its `+ − × ÷ √` are sound because IEEE 754 rounds them
//! correctly — a round-to-nearest result lies within ½ ulp of the exact value, so the exact value
//! lies strictly between the result's neighbours `next_down`/`next_up`; each endpoint is taken
//! there (or, where an error-free transformation gives the sign of the error, at the exact
//! directed rounding). `exp` is `interval::exp_point` (this arithmetic, a table and an enclosed
//! Taylor remainder; MPFR beyond |x| > 700); `ln` goes through MPFR at 53 bits with directed
//! rounding.
//!
//! `expm1` is evaluated at 53 bits by MPFR with directed rounding, `ln1p` by
//! `interval::ln1p_point` (MPFR where that declines), and Φ by
//! [`super::normal::phi_enclosure`]. `conformance/` measures the widths against inari and
//! MPFR: `expm1` and `from_rational` are the tightest `f64` enclosures; `pow` (= exp(y·ln x))
//! lies within 4·|y·ln x| + 2 steps of the tightest per endpoint.
use super::interval::{iv, Interval};
use super::{normal, Arithmetic, Real};
use rug::float::Round;
use rug::{Float, Rational};

/// An `f64` interval.
#[derive(Clone, Copy, Debug)]
pub struct Fi(pub Interval);

impl Real for Fi {
    fn from_rational(r: &Rational, _prec: u32) -> Fi {
        let lo = Float::with_val_round(53, r, Round::Down)
            .0
            .to_f64_round(Round::Down);
        let hi = Float::with_val_round(53, r, Round::Up)
            .0
            .to_f64_round(Round::Up);
        Fi(iv(lo, hi))
    }
    /// Exact for |v| ≤ 2⁵³ without MPFR (the hot loops of `mills` call it per level).
    fn from_int(v: i64, prec: u32) -> Fi {
        if v.unsigned_abs() <= 1 << 53 {
            return Fi(iv(v as f64, v as f64));
        }
        Fi::from_rational(&Rational::from(v), prec)
    }
    fn add(&self, o: &Fi) -> Fi {
        Fi(self.0 + o.0)
    }
    fn sub(&self, o: &Fi) -> Fi {
        Fi(self.0 - o.0)
    }
    fn mul(&self, o: &Fi) -> Fi {
        Fi(self.0 * o.0)
    }
    fn div(&self, o: &Fi) -> Fi {
        Fi(self.0 / o.0)
    }
    fn neg(&self) -> Fi {
        Fi(-self.0)
    }
    fn sqr(&self) -> Fi {
        Fi(self.0.sqr())
    }
    fn sqrt(&self) -> Fi {
        Fi(self.0.sqrt())
    }
    fn exp(&self) -> Fi {
        Fi(self.0.exp())
    }
    fn expm1(&self) -> Fi {
        Fi(self.0.expm1())
    }
    fn ln(&self) -> Fi {
        Fi(self.0.ln())
    }
    fn ln1p(&self) -> Fi {
        Fi(self.0.ln1p())
    }
    fn normal_cdf(&self) -> Fi {
        if self.0.is_empty() {
            return *self;
        }
        let lo = normal::phi_enclosure(self.0.inf()).inf();
        let hi = normal::phi_enclosure(self.0.sup()).sup();
        Fi(iv(lo, hi))
    }
    fn max0(&self) -> Fi {
        if self.0.is_empty() {
            return *self;
        }
        Fi(iv(self.0.inf().max(0.0), self.0.sup().max(0.0)))
    }
    fn min(&self, o: &Fi) -> Fi {
        Fi(self.0.min(o.0))
    }
    fn hull(&self, o: &Fi) -> Fi {
        Fi(self.0.convex_hull(o.0))
    }
    fn intersect(&self, o: &Fi) -> Fi {
        Fi(self.0.intersection(o.0))
    }
    fn span(&self, o: &Fi) -> Fi {
        if self.0.is_empty() || o.0.is_empty() {
            return Fi(Interval::EMPTY);
        }
        Fi(iv(self.0.inf(), o.0.sup()))
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
