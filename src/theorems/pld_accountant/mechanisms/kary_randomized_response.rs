//! k-ary randomized response with noise parameter p (dp_accounting's
//! `RandomizedResponseDpEvent`): losses ±ε with ε = ln(1 + k(1 − p)/p) irrational in general,
//! so the two atoms at ±ε enter as the "continuous part" (tails enclosed for every a, the
//! threshold ε only enclosed), and the atom at loss 0 (the k − 2 other buckets) is exact.
use super::super::enclose::{point, rational};
use super::super::Interval;
use super::{Atom, Profile, Tails};
use crate::num::{F64Interval, Real};
use crate::theorems::randomized_response::rr_ratio;
use rug::{Integer, Rational};

/// [x < t] for every x in `a` and t in `t`: 1, 0, or [0, 1] when undecided.
fn below(a: Interval, t: Interval) -> Interval {
    if a.sup() < t.inf() {
        point(1.0)
    } else if a.inf() >= t.sup() {
        point(0.0)
    } else {
        Interval::try_from((0.0, 1.0)).unwrap_or(Interval::ENTIRE)
    }
}

/// P = RR(x), Q = RR(x′): output x has (P, Q) = (u, v), loss ε; output x′ has (v, u), loss −ε;
/// each other bucket (v, v), loss 0 (u = 1 − p + p/k, v = p/k). Tails of the pair of atoms at
/// ±ε: P\[Z > a\] = u·[a < ε] + v·[a < −ε], Q\[Z > a\] = v·[a < ε] + u·[a < −ε], and the
/// complements, each indicator enclosed (undecided only when a's enclosure meets ε's).
pub(super) fn kary_randomized_response_profile(p: &Rational, k: &Integer) -> Profile {
    let m = rr_ratio(p, k) - 1u32;
    let eps = F64Interval::from_rational(&m, 53).ln1p().0;
    let v = rational(&Rational::from(p / k));
    let u = rational(&(Rational::from(1 - p) + Rational::from(p / k)));
    let others = rational(&(Rational::from(k - 2u32) * Rational::from(p / k)));
    let one = point(1.0);
    Profile {
        tails: Some(Box::new(move |a| {
            let (i1, i2) = (below(a, eps), below(a, -eps));
            let (n1, n2) = (one - i1, one - i2);
            Tails::plain(
                u * i1 + v * i2,
                v * i1 + u * i2,
                u * n1 + v * n2,
                v * n1 + u * n2,
            )
        })),
        // kept even at mass 0 (k = 2): a table with atoms is never mirrored or coarsened, whose
        // lemmas need a continuous part without atoms
        atoms: vec![Atom {
            loss: Some(Rational::new()),
            p: others,
        }],
        support: (-eps.sup(), eps.sup()),
        shift: Rational::new(),
        shift_from: f64::INFINITY,
        spread: eps.sup().max(1e-6),
        // finer than ε: the lower side moves each ±ε atom down to a grid point (ε is irrational,
        // never on the grid), an error that grows with the count
        detail: (eps.sup() / 32.0).max(1e-6),
        mix: None,
    }
}
