//! DP-SGD with Poisson sampling under substitution (replace-one) neighbours: a certified
//! lower bound from a realisable pair, a certified upper bound from group privacy over the
//! add/remove accountant (`proofs-notes/dpsgd_substitution_pld_epsilon.md`).
use super::convolve::compose_side;
use super::discretise::tables;
use super::fixed::{fi_rat, pt, Side};
use super::grid::setup;
use super::query::{epsilon_side, Curve};
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
/// dataset with that record removed, on the add/remove accountant's dominating sides:
/// 2ε for an ε with (1 + e^ε)·max(δ_remove(ε), δ_add(ε)) ≤ δ, certified.
///
/// # Guarantee
/// `lower ≤ ε ≤ upper` for the exact substitution DP-SGD privacy curve (adversary sees every
/// noisy sum). The upper bound is loose (about 2× the add/remove ε): no dominating pair for
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
    let tabs = tables(&s.terms, &s)?;
    let (p, ctx) = compose_side(&s.terms, &tabs, &s, Side::Lower, false)?;
    let lo = epsilon_side(&Curve::new(&p, &ctx), delta)?;
    Ok((lo, s, ctx.support))
}

/// Group privacy over add/remove: 2ε for an ε certified to satisfy
/// (1 + e^ε)·max(δ_remove(ε), δ_add(ε)) ≤ δ on the dominating (upper) sides; (bound, support).
fn group_of_two_upper(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<(Rational, usize)> {
    let term = |direction| PldTerm {
        mechanism: PldMechanism::SubsampledGaussian {
            sigma: sigma.clone(),
            rate: rate.clone(),
            direction,
        },
        count: steps.clone(),
    };
    let s = setup(&[term(Direction::Remove)], opts, Some(delta))?;
    let run = |d: Direction| -> Result<(Curve, usize)> {
        let t = [term(d)];
        let tabs = tables(&t, &s)?;
        let progress = opts.progress && d == Direction::Remove;
        let (p, ctx) = compose_side(&t, &tabs, &s, Side::Upper, progress)?;
        Ok((Curve::new(&p, &ctx), ctx.support))
    };
    let (rem, add) = join(|| run(Direction::Remove), || run(Direction::Add))?;
    let ((rem, s1), (add, s2)) = (rem?, add?);
    let eps = group_epsilon(&rem, &add, delta)?;
    Ok((Rational::from(&eps * 2u32), s1.max(s2)))
}

/// Whether (1 + e^ε)·max(δ_rem(ε), δ_add(ε)) ≤ δ is certified (each δ an upper bound).
fn group_ok(rem: &Curve, add: &Curve, eps: &Rational, delta: &Rational) -> Result<bool> {
    let d = rem.delta(eps)?.max(add.delta(eps)?);
    let lhs = (pt(1.0) + fi_rat(eps).exp()) * pt(d);
    Ok(!lhs.is_empty() && lhs.sup() <= fi_rat(delta).inf())
}

/// A certified ε for [`group_ok`]: doubling then bisection in floats (search only; every
/// candidate kept has passed the certified check), to a relative resolution of 2⁻²⁰.
fn group_epsilon(rem: &Curve, add: &Curve, delta: &Rational) -> Result<Rational> {
    let q = |x: f64| Rational::from_f64(x).unwrap_or_default();
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while !group_ok(rem, add, &q(hi), delta)? {
        lo = hi;
        hi *= 2.0;
        if hi > 1e4 {
            return Err(Error::Numerical(
                "no ε ≤ 10⁴ certifies the substitution group bound".into(),
            ));
        }
    }
    if group_ok(rem, add, &q(0.0), delta)? {
        return Ok(Rational::new());
    }
    while hi - lo > hi * 2f64.powi(-20) {
        let mid = 0.5 * (lo + hi);
        if group_ok(rem, add, &q(mid), delta)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(q(hi))
}
