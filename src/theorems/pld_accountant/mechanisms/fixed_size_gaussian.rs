//! One DP-SGD step with a fixed-size batch (B of N drawn without replacement, γ = B/N) under
//! substitution neighbours, clipping norm 1, noise σ: the symmetric dominating pair S whose
//! losses above 0 are those of the remove pair R = (γN(2,σ²) + (1−γ)N(0,σ²) ‖ N(0,σ²)) (the
//! Poisson remove pair at σ/2: replacing one example moves the sum by up to 2), whose losses
//! below 0 are their mirror image, and which has an atom at loss 0
//! (`proofs-notes/dpsgd_fixed_size_pld_epsilon.md`).
use super::super::enclose::{point, rational};
use super::super::{Direction, Interval};
use super::subsampled_gaussian::{mixture_tails, subsampled_gaussian_profile};
use super::{Atom, Profile, Tails};
use rug::Rational;

/// With g_P(b) = R_P[Z > b], g_Q(b) = R_Q[Z > b] (b ≥ 0) and c = g_P(0) + g_Q(0), the
/// continuous part of S has tails g_P(a), g_Q(a), c − g_P(a), c − g_Q(a) at a ≥ 0 and, at
/// a < 0, P[Z ≤ a] = g_Q(−a), Q[Z ≤ a] = g_P(−a) (the mirror, P and Q exchanged); the atom
/// at 0 carries 1 − c under both P and Q.
pub(super) fn fixed_size_gaussian_profile(sigma: &Rational, rate: &Rational) -> Profile {
    let half = Rational::from(sigma / 2u32);
    let (s, q) = (rational(&half), rational(rate));
    let at0 = mixture_tails(s, q, true, point(0.0));
    let c = at0.p_gt + at0.q_gt;
    let atom = point(1.0) - c;
    let atom = Interval::try_from((atom.inf().max(0.0), atom.sup().max(0.0))).unwrap_or(atom);
    // the grid heuristics of the remove pair at σ/2 (its spread and the scale |ln(1 − γ)|)
    let rem = subsampled_gaussian_profile(&half, rate, Direction::Remove);
    Profile {
        tails: Some(Box::new(move |a| symmetric_tails(s, q, c, a))),
        atoms: if atom.sup() > 0.0 {
            vec![Atom {
                loss: Some(Rational::new()),
                p: atom,
            }]
        } else {
            vec![]
        },
        support: (f64::NEG_INFINITY, f64::INFINITY),
        shift: Rational::new(),
        shift_from: f64::INFINITY,
        spread: rem.spread,
        detail: rem.detail,
        mix: None,
    }
}

/// Tails of S's continuous part at a (R's remove tails at |a|, mirrored below 0). The
/// continuous part has no atom, so at an `a` straddling 0 the hull of the tails at its two
/// ends encloses every tail in between (each tail is monotone in a).
fn symmetric_tails(s: Interval, q: Interval, c: Interval, a: Interval) -> Tails {
    if a.inf() >= 0.0 {
        let t = mixture_tails(s, q, true, a);
        Tails::plain(t.p_gt, t.q_gt, c - t.p_gt, c - t.q_gt)
    } else if a.sup() <= 0.0 {
        let t = mixture_tails(s, q, true, -a);
        Tails::plain(c - t.q_gt, c - t.p_gt, t.q_gt, t.p_gt)
    } else {
        let (l, r) = (
            symmetric_tails(s, q, c, point(a.inf())),
            symmetric_tails(s, q, c, point(a.sup())),
        );
        Tails::plain(
            l.p_gt.convex_hull(r.p_gt),
            l.q_gt.convex_hull(r.q_gt),
            l.p_le.convex_hull(r.p_le),
            l.q_le.convex_hull(r.q_le),
        )
    }
}
