//! User-level DP-SGD with example-level Poisson sampling: each user contributes up to K
//! examples, each sampled independently at rate q. A certified upper bound by group privacy:
//! a K-hop chain over the add/remove accountant's certified curves
//! (`proofs-notes/dpsgd_group_pld_epsilon.md`). The chain ([`chain`]) is shared with the
//! substitution route (two hops).
use super::convolve::compose_side;
use super::discretise::{mirror_tables, tables, Table};
use super::enclose::rational;
use super::fixed::Side;
use super::grid::setup_with;
use super::query::{epsilon_side, Curve};
use super::{dpsgd_pld_epsilon_checked, join, report, Direction, PldOptions, PldReport};
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// Largest group size K accepted (one certified query per hop per split).
pub const MAX_GROUP: u32 = 4096;

/// DP-SGD (Poisson sampling of EXAMPLES at rate q, noise multiplier σ, clipping norm 1,
/// `steps` steps) with the privacy unit a user who contributes up to `k` examples: two-sided
/// ε(δ) for datasets differing in one user's examples (added or removed).
///
/// Upper: group privacy over the chain D₀ ⊃ D₁ ⊃ … ⊃ D_K removing the user's examples one at
/// a time; each hop is an add/remove neighbour pair of the whole adaptive run, certified on the
/// remove direction's upper curve for the ordered pair (D₀, D_K) and on the add direction's for
/// (D_K, D₀): Σ ε_j with hop j certified at δ_j ≤ θ_j·δ·e^{−(ε₁+…+ε_{j−1})}, Σθ_j = 1, the θ
/// chosen (in floats) so the ε_j are about equal; the larger direction is reported.
/// Lower: the add/remove run's certified lower end (a user with one example is allowed).
/// `k = 1` returns [`dpsgd_pld_epsilon`](super::dpsgd_pld_epsilon)'s bracket.
///
/// # Guarantee
/// `lower ≤ ε ≤ upper` for the exact user-level privacy curve (adversary sees every noisy
/// sum). The upper end is group privacy (about K·ε at δ/K-ish), the lower end that of one
/// example: both loose for K ≥ 2. Errors on invalid arguments, k ∉ [1, 4096], δ ∉ (0, 1), or
/// when no split certifies the chain. Note: `proofs-notes/dpsgd_group_pld_epsilon.md`.
pub fn dpsgd_group_pld_epsilon(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    k: u32,
    delta: &Rational,
    opts: &PldOptions,
) -> Result<PldReport> {
    validate::open_unit("delta", delta)?;
    if k == 0 || k > MAX_GROUP {
        return Err(Error::arg(
            "group_size",
            format!("must be an integer in [1, {MAX_GROUP}], got {k}"),
        ));
    }
    if k == 1 {
        return dpsgd_pld_epsilon_checked(rate, sigma, steps, delta, opts);
    }
    let term = |direction| super::dpsgd_term(rate, sigma, steps, direction);
    // the chain reads each hop's +∞ atom at a fraction of δ, amplified by e^{ε} of the hops
    // before it: so the fine tail share (q = 1, σ = 4, K = 2 had no certifiable split at the
    // default one) and exact products only (an FFT's widened tails, truncated to +∞, would
    // inflate that atom)
    let mut s = setup_with(&[term(Direction::Remove)], opts, Some(delta), true)?;
    s.fft_budget = Rational::new();
    // one direction: (upper chain, lower ε at δ, support)
    // the add direction's table is the remove direction's mirrored (Lemma Reversed-pair)
    let rem_tabs = tables(&[term(Direction::Remove)], &s, None)?;
    let add_tabs = mirror_tables(&rem_tabs, &s)?;
    let run = |d: Direction, tabs: &[Table]| -> Result<(Rational, Rational, usize)> {
        let t = [term(d)];
        let progress = opts.progress && d == Direction::Remove;
        let (up, lo) = join(
            || compose_side(&t, tabs, &s, Side::Upper, progress),
            || compose_side(&t, tabs, &s, Side::Lower, false),
        )?;
        let ((pu, cu), (pl, cl)) = (up?, lo?);
        let hi = equal_hops(&Curve::new(&pu, &cu), k, delta)?;
        let lo = epsilon_side(&Curve::new(&pl, &cl), delta)?;
        Ok((hi, lo, cu.support.max(cl.support)))
    };
    let (rem, add) = join(
        || run(Direction::Remove, &rem_tabs),
        || run(Direction::Add, &add_tabs),
    )?;
    let ((hr, lr, sr), (ha, la, sa)) = (rem?, add?);
    let (lo, hi) = (lr.max(la), hr.max(ha));
    if lo > hi {
        return Err(Error::Numerical(
            "group bracket is empty (lower above upper)".into(),
        ));
    }
    report(lo, hi, &s, sr.max(sa))
}

/// The least certified K-hop chain on one curve over a few splits θ: θ_j ∝ e^{j·ε̂} for a
/// guess ε̂ of the per-hop ε (so every hop gets about the same budget), ε̂ refined from the
/// previous chain's mean; and the even split (ε̂ = 0).
fn equal_hops(curve: &Curve, k: u32, delta: &Rational) -> Result<Rational> {
    let hops = vec![curve; k as usize];
    let share = Rational::from(delta / k);
    let mut guess = epsilon_side(curve, &share).map_or(0.0, |e| e.to_f64());
    let mut best: Option<Rational> = None;
    for round in 0..4 {
        let g = if round == 3 { 0.0 } else { guess };
        // a split the accountant cannot certify (mass at +∞ above its share) is skipped
        if let Ok(e) = chain(&hops, delta, &splits(k, g)) {
            guess = e.to_f64() / f64::from(k);
            if best.as_ref().is_none_or(|b| e < *b) {
                best = Some(e);
            }
        }
    }
    best.ok_or_else(|| {
        Error::Numerical("no split of δ certifies the group chain (the add/remove mass at +∞ is too large: pass a smaller --tail)".into())
    })
}

/// θ_j = w_j / Σw with w_j = e^{(j − (K−1))·g} (floats choose; the θ are exact rationals
/// summing to exactly 1).
fn splits(k: u32, g: f64) -> Vec<Rational> {
    let top = f64::from(k - 1);
    let w: Vec<Rational> = (0..k)
        .map(|j| {
            let x = ((f64::from(j) - top) * g).exp().max(1e-300);
            Rational::from_f64(if x.is_finite() { x } else { 1.0 })
                .unwrap_or_else(|| Rational::from(1))
        })
        .collect();
    let sum: Rational = w.iter().sum::<Rational>();
    w.into_iter().map(|x| x / &sum).collect()
}

/// A group-privacy chain: Σ ε_j, hop j certified on `hops[j]` at a budget δ_j ≤
/// θ_j·δ·e^{−(ε₁+…+ε_{j−1})} (δ₁ = θ₁·δ exactly; later ones the lower end of an interval
/// enclosure), so Σ_j e^{ε₁+…+ε_{j−1}}·δ_j ≤ Σθ_j·δ ≤ δ when Σθ_j ≤ 1 (the caller's duty).
pub(super) fn chain(hops: &[&Curve], delta: &Rational, thetas: &[Rational]) -> Result<Rational> {
    let mut total = Rational::new();
    for (j, (curve, theta)) in hops.iter().zip(thetas).enumerate() {
        let share = Rational::from(delta * theta);
        let budget = if j == 0 {
            share
        } else {
            let d = (rational(&share) * (-rational(&total)).exp()).inf();
            Rational::from_f64(d)
                .filter(|v| *v > 0)
                .ok_or_else(|| Error::Numerical("a later hop's budget underflows".into()))?
        };
        total += epsilon_side(curve, &budget)?;
    }
    Ok(total)
}
