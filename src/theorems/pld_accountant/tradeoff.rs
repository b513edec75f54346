//! f-DP from the certified PLD: the best membership-inference attack's true-positive rate at a
//! false-positive rate α against DP-SGD, bracketed from both sides of the accountant
//! (`proofs-notes/dpsgd_tradeoff_tpr.md`).
//!
//! For a pair (P, Q), sup{E_P φ : E_Q φ ≤ α} = inf_{ε ∈ ℝ} e^ε·α + δ_{P‖Q}(ε) (Lagrange duality
//! for the Neyman–Pearson problem), and for ε < 0, δ_{P‖Q}(ε) = 1 − e^ε + e^ε·δ_{Q‖P}(−ε): the
//! remove and add directions of DP-SGD are exactly each other's reverse.
use super::enclose::{point, rational};
use super::fixed::Side;
use super::query::Curve;
use super::Interval;
use super::{
    compose_side, mirror_tables, setup, tables, Direction, PldOptions, PldReport, PldTerm, Table,
};
use crate::num::{Arithmetic, Enclosure};
use crate::theorems::tradeoff::check_rate;
use crate::{validate, Error, Result};
use rug::{Float, Integer, Rational};

/// One curve's points (e^ε enclosed, δ on the curve's side at ε) for ε = 0 and every grid point
/// a_j = shift + j·h ≥ 0 through the last slot, whose δ (the mass at +∞) holds for every
/// larger ε.
fn points(c: &Curve) -> Result<Vec<(Interval, f64)>> {
    let n = c.s.len() - 1;
    // the first grid index j0 with a_{j0} ≥ 0, and its slot k0 = j0 − off + 1 (at least 0)
    let first = (Rational::from(-&c.shift) / &c.h).ceil();
    let first = first.numer().to_i64().unwrap_or(i64::MAX);
    let k0 = first
        .saturating_sub(c.off)
        .saturating_add(1)
        .clamp(0, n as i64 + 1) as usize;
    let j0 = c.off + k0 as i64 - 1;
    let a0 = &c.shift + Rational::from(&c.h * Integer::from(j0));
    let mut out = Vec::with_capacity(n + 2);
    // ε = 0 itself when it lies below the first listed point (or no grid point is ≥ 0)
    if a0 > 0 || k0 > n {
        out.push((point(1.0), c.delta(&Rational::new())?));
    }
    let eh = rational(&c.h).exp();
    let mut e = rational(&a0).exp();
    for k in k0..=n {
        out.push((e, c.at_slot(k)?));
        e = e * eh;
    }
    Ok(out)
}

/// The TPR bracket of one ordered pair at FPR α: `direct` are the points of δ_{P‖Q}, `reverse`
/// those of δ_{Q‖P}, each (upper side, lower side).
fn pair_bracket(
    direct: &[Vec<(Interval, f64)>; 2],
    reverse: &[Vec<(Interval, f64)>; 2],
    a: Interval,
) -> (f64, f64) {
    let one = point(1.0);
    let mut up = 1.0f64;
    for (e, d) in &direct[0] {
        up = up.min((*e * a + point(*d)).sup());
    }
    for (e, d) in &reverse[0] {
        up = up.min((one - (one / *e) * (one - a - point(*d))).sup());
    }
    // lower: the lower side's grid measure has δ(ε) = A − B·e^ε on each cell between listed
    // points (and beyond the last, A = its mass at +∞, B = 0), so e^ε·α + δ(ε) and
    // 1 − e^{−ε}(1 − α − δ(ε)) are monotone on each cell: their infima are at listed points
    // (or, for the second, the limit 1 ≥ any TPR)
    let mut lo = 1.0f64;
    for (e, d) in &direct[1] {
        lo = lo.min((*e * a + point(*d)).inf());
    }
    for (e, d) in &reverse[1] {
        lo = lo.min((one - (one / *e) * (one - a - point(*d))).inf());
    }
    (lo.max(0.0), up.min(1.0))
}

/// The composed curves of `steps` DP-SGD steps in one direction, (upper side, lower side).
fn direction_points(
    term: &PldTerm,
    tabs: &[Table],
    s: &super::Setup,
    progress: bool,
) -> Result<[Vec<(Interval, f64)>; 2]> {
    let terms = std::slice::from_ref(term);
    let side = |sd| -> Result<Vec<(Interval, f64)>> {
        let (p, ctx) = compose_side(terms, tabs, s, sd, progress)?;
        points(&Curve::new(&p, &ctx))
    };
    Ok([side(Side::Upper)?, side(Side::Lower)?])
}

/// The best membership-inference attack's TPR at each FPR α in `fprs` against `steps`
/// Poisson-subsampled Gaussian steps (rate q, noise σ, sensitivity 1; add/remove neighbours,
/// either output as the member hypothesis), from the certified PLD of both directions.
///
/// # Guarantee
/// For each α: `lower ≤ TPR*(α) ≤ upper`, TPR*(α) the largest TPR of any test at FPR ≤ α
/// between the two outputs of a worst-case neighbouring pair, in either order. Errors on
/// invalid rate/σ/steps, α ∉ [0, 1], an empty list, or grid/tail out of range.
/// Note: `proofs-notes/dpsgd_tradeoff_tpr.md`.
pub fn dpsgd_tradeoff_tpr(
    rate: &Rational,
    sigma: &Rational,
    steps: &Integer,
    fprs: &[Rational],
    opts: &PldOptions,
) -> Result<Vec<PldReport>> {
    validate::nonempty("fpr", fprs)?;
    for a in fprs {
        check_rate("fpr", a)?;
    }
    let term = |direction| super::dpsgd_term(rate, sigma, steps, direction);
    // tail hint: the smallest positive α (TPR ≥ α, so a 10⁻⁴ fraction of it is negligible)
    let hint = fprs
        .iter()
        .filter(|a| **a > 0)
        .min()
        .cloned()
        .unwrap_or_else(|| Rational::from((1, 1_000_000)))
        .min(Rational::from((1, 2)));
    let s = setup(&[term(Direction::Remove)], opts, Some(&hint))?;
    // the add direction's table is the remove direction's mirrored (Lemma Reversed-pair)
    let rem_tabs = tables(&[term(Direction::Remove)], &s, None)?;
    let add_tabs = mirror_tables(&rem_tabs, &s)?;
    let (rem, add) = std::thread::scope(|sc| {
        let add = sc.spawn(|| direction_points(&term(Direction::Add), &add_tabs, &s, false));
        let rem = direction_points(&term(Direction::Remove), &rem_tabs, &s, opts.progress);
        (rem, add.join())
    });
    let rem = rem?;
    let add = add.map_err(|_| Error::Numerical("PLD worker failed".into()))??;
    fprs.iter()
        .map(|alpha| {
            let a = rational(alpha);
            let (l1, u1) = pair_bracket(&rem, &add, a);
            let (l2, u2) = pair_bracket(&add, &rem, a);
            let (lo, hi) = (l1.max(l2), u1.max(u2));
            Ok(PldReport {
                enclosure: Enclosure::new(
                    Float::with_val(53, lo),
                    Float::with_val(53, hi),
                    Arithmetic::F64Interval,
                )?,
                grid: s.h.clone(),
                tail: s.tau.clone(),
                fixed_bits: s.f,
                support: 0,
            })
        })
        .collect()
}
