//! The Poisson-subsampled Gaussian's substitution pair (noise σ, rate q, clipping norm 1):
//! P = (1−q)N(0,σ²) + qN(1,σ²) against Q = (1−q)N(0,σ²) + qN(−1,σ²) (Koskela, Jälkö &
//! Honkela 2020, §5.2: one record's clipped gradient +1 replaced by −1). No atoms; the pair is
//! symmetric (x ↦ −x swaps P and Q), so one direction describes both orders of the neighbours.
use super::super::enclose::{point, rational};
use super::super::Interval;
use super::subsampled_gaussian::em1;
use super::{phi2, Profile, Tails};
use crate::num::{F64Interval, Real};
use rug::Rational;

/// With y = e^{x/σ²}, c = q·e^{−1/(2σ²)} and k = 1 − q the loss is
/// L(x) = ln((k + c·y)/(k + c/y)), increasing in x, so each tail is a mixture of Φ at the
/// threshold x(a) = σ² ln y(a), y(a) the positive root of c·y² + k(1 − e^a)·y − c·e^a = 0
/// (`proofs-notes/dpsgd_substitution_pld_epsilon.md`).
pub(super) fn substitution_gaussian_profile(sigma: &Rational, rate: &Rational) -> Profile {
    let (s, q) = (rational(sigma), rational(rate));
    let (sf, qf) = (sigma.to_f64(), rate.to_f64());
    // loss ≈ 2c·sinh(x/σ²) for small q: its standard deviation under N(0, σ²), and 2/σ at q = 1
    let v = 1.0 / (sf * sf);
    let small_q = qf * (2.0 * (2.0 * v).exp_m1()).max(0.0).sqrt() * (-0.5 * v).exp();
    let spread = if small_q.is_finite() {
        small_q.max(1e-300)
    } else {
        2.0 / sf
    };
    Profile {
        tails: Some(Box::new(move |a| substitution_tails(s, q, a))),
        atoms: vec![],
        support: (f64::NEG_INFINITY, f64::INFINITY),
        shift: Rational::new(),
        shift_from: f64::INFINITY,
        spread,
        detail: spread,
        mix: None,
    }
}

/// The output threshold x(a) with L(x) > a ⟺ x > x(a), enclosed. y = e^{x/σ²} is the positive
/// root of c·y² − km·y − c·e^a = 0 (m = e^a − 1); near y = 1 the threshold is σ²·ln1p(d) with
/// d = y − 1 computed directly: y = 1 + d turns the quadratic into c·d² + (2c − km)·d − m(k + c)
/// = 0, whose discriminant is r² = k²m² + 4c²e^a, so d = 2m(k + c)/(r + 2c − km) where km ≤ 2c
/// and d = (km − 2c + r)/(2c) where km ≥ 2c: neither subtracts nearly equal numbers. (Through
/// y, ln y near 1 lost the few ulps of y relative to y − 1 ≈ x/σ²: at σ = 700 the threshold came
/// out 10⁻⁹ wide, each tail 5·10⁻¹³, which the cell split divides by e^h − 1.) Where d < −½, y
/// itself, 2c·e^a/(r − km), keeps its relative precision and ln y is taken instead (1 + d would not).
fn threshold(s: Interval, q: Interval, a: Interval) -> Interval {
    let (one, two) = (point(1.0), point(2.0));
    let k = one - q;
    let c = q * (-(one / (two * s.sqr()))).exp();
    let (m, ea) = (em1(a), a.exp());
    let km = k * m;
    let r = (km.sqr() + point(4.0) * c.sqr() * ea).sqrt();
    let gap = two * c - km;
    let rationalised = || two * m * (k + c) / (r + gap);
    let direct = || (r - gap) / (two * c);
    let d = if gap.inf() >= 0.0 {
        rationalised()
    } else if gap.sup() <= 0.0 {
        direct()
    } else {
        // km straddles 2c: both forms are enclosures; take their intersection
        rationalised().intersection(direct())
    };
    if d.sup() < -0.5 {
        // here m < 0 (d has m's sign), so r − km has no cancellation
        s.sqr() * (two * c * ea / (r - km)).ln()
    } else {
        s.sqr() * F64Interval(d).ln1p().0
    }
}

/// Tails at loss a: Z > a ⟺ x > x(a); P = (1−q)N(0,σ²) + qN(1,σ²), Q = (1−q)N(0,σ²) + qN(−1,σ²).
fn substitution_tails(s: Interval, q: Interval, a: Interval) -> Tails {
    let one = point(1.0);
    let keep = one - q;
    let x = threshold(s, q, a);
    // (Φ(u), Φ(−u)) at u = x/σ, (x − 1)/σ, (x + 1)/σ: mass below and above x of N(0), N(1), N(−1)
    let (l0, g0) = phi2(x / s);
    let (lp, gp) = phi2((x - one) / s);
    let (lm, gm) = phi2((x + one) / s);
    Tails::plain(
        keep * g0 + q * gp,
        keep * g0 + q * gm,
        keep * l0 + q * lp,
        keep * l0 + q * lm,
    )
}
