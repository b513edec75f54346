//! A certified standard normal CDF in `f64` interval arithmetic.
//!
//! For |x| ≤ 8 + 1/64 (Taylor table): Q(t) = P[N(0,1) > t] = Q(x_k) − φ(x_k)·∫_0^d e^{−x_k s − s²/2} ds at
//! the nearest node x_k = k/32 (d = t − x_k, |d| ≤ 1/64), the integrand's Taylor coefficients exact
//! rationals, Q(x_k) and φ(x_k) from MPFR, the truncation enclosed by a Cauchy estimate.
//! Beyond (continued fraction): Q(t) = P[N(0,1) > t] = φ(t)·R(t) with the Mills ratio
//! R(t) = 1/(t + 1/(t + 2/(t + 3/(t + …)))). Its elements are positive, so consecutive
//! truncations bracket R(t); we enclose two consecutive truncations and take their hull.
//! The number of terms only affects width, never soundness. See proofs-notes/normal_cdf.md.
use super::horner::Poly;
use super::interval::{interval_or_entire, Interval};

/// Taylor table: nodes x_k = k/NODE_SCALE, k = 0 … NODES (up to 8), TERMS coefficients each.
const NODE_SCALE: f64 = 32.0;
const NODES: usize = 256;
const TERMS: usize = 11;
/// Largest t the table serves (the last node plus half a node spacing).
const TABLE_LIMIT: f64 = 8.0 + 1.0 / 64.0;
/// Continued-fraction terms ≈ K_COEF/x² + 8 (a width heuristic, never a soundness one).
const K_COEF: f64 = 500.0;

/// φ(t) = exp(−t²/2)/√(2π), enclosed.
fn pdf(t: Interval) -> Interval {
    let frac_1_sqrt_2pi =
        Interval::FRAC_2_SQRT_PI * Interval::FRAC_1_SQRT_2 * interval_or_entire(0.5, 0.5);
    (-(t.sqr()) * interval_or_entire(0.5, 0.5)).exp() * frac_1_sqrt_2pi
}

/// One node of the Taylor table: enclosures of Q(x) = Φ(−x) and φ(x) at x = x_k, of a_n/(n + 1)
/// for the Taylor coefficients a_n of g(s) = e^{−xs − s²/2} (a_0 = 1, a_1 = −x,
/// (n + 1)a_{n+1} = −x·a_n − a_{n−1}), and e ≥ e^{x + 1/2} (Cauchy: |a_n| ≤ max_{|s|=1}|g(s)| ≤ e^{x + 1/2}).
struct Node {
    q: Interval,
    pdf: Interval,
    c: [Interval; TERMS],
    /// Σ c_n dⁿ for |d| ≤ `D_RADIUS`, from one f64 evaluation (`horner::Poly`).
    poly: Poly<TERMS>,
    e: f64,
    /// The Taylor remainder's bound at |d| = `D_RADIUS` ([`remainder`]).
    rem: f64,
}

/// The largest |d| = |t − x_k| the nodes' polynomials are prepared for: half a node spacing,
/// plus room for a narrow t's own width (a wider d falls back to interval Horner).
const D_RADIUS: f64 = 1.0 / 64.0 + 1.0 / 1024.0;

/// Node k of the table, built on first use (a run touches only the nodes its thresholds reach;
/// building all 257 up front was ~1 ms on every query's critical path): Q(x_k) from the
/// constants of `normal_table.rs` (MPFR at 256 bits rounded outward, checked by
/// `normal_table_constants_enclose_q`), φ(x_k) by [`pdf`], the a_n by their recurrence and
/// e ≥ e^{x + 1/2} by the certified exp, all in outward f64 interval arithmetic.
fn node(k: usize) -> &'static Node {
    static TABLE: [std::sync::OnceLock<Node>; NODES + 1] =
        [const { std::sync::OnceLock::new() }; NODES + 1];
    TABLE[k].get_or_init(|| {
        // x = k/32 and x²/2, x + 1/2 are exact in f64
        let x = k as f64 / NODE_SCALE;
        let xi = interval_or_entire(x, x);
        let mut a = [interval_or_entire(0.0, 0.0); TERMS];
        a[0] = interval_or_entire(1.0, 1.0);
        a[1] = -xi;
        for n in 1..TERMS - 1 {
            let m = (n + 1) as f64;
            a[n + 1] = (-(xi * a[n]) - a[n - 1]) / interval_or_entire(m, m);
        }
        let (qlo, qhi) = super::normal_table::Q[k];
        let e = interval_or_entire(x + 0.5, x + 0.5).exp().sup();
        let c = std::array::from_fn(|n| a[n] / interval_or_entire((n + 1) as f64, (n + 1) as f64));
        Node {
            q: interval_or_entire(qlo, qhi),
            pdf: pdf(xi),
            c,
            poly: Poly::new(c.map(|v| (v.inf(), v.sup())), D_RADIUS),
            e,
            rem: remainder(e, D_RADIUS),
        }
    })
}

/// e·r^{N+1}/(1 − r) rounded up (r < 1): the Taylor remainder of the integral at |d| ≤ r, for
/// e ≥ e^{x_k + 1/2}; r^{12} = ((r²)²)²·(r²)², every product rounded up.
fn remainder(e: f64, r: f64) -> f64 {
    const _: () = assert!(TERMS == 11, "the power below is r^(TERMS + 1)");
    let one = interval_or_entire(1.0, 1.0);
    let ar = interval_or_entire(r, r);
    let a4 = ar.sqr().sqr();
    (interval_or_entire(e, e) * (a4.sqr() * a4) / (one - ar)).sup()
}

/// Q(t), 1 − Q(t) and an enclosure of φ(t) for 0 ≤ t ≤ TABLE_LIMIT from the nearest node: with
/// d = t − x_k, Q(t) = Q(x_k) − φ(x_k)·I, I = ∫_0^d g = Σ_{n<N} a_n d^{n+1}/(n + 1) ± e·r^{N+1}/(1 − r)
/// for |d| ≤ r (the sum by [`Poly::enclose`] and r = `D_RADIUS`, both bounds per node; beyond,
/// Horner in interval arithmetic and r = |d|), and φ(t) = φ(x_k)·e^y with
/// y = −x_k·d − d²/2, |y| ≤ 1/8 + 1/8192: 1 + y ≤ e^y ≤ 1 + y + y² (y ≤ 1) — an enclosure within
/// 1 % (its one use, `phi_pair`'s spread over a few ulps of x, needs only an upper bound).
fn from_table(t: Interval) -> (Interval, Interval, Interval) {
    let one = interval_or_entire(1.0, 1.0);
    let k = ((0.5 * (t.inf() + t.sup()) * NODE_SCALE).round() as usize).min(NODES);
    let nd = node(k);
    let xk = interval_or_entire(k as f64 / NODE_SCALE, k as f64 / NODE_SCALE);
    let d = t - xk;
    // the sum from one f64 evaluation, with the remainder bound at |d| ≤ D_RADIUS (both per
    // node); interval Horner and the remainder at |d| where d lies beyond that radius
    let (p, ri) = match nd.poly.enclose(d.inf(), d.sup()) {
        Some((lo, hi)) => (interval_or_entire(lo, hi), nd.rem),
        None => {
            let mut p = nd.c[TERMS - 1];
            for n in (0..TERMS - 1).rev() {
                p = nd.c[n] + d * p;
            }
            (p, remainder(nd.e, d.mag()))
        }
    };
    let integral = d * p + interval_or_entire(-ri, ri);
    let q = nd.q - nd.pdf * integral;
    let y = -(xk * d) - d.sqr() * interval_or_entire(0.5, 0.5);
    let ey = interval_or_entire((one + y).inf(), (one + y + y.sqr()).sup());
    let unit = interval_or_entire(0.0, 1.0);
    (
        q.intersection(unit),
        (one - q).intersection(unit),
        nd.pdf * ey,
    )
}

/// The Mills-ratio continued fraction R(t) = 1/(t + 1/(t + 2/(t + …))) through its partial
/// numerator k, with the rest of the fraction, (k+1)/(t + …) ∈ (0, (k+1)/t], entered as
/// that interval: one backward pass encloses R(t) for any k.
fn mills_cf(t: Interval, k: u32) -> Interval {
    let kk = interval_or_entire((k + 1) as f64, (k + 1) as f64);
    let mut v = t + (kk / t).convex_hull(interval_or_entire(0.0, 0.0));
    for n in (1..=k).rev() {
        v = t + interval_or_entire(n as f64, n as f64) / v;
    }
    interval_or_entire(1.0, 1.0) / v
}

/// Enclosure of Φ(x) at a point `x`.
pub fn phi_enclosure(x: f64) -> Interval {
    if x.is_nan() {
        return Interval::ENTIRE;
    }
    if x == f64::NEG_INFINITY {
        return interval_or_entire(0.0, 0.0);
    }
    if x == f64::INFINITY {
        return interval_or_entire(1.0, 1.0);
    }
    let (below, above, _) = phi_same_sign(interval_or_entire(x.abs(), x.abs()));
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
        let t = interval_or_entire(a.abs(), a.abs());
        let (below, above, pdf_a) = phi_same_sign(t);
        // Φ(a), Φ(−a)
        let (at_a, at_minus_a) = if a < 0.0 {
            (below, above)
        } else {
            (above, below)
        };
        let w = interval_or_entire(b, b) - interval_or_entire(a, a);
        let grow = if a < 0.0 {
            interval_or_entire(1.0, 1.0) + interval_or_entire(2.0, 2.0) * w * t
        } else {
            interval_or_entire(1.0, 1.0)
        };
        let spread = (w * pdf_a * grow).sup();
        let up = (at_a + interval_or_entire(0.0, spread)).sup().min(1.0);
        let down = (at_minus_a - interval_or_entire(0.0, spread))
            .inf()
            .max(0.0);
        return (
            interval_or_entire(at_a.inf(), up),
            interval_or_entire(down, at_minus_a.sup()),
        );
    }
    let enc = |v: f64| phi_enclosure(v);
    (
        interval_or_entire(enc(a).inf(), enc(b).sup()),
        interval_or_entire(enc(-b).inf(), enc(-a).sup()),
    )
}

/// Φ(−t), Φ(t) and φ(t) for an interval t ≥ 0 lying in one regime, from one evaluation.
fn phi_same_sign(t: Interval) -> (Interval, Interval, Interval) {
    if t.inf() >= 0.0 && t.sup() <= TABLE_LIMIT {
        return from_table(t);
    }
    let x = t.inf();
    let d = pdf(t);
    // Term count from a float heuristic; soundness holds for any k (the tail is enclosed).
    let k = (K_COEF / (x * x)).ceil() as u32 + 8;
    let q = d * mills_cf(t, k);
    let unit = interval_or_entire(0.0, 1.0);
    (
        q.intersection(unit),
        (interval_or_entire(1.0, 1.0) - q).intersection(unit),
        d,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::float::Round;
    use rug::{Float, Rational};

    /// Q(x_k) = erfc(x_k/√2)/2 bracketed at 256 bits with directed rounding (erfc decreases:
    /// the lower end from u = x/√2 rounded up and erfc rounded down, the upper end the other
    /// way; halving is exact), then rounded down and up to f64.
    fn q_node(k: usize) -> (f64, f64) {
        let x = Float::with_val(256, k) / 32u32; // exact
        let end = |r_u: Round, r_e: Round| {
            use rug::ops::DivAssignRound;
            // √2 rounded the other way from u, so that u = x/√2 is rounded r_u
            let other = if r_u == Round::Up {
                Round::Down
            } else {
                Round::Up
            };
            let mut sqrt2 = Float::with_val(256, 2);
            sqrt2.sqrt_round(other);
            let mut u = x.clone();
            u.div_assign_round(&sqrt2, r_u);
            u.erfc_round(r_e);
            u / 2u32
        };
        let lo = end(Round::Up, Round::Down);
        let hi = end(Round::Down, Round::Up);
        (lo.to_f64_round(Round::Down), hi.to_f64_round(Round::Up))
    }

    /// The constants of `normal_table.rs` are exactly MPFR's outward roundings of Q(x_k) (so each
    /// encloses it, within one ulp). With DPCERT_BLESS_NORMAL_TABLE=1 the file is written instead.
    #[test]
    fn normal_table_constants_enclose_q() {
        let want: Vec<(f64, f64)> = (0..=NODES).map(q_node).collect();
        if std::env::var("DPCERT_BLESS_NORMAL_TABLE").is_ok() {
            let mut f = String::from(
                "//! Q(x_k) = P[N(0, 1) > k/32], k = 0 … 256: MPFR's erfc at 256 bits rounded down and up\n\
                 //! to f64 (generated and checked by `normal::tests::normal_table_constants_enclose_q`).\n\
                 pub(super) const Q: [(f64, f64); 257] = [\n",
            );
            for (lo, hi) in &want {
                f.push_str(&format!("    ({lo:e}, {hi:e}),\n"));
            }
            f.push_str("];\n");
            std::fs::write(
                concat!(env!("CARGO_MANIFEST_DIR"), "/src/num/normal_table.rs"),
                f,
            )
            .unwrap();
            return;
        }
        for (k, (&have, w)) in super::super::normal_table::Q.iter().zip(&want).enumerate() {
            assert_eq!(have, *w, "node {k}");
        }
    }

    /// Φ(−t), Φ(t) and φ(t) at 512 bits (MPFR's erfc and exp, a route independent of the table).
    fn reference(t: f64) -> (Float, Float, Float) {
        let p = 512;
        let x = Float::with_val(p, Rational::from_f64(t).unwrap());
        let s2 = Float::with_val(p, 2).sqrt();
        let u = Float::with_val(p, &x / &s2);
        let below = Float::with_val(p, u.clone().erfc()) / 2u32;
        let above = Float::with_val(p, (-u).erfc()) / 2u32;
        let two_pi = Float::with_val(p, rug::float::Constant::Pi) * 2u32;
        let pdf = Float::with_val(p, -(Float::with_val(p, &x * &x) / 2u32)).exp() / two_pi.sqrt();
        (below, above, pdf)
    }

    /// The Taylor table's enclosures of Φ(−t), Φ(t) and φ(t) contain the 512-bit values at and
    /// between the nodes (midpoints, node ± a few ulps, t = 0, the table's end) and are at most
    /// 8·10⁻¹⁶ relative wide (Φ(−t)); beyond the table the continued fraction's contain them too.
    #[test]
    fn taylor_table_contains_and_is_tight() {
        let mut ts: Vec<f64> = vec![
            0.0,
            1e-300,
            1e-9,
            TABLE_LIMIT,
            TABLE_LIMIT.next_up(),
            9.5,
            12.0,
        ];
        for k in 0..=NODES {
            let x = k as f64 / NODE_SCALE;
            ts.extend([
                x,
                x.next_up(),
                x + 1.0 / 64.0,
                x - 1.0 / 64.0,
                x + 0.3 / NODE_SCALE,
            ]);
        }
        let mut worst = 0f64;
        for &t in ts.iter().filter(|t| **t >= 0.0) {
            let (b, a, d) = phi_same_sign(interval_or_entire(t, t));
            let (rb, ra, rd) = reference(t);
            for (e, r, what) in [(b, &rb, "Φ(−t)"), (a, &ra, "Φ(t)"), (d, &rd, "φ(t)")] {
                assert!(
                    e.inf() <= *r && *r <= e.sup(),
                    "{what} at t = {t}: {e:?} misses {}",
                    r.to_f64_round(Round::Nearest)
                );
            }
            let w = (b.sup() - b.inf()) / b.sup();
            if t <= TABLE_LIMIT {
                worst = worst.max(w);
                assert!(w <= 8e-16, "Φ(−t) at t = {t}: relative width {w:.2e}");
            }
        }
        eprintln!("worst relative width of Φ(−t): {worst:.2e}");
    }
}
