//! DP-SGD with fixed-size batches (B of N drawn without replacement each step, γ = B/N) under
//! substitution neighbours: an upper bound from the symmetric dominating pair
//! ([`PldMechanism::FixedSizeGaussian`]), a lower bound from the two realisable pairs
//! (`proofs-notes/dpsgd_fixed_size_pld_epsilon.md`).
use super::discretise::tables;
use super::fixed::Side;
use super::grid::setup;
use super::{
    dpsgd_term, join, report, side_epsilon, Direction, PldMechanism, PldOptions, PldReport, PldTerm,
};
use crate::validated::{Delta, Rate, Sigma, Steps};
use crate::{Error, Result};
use rug::{Integer, Rational};

/// DP-SGD with fixed-size batches (ratio γ = B/N), substitution neighbours, clipping norm 1,
/// noise multiplier σ, `steps` steps: two-sided ε(δ).
///
/// Upper: the upper side of `steps` copies of the symmetric dominating pair of one step
/// (losses above 0 those of R = (γN(2,σ²) + (1−γ)N(0,σ²) ‖ N(0,σ²)), mirrored below 0, an
/// atom at 0). Lower: the larger lower side of `steps` copies of R and of its reverse, which
/// datasets realise (the replaced example's gradient +e in one dataset and −e in the other,
/// every other example's −e) — the Poisson add/remove pairs at σ/2. The bracket's width is
/// mostly the gap between the two pairs, not discretisation, so the grid is not refined.
///
/// # Guarantee
/// `lower ≤ ε ≤ upper` for the exact ε(δ) of the run (adversary sees every noisy sum);
/// γ ∈ (0, 1], σ > 0, steps ≥ 1, δ ∈ (0, 1) by their types; errors (Numerical) when the tail
/// charged to +∞ exceeds δ. Note: `proofs-notes/dpsgd_fixed_size_pld_epsilon.md`.
pub fn dpsgd_fixed_size_pld_epsilon(
    rate: &Rate,
    sigma: &Sigma,
    steps: &Steps,
    delta: &Delta,
    opts: &PldOptions,
) -> Result<PldReport> {
    // δ ∈ (0, 1) by its type; the term's γ, σ, T checked again by `setup` (all mechanisms)
    let (rate, sigma, steps, delta): (&Rational, &Rational, &Integer, &Rational) =
        (rate, sigma, steps, delta);
    let dominating = PldTerm {
        mechanism: PldMechanism::FixedSizeGaussian {
            sigma: sigma.clone(),
            rate: rate.clone(),
        },
        count: steps.clone(),
    };
    let s = setup(std::slice::from_ref(&dominating), opts, Some(delta))?;
    let run = |term: PldTerm, side: Side, progress: bool| -> Result<(Rational, usize)> {
        let t = [term];
        side_epsilon(&t, &tables(&t, &s, None)?, &s, side, delta, progress)
    };
    let half = Rational::from(sigma / 2u32);
    let realised = |d| run(dpsgd_term(rate, &half, steps, d), Side::Lower, false);
    let (up, lows) = join(
        || run(dominating.clone(), Side::Upper, opts.progress),
        || join(|| realised(Direction::Remove), || realised(Direction::Add)),
    )?;
    let (up, (rem, add)) = (up?, lows?);
    let ((hi, s1), (rem, s2), (add, s3)) = (up, rem?, add?);
    let lo = rem.max(add);
    if lo > hi {
        return Err(Error::Numerical(
            "fixed-size bracket is empty (realised lower end above the dominating upper end)"
                .into(),
        ));
    }
    report(lo, hi, &s, s1.max(s2).max(s3))
}
