//! Rényi DP curves (Mironov 2017), the Poisson-subsampled Gaussian (Mironov–Talwar–Zhang 2019),
//! and the conversion to (ε, δ) of Proposition 14's general form (Canonne–Kamath–Steinke 2020).
use crate::num::{Enclosure, Iv, Precision, Real, UpperBound};
use crate::search::minimize;
use crate::validate;
use crate::{Error, Result};
use rug::{Integer, Rational};

/// One kind of mechanism in an RDP curve.
#[derive(Clone, Debug, PartialEq)]
pub enum RdpTerm {
    /// ρ-zCDP: ε(α) = αρ.
    Zcdp { rho: Rational },
    /// ε-DP: ε(α) = min(ε, αε²/2) (D_α ≤ D_∞; Proposition 16).
    Pure { epsilon: Rational },
    /// Poisson-subsampled Gaussian, sensitivity 1, noise multiplier σ, rate q (removal pair
    /// ((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²))).
    SubsampledGaussian { rate: Rational, sigma: Rational },
}

/// An RDP guarantee ε(α) for all α > 1: a sum (composition, Mironov 2017 Prop 1) of terms
/// with multiplicities.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RdpCurve {
    pub terms: Vec<(RdpTerm, Integer)>,
}

/// Largest order evaluated (orders above it are never needed in practice; the search stays below).
pub const MAX_ORDER: u32 = 20_000;

/// ln A_n for the subsampled Gaussian at integer n ≥ 2:
/// A_n = Σ_{k=0}^{n} C(n,k)(1−q)^{n−k} q^k exp((k² − k)/(2σ²)), all terms positive.
fn sgm_log_a<R: Real>(q: &Rational, sigma: &Rational, n: u32, p: u32) -> R {
    let lq = R::from_rational(q, p).ln();
    let l1q = R::from_rational(&Rational::from(-q), p).ln1p();
    let two_s2 = Rational::from(sigma * sigma) * 2u32;
    let mut sum = R::from_int(0, p);
    let mut binom = Integer::from(1);
    for k in 0..=n {
        if k > 0 {
            binom = binom * (n - k + 1) / k;
        }
        let e = Rational::from((Integer::from(k) * k - k, Integer::from(1))) / &two_s2;
        let ln_term = R::from_rational(&Rational::from(binom.clone()), p)
            .ln()
            .add(&l1q.mul(&R::from_int(i64::from(n - k), p)))
            .add(&if k == 0 {
                R::from_int(0, p)
            } else {
                lq.mul(&R::from_int(i64::from(k), p))
            })
            .add(&R::from_rational(&e, p));
        sum = sum.add(&ln_term.exp());
    }
    sum.ln()
}

fn sgm_log_a_f64(q: f64, sigma: f64, n: u32) -> f64 {
    // log-sum-exp in f64, for the search only
    let (lq, l1q) = (q.ln(), (-q).ln_1p());
    let mut lb = 0.0f64; // ln C(n, k)
    let mut terms = Vec::with_capacity(n as usize + 1);
    for k in 0..=n {
        if k > 0 {
            lb += ((n - k + 1) as f64).ln() - (k as f64).ln();
        }
        let kf = k as f64;
        terms.push(
            lb + (n - k) as f64 * l1q
                + if k == 0 { 0.0 } else { kf * lq }
                + (kf * kf - kf) / (2.0 * sigma * sigma),
        );
    }
    let m = terms.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    m + terms.iter().map(|t| (t - m).exp()).sum::<f64>().ln()
}

/// Mironov–Talwar–Zhang 2019: the Rényi divergence of order α of the Poisson-subsampled Gaussian
/// removal pair, D_α((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²)), composed `steps` times.
/// Integer α: the finite binomial sum, steps·ln(A_α)/(α − 1). Real α: MTZ19's two-sided
/// series with a certified remainder.
///
/// # Guarantee
/// Two-sided enclosure of steps·D_α for every real α ∈ (1, 20000], q ∈ (0, 1], σ > 0,
/// steps ≥ 1. Note: `proofs-notes/subsampled_gaussian_rdp.md`.
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
    let k = sgm_k::<Iv>(q, sigma, alpha, bits);
    let a1 = Iv::from_rational(&Rational::from(alpha - 1u32), bits);
    Enclosure::from_real(
        &k.div(&a1)
            .mul(&Iv::from_rational(&Rational::from(steps), bits)),
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
/// sum at integer α; otherwise MTZ19's two-sided series with a certified remainder, capped by
/// the convexity chord between the neighbouring integers (K is convex, K(1) = 0).
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
    // K(n) ≤ K(α) ≤ chord value (K non-decreasing, convex): K ∈ [K(n).lo, chord.hi];
    // with the series enclosure, K lies in the intersection
    let bounds = kn.span(&chord);
    match sgm_log_a_frac::<R>(q, sigma, alpha, p) {
        Some(series) => series.intersect(&bounds),
        None => bounds, // series unusable (its remainder bound needs too many terms)
    }
}

/// Largest number of terms of each fractional-order series.
const FRAC_TERMS_MAX: u32 = 2000;

/// Number of terms J for the fractional series: past α, z0 and α − z0 (where the uniform weight
/// bounds of the remainder hold), then until the remainder bound (W₁ + W₂)|C(α,J)|(J+1)/α is
/// below 1e-24 (A_α ≥ 1), at most [`FRAC_TERMS_MAX`]. A search choice: the remainder is
/// certified for any J.
fn frac_terms(q: f64, sigma: f64, alpha: f64, z0: f64, z0_lo: f64, z0_hi: f64) -> Option<u32> {
    let two_s2 = 2.0 * sigma * sigma;
    let lw1 = alpha * (-q).ln_1p() - z0 * z0 / two_s2;
    let lw2 = alpha * q.ln() + (2.0 * alpha * z0 - alpha - z0 * z0) / two_s2;
    let lw = lw1.max(lw2) + 2f64.ln(); // ln(W₁ + W₂) ≤ ln(2·max) ; W's carry a ½
                                       // j0 from certified bounds of z0, so that J ≥ max(α, z0, α − z0) holds for the exact z0
    let j0f = alpha.max(z0_hi).max(alpha - z0_lo).max(1.0).ceil() + 2.0;
    if !(j0f <= FRAC_TERMS_MAX as f64) {
        return None; // the remainder's weight bounds need J ≥ j0: series not usable, chord only
    }
    let j0 = j0f as u32;
    let mut lc = 0.0f64; // ln |C(α, j)|
    let mut j = 0u32;
    loop {
        if j > 0 {
            lc += ((alpha - (j - 1) as f64).abs()).ln() - (j as f64).ln();
        }
        let lrem = lw + lc + ((j as f64 + 1.0) / alpha).ln();
        if (j >= j0 && lrem < -24.0 * 10f64.ln()) || j >= FRAC_TERMS_MAX {
            return Some(j.max(j0));
        }
        j += 1;
    }
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

/// ln A_α for real, non-integer α > 1 (MTZ19 §3.3; dp_accounting's `_compute_log_a_frac`),
/// with z0 = σ² ln((1−q)/q) + ½ the point where qL = 1 − q:
/// A_α = (1−q)^α Σ_j C(α,j) (q/(1−q))^j e^{(j²−j)/(2σ²)} Φ((z0 − j)/σ)
///     + q^α Σ_j C(α,j) ((1−q)/q)^j e^{(s²−s)/(2σ²)} Φ((s − z0)/σ),  s = α − j.
/// Both series are truncated after J terms; the remainder is at most
/// (W₁ + W₂)·|C(α,J)|·(J+1)/α with W₁ = ½(1−q)^α e^{−z0²/(2σ²)} and
/// W₂ = ½q^α e^{(2αz0 − α − z0²)/(2σ²)} (proofs-notes/subsampled_gaussian_rdp.md).
fn sgm_log_a_frac<R: Real>(q: &Rational, sigma: &Rational, alpha: &Rational, p: u32) -> Option<R> {
    let two_s2 = Rational::from(sigma * sigma) * 2u32;
    if *q == 1 {
        // A_α = E[L^α] = e^{(α² − α)/(2σ²)}
        return Some(R::from_rational(
            &((Rational::from(alpha * alpha) - alpha) / &two_s2),
            p,
        ));
    }
    let one_q = Rational::from(1 - q.clone());
    let s_iv = R::from_rational(sigma, p);
    let z0 = R::from_rational(&Rational::from(sigma * sigma), p)
        .mul(&R::from_rational(&Rational::from(&one_q / q), p).ln())
        .add(&R::from_rational(&Rational::from((1, 2)), p));
    let a = R::from_rational(alpha, p);
    let z0f = sigma.to_f64().powi(2) * (one_q.to_f64() / q.to_f64()).ln() + 0.5;
    let (z0_lo, z0_hi) = z0.endpoints().map(|(l, h)| {
        (
            l.to_f64_round(rug::float::Round::Down),
            h.to_f64_round(rug::float::Round::Up),
        )
    })?;
    let big_j = frac_terms(
        q.to_f64(),
        sigma.to_f64(),
        alpha.to_f64(),
        z0f,
        z0_lo,
        z0_hi,
    )?;
    let (mut s1, mut s2) = (R::from_int(0, p), R::from_int(0, p));
    let mut c = Rational::from(1); // C(α, j), exact
    let ln_r1 = R::from_rational(&Rational::from(q / &one_q), p).ln();
    for j in 0..=big_j {
        if j > 0 {
            c = c * (Rational::from(alpha - (j - 1)) / j);
        }
        let cr = R::from_rational(&c, p);
        let jr = R::from_int(i64::from(j), p);
        let e1 = Rational::from((Integer::from(j) * j - j, Integer::from(1))) / &two_s2;
        let t1 = cr
            .mul(&jr.mul(&ln_r1).add(&R::from_rational(&e1, p)).exp())
            .mul(&z0.sub(&jr).div(&s_iv).normal_cdf());
        s1 = s1.add(&t1);
        let sj = Rational::from(alpha - j);
        let e2 = (Rational::from(&sj * &sj) - &sj) / &two_s2;
        let t2 = cr
            .mul(&R::from_rational(&e2, p).sub(&jr.mul(&ln_r1)).exp())
            .mul(&R::from_rational(&sj, p).sub(&z0).div(&s_iv).normal_cdf());
        s2 = s2.add(&t2);
    }
    let pow_1q = a.mul(&R::from_rational(&one_q, p).ln()).exp();
    let pow_q = a.mul(&R::from_rational(q, p).ln()).exp();
    let half = R::from_rational(&Rational::from((1, 2)), p);
    let ts2 = R::from_rational(&two_s2, p);
    let w1 = half.mul(&pow_1q).mul(&z0.sqr().div(&ts2).neg().exp());
    let w2 = half.mul(&pow_q).mul(
        &R::from_int(2, p)
            .mul(&a)
            .mul(&z0)
            .sub(&a)
            .sub(&z0.sqr())
            .div(&ts2)
            .exp(),
    );
    let tail_c = R::from_rational(&Rational::from(c.abs_ref()), p)
        .mul(&R::from_int(i64::from(big_j) + 1, p))
        .div(&a);
    let tail = w1.add(&w2).mul(&tail_c);
    Some(
        pow_1q
            .mul(&s1)
            .add(&pow_q.mul(&s2))
            .add(&tail.neg().hull(&tail))
            .ln(),
    )
}

/// f64 model of ln A_α for the search: the integer sum; the fractional series in plain f64,
/// falling back to the convexity chord where the series is not usable.
fn sgm_k_f64(q: f64, sigma: f64, alpha: f64) -> f64 {
    let n = alpha.floor() as u32;
    let k_at = |m: u32| {
        if m <= 1 {
            0.0
        } else {
            sgm_log_a_f64(q, sigma, m)
        }
    };
    if alpha.fract() == 0.0 {
        return k_at(n);
    }
    let chord = k_at(n) + alpha.fract() * (k_at(n + 1) - k_at(n));
    if q >= 1.0 {
        return (alpha * alpha - alpha) / (2.0 * sigma * sigma);
    }
    let z0 = sigma * sigma * ((1.0 - q) / q).ln() + 0.5;
    let (mut s1, mut s2) = (0.0f64, 0.0f64);
    let (mut lc, mut sign) = (0.0f64, 1.0f64); // ln |C(α, j)| and its sign
    let lr = (q / (1.0 - q)).ln();
    let two_s2 = 2.0 * sigma * sigma;
    let (l1q, lq) = ((-q).ln_1p(), q.ln());
    let Some(big_j) = frac_terms(q, sigma, alpha, z0, z0, z0) else {
        return chord;
    };
    for j in 0..=big_j {
        if j > 0 {
            let f = alpha - (j - 1) as f64;
            lc += f.abs().ln() - (j as f64).ln();
            if f < 0.0 {
                sign = -sign;
            }
        }
        let jf = j as f64;
        // terms in log space (they overflow f64 otherwise), prefactors (1−q)^α and q^α folded in
        s1 += sign
            * (alpha * l1q
                + lc
                + jf * lr
                + (jf * jf - jf) / two_s2
                + ln_phi_f64((z0 - jf) / sigma))
            .exp();
        let s = alpha - jf;
        s2 += sign
            * (alpha * lq + lc + (s * s - s) / two_s2 - jf * lr + ln_phi_f64((s - z0) / sigma))
                .exp();
    }
    let v = (s1 + s2).ln();
    if v.is_finite() && v <= chord && v >= 0.0 {
        v
    } else {
        chord
    }
}

fn check_term(term: &RdpTerm, count: &Integer) -> Result<()> {
    validate::count("count", count)?;
    match term {
        RdpTerm::Zcdp { rho } => validate::nonnegative("rho", rho),
        RdpTerm::Pure { epsilon } => validate::nonnegative("epsilon", epsilon),
        RdpTerm::SubsampledGaussian { rate, sigma } => check_sgm(rate, sigma),
    }
}

impl RdpCurve {
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
    fn k<R: Real>(&self, alpha: &Rational, p: u32) -> R {
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
            };
            sum = sum.add(&one.mul(&R::from_rational(&Rational::from(c), p)));
        }
        sum
    }
    fn k_f64(&self, alpha: f64) -> f64 {
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
                        sgm_k_f64(rate.to_f64(), sigma.to_f64(), alpha)
                    }
                }
            })
            .sum()
    }
    /// ε(α) of the curve, enclosed (an upper bound of the composed RDP at order α).
    pub fn epsilon_at(&self, alpha: &Rational, prec: Precision) -> Result<Enclosure> {
        check_order(alpha)?;
        self.validate()?;
        let p = prec.fixed_bits()?;
        let a1 = Iv::from_rational(&Rational::from(alpha - 1u32), p);
        Enclosure::from_real(&self.k::<Iv>(alpha, p).div(&a1))
    }
}

/// ε from RDP at order α (Proposition 14's general form with t = α − 1; CKS20 Prop 12):
/// ε = (K(α) + ln(1/δ) + (α−1)·ln(1 − 1/α) − ln α)/(α − 1), clamped at 0.
fn eps_from_k<R: Real>(k: &R, alpha: &Rational, delta: &Rational, p: u32) -> R {
    let a = R::from_rational(alpha, p);
    let a1 = R::from_rational(&Rational::from(alpha - 1u32), p);
    let l = R::from_rational(delta, p).ln().neg();
    let inv = R::from_int(1, p).div(&a).neg().ln1p();
    k.add(&l).add(&a1.mul(&inv)).sub(&a.ln()).div(&a1).max0()
}

fn eps_from_k_f64(k: f64, alpha: f64, ln_delta: f64) -> f64 {
    ((k - ln_delta + (alpha - 1.0) * (-1.0 / alpha).ln_1p() - alpha.ln()) / (alpha - 1.0)).max(0.0)
}

/// The order an f64 search picks for the conversion (any α > 1 gives a valid bound).
fn best_order(curve: &RdpCurve, f: impl Fn(f64, f64) -> f64) -> Rational {
    // search over u = ln(α − 1) ∈ [ln 1e-3, ln(MAX_ORDER − 1)], real orders
    let obj = |u: f64| {
        let a = 1.0 + u.exp();
        f(curve.k_f64(a), a)
    };
    let u = minimize(obj, (1e-3f64).ln(), ((MAX_ORDER - 1) as f64).ln());
    let a = (1.0 + u.exp()).min(MAX_ORDER as f64);
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
    let enc = Enclosure::from_real(&eps_from_k::<Iv>(
        &curve.k::<Iv>(&alpha, p),
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
    let enc = Enclosure::from_real(&delta_from_k::<Iv>(
        &curve.k::<Iv>(&alpha, p),
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
/// steps ≥ 1, δ ∈ (0, 1). Note: `proofs-notes/dpsgd_rdp_epsilon.md`.
pub fn dpsgd_rdp_epsilon(
    q: &Rational,
    sigma: &Rational,
    steps: &Integer,
    delta: &Rational,
    prec: Precision,
) -> Result<(UpperBound, Rational)> {
    let mut c = RdpCurve::new();
    c.push(
        RdpTerm::SubsampledGaussian {
            rate: q.clone(),
            sigma: sigma.clone(),
        },
        steps.clone(),
    )?;
    let (b, alpha) = rdp_to_dp(&c, delta, prec)?;
    Ok((b.resting_on(ADD_DIRECTION_CITATION), alpha))
}

/// The cited result the add/remove DP-SGD RDP bound rests on (not certified by dpcert).
pub const ADD_DIRECTION_CITATION: &str = "Mironov–Talwar–Zhang 2019 (arXiv:1908.10530): for the sampled Gaussian the removal pair's Rényi divergence dominates the addition pair's (cited, not certified here; the PLD accountant computes both directions)";
