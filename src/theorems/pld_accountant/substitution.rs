//! DP-SGD with Poisson sampling under substitution (replace-one) neighbours: a certified
//! lower bound from a realisable pair, a certified upper bound from group privacy over the
//! add/remove accountant (`proofs-notes/dpsgd_substitution_pld_epsilon.md`).
use super::convolve::compose_side;
use super::discretise::{mirror_tables, tables, Table};
use super::fixed::Side;
use super::grid::setup;
use super::query::Curve;
use super::{join, report, Direction, PldMechanism, PldOptions, PldReport, PldTerm};
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// DP-SGD (Poisson sampling, substitution neighbours, clipping norm 1): two-sided ε(δ) of
/// `steps` steps of noise multiplier σ at rate q.
///
/// Lower: the dominated side of the PLD of T copies of the realisable pair
/// ((1−q)N(0,σ²) + qN(1,σ²) ‖ (1−q)N(0,σ²) + qN(−1,σ²)) (one record's gradient +1 in one
/// dataset, −1 in the other, every other gradient 0). Upper: group privacy through the
/// dataset with that record removed (or the other added), on the add/remove accountant's
/// dominating sides: ε₁ + ε₂ with δ_remove(ε₁) + e^{ε₁}·δ_add(ε₂) ≤ δ (or add and remove
/// exchanged), certified.
///
/// # Guarantee
/// `lower ≤ ε ≤ upper` for the exact substitution DP-SGD privacy curve (adversary sees every
/// noisy sum). The upper bound is loose (about ε_remove + ε_add): no dominating pair for
/// the substitution relation is used. Errors on invalid arguments, δ ∉ (0, 1), or when no ε
/// certifies the group bound. Note: `proofs-notes/dpsgd_substitution_pld_epsilon.md`.
pub fn dpsgd_substitution_pld_epsilon(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<PldReport> {
    validate::open_unit("delta", delta)?;
    let (hi, lo) = join(
        || group_of_two_upper(rate, sigma, steps, delta, opts),
        || pair_lower(rate, sigma, steps, delta, opts),
    )?;
    let (hi, s_hi) = hi?;
    let (lo, s, s_lo) = lo?;
    if lo > hi {
        return Err(Error::Numerical(
            "substitution bracket is empty (lower above upper)".into(),
        ));
    }
    report(lo, hi, &s, s_hi.max(s_lo))
}

/// The lower side of T copies of the substitution pair: (ε lower bound, its setup, support).
fn pair_lower(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<(Rational, super::Setup, usize)> {
    let term = PldTerm {
        mechanism: PldMechanism::SubsampledGaussianSubstitution {
            sigma: sigma.clone(),
            rate: rate.clone(),
        },
        count: steps.clone(),
    };
    let s = setup(std::slice::from_ref(&term), opts, Some(delta))?;
    let tabs = tables(&s.terms, &s, None)?;
    let (lo, support) = super::side_epsilon(&s.terms, &tabs, &s, Side::Lower, delta, false)?;
    Ok((lo, s, support))
}

/// The budget splits θ tried: the first step of a chain gets θ·δ, the second the rest.
const SPLITS: [(u32, u32); 7] = [
    (1, 2),
    (3, 4),
    (9, 10),
    (99, 100),
    (999, 1000),
    (1, 4),
    (1, 10),
];

/// Group privacy over add/remove: the least certified ε₁ + ε₂ over the two chains
/// (remove then add, add then remove) and the splits θ, where ε₁ is certified at θ·δ on the
/// first step's curve and ε₂ at (a lower bound of) (1 − θ)·δ·e^{−ε₁} on the second's (upper
/// sides); (bound, support).
fn group_of_two_upper(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<(Rational, usize)> {
    let term = |direction| super::dpsgd_term(rate, sigma, steps, direction);
    let s = setup(&[term(Direction::Remove)], opts, Some(delta))?;
    // the add direction's table is the remove direction's mirrored (Lemma C′)
    let rem_tabs = tables(&[term(Direction::Remove)], &s, None)?;
    let add_tabs = mirror_tables(&rem_tabs, &s)?;
    let run = |d: Direction, tabs: &[Table]| -> Result<(Curve, usize)> {
        let t = [term(d)];
        let progress = opts.progress && d == Direction::Remove;
        let (p, ctx) = compose_side(&t, tabs, &s, Side::Upper, progress)?;
        Ok((Curve::new(&p, &ctx), ctx.support))
    };
    let (rem, add) = join(
        || run(Direction::Remove, &rem_tabs),
        || run(Direction::Add, &add_tabs),
    )?;
    let ((rem, s1), (add, s2)) = (rem?, add?);
    let mut best: Option<Rational> = None;
    for (first, second) in [(&rem, &add), (&add, &rem)] {
        for (n, d) in SPLITS {
            // a split the accountant cannot certify (mass at +∞ above its share) is skipped
            if let Ok(e) = chain(first, second, delta, &Rational::from((n, d))) {
                if best.as_ref().is_none_or(|b| e < *b) {
                    best = Some(e);
                }
            }
        }
    }
    let best = best.ok_or_else(|| {
        Error::Numerical(
            "no split of δ certifies the substitution group bound (the add/remove mass at +∞ is too large: pass a smaller --tail)".into(),
        )
    })?;
    Ok((best, s1.max(s2)))
}

/// One two-hop chain ([`super::group::chain`]): ε₁ + ε₂ with δ̄_first(ε₁) ≤ θ·δ and
/// δ̄_second(ε₂) ≤ (1 − θ)·δ·e^{−ε₁}, so δ_first(ε₁) + e^{ε₁}·δ_second(ε₂) ≤ δ.
fn chain(first: &Curve, second: &Curve, delta: &Rational, theta: &Rational) -> Result<Rational> {
    super::group::chain(
        &[first, second],
        delta,
        &[theta.clone(), Rational::from(1 - theta)],
    )
}
