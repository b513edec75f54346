//! Rényi DP curves (Mironov 2017), the Poisson-subsampled Gaussian (Mironov–Talwar–Zhang 2019),
//! and the conversion to (ε, δ) of Proposition 14's general form (Canonne–Kamath–Steinke 2020).
use crate::num::{Enclosure, Iv, Precision, Real, DEFAULT_PREC};
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
/// Integer α: exact, = steps·ln(A_α)/(α − 1). Fractional α: the convexity bound
/// (α−1)D_α ≤ linear interpolation of (n−1)D_n between the neighbouring integers (K(1) = 0).
///
/// # Guarantee
/// Encloses steps·ln A_α/(α−1) for integer α (two-sided); for fractional α encloses the
/// interpolation bound (an upper bound of the exact value). q ∈ (0, 1], σ > 0, steps ≥ 1,
/// 1 < α ≤ 20000. Note: `proofs-notes/subsampled_gaussian_rdp.md`.
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
    let bits = bits_of(prec)?;
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

fn bits_of(prec: Precision) -> Result<u32> {
    match prec {
        Precision::Auto => Ok(DEFAULT_PREC),
        Precision::Bits(b) => {
            validate::precision(b)?;
            Ok(b)
        }
    }
}

/// K(α) = (α−1)·D_α for one subsampled-Gaussian step: exact at integers, interpolated between.
fn sgm_k<R: Real>(q: &Rational, sigma: &Rational, alpha: &Rational, p: u32) -> R {
    let n = alpha.clone().floor().numer().to_u32().unwrap_or(1);
    let k_at = |m: u32| {
        if m <= 1 {
            R::from_int(0, p)
        } else {
            sgm_log_a::<R>(q, sigma, m, p)
        }
    };
    if *alpha == n {
        return k_at(n);
    }
    let frac = R::from_rational(&Rational::from(alpha - n), p);
    let (kn, kn1) = (k_at(n), k_at(n + 1));
    kn.add(&frac.mul(&kn1.sub(&kn)))
}

fn sgm_k_f64(q: f64, sigma: f64, alpha: f64) -> f64 {
    let n = alpha.floor() as u32;
    let k_at = |m: u32| {
        if m <= 1 {
            0.0
        } else {
            sgm_log_a_f64(q, sigma, m)
        }
    };
    let f = alpha - n as f64;
    if f == 0.0 {
        k_at(n)
    } else {
        k_at(n) + f * (k_at(n + 1) - k_at(n))
    }
}

impl RdpCurve {
    pub fn new() -> Self {
        Self::default()
    }
    /// Add `count` copies of a term (composition adds RDP at every order).
    pub fn push(&mut self, term: RdpTerm, count: Integer) -> Result<()> {
        validate::count("count", &count)?;
        match &term {
            RdpTerm::Zcdp { rho } => validate::nonnegative("rho", rho)?,
            RdpTerm::Pure { epsilon } => validate::nonnegative("epsilon", epsilon)?,
            RdpTerm::SubsampledGaussian { rate, sigma } => check_sgm(rate, sigma)?,
        }
        self.terms.push((term, count));
        Ok(())
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
        validate::nonempty("curve", &self.terms)?;
        let p = bits_of(prec)?;
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

fn eps_from_k_f64(k: f64, alpha: f64, delta: f64) -> f64 {
    ((k - delta.ln() + (alpha - 1.0) * (-1.0 / alpha).ln_1p() - alpha.ln()) / (alpha - 1.0))
        .max(0.0)
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
) -> Result<(Enclosure, Rational)> {
    validate::nonempty("curve", &curve.terms)?;
    validate::open_unit("delta", delta)?;
    let p = bits_of(prec)?;
    let d = delta.to_f64();
    let alpha = best_order(curve, |k, a| eps_from_k_f64(k, a, d));
    let enc = Enclosure::from_real(&eps_from_k::<Iv>(
        &curve.k::<Iv>(&alpha, p),
        &alpha,
        delta,
        p,
    ))?;
    Ok((enc, alpha))
}

/// δ from RDP at order α (Proposition 14's general form, t = α − 1):
/// ln δ = K(α) − (α−1)ε + (α−1)·ln(1 − 1/α) − ln(α−1)... written as
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
) -> Result<(Enclosure, Rational)> {
    validate::nonempty("curve", &curve.terms)?;
    validate::nonnegative("epsilon", eps)?;
    let p = bits_of(prec)?;
    let e = eps.to_f64();
    let alpha = best_order(curve, |k, a| delta_from_k_f64(k, a, e));
    let enc = Enclosure::from_real(&delta_from_k::<Iv>(
        &curve.k::<Iv>(&alpha, p),
        &alpha,
        eps,
        p,
    ))?;
    Ok((enc, alpha))
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
) -> Result<(Enclosure, Rational)> {
    let mut c = RdpCurve::new();
    c.push(
        RdpTerm::SubsampledGaussian {
            rate: q.clone(),
            sigma: sigma.clone(),
        },
        steps.clone(),
    )?;
    rdp_to_dp(&c, delta, prec)
}
