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

/// The Mills-ratio continued fraction with partial numerators 1, 1, 2, …, k (its (k+1)-th
/// approximant), enclosed.
fn mills_cf(t: Interval, k: u32) -> Interval {
    let mut v = t;
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
    let t = iv(x.abs(), x.abs());
    let half = iv(0.5, 0.5);
    if x.abs() < SERIES_LIMIT {
        let p = pdf(t) * series(t);
        let v = if x < 0.0 { half - p } else { half + p };
        return v.intersection(iv(0.0, 1.0));
    }
    // Term count from a float heuristic; soundness holds for any k (hull of k and k+1).
    let k = (500.0 / (x * x)).ceil() as u32 + 8;
    let r = mills_cf(t, k).convex_hull(mills_cf(t, k + 1));
    let q = pdf(t) * r;
    let v = if x < 0.0 { q } else { iv(1.0, 1.0) - q };
    v.intersection(iv(0.0, 1.0))
}
