//! Enclosures at the API boundary: rounding direction lives in the types [`Lower`] and
//! [`Upper`]; each prints and converts to `f64` on its own safe side.
use super::Real;
use crate::{Error, Result};
use rug::float::Round;
use rug::{Float, Rational};
use std::cmp::Ordering;

/// Significant decimal digits printed for a bound.
pub const DECIMAL_DIGITS: usize = 20;

/// Which arithmetic produced a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arithmetic {
    /// `f64` intervals (inari, plus our certified Φ): 53-bit endpoints.
    F64Interval,
    /// MPFR intervals at this many bits.
    Mpfr(u32),
}

impl Arithmetic {
    pub fn precision_bits(self) -> u32 {
        match self {
            Arithmetic::F64Interval => 53,
            Arithmetic::Mpfr(p) => p,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Arithmetic::F64Interval => "inari-f64-interval",
            Arithmetic::Mpfr(_) => "mpfr-interval",
        }
    }
}

fn decimal(x: &Float, round: Round) -> String {
    decimal_digits(x, round, DECIMAL_DIGITS)
}

fn decimal_digits(x: &Float, round: Round, digits: usize) -> String {
    if x.is_zero() {
        return "0".to_string();
    }
    if x.is_infinite() {
        return if x.is_sign_positive() {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    x.to_string_radix_round(10, Some(digits.max(2)), round)
}

/// A rigorous lower bound.
#[derive(Clone, Debug, PartialEq)]
pub struct Lower(pub Float);
/// A rigorous upper bound.
#[derive(Clone, Debug, PartialEq)]
pub struct Upper(pub Float);

impl Lower {
    /// Decimal string rounded toward −∞ (never above the bound).
    pub fn to_decimal(&self) -> String {
        decimal(&self.0, Round::Down)
    }
    /// Decimal string with `digits` significant digits, rounded toward −∞.
    pub fn to_decimal_digits(&self, digits: usize) -> String {
        decimal_digits(&self.0, Round::Down, digits)
    }
    /// The largest `f64` not above the bound.
    pub fn to_f64(&self) -> f64 {
        self.0.to_f64_round(Round::Down)
    }
}

impl Upper {
    /// Decimal string rounded toward +∞ (never below the bound).
    pub fn to_decimal(&self) -> String {
        decimal(&self.0, Round::Up)
    }
    /// Decimal string with `digits` significant digits, rounded toward +∞.
    pub fn to_decimal_digits(&self, digits: usize) -> String {
        decimal_digits(&self.0, Round::Up, digits)
    }
    /// The smallest `f64` not below the bound.
    pub fn to_f64(&self) -> f64 {
        self.0.to_f64_round(Round::Up)
    }
}

/// Three-valued comparison result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tri {
    /// Every point of the enclosure is below the other value.
    Less,
    /// Every point of the enclosure is above the other value.
    Greater,
    /// Cannot be decided at this precision (includes equality).
    Undecided,
}

/// `[lower, upper]` containing the exact value of the named quantity.
#[derive(Clone, Debug, PartialEq)]
pub struct Enclosure {
    pub lower: Lower,
    pub upper: Upper,
    pub arithmetic: Arithmetic,
}

impl Enclosure {
    pub fn from_real<R: Real>(r: &R) -> Result<Enclosure> {
        let (lo, hi) = r
            .endpoints()
            .ok_or_else(|| Error::Numerical("interval evaluation produced NaN".into()))?;
        Ok(Enclosure {
            lower: Lower(lo),
            upper: Upper(hi),
            arithmetic: r.arithmetic(),
        })
    }
    /// Both endpoints the same exactly representable number.
    pub fn exact(x: Float) -> Enclosure {
        let p = x.prec();
        Enclosure {
            lower: Lower(x.clone()),
            upper: Upper(x),
            arithmetic: Arithmetic::Mpfr(p),
        }
    }
    pub fn is_finite(&self) -> bool {
        self.lower.0.is_finite() && self.upper.0.is_finite()
    }
    /// (upper − lower)/max(|lower|, |upper|), in round-to-nearest: a heuristic used only to
    /// decide whether to raise precision, never as a bound. 0 for [0, 0].
    pub fn rel_width(&self) -> f64 {
        let (l, u) = (&self.lower.0, &self.upper.0);
        if !self.is_finite() {
            return f64::INFINITY;
        }
        let m = if l.clone().abs() > u.clone().abs() {
            l.clone().abs()
        } else {
            u.clone().abs()
        };
        if m.is_zero() {
            return 0.0;
        }
        Float::with_val(64, Float::with_val(64, u - l) / m).to_f64()
    }
    pub fn contains(&self, x: &Float) -> bool {
        &self.lower.0 <= x && x <= &self.upper.0
    }
    pub fn contains_rational(&self, x: &Rational) -> bool {
        self.lower.0 <= *x && self.upper.0 >= *x
    }
    /// Compare the enclosed value with an exact rational.
    pub fn cmp_rational(&self, x: &Rational) -> Tri {
        if self.upper.0.partial_cmp(x) == Some(Ordering::Less) {
            Tri::Less
        } else if self.lower.0.partial_cmp(x) == Some(Ordering::Greater) {
            Tri::Greater
        } else {
            Tri::Undecided
        }
    }
    pub fn precision_bits(&self) -> u32 {
        self.arithmetic.precision_bits()
    }
}
