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
