//! Certified real arithmetic.
//!
//! Two interval backends implement [`Real`]: [`MpfrInterval`] (MPFR via `rug`, any precision, directed
//! rounding on every endpoint) and `F64Interval` (`f64` intervals, a small portable type of our own
//! whose endpoints are rounded outward — see `interval.rs` — with a certified standard normal
//! CDF). Theorem formulas are written once, generically
//! over [`Real`], and evaluated by `certify`: the `f64` pass is kept only when it is finite
//! and relatively narrow enough, otherwise MPFR at increasing precision takes over. The
//! returned [`Enclosure`] records which path produced it.

#[allow(
    clippy::approx_constant,
    reason = "MPFR's values written out, not approximations of std's"
)]
mod elementary_table;
mod enclosure;
mod fast;
mod horner;
mod interval;
pub mod mills;
mod mpfr;
mod normal;
mod normal_table;
mod parse;
#[cfg(test)]
mod tests;

pub use enclosure::{Arithmetic, Certified, Enclosure, Lower, LowerBound, Tri, Upper, UpperBound};
pub(crate) use fast::F64Interval;
pub(crate) use interval::Interval;
/// Not API: the portable `f64` interval type and its [`Real`] backend, public only so that the
/// separate `conformance/` crate can check them against inari (IEEE 1788) and MPFR.
#[doc(hidden)]
pub mod interval_for_conformance {
    pub use super::fast::F64Interval;
    pub use super::interval::Interval;
}
/// The MPFR interval kernel behind [`Real`] (not API: for the crate's tests and the generic
/// [`DiscretePld::atoms`](crate::theorems::pld::DiscretePld::atoms)).
#[doc(hidden)]
pub use mpfr::MpfrInterval;
pub use parse::{parse_exact, parse_positive_integer};

/// Enclosures of (Φ(x), Φ(−x)) over an `f64` interval, sharing one evaluation.
pub(crate) fn normal_cdf_pair(x: Interval) -> (Interval, Interval) {
    normal::phi_pair(x)
}

/// Φ(x) in plain `f64` (midpoint of the certified enclosure): for searches only.
pub(crate) fn normal_cdf_f64(x: f64) -> f64 {
    let i = normal::phi_enclosure(x);
    0.5 * (i.inf() + i.sup())
}

use crate::error::{Error, Result};
use rug::Rational;

/// For the tests that pin a float model of a certified formula (the `*_f64` functions a search
/// uses to choose where to evaluate): `Ok` when `model` lies within `rtol`·|value| + `atol` of
/// the enclosure `cert` of the same quantity and the enclosure is itself that narrow (so the
/// comparison says something); else the reason.
#[cfg(test)]
pub(crate) fn model_near<R: Real>(
    model: f64,
    cert: &R,
    rtol: f64,
    atol: f64,
) -> std::result::Result<(), String> {
    use rug::float::Round;
    let (lo, hi) = cert.endpoints().ok_or("an invalid enclosure")?;
    let (lo, hi) = (lo.to_f64_round(Round::Down), hi.to_f64_round(Round::Up));
    let tol = rtol * lo.abs().max(hi.abs()) + atol;
    if !(lo.is_finite() && hi.is_finite() && hi - lo <= tol) {
        return Err(format!(
            "the enclosure [{lo:e}, {hi:e}] is not within the tolerance {tol:e}"
        ));
    }
    let off = if model < lo {
        lo - model
    } else {
        (model - hi).max(0.0)
    };
    if off <= tol {
        Ok(())
    } else {
        Err(format!(
            "the float model {model:e} lies {off:e} outside [{lo:e}, {hi:e}] (tolerance {tol:e})"
        ))
    }
}

/// [`model_near`], or a panic naming `what`.
#[cfg(test)]
pub(crate) fn assert_model_near<R: Real>(what: &str, model: f64, cert: &R, rtol: f64, atol: f64) {
    if let Err(e) = model_near(model, cert, rtol, atol) {
        panic!("{what}: {e}");
    }
}

/// Default MPFR precision in bits.
pub const DEFAULT_PREC: u32 = 128;
/// Highest precision the automatic driver climbs to.
pub const MAX_AUTO_PREC: u32 = 2048;
/// Relative width below which the `f64` pass is accepted (about 1.1e-13).
pub const FAST_REL_TOL: f64 = 1.0 / (1u64 << 43) as f64;
/// Relative width below which an MPFR pass is accepted without raising precision.
pub const MPFR_REL_TOL: f64 = 1e-30;

/// An interval enclosure of a real number. Every operation returns an interval that contains
/// every exact result obtainable from points of its inputs ("inclusion principle").
///
/// Not API: the interval kernels behind the theorem functions (hidden from the docs; public only
/// because [`DiscretePld::atoms`](crate::theorems::pld::DiscretePld::atoms) is generic over it).
#[doc(hidden)]
pub trait Real: Clone + std::fmt::Debug {
    /// The tightest representable interval containing the exact rational `r`.
    fn from_rational(r: &Rational, prec: u32) -> Self;
    fn add(&self, o: &Self) -> Self;
    fn sub(&self, o: &Self) -> Self;
    fn mul(&self, o: &Self) -> Self;
    /// Division; an interval divisor containing 0 yields the whole line.
    fn div(&self, o: &Self) -> Self;
    fn neg(&self) -> Self;
    fn sqr(&self) -> Self;
    /// Square root; negative parts of the input are outside the domain and dropped.
    fn sqrt(&self) -> Self;
    fn exp(&self) -> Self;
    fn expm1(&self) -> Self;
    /// Natural logarithm; a non-positive lower endpoint gives −∞.
    fn ln(&self) -> Self;
    fn ln1p(&self) -> Self;
    /// Standard normal CDF Φ. Tail values keep relative accuracy (no `1 − erf`).
    fn normal_cdf(&self) -> Self;
    /// max(0, x), pointwise.
    fn max0(&self) -> Self;
    /// min(x, y), pointwise.
    fn min(&self, o: &Self) -> Self;
    /// Convex hull of two enclosures.
    fn hull(&self, o: &Self) -> Self;
    /// Intersection of two enclosures of the *same* number (valid only then).
    fn intersect(&self, o: &Self) -> Self;
    /// `[self.lo, o.hi]`: valid when the number is known to lie above `self`'s value and below
    /// `o`'s value.
    fn span(&self, o: &Self) -> Self;
    /// The endpoints as MPFR numbers (exactly), or `None` if the enclosure is not a valid
    /// interval (NaN endpoint).
    fn endpoints(&self) -> Option<(rug::Float, rug::Float)>;
    /// Which arithmetic produced this value.
    fn arithmetic(&self) -> Arithmetic;
    /// Three-valued order: `Less` if every point of `self` is below every point of `o`.
    fn cmp3(&self, o: &Self) -> Tri {
        match (self.endpoints(), o.endpoints()) {
            (Some((_, a_hi)), Some((b_lo, _))) if a_hi < b_lo => Tri::Less,
            (Some((a_lo, _)), Some((_, b_hi))) if a_lo > b_hi => Tri::Greater,
            _ => Tri::Undecided,
        }
    }

    // Derived operations.
    fn from_int(v: i64, prec: u32) -> Self {
        Self::from_rational(&Rational::from(v), prec)
    }
    /// Standard normal upper tail P[N(0,1) > x] = Φ(−x).
    fn normal_sf(&self) -> Self {
        self.neg().normal_cdf()
    }
    /// x^y for x > 0, as exp(y·ln x).
    fn pow(&self, y: &Self) -> Self {
        y.mul(&self.ln()).exp()
    }
}

/// Smallest MPFR precision accepted (MPFR itself allows 1; we refuse nonsense).
pub(crate) const MIN_PRECISION: u32 = 16;
/// Largest MPFR precision accepted: 8192 bits (2466 decimal digits, twice what `check` climbs
/// to). The cost of a query grows about quadratically with the precision; at 8192 bits the
/// slowest query (RDP at a fractional order) takes about 3 s, at 65536 bits over a minute.
pub(crate) const MAX_PRECISION: u32 = 8192;

/// MPFR precision in bits: within [`MIN_PRECISION`]..=[`MAX_PRECISION`].
pub(crate) fn precision(bits: u32) -> Result<()> {
    if (MIN_PRECISION..=MAX_PRECISION).contains(&bits) {
        Ok(())
    } else {
        Err(Error::arg(
            "precision",
            format!("{bits} bits is outside {MIN_PRECISION}..={MAX_PRECISION}"),
        ))
    }
}

/// Precision policy for a certified evaluation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// `f64` intervals first, then MPFR from [`DEFAULT_PREC`] bits up to [`MAX_AUTO_PREC`]
    /// until the enclosure is relatively narrow.
    #[default]
    Auto,
    /// MPFR at exactly this many bits.
    Bits(u32),
}

impl Precision {
    /// The MPFR precision for computations that do not climb: [`DEFAULT_PREC`] under `Auto`,
    /// the requested bits (validated) otherwise.
    pub fn fixed_bits(self) -> Result<u32> {
        match self {
            Precision::Auto => Ok(DEFAULT_PREC),
            Precision::Bits(b) => {
                precision(b)?;
                Ok(b)
            }
        }
    }
}

/// Evaluate a formula written once over [`Real`] and return a certified enclosure.
///
/// `fast` evaluates with [`F64Interval`]; `exact` evaluates with [`MpfrInterval`] at the given precision. Under
/// [`Precision::Auto`] the `f64` result is kept if it is finite with relative width at most
/// [`FAST_REL_TOL`]; otherwise MPFR runs at 128, 256, … bits until the relative width is at
/// most [`MPFR_REL_TOL`] or [`MAX_AUTO_PREC`] is reached. Soundness never depends on which
/// result is kept: each is an enclosure.
pub(crate) fn certify(
    prec: Precision,
    fast: impl Fn() -> F64Interval,
    exact: impl Fn(u32) -> MpfrInterval,
) -> Result<Enclosure> {
    match prec {
        Precision::Bits(p) => {
            precision(p)?;
            Enclosure::from_real(&exact(p))
        }
        Precision::Auto => {
            if let Ok(e) = Enclosure::from_real(&fast()) {
                if e.is_finite() && e.rel_width() <= FAST_REL_TOL {
                    return Ok(e);
                }
            }
            let mut p = DEFAULT_PREC;
            loop {
                let e = Enclosure::from_real(&exact(p))?;
                if (e.is_finite() && e.rel_width() <= MPFR_REL_TOL) || p >= MAX_AUTO_PREC {
                    return Ok(e);
                }
                p *= 2;
            }
        }
    }
}

/// The float model of Φ the searches use (the midpoint of the certified `f64` enclosure),
/// pinned to MPFR's at 256 bits from the far lower tail to the upper one.
#[cfg(test)]
mod float_model_tests {
    use super::*;

    #[test]
    fn normal_cdf_f64_matches_normal_cdf() {
        for x in [
            "-37", "-30", "-20", "-8.5", "-3", "-1", "-0.1", "0", "0.7", "2", "5", "9",
        ] {
            let r = parse_exact(x).unwrap();
            let cert = MpfrInterval::from_rational(&r, 256).normal_cdf();
            let model = normal_cdf_f64(r.to_f64());
            assert_model_near(&format!("Φ({x})"), model, &cert, 1e-13, 0.0);
        }
    }
}
