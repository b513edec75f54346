//! Rényi DP curves (Mironov 2017), the Poisson-subsampled Gaussian (Mironov–Talwar–Zhang 2019),
//! and the conversion to (ε, δ) of Proposition 14's general form (Canonne–Kamath–Steinke 2020).
use crate::num::{Enclosure, MpfrInterval, Precision, Real, UpperBound};
use crate::search::minimize;
use crate::validate;
use crate::validated::{Delta, Rate, Sigma, Steps};
use crate::{Error, Result};
use rug::{Integer, Rational};

/// One kind of mechanism in an RDP curve.
#[derive(Clone, Debug, PartialEq)]
pub enum RdpTerm {
    /// ρ-zCDP: ε(α) = αρ.
    Zcdp {
        /// ρ ≥ 0.
        rho: Rational,
    },
    /// ε-DP: ε(α) = min(ε, αε²/2) (D_α ≤ D_∞; Proposition 16).
    Pure {
        /// ε ≥ 0.
        epsilon: Rational,
    },
    /// Poisson-subsampled Gaussian, sensitivity 1, noise multiplier σ, rate q (removal pair
    /// ((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²))).
    SubsampledGaussian {
        /// Sampling rate q ∈ (0, 1].
        rate: Rational,
        /// Noise multiplier σ > 0.
        sigma: Rational,
    },
    /// Repeat-and-select of a mechanism with its own RDP curve (Papernot & Steinke 2022,
    /// Theorem 2; [`crate::theorems::repeat_select`]).
    RepeatAndSelect(Box<RepeatSelect>),
}

/// An RDP guarantee ε(α) for all α > 1: a sum (composition, Mironov 2017 Prop 1) of terms
/// with multiplicities.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RdpCurve {
    /// The composed terms, each with its count.
    pub terms: Vec<(RdpTerm, Integer)>,
}

/// Largest order evaluated (orders above it are never needed in practice; the search stays below).
pub const MAX_ORDER: u32 = 20_000;

/// ln(e^x − 1) for an exact rational x > 0, enclosed: ln(expm1 x) for x ≤ 1, else
/// x + ln(−expm1(−x)) (no overflow for huge x, no cancellation for tiny x).
pub(crate) fn ln_expm1<R: Real>(x: &Rational, p: u32) -> R {
    let xr = R::from_rational(x, p);
    if *x <= 1 {
        xr.expm1().ln()
    } else {
        xr.add(&xr.neg().expm1().neg().ln())
    }
}

/// ln(e^x − 1) in f64 from ln x (search only).
fn ln_expm1_f64(ln_x: f64) -> f64 {
    if ln_x < -30.0 {
        ln_x + ln_x.exp() / 2.0
    } else {
        let x = ln_x.exp();
        if x <= 1.0 {
            x.exp_m1().ln()
        } else {
            x + (-(-x).exp_m1()).ln()
        }
    }
}

/// ln(1 + e^L) written so that neither e^L nor e^{−L} overflows: ln1p(e^L) for L ≤ 0,
/// L + ln1p(e^{−L}) otherwise (`positive` is a search choice: both forms are identities).
pub(crate) fn ln1p_exp<R: Real>(l: &R, positive: bool) -> R {
    if positive {
        l.add(&l.neg().exp().ln1p())
    } else {
        l.exp().ln1p()
    }
}

/// K(n) = ln A_n for the subsampled Gaussian at integer n ≥ 2, from
/// A_n − 1 = Σ_{k=2}^{n} C(n,k)(1−q)^{n−k} q^k (e^{(k²−k)/(2σ²)} − 1)
/// (the binomial weights sum to 1 and the k = 0, 1 terms vanish): all terms positive, each
/// entered as ln C(n,k) + (n−k)ln(1−q) + k ln q + ln expm1((k²−k)/(2σ²)); the sum by log-sum-exp
/// around a shift m picked in f64 (ln Σ e^{ℓ_k} = m + ln Σ e^{ℓ_k − m} for any m), then
/// K = ln(1 + e^{ln(A_n − 1)}). Nothing overflows the MPFR range, and large σ keeps relative
/// accuracy (no 1 + tiny).
fn sgm_log_a<R: Real>(q: &Rational, sigma: &Rational, n: u32, p: u32) -> R {
    let two_s2 = Rational::from(sigma * sigma) * 2u32;
    if *q == 1 {
        // A_n = e^{(n²−n)/(2σ²)}
        return R::from_rational(
            &(Rational::from((Integer::from(n) * n - n, Integer::from(1))) / &two_s2),
            p,
        );
    }
    let lq = R::from_rational(q, p).ln();
    let l1q = R::from_rational(&Rational::from(-q), p).ln1p();
    let mut binom = Integer::from(n); // C(n, 1)
    let mut ells: Vec<R> = Vec::with_capacity(n as usize);
    for k in 2..=n {
        binom = binom * (n - k + 1) / k;
        let e = Rational::from((Integer::from(k) * k - k, Integer::from(1))) / &two_s2;
        let mut ell = R::from_rational(&Rational::from(binom.clone()), p)
            .ln()
            .add(&lq.mul(&R::from_int(i64::from(k), p)))
            .add(&ln_expm1::<R>(&e, p));
        if k < n {
            ell = ell.add(&l1q.mul(&R::from_int(i64::from(n - k), p)));
        }
        ells.push(ell);
    }
    // the shift: the largest finite upper endpoint, an exact MPFR number (it may exceed f64)
    let max_end = |pick: fn((rug::Float, rug::Float)) -> rug::Float| {
        ells.iter()
            .filter_map(|e| e.endpoints().map(pick))
            .filter(|v| v.is_finite())
            .fold(None::<rug::Float>, |acc, v| match acc {
                Some(a) if a >= v => Some(a),
                _ => Some(v),
            })
            .and_then(|v| v.to_rational())
    };
    let m = max_end(|(_, h)| h).unwrap_or_default();
    let mr = R::from_rational(&m, p);
    let mut sum = R::from_int(0, p);
    for e in &ells {
        sum = sum.add(&e.sub(&mr).exp());
    }
    let mut l = mr.add(&sum.ln());
    // max_k ℓ_k ≤ ln Σ e^{ℓ_k} ≤ max_k ℓ_k + ln N: keeps relative accuracy when the ℓ_k are so
    // large (σ → 0) that their absolute widths exceed 1 and the shifted exponentials say little
    if let Some(lo) = max_end(|(l, _)| l) {
        let crude = R::from_rational(&lo, p).span(&mr.add(&R::from_int(ells.len() as i64, p).ln()));
        l = match finite(l.clone()) {
            Some(f) => f.intersect(&crude),
            None => crude,
        };
    }
    ln1p_exp(&l, m > 0)
}

/// f64 model of K(n) (search only): the same positive sum in log space. `ls` = ln σ.
fn sgm_log_a_f64(q: f64, ls: f64, n: u32) -> f64 {
    if q >= 1.0 {
        let nf = n as f64;
        return ((nf * nf - nf).ln() - std::f64::consts::LN_2 - 2.0 * ls).exp();
    }
    let (lq, l1q) = (q.ln(), (-q).ln_1p());
    let mut lb = (n as f64).ln(); // ln C(n, 1)
    let mut terms = Vec::with_capacity(n as usize);
    for k in 2..=n {
        lb += ((n - k + 1) as f64).ln() - (k as f64).ln();
        let kf = k as f64;
        let le = (kf * kf - kf).ln() - std::f64::consts::LN_2 - 2.0 * ls;
        terms.push(lb + (n - k) as f64 * l1q + kf * lq + ln_expm1_f64(le));
    }
    let m = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let l = m + terms.iter().map(|t| (t - m).exp()).sum::<f64>().ln();
    if l > 0.0 {
        l + (-l).exp().ln_1p()
    } else {
        l.exp().ln_1p()
    }
}

/// Mironov–Talwar–Zhang 2019: the Rényi divergence of order α of the Poisson-subsampled Gaussian
/// removal pair, D_α((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²)), composed `steps` times.
/// Integer α: the finite binomial sum, steps·ln(A_α)/(α − 1). Real α: the intersection of MTZ19's
/// two-sided series (alternating tail bound), a moment expansion in 1/σ² with a certified
/// remainder, and the monotonicity/convexity bounds.
///
/// # Guarantee
/// Two-sided enclosure of steps·D_α for every real α ∈ (1, 20000], q ∈ (0, 1], σ > 0,
/// steps ≥ 1. Relative width (measured, `Auto`): ≤ 1e-25 at integer orders for
/// σ ∈ [1e-200, 1e100], q ∈ [1e-12, 1]; ≤ 1e-7 at fractional orders α ≤ 40.25 for
/// σ ∈ [0.5, 1e6], q ∈ [1e-6, 0.999]; elsewhere certified but possibly wider (the note's table).
/// Note: `proofs-notes/subsampled_gaussian_rdp.md`.
pub fn subsampled_gaussian_rdp(
    q: &Rational,
    sigma: &Rational,
    steps: &Integer,
    alpha: &Rational,
    prec: Precision,
) -> Result<Enclosure> {
    check_sgm(q, sigma)?;
    validate::count("steps", steps)?;
    check_order(alpha)?;
    let bits = prec.fixed_bits()?;
    let k = sgm_k::<MpfrInterval>(q, sigma, alpha, bits);
    let a1 = MpfrInterval::from_rational(&Rational::from(alpha - 1u32), bits);
    Enclosure::from_real(
        &k.div(&a1)
            .mul(&MpfrInterval::from_rational(&Rational::from(steps), bits)),
    )
}

fn check_sgm(q: &Rational, sigma: &Rational) -> Result<()> {
    if *q <= 0 || *q > 1 {
        return Err(Error::arg(
            "rate",
            format!("must lie in (0, 1], got {}", validate::show(q)),
        ));
    }
    validate::positive("sigma", sigma)
}

fn check_order(alpha: &Rational) -> Result<()> {
    if *alpha <= 1 || *alpha > MAX_ORDER {
        return Err(Error::arg(
            "order",
            format!(
                "must lie in (1, {MAX_ORDER}], got {}",
                validate::show(alpha)
            ),
        ));
    }
    Ok(())
}

/// K(α) = (α−1)·D_α = ln A_α for one subsampled-Gaussian step, enclosed: the finite binomial
/// sum at integer α; otherwise the intersection of (i) MTZ19's two-sided series with the
/// alternating-tail bound, (ii) the moment expansion in 1/σ² with its Taylor remainder, and
/// (iii) [K(⌊α⌋), convexity chord] (K is non-decreasing and convex, K(1) = 0). Each is an
/// enclosure of the same number, so their intersection is one.
fn sgm_k<R: Real>(q: &Rational, sigma: &Rational, alpha: &Rational, p: u32) -> R {
    if *alpha.denom() == 1 {
        let n = alpha.numer().to_u32().unwrap_or(2);
        return sgm_log_a::<R>(q, sigma, n, p);
    }
    let n = alpha.clone().floor().numer().to_u32().unwrap_or(1);
    let k_at = |m: u32| {
        if m <= 1 {
            R::from_int(0, p)
        } else {
            sgm_log_a::<R>(q, sigma, m, p)
        }
    };
    let frac = R::from_rational(&Rational::from(alpha - n), p);
    let (kn, kn1) = (k_at(n), k_at(n + 1));
    let chord = kn.add(&frac.mul(&kn1.sub(&kn)));
    // K(n) ≤ K(α) ≤ chord value (K non-decreasing, convex): K ∈ [K(n).lo, chord.hi]
    let mut k = kn.span(&chord);
    if *q == 1 {
        // A_α = E[L^α] = e^{(α² − α)/(2σ²)} exactly
        let two_s2 = Rational::from(sigma * sigma) * 2u32;
        return R::from_rational(&((Rational::from(alpha * alpha) - alpha) / &two_s2), p);
    }
    // ln of the chord's value sizes the series' stopping rule and the extra precision (search
    // choices); taken in MPFR, as K may lie far below the f64 range (σ = 1e300)
    let ln_k = chord
        .endpoints()
        .map(|(_, h)| rug::Float::with_val(64, h.ln_ref()).to_f64())
        .filter(|v| !v.is_nan() && *v < f64::INFINITY)
        .unwrap_or(0.0);
    if let Some(s) = sgm_log_a_frac::<R>(q, sigma, alpha, p, ln_k) {
        k = k.intersect(&s);
    }
    if let Some(s) = sgm_log_a_moments::<R>(q, sigma, alpha, p, ln_k) {
        k = k.intersect(&s);
    }
    k
}

/// Largest number of terms of each fractional-order series beyond ⌊α⌋ + 1.
const FRAC_TERMS_MAX: u32 = 2000;

/// Extra working bits so that an enclosure of A_α = 1 + (tiny) still resolves K = ln A_α
/// relatively: about log2(1/K), capped (a precision choice, not a soundness matter).
fn extra_bits(ln_k: f64) -> u32 {
    #[allow(
        clippy::neg_cmp_op_on_partial_ord,
        reason = "written so that NaN takes this branch"
    )]
    if !(ln_k < 0.0) {
        return 0;
    }
    ((-ln_k / std::f64::consts::LN_2)
        .min(f64::from(1u32 << 14))
        .ceil() as u32
        + 16)
        .min(1 << 14)
}

/// ln Φ(x) in f64 for the search model (asymptotic form in the far lower tail).
fn ln_phi_f64(x: f64) -> f64 {
    if x > -30.0 {
        crate::num::normal_cdf_f64(x).ln()
    } else {
        -x * x / 2.0 - (-x).ln() - 0.5 * (2.0 * std::f64::consts::PI).ln()
            + (-1.0 / (x * x)).ln_1p()
    }
}

/// The MTZ19 series in f64 (search only): the term count J and the partial sum S_J. Terms are
/// formed in log space (prefactors folded in); J ≥ ⌊α⌋ (so that the tail after J is alternating
/// with decreasing terms), then J grows until the first omitted terms are below
/// e^{−75}·min(K, 1), at most ⌊α⌋ + [`FRAC_TERMS_MAX`]. The certified tail bound holds for any
/// J ≥ ⌊α⌋; J only affects the width.
fn frac_series_f64(q: f64, sigma: f64, alpha: f64, ln_k: f64) -> Option<(u32, f64)> {
    if !(q > 0.0 && q < 1.0 && sigma > 0.0 && sigma.is_finite()) {
        return None;
    }
    let z0 = sigma * sigma * ((1.0 - q) / q).ln() + 0.5;
    if !z0.is_finite() {
        return None;
    }
    let floor = alpha.floor() as u32;
    let last = floor + FRAC_TERMS_MAX;
    let target = ln_k.min(0.0) - 75.0;
    let lr = (q / (1.0 - q)).ln();
    let two_s2 = 2.0 * sigma * sigma;
    let (l1q, lq) = ((-q).ln_1p(), q.ln());
    let (mut lc, mut sign) = (0.0f64, 1.0f64);
    let mut sum = 0.0f64;
    for j in 0..=last + 1 {
        if j > 0 {
            let f = alpha - (j - 1) as f64;
            lc += f.abs().ln() - (j as f64).ln();
            if f < 0.0 {
                sign = -sign;
            }
        }
        let jf = j as f64;
        let s = alpha - jf;
        let a =
            alpha * l1q + lc + jf * lr + (jf * jf - jf) / two_s2 + ln_phi_f64((z0 - jf) / sigma);
        let b = alpha * lq + lc + (s * s - s) / two_s2 - jf * lr + ln_phi_f64((s - z0) / sigma);
        if j > floor && (a.max(b) < target || j > last) {
            return Some((j - 1, sum));
        }
        sum += sign * (a.exp() + b.exp());
    }
    None
}

/// ln A_α for real, non-integer α > 1, q < 1 (MTZ19 §3.3; dp_accounting's
/// `_compute_log_a_frac`), with z0 = σ² ln((1−q)/q) + ½ the point where qL = 1 − q:
/// A_α = Σ_j T1_j + Σ_j T2_j,
/// T1_j = (1−q)^α C(α,j) (q/(1−q))^j e^{(j²−j)/(2σ²)} Φ((z0 − j)/σ),
/// T2_j = q^α C(α,j) ((1−q)/q)^j e^{(s²−s)/(2σ²)} Φ((s − z0)/σ),  s = α − j.
/// For j > α both series alternate in sign with strictly decreasing magnitudes
/// (proofs-notes/subsampled_gaussian_rdp.md, Step 4), so each tail after J ≥ ⌊α⌋ lies between 0
/// and its first omitted term: A_α ∈ S_J + hull(0, T1_{J+1}) + hull(0, T2_{J+1}).
/// Terms are formed as sign·exp(ln|C| + …) so no factor overflows alone. `None` when the f64
/// model cannot size the series or the result is not a finite interval.
fn sgm_log_a_frac<R: Real>(
    q: &Rational,
    sigma: &Rational,
    alpha: &Rational,
    p: u32,
    ln_k: f64,
) -> Option<R> {
    let (big_j, _) = frac_series_f64(q.to_f64(), sigma.to_f64(), alpha.to_f64(), ln_k)?;
    let p = p + extra_bits(ln_k);
    let two_s2 = Rational::from(sigma * sigma) * 2u32;
    let one_q = 1 - q.clone();
    let s_iv = R::from_rational(sigma, p);
    let z0 = R::from_rational(&Rational::from(sigma * sigma), p)
        .mul(&R::from_rational(&Rational::from(&one_q / q), p).ln())
        .add(&R::from_rational(&Rational::from((1, 2)), p));
    let a = R::from_rational(alpha, p);
    let l1q = R::from_rational(&one_q, p).ln();
    let lq = R::from_rational(q, p).ln();
    let ln_r1 = lq.sub(&l1q);
    let (mut s1, mut s2) = (R::from_int(0, p), R::from_int(0, p));
    let (mut t1_next, mut t2_next) = (R::from_int(0, p), R::from_int(0, p));
    let mut c = Rational::from(1); // C(α, j), exact
    for j in 0..=big_j + 1 {
        if j > 0 {
            c *= Rational::from(alpha - (j - 1)) / j;
        }
        let lc = R::from_rational(&Rational::from(c.abs_ref()), p).ln();
        let neg = c < 0;
        let jr = R::from_int(i64::from(j), p);
        let e1 = Rational::from((Integer::from(j) * j - j, Integer::from(1))) / &two_s2;
        let l1 = a
            .mul(&l1q)
            .add(&lc)
            .add(&jr.mul(&ln_r1))
            .add(&R::from_rational(&e1, p))
            .add(&z0.sub(&jr).div(&s_iv).normal_cdf().ln());
        let sj = Rational::from(alpha - j);
        let e2 = (Rational::from(&sj * &sj) - &sj) / &two_s2;
        let l2 = a
            .mul(&lq)
            .add(&lc)
            .sub(&jr.mul(&ln_r1))
            .add(&R::from_rational(&e2, p))
            .add(
                &R::from_rational(&sj, p)
                    .sub(&z0)
                    .div(&s_iv)
                    .normal_cdf()
                    .ln(),
            );
        let (mut t1, mut t2) = (l1.exp(), l2.exp());
        if neg {
            t1 = t1.neg();
            t2 = t2.neg();
        }
        if j <= big_j {
            s1 = s1.add(&t1);
            s2 = s2.add(&t2);
        } else {
            t1_next = t1;
            t2_next = t2;
        }
    }
    let zero = R::from_int(0, p);
    let total = s1
        .add(&s2)
        .add(&zero.hull(&t1_next))
        .add(&zero.hull(&t2_next));
    // A_α ≥ 1 (Jensen): K = ln1p(A − 1) with A − 1 clamped at 0
    let k = total.sub(&R::from_int(1, p)).max0().ln1p();
    finite(k)
}

/// `Some` if both endpoints are finite numbers.
fn finite<R: Real>(k: R) -> Option<R> {
    let (lo, hi) = k.endpoints()?;
    (lo.is_finite() && hi.is_finite()).then_some(k)
}

/// ln A_α for non-integer α > 1, q < 1, by the moment expansion (tight for large σ): with
/// X = q(L − 1), L = e^Y, Y = (2Z − 1)/(2σ²), Z ~ N(0, σ²), A_α = E[(1 + X)^α] and, for even
/// m > α, Taylor's theorem with Lagrange remainder gives
/// A_α − 1 = Σ_{j=2}^{m−1} C(α,j) q^j M_j ± (|C(α,m)|(1−c)^{α−m} q^m M_m + B·P[X < −c]),
/// M_j = E[(L − 1)^j] = Σ_{i=2}^{j} C(j,i)(−1)^{j−i} expm1((i²−i)/(2σ²)),
/// c = min(q, ½), B = 1 + Σ_{j<m}|C(α,j)| q^j, P[X < −c] = Φ(σ ln(1 − c/q) + 1/(2σ)) (0 if c = q).
/// Evaluated for several m; the intersection is returned. `None` if none is finite.
fn sgm_log_a_moments<R: Real>(
    q: &Rational,
    sigma: &Rational,
    alpha: &Rational,
    p: u32,
    ln_k: f64,
) -> Option<R> {
    // each M_j cancels to about (1/σ²)^{j/2}: carry that many extra bits
    let ls2 = crate::search::ln_f64(&Rational::from(sigma * sigma)) / std::f64::consts::LN_2;
    let half = Rational::from((1, 2));
    let c = if *q <= half { q.clone() } else { half.clone() };
    let two_s2 = Rational::from(sigma * sigma) * 2u32;
    let mut out: Option<R> = None;
    // even m > α: a few fixed ones, and just above α for orders up to 120 (cost grows like m²)
    let mut ms = vec![6u32, 10, 16, 24];
    if *alpha < 120 {
        let above = alpha.clone().ceil().numer().to_u32().unwrap_or(2) + 1;
        let above = above + above % 2;
        ms.extend([above, above + 8]);
    }
    for m in ms {
        if *alpha >= m {
            continue;
        }
        let pm = p
            + extra_bits(ln_k)
            + ((f64::from(m) / 2.0) * ls2.max(0.0))
                .ceil()
                .min(f64::from(1u32 << 14)) as u32
            + 32;
        let moment = |j: u32| -> R { lognormal_moment(j, &two_s2, pm) };
        let mut poly = R::from_int(0, pm);
        let mut bsum = Rational::from(1);
        let mut cj = Rational::from(1); // C(α, j)
        let mut qj = Rational::from(1); // q^j
        for j in 1..m {
            cj *= Rational::from(alpha - (j - 1)) / j;
            qj *= q;
            bsum += Rational::from(cj.abs_ref()) * &qj;
            if j >= 2 {
                poly = poly.add(&R::from_rational(&Rational::from(&cj * &qj), pm).mul(&moment(j)));
            }
        }
        let cm = cj.clone() * (Rational::from(alpha - (m - 1)) / m);
        qj *= q;
        let one_c = 1 - c.clone();
        let pow = R::from_rational(&Rational::from(alpha - m), pm)
            .mul(&R::from_rational(&one_c, pm).ln())
            .exp();
        let mut rem = R::from_rational(&(Rational::from(cm.abs_ref()) * &qj), pm)
            .mul(&pow)
            .mul(&moment(m).max0());
        if c < *q {
            // P[X < −c] = P[Y < ln(1 − c/q)] = Φ(σ ln(1 − c/q) + 1/(2σ))
            let arg = R::from_rational(sigma, pm)
                .mul(&R::from_rational(&(1 - Rational::from(&c / q)), pm).ln())
                .add(&R::from_rational(&(sigma.clone().recip() / 2u32), pm));
            rem = rem.add(&R::from_rational(&bsum, pm).mul(&arg.normal_cdf()));
        }
        let am1 = poly.add(&rem.neg().hull(&rem)).max0();
        if let Some(k) = finite(am1.ln1p()) {
            out = Some(match out {
                Some(o) => o.intersect(&k),
                None => k,
            });
        }
    }
    out
}

/// M_j = E[(L − 1)^j] = Σ_{i=2}^{j} C(j,i)(−1)^{j−i} expm1((i²−i)/(2σ²)) for L = e^Y,
/// Y = (2Z − 1)/(2σ²), Z ~ N(0, σ²) (`two_s2` = 2σ²), enclosed at `pm` bits.
fn lognormal_moment<R: Real>(j: u32, two_s2: &Rational, pm: u32) -> R {
    let mut s = R::from_int(0, pm);
    for i in 2..=j {
        let e = Rational::from((Integer::from(i) * i - i, Integer::from(1))) / two_s2;
        let b = R::from_rational(&Rational::from(Integer::binomial_u(j, i)), pm);
        let t = b.mul(&R::from_rational(&e, pm).expm1());
        s = if (j - i).is_multiple_of(2) {
            s.add(&t)
        } else {
            s.sub(&t)
        };
    }
    s
}

/// f64 model of ln A_α for the search: the integer sum; at fractional orders the MTZ19 series
/// in f64 where it converges within its term budget, else the leading moment term
/// ln(1 + C(α,2) q² expm1(1/σ²)), capped by the convexity chord.
fn sgm_k_f64(q: f64, ls: f64, alpha: f64) -> f64 {
    let n = alpha.floor() as u32;
    let k_at = |m: u32| {
        if m <= 1 {
            0.0
        } else {
            sgm_log_a_f64(q, ls, m)
        }
    };
    if alpha.fract() == 0.0 {
        return k_at(n);
    }
    let sigma = ls.exp();
    if q >= 1.0 {
        return ((alpha * alpha - alpha).ln() - std::f64::consts::LN_2 - 2.0 * ls).exp();
    }
    let chord = k_at(n) + alpha.fract() * (k_at(n + 1) - k_at(n));
    if alpha > INTEGER_ORDERS_FROM {
        return chord; // the conversions' search certifies an integer order up there
    }
    let lead = (alpha * (alpha - 1.0) / 2.0 * q * q * ln_expm1_f64(-2.0 * ls).exp()).ln_1p();
    let series = frac_series_f64(q, sigma, alpha, chord.max(1e-300).ln()).map(|(_, s)| s.ln());
    match series {
        Some(v) if v.is_finite() && v <= chord && v >= 0.0 && v > 1e-12 => v,
        _ if lead.is_finite() && lead <= chord && sigma > 5.0 => lead,
        _ => chord,
    }
}

fn check_term(term: &RdpTerm, count: &Integer) -> Result<()> {
    validate::count("count", count)?;
    match term {
        RdpTerm::Zcdp { rho } => validate::nonnegative("rho", rho),
        RdpTerm::Pure { epsilon } => validate::nonnegative("epsilon", epsilon),
        RdpTerm::SubsampledGaussian { rate, sigma } => check_sgm(rate, sigma),
        RdpTerm::RepeatAndSelect(r) => r.validate(),
    }
}

impl RdpCurve {
    /// The empty composition.
    pub fn new() -> Self {
        Self::default()
    }
    /// Add `count` copies of a term (composition adds RDP at every order).
    pub fn push(&mut self, term: RdpTerm, count: Integer) -> Result<()> {
        check_term(&term, &count)?;
        self.terms.push((term, count));
        Ok(())
    }
    /// Re-check every term (the field is public): non-empty, counts ≥ 1, valid parameters.
    pub fn validate(&self) -> Result<()> {
        validate::nonempty("curve", &self.terms)?;
        self.terms.iter().try_for_each(|(t, c)| check_term(t, c))
    }
    /// (α − 1)·ε(α) of the whole curve, enclosed.
    pub(crate) fn k<R: Real>(&self, alpha: &Rational, p: u32) -> R {
        let a = R::from_rational(alpha, p);
        let a1 = R::from_rational(&Rational::from(alpha - 1u32), p);
        let mut sum = R::from_int(0, p);
        for (t, c) in &self.terms {
            let one = match t {
                RdpTerm::Zcdp { rho } => a.mul(&R::from_rational(rho, p)).mul(&a1),
                RdpTerm::Pure { epsilon } => {
                    let e = R::from_rational(epsilon, p);
                    e.min(&a.mul(&e.sqr()).div(&R::from_int(2, p))).mul(&a1)
                }
                RdpTerm::SubsampledGaussian { rate, sigma } => sgm_k::<R>(rate, sigma, alpha, p),
                RdpTerm::RepeatAndSelect(r) => r.k::<R>(alpha, p),
            };
            sum = sum.add(&one.mul(&R::from_rational(&Rational::from(c), p)));
        }
        sum
    }
    pub(crate) fn k_f64(&self, alpha: f64) -> f64 {
        self.terms
            .iter()
            .map(|(t, c)| {
                let c = c.to_f64();
                c * match t {
                    RdpTerm::Zcdp { rho } => alpha * rho.to_f64() * (alpha - 1.0),
                    RdpTerm::Pure { epsilon } => {
                        let e = epsilon.to_f64();
                        e.min(alpha * e * e / 2.0) * (alpha - 1.0)
                    }
                    RdpTerm::SubsampledGaussian { rate, sigma } => {
                        sgm_k_f64(rate.to_f64(), crate::search::ln_f64(sigma), alpha)
                    }
                    RdpTerm::RepeatAndSelect(r) => r.k_f64(alpha),
                }
            })
            .sum()
    }
    /// ε(α) of the curve, enclosed (an upper bound of the composed RDP at order α).
    pub fn epsilon_at(&self, alpha: &Rational, prec: Precision) -> Result<Enclosure> {
        check_order(alpha)?;
        self.validate()?;
        let p = prec.fixed_bits()?;
        let a1 = MpfrInterval::from_rational(&Rational::from(alpha - 1u32), p);
        Enclosure::from_real(&self.k::<MpfrInterval>(alpha, p).div(&a1))
    }
}

/// Repeat-and-select of a mechanism with RDP curve `inner`, K ~ TNB(η, γ) with E\[K\] = `mean`.
/// The theorem's free order λ̂ and the monotone envelope's floor (RDP is non-decreasing in the
/// order, so ε′ at λ may be replaced by ε′ at any λ′ ≥ λ) are chosen once by an `f64` search;
/// γ is replaced by a certified lower bound.
#[derive(Clone, Debug, PartialEq)]
pub struct RepeatSelect {
    /// The RDP curve of one run.
    pub inner: RdpCurve,
    /// E\[K\] > 1.
    pub mean: Rational,
    /// η ≥ 0; `None`: shape ∞, K ~ Poisson(mean) (Theorem 6).
    pub shape: Option<Rational>,
    /// A rational γ₋ ≤ γ, certified (E\[K\] is decreasing in γ); `None` for Poisson.
    pub gamma_lower: Option<Rational>,
    /// λ̂ > 1 (any value gives a valid bound; chosen by search).
    pub lambda_hat: Rational,
    /// λ* > 1: ε′ is evaluated at max(λ, λ*) (chosen by search).
    pub floor_order: Rational,
}

/// An order as a short exact rational near the f64 choice (search only).
pub(crate) fn order(a: f64) -> Rational {
    Rational::from_f64((a.min(MAX_ORDER as f64) * 1024.0).round() / 1024.0)
        .filter(|r| *r > 1)
        .unwrap_or_else(|| Rational::from((1025, 1024)))
}

/// The evaluation of a repeat-and-select term (its construction, the search for λ̂ and the
/// envelope's floor, is `RepeatSelect::new` in [`crate::theorems::repeat_select`]).
impl RepeatSelect {
    /// The order α′ at which Q's δ̂ at ε̂ = ln(λ/(λ − 1)) is bounded (search only).
    fn delta_order(&self, lambda: f64) -> f64 {
        let eh = (lambda / (lambda - 1.0)).ln();
        let f = |a: f64| {
            let v = self.inner.k_f64(a) - (a - 1.0) * eh + (a - 1.0) * (a - 1.0).ln() - a * a.ln();
            if v.is_nan() {
                f64::INFINITY
            } else {
                v
            }
        };
        // a geometric grid of 48 orders in (1.01, 20 000) (each point costs a curve evaluation)
        let step = (((MAX_ORDER - 1) as f64).ln() - (1e-2f64).ln()) / 47.0;
        let u0 = (0..48)
            .map(|i| (1e-2f64).ln() + step * i as f64)
            .min_by(|x, y| f(1.0 + x.exp()).total_cmp(&f(1.0 + y.exp())))
            .unwrap_or(0.0);
        // then a short golden-section refinement around the best grid point
        let g = |u: f64| f(1.0 + u.exp());
        1.0 + crate::search::minimize_with(g, u0 - step, u0 + step, 4, 16).exp()
    }

    /// ε′(λ) in f64 (search only).
    pub(crate) fn eps_f64(&self, lambda: f64) -> f64 {
        let ln_mean = crate::search::ln_f64(&self.mean);
        let base = (self.inner.k_f64(lambda) + ln_mean) / (lambda - 1.0);
        match (&self.shape, &self.gamma_lower) {
            (Some(eta), Some(g)) => {
                let lh = self.lambda_hat.to_f64();
                let ln_inv_g = -crate::search::ln_f64(g);
                base + (eta.to_f64() + 1.0) * (self.inner.k_f64(lh) + ln_inv_g) / lh
            }
            _ => {
                let a = self.delta_order(lambda);
                let eh = (lambda / (lambda - 1.0)).ln();
                let ld =
                    self.inner.k_f64(a) - (a - 1.0) * eh + (a - 1.0) * (a - 1.0).ln() - a * a.ln();
                base + self.mean.to_f64() * ld.min(0.0).exp()
            }
        }
    }

    /// Theorem 6's μ·δ̂ at order λ, enclosed from above: δ̂ ≤ min(1, e^{K(α′) − (α′−1)ε̂}
    /// (α′−1)^{α′−1}/α′^{α′}) for ε̂ = ln(λ/(λ − 1)) (Proposition 14's general form at an order
    /// α′ chosen by search).
    fn poisson_term<R: Real>(&self, lambda: &Rational, p: u32) -> R {
        let a = order(self.delta_order(lambda.to_f64()));
        let ar = R::from_rational(&a, p);
        let a1 = R::from_rational(&Rational::from(&a - 1u32), p);
        let ratio = lambda / Rational::from(lambda - 1u32);
        let eh = R::from_rational(&ratio, p).ln();
        let log_c = a1.mul(&a1.ln()).sub(&ar.mul(&ar.ln()));
        let d = self.inner.k::<R>(&a, p).sub(&a1.mul(&eh)).add(&log_c).exp();
        R::from_rational(&self.mean, p).mul(&d.min(&R::from_int(1, p)))
    }

    /// (α − 1)·ε′(max(α, λ*)), enclosing an upper bound of (α − 1) times the selection's RDP
    /// at α (Theorem 2 with γ₋ for γ, then monotonicity in the order).
    pub(crate) fn k<R: Real>(&self, alpha: &Rational, p: u32) -> R {
        let a2 = if *alpha >= self.floor_order {
            alpha.clone()
        } else {
            self.floor_order.clone()
        };
        let a21 = R::from_rational(&Rational::from(&a2 - 1u32), p);
        let c = match (&self.shape, &self.gamma_lower) {
            (Some(shape), Some(g)) => {
                let lh = R::from_rational(&self.lambda_hat, p);
                let ln_inv_g = R::from_rational(g, p).ln().neg();
                let eta1 = R::from_rational(&Rational::from(shape + 1u32), p);
                // (1 + η)((1 − 1/λ̂)ε̂ + ln(1/γ)/λ̂) = (1 + η)(K(λ̂) + ln(1/γ))/λ̂
                eta1.mul(
                    &self
                        .inner
                        .k::<R>(&self.lambda_hat, p)
                        .add(&ln_inv_g)
                        .div(&lh),
                )
            }
            // Theorem 6: μ·δ̂ at ε̂ = ln(1 + 1/(λ − 1)), λ = α₂
            _ => self.poisson_term::<R>(&a2, p),
        };
        let ln_mean = R::from_rational(&self.mean, p).ln();
        let eps = self.inner.k::<R>(&a2, p).add(&ln_mean).div(&a21).add(&c);
        eps.mul(&R::from_rational(&Rational::from(alpha - 1u32), p))
    }

    /// [`RepeatSelect::k`] in f64 (search only).
    pub(crate) fn k_f64(&self, alpha: f64) -> f64 {
        self.eps_f64(alpha.max(self.floor_order.to_f64())) * (alpha - 1.0)
    }

    /// Re-check the parameters (the fields are public).
    pub fn validate(&self) -> Result<()> {
        self.inner.validate()?;
        if let Some(shape) = &self.shape {
            validate::nonnegative("shape", shape)?;
        }
        let g_ok = match (&self.shape, &self.gamma_lower) {
            (Some(_), Some(g)) => *g > 0 && *g < 1,
            (None, None) => true,
            _ => false,
        };
        if self.mean <= 1 || !g_ok {
            return Err(Error::arg(
                "mean",
                "must be > 1 (with γ₋ in (0, 1) for a finite shape)",
            ));
        }
        if self.lambda_hat <= 1 || self.floor_order <= 1 {
            return Err(Error::arg("order", "λ̂ and λ* must be > 1"));
        }
        Ok(())
    }
}

/// ε from RDP at order α (Proposition 14's general form with t = α − 1; CKS20 Prop 12):
/// ε = (K(α) + ln(1/δ) + (α−1)·ln(1 − 1/α) − ln α)/(α − 1), clamped at 0.
pub(crate) fn eps_from_k<R: Real>(k: &R, alpha: &Rational, delta: &Rational, p: u32) -> R {
    let a = R::from_rational(alpha, p);
    let a1 = R::from_rational(&Rational::from(alpha - 1u32), p);
    let l = R::from_rational(delta, p).ln().neg();
    let inv = R::from_int(1, p).div(&a).neg().ln1p();
    k.add(&l).add(&a1.mul(&inv)).sub(&a.ln()).div(&a1).max0()
}

pub(crate) fn eps_from_k_f64(k: f64, alpha: f64, ln_delta: f64) -> f64 {
    ((k - ln_delta + (alpha - 1.0) * (-1.0 / alpha).ln_1p() - alpha.ln()) / (alpha - 1.0)).max(0.0)
}

/// Orders above this are rounded to an integer by the conversions' search.
const INTEGER_ORDERS_FROM: f64 = 256.0;

/// The order an f64 search picks for the conversion (any α > 1 gives a valid bound).
fn best_order(curve: &RdpCurve, f: impl Fn(f64, f64) -> f64) -> Rational {
    // search over u = ln(α − 1) ∈ [ln 1e-3, ln(MAX_ORDER − 1)], real orders
    let obj = |u: f64| {
        let a = 1.0 + u.exp();
        f(curve.k_f64(a), a)
    };
    let u = minimize(obj, (1e-3f64).ln(), ((MAX_ORDER - 1) as f64).ln());
    let a = (1.0 + u.exp()).min(MAX_ORDER as f64);
    // above INTEGER_ORDERS_FROM the certified fractional series needs more than ⌊α⌋ terms; the
    // better neighbouring integer costs only (Δα/α)² relative there (a search choice)
    if a > INTEGER_ORDERS_FROM {
        let (lo, hi) = (a.floor(), a.ceil().min(MAX_ORDER as f64));
        let pick = if f(curve.k_f64(lo), lo) <= f(curve.k_f64(hi), hi) {
            lo
        } else {
            hi
        };
        return Rational::from_f64(pick).expect("finite order");
    }
    // keep the exact rational close to the f64 choice with few digits (cheap to evaluate)
    Rational::from_f64((a * 1024.0).round() / 1024.0)
        .filter(|r| *r > 1)
        .unwrap_or_else(|| Rational::from((1025, 1024)))
}

/// RDP → (ε, δ) for a whole curve: ε(δ) = min over real α of Proposition 14's general form,
/// certified at the order an f64 search picks. Returns (ε enclosure, the order used).
///
/// # Guarantee
/// `upper` is a valid ε at δ for every mechanism with this RDP curve; δ ∈ (0, 1), non-empty
/// curve. Note: `proofs-notes/rdp_to_dp.md`.
pub fn rdp_to_dp(
    curve: &RdpCurve,
    delta: &Rational,
    prec: Precision,
) -> Result<(UpperBound, Rational)> {
    curve.validate()?;
    validate::open_unit("delta", delta)?;
    let p = prec.fixed_bits()?;
    let ld = crate::search::ln_f64(delta);
    let alpha = best_order(curve, |k, a| eps_from_k_f64(k, a, ld));
    let enc = Enclosure::from_real(&eps_from_k::<MpfrInterval>(
        &curve.k::<MpfrInterval>(&alpha, p),
        &alpha,
        delta,
        p,
    ))?;
    Ok((UpperBound::new(enc), alpha))
}

/// δ from RDP at order α (Proposition 14's general form, t = α − 1):
/// δ = e^{K(α) − (α−1)ε}·(α−1)^{α−1}/α^α, clamped to 1.
fn delta_from_k<R: Real>(k: &R, alpha: &Rational, eps: &Rational, p: u32) -> R {
    let a = R::from_rational(alpha, p);
    let a1 = R::from_rational(&Rational::from(alpha - 1u32), p);
    let e = R::from_rational(eps, p);
    // (α−1)^{α−1}/α^α = exp((α−1)·ln(α−1) − α·ln α)
    let log_c = a1.mul(&a1.ln()).sub(&a.mul(&a.ln()));
    k.sub(&a1.mul(&e)).add(&log_c).exp().min(&R::from_int(1, p))
}

fn delta_from_k_f64(k: f64, alpha: f64, eps: f64) -> f64 {
    k - (alpha - 1.0) * eps + (alpha - 1.0) * (alpha - 1.0).ln() - alpha * alpha.ln()
}

/// RDP → δ at a given ε for a whole curve: δ(ε) = min over real α of Proposition 14's general
/// form, certified at the order an f64 search picks. Returns (δ enclosure, the order used).
///
/// # Guarantee
/// `upper` is a valid δ at ε for every mechanism with this RDP curve; ε ≥ 0, non-empty curve.
/// Note: `proofs-notes/rdp_to_dp_delta.md`.
pub fn rdp_to_dp_delta(
    curve: &RdpCurve,
    eps: &Rational,
    prec: Precision,
) -> Result<(UpperBound, Rational)> {
    curve.validate()?;
    validate::nonnegative("epsilon", eps)?;
    let p = prec.fixed_bits()?;
    let e = eps.to_f64();
    let alpha = best_order(curve, |k, a| delta_from_k_f64(k, a, e));
    let enc = Enclosure::from_real(&delta_from_k::<MpfrInterval>(
        &curve.k::<MpfrInterval>(&alpha, p),
        &alpha,
        eps,
        p,
    ))?;
    Ok((UpperBound::new(enc), alpha))
}

/// DP-SGD: `steps` Poisson-subsampled Gaussian steps (rate q, noise multiplier σ), add/remove
/// neighbours, accounted in RDP (Mironov–Talwar–Zhang 2019) and converted with [`rdp_to_dp`].
///
/// # Guarantee
/// `upper` is a valid ε at δ for the removal direction and, by MTZ19's domination of the addition
/// direction for the sampled Gaussian (cited in the note), for add/remove. q ∈ (0, 1], σ > 0,
/// steps ≥ 1, δ ∈ (0, 1) by their types. Note: `proofs-notes/dpsgd_rdp_epsilon.md`.
pub fn dpsgd_rdp_epsilon(
    q: &Rate,
    sigma: &Sigma,
    steps: &Steps,
    delta: &Delta,
    prec: Precision,
) -> Result<(UpperBound, Rational)> {
    // q ∈ (0, 1], σ > 0, T ≥ 1 and δ ∈ (0, 1) by their types (`push` and `rdp_to_dp` check
    // them again, as for every curve)
    let mut c = RdpCurve::new();
    c.push(
        RdpTerm::SubsampledGaussian {
            rate: Rational::from(&**q),
            sigma: Rational::from(&**sigma),
        },
        Integer::from(&**steps),
    )?;
    let (b, alpha) = rdp_to_dp(&c, delta, prec)?;
    Ok((b.resting_on(ADD_DIRECTION_CITATION), alpha))
}

/// The cited result the add/remove DP-SGD RDP bound rests on (not certified by dpcert).
pub const ADD_DIRECTION_CITATION: &str = "Mironov–Talwar–Zhang 2019 (arXiv:1908.10530): for the sampled Gaussian the removal pair's Rényi divergence dominates the addition pair's (cited, not certified here; the PLD accountant computes both directions)";

/// The float models the searches use (search only: soundness does not rest on them, but a
/// wrong model makes the search pick poor orders), each pinned to the certified formula it
/// copies, evaluated in MPFR at 256 bits, on a spread of inputs including the extremes the
/// searches meet.
#[cfg(test)]
mod float_model_tests {
    use super::*;
    use crate::num::{assert_model_near, model_near};
    use crate::search::ln_f64;

    const P: u32 = 256;

    fn rational(s: &str) -> Rational {
        crate::num::parse_exact(s).unwrap()
    }

    /// (q, σ) pairs from the searches' corners: tiny and full rates, small and huge σ.
    const SGM: [(&str, &str); 9] = [
        ("1e-6", "0.5"),
        ("1e-3", "1"),
        ("0.01", "1.1"),
        ("0.5", "3"),
        ("0.999", "0.8"),
        ("1", "2"),
        ("0.01", "1000"),
        ("0.1", "0.05"),
        ("1e-12", "1e6"),
    ];

    #[test]
    fn ln_expm1_f64_matches_ln_expm1() {
        for x in [
            "1e-300", "1e-20", "1e-14", "1e-6", "0.3", "1", "1.5", "30", "700", "1e5",
        ] {
            let r = rational(x);
            let model = ln_expm1_f64(ln_f64(&r));
            let cert = ln_expm1::<MpfrInterval>(&r, P);
            assert_model_near(&format!("ln_expm1 {x}"), model, &cert, 1e-12, 1e-15);
        }
    }

    #[test]
    fn sgm_log_a_f64_matches_sgm_log_a() {
        for (qs, ss) in SGM {
            for n in [2u32, 3, 8, 64, 1000] {
                let (qr, sr) = (rational(qs), rational(ss));
                let model = sgm_log_a_f64(qr.to_f64(), ln_f64(&sr), n);
                let cert = sgm_log_a::<MpfrInterval>(&qr, &sr, n, P);
                let what = format!("K q={qs} σ={ss} n={n}");
                assert_model_near(&what, model, &cert, 1e-9, 0.0);
            }
        }
    }

    #[test]
    fn ln_phi_f64_matches_ln_phi() {
        for x in [
            "-1e4", "-300", "-35", "-30.5", "-29.5", "-10", "-1", "0", "2", "6",
        ] {
            let r = rational(x);
            let cert = MpfrInterval::from_rational(&r, P).normal_cdf().ln();
            let what = format!("ln Φ({x})");
            // the asymptotic form's next term is 3/x⁴: below 4e-6 absolute, 1e-8 relative
            assert_model_near(&what, ln_phi_f64(r.to_f64()), &cert, 1e-8, 1e-15);
        }
    }

    #[test]
    fn frac_series_f64_matches_fractional_k() {
        for (qs, ss) in [("1e-4", "0.7"), ("0.01", "1"), ("0.3", "2"), ("0.01", "50")] {
            for a in ["1.5", "2.25", "7.5", "40.25"] {
                let (qr, sr, ar) = (rational(qs), rational(ss), rational(a));
                let cert = sgm_k::<MpfrInterval>(&qr, &sr, &ar, P);
                let (_, hi) = cert.endpoints().unwrap();
                if hi > 700 {
                    continue; // A_α = e^K beyond f64: the model's sum is ∞ and unused
                }
                let ln_k = rug::Float::with_val(64, hi.ln_ref()).to_f64();
                let (_, s) = frac_series_f64(qr.to_f64(), sr.to_f64(), ar.to_f64(), ln_k).unwrap();
                let what = format!("ln S_J q={qs} σ={ss} α={a}");
                assert_model_near(&what, s.ln(), &cert, 1e-9, 1e-14);
            }
        }
    }

    /// The certified convexity chord K(⌊α⌋) + frac(α)·(K(⌊α⌋ + 1) − K(⌊α⌋)) ≥ K(α).
    fn chord<R: Real>(qr: &Rational, sr: &Rational, ar: &Rational) -> R {
        let n = ar.clone().floor().numer().to_u32().unwrap();
        let k_at = |m: u32| {
            if m <= 1 {
                R::from_int(0, P)
            } else {
                sgm_log_a::<R>(qr, sr, m, P)
            }
        };
        let frac = R::from_rational(&Rational::from(ar - n), P);
        k_at(n).add(&frac.mul(&k_at(n + 1).sub(&k_at(n))))
    }

    #[test]
    fn sgm_k_f64_matches_sgm_k() {
        for (qs, ss) in SGM {
            for a in ["1.5", "2", "7.5", "40.25", "130.75", "300.5", "4000"] {
                let (qr, sr, ar) = (rational(qs), rational(ss), rational(a));
                if qr < rational("1e-6") && ar.denom() != &1 && ar > 41 {
                    continue; // outside the certified enclosure's tight region (its Guarantee)
                }
                let cert = sgm_k::<MpfrInterval>(&qr, &sr, &ar, P);
                let model = sgm_k_f64(qr.to_f64(), ln_f64(&sr), ar.to_f64());
                let what = format!("K(α) q={qs} σ={ss} α={a}");
                // the integer sum, the series or the leading moment term (relative 2e-5), or
                // else the convexity chord the model falls back to; not the chord at integer
                // orders, nor where the series or the leading term serves (fractional α ≤ 41,
                // σ ≥ ½, A_α = e^K within f64)
                let near_k = model_near(model, &cert, 2e-5, 1e-300);
                let (_, hi) = cert.endpoints().unwrap();
                let must_k = *ar.denom() == 1 || (ar < 41 && sr >= rational("0.5") && hi < 700);
                if must_k {
                    near_k.unwrap_or_else(|e| panic!("{what}: {e}"));
                    continue;
                }
                let near_chord =
                    model_near(model, &chord::<MpfrInterval>(&qr, &sr, &ar), 1e-12, 1e-300);
                if let (Err(k), Err(c)) = (near_k, near_chord) {
                    panic!("{what}: K: {k}; chord: {c}");
                }
            }
        }
    }

    /// Curves with every kind of term, alone and composed.
    fn curves() -> Vec<RdpCurve> {
        let mut out = Vec::new();
        let terms = [
            RdpTerm::Zcdp {
                rho: rational("0.3"),
            },
            RdpTerm::Pure {
                epsilon: rational("0.7"),
            },
            RdpTerm::SubsampledGaussian {
                rate: rational("0.01"),
                sigma: rational("1.1"),
            },
        ];
        for (t, c) in terms.iter().zip([7u32, 3, 1000]) {
            let mut one = RdpCurve::new();
            one.push(t.clone(), Integer::from(c)).unwrap();
            out.push(one);
        }
        let mut all = RdpCurve::new();
        for (t, c) in terms.iter().zip([2u32, 5, 300]) {
            all.push(t.clone(), Integer::from(c)).unwrap();
        }
        out.push(all);
        out
    }

    /// Repeat-and-select terms: a truncated negative binomial (η = 1) and a Poisson number of
    /// runs, of a zCDP-and-pure curve (closed forms: cheap at the many fractional orders the
    /// term evaluates; the subsampled Gaussian's model is pinned on its own above).
    fn selections() -> Vec<RepeatSelect> {
        let mut inner = curves()[0].clone();
        inner
            .push(
                RdpTerm::Pure {
                    epsilon: rational("0.2"),
                },
                Integer::from(2),
            )
            .unwrap();
        [Some(rational("1")), None]
            .iter()
            .map(|shape| RepeatSelect::new(inner.clone(), &rational("10"), shape).unwrap())
            .collect()
    }

    const ORDERS: [&str; 6] = ["1.5", "2", "3.25", "17", "64.5", "1000"];

    /// A curve's subsampled-Gaussian terms may take the convexity chord at fractional orders
    /// (about 1e-4 relative here; `sgm_k_f64_matches_sgm_k` pins that branch): a wrong term,
    /// factor or count is off by far more.
    const CURVE_RTOL: f64 = 1e-3;

    #[test]
    fn curve_k_f64_matches_curve_k() {
        let mut cs = curves();
        for r in selections() {
            let mut c = RdpCurve::new();
            c.push(RdpTerm::RepeatAndSelect(Box::new(r)), Integer::from(3))
                .unwrap();
            cs.push(c);
        }
        for (i, c) in cs.iter().enumerate() {
            for a in ORDERS {
                let ar = rational(a);
                let cert = c.k::<MpfrInterval>(&ar, P);
                let what = format!("curve #{i} α={a}");
                assert_model_near(&what, c.k_f64(ar.to_f64()), &cert, CURVE_RTOL, 0.0);
            }
        }
    }

    #[test]
    fn repeat_select_models_match_its_k() {
        for (i, r) in selections().iter().enumerate() {
            for a in ORDERS {
                let ar = rational(a);
                let cert = r.k::<MpfrInterval>(&ar, P);
                let what = format!("selection #{i} α={a}");
                assert_model_near(&what, r.k_f64(ar.to_f64()), &cert, CURVE_RTOL, 0.0);
                // ε′ itself at orders above the envelope's floor
                let a2 = if ar >= r.floor_order {
                    ar.clone()
                } else {
                    r.floor_order.clone()
                };
                let eps = r
                    .k::<MpfrInterval>(&a2, P)
                    .div(&MpfrInterval::from_rational(&Rational::from(&a2 - 1u32), P));
                assert_model_near(&what, r.eps_f64(a2.to_f64()), &eps, CURVE_RTOL, 0.0);
            }
        }
    }

    #[test]
    fn eps_from_k_f64_matches_eps_from_k() {
        for k in [1e-9, 0.05, 2.0, 30.0, 4e4] {
            for a in ["1.001", "1.5", "4", "32", "20000"] {
                for d in ["1e-300", "1e-5", "0.5"] {
                    let (kr, ar, dr) = (Rational::from_f64(k).unwrap(), rational(a), rational(d));
                    let cert = eps_from_k::<MpfrInterval>(
                        &MpfrInterval::from_rational(&kr, P),
                        &ar,
                        &dr,
                        P,
                    );
                    let model = eps_from_k_f64(k, ar.to_f64(), ln_f64(&dr));
                    let what = format!("ε k={k} α={a} δ={d}");
                    assert_model_near(&what, model, &cert, 1e-9, 1e-12);
                }
            }
        }
    }

    #[test]
    fn delta_from_k_f64_matches_delta_from_k() {
        for k in [1e-9, 0.05, 2.0, 30.0, 4e4] {
            for a in ["1.001", "1.5", "4", "32", "20000"] {
                for e in ["0", "0.1", "1", "8", "50"] {
                    let (kr, ar, er) = (Rational::from_f64(k).unwrap(), rational(a), rational(e));
                    let cert = delta_from_k::<MpfrInterval>(
                        &MpfrInterval::from_rational(&kr, P),
                        &ar,
                        &er,
                        P,
                    );
                    let model = delta_from_k_f64(k, ar.to_f64(), er.to_f64());
                    let what = format!("ln δ k={k} α={a} ε={e}");
                    let (_, hi) = cert.endpoints().unwrap();
                    if hi >= 1 {
                        // the certified δ is clamped to 1: the model's ln δ is ≥ 0 there
                        assert!(model >= -1e-9, "{what}: model {model} but δ = 1");
                    } else {
                        assert_model_near(&what, model, &cert.ln(), 1e-9, 1e-12);
                    }
                }
            }
        }
    }
}
