//! Mills' ratio and its Laplace moments, certified in any [`Real`] backend.
//!
//! For x ≥ 0 the Mills ratio M(x) = Φ(−x)/φ(x) is the Laplace transform
//! M(x) = ∫₀^∞ e^{−xs} e^{−s²/2} ds, and its moments are
//!   m_n(x) = ∫₀^∞ sⁿ e^{−xs−s²/2} ds = (−1)ⁿ M⁽ⁿ⁾(x) > 0,   m_0 = M.
//! Integrating d/ds(−sⁿ e^{−xs−s²/2}) gives m_1 + x·m_0 = 1 and
//! m_{n+1} + x·m_n = n·m_{n−1} (n ≥ 1). With r_n = m_n/m_{n−1}: r_n = n/(x + r_{n+1}) and
//! M = 1/(x + r_1) — Laplace's continued fraction, read backwards from any enclosed tail.
//! By Cauchy–Schwarz m_n² ≤ m_{n−1}m_{n+1}, so r_n ≤ r_{n+1}, hence r_n ≤ n/(x + r_n), i.e.
//! 0 < r_n ≤ (√(x² + 4n) − x)/2: the tail enclosure. The number of levels only affects width.
//! Below [`CF_FROM`] the fraction converges slowly and M = √(π/2)·e^{x²/2} − S(x) is used
//! instead (Φ(−x) = ½ − φ(x)S(x), S the all-positive series of `normal.rs`), with the moments
//! from the forward recurrence. See proofs-notes/gaussian_delta.md ("Mills moments").
use super::Real;

/// Continued fraction for x ≥ this (lower end of the enclosure); series below.
pub const CF_FROM: f64 = 1.0;

/// Lower and upper ends of an enclosure as `f64` (search/heuristic use only; NaN if invalid).
pub fn ends_f64<R: Real>(x: &R) -> (f64, f64) {
    match x.endpoints() {
        Some((a, b)) => (a.to_f64(), b.to_f64()),
        None => (f64::NAN, f64::NAN),
    }
}

/// S(t) = Σₙ t^{2n+1}/(2n+1)!! for an enclosure t ⊂ [0, ∞), enclosed: the terms n < N plus
/// the geometric tail bound term_N/(1 − t²/(2N+3)), valid once that ratio bound is < 1 (the
/// ratio of term n+1 to term n is t²/(2n+3), smaller for every later n). Terms are all ≥ 0. N is
/// chosen in `f64` from the upper end of t (width only). `None` if t is not finite or N would
/// exceed 4000.
pub fn series_s<R: Real>(t: &R, bits: u32, prec: u32) -> Option<R> {
    let (_, t_hi) = ends_f64(t);
    let t2f = t_hi * t_hi;
    // f64 estimate of the term count: ratio ≤ ½ and term ≤ 2^−(bits+4)·sum
    let (mut term, mut sum, mut n) = (t_hi, 0.0f64, 0i64);
    let stop = (-f64::from(bits) - 4.0).exp2();
    loop {
        sum += term;
        n += 1;
        term *= t2f / (2 * n + 1) as f64;
        if n > 4000 || !t_hi.is_finite() {
            return None;
        }
        if t2f / (2 * n + 3) as f64 <= 0.5 && term <= stop * sum {
            break;
        }
    }
    let t2 = t.sqr();
    let mut term = t.clone();
    let mut sum = R::from_int(0, prec);
    for j in 1..=n {
        sum = sum.add(&term);
        term = term.mul(&t2).div(&R::from_int(2 * j + 1, prec));
    }
    let ratio = t2.div(&R::from_int(2 * n + 3, prec));
    #[allow(
        clippy::neg_cmp_op_on_partial_ord,
        reason = "written so that NaN takes this branch"
    )]
    if !(ends_f64(&ratio).1 < 1.0) {
        return None;
    }
    let tail = term.div(&R::from_int(1, prec).sub(&ratio));
    Some(sum.add(&R::from_int(0, prec).hull(&tail)))
}

/// The moments m_0..=m_n of an enclosure x ⊂ [0, ∞), each enclosed, `bits` the target
/// relative accuracy (width heuristic only). `sqrt_half_pi` encloses √(π/2). `None` when the
/// series does not converge (x not finite or NaN).
pub fn mills_moments<R: Real>(
    x: &R,
    n: usize,
    bits: u32,
    prec: u32,
    sqrt_half_pi: &R,
) -> Option<Vec<R>> {
    let (x_lo, _) = ends_f64(x);
    if x_lo >= CF_FROM {
        Some(moments_cf(x, x_lo, n, bits, prec))
    } else {
        moments_forward(x, n, bits, prec, sqrt_half_pi)
    }
}

/// Backward continued fraction from level k, chosen in `f64` (width only) so that the
/// contraction of r ↦ j/(x + r) over levels n < j ≤ k, Π r_j²/j with r_j ≈ (√(x² + 4j) − x)/2,
/// is below 2^−(bits+8).
fn cf_depth(x: f64, n: usize, bits: u32) -> i64 {
    // stop once prod·2^−gained ≤ 2^−need, i.e. prod ≤ 2^(gained − need)
    let need = f64::from(bits + 8);
    let (mut gained, mut prod, mut j) = (0.0f64, 1.0f64, n as i64);
    let mut threshold = (-need).exp2();
    while j < 1 << 24 {
        j += 1;
        let r = ((x * x + 4.0 * j as f64).sqrt() - x) / 2.0;
        prod *= r * r / j as f64;
        if prod < 2f64.powi(-500) {
            prod *= 2f64.powi(500);
            gained += 500.0;
            threshold = (gained - need).exp2();
        }
        #[allow(
            clippy::neg_cmp_op_on_partial_ord,
            reason = "written so that NaN takes this branch"
        )]
        if prod <= threshold || !(prod > 0.0) {
            break;
        }
    }
    j + 2
}

/// Backward continued fraction from level [`cf_depth`].
fn moments_cf<R: Real>(x: &R, x_lo: f64, n: usize, bits: u32, prec: u32) -> Vec<R> {
    let k = cf_depth(x_lo, n, bits);
    let four_k1 = R::from_int(4 * (k + 1), prec);
    let root = x
        .sqr()
        .add(&four_k1)
        .sqrt()
        .sub(x)
        .div(&R::from_int(2, prec));
    let mut r = R::from_int(0, prec).hull(&root);
    let mut ratios = vec![r.clone(); n + 1];
    for j in (1..=k).rev() {
        r = R::from_int(j, prec).div(&x.add(&r));
        if (j as usize) <= n {
            ratios[j as usize] = r.clone();
        }
    }
    let mut m = vec![R::from_int(1, prec).div(&x.add(&r))];
    for j in 1..=n {
        let next = m[j - 1].mul(&ratios[j]);
        m.push(next);
    }
    m
}

/// M = √(π/2)·e^{x²/2} − S(x), then m_1 = 1 − x·M, m_{j+1} = j·m_{j−1} − x·m_j.
fn moments_forward<R: Real>(
    x: &R,
    n: usize,
    bits: u32,
    prec: u32,
    sqrt_half_pi: &R,
) -> Option<Vec<R>> {
    let half = R::from_rational(&rug::Rational::from((1, 2)), prec);
    let big = sqrt_half_pi.mul(&x.sqr().mul(&half).exp());
    let m0 = big.sub(&series_s(x, bits + 8, prec)?).max0();
    let mut m = vec![m0];
    if n >= 1 {
        let m1 = R::from_int(1, prec).sub(&x.mul(&m[0])).max0();
        m.push(m1);
    }
    for j in 1..n {
        let next = R::from_int(j as i64, prec)
            .mul(&m[j - 1])
            .sub(&x.mul(&m[j]))
            .max0();
        m.push(next);
    }
    Some(m)
}

/// ΔM = M(x) − M(x + h) for enclosures x, h ⊂ [0, ∞) (`v` encloses x + h, formed by the
/// caller from exact data), enclosed without cancellation when h is small:
/// 1 − e^{−hs} = Σ_{j=1}^{N} (−1)^{j+1}(hs)^j/j! − R_N(hs), R_N(u) of sign (−1)^{N+1} and
/// |R_N(u)| ≤ u^{N+1}/(N+1)! for u ≥ 0 (Taylor, Lagrange remainder), so integrating against
/// e^{−xs−s²/2} > 0: ΔM = Σ_{j=1}^{N} (−1)^{j+1} h^j m_j/j! + ρ_N with ρ_N between 0 and
/// (−1)^N h^{N+1} m_{N+1}/(N+1)!. When h is not small: M(x) − M(v), each enclosed.
pub fn mills_difference<R: Real>(
    x: &R,
    h: &R,
    v: &R,
    bits: u32,
    prec: u32,
    sqrt_half_pi: &R,
) -> Option<R> {
    let (x_lo, _) = ends_f64(x);
    let (_, h_hi) = ends_f64(h);
    #[allow(
        clippy::neg_cmp_op_on_partial_ord,
        reason = "written so that NaN takes this branch"
    )]
    if !(h_hi <= 0.5 * x_lo.max(1.0)) {
        let mx = mills_moments(x, 0, bits + 4, prec, sqrt_half_pi)?;
        let mv = mills_moments(v, 0, bits + 4, prec, sqrt_half_pi)?;
        return Some(mx[0].sub(&mv[0]));
    }
    // terms' ratio ≈ h·r_{j+1}/(j+1) ≤ h·min(1/√(j+1), 1/x): a term count for the width
    let stop = -f64::from(bits + 6);
    let (mut log2_term, mut terms) = (0.0f64, 0usize);
    while terms < 4000 {
        terms += 1;
        let j = terms as f64;
        let ratio = h_hi * (1.0 / j.sqrt()).min(1.0 / x_lo.max(1e-300));
        log2_term += ratio.log2();
        if log2_term < stop || h_hi == 0.0 {
            break;
        }
    }
    let m = mills_moments(x, terms + 1, bits + 8, prec, sqrt_half_pi)?;
    let mut sum = R::from_int(0, prec);
    let mut power = R::from_int(1, prec); // h^j / j!
    for (j, mj) in m.iter().enumerate().skip(1).take(terms) {
        power = power.mul(h).div(&R::from_int(j as i64, prec));
        let t = power.mul(mj);
        sum = if j % 2 == 1 { sum.add(&t) } else { sum.sub(&t) };
    }
    let next = power
        .mul(h)
        .div(&R::from_int(terms as i64 + 1, prec))
        .mul(&m[terms + 1]);
    let rest = R::from_int(0, prec).hull(&next);
    Some(if terms % 2 == 0 {
        sum.add(&rest)
    } else {
        sum.sub(&rest)
    })
}
