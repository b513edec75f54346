//! Shuffled DP-SGD without amplification: each epoch touches each example once, so a run of
//! `k` epochs is, for one example, `k` Gaussian releases — exact Gaussian composition.
use super::gaussian::{gaussian_composition, gaussian_epsilon, GaussianMechanism};
use super::sampling::Relation;
use crate::num::{Precision, UpperBound};
use crate::validate;
use crate::validated::{Delta, Sigma};
use crate::Result;
use rug::{Integer, Rational};

/// ε(δ) of shuffled DP-SGD (each example in one batch per epoch, `participations` epochs, noise
/// multiplier σ, clipping norm 1) without privacy amplification by shuffling: the exact
/// composition of `participations` Gaussian releases of sensitivity Δ = `group`·(1 for
/// add/remove of an example in its own batch slot, 2 for substitution), by Corollary 8 with
/// ρ = participations·Δ²/(2σ²).
///
/// # Guarantee
/// An upper bound on the ε of shuffled DP-SGD for the stated relation: [`UpperBound::formula`]
/// encloses ε*(δ) of that Gaussian composition, two-sided (width as `gaussian_epsilon`), which
/// is the exact ε of the same run only when the batch assignment is revealed, so its lower end
/// is not a lower bound for shuffled batches and the type does not offer it as one. σ > 0 and
/// δ ∈ (0, 1) by their types; participations ≥ 1, group ≥ 1, errors otherwise. Note: `proofs-notes/shuffled_dpsgd_epsilon.md`.
pub fn shuffled_dpsgd_epsilon(
    sigma: &Sigma,
    participations: &Integer,
    relation: Relation,
    group: &Integer,
    delta: &Delta,
    prec: Precision,
) -> Result<UpperBound> {
    validate::count("epochs", participations)?;
    validate::count("group", group)?;
    let per_example = match relation {
        Relation::AddRemove => 1u32,
        Relation::Substitution => 2u32,
    };
    let sensitivity = Rational::from(group * Integer::from(per_example));
    let pld = gaussian_composition(&[GaussianMechanism::new(
        Rational::from(&**sigma),
        sensitivity,
        participations.clone(),
    )?])?;
    Ok(UpperBound::new(gaussian_epsilon(&pld, delta, prec)?))
}
