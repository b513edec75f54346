//! MPFR interval backend: `[lo, hi]` with `lo` computed rounding toward −∞ and `hi` toward +∞.
use super::{Arithmetic, Real};
use rug::float::{Round, Special};
use rug::{Assign, Float, Rational};
use std::cmp::Ordering;

/// An MPFR interval. Both endpoints carry the same precision.
#[derive(Clone, Debug)]
pub struct MpfrInterval {
    lo: Float,
    hi: Float,
}

impl MpfrInterval {
    fn prec(&self) -> u32 {
        self.lo.prec().max(self.hi.prec())
    }
    fn join(&self, o: &MpfrInterval) -> u32 {
        self.prec().max(o.prec())
    }
    /// The interval `[lo, hi]`; the caller guarantees `lo ≤ hi` or a NaN.
    pub fn from_endpoints(lo: Float, hi: Float) -> MpfrInterval {
        MpfrInterval { lo, hi }
    }
    /// The lower endpoint.
    pub fn lo(&self) -> &Float {
        &self.lo
    }
    /// The upper endpoint.
    pub fn hi(&self) -> &Float {
        &self.hi
    }
    /// The point interval of an exactly representable float.
    pub fn point(x: Float) -> MpfrInterval {
        MpfrInterval {
            lo: x.clone(),
            hi: x,
        }
    }
    /// ln Γ(n) for an integer n ≥ 1, enclosed (MPFR's lngamma, correctly rounded both ways).
    pub fn ln_gamma_int(n: &rug::Integer, prec: u32) -> MpfrInterval {
        let x = Float::with_val(prec.max(n.significant_bits() + 8), n);
        let (mut lo, mut hi) = (x.clone(), x);
        lo.ln_gamma_round(Round::Down);
        hi.ln_gamma_round(Round::Up);
        MpfrInterval { lo, hi }
    }
    fn nan(prec: u32) -> MpfrInterval {
        MpfrInterval {
            lo: Float::with_val(prec, Special::Nan),
            hi: Float::with_val(prec, Special::Nan),
        }
    }
    fn has_nan(&self) -> bool {
        self.lo.is_nan() || self.hi.is_nan()
    }
    fn entire(prec: u32) -> MpfrInterval {
        MpfrInterval {
            lo: Float::with_val(prec, Special::NegInfinity),
            hi: Float::with_val(prec, Special::Infinity),
        }
    }
    /// Apply a non-decreasing function endpoint-wise with outward rounding.
    fn inc(&self, f: impl Fn(&mut Float, Round) -> Ordering) -> MpfrInterval {
        let (mut lo, mut hi) = (self.lo.clone(), self.hi.clone());
        f(&mut lo, Round::Down);
        f(&mut hi, Round::Up);
        MpfrInterval { lo, hi }
    }
    /// Apply a non-increasing function endpoint-wise with outward rounding.
    fn dec(&self, f: impl Fn(&mut Float, Round) -> Ordering) -> MpfrInterval {
        let (mut lo, mut hi) = (self.hi.clone(), self.lo.clone());
        f(&mut lo, Round::Down);
        f(&mut hi, Round::Up);
        MpfrInterval { lo, hi }
    }
    /// Combine endpoints pairwise with `op` in both rounding directions; the result spans
    /// the min of the downward and the max of the upward results (used by × and ÷).
    fn corners(
        &self,
        o: &MpfrInterval,
        op: impl Fn(&Float, &Float, u32, Round) -> Float,
    ) -> MpfrInterval {
        let p = self.join(o);
        let pairs = [
            (&self.lo, &o.lo),
            (&self.lo, &o.hi),
            (&self.hi, &o.lo),
            (&self.hi, &o.hi),
        ];
        let mut lo = Float::with_val(p, Special::Infinity);
        let mut hi = Float::with_val(p, Special::NegInfinity);
        for (a, b) in pairs {
            let d = op(a, b, p, Round::Down);
            let u = op(a, b, p, Round::Up);
            if d.is_nan() || u.is_nan() {
                return MpfrInterval::nan(p);
            }
            if d < lo {
                lo = d;
            }
            if u > hi {
                hi = u;
            }
        }
        MpfrInterval { lo, hi }
    }
}

impl Real for MpfrInterval {
    fn from_rational(r: &Rational, prec: u32) -> MpfrInterval {
        MpfrInterval {
            lo: Float::with_val_round(prec, r, Round::Down).0,
            hi: Float::with_val_round(prec, r, Round::Up).0,
        }
    }
    fn add(&self, o: &MpfrInterval) -> MpfrInterval {
        let p = self.join(o);
        MpfrInterval {
            lo: Float::with_val_round(p, &self.lo + &o.lo, Round::Down).0,
            hi: Float::with_val_round(p, &self.hi + &o.hi, Round::Up).0,
        }
    }
    fn sub(&self, o: &MpfrInterval) -> MpfrInterval {
        let p = self.join(o);
        MpfrInterval {
            lo: Float::with_val_round(p, &self.lo - &o.hi, Round::Down).0,
            hi: Float::with_val_round(p, &self.hi - &o.lo, Round::Up).0,
        }
    }
    /// Interval product; an endpoint product 0·∞ counts as 0 (IEEE 1788): endpoints are limits
    /// of real points, and every real point times a point of [0, …] stays in the hull.
    fn mul(&self, o: &MpfrInterval) -> MpfrInterval {
        if self.has_nan() || o.has_nan() {
            return MpfrInterval::nan(self.join(o));
        }
        self.corners(o, |a, b, p, r| {
            if a.is_zero() || b.is_zero() {
                Float::with_val(p, 0)
            } else {
                Float::with_val_round(p, a * b, r).0
            }
        })
    }
    fn div(&self, o: &MpfrInterval) -> MpfrInterval {
        if o.lo <= 0 && o.hi >= 0 {
            return MpfrInterval::entire(self.join(o));
        }
        self.corners(o, |a, b, p, r| Float::with_val_round(p, a / b, r).0)
    }
    fn neg(&self) -> MpfrInterval {
        MpfrInterval {
            lo: -self.hi.clone(),
            hi: -self.lo.clone(),
        }
    }
    fn sqr(&self) -> MpfrInterval {
        if self.has_nan() {
            return MpfrInterval::nan(self.prec());
        }
        let p = self.prec();
        if self.lo >= 0 {
            self.inc(|x, r| x.square_round(r))
        } else if self.hi <= 0 {
            self.dec(|x, r| x.square_round(r))
        } else {
            let nlo = -self.lo.clone();
            let m = if nlo > self.hi { nlo } else { self.hi.clone() };
            MpfrInterval {
                lo: Float::with_val(p, 0),
                hi: Float::with_val_round(p, m.square_ref(), Round::Up).0,
            }
        }
    }
    fn sqrt(&self) -> MpfrInterval {
        let mut c = self.clone();
        if c.lo < 0 {
            c.lo.assign(0);
        }
        c.inc(|x, r| x.sqrt_round(r))
    }
    fn exp(&self) -> MpfrInterval {
        self.inc(|x, r| x.exp_round(r))
    }
    fn expm1(&self) -> MpfrInterval {
        self.inc(|x, r| x.exp_m1_round(r))
    }
    fn ln(&self) -> MpfrInterval {
        if self.has_nan() || self.hi <= 0 {
            return MpfrInterval::nan(self.prec());
        }
        let mut c = self.clone();
        if c.lo <= 0 {
            c.lo = Float::with_val(self.prec(), Special::NegInfinity);
        }
        c.inc(|x, r| x.ln_round(r))
    }
    fn ln1p(&self) -> MpfrInterval {
        self.inc(|x, r| x.ln_1p_round(r))
    }
    /// Φ(x) = erfc(−x/√2)/2, using MPFR's correctly rounded `erfc` (non-increasing in its
    /// argument), so far tails keep full relative accuracy.
    fn normal_cdf(&self) -> MpfrInterval {
        let p = self.prec();
        let two = MpfrInterval::from_int(2, p);
        let u = self.neg().div(&two.sqrt());
        let e = u.dec(|x, r| x.erfc_round(r));
        e.div(&two)
    }
    fn max0(&self) -> MpfrInterval {
        if self.has_nan() {
            return MpfrInterval::nan(self.prec());
        }
        let mut c = self.clone();
        if c.lo < 0 {
            c.lo.assign(0);
        }
        if c.hi < 0 {
            c.hi.assign(0);
        }
        c
    }
    fn min(&self, o: &MpfrInterval) -> MpfrInterval {
        if self.has_nan() || o.has_nan() {
            return MpfrInterval::nan(self.join(o));
        }
        let lo = if self.lo < o.lo {
            self.lo.clone()
        } else {
            o.lo.clone()
        };
        let hi = if self.hi < o.hi {
            self.hi.clone()
        } else {
            o.hi.clone()
        };
        MpfrInterval { lo, hi }
    }
    fn hull(&self, o: &MpfrInterval) -> MpfrInterval {
        if self.has_nan() || o.has_nan() {
            return MpfrInterval::nan(self.join(o));
        }
        let lo = if self.lo < o.lo {
            self.lo.clone()
        } else {
            o.lo.clone()
        };
        let hi = if self.hi > o.hi {
            self.hi.clone()
        } else {
            o.hi.clone()
        };
        MpfrInterval { lo, hi }
    }
    fn intersect(&self, o: &MpfrInterval) -> MpfrInterval {
        if self.has_nan() || o.has_nan() {
            return MpfrInterval::nan(self.join(o));
        }
        let lo = if self.lo > o.lo {
            self.lo.clone()
        } else {
            o.lo.clone()
        };
        let hi = if self.hi < o.hi {
            self.hi.clone()
        } else {
            o.hi.clone()
        };
        MpfrInterval { lo, hi }
    }
    fn span(&self, o: &MpfrInterval) -> MpfrInterval {
        if self.has_nan() || o.has_nan() {
            return MpfrInterval::nan(self.join(o));
        }
        MpfrInterval {
            lo: self.lo.clone(),
            hi: o.hi.clone(),
        }
    }
    fn endpoints(&self) -> Option<(Float, Float)> {
        if self.lo.is_nan() || self.hi.is_nan() || self.lo > self.hi {
            None
        } else {
            Some((self.lo.clone(), self.hi.clone()))
        }
    }
    fn arithmetic(&self) -> Arithmetic {
        Arithmetic::Mpfr(self.prec())
    }
}
