//! Theorem 22: adaptive composition of approximate-DP mechanisms.
use super::zcdp::advanced_formula;
use crate::num::{certify, F64Interval, MpfrInterval, Precision, Real, UpperBound};
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// Theorem 22: (εⱼ, δⱼ)-DP mechanisms, adaptively composed, are (ε, δ)-DP for every
/// δ > Σδⱼ, with δ' = δ − Σδⱼ and ε = min{Σεⱼ, ½Σεⱼ² + √(2 ln(1/δ') Σεⱼ²)}.
/// Mechanisms are given as (εⱼ, δⱼ, countⱼ).
///
/// # Guarantee
/// Encloses the formula's value. εⱼ ≥ 0, δⱼ ∈ [0, 1), countⱼ ≥ 1, δ ∈ (Σδⱼ, 1).
/// Note: `proofs-notes/approx_advanced_composition.md` (it proves the min).
pub fn approx_advanced_composition(
    mechanisms: &[(Rational, Rational, Integer)],
    delta: &Rational,
    prec: Precision,
) -> Result<UpperBound> {
    validate::nonempty("mechanisms", mechanisms)?;
    validate::open_unit("delta", delta)?;
    let (mut sum_e, mut sum_d, mut s2) = (Rational::new(), Rational::new(), Rational::new());
    for (e, d, k) in mechanisms {
        validate::nonnegative("epsilon", e)?;
        validate::unit_from_zero("delta", d)?;
        validate::count("count", k)?;
        let k = Rational::from(k);
        sum_e += Rational::from(e * &k);
        sum_d += Rational::from(d * &k);
        s2 += Rational::from(e * e) * k;
    }
    let slack = Rational::from(delta - &sum_d);
    if slack <= 0 {
        return Err(Error::arg(
            "delta",
            "must exceed the sum of the mechanisms' δⱼ",
        ));
    }
    fn formula<R: Real>(sum_e: &Rational, s2: &Rational, slack: &Rational, p: u32) -> R {
        advanced_formula::<R>(s2, slack, p).min(&R::from_rational(sum_e, p))
    }
    certify(
        prec,
        || formula::<F64Interval>(&sum_e, &s2, &slack, 53),
        |p| formula::<MpfrInterval>(&sum_e, &s2, &slack, p),
    )
    .map(UpperBound::new)
}
