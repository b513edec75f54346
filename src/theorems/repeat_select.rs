//! Repeat-and-select (private hyperparameter tuning): run a mechanism Q a random number K of
//! times and release only the best run. Papernot & Steinke 2022 ("Hyperparameter tuning with
//! Rényi differential privacy", ICLR 2022, arXiv:2110.03620v2), Theorem 2: for K truncated
//! negative binomial with shape η ≥ 0 (η = 1 geometric, η = 0 logarithmic) and halting
//! parameter γ ∈ (0, 1), if Q is (λ, ε)- and (λ̂, ε̂)-RDP then the selection is (λ, ε′)-RDP,
//!
//!   ε′ = ε + (1 + η)(1 − 1/λ̂)ε̂ + (1 + η)·ln(1/γ)/λ̂ + ln E\[K\]/(λ − 1).
//!
//! Theorem 6: for K ~ Poisson(μ) (shape ∞), if Q is (λ, ε)-RDP and (ε̂, δ̂)-DP with
//! ε̂ = ln(1 + 1/(λ − 1)), the selection is (λ, ε + μδ̂ + ln μ/(λ − 1))-RDP.
//!
//! dp_accounting's `RepeatAndSelectDpEvent(event, mean, shape)` gives E\[K\] (the mean) and η.
use crate::num::{Enclosure, MpfrInterval, Precision, Real, UpperBound};
use crate::search::minimize;
/// The term's type lives with the curve it is a term of (its RDP is evaluated there); this
/// module constructs it.
pub use crate::theorems::rdp::RepeatSelect;
use crate::theorems::rdp::{order, RdpCurve, MAX_ORDER};
use crate::validate;
use crate::{Error, Result};
use rug::Rational;

/// E\[K\] of the truncated negative binomial TNB(η, γ) (P\[K = k\] ∝ C(k + η − 1, k)(1 − γ)^k,
/// k ≥ 1; η = 0 the logarithmic distribution), enclosed: 1/γ for η = 1,
/// (1 − γ)/(γ ln(1/γ)) for η = 0, η(1 − γ)/(γ(1 − γ^η)) otherwise.
fn tnb_mean<R: Real>(gamma: &Rational, shape: &Rational, p: u32) -> R {
    let g = R::from_rational(gamma, p);
    let one_minus = R::from_rational(&Rational::from(1 - gamma), p);
    let ln_g = g.ln();
    if *shape == 0 {
        return one_minus.div(&g.mul(&ln_g.neg()));
    }
    let eta = R::from_rational(shape, p);
    // 1 − γ^η = −expm1(η ln γ)
    let denom = g.mul(&eta.mul(&ln_g).expm1().neg());
    eta.mul(&one_minus).div(&denom)
}

/// A rational γ₋ with E\[K\](γ₋) ≥ `mean` certified, hence γ₋ ≤ γ (E\[K\] decreases in γ).
fn gamma_lower(mean: &Rational, shape: &Rational) -> Result<Rational> {
    if *shape == 1 {
        return Ok(mean.clone().recip());
    }
    let (m, eta) = (mean.to_f64(), shape.to_f64());
    let f = |g: f64| {
        if eta == 0.0 {
            (1.0 - g) / (g * -g.ln())
        } else {
            eta * (1.0 - g) / (g * -(eta * g.ln()).exp_m1())
        }
    };
    // bisection in f64 (search only): E[K] decreases from ∞ (γ → 0) to 1 (γ → 1)
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) >= m {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mut g = lo;
    for _ in 0..60 {
        let r = Rational::from_f64(g).filter(|r| *r > 0 && *r < 1);
        if let Some(r) = r {
            let e: MpfrInterval = tnb_mean(&r, shape, 256);
            if e.endpoints().is_some_and(|(l, _)| l >= *mean) {
                return Ok(r);
            }
        }
        g *= 1.0 - 1e-9;
        if g <= 0.0 {
            break;
        }
    }
    Err(Error::Numerical(format!(
        "no certified halting probability γ for mean {} and shape {}",
        validate::show(mean),
        validate::show(shape)
    )))
}

impl RepeatSelect {
    /// Check the parameters and choose λ̂, the envelope's floor and γ₋ (`mean` > 1, `shape` ≥ 0
    /// or `None` for Poisson; errors name the argument).
    pub fn new(inner: RdpCurve, mean: &Rational, shape: &Option<Rational>) -> Result<RepeatSelect> {
        inner.validate()?;
        if *mean <= 1 {
            return Err(Error::arg(
                "mean",
                format!(
                    "must be > 1 for the theorem (a mean of 1 runs once: the event itself), got {}",
                    validate::show(mean)
                ),
            ));
        }
        let (lo, hi) = ((1e-3f64).ln(), ((MAX_ORDER - 1) as f64).ln());
        let Some(shape) = shape else {
            return Ok(RepeatSelect::poisson(inner, mean, lo, hi));
        };
        validate::nonnegative("shape", shape)?;
        let gamma_lower = gamma_lower(mean, shape)?;
        let ln_inv_g = -crate::search::ln_f64(&gamma_lower);
        let hat = |u: f64| {
            let l = 1.0 + u.exp();
            (inner.k_f64(l) + ln_inv_g) / l
        };
        let lambda_hat = order(1.0 + minimize(hat, lo, hi).exp());
        let ln_mean = crate::search::ln_f64(mean);
        let env = |u: f64| {
            let a = 1.0 + u.exp();
            (inner.k_f64(a) + ln_mean) / (a - 1.0)
        };
        let floor_order = order(1.0 + minimize(env, lo, hi).exp());
        Ok(RepeatSelect {
            inner,
            mean: mean.clone(),
            shape: Some(shape.clone()),
            gamma_lower: Some(gamma_lower),
            lambda_hat,
            floor_order,
        })
    }

    /// Theorem 6 (K ~ Poisson(μ)): no λ̂; the envelope's floor minimises the f64 bound.
    fn poisson(inner: RdpCurve, mean: &Rational, lo: f64, hi: f64) -> RepeatSelect {
        let mut r = RepeatSelect {
            inner,
            mean: mean.clone(),
            shape: None,
            gamma_lower: None,
            lambda_hat: Rational::from(2),
            floor_order: Rational::from(2),
        };
        let env = |u: f64| r.eps_f64(1.0 + u.exp());
        r.floor_order = order(1.0 + crate::search::minimize_with(env, lo, hi, 24, 40).exp());
        r
    }
}

/// The RDP of repeat-and-select at order α (Papernot & Steinke 2022, Theorem 2, or Theorem 6
/// when `shape` is `None`, with the monotone envelope in the order): run a mechanism with RDP
/// curve `inner` K times, K ~ TNB(η = `shape`, γ) (or Poisson) with E\[K\] = `mean`, release
/// the best run.
///
/// # Guarantee
/// `upper` bounds the selection's Rényi divergence of order α > 1 (α ≤ 20 000); mean > 1,
/// shape ≥ 0 or `None` (Poisson), a valid curve; errors otherwise.
/// Note: `proofs-notes/repeat_and_select_rdp.md`.
pub fn repeat_and_select_rdp(
    inner: &RdpCurve,
    mean: &Rational,
    shape: &Option<Rational>,
    alpha: &Rational,
    prec: Precision,
) -> Result<UpperBound> {
    if *alpha <= 1 || *alpha > MAX_ORDER {
        return Err(Error::arg(
            "alpha",
            format!(
                "must lie in (1, {MAX_ORDER}], got {}",
                validate::show(alpha)
            ),
        ));
    }
    let r = RepeatSelect::new(inner.clone(), mean, shape)?;
    let p = prec.fixed_bits()?;
    let a1 = MpfrInterval::from_rational(&Rational::from(alpha - 1u32), p);
    Ok(UpperBound::new(Enclosure::from_real(
        &r.k::<MpfrInterval>(alpha, p).div(&a1),
    )?))
}
