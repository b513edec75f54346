//! A certified standard normal CDF in `f64` interval arithmetic.
//!
//! For |x| < 2 (series): Φ(x) = ½ + φ(x)·S(x), S(t) = Σₙ t^{2n+1}/(2n+1)!!, all terms of one
//! sign, truncated with the geometric tail bound term_N/(1 − t²/(2N+3)).
//! For |x| ≥ 2 (continued fraction): Q(t) = P[N(0,1) > t] = φ(t)·R(t) with the Mills ratio
//! R(t) = 1/(t + 1/(t + 2/(t + 3/(t + …)))). Its elements are positive, so consecutive
//! truncations bracket R(t); we enclose two consecutive truncations and take their hull.
//! The number of terms only affects width, never soundness. See proofs-notes/normal_cdf.md.
use super::fast::iv;
use inari::Interval;

const SERIES_LIMIT: f64 = 2.0;
/// Continued-fraction terms ≈ K_COEF/x² + 8 (a width heuristic, never a soundness one).
const K_COEF: f64 = 300.0;

/// φ(t) = exp(−t²/2)/√(2π), enclosed.
fn pdf(t: Interval) -> Interval {
    let frac_1_sqrt_2pi = Interval::FRAC_2_SQRT_PI * Interval::FRAC_1_SQRT_2 * iv(0.5, 0.5);
    (-(t.sqr()) * iv(0.5, 0.5)).exp() * frac_1_sqrt_2pi
}

/// S(t) for t ≥ 0, enclosed: partial sum plus the rigorous tail bound.
fn series(t: Interval) -> Interval {
    let t2 = t.sqr();
    let mut term = t;
    let mut sum = iv(0.0, 0.0);
    let mut n = 0u32;
    loop {
        sum = sum + term;
        n += 1;
        term = term * t2 / iv((2 * n + 1) as f64, (2 * n + 1) as f64);
        // ratio of every later term to its predecessor is at most t²/(2n+3) < 1
        let r = t2 / iv((2 * n + 3) as f64, (2 * n + 3) as f64);
        if r.sup() < 0.5 && term.sup() <= 1e-18 * sum.inf() || n > 400 {
            if r.sup() >= 1.0 {
                return Interval::ENTIRE;
            }
            let tail = term / (iv(1.0, 1.0) - r);
            return sum + iv(0.0, tail.sup());
        }
    }
}

/// The Mills-ratio continued fraction R(t) = 1/(t + 1/(t + 2/(t + …))) through its partial
/// numerator k, with the rest of the fraction, (k+1)/(t + …) ∈ (0, (k+1)/t], entered as
/// that interval: one backward pass encloses R(t) for any k.
fn mills_cf(t: Interval, k: u32) -> Interval {
    let kk = iv((k + 1) as f64, (k + 1) as f64);
    let mut v = t + (kk / t).convex_hull(iv(0.0, 0.0));
    for n in (1..=k).rev() {
        v = t + iv(n as f64, n as f64) / v;
    }
    iv(1.0, 1.0) / v
}

/// Enclosure of Φ(x) at a point `x`.
pub fn phi_enclosure(x: f64) -> Interval {
    if x.is_nan() {
        return Interval::ENTIRE;
    }
    if x == f64::NEG_INFINITY {
        return iv(0.0, 0.0);
    }
    if x == f64::INFINITY {
        return iv(1.0, 1.0);
    }
    phi_same_sign(iv(x.abs(), x.abs()), x < 0.0).0
}

/// Enclosure of Φ over an interval [a, b]. Narrow intervals on one side of 0 cost one point
/// evaluation: Φ(a) ≤ Φ(x) ≤ Φ(a) + (b − a)·max φ on [a, b], where max φ = φ(a) for a ≥ 0
/// and φ(b) = φ(a)·e^{(a−b)(a+b)/2} ≤ φ(a)(1 + 2(b − a)|a|) for b ≤ 0 when (b − a)|a| ≤ ½
/// (e^u ≤ 1 + 2u for 0 ≤ u ≤ 1). Otherwise the hull of both endpoint enclosures.
pub fn phi_interval(x: Interval) -> Interval {
    if x.is_empty() {
        return x;
    }
    let (a, b) = (x.inf(), x.sup());
    let narrow = a.is_finite() && b.is_finite() && (b - a) * a.abs().max(1.0) <= 1e-6;
    if narrow && (a >= 0.0 || b <= 0.0) {
        let t = iv(a.abs(), a.abs());
        let (at_a, pdf_a) = phi_same_sign(t, a < 0.0);
        let w = iv(b, b) - iv(a, a);
        let grow = if a < 0.0 { iv(1.0, 1.0) + iv(2.0, 2.0) * w * t } else { iv(1.0, 1.0) };
        let hi = (at_a + w * pdf_a * grow).sup();
        return iv(at_a.inf(), hi.min(1.0));
    }
    let lo = phi_enclosure(a).inf();
    let hi = phi_enclosure(b).sup();
    iv(lo, hi)
}

/// Φ(±t) for an interval t ≥ 0 lying in one regime (`neg` selects Φ(−t)), and φ(t).
fn phi_same_sign(t: Interval, neg: bool) -> (Interval, Interval) {
    let half = iv(0.5, 0.5);
    let x = t.inf();
    let d = pdf(t);
    if t.sup() < SERIES_LIMIT {
        let p = d * series(t);
        let v = if neg { half - p } else { half + p };
        return (v.intersection(iv(0.0, 1.0)), d);
    }
    // Term count from a float heuristic; soundness holds for any k (hull of k and k+1).
    let k = (K_COEF / (x * x)).ceil() as u32 + 8;
    let r = mills_cf(t, k);
    let q = d * r;
    let v = if neg { q } else { iv(1.0, 1.0) - q };
    (v.intersection(iv(0.0, 1.0)), d)
}
