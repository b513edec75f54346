//! Theorem 1 (basic composition) and the Laplace example that shows it is optimal.
use crate::validate;
use crate::{Error, Result};
use rug::Rational;

/// Theorem 1: mechanisms that are (εⱼ, δⱼ)-DP compose to (Σεⱼ, Σδⱼ)-DP (pure: δⱼ = 0).
///
/// # Guarantee
/// Exact rationals (Σεⱼ, Σδⱼ). Errors on an empty list, εⱼ < 0 or δⱼ ∉ [0, 1).
/// Note: `proofs-notes/basic_composition.md`.
pub fn basic_composition(mechanisms: &[(Rational, Rational)]) -> Result<(Rational, Rational)> {
    validate::nonempty("mechanisms", mechanisms)?;
    let (mut e, mut d) = (Rational::new(), Rational::new());
    for (ej, dj) in mechanisms {
        validate::nonnegative("epsilon", ej)?;
        validate::unit_from_zero("delta", dj)?;
        e += ej;
        d += dj;
    }
    Ok((e, d))
}

/// The privacy loss of k independent Laplace mechanisms at output `y`:
/// ln Πⱼ p(yⱼ | x)/p(yⱼ | x') = Σⱼ (|yⱼ − fⱼ(x')| − |yⱼ − fⱼ(x)|)/bⱼ, exactly.
/// With fⱼ(x) = fⱼ(x') + Δⱼ, Δⱼ ≥ 0 and yⱼ ≥ fⱼ(x), this equals Σ Δⱼ/bⱼ = Σ εⱼ: basic composition
/// is attained.
///
/// # Guarantee
/// Exact rational. Errors unless all slices have the same non-zero length and every bⱼ > 0.
/// Note: `proofs-notes/laplace_privacy_loss.md`.
pub fn laplace_privacy_loss(
    scales: &[Rational],
    fx: &[Rational],
    fx_prime: &[Rational],
    y: &[Rational],
) -> Result<Rational> {
    validate::nonempty("scales", scales)?;
    if fx.len() != scales.len() || fx_prime.len() != scales.len() || y.len() != scales.len() {
        return Err(Error::arg(
            "y",
            "scales, f(x), f(x') and y must have equal lengths",
        ));
    }
    let mut loss = Rational::new();
    for j in 0..scales.len() {
        validate::positive("scale", &scales[j])?;
        let a = Rational::from(&y[j] - &fx_prime[j]).abs();
        let b = Rational::from(&y[j] - &fx[j]).abs();
        loss += (a - b) / &scales[j];
    }
    Ok(loss)
}
