//! Gaussian differential privacy (Dong, Roth & Su 2022, Definition 2.6): a mechanism is μ-GDP
//! when every pair of neighbouring outputs is at least as hard to distinguish as N(0, 1) from
//! N(μ, 1), i.e. its tradeoff function is ≥ G_μ(α) = Φ(Φ⁻¹(1 − α) − μ).
use super::pld::GaussianPld;
use crate::num::{certify, Enclosure, Fi, Iv, Precision, Real};
use crate::validate;
use crate::Result;
use rug::Rational;

/// The exact μ of a Gaussian mechanism or composition: μ = √(2ρ) = √(Σⱼ Kⱼ·Δⱼ²/σⱼ²)
/// (for one mechanism, Δ√K/σ), with ρ from [`super::gaussian::gaussian_composition`].
///
/// # Guarantee
/// Encloses μ two-sided: the composition is μ-GDP and, for no μ′ < μ, μ′-GDP (Dong–Roth–Su
/// 2022, Theorem 2.7 and Corollary 3.3). Errors unless ρ > 0. Note: `proofs-notes/gaussian_gdp.md`.
pub fn gaussian_gdp(pld: &GaussianPld, prec: Precision) -> Result<Enclosure> {
    validate::positive("rho", &pld.rho)?;
    let two_rho = Rational::from(&pld.rho * 2u32);
    certify(
        prec,
        || Fi::from_rational(&two_rho, 53).sqrt(),
        |p| Iv::from_rational(&two_rho, p).sqrt(),
    )
}

/// FPRs at which [`dpsgd_gdp_lower`] compares DP-SGD's tradeoff with G_μ.
const GDP_PROBES: [(u32, u32); 12] = [
    (1, 1_000_000),
    (1, 100_000),
    (1, 10_000),
    (1, 1000),
    (1, 100),
    (1, 20),
    (1, 10),
    (1, 5),
    (3, 10),
    (2, 5),
    (1, 2),
    (7, 10),
];

/// A certified lower bound on μ* = inf{μ : DP-SGD is μ-GDP} (Poisson rate q, noise σ,
/// sensitivity 1, `steps` steps, add/remove neighbours): μ* ≥ Φ⁻¹(TPR̲(α)) − Φ⁻¹(α) at
/// probe FPRs α, TPR̲ the certified lower TPR of [`super::pld_accountant::dpsgd_tradeoff_tpr`].
///
/// # Guarantee
/// DP-SGD is not μ-GDP for any μ below `lower()` (0 when no probe separates). No upper
/// bound is claimed. Errors as `dpsgd_tradeoff_tpr`. Note: `proofs-notes/dpsgd_gdp_lower.md`.
pub fn dpsgd_gdp_lower(
    rate: &Rational,
    sigma: &Rational,
    steps: &rug::Integer,
    opts: &super::pld_accountant::PldOptions,
) -> Result<crate::num::LowerBound> {
    use super::tradeoff::normal_quantile;
    let p = 128;
    let fprs: Vec<Rational> = GDP_PROBES
        .iter()
        .map(|&(a, b)| Rational::from((a, b)))
        .collect();
    let reps = super::pld_accountant::dpsgd_tradeoff_tpr(rate, sigma, steps, &fprs, opts)?;
    let mut best = Iv::from_int(0, p);
    for (alpha, rep) in fprs.iter().zip(&reps) {
        let t = rep.enclosure.lower().as_float();
        // TPR̲ must lie in (0, 1) for its quantile; α ≤ TPR̲ < 1 otherwise says nothing new
        if *t <= 0 || *t >= 1 {
            continue;
        }
        let t = t.to_rational().expect("finite");
        let za = normal_quantile(alpha, p)?;
        let zt = normal_quantile(&t, p)?;
        let gap = zt.sub(&za);
        // the bound is the lower end of gap; keep the enclosure of the max for the formula
        if gap.lo() > best.lo() {
            best = gap;
        }
    }
    Ok(crate::num::LowerBound::new(Enclosure::from_real(
        &best.max0(),
    )?))
}
