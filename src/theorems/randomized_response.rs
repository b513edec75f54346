//! Randomized response over k buckets with noise parameter p, as dp_accounting's
//! `RandomizedResponseDpEvent(noise_parameter = p, num_buckets = k)`: the true bucket with
//! probability 1 − p, else a uniformly random one of the k. Its ε = ln(1 + k(1 − p)/p) is
//! irrational in general: enclosed, never refused.
use crate::num::{certify, Enclosure, F64Interval, MpfrInterval, Precision, Real};
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// p ∈ (0, 1] and k ≥ 2 (p = 0 is not private; one bucket releases nothing).
pub(crate) fn check_rr(p: &Rational, k: &Integer) -> Result<()> {
    validate::positive("noise_parameter", p)?;
    if *p > 1 {
        return Err(Error::arg(
            "noise_parameter",
            format!("must be at most 1, got {}", validate::show(p)),
        ));
    }
    validate::count("num_buckets", k)?;
    if *k < 2 {
        return Err(Error::arg(
            "num_buckets",
            "must be at least 2 (one bucket releases nothing: describe it as no-op)",
        ));
    }
    Ok(())
}

/// The likelihood ratio e^ε = 1 + k(1 − p)/p of the true bucket, exactly: the output x has
/// probability u = 1 − p + p/k under input x and v = p/k under any other input.
pub(crate) fn rr_ratio(p: &Rational, k: &Integer) -> Rational {
    Rational::from(1) + Rational::from(k) * Rational::from(1 - p) / p
}

/// The pure ε of k-ary randomized response with noise parameter p: ε = ln(1 + k(1 − p)/p), the
/// largest privacy loss (input x against x′ at output x).
///
/// # Guarantee
/// Encloses ε, two-sided (exact and optimal), for p ∈ (0, 1] and k ≥ 2; errors otherwise.
/// Note: `proofs-notes/randomized_response_epsilon.md`.
pub fn randomized_response_epsilon(
    p: &Rational,
    k: &Integer,
    prec: Precision,
) -> Result<Enclosure> {
    check_rr(p, k)?;
    let m = rr_ratio(p, k) - 1u32;
    certify(
        prec,
        || F64Interval::from_rational(&m, 53).ln1p(),
        |b| MpfrInterval::from_rational(&m, b).ln1p(),
    )
}

/// The exact privacy profile of k-ary randomized response (inputs x, x′):
/// δ(ε) = max(0, u − e^ε·v) = (p/k)·max(0, 1 + k(1 − p)/p − e^ε).
///
/// # Guarantee
/// Encloses the exact and optimal δ(ε), two-sided, for p ∈ (0, 1], k ≥ 2, ε ≥ 0; errors
/// otherwise. Note: `proofs-notes/randomized_response_delta.md`.
pub fn randomized_response_delta(
    p: &Rational,
    k: &Integer,
    eps: &Rational,
    prec: Precision,
) -> Result<Enclosure> {
    check_rr(p, k)?;
    validate::nonnegative("epsilon", eps)?;
    let (ratio, v) = (rr_ratio(p, k), Rational::from(p / k));
    let formula = |b: u32| -> MpfrInterval { rr_delta_formula(&ratio, &v, eps, b) };
    certify(
        prec,
        || rr_delta_formula::<F64Interval>(&ratio, &v, eps, 53),
        formula,
    )
    .map(super::pld::probability)
}

fn rr_delta_formula<R: Real>(ratio: &Rational, v: &Rational, eps: &Rational, p: u32) -> R {
    let gap = R::from_rational(ratio, p).sub(&R::from_rational(eps, p).exp());
    R::from_rational(v, p).mul(&gap.max0())
}

/// An exact rational at least ε = ln(1 + k(1 − p)/p): the upper end of its 128-bit enclosure
/// (what the routes that take an exact ε use; any ε′ ≥ ε is a valid pure-DP parameter). `None`
/// outside the domain.
pub(crate) fn epsilon_upper(p: &Rational, k: &Integer) -> Option<Rational> {
    let e = randomized_response_epsilon(p, k, Precision::Bits(128)).ok()?;
    e.upper().as_float().to_rational()
}
