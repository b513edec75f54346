//! A certified standard normal CDF in `f64` interval arithmetic.
//!
//! For |x| < 2 (series): Φ(x) = ½ + φ(x)·S(x), S(t) = Σₙ t^{2n+1}/(2n+1)!!, all terms of one
//! sign, truncated with the geometric tail bound term_N/(1 − t²/(2N+3)).
//! For |x| ≥ 2 (continued fraction): Q(t) = P[N(0,1) > t] = φ(t)·R(t) with the Mills ratio
//! R(t) = 1/(t + 1/(t + 2/(t + 3/(t + …)))). Its elements are positive, so consecutive
//! truncations bracket R(t); we enclose two consecutive truncations and take their hull.
//! The number of terms only affects width, never soundness. See proofs-notes/normal_cdf.md.
use super::fast::iv;
use super::interval::Interval;

const SERIES_LIMIT: f64 = 2.0;
/// Continued-fraction terms ≈ K_COEF/x² + 8 (a width heuristic, never a soundness one).
const K_COEF: f64 = 500.0;

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
    let (below, above, _) = phi_same_sign(iv(x.abs(), x.abs()));
    if x < 0.0 {
        below
    } else {
        above
    }
}

/// Narrow and on one side of 0: the one-evaluation case of [`phi_pair`].
fn is_narrow(x: Interval) -> bool {
    let (a, b) = (x.inf(), x.sup());
    !x.is_empty()
        && a.is_finite()
        && b.is_finite()
        && (b - a) * a.abs().max(1.0) <= 1e-6
        && (a >= 0.0 || b <= 0.0)
}

/// Enclosures of Φ(x) and Φ(−x) over an interval x = [a, b], from one evaluation when x is
/// narrow and 0 ∉ (a, b): Φ(a) ≤ Φ(x) ≤ Φ(a) + (b − a)·max φ on [a, b], and symmetrically
/// Φ(−a) − (b − a)·max φ ≤ Φ(−x) ≤ Φ(−a) (φ is even). max φ = φ(a) for a ≥ 0, and for b ≤ 0
/// φ(b) = φ(a)·e^{(a−b)(a+b)/2} ≤ φ(a)(1 + 2(b − a)|a|) when (b − a)|a| ≤ ½ (e^u ≤ 1 + 2u on
/// [0, 1]). Otherwise hulls of the endpoint enclosures (Φ is increasing).
pub fn phi_pair(x: Interval) -> (Interval, Interval) {
    if x.is_empty() {
        return (x, x);
    }
    let (a, b) = (x.inf(), x.sup());
    if is_narrow(x) {
        let t = iv(a.abs(), a.abs());
        let (below, above, pdf_a) = phi_same_sign(t);
        // Φ(a), Φ(−a)
        let (at_a, at_minus_a) = if a < 0.0 {
            (below, above)
        } else {
            (above, below)
        };
        let w = iv(b, b) - iv(a, a);
        let grow = if a < 0.0 {
            iv(1.0, 1.0) + iv(2.0, 2.0) * w * t
        } else {
            iv(1.0, 1.0)
        };
        let spread = (w * pdf_a * grow).sup();
        let up = (at_a + iv(0.0, spread)).sup().min(1.0);
        let down = (at_minus_a - iv(0.0, spread)).inf().max(0.0);
        return (iv(at_a.inf(), up), iv(down, at_minus_a.sup()));
    }
    let enc = |v: f64| phi_enclosure(v);
    (
        iv(enc(a).inf(), enc(b).sup()),
        iv(enc(-b).inf(), enc(-a).sup()),
    )
}

/// Φ(−t), Φ(t) and φ(t) for an interval t ≥ 0 lying in one regime, from one evaluation.
fn phi_same_sign(t: Interval) -> (Interval, Interval, Interval) {
    let half = iv(0.5, 0.5);
    let unit = iv(0.0, 1.0);
    let x = t.inf();
    let d = pdf(t);
    if t.sup() < SERIES_LIMIT {
        let p = d * series(t);
        return (
            (half - p).intersection(unit),
            (half + p).intersection(unit),
            d,
        );
    }
    // Term count from a float heuristic; soundness holds for any k (the tail is enclosed).
    let k = (K_COEF / (x * x)).ceil() as u32 + 8;
    let q = d * mills_cf(t, k);
    (
        q.intersection(unit),
        (iv(1.0, 1.0) - q).intersection(unit),
        d,
    )
}
