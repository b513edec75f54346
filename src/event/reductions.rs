//! dp_accounting events that are, or are dominated by, mechanisms the routes already account:
//! single-epoch tree aggregation (a composition of Gaussian releases, one per tree level) and
//! the mixture-of-Gaussians mechanism (dominated by a Poisson-subsampled Gaussian). Each
//! function returns the [`Event`] the audit then certifies.
use crate::event::Event;
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// Single-epoch tree aggregation (Kairouz et al. 2021, Appendix D; dp_accounting's
/// `SingleEpochTreeAggregationDpEvent`): each tree over T steps adds N(0, σ²) noise (σ = the
/// noise multiplier, sensitivity 1) to every node, and a record in at most one leaf of at most
/// one tree enters ⌈log₂(T + 1)⌉ nodes of its tree (one per level). The release is the
/// composition of that many Gaussian mechanisms, T the largest step count.
///
/// # Guarantee
/// Returns `SelfComposed(Gaussian(σ, 1), d)` with d = ⌈log₂(max T + 1)⌉, exactly (d = the bit
/// length of max T): the same privacy as the tree release for the worst-placed record (equal
/// for a record in a tree with the most steps); `NoOp` when every tree has no step. σ > 0,
/// step counts ≥ 0 and not empty; errors name the argument.
/// Note: `proofs-notes/tree_aggregation_gaussian.md`.
pub fn tree_aggregation_gaussian(
    noise_multiplier: &Rational,
    step_counts: &[Integer],
) -> Result<Event> {
    validate::positive("noise_multiplier", noise_multiplier)?;
    validate::nonempty("step_counts", step_counts)?;
    if let Some(t) = step_counts.iter().find(|t| **t < 0) {
        return Err(Error::arg(
            "step_counts",
            format!("must be non-negative integers, got {t}"),
        ));
    }
    let most = step_counts.iter().max().expect("not empty");
    let depth = Integer::from(most.significant_bits());
    if depth == 0 {
        return Ok(Event::NoOp);
    }
    let leaf = Event::Gaussian {
        sigma: noise_multiplier.clone(),
        sensitivity: Rational::from(1),
    };
    if depth == 1 {
        return Ok(leaf);
    }
    Ok(Event::SelfComposed {
        event: Box::new(leaf),
        count: depth,
    })
}

/// Largest |Σpᵢ − 1| accepted for a mixture's probabilities (as dp_accounting's `isclose`):
/// floats such as three thirds do not add up to exactly 1.
pub const MIXTURE_SUM_TOLERANCE: (u32, u32) = (1, 1_000_000_000);

/// The mixture-of-Gaussians mechanism (Choquette-Choo, Ganesh, Steinke & Thakurta 2023,
/// dp_accounting's `MixtureOfGaussiansDpEvent(σ, c, p)`): N(0, σ²) on one dataset against
/// Σᵢ pᵢ N(cᵢ, σ²) on its neighbour (both orders), dominated by the Poisson-subsampled Gaussian
/// with rate q = Σ_{cᵢ>0} pᵢ/Σpᵢ and sensitivity c = max cᵢ: every hockey-stick divergence of
/// the mixture pair is at most the subsampled Gaussian's (the pair is a kernel's
/// post-processing of the subsampled Gaussian pair).
///
/// # Guarantee
/// The returned event's (ε, δ) are upper bounds of the mixture's for every ε (δ); when the
/// positive-probability non-zero sensitivities are all equal it is the mixture itself
/// (`exact` = true), else a dominating stand-in (`exact` = false: its lower bounds are not the
/// mixture's). `NoOp` when no sensitivity with positive probability is non-zero. σ > 0,
/// cᵢ ≥ 0, pᵢ ∈ [0, 1], equal lengths, Σpᵢ within 10⁻⁹ of 1; errors name the argument.
/// Note: `proofs-notes/mixture_of_gaussians_domination.md`.
pub fn mixture_of_gaussians_domination(
    standard_deviation: &Rational,
    sensitivities: &[Rational],
    sampling_probs: &[Rational],
) -> Result<(Event, bool)> {
    validate::positive("standard_deviation", standard_deviation)?;
    validate::nonempty("sensitivities", sensitivities)?;
    if sensitivities.len() != sampling_probs.len() {
        return Err(Error::arg(
            "sampling_probs",
            format!(
                "has {} entries but sensitivities has {}",
                sampling_probs.len(),
                sensitivities.len()
            ),
        ));
    }
    for (c, p) in sensitivities.iter().zip(sampling_probs) {
        validate::nonnegative("sensitivities", c)?;
        if *p < 0 || *p > 1 {
            return Err(Error::arg(
                "sampling_probs",
                format!("must lie in [0, 1], got {}", validate::show(p)),
            ));
        }
    }
    let total: Rational = sampling_probs.iter().sum();
    let tol = Rational::from(MIXTURE_SUM_TOLERANCE);
    if Rational::from(&total - 1u32).abs() > tol {
        return Err(Error::arg(
            "sampling_probs",
            format!("must add up to 1, got {}", validate::show(&total)),
        ));
    }
    let live = || {
        sensitivities
            .iter()
            .zip(sampling_probs)
            .filter(|(c, p)| **p > 0 && **c > 0)
    };
    let Some(c) = live().map(|(c, _)| c).max().cloned() else {
        return Ok((Event::NoOp, true));
    };
    let exact = live().all(|(x, _)| *x == c);
    let rate = live().map(|(_, p)| p).sum::<Rational>() / total;
    let gaussian = Event::Gaussian {
        sigma: standard_deviation.clone(),
        sensitivity: c,
    };
    let event = if rate == 1 {
        gaussian
    } else {
        Event::PoissonSampled {
            rate,
            event: Box::new(gaussian),
        }
    };
    Ok((event, exact))
}
