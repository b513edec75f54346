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
use crate::num::{Enclosure, Iv, Precision, Real, UpperBound};
use crate::search::minimize;
use crate::theorems::rdp::{RdpCurve, MAX_ORDER};
use crate::validate;
use crate::{Error, Result};
use rug::Rational;

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
            let e: Iv = tnb_mean(&r, shape, 256);
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

/// An order as a short exact rational near the f64 choice (search only).
fn order(a: f64) -> Rational {
    Rational::from_f64((a.min(MAX_ORDER as f64) * 1024.0).round() / 1024.0)
        .filter(|r| *r > 1)
        .unwrap_or_else(|| Rational::from((1025, 1024)))
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
    fn eps_f64(&self, lambda: f64) -> f64 {
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
    let a1 = Iv::from_rational(&Rational::from(alpha - 1u32), p);
    Ok(UpperBound::new(Enclosure::from_real(
        &r.k::<Iv>(alpha, p).div(&a1),
    )?))
}
