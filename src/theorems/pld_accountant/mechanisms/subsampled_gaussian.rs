//! The Poisson-subsampled Gaussian (sensitivity 1, noise σ, rate q), one neighbour direction:
//! remove ((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²)) or add (the reverse). No atoms.
use super::super::enclose::{point, rational};
use super::super::{Direction, Interval};
use super::{phi2, Mix, Profile, Tails};
use crate::num::{F64Interval, Real};
use rug::Rational;

/// The loss is monotone in the output x, so each tail is a mixture of Φ at a threshold x(b):
/// remove: Z > a ⟺ x > x(a); add: Z > a ⟺ x < x(−a), with x(b) = σ² ln1p(expm1(b)/q) + ½
/// where e^b > 1 − q (`proofs-notes/dpsgd_pld_epsilon.md`).
pub(super) fn subsampled_gaussian_profile(
    sigma: &Rational,
    rate: &Rational,
    direction: Direction,
) -> Profile {
    let (s, q) = (rational(sigma), rational(rate));
    let (sf, qf) = (sigma.to_f64(), rate.to_f64());
    let spread = qf * ((1.0 / (sf * sf)).exp() - 1.0).max(0.0).sqrt();
    let ln_keep = (1.0 - qf).ln();
    let remove = direction == Direction::Remove;
    // the loss of the unsampled bulk's centre (output x = 0): ±ln(1 − q + q·e^{−1/(2σ²)}),
    // in f64 — any exact value is a valid grid offset; this one puts a grid point on the bulk
    // once h ≥ |ln(1 − q)|, when the bulk would otherwise lie strictly inside the cell next to 0
    // (on a finer grid a point lies within a cell of it anyway, and the median placement can
    // cost: q = 0.001, σ = 0.3, 100 steps, δ = 10⁻⁶ lost 5.6·10⁻⁴ of width with it)
    let bulk = (qf * ((-0.5 / (sf * sf)).exp() - 1.0)).ln_1p();
    let bulk = if remove { bulk } else { -bulk };
    Profile {
        shift: Rational::from_f64(bulk).unwrap_or_default(),
        shift_from: -ln_keep,
        tails: Some(Box::new(move |a| mixture_tails(s, q, remove, a))),
        atoms: vec![],
        support: if remove {
            (ln_keep, f64::INFINITY)
        } else {
            (f64::NEG_INFINITY, -ln_keep)
        },
        spread,
        detail: spread.min(-ln_keep),
        mix: Some(Mix {
            rate: q,
            p_is_mix: remove,
        }),
    }
}

/// e^b − 1, enclosed: MPFR's expm1 only where it matters; for |b| > ½ the plain form has no
/// cancellation. (Shared with the substitution pair.)
pub(super) fn em1(b: Interval) -> Interval {
    if b.mag() > 0.5 {
        b.exp() - point(1.0)
    } else {
        F64Interval(b).expm1().0
    }
}

/// Tails at loss a of one direction (noise σ enclosed by `s`, rate by `q`).
pub(super) fn mixture_tails(s: Interval, q: Interval, remove: bool, a: Interval) -> Tails {
    let (one, zero) = (point(1.0), point(0.0));
    let keep = one - q;
    // the threshold crosses where e^{±a} − (1 − q) = expm1(±a) + q: with m = expm1(±a) it is
    // σ² ln1p(m/q) + ½, free of the cancellation in e^{±a} − (1 − q) (a factor 1/q)
    let m = em1(if remove { a } else { -a });
    if (m + q).sup() <= 0.0 {
        // every output qualifies (remove: Z > a always; add: never)
        let (gt, le) = if remove { (one, zero) } else { (zero, one) };
        return Tails {
            p_gt: gt,
            q_gt: gt,
            p_le: le,
            q_le: le,
            r_gt: gt,
            r_le: le,
        };
    }
    let x = s.sqr() * F64Interval(m / q).ln1p().0 + point(0.5);
    let (u0, u1) = (x / s, (x - one) / s);
    if remove {
        // Z > a ⟺ x > x(a): P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²), R = N(1,σ²)
        let ((l0, g0), (l1, g1)) = (phi2(u0), phi2(u1));
        Tails {
            p_gt: keep * g0 + q * g1,
            q_gt: g0,
            p_le: keep * l0 + q * l1,
            q_le: l0,
            r_gt: g1,
            r_le: l1,
        }
    } else {
        // Z > a ⟺ x < x(−a): P = N(0,σ²), Q = (1−q)N(0,σ²) + qN(1,σ²), R = N(1,σ²)
        let ((g0, l0), (g1, l1)) = (phi2(u0), phi2(u1));
        Tails {
            p_gt: g0,
            q_gt: keep * g0 + q * g1,
            p_le: l0,
            q_le: keep * l0 + q * l1,
            r_gt: g1,
            r_le: l1,
        }
    }
}
