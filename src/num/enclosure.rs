//! Enclosures at the API boundary: rounding direction lives in the types [`Lower`] and
//! [`Upper`]; each prints and converts to `f64` on its own safe side.
use super::Real;
use crate::error::{Error, Result};
use rug::float::Round;
use rug::{Float, Rational};
use std::cmp::Ordering;
use std::fmt;

/// Significant decimal digits printed for a bound.
pub const DECIMAL_DIGITS: usize = 20;

/// Which arithmetic produced a result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arithmetic {
    /// `f64` intervals (`num::Interval`, plus our certified Φ): 53-bit endpoints.
    F64Interval,
    /// MPFR intervals at this many bits.
    Mpfr(u32),
}

impl Arithmetic {
    /// Precision of the endpoints, in bits.
    pub fn precision_bits(self) -> u32 {
        match self {
            Arithmetic::F64Interval => 53,
            Arithmetic::Mpfr(p) => p,
        }
    }
    /// `"f64-interval"` or `"mpfr-interval"` (the JSON `arithmetic` field).
    pub fn name(self) -> &'static str {
        match self {
            Arithmetic::F64Interval => "f64-interval",
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

/// A rigorous lower bound. Only the crate constructs one; read it with [`Lower::as_float`].
#[derive(Clone, Debug, PartialEq)]
pub struct Lower(pub(crate) Float);
/// A rigorous upper bound. Only the crate constructs one; read it with [`Upper::as_float`].
#[derive(Clone, Debug, PartialEq)]
pub struct Upper(pub(crate) Float);

impl Lower {
    /// The bound itself (exact MPFR value; the quantity is ≥ it).
    pub fn as_float(&self) -> &Float {
        &self.0
    }
    /// An owned copy of [`Lower::as_float`].
    pub fn to_float(&self) -> Float {
        self.0.clone()
    }
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
    /// The bound itself (exact MPFR value; the quantity is ≤ it).
    pub fn as_float(&self) -> &Float {
        &self.0
    }
    /// An owned copy of [`Upper::as_float`].
    pub fn to_float(&self) -> Float {
        self.0.clone()
    }
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

/// Rounded toward −∞ in decimal, 20 significant digits, or `{:.N}` for N (at least 2).
impl fmt::Display for Lower {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = f.precision().unwrap_or(DECIMAL_DIGITS);
        f.write_str(&self.to_decimal_digits(digits))
    }
}
/// Rounded toward +∞ in decimal, 20 significant digits, or `{:.N}` for N (at least 2).
impl fmt::Display for Upper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = f.precision().unwrap_or(DECIMAL_DIGITS);
        f.write_str(&self.to_decimal_digits(digits))
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

/// A **two-sided** enclosure: `[lower, upper]` contains the exact value of the named quantity
/// (for a theorem function: the exact, optimal value the theorem defines).
///
/// # Guarantee
/// `lower ≤ exact ≤ upper`, both endpoints finite or infinite but never NaN, `lower ≤ upper`.
/// Fields are private and constructors crate-private: a value of this type always comes from a
/// certified evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Enclosure {
    lower: Lower,
    upper: Upper,
    arithmetic: Arithmetic,
}

impl Enclosure {
    /// From two endpoints already rounded outward. Errors on NaN or `lo > hi`.
    pub(crate) fn new(lo: Float, hi: Float, arithmetic: Arithmetic) -> Result<Enclosure> {
        if lo.is_nan() || hi.is_nan() {
            return Err(Error::Numerical("interval evaluation produced NaN".into()));
        }
        if lo > hi {
            return Err(Error::Numerical(format!(
                "empty enclosure [{}, {}]",
                decimal(&lo, Round::Down),
                decimal(&hi, Round::Up)
            )));
        }
        Ok(Enclosure {
            lower: Lower(lo),
            upper: Upper(hi),
            arithmetic,
        })
    }
    pub(crate) fn from_real<R: Real>(r: &R) -> Result<Enclosure> {
        let (lo, hi) = r
            .endpoints()
            .ok_or_else(|| Error::Numerical("interval evaluation produced NaN".into()))?;
        Enclosure::new(lo, hi, r.arithmetic())
    }
    /// The exact rational `r`, rounded outward at `prec` bits.
    pub(crate) fn rational(r: &Rational, prec: u32) -> Enclosure {
        let lo = Float::with_val_round(prec, r, Round::Down).0;
        let hi = Float::with_val_round(prec, r, Round::Up).0;
        Enclosure {
            lower: Lower(lo),
            upper: Upper(hi),
            arithmetic: Arithmetic::Mpfr(prec),
        }
    }
    /// `[lo, hi]` for exact rationals, rounded outward at `prec` bits.
    pub(crate) fn from_rationals(
        lo: &Rational,
        hi: &Rational,
        prec: u32,
        arithmetic: Arithmetic,
    ) -> Result<Enclosure> {
        Enclosure::new(
            Float::with_val_round(prec, lo, Round::Down).0,
            Float::with_val_round(prec, hi, Round::Up).0,
            arithmetic,
        )
    }
    /// Clamp into the quantity's domain `[min, max]` (e.g. δ ∈ [0, 1]): valid because the exact
    /// value lies there, so moving an endpoint that lies outside onto the domain's edge keeps it
    /// a bound.
    pub(crate) fn clamp_to(mut self, min: Option<i32>, max: Option<i32>) -> Enclosure {
        if let Some(m) = min {
            if self.lower.0 < m {
                self.lower.0 = Float::with_val(self.lower.0.prec(), m);
            }
            if self.upper.0 < m {
                self.upper.0 = Float::with_val(self.upper.0.prec(), m);
            }
        }
        if let Some(m) = max {
            if self.upper.0 > m {
                self.upper.0 = Float::with_val(self.upper.0.prec(), m);
            }
            if self.lower.0 > m {
                self.lower.0 = Float::with_val(self.lower.0.prec(), m);
            }
        }
        self
    }
    /// `[lo, hi]` with the arithmetic of `self`, for routes that move both ends (crate only).
    pub(crate) fn with_endpoints(&self, lo: Float, hi: Float) -> Result<Enclosure> {
        Enclosure::new(lo, hi, self.arithmetic)
    }
    /// The rigorous lower bound.
    pub fn lower(&self) -> &Lower {
        &self.lower
    }
    /// The rigorous upper bound.
    pub fn upper(&self) -> &Upper {
        &self.upper
    }
    /// Which arithmetic produced the enclosure.
    pub fn arithmetic(&self) -> Arithmetic {
        self.arithmetic
    }
    /// Whether both ends are finite.
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
    /// Whether `x` lies in `[lower, upper]` (the exact value might equal it).
    pub fn contains(&self, x: &Float) -> bool {
        &self.lower.0 <= x && x <= &self.upper.0
    }
    /// Whether the exact rational `x` lies in `[lower, upper]`.
    pub fn contains_rational(&self, x: &Rational) -> bool {
        self.lower.0 <= *x && self.upper.0 >= *x
    }
    /// Compare the enclosed value with an exact rational: `Less` when `upper < x` (the exact
    /// value is certainly below `x`), `Greater` when `lower > x`, else `Undecided`.
    ///
    /// # Guarantee
    /// `Less` and `Greater` are certain (they follow from the enclosure's guarantee).
    pub fn cmp_rational(&self, x: &Rational) -> Tri {
        if self.upper.0.partial_cmp(x) == Some(Ordering::Less) {
            Tri::Less
        } else if self.lower.0.partial_cmp(x) == Some(Ordering::Greater) {
            Tri::Greater
        } else {
            Tri::Undecided
        }
    }
    /// Precision of the endpoints, in bits (53 for the `f64` pass).
    pub fn precision_bits(&self) -> u32 {
        self.arithmetic.precision_bits()
    }
}

/// `[lower, upper]`, each end rounded outward (`{:.N}`: N significant digits).
///
/// ```
/// # use dpcert::num::{parse_exact, Precision};
/// # use dpcert::theorems::{gaussian::gaussian_delta, pld::gaussian_pld};
/// let pld = gaussian_pld(&parse_exact("1").unwrap(), &parse_exact("1").unwrap()).unwrap();
/// let delta = gaussian_delta(&pld, &parse_exact("1").unwrap(), Precision::Auto).unwrap();
/// assert_eq!(format!("{delta:.6}"), "[1.26936e-1, 1.26937e-1]"); // lower rounded down, upper up
/// ```
impl fmt::Display for Enclosure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        fmt::Display::fmt(&self.lower, f)?;
        f.write_str(", ")?;
        fmt::Display::fmt(&self.upper, f)?;
        f.write_str("]")
    }
}

/// An **upper bound** on a quantity, from a theorem whose formula is not the exact optimum
/// (zCDP conversions, Rényi DP, advanced composition, …): the quantity is ≤ [`UpperBound::upper`].
/// It claims nothing below; [`UpperBound::formula`] encloses the value of the bound's formula
/// itself (for comparing implementations of the same formula).
///
/// # Guarantee
/// `exact quantity ≤ formula ≤ upper`. Constructed only inside the crate.
#[derive(Clone, Debug, PartialEq)]
pub struct UpperBound {
    formula: Enclosure,
    rests_on: Option<&'static str>,
}

impl UpperBound {
    pub(crate) fn new(formula: Enclosure) -> UpperBound {
        UpperBound {
            formula,
            rests_on: None,
        }
    }
    /// Mark the bound as resting on a cited (not re-proved) result.
    pub(crate) fn resting_on(mut self, citation: &'static str) -> UpperBound {
        self.rests_on = Some(citation);
        self
    }
    /// The rigorous upper bound on the quantity.
    pub fn upper(&self) -> &Upper {
        &self.formula.upper
    }
    /// Enclosure of the bound's formula (not of the quantity).
    pub fn formula(&self) -> &Enclosure {
        &self.formula
    }
    /// Which arithmetic produced the bound.
    pub fn arithmetic(&self) -> Arithmetic {
        self.formula.arithmetic
    }
    /// A cited result the bound depends on that dpcert does not certify, if any.
    pub fn rests_on(&self) -> Option<&'static str> {
        self.rests_on
    }
}

/// `≤ upper`, rounded up (`{:.N}`: N significant digits).
impl fmt::Display for UpperBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("≤ ")?;
        fmt::Display::fmt(self.upper(), f)
    }
}

/// A **lower bound** on a quantity (e.g. a ρ that is certainly sufficient, below the largest
/// sufficient one): the quantity is ≥ [`LowerBound::lower`]. [`LowerBound::formula`] encloses
/// the value of the bound's formula.
#[derive(Clone, Debug, PartialEq)]
pub struct LowerBound {
    formula: Enclosure,
}

impl LowerBound {
    pub(crate) fn new(formula: Enclosure) -> LowerBound {
        LowerBound { formula }
    }
    /// The rigorous lower bound on the quantity.
    pub fn lower(&self) -> &Lower {
        &self.formula.lower
    }
    /// Enclosure of the bound's formula.
    pub fn formula(&self) -> &Enclosure {
        &self.formula
    }
    /// Which arithmetic produced the bound.
    pub fn arithmetic(&self) -> Arithmetic {
        self.formula.arithmetic
    }
}

/// `≥ lower`, rounded down (`{:.N}`: N significant digits).
impl fmt::Display for LowerBound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("≥ ")?;
        fmt::Display::fmt(self.lower(), f)
    }
}

/// What a certified number guarantees, when a caller may receive either kind.
#[derive(Clone, Debug, PartialEq)]
pub enum Certified {
    /// Two-sided enclosure of the exact value.
    TwoSided(Enclosure),
    /// An upper bound only.
    UpperBound(UpperBound),
}

impl Certified {
    /// The rigorous upper bound (both kinds have one).
    pub fn upper(&self) -> &Upper {
        match self {
            Certified::TwoSided(e) => e.upper(),
            Certified::UpperBound(b) => b.upper(),
        }
    }
    /// The certified lower bound of the exact value, when the result is two-sided.
    pub fn lower(&self) -> Option<&Lower> {
        match self {
            Certified::TwoSided(e) => Some(e.lower()),
            Certified::UpperBound(_) => None,
        }
    }
    /// The enclosure of the value computed (the exact value, or the bound's formula).
    pub fn formula(&self) -> &Enclosure {
        match self {
            Certified::TwoSided(e) => e,
            Certified::UpperBound(b) => b.formula(),
        }
    }
    /// `"two-sided"` or `"upper-bound"`.
    pub fn kind(&self) -> &'static str {
        match self {
            Certified::TwoSided(_) => "two-sided",
            Certified::UpperBound(_) => "upper-bound",
        }
    }
    /// Whether the result is a two-sided enclosure of the exact value.
    pub fn is_two_sided(&self) -> bool {
        matches!(self, Certified::TwoSided(_))
    }
    /// A cited result an upper bound depends on that dpcert does not certify, if any.
    pub fn rests_on(&self) -> Option<&'static str> {
        match self {
            Certified::TwoSided(_) => None,
            Certified::UpperBound(b) => b.rests_on(),
        }
    }
}

impl fmt::Display for Certified {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Certified::TwoSided(e) => e.fmt(f),
            Certified::UpperBound(b) => b.fmt(f),
        }
    }
}
