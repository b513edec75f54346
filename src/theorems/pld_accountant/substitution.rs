//! DP-SGD with Poisson sampling under substitution (replace-one) neighbours: both ends from the
//! certified PLD of the one-step dominating pair
//! ((1−q)N(0,σ²) + qN(1,σ²) ‖ (1−q)N(0,σ²) + qN(−1,σ²)), which datasets also realise
//! (`proofs-notes/dpsgd_substitution_pld_epsilon.md`).
use super::{pld_epsilon, PldMechanism, PldOptions, PldReport, PldTerm};
use crate::validated::{Delta, Rate, Sigma, Steps};
use crate::Result;
use rug::{Integer, Rational};

/// DP-SGD (Poisson sampling, substitution neighbours, clipping norm 1): two-sided ε(δ) of
/// `steps` steps of noise multiplier σ at rate q.
///
/// Both ends are those of the accountant's two sides on `steps` copies of the pair
/// P = (1−q)N(0,σ²) + qN(1,σ²), Q = (1−q)N(0,σ²) + qN(−1,σ²): it dominates every step for every
/// pair of clipped gradients (the note's reflection argument; the substitution case of
/// Schuchardt, Stoian, Kosmala & Günnemann 2024, Theorem 3.8, one insertion and one deletion;
/// composed by Zhu–Dong–Wang 2022, Theorem 10) and datasets realise
/// it (one example's gradient +e replaced by −e, every other gradient 0), so the pair's own ε(δ)
/// is the run's. Symmetric (x ↦ −x swaps P and Q): one order covers both. With the automatic
/// grid the run is refined as in [`pld_epsilon`].
///
/// # Guarantee
/// `lower ≤ ε ≤ upper` for the exact substitution DP-SGD privacy curve (adversary sees every
/// noisy sum). q ∈ (0, 1], σ > 0, steps ≥ 1, δ ∈ (0, 1) by their types; errors on invalid
/// options, or when the tail charged to +∞ alone exceeds δ.
/// Note: `proofs-notes/dpsgd_substitution_pld_epsilon.md`.
pub fn dpsgd_substitution_pld_epsilon(
    rate: &Rate,
    sigma: &Sigma,
    steps: &Steps,
    delta: &Delta,
    opts: &PldOptions,
) -> Result<PldReport> {
    // q ∈ (0, 1], σ > 0, T ≥ 1 and δ ∈ (0, 1) by their types (`pld_epsilon` checks the term
    // and δ again, as for every mechanism)
    let term = PldTerm {
        mechanism: PldMechanism::SubsampledGaussianSubstitution {
            sigma: Rational::from(&**sigma),
            rate: Rational::from(&**rate),
        },
        count: Integer::from(&**steps),
    };
    pld_epsilon(std::slice::from_ref(&term), delta, opts)
}
