//! f-DP and membership inference (Dong, Roth & Su 2022): the tradeoff function of a pair
//! (P, Q) is T(α) = inf{1 − E_P φ : E_Q φ ≤ α} over tests φ, so the best membership-inference
//! attack at false-positive rate α has true-positive rate 1 − T(α).
use super::pld::GaussianPld;
use crate::num::{Enclosure, MpfrInterval, Precision, Real, Tri};
use crate::validate;
use crate::{Error, Result};
use rug::float::Round;
use rug::{Float, Rational};

/// α ∈ [0, 1], naming the argument.
pub(crate) fn check_rate(name: &str, a: &Rational) -> Result<()> {
    if *a >= 0 && *a <= 1 {
        Ok(())
    } else {
        Err(Error::arg(
            name,
            format!("must lie in [0, 1], got {}", validate::show(a)),
        ))
    }
}

/// Certified comparison of Φ(z) with α at an exact point z.
fn phi_vs(z: &Float, alpha: &MpfrInterval) -> Tri {
    MpfrInterval::point(z.clone()).normal_cdf().cmp3(alpha)
}

/// Φ⁻¹(α) for 0 < α < ½, bracketed by exact points lo < hi ≤ 0 with Φ(lo) < α < Φ(hi)
/// certified (so lo < Φ⁻¹(α) < hi, Φ increasing). Bisection at `prec` bits; the midpoints are
/// any points between the ends (search), only the certified comparisons move an end.
fn quantile_below_half(alpha: &Rational, prec: u32) -> Result<(Float, Float)> {
    let a = MpfrInterval::from_rational(alpha, prec);
    let mut hi = Float::with_val(prec, 0);
    let mut lo = Float::with_val(prec, -1);
    while phi_vs(&lo, &a) != Tri::Less {
        lo *= 2u32;
        if lo < -1e12 {
            return Err(Error::Numerical("normal quantile out of range".into()));
        }
    }
    for _ in 0..4 * prec {
        let w = Float::with_val(prec, &hi - &lo);
        let scale = if lo.clone().abs() > 1 {
            lo.clone().abs()
        } else {
            Float::with_val(prec, 1)
        };
        if w <= (scale >> (prec as i32 - 4)) {
            break;
        }
        let mid = Float::with_val_round(prec, &lo + &hi, Round::Nearest).0 / 2u32;
        if mid <= lo || mid >= hi {
            break;
        }
        match phi_vs(&mid, &a) {
            Tri::Less => lo = mid,
            Tri::Greater => hi = mid,
            Tri::Undecided => break,
        }
    }
    Ok((lo, hi))
}

/// Φ⁻¹(α) for α ∈ (0, 1) as an enclosure [lo, hi] of exact points (Φ⁻¹(½) = 0 exactly;
/// Φ⁻¹(α) = −Φ⁻¹(1 − α) above ½).
pub(crate) fn normal_quantile(alpha: &Rational, prec: u32) -> Result<MpfrInterval> {
    let half = Rational::from((1, 2));
    if *alpha == half {
        return Ok(MpfrInterval::point(Float::with_val(prec, 0)));
    }
    if *alpha < half {
        let (lo, hi) = quantile_below_half(alpha, prec)?;
        return Ok(MpfrInterval::from_endpoints(lo, hi));
    }
    let (lo, hi) = quantile_below_half(&Rational::from(1 - alpha), prec)?;
    Ok(MpfrInterval::from_endpoints(-hi, -lo))
}

/// The best membership-inference attack's true-positive rate at false-positive rate α against
/// a Gaussian mechanism or composition (PLD N(ρ, 2ρ), μ = √(2ρ)): 1 − G_μ(α) = Φ(Φ⁻¹(α) + μ).
///
/// # Guarantee
/// Encloses the TPR two-sided: every test between neighbouring outputs with FPR ≤ α has
/// TPR ≤ upper, and the likelihood-ratio test between the worst-case pair attains the exact
/// value ≥ lower (Dong–Roth–Su 2022, Theorem 2.7). Relative width ≤ 2⁻⁶⁴ under `Auto` (128-bit
/// MPFR) for α ≥ 10⁻³⁰⁰. Errors unless ρ > 0 and α ∈ [0, 1].
/// Note: `proofs-notes/gaussian_tradeoff_tpr.md`.
pub fn gaussian_tradeoff_tpr(
    pld: &GaussianPld,
    fpr: &Rational,
    prec: Precision,
) -> Result<Enclosure> {
    validate::positive("rho", &pld.rho)?;
    check_rate("fpr", fpr)?;
    let p = prec.fixed_bits()?;
    if *fpr == 0 || *fpr == 1 {
        return Ok(Enclosure::rational(fpr, p));
    }
    let z = normal_quantile(fpr, p + 32)?;
    let mu = MpfrInterval::from_rational(&Rational::from(&pld.rho * 2u32), p + 32).sqrt();
    let tpr = Enclosure::from_real(&z.add(&mu).normal_cdf())?;
    Ok(super::pld::probability(tpr))
}
